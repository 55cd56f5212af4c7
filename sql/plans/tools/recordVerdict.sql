-- The plans.recordVerdict tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- PASS → DONE (cascade); FAIL → READY with feedback while retries remain, else BLOCKED with a review gate. EXECUTION_STEP_JUDGED.
create or replace function app_tools.plans_record_verdict(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_outcome text;
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_step.status <> 'REVIEW' then
    raise exception 'Step is %; only a step in REVIEW takes a verdict', v_step.status using errcode = 'SV409', detail = 'step_not_in_review';
  end if;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; verdicts wait until it runs again', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A review is its judge's: no other agent records it, the step's worker least (unless it is the judge the plan
  -- itself dispatched: a crew whose only REVIEWER is also the worker). A fellow worker passed another's step, and the
  -- planner every step of its plan. With no judge dispatched, an agent outside the plan may; a person always may.
  if app_hidden.current_agent_id() is not null
     and (app_hidden.current_agent_id() is distinct from v_step.judge_agent_id)
     and (v_step.judge_agent_id is not null or app_hidden.caller_works_in_plan(v_plan.id)) then
    perform app_hidden.step_refuse_non_judge(v_step);
  end if;
  v_outcome := case when args->>'verdict' = 'PASS' then 'DONE'
                    when v_step.retry_count < v_plan.max_step_retries then 'RETRY' else 'BLOCKED' end;
  update app_public.execution_steps
  set judge_verdict = jsonb_build_object('verdict', args->>'verdict', 'feedback', args->>'feedback', 'score', (args->>'score')::numeric,
                                         'judgedByAgentId', app_hidden.current_agent_id(), 'judgedAt', now()),
      last_feedback = case when args->>'verdict' = 'FAIL' then args->>'feedback' else last_feedback end,
      retry_count = case when v_outcome = 'RETRY' then retry_count + 1 else retry_count end
  where id = v_step.id returning * into v_step;
  perform app_hidden.record_event('EXECUTION_STEP_JUDGED', 'execution-step', v_step.id, jsonb_build_object(
    'planId', v_plan.id, 'stepId', v_step.id, 'verdict', args->>'verdict', 'feedback', args->>'feedback',
    'score', (args->>'score')::numeric, 'outcome', v_outcome, 'retryCount', v_step.retry_count,
    'judgedByAgentId', app_hidden.current_agent_id()));
  if v_outcome = 'DONE' then
    perform app_hidden.step_move(v_step, 'DONE');
    perform app_hidden.plan_cascade(v_plan.id);
  elsif v_outcome = 'RETRY' then
    perform app_hidden.step_make_ready(v_step);
  else
    perform app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" failed review %s times', v_step.title, v_step.retry_count + 1),
                                  jsonb_build_object('feedback', args->>'feedback', 'retryCount', v_step.retry_count));
  end if;
  return jsonb_build_object('outcome', v_outcome, 'retryCount', v_step.retry_count, 'stepId', v_step.id);
end
$$;
comment on function app_tools.plans_record_verdict(args jsonb) is 'plans.recordVerdict: Record the verdict on a step in REVIEW: PASS → DONE (dependants become READY; the last one completes the plan and its goal); FAIL → READY again with the feedback while retries remain (maxStepRetries, default 2), else BLOCKED with a review gate. Recorded by the judge of the step or a person: its worker gets 403 own_step (unless the plan made it the judge), any other agent 403 not_judge (with no judge dispatched, an agent outside the plan may). Writes EXECUTION_STEP_JUDGED.';
grant execute on function app_tools.plans_record_verdict(args jsonb) to svc_visitor;
