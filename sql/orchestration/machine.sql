-- orchestration: the state machines of goals, plans, steps and review gates (spec 3.7-3.9, shared decisions).
-- One move function per machine is the only writer of its status column; it refuses an illegal move with 409.
-- They use the row's workspace (never the request settings), so the budget trigger can drive them as owner.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.orchestration_allows(p_machine text, p_from text, p_to text)
 returns boolean
 language sql
 immutable parallel safe
as $$
  select coalesce(p_to = any(case p_machine
    when 'goal' then case p_from
      when 'OPEN' then array['PLANNING', 'ABANDONED']
      when 'PLANNING' then array['ACTIVE', 'ABANDONED']
      when 'ACTIVE' then array['PLANNING', 'ACHIEVED', 'ABANDONED']
      else '{}'::text[] end
    when 'plan' then case p_from
      when 'DRAFT' then array['APPROVED', 'RUNNING', 'CANCELED']
      when 'APPROVED' then array['RUNNING', 'CANCELED']
      when 'RUNNING' then array['BLOCKED', 'COMPLETED', 'CANCELED']
      when 'BLOCKED' then array['RUNNING', 'CANCELED']
      else '{}'::text[] end
    when 'step' then case p_from
      when 'TODO' then array['READY', 'DONE', 'BLOCKED', 'CANCELED']
      when 'READY' then array['RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED']
      when 'RUNNING' then array['READY', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED']
      when 'REVIEW' then array['READY', 'RUNNING', 'DONE', 'BLOCKED', 'CANCELED']
      when 'BLOCKED' then array['TODO', 'READY', 'DONE', 'CANCELED']
      else '{}'::text[] end
    when 'gate' then case p_from
      when 'PENDING' then array['APPROVED', 'REJECTED', 'CANCELED']
      else '{}'::text[] end
    when 'action-request' then case p_from
      when 'OPEN' then array['RESOLVED', 'DISMISSED', 'SNOOZED', 'REJECTED', 'SUPERSEDED']
      when 'SNOOZED' then array['OPEN', 'RESOLVED', 'DISMISSED', 'REJECTED', 'SUPERSEDED']
      else '{}'::text[] end
    else '{}'::text[] end), false)
$$;
comment on function app_hidden.orchestration_allows(p_machine text, p_from text, p_to text) is 'The allowed moves of every orchestration machine (goal, plan, step, gate, action-request), in one readable table. Terminal states (goal ACHIEVED/ABANDONED, plan COMPLETED/CANCELED, step DONE/CANCELED, gate APPROVED/REJECTED/CANCELED, request RESOLVED/DISMISSED/REJECTED/SUPERSEDED) allow none.';
grant execute on function app_hidden.orchestration_allows(p_machine text, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.assert_move(p_machine text, p_what text, p_from text, p_to text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if not app_hidden.orchestration_allows(p_machine, p_from, p_to) then
    raise exception '% is %; it cannot move to %', p_what, p_from, p_to
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
end
$$;
comment on function app_hidden.assert_move(p_machine text, p_what text, p_from text, p_to text) is '409 illegal_transition ("Plan is COMPLETED; it cannot move to RUNNING") unless the machine allows the move.';
grant execute on function app_hidden.assert_move(p_machine text, p_what text, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.goal_move(p_goal app_public.goals, p_to text, p_reason text default null)
 returns app_public.goals
 language plpgsql
as $$
declare v app_public.goals;
begin
  perform app_hidden.assert_move('goal', 'Goal', p_goal.status, p_to);
  update app_public.goals
  set status = p_to,
      started_at = case when p_to = 'ACTIVE' then coalesce(started_at, now()) else started_at end,
      finished_at = case when p_to in ('ACHIEVED', 'ABANDONED') then now() else finished_at end,
      abandon_reason = case when p_to = 'ABANDONED' then p_reason else abandon_reason end
  where id = p_goal.id
  returning * into v;  -- GOAL_STATUS_CHANGED by trigger
  return v;
end
$$;
comment on function app_hidden.goal_move(p_goal app_public.goals, p_to text, p_reason text) is 'The goal machine (spec 3.7): OPEN → PLANNING → ACTIVE → ACHIEVED, ACTIVE → PLANNING (new attempt), ABANDONED from any live state; else 409. ACTIVE stamps startedAt once. GOAL_STATUS_CHANGED by trigger.';
grant execute on function app_hidden.goal_move(p_goal app_public.goals, p_to text, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_move(p_plan app_public.execution_plans, p_to text)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  perform app_hidden.assert_move('plan', 'Plan', p_plan.status, p_to);
  update app_public.execution_plans
  set status = p_to,
      started_at = case when p_to = 'RUNNING' then coalesce(started_at, now()) else started_at end,
      finished_at = case when p_to in ('COMPLETED', 'CANCELED') then now() else finished_at end
  where id = p_plan.id
  returning * into v;  -- EXECUTION_PLAN_STATUS_CHANGED by trigger
  return v;
end
$$;
comment on function app_hidden.plan_move(p_plan app_public.execution_plans, p_to text) is 'The plan machine (spec 3.8): DRAFT → APPROVED → RUNNING ⇄ BLOCKED → COMPLETED, CANCELED from any live state; else 409. EXECUTION_PLAN_STATUS_CHANGED by trigger.';
grant execute on function app_hidden.plan_move(p_plan app_public.execution_plans, p_to text) to svc_visitor;

create or replace function app_hidden.step_move(p_step app_public.execution_steps, p_to text)
 returns app_public.execution_steps
 language plpgsql
as $$
declare v app_public.execution_steps;
begin
  perform app_hidden.assert_move('step', 'Step', p_step.status, p_to);
  if p_to = 'READY' and not app_hidden.step_dependencies_done(p_step) then
    raise exception 'Step "%" waits for steps that are not DONE', p_step.title
      using errcode = 'SV409', detail = 'dependencies_not_done';
  end if;
  update app_public.execution_steps set status = p_to where id = p_step.id
  returning * into v;  -- EXECUTION_STEP_STATUS_CHANGED by trigger
  if p_to = 'DONE' then
    -- The step's work was accepted: its runs still open are COMPLETED (reason step_done), not left to end
    -- ABANDONED with the plan. SKIP LOCKED: a run its agent is reporting on right now holds its row and then
    -- waits for this plan (budget trigger); it is left open rather than deadlocked, and the plan's end closes it.
    perform app_hidden.run_set_status(r, 'COMPLETED', 'step_done')
    from (select o from app_public.agent_runs o
          where o.workspace_id = v.workspace_id and o.step_id = v.id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
          order by o.id for update skip locked) as open_runs(r);
  end if;
  return v;
end
$$;
comment on function app_hidden.step_move(p_step app_public.execution_steps, p_to text) is 'The step machine (spec 3.9): TODO → READY → RUNNING → REVIEW → DONE, with BLOCKED and CANCELED; READY only when every dependency is DONE (409 dependencies_not_done); else 409 illegal_transition. EXECUTION_STEP_STATUS_CHANGED by trigger; a step moving to DONE completes its open runs (reason step_done).';
grant execute on function app_hidden.step_move(p_step app_public.execution_steps, p_to text) to svc_visitor;

create or replace function app_hidden.step_dependencies_done(p_step app_public.execution_steps)
 returns boolean
 language sql
 stable
as $$
  select not exists (
    select 1 from unnest(p_step.depends_on_step_ids) d(id)
    left join app_public.execution_steps s on s.id = d.id
    where s.status is distinct from 'DONE')
$$;
comment on function app_hidden.step_dependencies_done(p_step app_public.execution_steps) is 'True when every step this one depends on is DONE (root steps: always).';
grant execute on function app_hidden.step_dependencies_done(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.gate_move(p_gate app_public.review_gates, p_to text, p_note text default null)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  perform app_hidden.assert_move('gate', 'Review gate', p_gate.status, p_to);
  update app_public.review_gates
  set status = p_to, resolution_note = coalesce(p_note, resolution_note), resolved_at = now(),
      resolved_by_user_id = app_hidden.current_user_id()
  where id = p_gate.id
  returning * into v;  -- REVIEW_GATE_RESOLVED by trigger
  return v;
end
$$;
comment on function app_hidden.gate_move(p_gate app_public.review_gates, p_to text, p_note text) is 'The review gate machine: PENDING → APPROVED | REJECTED | CANCELED (terminal); else 409. REVIEW_GATE_RESOLVED by trigger.';
grant execute on function app_hidden.gate_move(p_gate app_public.review_gates, p_to text, p_note text) to svc_visitor;
