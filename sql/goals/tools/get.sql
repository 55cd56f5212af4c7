-- The goals.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a goal with its plans (newest attempt first), the active plan with its steps, and the aggregate.
create or replace function app_tools.goals_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  return app_hidden.goal_json(v_goal) || jsonb_build_object(
    'plans', (select coalesce(jsonb_agg(app_hidden.plan_json(p) order by p.attempt desc), '[]')
              from app_public.execution_plans p where p.goal_id = v_goal.id),
    'activePlan', (select app_hidden.plan_json(p, true) from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt),
    'openGates', (select coalesce(jsonb_agg(app_hidden.gate_json(g) order by g.created_at), '[]')
                  from app_public.review_gates g join app_public.execution_plans p on p.id = g.plan_id
                  where p.goal_id = v_goal.id and g.status = 'PENDING'));
end
$$;
comment on function app_tools.goals_get(args jsonb) is 'goals.get: A goal with its plans (newest attempt first), the active plan with its steps, pending review gates, and aggregate {activePlanId, totalSteps, doneSteps, blockedSteps}.';
grant execute on function app_tools.goals_get(args jsonb) to svc_visitor;
