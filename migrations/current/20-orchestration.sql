-- Decisions and orchestration (issue 12): action requests and polls (spec 2.13, 3.6, 4.11), goals, execution
-- plans and steps, agent crews and review gates (spec 2.15, 3.7-3.9, 4.12), their events (6.3, 6.4) and the
-- budget stop on agent runs. Every state machine is a CHECK-constrained status column plus one SQL function per
-- transition (sql/orchestration/machine.sql, sql/actionRequests/machine.sql). Re-runnable.

-- action requests ----------------------------------------------------------------------------------

create table if not exists app_public.action_requests (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  title text not null check (length(title) between 1 and 500),
  body text,
  severity text not null default 'INFO' check (severity in ('INFO', 'SUCCESS', 'WARNING', 'ERROR', 'CRITICAL')),
  kind text not null default 'FREE_FORM' check (kind in ('FREE_FORM', 'TRANSITION', 'SET_LABELS', 'ASSIGN_AGENT', 'CLOSE_AS_DUPLICATE')),
  payload jsonb not null default '{}',
  assigned_user_id uuid references app_public.users(id) on delete set null,
  assigned_agent_id uuid,
  issue_id uuid,
  comment_id uuid,
  due_at timestamptz,
  source_type text,
  source_id uuid,
  status text not null default 'OPEN' check (status in ('OPEN', 'RESOLVED', 'DISMISSED', 'SNOOZED', 'REJECTED', 'SUPERSEDED')),
  options jsonb check (options is null or jsonb_typeof(options) = 'array'),
  voting_closed_at timestamptz,
  winning_option_key text,
  requested_by_user_id uuid references app_public.users(id) on delete set null,
  requested_by_agent_id uuid,
  resolved_at timestamptz,
  resolved_by_user_id uuid references app_public.users(id) on delete set null,
  resolved_by_agent_id uuid,
  dispatch_result jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, assigned_agent_id) references app_public.agents(workspace_id, id),
  foreign key (workspace_id, requested_by_agent_id) references app_public.agents(workspace_id, id),
  foreign key (workspace_id, resolved_by_agent_id) references app_public.agents(workspace_id, id),
  foreign key (workspace_id, issue_id) references app_public.issues(workspace_id, id) on delete cascade,
  foreign key (workspace_id, comment_id) references app_public.comments(workspace_id, id) on delete set null (comment_id)
);
comment on table app_public.action_requests is 'A recommendation card asking a person or agent to decide (spec 2.13). kind binds a dispatch run by accept (TRANSITION, SET_LABELS, ASSIGN_AGENT, CLOSE_AS_DUPLICATE; FREE_FORM runs none, except an execution-plan approval, whose acceptance activates the plan). options[] makes it a poll. Status moves only through app_hidden.action_request_move.';
comment on column app_public.action_requests.options is 'Poll options [{key, label, description?}]; NULL = not a poll.';
comment on column app_public.action_requests.dispatch_result is 'What accept did (the bound dispatch''s result), kept for audit.';
create index if not exists action_requests_list_idx on app_public.action_requests (workspace_id, created_at desc, id desc);
create index if not exists action_requests_issue_idx on app_public.action_requests (workspace_id, issue_id) where issue_id is not null;
create index if not exists action_requests_source_idx on app_public.action_requests (workspace_id, source_type, source_id) where source_id is not null;
alter table app_public.action_requests enable row level security;
alter table app_public.action_requests force row level security;
revoke all on app_public.action_requests from public, svc_visitor;
grant select on app_public.action_requests to svc_visitor;
grant insert (workspace_id, title, body, severity, kind, payload, assigned_user_id, assigned_agent_id, issue_id, comment_id,
              due_at, source_type, source_id, options, requested_by_user_id, requested_by_agent_id)
  on app_public.action_requests to svc_visitor;
grant update (status, voting_closed_at, winning_option_key, resolved_at, resolved_by_user_id, resolved_by_agent_id,
              dispatch_result, updated_at)
  on app_public.action_requests to svc_visitor;

