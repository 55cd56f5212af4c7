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
  -- Its plan too: the steps policy asks an unnarrowed key nothing per row, and the plan of a goal tied to a deleted
  -- issue is not there (plans policy), so neither is its step.
  if v.id is null or not exists (select 1 from app_public.execution_plans p where p.id = v.plan_id) then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see, of a plan it can see (through its goal: none of a goal tied to a deleted issue), else 404 naming the field.';
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

drop function if exists app_hidden.crew_agent_for_role(uuid, text, integer);
create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0, p_issue_id uuid default null)
 returns uuid
 language sql
 stable
as $$
  -- The member with the least open work (runs on issues, and plan steps given to it, which have a run only when their
  -- goal has an issue), then the next from p_seed round the members: two root steps at positions 0 and 2 went to the
  -- first of two workers by position alone while the other sat idle. Only members that can see the goal's issue
  -- (p_issue_id): the work and its run are there.
  with members as (
    select m.agent_id, a.workspace_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role
      and (p_issue_id is null
           or app_hidden.agent_sees_issue(m.agent_id, (select i from app_public.issues i where i.id = p_issue_id))))
  select m.agent_id from members m
  order by (select count(*) from app_public.agent_runs r
            where r.workspace_id = m.workspace_id and r.agent_id = m.agent_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
              and r.step_id is null)
           + (select count(*) from app_public.execution_steps st
              where st.workspace_id = m.workspace_id and st.assigned_agent_id = m.agent_id and st.status in ('READY', 'RUNNING', 'REVIEW')),
           (m.i - coalesce(p_seed, 0) % m.n + m.n) % m.n
  limit 1
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer, p_issue_id uuid) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...) that can see the goal''s issue p_issue_id (if any; agent_sees_issue): the one with the least open work (open runs not of a step, and READY, RUNNING or REVIEW steps given to it), ties spread over the members from p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer, p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
begin
  return app_hidden.step_dispatch_work(app_hidden.step_move(p_step, 'READY'));
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE) and is given to its worker (step_dispatch_work).';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_work(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps := p_step;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  -- An agent archived since it was given the step is passed over (it can no longer act): the step goes to a live
  -- crew member in its role, else it is READY with no worker and no run.
  v_agent := coalesce((select a.id from app_public.agents a where a.id = p_step.assigned_agent_id and a.archived_at is null),
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position, v_goal.issue_id));
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
comment on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) is 'Gives a READY step to its worker: its agent (assigned and not archived, else the crew member in its role, default WORKER; none: no worker) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid)
 returns void
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  -- The steps an archived agent was working on (READY or RUNNING, in a running plan) go to a live crew member in
  -- their role, as a step becoming READY does; a RUNNING one is READY again (its run ended with the archive), so the
  -- new worker starts it. They stayed READY with the archived agent, which nothing would ever move.
  for v_step in
    select s.* from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
    where s.workspace_id = p_workspace_id and s.assigned_agent_id = p_agent_id and s.status in ('READY', 'RUNNING')
      and p.status = 'RUNNING'
    order by p.id, s.position, s.id
    for update of s
  loop
    if v_step.status = 'RUNNING' then
      perform app_hidden.step_make_ready(v_step);
    else
      perform app_hidden.step_dispatch_work(v_step);
    end if;
  end loop;
end
$$;
comment on function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid) is 'On archiving an agent: its READY and RUNNING steps of running plans go to a live crew member in their role (READY, EXECUTION_STEP_READY dispatched), or stay READY with no worker when the crew has none.';

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

create or replace function app_hidden.plan_resume(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  perform app_hidden.plan_move(p_plan, 'RUNNING');
  -- Steps READY when the plan was blocked are given to their workers again: their moves were refused meanwhile
  -- (409 plan_not_running), and nothing told them the plan runs again (a READY step sat with nobody on it, fleet probe).
  for v_step in
    select s.* from app_public.execution_steps s where s.plan_id = p_plan.id and s.status = 'READY' order by s.position
  loop
    perform app_hidden.step_dispatch_work(v_step);
  end loop;
  return app_hidden.plan_cascade(p_plan.id);
end
$$;
comment on function app_hidden.plan_resume(p_plan app_public.execution_plans) is 'A BLOCKED plan runs again (reviewGates.resolve, executionPlans.transition RUNNING): RUNNING (EXECUTION_PLAN_STATUS_CHANGED), its READY steps are dispatched to their workers again (EXECUTION_STEP_READY), and the readiness cascade runs. Returns the ids the cascade made READY.';
grant execute on function app_hidden.plan_resume(p_plan app_public.execution_plans) to svc_visitor;

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

create or replace function app_hidden.caller_works_in_plan(p_plan_id uuid)
 returns boolean
 language sql
 stable
as $$
  select app_hidden.current_agent_id() is not null and (
    exists (select 1 from app_public.execution_plans p where p.id = p_plan_id and p.planner_agent_id = app_hidden.current_agent_id())
    or exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id
               and app_hidden.current_agent_id() in (s.assigned_agent_id, s.judge_agent_id)))
