-- The plans.addSteps tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds a batch of steps to a DRAFT plan; dependsOnStepIndexes (0-based, within the batch) must form a DAG.
create or replace function app_tools.plans_add_steps(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'planId', 'planId');
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  return jsonb_build_object('planId', v_plan.id, 'stepIds', to_jsonb(app_hidden.add_plan_steps(v_plan, args->'steps', 'steps')));
end
$$;
comment on function app_tools.plans_add_steps(args jsonb) is 'plans.addSteps: Add steps to a DRAFT plan. dependsOnStepIndexes are 0-based positions within this batch and must form a DAG (a cycle is a 400). assignedAgentId must be a live agent. Steps start TODO and become READY when the plan runs and their dependencies are DONE. An open approval request of the plan is superseded (ask again).';
grant execute on function app_tools.plans_add_steps(args jsonb) to svc_visitor;
