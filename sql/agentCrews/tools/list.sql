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
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'agent_crews');
begin
  return app_hidden.page_json(array(
    select (app_hidden.crew_json(c), app_hidden.ts_key(c.created_at), c.id)::app_hidden.page_row
    from app_public.agent_crews c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (coalesce((args->>'includeArchived')::boolean, false) or c.archived_at is null)
      and (v_after.sort_id is null or (c.created_at, c.id) > (v_after.sort_key, v_after.sort_id))
    order by c.created_at, c.id limit v_limit + 1), v_limit, 'agent_crews');
end
$$;
comment on function app_tools.agent_crews_list(args jsonb) is 'agentCrews.list: Agent crews, oldest first, paged ({items, nextCursor}), with members and member and plan counts; archived crews with includeArchived.';
grant execute on function app_tools.agent_crews_list(args jsonb) to svc_visitor;
