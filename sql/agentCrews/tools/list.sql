-- The agentCrews.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- crews with members and member/plan counts, oldest first, keyset-paged; archived ones with includeArchived.
create or replace function app_tools.agent_crews_list(args jsonb)
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
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'agent_crews') k;
  end if;
  with page as (
    select c as r from app_public.agent_crews c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (coalesce((args->>'includeArchived')::boolean, false) or c.archived_at is null)
      and (v_after_ts is null or (c.created_at, c.id) > (v_after_ts, v_after_id))
    order by c.created_at, c.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.crew_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('agent_crews', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.agent_crews_list(args jsonb) is 'agentCrews.list: Agent crews, oldest first, paged ({items, nextCursor}), with members and member and plan counts; archived crews with includeArchived.';
grant execute on function app_tools.agent_crews_list(args jsonb) to svc_visitor;
