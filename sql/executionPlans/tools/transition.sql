-- The executionPlans.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a plan along its machine: APPROVED, RUNNING (= plans.activate), BLOCKED, COMPLETED (all steps done), CANCELED.
create or replace function app_tools.execution_plans_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'id');
  v_to text := args->>'status';
  v_goal app_public.goals;
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  if v_to in ('APPROVED', 'RUNNING') then
    perform app_hidden.plan_assert_may_approve(v_plan);
  end if;
  if v_to = 'BLOCKED' then
    perform app_hidden.plan_assert_own_step(v_plan);
  end if;
  if v_to in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_assert_may_end(v_plan);
  end if;
  if v_to = 'RUNNING' and v_plan.status in ('DRAFT', 'APPROVED') then
    perform app_hidden.plan_activate(v_plan);
  elsif v_to = 'RUNNING' then
    if exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
      raise exception 'A review gate holds this plan: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
    end if;
    perform app_hidden.plan_resume(v_plan);
  elsif v_to = 'COMPLETED' then
    -- A move the machine refuses (a DRAFT or APPROVED plan) is said as such first, not as steps still open.
    perform app_hidden.assert_move('plan', 'Plan', v_plan.status, 'COMPLETED');
    -- As the automatic completion (plan_cascade): every step DONE or CANCELED, and at least one DONE. A plan whose
    -- steps were all canceled did nothing, and completing it would achieve its goal; cancel the plan instead.
    if exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED')) then
      raise exception 'Every step must be DONE or CANCELED first: % still open',
        (select count(*) from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED'))
        using errcode = 'SV409', detail = 'steps_not_done';
    elsif not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id and s.status = 'DONE') then
      raise exception 'No step is DONE: a plan whose steps were all canceled did nothing and cannot complete (cancel it instead)'
        using errcode = 'SV409', detail = 'steps_not_done';
    end if;
    perform app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(v_plan.id);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  elsif v_to = 'CANCELED' then
    perform app_hidden.plan_cancel(v_plan);
  elsif v_to = 'APPROVED' and not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    -- An approved plan takes no more steps and an empty one cannot run: it would be stuck.
    raise exception 'The plan has no steps: add them with plans.addSteps before approving it' using errcode = 'SV409', detail = 'plan_empty';
  else
    perform app_hidden.plan_move(v_plan, v_to);
  end if;
  return app_hidden.plan_json((select p from app_public.execution_plans p where p.id = v_plan.id), true);
end
$$;
comment on function app_tools.execution_plans_transition(args jsonb) is 'executionPlans.transition: Move a plan: APPROVED (it has steps), RUNNING (as plans.activate; from BLOCKED only when no review gate holds it), BLOCKED, COMPLETED (every step DONE or CANCELED, at least one DONE), CANCELED (unfinished steps, gates and step runs end). APPROVED and RUNNING of a plan awaiting approval need a key that may accept the request (403). COMPLETED and CANCELED are for a person, the planner of the plan or an agent outside the plan (403 own_plan), and while a review gate is pending only for one who may decide it (403 person_required / own_plan). Illegal moves are 409.';
grant execute on function app_tools.execution_plans_transition(args jsonb) to svc_visitor;