$$;
comment on function app_hidden.caller_works_in_plan(p_plan_id uuid) is 'Whether the calling key is an agent working in the plan: its planner, or a worker or judge of one of its steps. Such an agent neither resolves the plan''s gates nor decides its approval (403 own_plan). Never NULL.';
grant execute on function app_hidden.caller_works_in_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.gate_assert_may_decide(p_plan_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  -- Not by an agent of the plan the gate holds (its planner, or a worker or judge of one of its steps), ADMIN or not:
  -- the worker whose spending stopped the plan approved its own budget.
  if app_hidden.caller_works_in_plan(p_plan_id) then
    raise exception 'An agent working in this plan does not decide its review gates: a person (or another ADMIN-scoped key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.gate_assert_may_decide(p_plan_id uuid) is 'Before a pending review gate of the plan is decided, by reviewGates.resolve or by ending what it holds (canceling its step or plan, abandoning the goal, planning again): a person, or an ADMIN-scoped agent key that does not work in the plan (403 person_required / own_plan otherwise).';
grant execute on function app_hidden.gate_assert_may_decide(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A worker or judge does not end the work it is judged on: canceling a failing step (or the plan, or the goal)
  -- completed the plan and achieved the goal around the judge's verdict. The planner, a person or an agent outside
  -- the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id then
    if p_step.id is not null and app_hidden.current_agent_id() = p_step.assigned_agent_id then
      raise exception 'A worker does not cancel its own step: its planner or a person does' using errcode = 'SV403', detail = 'own_step';
    end if;
    raise exception 'An agent working in this plan (a worker or judge) does not cancel its steps or end it: its planner or a person does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Ending what a pending gate holds cancels the gate: as deciding it.
  if exists (select 1 from app_public.review_gates g where g.plan_id = p_plan.id and g.status = 'PENDING'
             and (p_step.id is null or g.step_id = p_step.id)) then
    perform app_hidden.gate_assert_may_decide(p_plan.id);
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before a tool ends work in a live plan (cancels p_step, or with no step cancels or completes the plan, abandons its goal or plans the goal again): an agent working in the plan must be its planner (403 own_step for a worker canceling its own step, own_plan for the others); where a pending review gate holds what ends, the caller must also be one who may decide it (gate_assert_may_decide).';
grant execute on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A step is its worker's: an agent working in the plan moves or holds (reviewGates.open, the plan to BLOCKED) its
  -- own step, and the plan or another's step only as the planner. A fellow worker moved another's step to BLOCKED or
  -- RUNNING under it, or held it or the whole plan behind a gate only a person could clear. A person or an agent
  -- outside the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id
     and (p_step.id is null or app_hidden.current_agent_id() is distinct from p_step.assigned_agent_id) then
    raise exception 'An agent working in this plan acts only on its own step: the planner or a person moves or holds the plan or another''s step'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before an agent moves a step (executionPlans.transitionStep, where the step''s judge is let through by its caller) or holds work behind a gate (reviewGates.open, executionPlans.transition to BLOCKED; no step = the plan): an agent working in the plan acts on its own step, and on the plan or another''s step only as its planner (403 own_plan).';
grant execute on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Called where only the step's judge (or a person) may pass it: its worker is told own_step, any other agent not_judge.
  if app_hidden.current_agent_id() = p_step.assigned_agent_id then
    raise exception 'The step''s worker does not pass its own work: it moves the step to REVIEW; its judge (plans.recordVerdict) or a person passes it'
      using errcode = 'SV403', detail = 'own_step';
  end if;
  raise exception 'Only the step''s judge (plans.judge dispatched it) or a person passes this step or records its verdict'
    using errcode = 'SV403', detail = 'not_judge';
end
$$;
comment on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) is 'Raises 403 for an agent that is not the step''s judge passing it (plans.recordVerdict, executionPlans.transitionStep to DONE): own_step for its worker, not_judge for any other agent. The callers decide when it applies.';
grant execute on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans)
 returns void
 language plpgsql
 stable
as $$
declare v_request app_public.action_requests;
begin
  -- A plan that asked for approval is approved or run by someone who may decide its request (that gate, own_request
  -- included), whatever became of the request: its planner approving or activating it anyway made approval advisory,
  -- and so did declining it, withdrawing it or superseding it (addSteps) before activating.
  -- (Only where it would be approved or run: another plan's move is the machine's 409.)
  select * into v_request from app_public.action_requests ar
  where ar.id = p_plan.approval_request_id and ar.status <> 'RESOLVED' and p_plan.status in ('DRAFT', 'APPROVED');
  if v_request.id is not null then
    perform app_hidden.action_request_assert_may_act(v_request, false,
      format('This plan asked for approval (action request %s, %s): it runs once a request for it is accepted, or by one who may decide it',
             v_request.id, v_request.status));
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) is 'Before a plan is APPROVED or RUNNING by a tool: once it asked for approval and its request was not accepted (open, declined, withdrawn, superseded), only a key that may decide that request (403 not_allowed / own_request otherwise).';
grant execute on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) to svc_visitor;

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
      perform app_hidden.plan_assert_may_end(v_prior);
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
  v_agent app_public.agents;
  v_field text;
  v_goal_issue app_public.issues;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm). An index listed
  -- twice is one dependency (counted twice, the step never reached in-degree 0 and was called a cycle).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select distinct (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
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

  -- The steps' runs are on the goal's issue (if it has one): read once for the check of each assigned agent.
  select i.* into v_goal_issue from app_public.goals g join app_public.issues i on i.id = g.issue_id where g.id = p_plan.goal_id;
  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_field := format('%s.%s.assignedAgentId', p_field, v_i);
      v_agent := app_hidden.find_live_agent(v_step->>'assignedAgentId', v_field);
      -- Its run is on the goal's issue: an agent that cannot see it could not read its step (re-test, fleet fix).
      if v_goal_issue.id is not null then
        perform app_hidden.require_agent_sees_issue(v_agent, v_goal_issue, v_field);
      end if;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent.id, v_step->>'assignedRole', v_step->>'contextSetId')
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
    perform app_hidden.plan_resume(v_plan);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
