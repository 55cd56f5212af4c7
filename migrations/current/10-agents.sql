-- Issue 10: agents at work. Runtimes, chat threads and messages; agents attach to a runtime.
-- Re-runnable while current. Functions, policies and triggers come from sql/ (included below).

-- Runtimes (spec 2.10) ---------------------------------------------------------------------------
create table if not exists app_public.runtimes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  kind text not null check (kind in ('LOCAL_DAEMON', 'REMOTE_HTTP', 'CLOUD')),
  endpoint text check (endpoint ~ '^https?://' and length(endpoint) <= 2048),
  providers_available text[] not null default '{}'
    check (providers_available <@ array['CUSTOM', 'CLAUDE', 'CODEX', 'HERMES']::text[]),
  info jsonb not null default '{}' check (jsonb_typeof(info) = 'object'),
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  owner_id uuid references app_public.users(id) on delete set null,
  heartbeat_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.runtimes is 'A machine or service that runs agents (spec 2.10). Registered by ADMIN keys; agents attach with agents.heartbeat {runtimeId}.';
comment on column app_public.runtimes.info is 'Sanitized metadata: only runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot are kept.';
comment on column app_public.runtimes.config is 'Adapter configuration (runtimes.configure); keys are whitelisted per adapter.';
comment on column app_public.runtimes.owner_id is 'The user of the key that registered it; NULL when an AGENT key registered it.';
create index if not exists runtimes_list_idx on app_public.runtimes (workspace_id, created_at desc, id desc);
alter table app_public.runtimes enable row level security;
alter table app_public.runtimes force row level security;
revoke all on app_public.runtimes from public;
grant select on app_public.runtimes to svc_visitor;
grant insert (workspace_id, name, kind, endpoint, providers_available, info, config, owner_id) on app_public.runtimes to svc_visitor;
grant update (name, kind, endpoint, providers_available, info, config, heartbeat_at, archived_at) on app_public.runtimes to svc_visitor;

create table if not exists app_private.runtime_secrets (
  runtime_id uuid primary key,
  workspace_id uuid not null,
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  foreign key (workspace_id, runtime_id) references app_public.runtimes (workspace_id, id) on delete cascade
);
comment on table app_private.runtime_secrets is 'SHA-256 of a runtime''s shared secret (given once at runtimes.register); shown only as hasSecret.';
create index if not exists runtime_secrets_workspace_idx on app_private.runtime_secrets (workspace_id, runtime_id);
alter table app_private.runtime_secrets enable row level security;
alter table app_private.runtime_secrets force row level security;
revoke all on app_private.runtime_secrets from public;

alter table app_public.agents drop constraint if exists agents_workspace_id_runtime_id_fkey;
alter table app_public.agents add constraint agents_workspace_id_runtime_id_fkey
  foreign key (workspace_id, runtime_id) references app_public.runtimes (workspace_id, id) on delete set null (runtime_id);
create index if not exists agents_runtime_idx on app_public.agents (workspace_id, runtime_id) where runtime_id is not null;
comment on column app_public.agents.runtime_id is 'Runtime the agent runs on (set by agents.heartbeat {runtimeId}).';
grant update (status, last_heartbeat_at, runtime_id) on app_public.agents to svc_visitor;

-- Chat (spec 2.12) ------------------------------------------------------------------------------
create table if not exists app_public.chat_threads (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  agent_id uuid not null,
  created_by_user_id uuid references app_public.users(id) on delete set null,
  title text check (length(title) <= 200),
  issue_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, agent_id) references app_public.agents (workspace_id, id) on delete cascade,
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete set null (issue_id)
);
comment on table app_public.chat_threads is 'A conversation between a person and one agent (the addressee). Only the addressee agent, the person who opened it and workspace admins see it.';
comment on column app_public.chat_threads.issue_id is 'Optional issue the thread is about.';
create index if not exists chat_threads_agent_idx on app_public.chat_threads (workspace_id, agent_id, created_at desc);
create index if not exists chat_threads_user_idx on app_public.chat_threads (workspace_id, created_by_user_id, created_at desc);
alter table app_public.chat_threads enable row level security;
alter table app_public.chat_threads force row level security;
revoke all on app_public.chat_threads from public;
grant select on app_public.chat_threads to svc_visitor;

create table if not exists app_public.chat_messages (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity,
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  thread_id uuid not null,
  role text not null check (role in ('USER', 'AGENT')),
  body text not null check (length(body) between 1 and 100000),
  context_snapshot jsonb,
  source_run_id uuid,
  author_user_id uuid references app_public.users(id) on delete set null,
  author_agent_id uuid,
  finalized_draft_id uuid,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, thread_id) references app_public.chat_threads (workspace_id, id) on delete cascade,
  foreign key (workspace_id, source_run_id) references app_public.agent_runs (workspace_id, id) on delete set null (source_run_id),
  foreign key (workspace_id, author_agent_id) references app_public.agents (workspace_id, id) on delete cascade
);
comment on table app_public.chat_messages is 'A persisted chat message: USER (a person, in-app) or AGENT (the addressee, chat.appendMessage or chat.finalizeDraft). Drafts are never stored.';
comment on column app_public.chat_messages.seq is 'Insertion order (messages of one transaction share created_at).';
comment on column app_public.chat_messages.context_snapshot is 'USER messages: where the person was ({route, issueId}); read by agent.context.bundle (linkedIssues).';
comment on column app_public.chat_messages.finalized_draft_id is 'The streaming draft this AGENT message finalized (chat.finalizeDraft); unique per thread.';
create index if not exists chat_messages_thread_idx on app_public.chat_messages (workspace_id, thread_id, seq desc);
create unique index if not exists chat_messages_draft_idx on app_public.chat_messages (workspace_id, thread_id, finalized_draft_id) where finalized_draft_id is not null;
alter table app_public.chat_messages enable row level security;
alter table app_public.chat_messages force row level security;
revoke all on app_public.chat_messages from public;
grant select on app_public.chat_messages to svc_visitor;
grant insert (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id) on app_public.chat_messages to svc_visitor;

-- Functions, policies and triggers (sql/), in dependency order -------------------------------------
--! include core/util.sql
--! include events/record.sql
--! include agents/agents.sql
--! include runtimes/runtimes.sql
--! include runtimes/policies.sql
--! include runtimes/triggers.sql
--! include agents/tools/me.sql
--! include agents/tools/heartbeat.sql
--! include agents/tools/list.sql
--! include runtimes/tools/register.sql
--! include runtimes/tools/heartbeat.sql
--! include runtimes/tools/list.sql
--! include runtimes/tools/configure.sql
--! include runtimes/tools/reportInfo.sql
--! include agents/runs.sql
--! include runs/runs.sql
--! include runs/tools/recordUsage.sql
--! include runs/tools/complete.sql
--! include runs/tools/setWaiting.sql
--! include runs/tools/resumeWork.sql
--! include runs/tools/list.sql
--! include runs/tools/kick.sql
--! include chat/chat.sql
--! include chat/policies.sql
--! include chat/triggers.sql
--! include chat/tools/appendMessage.sql
--! include chat/tools/startDraft.sql
--! include chat/tools/appendDraftChunk.sql
--! include chat/tools/finalizeDraft.sql
--! include chat/tools/getThread.sql
--! include agent/tools/contextBundle.sql