create table if not exists app_public.action_request_votes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  request_id uuid not null,
  user_id uuid not null references app_public.users(id) on delete cascade,
  option_key text not null,
  voted_at timestamptz not null default now(),
  unique (request_id, user_id),
  foreign key (workspace_id, request_id) references app_public.action_requests(workspace_id, id) on delete cascade
);
comment on table app_public.action_request_votes is 'One vote per user per poll; re-voting overwrites option_key and voted_at (the time of the current choice).';
create index if not exists action_request_votes_request_idx on app_public.action_request_votes (workspace_id, request_id, option_key);
alter table app_public.action_request_votes enable row level security;
alter table app_public.action_request_votes force row level security;
revoke all on app_public.action_request_votes from public, svc_visitor;
grant select on app_public.action_request_votes to svc_visitor;
grant insert (workspace_id, request_id, user_id, option_key, voted_at) on app_public.action_request_votes to svc_visitor;
grant update (option_key, voted_at) on app_public.action_request_votes to svc_visitor;

-- crews --------------------------------------------------------------------------------------------

create table if not exists app_public.agent_crews (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  description text,
  max_parallel integer not null default 1 check (max_parallel between 0 and 100),
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.agent_crews is 'A team of agents for goals (spec 2.15): PLANNER decomposes, WORKERs run steps, REVIEWER judges. Archived softly. maxParallel is recorded for planners (0 = no limit); the loop does not throttle on it.';
create index if not exists agent_crews_ws_idx on app_public.agent_crews (workspace_id, created_at);
alter table app_public.agent_crews enable row level security;
alter table app_public.agent_crews force row level security;
revoke all on app_public.agent_crews from public, svc_visitor;
grant select on app_public.agent_crews to svc_visitor;
grant insert (workspace_id, name, description, max_parallel) on app_public.agent_crews to svc_visitor;
grant update (name, description, max_parallel, archived_at, updated_at) on app_public.agent_crews to svc_visitor;

create table if not exists app_public.agent_crew_members (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  crew_id uuid not null,
  agent_id uuid not null,
  role text not null check (role in ('PLANNER', 'WORKER', 'REVIEWER', 'OBSERVER', 'OPERATOR_PROXY')),
  created_at timestamptz not null default now(),
  unique (crew_id, agent_id),
  foreign key (workspace_id, crew_id) references app_public.agent_crews(workspace_id, id) on delete cascade,
  foreign key (workspace_id, agent_id) references app_public.agents(workspace_id, id) on delete cascade
);
comment on table app_public.agent_crew_members is 'An agent''s role in a crew (one role per agent per crew).';
create index if not exists agent_crew_members_crew_idx on app_public.agent_crew_members (workspace_id, crew_id, role, created_at);
alter table app_public.agent_crew_members enable row level security;
alter table app_public.agent_crew_members force row level security;
revoke all on app_public.agent_crew_members from public, svc_visitor;
grant select, delete on app_public.agent_crew_members to svc_visitor;
grant insert (workspace_id, crew_id, agent_id, role) on app_public.agent_crew_members to svc_visitor;
grant update (role) on app_public.agent_crew_members to svc_visitor;

-- goals, plans, steps, gates -------------------------------------------------------------------------

create table if not exists app_public.goals (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  title text not null check (length(title) between 1 and 500),
  description text,
  issue_id uuid,
  crew_id uuid,
  max_total_cost_usd numeric check (max_total_cost_usd is null or max_total_cost_usd >= 0),
  max_wall_time_minutes integer check (max_wall_time_minutes is null or max_wall_time_minutes > 0),
  status text not null default 'OPEN' check (status in ('OPEN', 'PLANNING', 'ACTIVE', 'ACHIEVED', 'ABANDONED')),
  started_at timestamptz,
  finished_at timestamptz,
  abandon_reason text,
  archived_at timestamptz,
  created_by_user_id uuid references app_public.users(id) on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, issue_id) references app_public.issues(workspace_id, id) on delete set null (issue_id),
  foreign key (workspace_id, crew_id) references app_public.agent_crews(workspace_id, id),
  foreign key (workspace_id, created_by_agent_id) references app_public.agents(workspace_id, id)
);
comment on table app_public.goals is 'An outcome the agents pursue (spec 2.15, 3.7): OPEN → PLANNING (plans.decompose) → ACTIVE (plan activated) → ACHIEVED (every step of the active plan DONE); ABANDONED from any live state. Status moves only through app_hidden.goal_move; GOAL_STATUS_CHANGED by trigger.';
create index if not exists goals_list_idx on app_public.goals (workspace_id, created_at desc, id desc);
create index if not exists goals_issue_idx on app_public.goals (workspace_id, issue_id) where issue_id is not null;
alter table app_public.goals enable row level security;
alter table app_public.goals force row level security;
revoke all on app_public.goals from public, svc_visitor;
grant select on app_public.goals to svc_visitor;
grant insert (workspace_id, title, description, issue_id, crew_id, max_total_cost_usd, max_wall_time_minutes,
              created_by_user_id, created_by_agent_id)
  on app_public.goals to svc_visitor;
