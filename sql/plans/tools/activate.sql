-- The plans.activate tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- DRAFT or APPROVED → RUNNING; goal ACTIVE (startedAt); root steps READY and dispatched.
create or replace function app_tools.plans_activate(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'planId', 'planId');
  v_ready uuid[];
begin
  perform app_hidden.plan_assert_may_approve(v_plan);
  v_ready := app_hidden.plan_activate(v_plan);
  return jsonb_build_object('ok', true, 'planId', v_plan.id, 'readyStepIds', to_jsonb(v_ready));
end
$$;
comment on function app_tools.plans_activate(args jsonb) is 'plans.activate: Run a DRAFT or APPROVED plan: RUNNING, the goal becomes ACTIVE, root steps become READY (each writes EXECUTION_STEP_READY and is dispatched to its agent, which gets a run). Any other plan is 409 (a BLOCKED one runs again when its review gate is resolved). A plan awaiting approval (plans.requestApproval) runs only for a key that may accept that request (403 not_allowed or own_request otherwise).';
grant execute on function app_tools.plans_activate(args jsonb) to svc_visitor;
