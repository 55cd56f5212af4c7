-- The actionRequests.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- requests the key can see, newest first, keyset-paged; filters status, assignee, issue, source.
create or replace function app_tools.action_requests_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
  v_issue uuid;
begin
  v_issue := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'action_requests') k;
  end if;
  with page as (
    select a as r from app_public.action_requests a
    where a.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or a.status = args->>'status')
      and (args->>'assignedAgentId' is null or a.assigned_agent_id = app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId'))
      and (args->>'assignedUserId' is null or a.assigned_user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId'))
      and (v_issue is null or a.issue_id = v_issue)
      and (args->>'sourceType' is null or a.source_type = args->>'sourceType')
      and (args->>'sourceId' is null or a.source_id = app_hidden.parse_uuid(args->>'sourceId', 'sourceId'))
      and (v_after_ts is null or (a.created_at, a.id) < (v_after_ts, v_after_id))
    order by a.created_at desc, a.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.action_request_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('action_requests', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.action_requests_list(args jsonb) is 'actionRequests.list: Action requests (recommendation cards and polls), newest first, paged ({items, nextCursor}). Filters: status, assignedAgentId, assignedUserId, issueId, sourceType, sourceId. A narrowed key sees those on issues it can see and those assigned to it.';
grant execute on function app_tools.action_requests_list(args jsonb) to svc_visitor;
