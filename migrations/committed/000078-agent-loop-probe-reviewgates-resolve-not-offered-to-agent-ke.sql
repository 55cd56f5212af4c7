--! Previous: sha1:a41fdf2dd1cf6c2d3340f8edd41e1a6e32e6aa9e
--! Hash: sha1:bd7a8e8da998e693f35b5f630896e37a62ce6061
--! Message: Agent-loop probe: reviewGates.resolve not offered to agent keys without ADMIN, the judge prompt's score range, no action requests for archived agents

--! split: 1-current.sql
-- Outside probe of the agent loop (eleventh session).
-- reviewGates.resolve refuses an agent key without ADMIN before looking the gate up (the key's kind decides).
--! Included reviewGates/tools/resolve.sql
-- The reviewGates.resolve tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- APPROVE continues the loop, REJECT abandons the goal; a person (or an ADMIN key) decides, never an agent key alone.
create or replace function app_tools.review_gates_resolve(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_gate app_public.review_gates;
begin
  -- Before the gate is looked up: the key's kind decides, whatever the id (tools/list leaves the tool out for it).
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  v_gate := app_hidden.find_gate(args->>'id');
  v_gate := app_hidden.gate_resolve(v_gate, args->>'decision', args->>'note');
  return app_hidden.gate_json(v_gate) || jsonb_build_object(
    'planStatus', (select p.status from app_public.execution_plans p where p.id = v_gate.plan_id),
    'goalStatus', (select g.status from app_public.goals g join app_public.execution_plans p on p.goal_id = g.id where p.id = v_gate.plan_id));
end
$$;
comment on function app_tools.review_gates_resolve(args jsonb) is 'reviewGates.resolve: Resolve a pending gate: APPROVE continues (a held step is ready again with fresh retries, a held plan runs again), REJECT abandons the goal. Decided by a person; an agent key needs the ADMIN scope.';
grant execute on function app_tools.review_gates_resolve(args jsonb) to svc_visitor;
--! EndIncluded reviewGates/tools/resolve.sql
-- The judge's prompt states the score range plans.recordVerdict takes (0 to 100).
--! Included orchestration/loop.sql
-- orchestration: the loop. Finding and locking records, making steps READY (run + dispatch), judging,
-- cascading readiness, completing plans and goals, opening gates. Called by the goals/plans/executionPlans/
-- reviewGates tools and by accepting a plan's approval request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_goal(p_id text, p_field text default 'id'::text)
 returns app_public.goals
 language plpgsql
 stable
as $$
declare v app_public.goals;
begin
  select * into v from app_public.goals
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Goal not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_goal(p_id text, p_field text) is 'A goal the key can see (a goal tied to an issue follows that issue''s narrowing), else 404 naming the field.';
grant execute on function app_hidden.find_goal(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_plan(p_id text, p_field text default 'id'::text)
 returns app_public.execution_plans
 language plpgsql
 stable
as $$
declare v app_public.execution_plans;
begin
  select * into v from app_public.execution_plans
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Plan not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plan(p_id text, p_field text) is 'An execution plan the key can see (through its goal), else 404 naming the field.';
grant execute on function app_hidden.find_plan(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_step(p_id text, p_field text default 'stepId'::text)
 returns app_public.execution_steps
 language plpgsql
 stable
as $$
declare v app_public.execution_steps;
begin
  select * into v from app_public.execution_steps
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see (through its plan and goal), else 404 naming the field.';
grant execute on function app_hidden.find_step(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.lock_plan(p_plan_id uuid)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  -- Lock order everywhere: goal, then plan. Steps are only changed with their plan locked.
  perform 1 from app_public.goals g where g.id = (select p.goal_id from app_public.execution_plans p where p.id = p_plan_id) for update;
  select * into v from app_public.execution_plans where id = p_plan_id for update;
  return v;
end
$$;
comment on function app_hidden.lock_plan(p_plan_id uuid) is 'Locks a plan''s goal and then the plan (FOR UPDATE) and returns the fresh plan: loop mutations of one goal serialize here.';
grant execute on function app_hidden.lock_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0)
 returns uuid
 language sql
 stable
as $$
  with members as (
    select m.agent_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role)
  select agent_id from members where i = coalesce(p_seed, 0) % n
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...), spread over the members by p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  v_agent := coalesce(p_step.assigned_agent_id,
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position));
  v_step := app_hidden.step_move(p_step, 'READY');
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step, whose title is the
  -- run's currentStep (what the board and agents.workload show it working on). A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    -- Read, not locked: the run's own tools lock it and then this plan (budget trigger), so locking it under the
    -- plan's lock could deadlock; a retry's step has the same title.
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id, current_step)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id, v_step.title)
      returning id into v_run;
    end if;
  end if;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'work', 'planId', v_plan.id, 'goalId', v_goal.id, 'stepId', v_step.id, 'title', v_step.title,
    'body', v_step.body, 'expectedOutput', v_step.expected_output, 'verification', v_step.verification,
    'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id), 'assignedAgentId', v_agent,
    'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count, 'runId', v_run, 'issueId', v_goal.issue_id));
  perform app_hidden.dispatch_to_agent(v_event, v_agent);
  return v_step;
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE): its agent (assigned, else the crew member in its role, default WORKER) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_step app_public.execution_steps;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  update app_public.execution_steps set judge_agent_id = p_judge where id = p_step.id returning * into v_step;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'judge', 'judgeAgentId', p_judge, 'planId', v_plan.id, 'goalId', v_plan.goal_id, 'stepId', v_step.id,
    'title', v_step.title, 'body', v_step.body, 'expectedOutput', v_step.expected_output,
    'verification', v_step.verification, 'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id),
    'assignedAgentId', v_step.assigned_agent_id, 'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count,
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0 to 100 (optional)}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

