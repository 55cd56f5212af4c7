-- The plans.requestApproval tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- raises a FREE_FORM action request (sourceType execution-plan) whose acceptance activates the plan; earlier open ones are superseded.
create or replace function app_tools.plans_request_approval(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'planId', 'planId');
  v_goal app_public.goals;
  v_req app_public.action_requests;
  v_first int := coalesce((select min(s.position) from app_public.execution_steps s where s.plan_id = app_hidden.parse_uuid(args->>'planId', 'planId')), 0);
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  if v_plan.status <> 'DRAFT' then
    raise exception 'Only a DRAFT plan is sent for approval (this one is %)', v_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps to approve: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  v_req := app_hidden.action_request_insert(jsonb_build_object(
      'title', format('Approve plan (attempt %s) for goal: %s', v_plan.attempt, v_goal.title),
      'body', (select string_agg(format('%s. %s%s', s.position - v_first + 1, s.title,
                 case when cardinality(s.depends_on_step_ids) > 0 then ' (after ' || (
                   select string_agg((d.position - v_first + 1)::text, ', ' order by d.position)
                   from app_public.execution_steps d where d.id = any(s.depends_on_step_ids)) || ')' else '' end), E'\n' order by s.position)
               from app_public.execution_steps s where s.plan_id = v_plan.id),
      'severity', 'INFO', 'kind', 'FREE_FORM', 'sourceType', 'execution-plan', 'sourceId', v_plan.id,
      'assignedUserId', args->>'assignedUserId',
      'payload', jsonb_build_object('planId', v_plan.id, 'goalId', v_goal.id)),
    v_goal.issue_id, null);
  update app_public.execution_plans set approval_request_id = v_req.id where id = v_plan.id;
  return jsonb_build_object('actionRequestId', v_req.id, 'planId', v_plan.id);
end
$$;
comment on function app_tools.plans_request_approval(args jsonb) is 'plans.requestApproval: Ask for approval of a DRAFT plan: raises a FREE_FORM action request (sourceType execution-plan, on the goal''s issue) whose acceptance activates the plan (409 plan_empty without steps). An earlier open approval request is superseded, as is this one when steps are added later.';
grant execute on function app_tools.plans_request_approval(args jsonb) to svc_visitor;