grant update (status, started_at, finished_at, abandon_reason, archived_at, updated_at) on app_public.goals to svc_visitor;

create table if not exists app_public.execution_plans (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  goal_id uuid not null,
  attempt integer not null default 1,
  status text not null default 'DRAFT' check (status in ('DRAFT', 'APPROVED', 'RUNNING', 'BLOCKED', 'COMPLETED', 'CANCELED')),
  is_active_attempt boolean not null default true,
  planner_agent_id uuid,
  context_set_id text,
  auto_judge boolean,
  max_step_retries integer not null default 2 check (max_step_retries between 0 and 20),
  approval_request_id uuid,
  started_at timestamptz,
  finished_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, goal_id) references app_public.goals(workspace_id, id) on delete cascade,
  foreign key (workspace_id, planner_agent_id) references app_public.agents(workspace_id, id)
);
comment on table app_public.execution_plans is 'One attempt at a goal (spec 2.15, 3.8): DRAFT → APPROVED → RUNNING ⇄ BLOCKED → COMPLETED, CANCELED from any live state. A new decompose flips earlier attempts to isActiveAttempt false (and cancels a live one). auto_judge NULL = judge automatically when the goal''s crew has a REVIEWER.';
create unique index if not exists execution_plans_one_active_idx on app_public.execution_plans (workspace_id, goal_id) where is_active_attempt;
create index if not exists execution_plans_list_idx on app_public.execution_plans (workspace_id, created_at desc, id desc);
alter table app_public.execution_plans enable row level security;
alter table app_public.execution_plans force row level security;
revoke all on app_public.execution_plans from public, svc_visitor;
grant select on app_public.execution_plans to svc_visitor;
grant insert (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  on app_public.execution_plans to svc_visitor;
grant update (status, is_active_attempt, approval_request_id, started_at, finished_at, updated_at)
  on app_public.execution_plans to svc_visitor;

create table if not exists app_public.execution_steps (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  plan_id uuid not null,
  position integer not null,
  title text not null check (length(title) between 1 and 500),
  body text,
  expected_output text,
  verification jsonb not null default '[]' check (jsonb_typeof(verification) = 'array'),
  depends_on_step_ids uuid[] not null default '{}',
  assigned_agent_id uuid,
  assigned_role text check (assigned_role is null or assigned_role in ('PLANNER', 'WORKER', 'REVIEWER', 'OBSERVER', 'OPERATOR_PROXY')),
  status text not null default 'TODO' check (status in ('TODO', 'READY', 'RUNNING', 'REVIEW', 'DONE', 'BLOCKED', 'CANCELED')),
  retry_count integer not null default 0,
  last_feedback text,
  judge_verdict jsonb,
  judge_agent_id uuid,
  context_set_id text,
  source_run_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (plan_id, position),
  foreign key (workspace_id, plan_id) references app_public.execution_plans(workspace_id, id) on delete cascade,
  foreign key (workspace_id, assigned_agent_id) references app_public.agents(workspace_id, id),
  foreign key (workspace_id, judge_agent_id) references app_public.agents(workspace_id, id)
);
comment on table app_public.execution_steps is 'A step of a plan (spec 2.15, 3.9): TODO (waiting on dependencies) → READY → RUNNING → REVIEW → DONE, with BLOCKED (gate) and CANCELED. A step becomes READY only when every step in depends_on_step_ids is DONE. Status moves only through app_hidden.step_move; EXECUTION_STEP_STATUS_CHANGED by trigger.';
create index if not exists execution_steps_plan_idx on app_public.execution_steps (workspace_id, plan_id, position);
alter table app_public.execution_steps enable row level security;
alter table app_public.execution_steps force row level security;
revoke all on app_public.execution_steps from public, svc_visitor;
grant select on app_public.execution_steps to svc_visitor;
grant insert (workspace_id, plan_id, position, title, body, expected_output, verification, depends_on_step_ids,
              assigned_agent_id, assigned_role, context_set_id)
  on app_public.execution_steps to svc_visitor;
grant update (status, depends_on_step_ids, assigned_agent_id, retry_count, last_feedback, judge_verdict, judge_agent_id, source_run_id, updated_at)
  on app_public.execution_steps to svc_visitor;

create table if not exists app_public.review_gates (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  plan_id uuid not null,
  step_id uuid,
  reason text not null check (reason in ('STEP_BLOCKED', 'BUDGET_COST', 'BUDGET_WALL_TIME', 'MANUAL')),
  status text not null default 'PENDING' check (status in ('PENDING', 'APPROVED', 'REJECTED', 'CANCELED')),
  title text not null,
  details jsonb not null default '{}',
  resolution_note text,
  opened_by_user_id uuid references app_public.users(id) on delete set null,
  opened_by_agent_id uuid,
  resolved_by_user_id uuid references app_public.users(id) on delete set null,
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, plan_id) references app_public.execution_plans(workspace_id, id) on delete cascade,
  foreign key (workspace_id, step_id) references app_public.execution_steps(workspace_id, id) on delete cascade,
  foreign key (workspace_id, opened_by_agent_id) references app_public.agents(workspace_id, id)
);
comment on table app_public.review_gates is 'An approval checkpoint of the loop: opened when a step is BLOCKED (it holds the step) or a budget is breached (it holds the plan), or by hand. PENDING → APPROVED (continue) | REJECTED (abandon the goal) | CANCELED (its plan ended first).';
create index if not exists review_gates_list_idx on app_public.review_gates (workspace_id, created_at desc, id desc);
create index if not exists review_gates_plan_idx on app_public.review_gates (workspace_id, plan_id, status);
alter table app_public.review_gates enable row level security;
alter table app_public.review_gates force row level security;
revoke all on app_public.review_gates from public, svc_visitor;
grant select on app_public.review_gates to svc_visitor;
grant insert (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  on app_public.review_gates to svc_visitor;
grant update (status, resolution_note, resolved_by_user_id, resolved_at, updated_at) on app_public.review_gates to svc_visitor;

-- runs of plan steps: the step a run works on (its issue is the goal's issue) ----------------------------
alter table app_public.agent_runs add column if not exists step_id uuid;
comment on column app_public.agent_runs.step_id is 'The execution step this run works on (opened when the step became READY); its cost counts toward the goal''s budget.';
do $$ begin
  if not exists (select 1 from pg_constraint where conname = 'agent_runs_workspace_id_step_id_fkey') then
    alter table app_public.agent_runs add constraint agent_runs_workspace_id_step_id_fkey
      foreign key (workspace_id, step_id) references app_public.execution_steps(workspace_id, id) on delete set null (step_id);
  end if;
end $$;
create index if not exists agent_runs_step_idx on app_public.agent_runs (workspace_id, step_id) where step_id is not null;
grant insert (step_id) on app_public.agent_runs to svc_visitor;

-- functions, policies, triggers (sql/) ----------------------------------------------------------------
--! include events/record.sql
--! include events/policies.sql
--! include orchestration/shapes.sql
--! include orchestration/crews.sql
--! include orchestration/machine.sql
--! include orchestration/loop.sql
--! include orchestration/policies.sql
--! include orchestration/triggers.sql
--! include actionRequests/shapes.sql
--! include actionRequests/machine.sql
--! include actionRequests/policies.sql
--! include actionRequests/triggers.sql
--! include actionRequests/tools/list.sql
--! include actionRequests/tools/create.sql
--! include actionRequests/tools/transition.sql
--! include actionRequests/tools/accept.sql
--! include actionRequests/tools/decline.sql
--! include actionRequests/tools/vote.sql
--! include actionRequests/tools/results.sql
--! include actionRequests/tools/closeVoting.sql
--! include comments/tools/create.sql
--! include goals/tools/list.sql
--! include goals/tools/get.sql
--! include goals/tools/create.sql
--! include goals/tools/abandon.sql
--! include plans/tools/decompose.sql
--! include plans/tools/addSteps.sql
--! include plans/tools/requestApproval.sql
--! include plans/tools/activate.sql
--! include plans/tools/judge.sql
--! include plans/tools/recordVerdict.sql
--! include executionPlans/tools/list.sql
--! include executionPlans/tools/get.sql
--! include executionPlans/tools/create.sql
--! include executionPlans/tools/transition.sql
--! include executionPlans/tools/transitionStep.sql
--! include agentCrews/tools/list.sql
--! include agentCrews/tools/create.sql
--! include agentCrews/tools/update.sql
--! include agentCrews/tools/addMember.sql
--! include agentCrews/tools/removeMember.sql
--! include agentCrews/tools/setMemberRole.sql
--! include agentCrews/tools/archive.sql
--! include reviewGates/tools/list.sql
--! include reviewGates/tools/open.sql
--! include reviewGates/tools/resolve.sql
