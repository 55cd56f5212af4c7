-- The executionPlans.transitionStep tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a step of a RUNNING plan: DONE cascades readiness (and completes the plan), REVIEW dispatches the judge when the plan auto-judges, BLOCKED opens a gate.
create or replace function app_tools.execution_plans_transition_step(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_to text := args->>'status';
  v_ready uuid[] := '{}';
  v_judge uuid;
  v_gate app_public.review_gates;
  v_held app_public.review_gates;
  v_source_run uuid := app_hidden.parse_uuid(args->>'sourceRunId', 'sourceRunId');
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; its steps move only while it runs', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A pending gate holds the step: a person decides it (reviewGates.resolve); only canceling the step (which
  -- cancels the gate) goes around it.
  if v_to <> 'CANCELED' and exists (select 1 from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING') then
    raise exception 'A review gate holds this step: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
  end if;
  -- A step in REVIEW waits for its verdict, and a plan that judges its steps judges every one: no agent but its judge
  -- passes it (DONE); its worker moves it to REVIEW. The worker passing its own work (REVIEW → READY → DONE went around
  -- the review) or a fellow worker's is 403; a person still may. Nor does a worker cancel its own step.
  if app_hidden.current_agent_id() is not null and app_hidden.current_agent_id() is distinct from v_step.judge_agent_id then
    if v_to = 'DONE' and (v_step.status = 'REVIEW' or app_hidden.plan_auto_judges(v_plan)) then
      perform app_hidden.step_refuse_non_judge(v_step);
    end if;
    -- Otherwise an agent working in the plan moves its own steps, or any as its planner.
    perform app_hidden.plan_assert_own_step(v_plan, v_step);
  end if;
  if v_to = 'CANCELED' then
    perform app_hidden.plan_assert_may_end(v_plan, v_step);
  end if;
  if v_source_run is not null then
    -- The run the move comes from: one of this step's runs.
    if not exists (select 1 from app_public.agent_runs r where r.id = v_source_run and r.step_id = v_step.id) then
      raise exception 'Run not found among this step''s runs' using errcode = 'SV404', column = 'sourceRunId';
    end if;
    update app_public.execution_steps set source_run_id = v_source_run
    where id = v_step.id returning * into v_step;
  end if;
  if v_to = 'READY' then
    if v_step.status = 'READY' then
      perform app_hidden.assert_move('step', 'Step', v_step.status, v_to);
    end if;
    v_step := app_hidden.step_make_ready(v_step);
  elsif v_to = 'BLOCKED' then
    v_gate := app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" is blocked', v_step.title),
                                    jsonb_build_object('note', args->>'note'));
  else
    v_step := app_hidden.step_move(v_step, v_to);
    if v_to = 'REVIEW' and app_hidden.plan_auto_judges(v_plan) then
      v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position,
                                             (select g.issue_id from app_public.goals g where g.id = v_plan.goal_id));
      if v_judge is not null then
        perform app_hidden.step_dispatch_judge(v_step, v_judge);
      end if;
    elsif v_to in ('DONE', 'CANCELED') then
      if v_to = 'CANCELED' then
        for v_held in select * from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING' loop
          perform app_hidden.gate_move(v_held, 'CANCELED', 'the step was canceled');
        end loop;
      end if;
      v_ready := app_hidden.plan_cascade(v_plan.id);
    end if;
  end if;
  select * into v_step from app_public.execution_steps where id = v_step.id;
  select * into v_plan from app_public.execution_plans where id = v_plan.id;
  return jsonb_build_object('step', app_hidden.step_json(v_step), 'planStatus', v_plan.status,
    'goalStatus', (select g.status from app_public.goals g where g.id = v_plan.goal_id),
    'readyStepIds', to_jsonb(v_ready), 'judgeAgentId', v_judge, 'gateId', v_gate.id);
end
$$;
comment on function app_tools.execution_plans_transition_step(args jsonb) is 'executionPlans.transitionStep: Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew''s REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED (cancels its pending gate). A step a pending gate holds moves only to CANCELED (409 gate_pending). sourceRunId: one of the step''s runs (404). Who may (else 403 own_step, not_judge, own_plan, person_required): DONE, where the plan judges steps or from REVIEW, the step''s judge or a person; other moves, the step''s worker or judge, the planner or a person; CANCELED, a person, the planner or an agent outside the plan, and under a pending gate only one who may decide it.';
grant execute on function app_tools.execution_plans_transition_step(args jsonb) to svc_visitor;
