-- The reviewGates.open tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a manual checkpoint: with stepId it holds that step (BLOCKED), else it holds the running plan (BLOCKED).
create or replace function app_tools.review_gates_open(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'planId', 'planId');
  v_step app_public.execution_steps;
  v_gate app_public.review_gates;
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  if v_plan.status not in ('RUNNING', 'BLOCKED') then
    raise exception 'Plan is %; gates hold running plans', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  if args->>'stepId' is not null then
    v_step := app_hidden.find_step(args->>'stepId', 'stepId');
    if v_step.plan_id <> v_plan.id then
      raise exception 'Step not found in this plan' using errcode = 'SV404', column = 'stepId';
    end if;
    perform app_hidden.plan_assert_own_step(v_plan, v_step);
    v_gate := app_hidden.step_block(v_step, 'MANUAL', coalesce(args->>'title', format('Review step "%s"', v_step.title)),
                                    jsonb_build_object('note', args->>'note'));
  else
    perform app_hidden.plan_assert_own_step(v_plan);
    if v_plan.status = 'RUNNING' then
      v_plan := app_hidden.plan_move(v_plan, 'BLOCKED');
    end if;
    v_gate := app_hidden.open_gate(v_plan, null, 'MANUAL', coalesce(args->>'title', 'Review the plan before it continues'),
                                   jsonb_build_object('note', args->>'note'));
  end if;
  return app_hidden.gate_json(v_gate);
end
$$;
comment on function app_tools.review_gates_open(args jsonb) is 'reviewGates.open: Open a manual review gate on a running plan: with stepId it holds that step (BLOCKED), otherwise it holds the plan (BLOCKED) until resolved. The loop opens gates itself when a step is BLOCKED or a budget is exceeded.';
grant execute on function app_tools.review_gates_open(args jsonb) to svc_visitor;
