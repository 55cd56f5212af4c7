-- The executionPlans.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new DRAFT plan attempt for a goal (like plans.decompose, planner only by override), with optional steps.
create or replace function app_tools.execution_plans_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'goalId', 'goalId');
  v_planner uuid;
  v_plan app_public.execution_plans;
begin
  if args->>'plannerAgentId' is not null then
    v_planner := (app_hidden.find_live_agent(args->>'plannerAgentId', 'plannerAgentId')).id;
  end if;
  v_plan := app_hidden.plan_new_attempt(v_goal, v_planner, args->>'contextSetId', (args->>'autoJudge')::boolean, (args->>'maxStepRetries')::int);
  if jsonb_array_length(coalesce(args->'steps', '[]')) > 0 then
    perform app_hidden.add_plan_steps(v_plan, args->'steps', 'steps');
  end if;
  return app_hidden.plan_json(v_plan, true);
end
$$;
comment on function app_tools.execution_plans_create(args jsonb) is 'executionPlans.create: Create a DRAFT plan attempt for a goal directly (as plans.decompose, without choosing a planner unless plannerAgentId is given), optionally with its first steps.';
grant execute on function app_tools.execution_plans_create(args jsonb) to svc_visitor;
