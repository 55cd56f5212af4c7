-- orchestration: JSON shapes of goals, plans, steps, crews and review gates (spec 2.15).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.crew_member_json(m app_public.agent_crew_members)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', m.id, 'crewId', m.crew_id, 'agentId', m.agent_id, 'role', m.role, 'createdAt', m.created_at,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'archived', a.archived_at is not null)
              from app_public.agents a where a.id = m.agent_id))
$$;
comment on function app_hidden.crew_member_json(m app_public.agent_crew_members) is 'Crew member: id, crewId, agentId, role and the agent {id, profileKey, name, archived}.';
grant execute on function app_hidden.crew_member_json(m app_public.agent_crew_members) to svc_visitor;

create or replace function app_hidden.crew_json(c app_public.agent_crews)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', c.id, 'name', c.name, 'description', c.description, 'maxParallel', c.max_parallel,
    'archived', c.archived_at is not null, 'archivedAt', c.archived_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at,
    'members', coalesce((select jsonb_agg(app_hidden.crew_member_json(m) order by m.created_at, m.id)
                         from app_public.agent_crew_members m where m.crew_id = c.id), '[]'),
    'memberCount', (select count(*) from app_public.agent_crew_members m where m.crew_id = c.id),
    'planCount', (select count(*) from app_public.execution_plans p join app_public.goals g on g.id = p.goal_id
                  where g.crew_id = c.id))
$$;
comment on function app_hidden.crew_json(c app_public.agent_crews) is 'Crew (spec 2.15) with its members and the counts of members and plans (plans of goals run by the crew, that the key can see).';
grant execute on function app_hidden.crew_json(c app_public.agent_crews) to svc_visitor;

create or replace function app_hidden.gate_json(g app_public.review_gates)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', g.id, 'planId', g.plan_id, 'goalId', (select p.goal_id from app_public.execution_plans p where p.id = g.plan_id),
    'stepId', g.step_id, 'reason', g.reason, 'status', g.status, 'title', g.title, 'details', g.details,
    'resolutionNote', g.resolution_note, 'openedByUserId', g.opened_by_user_id, 'openedByAgentId', g.opened_by_agent_id,
    'resolvedByUserId', g.resolved_by_user_id, 'resolvedAt', g.resolved_at, 'createdAt', g.created_at)
$$;
comment on function app_hidden.gate_json(g app_public.review_gates) is 'ReviewGate: id, planId, goalId, stepId, reason (STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME, MANUAL), status (PENDING, APPROVED, REJECTED, CANCELED), title, details, resolution.';
grant execute on function app_hidden.gate_json(g app_public.review_gates) to svc_visitor;

create or replace function app_hidden.goal_aggregate(p_goal_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'activePlanId', p.id,
    'totalSteps', (select count(*) from app_public.execution_steps s where s.plan_id = p.id),
    'doneSteps', (select count(*) from app_public.execution_steps s where s.plan_id = p.id and s.status = 'DONE'),
    'blockedSteps', (select count(*) from app_public.execution_steps s where s.plan_id = p.id and s.status = 'BLOCKED'))
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal_id and p.is_active_attempt
$$;
comment on function app_hidden.goal_aggregate(p_goal_id uuid) is 'Goal aggregate (spec 2.15): activePlanId and the total, done and blocked steps of the active plan attempt (zeros without one).';
grant execute on function app_hidden.goal_aggregate(p_goal_id uuid) to svc_visitor;

create or replace function app_hidden.goal_cost(p_goal_id uuid)
 returns numeric
 language sql
 stable
as $$
  select coalesce(sum(r.cost_usd), 0)
  from app_public.execution_plans p
  join app_public.execution_steps s on s.plan_id = p.id
  join app_public.agent_runs r on r.step_id = s.id
  where p.goal_id = p_goal_id
$$;
comment on function app_hidden.goal_cost(p_goal_id uuid) is 'What a goal has cost so far: the costUsd of every run opened for a step of any of its plans.';
grant execute on function app_hidden.goal_cost(p_goal_id uuid) to svc_visitor;