create or replace function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  -- SKIP LOCKED: a run being reported on right now (its tool locked it, and its budget trigger then waits for this
  -- plan's lock) is left to its agent rather than deadlocking; the stale sweep catches it if nobody closes it.
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.id in (select o.id from app_public.agent_runs o
                 where o.workspace_id = p_plan.workspace_id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
                   and o.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id)
                 for update skip locked);
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) is 'Ends the open runs of a plan attempt''s steps (ABANDONED, reason plan_canceled or plan_completed), when the attempt is canceled or completes.';
grant execute on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_cascade(p_plan_id uuid)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_ready uuid[] := '{}';
begin
  select * into v_plan from app_public.execution_plans where id = p_plan_id;
  if v_plan.status <> 'RUNNING' then
    return v_ready;
  end if;
  for v_step in
    select s.* from app_public.execution_steps s
    where s.plan_id = p_plan_id and s.status = 'TODO' and app_hidden.step_dependencies_done(s)
    order by s.position
  loop
    perform app_hidden.step_make_ready(v_step);
    v_ready := v_ready || v_step.id;
  end loop;
  -- Every step DONE (canceled ones skipped, at least one DONE): the plan completes and its goal is achieved.
  if exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status = 'DONE')
     and not exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status not in ('DONE', 'CANCELED')) then
    v_plan := app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(p_plan_id);
    -- Step runs their agents left open would otherwise stay ACTIVE on a finished plan, and stall.
    perform app_hidden.plan_end_step_runs(v_plan, 'plan_completed');
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED (open step runs end, reason plan_completed) and its goal ACHIEVED. Returns the ids made READY.';
grant execute on function app_hidden.plan_cascade(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_activate(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_plan.id);
  v_goal app_public.goals;
begin
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  -- Spec 3.8: only DRAFT or APPROVED. A BLOCKED plan runs again through its gate (reviewGates.resolve) or
  -- executionPlans.transition RUNNING, which refuse while a gate holds it.
  if v_plan.status not in ('DRAFT', 'APPROVED') then
    raise exception 'Plan is %; plans.activate runs a DRAFT or APPROVED plan%', v_plan.status,
      case when v_plan.status = 'BLOCKED' then ' (a blocked plan runs again when its review gate is resolved)' else '' end
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if v_goal.status not in ('PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; its plan cannot run', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
  if v_goal.status = 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'ACTIVE');
  end if;
  -- Activating answers the plan's open approval requests (one being accepted is already RESOLVED).
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return app_hidden.plan_cascade(v_plan.id);
end
$$;
comment on function app_hidden.plan_activate(p_plan app_public.execution_plans) is 'plans.activate (also run by accepting the plan''s approval request): the active DRAFT/APPROVED attempt with steps becomes RUNNING, its goal ACTIVE (startedAt), root steps READY and dispatched. Other open approval requests of the plan are SUPERSEDED. Returns the ids made READY.';
grant execute on function app_hidden.plan_activate(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.gates_cancel(p_plan_id uuid)
 returns void
 language plpgsql
as $$
declare v_gate app_public.review_gates;
begin
  for v_gate in select * from app_public.review_gates g where g.plan_id = p_plan_id and g.status = 'PENDING' loop
    perform app_hidden.gate_move(v_gate, 'CANCELED', 'the plan ended');
  end loop;
end
$$;
comment on function app_hidden.gates_cancel(p_plan_id uuid) is 'CANCELs the PENDING review gates of a plan that ended.';
grant execute on function app_hidden.gates_cancel(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_cancel(p_plan app_public.execution_plans)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_step app_public.execution_steps;
begin
  v_plan := app_hidden.plan_move(p_plan, 'CANCELED');
  for v_step in select * from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED') order by s.position loop
    perform app_hidden.step_move(v_step, 'CANCELED');
  end loop;
  perform app_hidden.gates_cancel(v_plan.id);
  perform app_hidden.plan_end_step_runs(v_plan, 'plan_canceled');
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return v_plan;
end
$$;
comment on function app_hidden.plan_cancel(p_plan app_public.execution_plans) is 'Cancels a live plan attempt: plan CANCELED, its unfinished steps CANCELED, pending gates CANCELED, open step runs ABANDONED, open approval requests SUPERSEDED.';
grant execute on function app_hidden.plan_cancel(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text)
 returns app_public.goals
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
begin
  select * into v_plan from app_public.execution_plans p where p.goal_id = p_goal.id and p.is_active_attempt for update;
  v_goal := app_hidden.goal_move(p_goal, 'ABANDONED', p_reason);
  if v_plan.id is not null and v_plan.status not in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_cancel(v_plan);
  end if;
  return v_goal;
end
$$;
comment on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) is 'goals.abandon (and rejecting a review gate): the goal becomes ABANDONED (terminal) and its live active plan attempt is canceled.';
grant execute on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_goal app_public.goals;
  v_prior app_public.execution_plans;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_goal from app_public.goals where id = p_goal.id for update;
  if v_goal.status not in ('OPEN', 'PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; it cannot be planned again', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  select * into v_prior from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt for update;
  if v_prior.id is not null then
    update app_public.execution_plans set is_active_attempt = false where id = v_prior.id returning * into v_prior;
    if v_prior.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_prior);
    end if;
  end if;
  insert into app_public.execution_plans (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  values (v_goal.workspace_id, v_goal.id,
          coalesce((select max(p.attempt) from app_public.execution_plans p where p.goal_id = v_goal.id), 0) + 1,
          p_planner, p_context_set_id, p_auto_judge, coalesce(p_max_step_retries, 2))
  returning * into v_plan;
  if v_goal.status <> 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'PLANNING');  -- GOAL_STATUS_CHANGED (and the planner's dispatch) by trigger
  else
    -- Already planning: the new attempt is still announced (and dispatched to its planner).
    v_event := app_hidden.record_event('GOAL_STATUS_CHANGED', 'goal', v_goal.id,
      app_hidden.goal_status_payload(v_goal, 'PLANNING', 'PLANNING'));
    perform app_hidden.dispatch_to_agent(v_event, p_planner);
  end if;
  return v_plan;
end
$$;
comment on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) is 'A new DRAFT plan attempt for a live goal (plans.decompose, executionPlans.create): the previous attempt flips isActiveAttempt false (canceled if live), the goal moves to PLANNING; GOAL_STATUS_CHANGED carries planId and plannerAgentId and is dispatched to the planner.';
grant execute on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) to svc_visitor;

create or replace function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('goalId', p_goal.id, 'from', p_from, 'to', p_to, 'planId', p.id,
                            'plannerAgentId', p.planner_agent_id, 'issueId', p_goal.issue_id, 'title', p_goal.title)
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal.id and p.is_active_attempt
$$;
comment on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) is 'GOAL_STATUS_CHANGED payload (spec 6.4: from, to, planId = the active attempt) plus goalId, plannerAgentId, issueId, title.';
grant execute on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text default 'steps'::text)
 returns uuid[]
 language plpgsql
