-- The executionPlans.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a plan with its steps and open review gates.
create or replace function app_tools.execution_plans_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'id');
begin
  return app_hidden.plan_json(v_plan, true) || jsonb_build_object(
    'gates', (select coalesce(jsonb_agg(app_hidden.gate_json(g) order by g.created_at), '[]')
              from app_public.review_gates g where g.plan_id = v_plan.id));
end
$$;
comment on function app_tools.execution_plans_get(args jsonb) is 'executionPlans.get: An execution plan with its steps (dependsOnStepIds, status, retries, verdicts) and its review gates.';
grant execute on function app_tools.execution_plans_get(args jsonb) to svc_visitor;
