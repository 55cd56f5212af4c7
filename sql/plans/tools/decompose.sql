-- The plans.decompose tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new DRAFT plan attempt (earlier ones flip isActiveAttempt false), goal → PLANNING, planner (override, crew PLANNER, callers agent) dispatched.
create or replace function app_tools.plans_decompose(args jsonb)
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
  else
    v_planner := coalesce(app_hidden.crew_agent_for_role(v_goal.crew_id, 'PLANNER', 0, v_goal.issue_id), app_hidden.current_agent_id());
  end if;
  v_plan := app_hidden.plan_new_attempt(v_goal, v_planner, args->>'contextSetId', (args->>'autoJudge')::boolean, (args->>'maxStepRetries')::int);
  return jsonb_build_object('planId', v_plan.id, 'goalId', v_goal.id, 'status', 'PLANNING', 'planStatus', v_plan.status,
                            'attempt', v_plan.attempt, 'plannerAgentId', v_planner);
end
$$;
comment on function app_tools.plans_decompose(args jsonb) is 'plans.decompose: Start planning a goal: a new DRAFT plan attempt (earlier attempts stop being active; a live one is canceled, which needs what executionPlans.transition CANCELED needs), the goal moves to PLANNING and the planner is dispatched (plannerAgentId, else the crew''s PLANNER, else the calling agent).';
grant execute on function app_tools.plans_decompose(args jsonb) to svc_visitor;