as $$
declare
  v_n int := jsonb_array_length(coalesce(p_steps, '[]'));
  v_base int;
  v_ids uuid[] := '{}';
  v_indeg int[];
  v_queue int[] := '{}';
  v_seen int := 0;
  v_i int;
  v_j int;
  v_d int;
  v_step jsonb;
  v_agent uuid;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
      if v_d < 0 or v_d >= v_n then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), format('index %s is not a step of this batch (0..%s)', v_d, v_n - 1));
      elsif v_d = v_i then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), 'a step cannot depend on itself');
      end if;
      v_indeg[v_i + 1] := v_indeg[v_i + 1] + 1;
    end loop;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    if v_indeg[v_i + 1] = 0 then v_queue := v_queue || v_i; end if;
  end loop;
  while cardinality(v_queue) > 0 loop
    v_i := v_queue[1];
    v_queue := v_queue[2:];
    v_seen := v_seen + 1;
    for v_j in 0 .. v_n - 1 loop
      if exists (select 1 from jsonb_array_elements_text(coalesce(p_steps->v_j->'dependsOnStepIndexes', '[]')) e where e::int = v_i) then
        v_indeg[v_j + 1] := v_indeg[v_j + 1] - 1;
        if v_indeg[v_j + 1] = 0 then v_queue := v_queue || v_j; end if;
      end if;
    end loop;
  end loop;
  if v_seen < v_n then
    -- Named as the other errors are: 0-based batch positions, the field of the first step in the cycle.
    perform app_hidden.raise_invalid(
      format('%s.%s.dependsOnStepIndexes', p_field, (select min(i) - 1 from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)),
      format('the dependencies make a cycle (steps %s)', (select string_agg((i - 1)::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_agent := (app_hidden.find_live_agent(v_step->>'assignedAgentId', format('%s.%s.assignedAgentId', p_field, v_i))).id;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  -- The plan an approver was asked about has changed: its open approval request is SUPERSEDED (ask again).
  if v_n > 0 then
    perform app_hidden.action_requests_supersede('execution-plan', p_plan.id);
  end if;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. assignedAgentId must be a live agent (400 agent_archived). Steps start TODO; an open approval request of the plan is SUPERSEDED (what it asked about changed).';
grant execute on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  insert into app_public.review_gates (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  values (p_plan.workspace_id, p_plan.id, p_step_id, p_reason, p_title, coalesce(p_details, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v;  -- REVIEW_GATE_OPENED by trigger
  return v;
end
$$;
comment on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) is 'Opens a PENDING review gate on a plan (and step): STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME or MANUAL.';
grant execute on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  perform app_hidden.step_move(p_step, 'BLOCKED');
  return app_hidden.open_gate(v_plan, p_step.id, p_reason, p_title, p_details);
end
$$;
comment on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) is 'A step becomes BLOCKED and a review gate opens on it (approve: the step is ready again with fresh retries; reject: the goal is abandoned).';
grant execute on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_gate.plan_id);
  v_gate app_public.review_gates;
  v_step app_public.execution_steps;
  v_goal app_public.goals;
begin
  select * into v_gate from app_public.review_gates where id = p_gate.id for update;
  if p_decision = 'REJECT' then
    v_gate := app_hidden.gate_move(v_gate, 'REJECTED', p_note);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_goal.status not in ('ACHIEVED', 'ABANDONED') then
      perform app_hidden.goal_abandon(v_goal, coalesce(p_note, 'review gate rejected'));
    elsif v_plan.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_plan);
    end if;
    return v_gate;
  end if;
  v_gate := app_hidden.gate_move(v_gate, 'APPROVED', p_note);
  if v_gate.step_id is not null then
    -- The held step continues with fresh retries: READY when its dependencies are DONE, else back to TODO.
    select * into v_step from app_public.execution_steps where id = v_gate.step_id;
    if v_step.status = 'BLOCKED' then
      update app_public.execution_steps set retry_count = 0 where id = v_step.id returning * into v_step;
      if v_plan.status = 'RUNNING' and app_hidden.step_dependencies_done(v_step) then
        perform app_hidden.step_make_ready(v_step);
      else
        perform app_hidden.step_move(v_step, 'TODO');
      end if;
    end if;
  elsif v_plan.status = 'BLOCKED' and not exists (
      select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
    v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
    perform app_hidden.plan_cascade(v_plan.id);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
-- An action request may not be assigned to an archived agent (400 agent_archived, as every other assignment):
-- crew_agent becomes find_live_agent, next to find_agent, and its callers use the new name.
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
grant execute on function app_public.agents_webhook_url(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    -- The dispatch URL may carry a token: workspace admins only (as runtimes' endpoints), and the operator (svc
    -- admin, no caller).
    'maxConcurrent', a.max_concurrent, 'webhookUrl', app_public.agents_webhook_url(a),
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s own key, the agent''s own keys and the operator (agents_webhook_url; it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.require_agent_manager()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent); else 403 admin_required.';
grant execute on function app_hidden.require_agent_manager() to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN acting as a person (require_agent_manager): delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.update_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
begin
  if p_agent_id is not null then
    return app_hidden.found((select a from app_public.agents a
                             where a.id = app_hidden.parse_uuid(p_agent_id, p_field) and a.workspace_id = app_hidden.current_workspace_id()),
                            'Agent', p_field);
  end if;
  return app_hidden.found((select a from app_public.agents a
                           where a.profile_key = lower(p_profile_key) and a.workspace_id = app_hidden.current_workspace_id()),
                          'Agent', p_field);
end
$$;
comment on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';
grant execute on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_agent(p_agent_id text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v app_public.agents := app_hidden.find_agent(p_agent_id, null, p_field);
begin
  if v.archived_at is not null then
    raise exception 'Agent % is archived', v.profile_key using errcode = 'SV400', column = p_field, detail = 'agent_archived';
  end if;
  return v;
end
$$;
comment on function app_hidden.find_live_agent(p_agent_id text, p_field text) is 'An agent of the caller''s workspace that is not archived, by id: for what puts an agent to work (a crew, planner, judge or step; an action request''s assignee). 404 unknown, 400 agent_archived, both naming the field.';
grant execute on function app_hidden.find_live_agent(p_agent_id text, p_field text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, p_name, coalesce(p_capabilities, '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'Creates an agent (AGENT_CREATED by trigger).';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;
  exception when foreign_key_violation then
    raise exception 'Agent % still has issues or comments; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent that no issue or comment refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event app_public.activity_events;
  v_agent app_public.agents;
  v_delivery uuid;
begin
  select * into v_event from app_public.activity_events where id = p_event_id;
  if v_event.id is null then
    perform app_hidden.raise_not_found('Event');
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
  end if;
  if v_agent.webhook_url is null or v_agent.archived_at is not null then
    return null; -- no endpoint: the agent sees the event on SSE only
  end if;
  -- A secret exists before the first delivery; the operator reads it with rotate-agent-secret.
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret)
  values (v_agent.id, v_agent.workspace_id, app_private.new_webhook_secret())
  on conflict (agent_id) do nothing;
  insert into app_public.webhook_deliveries (workspace_id, event_id, agent_id, channel)
  values (v_event.workspace_id, v_event.id, v_agent.id, 'agent:dispatch:' || v_agent.id)
  on conflict (agent_id, event_id) do nothing
  returning id into v_delivery;
  if v_delivery is not null then
    perform app_private.enqueue_delivery_job(v_delivery);
  end if;
  return v_delivery;
end
$$;
comment on function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) is 'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

create or replace function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid)
 returns text
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
  end if;
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update set secret = excluded.secret, rotated_at = now();
  return v_secret;
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns it (shown once).';

create or replace function app_hidden.lock_live_agent(p_agent_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- FOR SHARE waits for an archive in progress (its row lock is taken after the agent's issues', the order of every
  -- issue write), then sees whether it committed. As the owner: the agents policy lets keys lock only their own agent.
  if (select a.archived_at from app_public.agents a
      where a.id = p_agent_id and a.workspace_id = coalesce(app_hidden.current_workspace_id(), a.workspace_id) for share) is not null then
    raise exception 'The agent is archived' using errcode = 'SV400', detail = 'agent_archived';
  end if;
end
$$;
comment on function app_hidden.lock_live_agent(p_agent_id uuid) is 'Before an assignment: locks the agent FOR SHARE (waiting for an archive in progress) and raises 400 agent_archived if it is archived.';
grant execute on function app_hidden.lock_live_agent(p_agent_id uuid) to svc_visitor;

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  if p_archived then
    -- The lock order of every issue write: its issue first, then the runs and the agent (assign_issue_agent). An
    -- issue assigned meanwhile is found by the statements below (each sees what committed before it).
    perform 1 from app_public.issues i
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
    order by i.id for update;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform set_config('svc.run_end_reason', 'agent_archived', true);
    update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_workspace_id and agent_id = v_agent.id and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'));
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher) and sets it OFFLINE.';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. SKIP LOCKED: an
  -- agent being assigned or heartbeating right now is left for the next sweep.
  perform set_config('svc.agent_status_reason', 'heartbeat_timeout', true);
  for v_agent in
    select a.* from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    where a.status <> 'OFFLINE' and a.archived_at is null
      and coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', v_agent.id, 'agentId', v_agent.id,
      'workspaceId', v_agent.workspace_id, 'lastHeartbeatAt', v_agent.last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  update app_public.agents a set
    name = coalesce(p_name, a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(p_capabilities, a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create or replace function app_public.agents_archive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(agent_id uuid) is 'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is 'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is 'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
grant execute on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.require_own_agent()
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.require_own_agent() is 'The agent linked to the calling key; 403 agent_key_required (no linked agent), agent_forbidden (another workspace) or agent_archived.';
grant execute on function app_hidden.require_own_agent() to svc_visitor;

create or replace function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if p_agent_id is null then
    return null;  -- nobody to deliver to (e.g. a step with no agent yet)
  end if;
  if not exists (select 1 from app_public.activity_events e
                 where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Event');
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included plans/tools/decompose.sql
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
    v_planner := coalesce(app_hidden.crew_agent_for_role(v_goal.crew_id, 'PLANNER', 0), app_hidden.current_agent_id());
  end if;
  v_plan := app_hidden.plan_new_attempt(v_goal, v_planner, args->>'contextSetId', (args->>'autoJudge')::boolean, (args->>'maxStepRetries')::int);
  return jsonb_build_object('planId', v_plan.id, 'goalId', v_goal.id, 'status', 'PLANNING', 'planStatus', v_plan.status,
                            'attempt', v_plan.attempt, 'plannerAgentId', v_planner);
end
$$;
comment on function app_tools.plans_decompose(args jsonb) is 'plans.decompose: Start planning a goal: a new DRAFT plan attempt (earlier attempts stop being active; a live one is canceled), the goal moves to PLANNING and the planner is dispatched (plannerAgentId, else the crew''s PLANNER, else the calling agent).';
grant execute on function app_tools.plans_decompose(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/decompose.sql
--! Included plans/tools/judge.sql
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
  else
    v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position);
  end if;
  if v_judge is null then
    raise exception 'No reviewer: pass judgeAgentId or add a REVIEWER to the goal''s crew' using errcode = 'SV409', detail = 'no_reviewer';
  end if;
  perform app_hidden.step_dispatch_judge(v_step, v_judge);
  return jsonb_build_object('judgeAgentId', v_judge, 'stepId', v_step.id);
end
$$;
comment on function app_tools.plans_judge(args jsonb) is 'plans.judge: Dispatch the judge of a step in REVIEW (judgeAgentId, else the crew''s REVIEWER): EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt.';
grant execute on function app_tools.plans_judge(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/judge.sql
--! Included executionPlans/tools/create.sql
-- The executionPlans.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new DRAFT plan attempt for a goal (like plans.decompose, planner only by override), with optional steps.
create or replace function app_tools.execution_plans_create(args jsonb)
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
  end if;
  v_plan := app_hidden.plan_new_attempt(v_goal, v_planner, args->>'contextSetId', (args->>'autoJudge')::boolean, (args->>'maxStepRetries')::int);
  if jsonb_array_length(coalesce(args->'steps', '[]')) > 0 then
    perform app_hidden.add_plan_steps(v_plan, args->'steps', 'steps');
  end if;
  return app_hidden.plan_json(v_plan, true);
end
$$;
comment on function app_tools.execution_plans_create(args jsonb) is 'executionPlans.create: Create a DRAFT plan attempt for a goal directly (as plans.decompose, without choosing a planner unless plannerAgentId is given), optionally with its first steps.';
grant execute on function app_tools.execution_plans_create(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/create.sql
--! Included agentCrews/tools/create.sql
-- The agentCrews.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a crew with optional members (ADMIN). CREW_CREATED by trigger.
create or replace function app_tools.agent_crews_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews;
  v_member jsonb;
  v_i int;
begin
  perform app_hidden.require_scope('ADMIN');
  insert into app_public.agent_crews (workspace_id, name, description, max_parallel)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description', coalesce((args->>'maxParallel')::int, 1))
  returning * into v_crew;
  for v_member, v_i in select m, o - 1 from jsonb_array_elements(coalesce(args->'members', '[]')) with ordinality t(m, o) loop
    if exists (select 1 from app_public.agent_crew_members cm where cm.crew_id = v_crew.id
               and cm.agent_id = app_hidden.parse_uuid(v_member->>'agentId', format('members.%s.agentId', v_i))) then
      perform app_hidden.raise_invalid(format('members.%s.agentId', v_i), 'agent listed twice');
    end if;
    insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
    values (v_crew.workspace_id, v_crew.id, (app_hidden.find_live_agent(v_member->>'agentId', format('members.%s.agentId', v_i))).id, v_member->>'role');
  end loop;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_create(args jsonb) is 'agentCrews.create: Create a crew (ADMIN) with optional members [{agentId, role}]: PLANNER decomposes goals, WORKERs take steps, a REVIEWER judges them (and makes plans auto-judge by default).';
grant execute on function app_tools.agent_crews_create(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/create.sql
--! Included agentCrews/tools/addMember.sql
-- The agentCrews.addMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds an agent in a role (ADMIN); an agent is in a crew once (409 already_member).
create or replace function app_tools.agent_crews_add_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'crewId', 'crewId');
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', 'agentId');
  v_member app_public.agent_crew_members;
begin
  perform app_hidden.require_scope('ADMIN');
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived';
  end if;
  if exists (select 1 from app_public.agent_crew_members m where m.crew_id = v_crew.id and m.agent_id = v_agent.id) then
    raise exception 'Agent % is already in this crew (use setMemberRole)', v_agent.profile_key using errcode = 'SV409', detail = 'already_member';
  end if;
  insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
  values (v_crew.workspace_id, v_crew.id, v_agent.id, args->>'role')
  returning * into v_member;
  return app_hidden.crew_member_json(v_member);
end
$$;
comment on function app_tools.agent_crews_add_member(args jsonb) is 'agentCrews.addMember: Add an agent to a crew in a role (ADMIN). An agent is in a crew once (409 already_member; change roles with setMemberRole).';
grant execute on function app_tools.agent_crews_add_member(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/addMember.sql
--! Included actionRequests/machine.sql
-- actionRequests: the request machine, who may decide, creating a request and its bound dispatch.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_action_request(p_id text, p_field text default 'id'::text, p_lock boolean default false)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests;
begin
  select * into v from app_public.action_requests
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Action request not found' using errcode = 'SV404', column = p_field;
  end if;
  if p_lock then
    select * into v from app_public.action_requests where id = v.id for update;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) is 'An action request the key can see (a request on an issue follows its narrowing), locked FOR UPDATE on request; else 404.';
grant execute on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) to svc_visitor;

create or replace function app_hidden.action_request_move(p_request app_public.action_requests, p_to text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v app_public.action_requests;
  v_closing boolean := p_to in ('RESOLVED', 'DISMISSED', 'REJECTED', 'SUPERSEDED');
begin
  perform app_hidden.assert_move('action-request', 'Action request', p_request.status, p_to);
  update app_public.action_requests
  set status = p_to,
      resolved_at = case when v_closing then now() end,
      resolved_by_user_id = case when v_closing then app_hidden.current_user_id() end,
      resolved_by_agent_id = case when v_closing then app_hidden.current_agent_id() end,
      -- A poll closed undecided takes no more votes (vote refuses closed requests): its voting is closed with it,
      -- without a winner (closeVoting names one).
      voting_closed_at = case when v_closing and options is not null then coalesce(voting_closed_at, now()) else voting_closed_at end
  where id = p_request.id
  returning * into v;  -- ISSUE_UPDATED (action-request, change status) by trigger
  return v;
end
$$;
comment on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) is 'The request machine (shared decisions): OPEN → RESOLVED | DISMISSED | SNOOZED | REJECTED | SUPERSEDED, SNOOZED → OPEN or any of those; closed states are terminal (409 illegal_transition). Closing a poll closes its voting (votingClosedAt; no winner unless closeVoting ran).';
grant execute on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) to svc_visitor;

create or replace function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid)
 returns void
 language plpgsql
as $$
declare v app_public.action_requests;
begin
  for v in select * from app_public.action_requests r
           where r.source_type = p_source_type and r.source_id = p_source_id and r.status in ('OPEN', 'SNOOZED')
           for update loop
    perform app_hidden.action_request_move(v, 'SUPERSEDED');
  end loop;
end
$$;
comment on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) is 'SUPERSEDEs the open requests raised for a source (a plan''s earlier approval requests once it is activated, canceled or asked again).';
grant execute on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_may_decide(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- Every branch is coalesced to a boolean: a key without an agent (or a plugin key without a user) compares as
  -- NULL, and NULL here would make `if not ...` pass the caller through.
  select coalesce(p_request.assigned_agent_id is not null
                  and p_request.assigned_agent_id is not distinct from app_hidden.current_agent_id(), false)
      or coalesce(p_request.assigned_user_id is not null and app_hidden.current_agent_id() is null
                  and p_request.assigned_user_id is not distinct from app_hidden.current_user_id(), false)
      or coalesce(p_request.issue_id is not null and exists (
            select 1 from app_public.issue_watchers w
            where w.issue_id = p_request.issue_id
              and case when app_hidden.current_agent_id() is not null then w.agent_id = app_hidden.current_agent_id()
                       else w.user_id = app_hidden.current_user_id() end), false)
      -- OWNER/ADMIN is the membership role (spec 2.8) of a person: a key with no linked agent whose own user has
      -- that role. The ADMIN scope alone does not make a MEMBER (or an agent) an OWNER/ADMIN.
      or coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
$$;
comment on function app_hidden.action_request_may_decide(p_request app_public.action_requests) is 'accept/decline gate (spec 3.6, 4.11): the assignee (the assigned agent''s own key, or the assigned user''s key acting as a person), a watcher of the request''s issue (as the key watches: agent or user), or a person (key with no linked agent) whose workspace role is OWNER or ADMIN. The ADMIN scope alone grants nothing here. Never NULL.';
grant execute on function app_hidden.action_request_may_decide(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- `is not distinct from`: a key without an agent (or without a user) must compare false, not NULL
  -- (`if not NULL` would let it through).
  select coalesce(case
    when p_request.requested_by_agent_id is not null then p_request.requested_by_agent_id is not distinct from app_hidden.current_agent_id()
    when p_request.requested_by_user_id is not null then app_hidden.current_agent_id() is null
                                                          and p_request.requested_by_user_id is not distinct from app_hidden.current_user_id()
    else app_hidden.caller_may_moderate() end, false)
$$;
comment on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) is 'Whether the calling key speaks for the requester: the requesting agent''s own key, or the requesting person''s key acting as a person (no linked agent); a request without a requester (raised by the system) counts as a workspace OWNER/ADMIN person''s. Never NULL. closeVoting and update use it.';
grant execute on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_source_visible(p_type text, p_id uuid)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Under the caller's policies: a record of another workspace, or one the key's narrowing hides, is not there.
  -- One statement per type (plpgsql, plans kept): a CASE over seven EXISTS would plan all seven, policies included.
  case p_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_id and i.deleted_at is null);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_id);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_id);
    when 'action-request' then return exists (select 1 from app_public.action_requests a where a.id = p_id);
    else return true;
  end case;
end
$$;
comment on function app_hidden.action_request_source_visible(p_type text, p_id uuid) is 'Whether an action request''s source of a kind the service keeps (issue, comment, goal, execution-plan, execution-step, agent-run, action-request) is a record the caller can see; any other sourceType is the caller''s own label (true).';
grant execute on function app_hidden.action_request_source_visible(p_type text, p_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text default ''::text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_kind text := coalesce(args->>'kind', 'FREE_FORM');
  v_payload jsonb := coalesce(args->'payload', '{}');
  v_user uuid;
  v_agent uuid;
  v_req app_public.action_requests;
  v_keys text[];
  v_duplicate uuid;
begin
  if v_kind <> 'FREE_FORM' and p_issue_id is null then
    perform app_hidden.raise_invalid(p_field || 'issueId', format('a %s request acts on an issue: give issueId', v_kind));
  end if;
  if v_kind = 'TRANSITION' then
    if not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  elsif v_kind = 'SET_LABELS' then
    if (select count(*) from app_public.labels l where l.workspace_id = v_ws and l.id = any(
          app_hidden.uuid_array(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]'), p_field || 'payload')))
       <> (select count(distinct e) from jsonb_array_elements_text(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]')) e) then
      raise exception 'Label not found' using errcode = 'SV404', column = p_field || 'payload';
    end if;
  elsif v_kind = 'ASSIGN_AGENT' then
    perform app_hidden.find_agent(v_payload->>'agentId', null, p_field || 'payload.agentId');
  elsif v_kind = 'CLOSE_AS_DUPLICATE' then
    v_duplicate := (app_hidden.find_issue(v_payload->>'duplicateOfIssueId', p_field || 'payload.duplicateOfIssueId')).id;
    if v_duplicate = p_issue_id then
      perform app_hidden.raise_invalid(p_field || 'payload.duplicateOfIssueId', 'an issue cannot duplicate itself');
    end if;
    -- Stored as the issue's id, however it was named: readers show it through with_visible_issue.
    v_payload := jsonb_set(v_payload, '{duplicateOfIssueId}', to_jsonb(v_duplicate));
    if v_payload->>'statusId' is not null and not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  end if;
  if args->>'assignedUserId' is not null then
    select m.user_id into v_user from app_public.memberships m
    where m.workspace_id = v_ws and m.user_id = app_hidden.parse_uuid(args->>'assignedUserId', p_field || 'assignedUserId');
    if v_user is null then
      raise exception 'User not found in this workspace' using errcode = 'SV404', column = p_field || 'assignedUserId';
    end if;
  end if;
  if args->>'assignedAgentId' is not null then
    v_agent := (app_hidden.find_live_agent(args->>'assignedAgentId', p_field || 'assignedAgentId')).id;
  end if;
  if args->'options' is not null and jsonb_typeof(args->'options') = 'array' then
    select array_agg(o->>'key') into v_keys from jsonb_array_elements(args->'options') o;
    if cardinality(v_keys) <> (select count(distinct k) from unnest(v_keys) k) then
      perform app_hidden.raise_invalid(p_field || 'options', 'option keys must be unique');
    end if;
  end if;
  -- A source of a kind this service keeps must be one the key can see (404 otherwise, as for every id); other
  -- sourceTypes are the caller's own labels and their sourceId is kept as given.
  if args->>'sourceId' is not null and not app_hidden.action_request_source_visible(
       args->>'sourceType', app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId')) then
    raise exception 'Source not found' using errcode = 'SV404', column = p_field || 'sourceId';
  end if;
  insert into app_public.action_requests (workspace_id, title, body, severity, kind, payload, assigned_user_id, assigned_agent_id,
                                          issue_id, comment_id, due_at, source_type, source_id, options,
                                          requested_by_user_id, requested_by_agent_id)
  values (v_ws, args->>'title', args->>'body', coalesce(args->>'severity', 'INFO'), v_kind, v_payload, v_user, v_agent,
          p_issue_id, p_comment_id, (args->>'dueAt')::timestamptz, args->>'sourceType',
          app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId'),
          case when jsonb_typeof(args->'options') = 'array' then args->'options' end,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_req;  -- ISSUE_UPDATED (action-request, change created) by trigger
  return v_req;
end
$$;
comment on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) is 'Creates an action request (actionRequests.create, comments.create''s actionRequest bundle): checks the bound dispatch''s payload refers to real statuses, labels, agents and issues, the assignee is a member or agent, option keys are unique. The caller is the requester.';
grant execute on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.action_request_dispatch(p_request app_public.action_requests)
 returns jsonb
 language plpgsql
as $$
declare
  v_payload jsonb := p_request.payload;
  v_issue app_public.issues;
  v_agent app_public.agents;
  v_dup app_public.issues;
  v_remove uuid[];
  v_status uuid;
  v_plan app_public.execution_plans;
begin
  if p_request.kind = 'FREE_FORM' then
    if p_request.source_type = 'execution-plan' and p_request.source_id is not null then
      v_plan := app_hidden.find_plan(p_request.source_id::text, 'id');
      return jsonb_build_object('action', 'activate_plan', 'planId', v_plan.id,
                                'readyStepIds', to_jsonb(app_hidden.plan_activate(v_plan)));
    end if;
    return jsonb_build_object('action', 'none');
  end if;
  if p_request.kind = 'CLOSE_AS_DUPLICATE' then
    -- relations.add below takes this lock; taken after the issue's row lock it could deadlock with a concurrent
    -- relations.add that holds it and waits on that row (its foreign-key check).
    perform app_hidden.lock_directed_relations('DUPLICATES');
  end if;
  -- The same entry as the direct issue tools: visibility, row lock and run-mode gating.
  v_issue := app_hidden.issue_for_write(p_request.issue_id::text, 'issueId');
  if p_request.kind = 'TRANSITION' then
    v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_payload->>'statusId'));
    return jsonb_build_object('action', 'transition', 'issueId', v_issue.id, 'statusId', v_issue.status_id);
  elsif p_request.kind = 'SET_LABELS' then
    perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(v_payload->'add', 'payload.add'), null);
    v_remove := app_hidden.uuid_array(v_payload->'remove', 'payload.remove');
    delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'set_labels', 'issueId', v_issue.id,
      'labelIds', to_jsonb(v_issue.label_ids));
  elsif p_request.kind = 'ASSIGN_AGENT' then
    v_agent := app_hidden.find_agent(v_payload->>'agentId', null, 'payload.agentId');
    if v_agent.archived_at is not null then
      raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'payload.agentId', detail = 'agent_archived';
    end if;
    if not (v_issue.assigned_agent_id is not distinct from v_agent.id and exists (
          select 1 from app_public.agent_runs r where r.issue_id = v_issue.id and r.agent_id = v_agent.id
            and r.status in ('ACTIVE', 'WAITING', 'STALLED'))) then
      perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', 'manual');
    end if;
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'assign_agent', 'issueId', v_issue.id, 'agentId', v_agent.id);
  elsif p_request.kind = 'CLOSE_AS_DUPLICATE' then
    v_dup := app_hidden.find_issue(v_payload->>'duplicateOfIssueId', 'payload.duplicateOfIssueId');
    perform app_tools.relations_add(jsonb_build_object('fromIssueId', v_issue.id, 'toIssueId', v_dup.id, 'kind', 'DUPLICATES'));
    v_status := coalesce((v_payload->>'statusId')::uuid, (
      select s.id from app_public.statuses s where s.workspace_id = v_issue.workspace_id and s.category = 'CANCELED'
      order by s.position limit 1));
    if v_status is not null then
      v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status));
    end if;
    return jsonb_build_object('action', 'close_as_duplicate', 'issueId', v_issue.id, 'duplicateOfIssueId', v_dup.id,
                              'statusId', v_issue.status_id);
  end if;
  return jsonb_build_object('action', 'none');
end
$$;
comment on function app_hidden.action_request_dispatch(p_request app_public.action_requests) is 'The bound dispatch run by accept, through the same SQL and gates as the direct tools (issue_for_write: visibility, lock, run-mode gating; update_issue, set_issue_labels, assign_issue_agent, relations.add): TRANSITION {statusId}, SET_LABELS {add, remove}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId? (default the first CANCELED status)}; FREE_FORM with sourceType execution-plan activates the plan.';
grant execute on function app_hidden.action_request_dispatch(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Who decides (accept, decline, transition): action_request_may_decide, and the requester where p_requester_may.
  if not (app_hidden.action_request_may_decide(p_request)
          or (coalesce(p_requester_may, false) and app_hidden.action_request_caller_is_requester(p_request))) then
    raise exception '%', p_refusal using errcode = 'SV403', detail = 'not_allowed';
  end if;
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if p_request.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(p_request.issue_id);
  end if;
end
$$;
comment on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) is 'The gate of accept, decline and transition: 403 not_allowed (message p_refusal) unless the caller may decide the request (action_request_may_decide) or, with p_requester_may, is its requester; 403 run_mode_gated for an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue.';
grant execute on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) to svc_visitor;

create or replace function app_hidden.action_request_for_decision(p_id text, p_verb text)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests := app_hidden.find_action_request(p_id, 'id', true);
begin
  if v.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v.status, p_verb using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  perform app_hidden.action_request_assert_may_act(v, false,
    'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decide this request');
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise), decidable by the caller (403 not_allowed otherwise) and not by an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue (403 run_mode_gated).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
drop function if exists app_hidden.crew_agent(text, text);