create or replace function app_hidden.goal_json(g app_public.goals)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', g.id, 'title', g.title, 'description', g.description, 'issueId', g.issue_id, 'crewId', g.crew_id,
    'maxTotalCostUsd', g.max_total_cost_usd, 'maxWallTimeMinutes', g.max_wall_time_minutes, 'status', g.status,
    'startedAt', g.started_at, 'finishedAt', g.finished_at, 'abandonReason', g.abandon_reason,
    'archived', g.archived_at is not null, 'createdAt', g.created_at, 'updatedAt', g.updated_at,
    'planCount', (select count(*) from app_public.execution_plans p where p.goal_id = g.id),
    'totalCostUsd', app_hidden.goal_cost(g.id),
    'aggregate', app_hidden.goal_aggregate(g.id))
$$;
comment on function app_hidden.goal_json(g app_public.goals) is 'Goal (spec 2.15) with planCount, totalCostUsd (its step runs) and aggregate {activePlanId, totalSteps, doneSteps, blockedSteps}.';
grant execute on function app_hidden.goal_json(g app_public.goals) to svc_visitor;

create or replace function app_hidden.plan_auto_judges(p app_public.execution_plans)
 returns boolean
 language sql
 stable
as $$
  select coalesce(p.auto_judge, exists (
    select 1 from app_public.goals g join app_public.agent_crew_members m on m.crew_id = g.crew_id
    where g.id = p.goal_id and m.role = 'REVIEWER'))
$$;
comment on function app_hidden.plan_auto_judges(p app_public.execution_plans) is 'Whether a step moved to REVIEW is judged automatically: the plan''s own autoJudge, else (default) true when the goal''s crew has a REVIEWER.';
grant execute on function app_hidden.plan_auto_judges(p app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.step_json(s app_public.execution_steps)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', s.id, 'planId', s.plan_id, 'position', s.position, 'title', s.title, 'body', s.body,
    'expectedOutput', s.expected_output, 'verification', s.verification, 'dependsOnStepIds', to_jsonb(s.depends_on_step_ids),
    'assignedAgentId', s.assigned_agent_id, 'assignedRole', s.assigned_role, 'status', s.status,
    'retryCount', s.retry_count, 'lastFeedback', s.last_feedback, 'judgeVerdict', s.judge_verdict,
    'judgeAgentId', s.judge_agent_id, 'contextSetId', s.context_set_id, 'sourceRunId', s.source_run_id,
    'createdAt', s.created_at, 'updatedAt', s.updated_at)
$$;
comment on function app_hidden.step_json(s app_public.execution_steps) is 'ExecutionStep (spec 2.15); dependencies as dependsOnStepIds (the input''s dependsOnStepIndexes resolved).';
grant execute on function app_hidden.step_json(s app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_json(p app_public.execution_plans, p_with_steps boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', p.id, 'goalId', p.goal_id, 'attempt', p.attempt, 'status', p.status, 'isActiveAttempt', p.is_active_attempt,
    'plannerAgentId', p.planner_agent_id, 'contextSetId', p.context_set_id,
    'autoJudge', app_hidden.plan_auto_judges(p), 'maxStepRetries', p.max_step_retries,
    'approvalRequestId', p.approval_request_id, 'startedAt', p.started_at, 'finishedAt', p.finished_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at,
    'stepCounts', (select coalesce(jsonb_object_agg(status, n), '{}') from (
       select s.status, count(*) n from app_public.execution_steps s where s.plan_id = p.id group by s.status) c))
  || case when p_with_steps then jsonb_build_object('steps', coalesce(
       (select jsonb_agg(app_hidden.step_json(s) order by s.position) from app_public.execution_steps s where s.plan_id = p.id), '[]'))
     else '{}'::jsonb end
$$;
comment on function app_hidden.plan_json(p app_public.execution_plans, p_with_steps boolean) is 'ExecutionPlan (spec 2.15): status, isActiveAttempt, planner, autoJudge (effective), maxStepRetries, step counts by status; with its steps on request.';
grant execute on function app_hidden.plan_json(p app_public.execution_plans, p_with_steps boolean) to svc_visitor;
