-- The executionPlans.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- plans the key can see, newest first, keyset-paged; filters goalId, status, activeOnly.
create or replace function app_tools.execution_plans_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'execution_plans');
  -- A goal the key cannot see is 404, as every list's filter by id (not an empty page).
  v_goal uuid := case when args->>'goalId' is not null then (app_hidden.find_goal(args->>'goalId', 'goalId')).id end;
begin
  return app_hidden.page_json(array(
    select (app_hidden.plan_json(p), app_hidden.ts_key(p.created_at), p.id)::app_hidden.page_row
    from app_public.execution_plans p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_goal is null or p.goal_id = v_goal)
      and (args->>'status' is null or p.status = args->>'status')
      and (not coalesce((args->>'activeOnly')::boolean, false) or p.is_active_attempt)
      and (v_after.sort_id is null or (p.created_at, p.id) < (v_after.sort_key, v_after.sort_id))
    order by p.created_at desc, p.id desc limit v_limit + 1), v_limit, 'execution_plans');
end
$$;
comment on function app_tools.execution_plans_list(args jsonb) is 'executionPlans.list: Execution plans, newest first, paged ({items, nextCursor}). Filters: goalId, status, activeOnly.';
grant execute on function app_tools.execution_plans_list(args jsonb) to svc_visitor;
