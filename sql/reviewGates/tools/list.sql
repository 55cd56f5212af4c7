-- The reviewGates.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- gates the key can see, newest first, keyset-paged; filters status, planId, goalId.
create or replace function app_tools.review_gates_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'review_gates');
  -- A plan or goal the key cannot see is 404, as every list's filter by id (not an empty page).
  v_plan uuid := case when args->>'planId' is not null then (app_hidden.find_plan(args->>'planId', 'planId')).id end;
  v_goal uuid := case when args->>'goalId' is not null then (app_hidden.find_goal(args->>'goalId', 'goalId')).id end;
begin
  return app_hidden.page_json(array(
    select (app_hidden.gate_json(g), app_hidden.ts_key(g.created_at), g.id)::app_hidden.page_row
    from app_public.review_gates g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (v_plan is null or g.plan_id = v_plan)
      and (v_goal is null or g.plan_id in (select p.id from app_public.execution_plans p where p.goal_id = v_goal))
      and (v_after.sort_id is null or (g.created_at, g.id) < (v_after.sort_key, v_after.sort_id))
    order by g.created_at desc, g.id desc limit v_limit + 1), v_limit, 'review_gates');
end
$$;
comment on function app_tools.review_gates_list(args jsonb) is 'reviewGates.list: Review gates (approval checkpoints of the loop), newest first, paged ({items, nextCursor}). Filters: status, planId, goalId.';
grant execute on function app_tools.review_gates_list(args jsonb) to svc_visitor;
