-- The plans.judge tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- dispatches the judge of a step in REVIEW (override, then crew REVIEWER): EXECUTION_STEP_READY phase judge.
create or replace function app_tools.plans_judge(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_judge uuid;
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_step.status <> 'REVIEW' then
    raise exception 'Step is %; only a step in REVIEW is judged', v_step.status using errcode = 'SV409', detail = 'step_not_in_review';
  end if;
  if args->>'judgeAgentId' is not null then
    v_judge := (app_hidden.find_live_agent(args->>'judgeAgentId', 'judgeAgentId')).id;
    -- The step's worker does not name itself its judge (recordVerdict would then take its own PASS). The crew's
    -- REVIEWER being the worker stays possible: that is the plan's choice, not the worker's.
    if v_judge = v_step.assigned_agent_id and app_hidden.current_agent_id() = v_step.assigned_agent_id then
      raise exception 'The step''s worker cannot name itself its judge (judgeAgentId)' using errcode = 'SV403', detail = 'own_step';
    end if;
    -- Nor does another agent of the plan choose the judge, nor any agent make the worker its step's judge: a fellow
    -- worker named the step's worker, who then passed its own step. A person may.
    if app_hidden.caller_works_in_plan(v_plan.id) then
      raise exception 'An agent working in this plan does not choose a step''s judge: plans.judge without judgeAgentId takes the crew''s REVIEWER; a person may name one'
        using errcode = 'SV403', detail = 'own_plan';
    end if;
    if v_judge = v_step.assigned_agent_id and app_hidden.current_agent_id() is not null then
      raise exception 'An agent does not make the step''s worker its judge; a person may' using errcode = 'SV403', detail = 'own_step';
    end if;
  else
    v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position,
                                             (select g.issue_id from app_public.goals g where g.id = v_plan.goal_id));
  end if;
  if v_judge is null then
    raise exception 'No reviewer: pass judgeAgentId or add a REVIEWER to the goal''s crew' using errcode = 'SV409', detail = 'no_reviewer';
  end if;
  perform app_hidden.step_dispatch_judge(v_step, v_judge);
  return jsonb_build_object('judgeAgentId', v_judge, 'stepId', v_step.id);
end
$$;
comment on function app_tools.plans_judge(args jsonb) is 'plans.judge: Dispatch the judge of a step in REVIEW (judgeAgentId, else the crew''s REVIEWER): EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt. The step''s worker may not name itself (403 own_step), no agent working in the plan names a judge (403 own_plan; without judgeAgentId it takes the crew''s REVIEWER), and no agent names the step''s worker (403 own_step); a person may.';
grant execute on function app_tools.plans_judge(args jsonb) to svc_visitor;
