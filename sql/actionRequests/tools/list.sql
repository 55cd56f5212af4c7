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
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'action_requests');
begin
  return app_hidden.page_json(array(
    select (app_hidden.action_request_json(a), app_hidden.ts_key(a.created_at), a.id)::app_hidden.page_row
    from app_public.action_requests a
    where a.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or a.status = args->>'status')
      and (args->>'assignedAgentId' is null or a.assigned_agent_id = app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId'))
      and (args->>'assignedUserId' is null or a.assigned_user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId'))
      and (v_issue is null or a.issue_id = v_issue)
      and (args->>'sourceType' is null or a.source_type = args->>'sourceType')
      and (args->>'sourceId' is null or a.source_id = app_hidden.parse_uuid(args->>'sourceId', 'sourceId'))
      and (v_after.sort_id is null or (a.created_at, a.id) < (v_after.sort_key, v_after.sort_id))
    order by a.created_at desc, a.id desc limit v_limit + 1), v_limit, 'action_requests');
end
$$;
comment on function app_tools.action_requests_list(args jsonb) is 'actionRequests.list: Action requests (recommendation cards and polls), newest first, paged ({items, nextCursor}). Filters: status, assignedAgentId, assignedUserId, issueId, sourceType, sourceId. A narrowed key sees those on issues it can see and those assigned to it.';
grant execute on function app_tools.action_requests_list(args jsonb) to svc_visitor;
