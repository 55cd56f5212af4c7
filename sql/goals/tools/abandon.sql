-- The goals.abandon tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ABANDONED (terminal; 409 from ACHIEVED or ABANDONED); the live active plan attempt is canceled.
create or replace function app_tools.goals_abandon(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  perform app_hidden.lock_plan(p.id) from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt;
  perform app_hidden.plan_assert_may_end(p) from app_public.execution_plans p
  where p.goal_id = v_goal.id and p.is_active_attempt and p.status not in ('COMPLETED', 'CANCELED');
  select * into v_goal from app_public.goals where id = v_goal.id for update;
  return app_hidden.goal_json(app_hidden.goal_abandon(v_goal, args->>'reason'));
end
$$;
comment on function app_tools.goals_abandon(args jsonb) is 'goals.abandon: Abandon a goal (terminal): its running plan attempt is canceled with its unfinished steps, open gates and step runs. While it has a live plan, an agent working in that plan must be its planner (403 own_plan), and a goal whose plan a pending review gate holds is abandoned only by one who may decide the gate (403 person_required / own_plan).';
grant execute on function app_tools.goals_abandon(args jsonb) to svc_visitor;
