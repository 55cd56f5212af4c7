--! Previous: sha1:fb7dc58efad7a3711b2b19898c3f2ebe3cd9ee36
--! Hash: sha1:704397ae1c2e836237f151357628842e8bec2922
--! Message: Agents, dispatch, orchestration, files, hostile input and the data path: runtimes, runs, chat, context bundle; dispatcher and watchdogs; action requests and orchestration; attachments, repohost, analytics, standup; shared rate limits and webhook URL checks; one paging helper, finder and bulk wrapper; plan-cached shapers

--! split: 1-current.sql
-- Enter migration here

--! split: 2-rate-limits.sql
-- Per-key rate limits shared by every API process (issue 9): one counter row per (key, surface),
-- fixed one-minute windows aligned to the clock, bumped by ONE upsert per HTTP request (a JSON-RPC batch
-- adds its number of calls). UNLOGGED: counters are worth nothing after a crash, and skipping the WAL
-- keeps the upsert cheap. Re-runnable while current.

drop function if exists app_hidden.rate_limit_take(uuid, uuid, text, int, int);
drop table if exists app_private.rate_limit_counters;

create unlogged table app_private.rate_limit_counters (
  key_id uuid not null,
  surface text not null check (surface in ('rpc', 'rest')),
  workspace_id uuid not null,
  window_start timestamptz not null,
  calls int not null check (calls >= 0),
  primary key (key_id, surface)
);
comment on table app_private.rate_limit_counters is
  'Calls per API key and surface (rpc = JSON-RPC, rest = REST aliases and GraphQL) in the current one-minute window; shared by all API processes. Unlogged: lost on a crash, which only resets the limits.';

alter table app_private.rate_limit_counters enable row level security;
alter table app_private.rate_limit_counters force row level security;
--! Included core/rate_limits.sql
-- Per-key rate limits shared by every API process (the counters table is in the migrations).
-- Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.rate_limit_counters;
create policy owner_all on app_private.rate_limit_counters to current_user using (true) with check (true);
comment on policy owner_all on app_private.rate_limit_counters is
  'Only the schema owner (app_hidden.rate_limit_take, a security definer) reads and writes counters.';

create or replace function app_hidden.rate_limit_take(p_key_id uuid, p_workspace_id uuid, p_surface text, p_calls int, p_limit int)
returns int
language sql volatile security definer set search_path = pg_catalog as $$
  insert into app_private.rate_limit_counters as c (key_id, surface, workspace_id, window_start, calls)
  values (p_key_id, p_surface, p_workspace_id, date_trunc('minute', now()), p_calls)
  on conflict (key_id, surface) do update
    set calls = case when c.window_start = excluded.window_start then c.calls + excluded.calls else excluded.calls end,
        window_start = excluded.window_start
  returning case when c.calls > p_limit
    then greatest(1, ceil(extract(epoch from (c.window_start + interval '1 minute' - clock_timestamp()))))::int
    else 0 end
$$;
comment on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) is
  'Counts p_calls calls of a key on a surface in the current minute (one upsert). Returns 0 when the key is within p_limit, else the seconds until the window ends (Retry-After). Refused calls count too.';
grant execute on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) to svc_visitor;
--! EndIncluded core/rate_limits.sql

--! split: 3-webhook-url-credentials.sql
-- Webhook targets never carry credentials (issue 9): `http://user:secret@host/x` is refused by the tables
-- themselves, whatever path writes them (CLI, GraphQL, SQL). The authority part may not contain '@' and
-- nothing may contain whitespace. NOT VALID: rows written before are left as they are (new and updated
-- rows are checked). Node checks first with a clearer message and private-address rules
-- (src/webhooks/registration.ts). Re-runnable while current.

alter table app_public.webhooks drop constraint if exists webhooks_url_check;
alter table app_public.webhooks add constraint webhooks_url_check
  check (url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$' and length(url) <= 2048) not valid;
comment on constraint webhooks_url_check on app_public.webhooks is
  'An http(s) URL of at most 2048 characters, without credentials (no user:password@) and without whitespace.';

alter table app_public.agents drop constraint if exists agents_webhook_url_check;
alter table app_public.agents add constraint agents_webhook_url_check
  check (webhook_url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$' and length(webhook_url) <= 2048) not valid;
comment on constraint agents_webhook_url_check on app_public.agents is
  'An agent''s dispatch webhook is an http(s) URL of at most 2048 characters, without credentials or whitespace.';

--! split: 10-agents.sql
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
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.parse_uuid(p_value text, p_field text)
 returns uuid
 language plpgsql
 immutable
as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(p_value text, p_field text) is 'UUID from tool input, or a 400 naming the field.';
grant execute on function app_hidden.parse_uuid(p_value text, p_field text) to svc_visitor;

create or replace function app_hidden.tg__set_updated_at()
 returns trigger
 language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at.';
grant execute on function app_hidden.tg__set_updated_at() to svc_visitor;

create or replace function app_hidden.ts_key(p_ts timestamp with time zone)
 returns text
 language sql
 stable parallel safe
as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(p_ts timestamp with time zone) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';
grant execute on function app_hidden.ts_key(p_ts timestamp with time zone) to svc_visitor;

create or replace function app_hidden.user_today(p_timezone text)
 returns date
 language plpgsql
 stable
as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(p_timezone text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';
grant execute on function app_hidden.user_today(p_timezone text) to svc_visitor;

create or replace function app_hidden.utc_today()
 returns date
 language sql
 stable parallel safe
as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';
grant execute on function app_hidden.utc_today() to svc_visitor;

create or replace function app_hidden.uuid_array(p_value jsonb, p_field text)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- plpgsql: a `language sql` function with a FROM clause is never inlined and was planned again in every
  -- statement that called it (0.15 ms, for every issues.create).
  if p_value is null then
    return '{}';
  end if;
  return (select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
          from jsonb_array_elements_text(p_value) e);
end
$$;
comment on function app_hidden.uuid_array(p_value jsonb, p_field text) is 'uuid[] from a JSON array of strings.';
grant execute on function app_hidden.uuid_array(p_value jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.user_ref_json(p_user_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
  from app_public.users u where u.id = p_user_id
$$;
comment on function app_hidden.user_ref_json(p_user_id uuid) is 'A user as {id, name (email when unnamed), email}; NULL for no user.';
grant execute on function app_hidden.user_ref_json(p_user_id uuid) to svc_visitor;
--! EndIncluded core/util.sql
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  select jsonb_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at)
  || case when p_with_actor then jsonb_build_object('actor', coalesce(
       case when a.id is not null then jsonb_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
     else '{}'::jsonb end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)
$$;
comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included.';
--! EndIncluded events/record.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    'maxConcurrent', a.max_concurrent, 'webhookUrl', a.webhook_url,
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN: app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN: delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN: archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN: app_private.update_agent in the caller''s workspace.';
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

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent.';

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
--! Included runtimes/runtimes.sql
-- runtimes: shapes and helpers (spec 2.10).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.runtime_info_sanitize(p_info jsonb)
 returns jsonb
 language sql
 immutable
as $$
  select coalesce(jsonb_object_agg(e.key, left(e.value #>> '{}', 500)), '{}')
  from jsonb_each(case when jsonb_typeof(p_info) = 'object' then p_info else '{}' end) e
  where e.key = any (array['runtimeVersion', 'bridgeVersion', 'codexVersion', 'containerImage', 'hostname', 'os',
                           'arch', 'workspaceRoot'])
    and jsonb_typeof(e.value) in ('string', 'number', 'boolean')
$$;
comment on function app_hidden.runtime_info_sanitize(p_info jsonb) is 'The whitelist of runtime info: runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot (as strings, at most 500 characters); every other key is dropped.';
grant execute on function app_hidden.runtime_info_sanitize(p_info jsonb) to svc_visitor;

create or replace function app_hidden.runtime_has_secret(p_runtime_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_private.runtime_secrets s
                 where s.runtime_id = p_runtime_id and s.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.runtime_has_secret(p_runtime_id uuid) is 'True when a runtime of the caller''s workspace has a shared secret (its hash is in app_private).';
grant execute on function app_hidden.runtime_has_secret(p_runtime_id uuid) to svc_visitor;

create or replace function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_workspace uuid;
begin
  select r.workspace_id into v_workspace from app_public.runtimes r
  where r.id = p_runtime_id and r.workspace_id = app_hidden.current_workspace_id();
  if v_workspace is null then
    perform app_hidden.raise_not_found('Runtime');
  end if;
  insert into app_private.runtime_secrets (runtime_id, workspace_id, secret_hash)
  values (p_runtime_id, v_workspace, sha256(convert_to(p_secret, 'utf8')))
  on conflict (runtime_id) do update set secret_hash = excluded.secret_hash, created_at = now();
end
$$;
comment on function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text) is 'Stores the SHA-256 of a runtime''s shared secret (the plaintext is never kept).';
grant execute on function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text) to svc_visitor;

create or replace function app_hidden.find_runtime(p_id text, p_field text default 'runtimeId'::text)
 returns app_public.runtimes
 language plpgsql
 stable
as $$
declare v_runtime app_public.runtimes;
begin
  select * into v_runtime from app_public.runtimes
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_runtime.id is null then
    raise exception 'Runtime not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_runtime;
end
$$;
comment on function app_hidden.find_runtime(p_id text, p_field text) is 'A runtime of the caller''s workspace (archived ones included); 404 naming the field otherwise.';
grant execute on function app_hidden.find_runtime(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.runtime_json(r app_public.runtimes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'name', r.name, 'kind', r.kind, 'endpoint', r.endpoint,
    'providersAvailable', to_jsonb(r.providers_available), 'info', r.info, 'config', r.config,
    'ownerId', r.owner_id,
    'owner', app_hidden.user_ref_json(r.owner_id),
    'heartbeatAt', r.heartbeat_at, 'hasSecret', app_hidden.runtime_has_secret(r.id),
    '_count', jsonb_build_object('agents', (select count(*) from app_public.agents a
                                            where a.workspace_id = r.workspace_id and a.runtime_id = r.id
                                              and a.archived_at is null)),
    'archivedAt', r.archived_at, 'archived', r.archived_at is not null,
    'createdAt', r.created_at, 'updatedAt', r.updated_at)
$$;
comment on function app_hidden.runtime_json(r app_public.runtimes) is 'Runtime (spec 2.10): owner summary, _count.agents (not archived), secrets only as hasSecret.';
grant execute on function app_hidden.runtime_json(r app_public.runtimes) to svc_visitor;

create or replace function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb)
 returns void
 language plpgsql
 stable
as $$
declare
  v_allowed text[] := array['localWorkspaceTools', 'toolCapabilities', 'workspaceRoot', 'modeToolPolicyEnforced'];
  v_key text;
begin
  if jsonb_typeof(p_config) is distinct from 'object' then
    perform app_hidden.raise_invalid('config', 'config must be an object');
  end if;
  -- The CODEX adapter also takes sandbox and approval settings.
  if 'CODEX' = any (r.providers_available) then
    v_allowed := v_allowed || array['sandbox', 'approval'];
  end if;
  for v_key in select jsonb_object_keys(p_config) loop
    if not v_key = any (v_allowed) then
      perform app_hidden.raise_invalid('config.' || v_key, format('unknown adapter setting %s; this runtime accepts %s', v_key, array_to_string(v_allowed, ', ')));
    end if;
  end loop;
end
$$;
comment on function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb) is 'Adapter settings whitelist: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Anything else is a 400 on config.<key>.';
grant execute on function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb) to svc_visitor;
--! EndIncluded runtimes/runtimes.sql
--! Included runtimes/policies.sql
-- Row-level security policies of the runtimes tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.runtimes;
create policy owner_all on app_public.runtimes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.runtimes is 'The schema owner manages every runtime.';

drop policy if exists select_in_workspace on app_public.runtimes;
create policy select_in_workspace on app_public.runtimes for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.runtimes is 'Runtimes of the caller''s workspace (agents show theirs as {id, name, kind}).';

drop policy if exists insert_with_admin_scope on app_public.runtimes;
create policy insert_with_admin_scope on app_public.runtimes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.runtimes is 'Keys holding ADMIN register runtimes (an agent''s bridge included).';

drop policy if exists update_with_admin_scope on app_public.runtimes;
create policy update_with_admin_scope on app_public.runtimes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_with_admin_scope on app_public.runtimes is 'Keys holding ADMIN heartbeat, configure and report info of runtimes.';

drop policy if exists owner_all on app_private.runtime_secrets;
create policy owner_all on app_private.runtime_secrets for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.runtime_secrets is 'Only the schema owner (security-definer helpers) reads runtime secret hashes.';
--! EndIncluded runtimes/policies.sql
--! Included runtimes/triggers.sql
-- Triggers of the runtimes tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.runtimes;
create trigger _100_updated_at before update on app_public.runtimes for each row execute function app_hidden.tg__set_updated_at();
--! EndIncluded runtimes/triggers.sql
--! Included agents/tools/me.sql
-- The agents.me tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the agent linked to the calling key; 403 for keys without one, archived or cross-tenant agents.
create or replace function app_tools.agents_me(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.agent_json(app_hidden.require_own_agent()) $$;
comment on function app_tools.agents_me(args jsonb) is 'agents.me: The agent linked to the calling key (provider, runtimeMode, status, capabilities). Keys without a linked agent, or linked to an archived agent, get 403.';
grant execute on function app_tools.agents_me(args jsonb) to svc_visitor;
--! EndIncluded agents/tools/me.sql
--! Included agents/tools/heartbeat.sql
-- The agents.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one UPDATE sets status (default ONLINE) and lastHeartbeatAt (and attaches runtimeId); the trigger writes
-- AGENT_STATUS_CHANGED only when the status changed. Keys without an agent, archived or foreign agents: 403.
create or replace function app_tools.agents_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_runtime app_public.runtimes;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_runtime(args->>'runtimeId');
  end if;
  update app_public.agents a
  set status = coalesce(args->>'status', 'ONLINE'), last_heartbeat_at = now(),
      runtime_id = coalesce(v_runtime.id, a.runtime_id)
  where a.id = v_agent.id
  returning * into v_agent;
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt in one update; runtimeId attaches the agent to a runtime. AGENT_STATUS_CHANGED only when the status changes. Keys without an agent, or linked to an archived agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
--! Included agents/tools/list.sql
-- The agents.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- agents of the workspace by profileKey; archived ones only with includeArchived; runtimeId filters.
create or replace function app_tools.agents_list(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.agent_json(a) order by a.profile_key), '[]')
  from app_public.agents a
  where a.workspace_id = app_hidden.current_workspace_id()
    and (coalesce((args->>'includeArchived')::boolean, false) or a.archived_at is null)
    and (args->>'runtimeId' is null or a.runtime_id = app_hidden.parse_uuid(args->>'runtimeId', 'runtimeId'))
$$;
grant execute on function app_tools.agents_list(args jsonb) to svc_visitor;
comment on function app_tools.agents_list(args jsonb) is 'agents.list: Agents of the workspace by profileKey: id, profileKey, name, status, runtimeMode, provider, capabilities, archivedAt, runtime {id, name, kind}. Archived agents only with includeArchived; runtimeId keeps the agents of one runtime.';
--! EndIncluded agents/tools/list.sql
--! Included runtimes/tools/register.sql
-- The runtimes.register tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- creates a runtime (never de-duplicated), or restores and updates the one named by runtimeId; owner = the
-- key's user (NULL for AGENT keys); info sanitized; secret kept as a hash. RUNTIME_REGISTERED.
create or replace function app_tools.runtimes_register(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes;
  v_providers text[] := (select coalesce(array_agg(p), '{}') from jsonb_array_elements_text(args->'providersAvailable') p);
  v_restored boolean := args->>'runtimeId' is not null;
begin
  if v_restored then
    v_runtime := app_hidden.find_runtime(args->>'runtimeId');
    update app_public.runtimes r set
      name = args->>'name', kind = args->>'kind', endpoint = args->>'endpoint', providers_available = v_providers,
      info = r.info || app_hidden.runtime_info_sanitize(args->'info'), archived_at = null, heartbeat_at = now()
    where r.id = v_runtime.id
    returning * into v_runtime;
  else
    insert into app_public.runtimes (workspace_id, name, kind, endpoint, providers_available, info, owner_id)
    values (app_hidden.current_workspace_id(), args->>'name', args->>'kind', args->>'endpoint', v_providers,
            app_hidden.runtime_info_sanitize(args->'info'),
            case when app_hidden.current_agent_id() is null then app_hidden.current_key_user_id() end)
    returning * into v_runtime;
  end if;
  if args->>'secret' is not null then
    perform app_hidden.runtime_set_secret(v_runtime.id, args->>'secret');
  end if;
  perform app_hidden.record_event('RUNTIME_REGISTERED', 'runtime', v_runtime.id, jsonb_build_object(
    'runtimeId', v_runtime.id, 'name', v_runtime.name, 'kind', v_runtime.kind, 'restored', v_restored));
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_register(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_register(args jsonb) is 'runtimes.register: Register a runtime (a machine or service running agents). Not de-duplicated: each call creates one, unless runtimeId names an existing (possibly archived) runtime, which is restored and updated. ownerId is the key''s user (null for AGENT keys); a secret is stored only as a hash (hasSecret). Emits RUNTIME_REGISTERED.';
--! EndIncluded runtimes/tools/register.sql
--! Included runtimes/tools/heartbeat.sql
-- The runtimes.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- bumps heartbeatAt (and merges sanitized info). Telemetry: no event.
create or replace function app_tools.runtimes_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_runtime app_public.runtimes := app_hidden.find_runtime(args->>'runtimeId');
begin
  update app_public.runtimes r
  set heartbeat_at = now(), info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_heartbeat(args jsonb) is 'runtimes.heartbeat: Bump heartbeatAt of a runtime (info, if given, is merged after the whitelist).';
--! EndIncluded runtimes/tools/heartbeat.sql
--! Included runtimes/tools/list.sql
-- The runtimes.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first, {items, nextCursor}; kind filter; archived ones only with includeArchived.
create or replace function app_tools.runtimes_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'runtimes') k;
  end if;
  with page as (
    select r from app_public.runtimes r
    where r.workspace_id = app_hidden.current_workspace_id()
      and (args->>'kind' is null or r.kind = args->>'kind')
      and (coalesce((args->>'includeArchived')::boolean, false) or r.archived_at is null)
      and (v_after_ts is null or (r.created_at, r.id) < (v_after_ts, v_after_id))
    order by r.created_at desc, r.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.runtime_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('runtimes', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
grant execute on function app_tools.runtimes_list(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_list(args jsonb) is 'runtimes.list: Runtimes of the workspace, newest first, with _count.agents and an owner summary; secrets appear only as hasSecret. Archived ones only with includeArchived.';
--! EndIncluded runtimes/tools/list.sql
--! Included runtimes/tools/configure.sql
-- The runtimes.configure tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges (default) or replaces the adapter config; unknown adapter keys are a 400. RUNTIME_UPDATED on a change.
create or replace function app_tools.runtimes_configure(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes := app_hidden.find_runtime(args->>'runtimeId');
  v_config jsonb;
begin
  perform app_hidden.runtime_config_check(v_runtime, args->'config');
  v_config := case when coalesce((args->>'merge')::boolean, true) then v_runtime.config || (args->'config')
                   else args->'config' end;
  if v_config is distinct from v_runtime.config then
    update app_public.runtimes set config = v_config where id = v_runtime.id returning * into v_runtime;
    perform app_hidden.record_event('RUNTIME_UPDATED', 'runtime', v_runtime.id, jsonb_build_object(
      'runtimeId', v_runtime.id, 'changes', jsonb_build_array('config')));
  end if;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_configure(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_configure(args jsonb) is 'runtimes.configure: Set adapter configuration of a runtime: merged into the current config (merge true, default) or replacing it. Accepted keys: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Unknown keys are a 400. Emits RUNTIME_UPDATED when the config changes.';
--! EndIncluded runtimes/tools/configure.sql
--! Included runtimes/tools/reportInfo.sql
-- The runtimes.reportInfo tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges the sanitized info into the runtime (default: the calling agent's runtime). Telemetry: no event.
create or replace function app_tools.runtimes_report_info(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes;
  v_runtime_id uuid;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_runtime(args->>'runtimeId');
  else
    if app_hidden.current_agent_id() is null then
      raise exception 'Give runtimeId, or call with a key linked to an agent' using errcode = 'SV400', column = 'runtimeId';
    end if;
    select a.runtime_id into v_runtime_id from app_public.agents a where a.id = app_hidden.current_agent_id();
    if v_runtime_id is null then
      raise exception 'The calling agent is not attached to a runtime (agents.heartbeat {runtimeId})'
        using errcode = 'SV409', detail = 'no_runtime';
    end if;
    v_runtime := app_hidden.find_runtime(v_runtime_id::text);
  end if;
  update app_public.runtimes r set info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_report_info(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_report_info(args jsonb) is 'runtimes.reportInfo: Report runtime metadata; only the whitelisted keys (runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot) are stored, merged. Without runtimeId: the runtime of the calling key''s agent.';
--! EndIncluded runtimes/tools/reportInfo.sql
--! Included agents/runs.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.agent_id = p_agent_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) is 'The newest open (neither COMPLETED nor ABANDONED) run of one agent on an issue, or NULL.';
grant execute on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.current_run(p_issue_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.current_run(p_issue_id uuid) is 'The current run of an issue (spec 3.3): its newest run that is neither COMPLETED nor ABANDONED, or NULL.';
grant execute on function app_hidden.current_run(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.run_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'status', r.status,
    'engagementMode', r.engagement_mode, 'currentStep', r.current_step,
    'startedAt', r.started_at, 'finishedAt', r.finished_at, 'lastEventAt', r.last_event_at,
    'tokensIn', r.tokens_in, 'tokensOut', r.tokens_out, 'tokensCached', r.tokens_cached, 'costUsd', r.cost_usd,
    'controlState', r.control_state, 'completionMeta', r.completion_meta,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = r.agent_id))
$$;
comment on function app_hidden.run_json(r app_public.agent_runs) is 'AgentRun (spec 2.11) with its agent {id, profileKey, name}.';
grant execute on function app_hidden.run_json(r app_public.agent_runs) to svc_visitor;
--! EndIncluded agents/runs.sql
--! Included runs/runs.sql
-- runs: the run contract, run changes by the run's agent, and the stale-run sweep.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.run_contract_version()
 returns text
 language sql
 immutable parallel safe
as $$ select '2026-11-01'::text $$;
comment on function app_hidden.run_contract_version() is 'Version of the run contract (completion gates, runProtocol). Stored in completionMeta.contractVersion by runs.complete and shown in agent.context.bundle runProtocol.';
grant execute on function app_hidden.run_contract_version() to svc_visitor;

create or replace function app_hidden.find_run(p_run_id text, p_field text default 'runId'::text)
 returns app_public.agent_runs
 language plpgsql
 stable
as $$
declare v_run app_public.agent_runs;
begin
  select * into v_run from app_public.agent_runs r
  where r.id = app_hidden.parse_uuid(p_run_id, p_field) and r.workspace_id = app_hidden.current_workspace_id();
  if v_run.id is null then
    raise exception 'Run not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_run;
end
$$;
comment on function app_hidden.find_run(p_run_id text, p_field text) is 'A run the caller can see (its issue is visible to the key); 404 naming the field otherwise.';
grant execute on function app_hidden.find_run(p_run_id text, p_field text) to svc_visitor;

create or replace function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(p_run_id);
begin
  if app_hidden.current_agent_id() is distinct from v_run.agent_id then
    raise exception 'Only a key linked to the run''s agent may change this run' using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if p_open_only and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  return v_run;
end
$$;
comment on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) is 'A visible run locked FOR UPDATE, after checking that the calling key is linked to the run''s agent (403 not_run_agent) and, with p_open_only, that it is not COMPLETED or ABANDONED (409 run_closed). The entry of recordUsage, complete, setWaiting and resumeWork.';
grant execute on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) to svc_visitor;

create or replace function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'from', p_from,
    'to', r.status, 'engagementMode', r.engagement_mode, 'reason', p_reason)
$$;
comment on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) is 'Payload of AGENT_RUN_STATUS_CHANGED: runId, agentId, issueId, from, to, engagementMode, reason.';
grant execute on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_from text := r.status;
begin
  update app_public.agent_runs
  set status = p_to, last_event_at = now(),
      finished_at = case when p_to in ('COMPLETED', 'ABANDONED') then now() end
  where id = r.id
  returning * into r;
  perform app_hidden.record_event('AGENT_RUN_STATUS_CHANGED', 'issue', r.issue_id,
    app_hidden.run_status_payload(r, v_from, p_reason));
  return r;
end
$$;
comment on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) is 'Moves a run to another status (finishedAt on COMPLETED/ABANDONED, lastEventAt bumped) and writes AGENT_RUN_STATUS_CHANGED (subject: the run''s issue).';
grant execute on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_list_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.run_json(r) || jsonb_build_object(
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                        'workspace', jsonb_build_object('key', w.key))
              from app_public.issues i join app_public.workspaces w on w.id = i.workspace_id
              where i.id = r.issue_id))
$$;
comment on function app_hidden.run_list_json(r app_public.agent_runs) is 'A runs.list row (spec 4.9): the run''s scalars, agent {id, profileKey, name} and issue {id, key, number, title, workspace {key}}.';
grant execute on function app_hidden.run_list_json(r app_public.agent_runs) to svc_visitor;

create or replace function app_hidden.run_protocol(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(),
    'runId', r.id,
    'engagementMode', coalesce(r.engagement_mode, 'EXECUTE'),
    'modeInstruction', case coalesce(r.engagement_mode, 'EXECUTE')
      when 'EXECUTE' then 'Do the work. Before runs.complete: attach at least one produced artifact when artifactRequired, and report every verificationChecklist item done in verificationResult.'
      when 'RESEARCH' then 'Investigate and report; do not change the issue (update, transition, assign, labels are rejected). Complete with a summary and a confidence (LOW, MEDIUM, HIGH).'
      when 'REVIEW' then 'Review the work and do not change the issue. Complete with a summary and a verdict: APPROVE or REQUEST_CHANGES.'
      when 'DISCUSS' then 'Reply only (comments, chat); do not change the issue. Complete with a summary and nothing else.'
    end,
    'protocolInstruction', 'Keep one rolling status line with comments.upsertStatus; report cumulative token usage with runs.recordUsage; '
      || 'call runs.setWaiting while blocked on someone and runs.resumeWork when you continue; finish with runs.complete {runId, summary, ...}. '
      || 'A run quiet for ' || coalesce((select w.agent_run_stale_minutes from app_public.workspaces w where w.id = r.workspace_id), 30)
      || ' minutes is marked STALLED.',
    'mayMutateIssue', r.id is null or (r.engagement_mode = 'EXECUTE' and r.status in ('ACTIVE', 'WAITING', 'STALLED')))
$$;
comment on function app_hidden.run_protocol(r app_public.agent_runs) is 'runProtocol of agent.context.bundle: contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue (false in RESEARCH, REVIEW and DISCUSS runs and once a run is closed).';
grant execute on function app_hidden.run_protocol(r app_public.agent_runs) to svc_visitor;

create or replace function app_private.sweep_stale_runs(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_run app_public.agent_runs;
  v_fired jsonb := '[]';
begin
  for v_run in
    select r.* from app_public.agent_runs r join app_public.workspaces w on w.id = r.workspace_id
    where r.status = 'ACTIVE' and r.last_event_at < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by r.workspace_id, r.last_event_at
    for update of r skip locked
  loop
    update app_public.agent_runs set status = 'STALLED' where id = v_run.id;
    perform app_private.record_event(v_run.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', v_run.issue_id,
      jsonb_build_object('runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id, 'from', 'ACTIVE',
        'to', 'STALLED', 'engagementMode', v_run.engagement_mode, 'reason', 'stale',
        'quietMinutes', floor(extract(epoch from p_now - v_run.last_event_at) / 60)::int));
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_RUN_STALLED', 'subjectId', v_run.id,
      'issueId', v_run.issue_id, 'agentId', v_run.agent_id, 'workspaceId', v_run.workspace_id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.sweep_stale_runs(p_now timestamp with time zone) is 'Stale-run sweep (decisions: Runs): ACTIVE runs whose lastEventAt is older than the workspace''s agentRunStaleMinutes at p_now become STALLED, each with AGENT_RUN_STATUS_CHANGED (reason stale). Returns [{kind: AGENT_RUN_STALLED, subjectId: runId, issueId, agentId, workspaceId}]. Run every minute by the worker (cron svc_watchdog_sweep, with the watchdogs) and by svc admin sweep.';
--! EndIncluded runs/runs.sql
--! Included runs/tools/recordUsage.sql
-- The runs.recordUsage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cumulative usage: each given field replaces the stored one (idempotent); costUsd kept verbatim. Only the
-- run's agent. Telemetry: no event.
create or replace function app_tools.runs_record_usage(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', false);
begin
  update app_public.agent_runs r set
    tokens_in = coalesce((args->>'tokensIn')::bigint, r.tokens_in),
    tokens_out = coalesce((args->>'tokensOut')::bigint, r.tokens_out),
    tokens_cached = coalesce((args->>'tokensCached')::bigint, r.tokens_cached),
    cost_usd = coalesce((args->>'costUsd')::numeric, r.cost_usd),
    last_event_at = case when r.status in ('ACTIVE', 'WAITING', 'STALLED') then now() else r.last_event_at end
  where r.id = v_run.id
  returning * into v_run;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_record_usage(args jsonb) to svc_visitor;
comment on function app_tools.runs_record_usage(args jsonb) is 'runs.recordUsage: Report cumulative usage of a run: each given value replaces the stored one (idempotent; send totals, not increments). costUsd is stored verbatim. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/recordUsage.sql
--! Included runs/tools/complete.sql
-- The runs.complete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- closes an open run as COMPLETED after the gates of its mode; completionMeta keeps the contract version and
-- what the agent reported. Only the run's agent. AGENT_RUN_STATUS_CHANGED.
create or replace function app_tools.runs_complete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
  v_issue app_public.issues;
  v_field text;
  v_missing text[];
begin
  select * into v_issue from app_public.issues where id = v_run.issue_id;
  case v_run.engagement_mode
    when 'EXECUTE' then
      if v_issue.artifact_required and coalesce(jsonb_array_length(args->'producedArtifactIds'), 0) = 0 then
        perform app_hidden.raise_invalid('producedArtifactIds', 'this issue requires an artifact: give at least one produced artifact id');
      end if;
      -- Every checklist item must be reported done: [{id, done: true}] in verificationResult.
      select array_agg(coalesce(c->>'id', c->>'label') order by n) into v_missing
      from jsonb_array_elements(v_issue.verification_checklist) with ordinality as x(c, n)
      where not exists (
        select 1 from jsonb_array_elements(coalesce(args->'verificationResult', '[]')) v
        where (v->>'id' = c->>'id' or (c->>'id' is null and v->>'label' = c->>'label'))
          and (v->>'done')::boolean);
      if v_missing is not null then
        perform app_hidden.raise_invalid('verificationResult',
          'every verificationChecklist item must be reported done; missing: ' || array_to_string(v_missing, ', '));
      end if;
    when 'RESEARCH' then
      if args->>'confidence' is null then
        perform app_hidden.raise_invalid('confidence', 'a RESEARCH run completes with a confidence (LOW, MEDIUM, HIGH)');
      end if;
    when 'REVIEW' then
      if args->>'verdict' is null then
        perform app_hidden.raise_invalid('verdict', 'a REVIEW run completes with a verdict (APPROVE or REQUEST_CHANGES)');
      end if;
    when 'DISCUSS' then
      foreach v_field in array array['producedArtifactIds', 'verificationResult', 'followUps', 'confidence', 'verdict'] loop
        if args ? v_field then
          perform app_hidden.raise_invalid(v_field, 'a DISCUSS run completes with a summary only');
        end if;
      end loop;
  end case;
  update app_public.agent_runs set completion_meta = jsonb_strip_nulls(jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(), 'summary', args->>'summary',
    'producedArtifactIds', args->'producedArtifactIds', 'verificationResult', args->'verificationResult',
    'followUps', args->'followUps', 'confidence', args->'confidence', 'verdict', args->'verdict',
    'completedAt', now()))
  where id = v_run.id;
  v_run := app_hidden.run_set_status(v_run, 'COMPLETED', 'completed');
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_complete(args jsonb) to svc_visitor;
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id, done}]; RESEARCH needs confidence; REVIEW needs verdict; DISCUSS takes a summary only. completionMeta keeps what was reported and the run contract version. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/complete.sql
--! Included runs/tools/setWaiting.sql
-- The runs.setWaiting tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ACTIVE (or STALLED) → WAITING; already WAITING: unchanged; closed runs: 409 run_closed. Only the run's agent.
create or replace function app_tools.runs_set_waiting(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
begin
  if v_run.status <> 'WAITING' then
    v_run := app_hidden.run_set_status(v_run, 'WAITING', args->>'reason');
  end if;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_set_waiting(args jsonb) to svc_visitor;
comment on function app_tools.runs_set_waiting(args jsonb) is 'runs.setWaiting: Mark a run WAITING (blocked on someone else); already waiting: unchanged. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/setWaiting.sql
--! Included runs/tools/resumeWork.sql
-- The runs.resumeWork tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- WAITING (or STALLED) → ACTIVE; already ACTIVE: lastEventAt bumped; closed runs: 409 run_closed. Only the run's agent.
create or replace function app_tools.runs_resume_work(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
begin
  if v_run.status = 'ACTIVE' then
    update app_public.agent_runs set last_event_at = now() where id = v_run.id returning * into v_run;
  else
    v_run := app_hidden.run_set_status(v_run, 'ACTIVE', 'resumed');
  end if;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_resume_work(args jsonb) to svc_visitor;
comment on function app_tools.runs_resume_work(args jsonb) is 'runs.resumeWork: Resume a WAITING (or STALLED) run: back to ACTIVE. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/resumeWork.sql
--! Included runs/tools/list.sql
-- The runs.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- runs on issues the key can see, newest first by startedAt; filters agentId, issueId, status; {items, nextCursor}.
create or replace function app_tools.runs_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid;
  v_agent uuid := app_hidden.parse_uuid(args->>'agentId', 'agentId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  if args->>'before' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'before', 'runs') k;
  end if;
  with page as (
    select r from app_public.agent_runs r
    where r.workspace_id = app_hidden.current_workspace_id()
      and (v_agent is null or r.agent_id = v_agent)
      and (v_issue is null or r.issue_id = v_issue)
      and (args->>'status' is null or r.status = args->>'status')
      and (v_after_ts is null or (r.started_at, r.id) < (v_after_ts, v_after_id))
    order by r.started_at desc, r.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.run_list_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('runs', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
grant execute on function app_tools.runs_list(args jsonb) to svc_visitor;
comment on function app_tools.runs_list(args jsonb) is 'runs.list: Agent runs on issues the key can see, newest first by startedAt: status, currentStep, timestamps, token usage, costUsd, issue {id, key, number, title, workspace {key}}, agent {id, profileKey}. Page with before = nextCursor.';
--! EndIncluded runs/tools/list.sql
--! Included runs/tools/kick.sql
-- The runs.kick tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- an ACTIVE run quiet for 5 minutes or more: records AGENT_RUN_KICKED (subject: the run's issue) and queues it
-- to the agent's dispatch channel (agent:dispatch:<agentId>); the run itself is unchanged. Otherwise kicked false.
create or replace function app_tools.runs_kick(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs := app_hidden.find_run(args->>'runId');
  v_quiet interval := now() - v_run.last_event_at;
  v_event uuid;
begin
  if v_run.status <> 'ACTIVE' or v_quiet < interval '5 minutes' then
    return jsonb_build_object('ok', true, 'kicked', false, 'runId', v_run.id, 'status', v_run.status,
      'quietSeconds', greatest(0, floor(extract(epoch from v_quiet)))::int);
  end if;
  v_event := app_hidden.record_event('AGENT_RUN_KICKED', 'issue', v_run.issue_id, jsonb_build_object(
    'runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id,
    'engagementMode', v_run.engagement_mode, 'lastEventAt', v_run.last_event_at,
    'quietMinutes', floor(extract(epoch from v_quiet) / 60)::int));
  perform app_hidden.dispatch_to_agent(v_event, v_run.agent_id);
  return jsonb_build_object('ok', true, 'kicked', true, 'runId', v_run.id, 'status', v_run.status,
    'eventId', v_event, 'quietSeconds', floor(extract(epoch from v_quiet))::int);
end
$$;
grant execute on function app_tools.runs_kick(args jsonb) to svc_visitor;
comment on function app_tools.runs_kick(args jsonb) is 'runs.kick: Nudge an ACTIVE run that has been quiet for 5 minutes or more: re-fires the agent''s dispatch delivery (agent:dispatch:<agentId>) and records AGENT_RUN_KICKED; the run itself is unchanged. Otherwise {ok: true, kicked: false}.';
--! EndIncluded runs/tools/kick.sql
--! Included chat/chat.sql
-- chat: shapes, the addressee check, posting messages and the in-app procedures (open a thread, post as a person).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.chat_thread_json(t app_public.chat_threads)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', t.id, 'agentId', t.agent_id,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = t.agent_id),
    'createdByUserId', t.created_by_user_id,
    'createdBy', app_hidden.user_ref_json(t.created_by_user_id),
    'title', t.title, 'issueId', t.issue_id,
    'lastMessageAt', (select max(m.created_at) from app_public.chat_messages m
                      where m.workspace_id = t.workspace_id and m.thread_id = t.id),
    'createdAt', t.created_at, 'updatedAt', t.updated_at)
$$;
comment on function app_hidden.chat_thread_json(t app_public.chat_threads) is 'ChatThread: the addressee agent {id, profileKey, name}, who opened it, title, issueId, lastMessageAt.';
grant execute on function app_hidden.chat_thread_json(t app_public.chat_threads) to svc_visitor;

create or replace function app_hidden.chat_message_json(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', m.id, 'threadId', m.thread_id, 'role', m.role, 'body', m.body, 'contextSnapshot', m.context_snapshot,
    'sourceRunId', m.source_run_id, 'createdAt', m.created_at, 'finalizedDraftId', m.finalized_draft_id,
    'authorUserId', m.author_user_id, 'authorAgentId', m.author_agent_id)
$$;
comment on function app_hidden.chat_message_json(m app_public.chat_messages) is 'ChatMessage (spec 2.12): id, threadId, role, body, contextSnapshot, sourceRunId, createdAt, finalizedDraftId (+ author ids).';
grant execute on function app_hidden.chat_message_json(m app_public.chat_messages) to svc_visitor;

create or replace function app_hidden.chat_thread_for_agent(p_thread_id text)
 returns app_public.chat_threads
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_thread app_public.chat_threads;
begin
  select * into v_thread from app_public.chat_threads t
  where t.id = app_hidden.parse_uuid(p_thread_id, 'threadId') and t.workspace_id = app_hidden.current_workspace_id();
  if v_thread.id is null then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if v_thread.agent_id <> v_agent.id then
    raise exception 'This thread is addressed to another agent' using errcode = 'SV403', detail = 'not_addressee';
  end if;
  return v_thread;
end
$$;
comment on function app_hidden.chat_thread_for_agent(p_thread_id text) is 'Addressee gating of the chat tools: the thread (of the caller''s workspace, else 404) must be addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee).';
grant execute on function app_hidden.chat_thread_for_agent(p_thread_id text) to svc_visitor;

create or replace function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_message app_public.chat_messages;
begin
  if p_source_run_id is not null then
    v_run := app_hidden.find_run(p_source_run_id, 'sourceRunId');
    if v_run.agent_id <> t.agent_id then
      perform app_hidden.raise_invalid('sourceRunId', 'sourceRunId must be a run of this agent');
    end if;
    update app_public.agent_runs set last_event_at = now()
    where id = v_run.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id)
  values (t.workspace_id, t.id, 'AGENT', p_body, v_run.id, app_hidden.current_user_id(), t.agent_id, p_draft_id)
  returning * into v_message;
  perform app_hidden.record_event('CHAT_MESSAGE_POSTED', 'chat-thread', t.id, jsonb_strip_nulls(jsonb_build_object(
    'threadId', t.id, 'messageId', v_message.id, 'agentId', t.agent_id, 'role', 'AGENT', 'body', v_message.body,
    'sourceRunId', v_message.source_run_id, 'draftId', p_draft_id)));
  return v_message;
end
$$;
comment on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) is 'Persists an AGENT reply in a thread (sourceRunId must be the agent''s run) and writes CHAT_MESSAGE_POSTED (chat-thread: threadId, messageId, agentId, role, body, sourceRunId?, draftId?). Agent replies are not dispatched.';
grant execute on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) to svc_visitor;

create or replace function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb)
 returns void
 language sql
as $$
  select null::void from app_hidden.publish_ephemeral_event('CHAT_MESSAGE_POSTED', 'chat-thread-stream', t.id,
    jsonb_build_object('threadId', t.id, 'agentId', t.agent_id) || p_payload)
$$;
comment on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) is 'Publishes a draft phase (started, delta, finalized) as CHAT_MESSAGE_POSTED on chat-thread-stream: realtime channel only, never stored.';
grant execute on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) to svc_visitor;

create or replace function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb)
 returns app_public.chat_messages
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
  v_context jsonb;
  v_event uuid;
begin
  select * into v_thread from app_public.chat_threads where id = p_thread_id and workspace_id = p_workspace_id;
  if v_thread.id is null then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if p_body is null or btrim(p_body) = '' then
    perform app_hidden.raise_invalid('body', 'body must not be empty');
  end if;
  v_context := jsonb_build_object('route', p_context->>'route',
                                  'issueId', coalesce(p_context->>'issueId', v_thread.issue_id::text));
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, context_snapshot, author_user_id)
  values (p_workspace_id, v_thread.id, 'USER', p_body, v_context, p_user_id)
  returning * into v_message;
  v_event := app_private.record_event(p_workspace_id, 'CHAT_MESSAGE_POSTED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'messageId', v_message.id, 'agentId', v_thread.agent_id, 'role', 'USER',
    'body', v_message.body, 'context', v_context));
  -- Only USER messages reach the agent's dispatch channel (spec 6.3).
  perform app_private.enqueue_agent_dispatch(v_event, v_thread.agent_id);
  return v_message;
end
$$;
comment on function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb) is 'Persists a USER message (contextSnapshot {route, issueId}), writes CHAT_MESSAGE_POSTED (chat-thread, with context) and queues that event to the addressee''s dispatch channel agent:dispatch:<agentId>.';

create or replace function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text default NULL::text, p_issue_id uuid default NULL::uuid, p_message text default NULL::text, p_route text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'agentId', detail = 'agent_archived';
  end if;
  if not exists (select 1 from app_public.memberships m where m.workspace_id = p_workspace_id and m.user_id = p_user_id) then
    raise exception 'Not a member of this workspace' using errcode = 'SV400', column = 'user';
  end if;
  insert into app_public.chat_threads (workspace_id, agent_id, created_by_user_id, title, issue_id)
  values (p_workspace_id, v_agent.id, p_user_id, nullif(btrim(p_title), ''), p_issue_id)
  returning * into v_thread;
  if p_message is not null then
    v_message := app_private.chat_post_user_message(p_workspace_id, v_thread.id, p_user_id, p_message,
      jsonb_build_object('route', p_route, 'issueId', p_issue_id));
  end if;
  return jsonb_build_object('thread', jsonb_build_object('id', v_thread.id, 'agentId', v_thread.agent_id),
    'message', case when v_message.id is not null then jsonb_build_object('id', v_message.id) end);
end
$$;
comment on function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'Opens a new thread addressed to an agent (not archived) for a member, optionally with a first USER message. Returns {thread: {id, agentId}, message: {id} | null}. svc admin open-chat and the in-app procedures call it.';

create or replace function app_private.chat_person_caller()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents reply with the chat tools; people post USER messages' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  if v_caller.user_id is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_hidden.require_scope('WRITE_COMMENTS');
  return v_caller;
end
$$;
comment on function app_private.chat_person_caller() is 'The in-app chat procedures act for a person: a key with its own user, no linked agent (403 person_key_required) and WRITE_COMMENTS.';

create or replace function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_open_thread(v_caller.workspace_id, p_agent_id, v_caller.user_id, p_title, p_issue_id,
                                       p_message, p_route)->'thread'->>'id')::uuid;
end
$$;
comment on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'A person opens a thread with an agent of their workspace (app_private.chat_open_thread); returns the thread id.';
grant execute on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) to svc_visitor;

create or replace function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_post_user_message(v_caller.workspace_id, p_thread_id, v_caller.user_id, p_body,
    jsonb_build_object('route', p_route, 'issueId', p_issue_id))).id;
end
$$;
comment on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) is 'A person posts a USER message (app_private.chat_post_user_message); the caller checked that the thread is theirs to see.';
grant execute on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) to svc_visitor;

create or replace function app_public.chat_open_thread(agent_id uuid, message text default NULL::text, title text default NULL::text, issue_id uuid default NULL::uuid, route text default NULL::text)
 returns app_public.chat_threads
 language plpgsql
as $$
declare
  v_issue uuid;
  v_thread uuid;
begin
  if chat_open_thread.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_open_thread.issue_id::text, 'issueId')).id;  -- visible to this key, else 404
  end if;
  v_thread := app_hidden.chat_open_thread(chat_open_thread.agent_id, chat_open_thread.title, v_issue,
                                          chat_open_thread.message, chat_open_thread.route);
  return (select t from app_public.chat_threads t where t.id = v_thread);
end
$$;
comment on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) is 'Opens a chat thread addressed to an agent, optionally with a first USER message (which is dispatched to the agent). issueId (visible to the key) and route are the context of the message. Needs a person''s key with WRITE_COMMENTS. Emits CHAT_MESSAGE_POSTED for the message.';
grant execute on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) to svc_visitor;

create or replace function app_public.chat_post_message(thread_id uuid, body text, route text default NULL::text, issue_id uuid default NULL::uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_issue uuid;
  v_message uuid;
begin
  if not exists (select 1 from app_public.chat_threads t where t.id = chat_post_message.thread_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if chat_post_message.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_post_message.issue_id::text, 'issueId')).id;
  end if;
  v_message := app_hidden.chat_post_user_message(chat_post_message.thread_id, chat_post_message.body,
                                                 chat_post_message.route, v_issue);
  return (select m from app_public.chat_messages m where m.id = v_message);
end
$$;
comment on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) is 'Posts a USER message in a thread the caller opened (or, for workspace admins, any thread); it is dispatched to the addressee agent (agent:dispatch:<agentId>). route and issueId are stored as the message''s context. Emits CHAT_MESSAGE_POSTED.';
grant execute on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) to svc_visitor;
--! EndIncluded chat/chat.sql
--! Included chat/policies.sql
-- Row-level security policies of the chat tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.chat_threads;
create policy owner_all on app_public.chat_threads for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.chat_threads is 'The schema owner (in-app procedures, svc admin open-chat) opens threads.';

drop policy if exists select_as_participant on app_public.chat_threads;
create policy select_as_participant on app_public.chat_threads for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND (created_by_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))) OR ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin))));
comment on policy select_as_participant on app_public.chat_threads is 'The addressee agent''s keys, the person who opened the thread (keys without an agent) and workspace admins.';

drop policy if exists owner_all on app_public.chat_messages;
create policy owner_all on app_public.chat_messages for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.chat_messages is 'The schema owner posts USER messages (in-app procedures).';

drop policy if exists select_in_visible_threads on app_public.chat_messages;
create policy select_in_visible_threads on app_public.chat_messages for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE (t.id = chat_messages.thread_id)))));
comment on policy select_in_visible_threads on app_public.chat_messages is 'Messages of the threads the caller sees.';

drop policy if exists insert_as_addressee on app_public.chat_messages;
create policy insert_as_addressee on app_public.chat_messages for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (role = 'AGENT'::text) AND (author_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE ((t.id = chat_messages.thread_id) AND (t.agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)))))));
comment on policy insert_as_addressee on app_public.chat_messages is 'Agents post AGENT replies only in threads addressed to them.';
--! EndIncluded chat/policies.sql
--! Included chat/triggers.sql
-- Triggers of the chat tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.chat_threads;
create trigger _100_updated_at before update on app_public.chat_threads for each row execute function app_hidden.tg__set_updated_at();
--! EndIncluded chat/triggers.sql
--! Included chat/tools/appendMessage.sql
-- The chat.appendMessage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a single-shot AGENT reply in a thread addressed to the calling agent; CHAT_MESSAGE_POSTED (chat-thread).
create or replace function app_tools.chat_append_message(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_message app_public.chat_messages := app_hidden.chat_post_agent_message(v_thread, args->>'body', args->>'sourceRunId', null);
begin
  return jsonb_build_object('messageId', v_message.id, 'threadId', v_thread.id);
end
$$;
grant execute on function app_tools.chat_append_message(args jsonb) to svc_visitor;
comment on function app_tools.chat_append_message(args jsonb) is 'chat.appendMessage: Reply in one piece: persists an AGENT message (CHAT_MESSAGE_POSTED). Per reply use this or the draft tools, never both. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/appendMessage.sql
--! Included chat/tools/startDraft.sql
-- The chat.startDraft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new draftId; publishes phase started on the realtime channel; nothing persisted.
create or replace function app_tools.chat_start_draft(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_draft uuid := gen_random_uuid();
begin
  perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'started', 'draftId', v_draft));
  return jsonb_build_object('draftId', v_draft, 'threadId', v_thread.id);
end
$$;
grant execute on function app_tools.chat_start_draft(args jsonb) to svc_visitor;
comment on function app_tools.chat_start_draft(args jsonb) is 'chat.startDraft: Start a streamed reply: returns a draftId and publishes phase started on the realtime channel (SSE only; nothing stored). Then appendDraftChunk… and finalizeDraft. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/startDraft.sql
--! Included chat/tools/appendDraftChunk.sql
-- The chat.appendDraftChunk tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- publishes phase delta {delta, seq} on the realtime channel; nothing persisted; seq is advisory.
create or replace function app_tools.chat_append_draft_chunk(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
begin
  perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'delta',
    'draftId', app_hidden.parse_uuid(args->>'draftId', 'draftId'), 'delta', args->>'delta', 'seq', (args->>'seq')::int));
  return jsonb_build_object('ok', true);
end
$$;
grant execute on function app_tools.chat_append_draft_chunk(args jsonb) to svc_visitor;
comment on function app_tools.chat_append_draft_chunk(args jsonb) is 'chat.appendDraftChunk: Publish the next piece of a streamed reply (phase delta {delta, seq}); ephemeral, never stored. seq is advisory: gaps and reordering are tolerated. About one chunk per 60-200 ms. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/appendDraftChunk.sql
--! Included chat/tools/finalizeDraft.sql
-- The chat.finalizeDraft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- persists the full reply (finalizedDraftId = draftId; CHAT_MESSAGE_POSTED chat-thread) and publishes phase
-- finalized. Finalizing the same draft again returns the stored message and writes nothing.
create or replace function app_tools.chat_finalize_draft(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_draft uuid := app_hidden.parse_uuid(args->>'draftId', 'draftId');
  v_message app_public.chat_messages;
begin
  select * into v_message from app_public.chat_messages m
  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id and m.finalized_draft_id = v_draft;
  if v_message.id is null then
    v_message := app_hidden.chat_post_agent_message(v_thread, args->>'body', args->>'sourceRunId', v_draft);
    perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'finalized', 'draftId', v_draft,
      'messageId', v_message.id));
  end if;
  return jsonb_build_object('messageId', v_message.id, 'threadId', v_thread.id, 'draftId', v_draft);
end
$$;
grant execute on function app_tools.chat_finalize_draft(args jsonb) to svc_visitor;
comment on function app_tools.chat_finalize_draft(args jsonb) is 'chat.finalizeDraft: Finish a streamed reply: persists the full body as an AGENT message (finalizedDraftId = draftId, CHAT_MESSAGE_POSTED) and publishes phase finalized. Finalizing the same draft again returns the same message. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/finalizeDraft.sql
--! Included chat/tools/getThread.sql
-- The chat.getThread tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the thread and its latest messages (default 50, max 200) in chronological order; before = a message id
-- (or the nextCursor, the oldest message returned) pages back.
create or replace function app_tools.chat_get_thread(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before_seq bigint;
  v_messages jsonb;
  v_count int;
begin
  if args->>'before' is not null then
    select m.seq into v_before_seq from app_public.chat_messages m
    where m.id = app_hidden.parse_uuid(args->>'before', 'before') and m.thread_id = v_thread.id;
    if v_before_seq is null then
      raise exception 'before must be a message of this thread' using errcode = 'SV400', column = 'before';
    end if;
  end if;
  select coalesce(jsonb_agg(app_hidden.chat_message_json(x.m) order by x.seq) filter (where x.rn <= v_limit), '[]'), count(*)
  into v_messages, v_count
  from (select m, m.seq, row_number() over (order by m.seq desc)
        from app_public.chat_messages m
        where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
          and (v_before_seq is null or m.seq < v_before_seq)
        order by m.seq desc limit v_limit + 1) x(m, seq, rn);
  return jsonb_build_object('thread', app_hidden.chat_thread_json(v_thread), 'messages', v_messages,
    'nextCursor', case when v_count > v_limit then v_messages->0->>'id' end);
end
$$;
grant execute on function app_tools.chat_get_thread(args jsonb) to svc_visitor;
comment on function app_tools.chat_get_thread(args jsonb) is 'chat.getThread: A thread and its latest messages (default 50, max 200), oldest first: id, role, body, contextSnapshot, sourceRunId, createdAt, finalizedDraftId. before = a message id (or nextCursor) pages back. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/getThread.sql
--! Included agent/tools/contextBundle.sql
-- The agent.context.bundle tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- everything an agent needs in one call. issueId: workspace, issue (full), description, comments (last 50,
-- oldest first), attachments, relations, currentRun, artifacts, completionContract, runProtocol,
-- externalResources. threadId: workspace, thread, messages (last 50, oldest first), agent, linkedIssues.
create or replace function app_tools.agent_context_bundle(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_workspace jsonb := (select app_hidden.workspace_json(w) from app_public.workspaces w
                        where w.id = app_hidden.current_workspace_id());
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_run app_public.agent_runs;
  v_get jsonb;
begin
  if (args->>'issueId' is null) = (args->>'threadId' is null) then
    perform app_hidden.raise_invalid(case when args->>'issueId' is null then 'issueId' else 'threadId' end,
      'give exactly one of issueId or threadId');
  end if;
  if args->>'issueId' is not null then
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    -- The caller's own run when it is an agent with one on this issue, else the issue's current run.
    if app_hidden.current_agent_id() is not null then
      v_run := app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id());
    end if;
    if v_run.id is null then
      v_run := app_hidden.current_run(v_issue.id);
    end if;
    v_get := app_tools.issues_get(jsonb_build_object('id', v_issue.id,
      'include', jsonb_build_object('attachments', true, 'relations', true)));
    return jsonb_build_object(
      'workspace', v_workspace,
      'issue', app_hidden.issue_json(v_issue, true),
      'description', v_issue.description,
      'comments', coalesce((select jsonb_agg(app_hidden.comment_json(c) order by c.created_at, c.id)
                            from (select * from app_public.comments c
                                  where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
                                  order by c.created_at desc, c.id desc limit 50) c), '[]'),
      'attachments', v_get->'attachments',
      'relations', v_get->'relations',
      'currentRun', case when v_run.id is not null then app_hidden.run_json(v_run) end,
      'artifacts', '[]'::jsonb,
      'completionContract', jsonb_build_object(
        'engagementMode', coalesce(v_run.engagement_mode, 'EXECUTE'),
        'expectedOutput', v_issue.expected_output,
        'verificationChecklist', v_issue.verification_checklist,
        'artifactRequired', v_issue.artifact_required,
        'requires', case coalesce(v_run.engagement_mode, 'EXECUTE')
          when 'EXECUTE' then to_jsonb(array_remove(array['summary',
            case when v_issue.artifact_required then 'producedArtifactIds' end,
            case when jsonb_array_length(v_issue.verification_checklist) > 0 then 'verificationResult' end], null))
          when 'RESEARCH' then '["summary", "confidence"]'::jsonb
          when 'REVIEW' then '["summary", "verdict"]'::jsonb
          else '["summary"]'::jsonb end),
      'runProtocol', app_hidden.run_protocol(v_run),
      'externalResources', '[]'::jsonb);
  end if;

  if app_hidden.current_agent_id() is not null then
    v_thread := app_hidden.chat_thread_for_agent(args->>'threadId');  -- addressee gating
  else
    select * into v_thread from app_public.chat_threads t
    where t.id = app_hidden.parse_uuid(args->>'threadId', 'threadId');
    if v_thread.id is null then
      raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
    end if;
  end if;
  return jsonb_build_object(
    'workspace', v_workspace,
    'thread', app_hidden.chat_thread_json(v_thread),
    'messages', coalesce((select jsonb_agg(app_hidden.chat_message_json(m) order by m.seq)
                          from (select * from app_public.chat_messages m
                                where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                order by m.seq desc limit 50) m), '[]'),
    'agent', (select app_hidden.agent_json(a) from app_public.agents a where a.id = v_thread.agent_id),
    'linkedIssues', coalesce((select jsonb_agg(app_hidden.issue_ref_json(i) order by i.number)
                              from app_public.issues i
                              where i.workspace_id = v_thread.workspace_id and i.deleted_at is null
                                and (i.id = v_thread.issue_id or i.id::text in (
                                  select m.context_snapshot->>'issueId' from app_public.chat_messages m
                                  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                    and m.context_snapshot->>'issueId' is not null))), '[]'));
end
$$;
grant execute on function app_tools.agent_context_bundle(args jsonb) to svc_visitor;
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts, completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50), agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql

--! split: 20-orchestration.sql
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
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  select jsonb_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at)
  || case when p_with_actor then jsonb_build_object('actor', coalesce(
       case when a.id is not null then jsonb_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
     else '{}'::jsonb end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)
$$;
comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included.';
--! EndIncluded events/record.sql
--! Included events/policies.sql
-- Row-level security policies of the events tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.activity_events;
create policy owner_all on app_public.activity_events for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.activity_events is 'Only the owner writes events (through app_private.record_event).';

drop policy if exists select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND
CASE subject_type
    WHEN 'issue'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.issues i
      WHERE (i.id = activity_events.subject_id))))
    WHEN 'comment'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.comments c
      WHERE (c.id = activity_events.subject_id))))
    WHEN 'project'::text THEN ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (subject_id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))
    WHEN 'initiative'::text THEN ((( SELECT cardinality(app_hidden.narrowed_initiative_ids()) AS cardinality) = 0) OR (subject_id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))
    WHEN 'goal'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.goals g
      WHERE (g.id = activity_events.subject_id))))
    WHEN 'execution-plan'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.execution_plans p
      WHERE (p.id = activity_events.subject_id))))
    WHEN 'execution-step'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.execution_steps s
      WHERE (s.id = activity_events.subject_id))))
    WHEN 'review-gate'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.review_gates rg
      WHERE (rg.id = activity_events.subject_id))))
    WHEN 'action-request'::text THEN (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
       FROM app_public.action_requests ar
      WHERE (ar.id = activity_events.subject_id))))
    ELSE true
END));
comment on policy select_in_workspace on app_public.activity_events is 'Events of the caller''s workspace; a narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, and goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue).';
--! EndIncluded events/policies.sql
--! Included orchestration/shapes.sql
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
--! EndIncluded orchestration/shapes.sql
--! Included orchestration/crews.sql
-- orchestration: finding crews, members and review gates.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_crew(p_id text, p_field text default 'id'::text)
 returns app_public.agent_crews
 language plpgsql
 stable
as $$
declare v app_public.agent_crews;
begin
  select * into v from app_public.agent_crews
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew(p_id text, p_field text) is 'A crew of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_crew_member(p_id text, p_field text default 'memberId'::text)
 returns app_public.agent_crew_members
 language plpgsql
 stable
as $$
declare v app_public.agent_crew_members;
begin
  select * into v from app_public.agent_crew_members
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew member not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew_member(p_id text, p_field text) is 'A crew membership of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew_member(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.crew_agent(p_agent_id text, p_field text)
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
comment on function app_hidden.crew_agent(p_agent_id text, p_field text) is 'A live agent for a crew, planner, judge or step (404 unknown, 400 agent_archived).';
grant execute on function app_hidden.crew_agent(p_agent_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_gate(p_id text, p_field text default 'id'::text)
 returns app_public.review_gates
 language plpgsql
 stable
as $$
declare v app_public.review_gates;
begin
  select * into v from app_public.review_gates
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Review gate not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_gate(p_id text, p_field text) is 'A review gate the key can see (through its plan and goal), else 404 naming the field.';
grant execute on function app_hidden.find_gate(p_id text, p_field text) to svc_visitor;
--! EndIncluded orchestration/crews.sql
--! Included orchestration/machine.sql
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
  return v;
end
$$;
comment on function app_hidden.step_move(p_step app_public.execution_steps, p_to text) is 'The step machine (spec 3.9): TODO → READY → RUNNING → REVIEW → DONE, with BLOCKED and CANCELED; READY only when every dependency is DONE (409 dependencies_not_done); else 409 illegal_transition. EXECUTION_STEP_STATUS_CHANGED by trigger.';
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
--! EndIncluded orchestration/machine.sql
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
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step. A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id)
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
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE): its agent (assigned, else the crew member in its role, default WORKER) gets a run on the goal''s issue (reused on retry) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
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
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0-1}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

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
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED and its goal ACHIEVED. Returns the ids made READY.';
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
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.workspace_id = v_plan.workspace_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
    and r.step_id in (select s.id from app_public.execution_steps s where s.plan_id = v_plan.id);
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
    perform app_hidden.raise_invalid(p_field || '.dependsOnStepIndexes',
      format('the dependencies make a cycle (steps %s)', (select string_agg(i::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_agent := (app_hidden.find_agent(v_step->>'assignedAgentId', null, format('%s.%s.assignedAgentId', p_field, v_i))).id;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. Steps start TODO.';
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
--! Included orchestration/policies.sql
-- Row-level security policies of the orchestration tables. A goal tied to an issue follows that issue's
-- narrowing; a narrowed key sees no goal without an issue. Plans, steps and gates follow their goal.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.goals;
create policy owner_all on app_public.goals for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.goals is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_goals on app_public.goals;
create policy select_visible_goals on app_public.goals for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id)))))));
comment on policy select_visible_goals on app_public.goals is 'Goals of the workspace; a narrowed key sees only goals tied to issues it can see.';

drop policy if exists insert_visible_goals on app_public.goals;
create policy insert_visible_goals on app_public.goals for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id)))))));
comment on policy insert_visible_goals on app_public.goals is 'Any key may create goals it can see (a narrowed key: only tied to an issue it can see).';

drop policy if exists update_visible_goals on app_public.goals;
create policy update_visible_goals on app_public.goals for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id)))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id)))))));
comment on policy update_visible_goals on app_public.goals is 'Goal moves by keys that can see the goal (through the loop functions).';

drop policy if exists owner_all on app_public.execution_plans;
create policy owner_all on app_public.execution_plans for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.execution_plans is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_plans on app_public.execution_plans;
create policy select_visible_plans on app_public.execution_plans for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id))))));
comment on policy select_visible_plans on app_public.execution_plans is 'Plans of goals the key can see.';

drop policy if exists insert_visible_plans on app_public.execution_plans;
create policy insert_visible_plans on app_public.execution_plans for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id))))));
comment on policy insert_visible_plans on app_public.execution_plans is 'Plans for goals the key can see.';

drop policy if exists update_visible_plans on app_public.execution_plans;
create policy update_visible_plans on app_public.execution_plans for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id))))));
comment on policy update_visible_plans on app_public.execution_plans is 'Plan moves on goals the key can see.';

drop policy if exists owner_all on app_public.execution_steps;
create policy owner_all on app_public.execution_steps for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.execution_steps is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_steps on app_public.execution_steps;
create policy select_visible_steps on app_public.execution_steps for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy select_visible_steps on app_public.execution_steps is 'Steps of plans the key can see.';

drop policy if exists insert_visible_steps on app_public.execution_steps;
create policy insert_visible_steps on app_public.execution_steps for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy insert_visible_steps on app_public.execution_steps is 'Steps for plans the key can see.';

drop policy if exists update_visible_steps on app_public.execution_steps;
create policy update_visible_steps on app_public.execution_steps for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy update_visible_steps on app_public.execution_steps is 'Step moves on plans the key can see.';

drop policy if exists owner_all on app_public.review_gates;
create policy owner_all on app_public.review_gates for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.review_gates is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_gates on app_public.review_gates;
create policy select_visible_gates on app_public.review_gates for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id))))));
comment on policy select_visible_gates on app_public.review_gates is 'Review gates of plans the key can see.';

drop policy if exists insert_visible_gates on app_public.review_gates;
create policy insert_visible_gates on app_public.review_gates for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id))))));
comment on policy insert_visible_gates on app_public.review_gates is 'Gates on plans the key can see.';

drop policy if exists update_visible_gates on app_public.review_gates;
create policy update_visible_gates on app_public.review_gates for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id))))));
comment on policy update_visible_gates on app_public.review_gates is 'Resolving gates on plans the key can see.';

drop policy if exists owner_all on app_public.agent_crews;
create policy owner_all on app_public.agent_crews for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agent_crews is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_in_workspace on app_public.agent_crews;
create policy select_in_workspace on app_public.agent_crews for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.agent_crews is 'Crews are workspace configuration: every key of the workspace sees them.';

drop policy if exists insert_with_admin_scope on app_public.agent_crews;
create policy insert_with_admin_scope on app_public.agent_crews for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.agent_crews is 'Only ADMIN-scoped keys create crews.';

drop policy if exists update_with_admin_scope on app_public.agent_crews;
create policy update_with_admin_scope on app_public.agent_crews for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy update_with_admin_scope on app_public.agent_crews is 'Only ADMIN-scoped keys change or archive crews.';

drop policy if exists owner_all on app_public.agent_crew_members;
create policy owner_all on app_public.agent_crew_members for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agent_crew_members is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_in_workspace on app_public.agent_crew_members;
create policy select_in_workspace on app_public.agent_crew_members for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.agent_crew_members is 'Crew members are visible to every key of the workspace.';

drop policy if exists insert_with_admin_scope on app_public.agent_crew_members;
create policy insert_with_admin_scope on app_public.agent_crew_members for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys add members.';

drop policy if exists update_with_admin_scope on app_public.agent_crew_members;
create policy update_with_admin_scope on app_public.agent_crew_members for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy update_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys change member roles.';

drop policy if exists delete_with_admin_scope on app_public.agent_crew_members;
create policy delete_with_admin_scope on app_public.agent_crew_members for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy delete_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys remove members.';
--! EndIncluded orchestration/policies.sql
--! Included orchestration/triggers.sql
-- Triggers of the orchestration tables (goals, plans, steps, gates, crews) and the budget stop on agent runs.
-- Every status change records its ActivityEvent here, in the same transaction.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_goals__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event uuid;
  v_payload jsonb;
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'GOAL_CREATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'issueId', new.issue_id, 'crewId', new.crew_id, 'status', new.status,
      'maxTotalCostUsd', new.max_total_cost_usd, 'maxWallTimeMinutes', new.max_wall_time_minutes));
  elsif new.status is distinct from old.status then
    v_payload := app_hidden.goal_status_payload(new, old.status, new.status);
    v_event := app_private.record_event(new.workspace_id, 'GOAL_STATUS_CHANGED', 'goal', new.id, v_payload);
    -- Planning starts: the planner of the new attempt is dispatched.
    if new.status = 'PLANNING' and v_payload->>'plannerAgentId' is not null then
      perform app_private.enqueue_agent_dispatch(v_event, (v_payload->>'plannerAgentId')::uuid);
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_goals__events() is 'GOAL_CREATED on insert; GOAL_STATUS_CHANGED {from, to, planId, plannerAgentId} on every status move, dispatched to the planner when planning starts.';

create or replace function app_private.tg_execution_plans__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_PLAN_STATUS_CHANGED', 'execution-plan', new.id, jsonb_build_object(
      'planId', new.id, 'goalId', new.goal_id, 'attempt', new.attempt,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_plans__events() is 'EXECUTION_PLAN_STATUS_CHANGED {planId, goalId, attempt, from, to} when a plan is created (from null) and on every status move.';

create or replace function app_private.tg_execution_steps__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_STEP_STATUS_CHANGED', 'execution-step', new.id, jsonb_build_object(
      'planId', new.plan_id, 'stepId', new.id, 'title', new.title,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status, 'retryCount', new.retry_count));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_steps__events() is 'EXECUTION_STEP_STATUS_CHANGED {planId, stepId, from, to, retryCount} when a step is added (from null) and on every status move (READY also writes EXECUTION_STEP_READY, judging EXECUTION_STEP_JUDGED).';

create or replace function app_private.tg_review_gates__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_goal uuid := (select p.goal_id from app_public.execution_plans p where p.id = new.plan_id);
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_OPENED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'title', new.title, 'details', new.details));
  elsif new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_RESOLVED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'from', old.status, 'to', new.status, 'note', new.resolution_note));
  end if;
  return null;
end
$$;
comment on function app_private.tg_review_gates__events() is 'REVIEW_GATE_OPENED when a gate opens, REVIEW_GATE_RESOLVED {from, to, note} when it is approved, rejected or canceled.';

create or replace function app_private.tg_agent_crews__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CREW_CREATED', 'crew', new.id,
      jsonb_build_object('crewId', new.id, 'name', new.name, 'maxParallel', new.max_parallel));
    return null;
  end if;
  v_changes := array_remove(array[
    case when new.name is distinct from old.name then 'name' end,
    case when new.description is distinct from old.description then 'description' end,
    case when new.max_parallel is distinct from old.max_parallel then 'maxParallel' end,
    case when new.archived_at is distinct from old.archived_at then 'archived' end], null);
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(new.workspace_id, 'CREW_UPDATED', 'crew', new.id, jsonb_build_object(
      'crewId', new.id, 'name', new.name, 'changes', to_jsonb(v_changes), 'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_agent_crews__events() is 'CREW_CREATED on insert; CREW_UPDATED {changes} when name, description, maxParallel or the archived state change.';

create or replace function app_private.tg_agent_crew_members__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.agent_crew_members := case when tg_op = 'DELETE' then old else new end;
begin
  if tg_op = 'INSERT' and exists (select 1 from app_public.agent_crews c where c.id = new.crew_id and c.created_at = now()) then
    return null;  -- members given to agentCrews.create belong to its CREW_CREATED
  end if;
  perform app_private.record_event(v_row.workspace_id, 'CREW_UPDATED', 'crew', v_row.crew_id, jsonb_build_object(
    'crewId', v_row.crew_id, 'changes', jsonb_build_array('members'), 'memberId', v_row.id, 'agentId', v_row.agent_id,
    'role', v_row.role, 'previousRole', case when tg_op = 'UPDATE' then old.role end,
    'action', case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'role_changed' end));
  return null;
end
$$;
comment on function app_private.tg_agent_crew_members__events() is 'CREW_UPDATED {changes: [members], action added|removed|role_changed} for member changes of an existing crew.';

create or replace function app_private.tg_agent_runs__plan_budget()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_total numeric;
  v_started timestamptz;
  v_reason text;
  v_gate app_public.review_gates;
begin
  select p.* into v_plan from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
  where s.id = new.step_id for update of p;
  if v_plan.id is null or v_plan.status <> 'RUNNING' then
    return null;
  end if;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if v_goal.max_total_cost_usd is null and v_goal.max_wall_time_minutes is null then
    return null;
  end if;
  v_total := app_hidden.goal_cost(v_goal.id);
  v_started := coalesce(v_goal.started_at, v_plan.started_at);
  -- Each cap stops a plan once: approving the gate lets that attempt continue past it.
  if v_goal.max_total_cost_usd is not null and v_total > v_goal.max_total_cost_usd
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_COST') then
    v_reason := 'cost';
  elsif v_goal.max_wall_time_minutes is not null and now() > v_started + make_interval(mins => v_goal.max_wall_time_minutes)
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_WALL_TIME') then
    v_reason := 'wall_time';
  end if;
  if v_reason is null then
    return null;
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'BLOCKED');
  v_gate := app_hidden.open_gate(v_plan, null, case v_reason when 'cost' then 'BUDGET_COST' else 'BUDGET_WALL_TIME' end,
    case v_reason when 'cost' then format('Budget exceeded: $%s spent of $%s', v_total, v_goal.max_total_cost_usd)
                  else format('Wall time exceeded: running since %s, cap %s minutes', v_started, v_goal.max_wall_time_minutes) end,
    jsonb_build_object('totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
                       'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'startedAt', v_started, 'runId', new.id));
  perform app_private.record_event(v_plan.workspace_id, 'PLAN_BUDGET_EXCEEDED', 'execution-plan', v_plan.id, jsonb_build_object(
    'planId', v_plan.id, 'goalId', v_goal.id, 'totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
    'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'reason', v_reason, 'gateId', v_gate.id, 'runId', new.id,
    'elapsedMinutes', floor(extract(epoch from now() - v_started) / 60)));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__plan_budget() is 'Budget stop (spec 3.8): when a step run''s usage is updated (runs.recordUsage or any writer) and its RUNNING plan''s goal is past maxTotalCostUsd (sum of its step runs) or maxWallTimeMinutes (since the goal started), the plan becomes BLOCKED, a review gate opens and PLAN_BUDGET_EXCEEDED is written. Once per cap per plan.';

drop trigger if exists _100_updated_at on app_public.goals;
create trigger _100_updated_at before update on app_public.goals for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.goals;
create trigger _800_events after insert or update of status on app_public.goals for each row execute function app_private.tg_goals__events();

drop trigger if exists _100_updated_at on app_public.execution_plans;
create trigger _100_updated_at before update on app_public.execution_plans for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_plans;
create trigger _800_events after insert or update of status on app_public.execution_plans for each row execute function app_private.tg_execution_plans__events();

drop trigger if exists _100_updated_at on app_public.execution_steps;
create trigger _100_updated_at before update on app_public.execution_steps for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_steps;
create trigger _800_events after insert or update of status on app_public.execution_steps for each row execute function app_private.tg_execution_steps__events();

drop trigger if exists _100_updated_at on app_public.review_gates;
create trigger _100_updated_at before update on app_public.review_gates for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.review_gates;
create trigger _800_events after insert or update of status on app_public.review_gates for each row execute function app_private.tg_review_gates__events();

drop trigger if exists _100_updated_at on app_public.agent_crews;
create trigger _100_updated_at before update on app_public.agent_crews for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.agent_crews;
create trigger _800_events after insert or update on app_public.agent_crews for each row execute function app_private.tg_agent_crews__events();
drop trigger if exists _800_events on app_public.agent_crew_members;
create trigger _800_events after insert or update of role or delete on app_public.agent_crew_members for each row execute function app_private.tg_agent_crew_members__events();

drop trigger if exists _700_plan_budget on app_public.agent_runs;
create trigger _700_plan_budget after update of cost_usd, tokens_in, tokens_out, tokens_cached, last_event_at on app_public.agent_runs
  for each row when (new.step_id is not null) execute function app_private.tg_agent_runs__plan_budget();
--! EndIncluded orchestration/triggers.sql
--! Included actionRequests/shapes.sql
-- actionRequests: JSON shapes and poll arithmetic (spec 2.13, 4.11).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.action_request_json(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'title', r.title, 'body', r.body, 'severity', r.severity, 'kind', r.kind, 'payload', r.payload,
    'assignedUserId', r.assigned_user_id, 'assignedAgentId', r.assigned_agent_id, 'issueId', r.issue_id,
    'commentId', r.comment_id, 'dueAt', r.due_at, 'sourceType', r.source_type, 'sourceId', r.source_id,
    'status', r.status, 'options', coalesce(r.options, '[]'::jsonb), 'isPoll', r.options is not null,
    'votingClosedAt', r.voting_closed_at, 'winningOptionKey', r.winning_option_key,
    'requestedByUserId', r.requested_by_user_id, 'requestedByAgentId', r.requested_by_agent_id,
    'resolvedAt', r.resolved_at, 'resolvedByUserId', r.resolved_by_user_id, 'resolvedByAgentId', r.resolved_by_agent_id,
    'dispatchResult', r.dispatch_result, 'createdAt', r.created_at, 'updatedAt', r.updated_at)
$$;
comment on function app_hidden.action_request_json(r app_public.action_requests) is 'ActionRequest (spec 2.13) with isPoll, requester, resolution and the result of its bound dispatch.';
grant execute on function app_hidden.action_request_json(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.poll_tally(p_request_id uuid, p_options jsonb)
 returns table(option_key text, label text, ord bigint, votes bigint, first_vote_at timestamp with time zone)
 language sql
 stable
as $$
  select o.opt->>'key', o.opt->>'label', o.ord,
         (select count(*) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key'),
         (select min(v.voted_at) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key')
  from jsonb_array_elements(coalesce(p_options, '[]')) with ordinality o(opt, ord)
$$;
comment on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) is 'Per option of a poll: its votes and the time of its earliest current vote, in options[] order.';
grant execute on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) to svc_visitor;

create or replace function app_hidden.poll_winner(p_request_id uuid, p_options jsonb)
 returns text
 language sql
 stable
as $$
  select t.option_key from app_hidden.poll_tally(p_request_id, p_options) t
  order by t.votes desc, t.first_vote_at asc nulls last, t.ord asc
  limit 1
$$;
comment on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) is 'The winner of a poll (spec 4.11): most votes; ties go to the option voted for first; with no votes at all, the first option.';
grant execute on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) to svc_visitor;
--! EndIncluded actionRequests/shapes.sql
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
      resolved_by_agent_id = case when v_closing then app_hidden.current_agent_id() end
  where id = p_request.id
  returning * into v;  -- ISSUE_UPDATED (action-request, change status) by trigger
  return v;
end
$$;
comment on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) is 'The request machine (shared decisions): OPEN → RESOLVED | DISMISSED | SNOOZED | REJECTED | SUPERSEDED, SNOOZED → OPEN or any of those; closed states are terminal (409 illegal_transition).';
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
  select (p_request.assigned_agent_id is not null and p_request.assigned_agent_id = app_hidden.current_agent_id())
      or (p_request.assigned_user_id is not null and app_hidden.current_agent_id() is null
          and p_request.assigned_user_id = app_hidden.current_user_id())
      or (p_request.issue_id is not null and exists (
            select 1 from app_public.issue_watchers w
            where w.issue_id = p_request.issue_id
              and case when app_hidden.current_agent_id() is not null then w.agent_id = app_hidden.current_agent_id()
                       else w.user_id = app_hidden.current_user_id() end))
      or app_hidden.caller_may_moderate()
$$;
comment on function app_hidden.action_request_may_decide(p_request app_public.action_requests) is 'accept/decline gate (spec 5.9): the assignee (its agent, or its user acting as a person), a watcher of the request''s issue (as the key watches: agent or user), a workspace OWNER/ADMIN acting as a person, or an ADMIN-scoped key.';
grant execute on function app_hidden.action_request_may_decide(p_request app_public.action_requests) to svc_visitor;

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
    if (app_hidden.find_issue(v_payload->>'duplicateOfIssueId', p_field || 'payload.duplicateOfIssueId')).id = p_issue_id then
      perform app_hidden.raise_invalid(p_field || 'payload.duplicateOfIssueId', 'an issue cannot duplicate itself');
    end if;
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
    v_agent := (app_hidden.find_agent(args->>'assignedAgentId', null, p_field || 'assignedAgentId')).id;
  end if;
  if args->'options' is not null and jsonb_typeof(args->'options') = 'array' then
    select array_agg(o->>'key') into v_keys from jsonb_array_elements(args->'options') o;
    if cardinality(v_keys) <> (select count(distinct k) from unnest(v_keys) k) then
      perform app_hidden.raise_invalid(p_field || 'options', 'option keys must be unique');
    end if;
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
      'labelIds', (select coalesce(jsonb_agg(il.label_id), '[]') from app_public.issue_labels il where il.issue_id = v_issue.id));
  elsif p_request.kind = 'ASSIGN_AGENT' then
    v_agent := app_hidden.find_agent(v_payload->>'agentId', null, 'payload.agentId');
    if v_agent.archived_at is not null then
      raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'payload.agentId', detail = 'agent_archived';
    end if;
    if not (v_issue.assigned_agent_id = v_agent.id and exists (
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

create or replace function app_hidden.action_request_for_decision(p_id text, p_verb text)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests := app_hidden.find_action_request(p_id, 'id', true);
begin
  if v.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v.status, p_verb using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not app_hidden.action_request_may_decide(v) then
    raise exception 'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decide this request'
      using errcode = 'SV403', detail = 'not_allowed';
  end if;
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise) and decidable by the caller (403 not_allowed otherwise).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
--! Included actionRequests/policies.sql
-- Row-level security policies of action requests and votes. A request tied to an issue follows that issue's
-- narrowing; a narrowed key also sees requests assigned to its agent (or, without an issue, to its user).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.action_requests;
create policy owner_all on app_public.action_requests for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.action_requests is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_requests on app_public.action_requests;
create policy select_visible_requests on app_public.action_requests for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR (assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (issue_id IS NULL)))));
comment on policy select_visible_requests on app_public.action_requests is 'Requests of the workspace; a narrowed key sees those on issues it can see and those assigned to it.';

drop policy if exists insert_visible_requests on app_public.action_requests;
create policy insert_visible_requests on app_public.action_requests for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))))));
comment on policy insert_visible_requests on app_public.action_requests is 'Requests on issues the key can see (a narrowed key: only on an issue).';

drop policy if exists update_visible_requests on app_public.action_requests;
create policy update_visible_requests on app_public.action_requests for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR (assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (issue_id IS NULL)))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR (assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (issue_id IS NULL)))));
comment on policy update_visible_requests on app_public.action_requests is 'Request moves, votes closing and accept/decline by keys that can see the request.';

drop policy if exists owner_all on app_public.action_request_votes;
create policy owner_all on app_public.action_request_votes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.action_request_votes is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_votes on app_public.action_request_votes;
create policy select_visible_votes on app_public.action_request_votes for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy select_visible_votes on app_public.action_request_votes is 'Votes on requests the key can see (counts are public to those who see the poll).';

drop policy if exists insert_own_vote on app_public.action_request_votes;
create policy insert_own_vote on app_public.action_request_votes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy insert_own_vote on app_public.action_request_votes is 'A user casts only their own vote.';

drop policy if exists update_own_vote on app_public.action_request_votes;
create policy update_own_vote on app_public.action_request_votes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy update_own_vote on app_public.action_request_votes is 'A user changes only their own vote.';
--! EndIncluded actionRequests/policies.sql
--! Included actionRequests/triggers.sql
-- Triggers of action requests: every status change records ISSUE_UPDATED with subjectType action-request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_action_requests__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'ISSUE_UPDATED', 'action-request', new.id, jsonb_build_object(
      'actionRequestId', new.id, 'issueId', new.issue_id, 'change', 'created', 'status', new.status, 'kind', new.kind,
      'title', new.title, 'isPoll', new.options is not null, 'sourceType', new.source_type, 'sourceId', new.source_id,
      'assignedUserId', new.assigned_user_id, 'assignedAgentId', new.assigned_agent_id));
  elsif new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'ISSUE_UPDATED', 'action-request', new.id, jsonb_build_object(
      'actionRequestId', new.id, 'issueId', new.issue_id, 'change', 'status', 'from', old.status, 'to', new.status,
      'kind', new.kind));
  end if;
  return null;
end
$$;
comment on function app_private.tg_action_requests__events() is 'ISSUE_UPDATED (subjectType action-request) when a request is created (change created) and on every status move (change status, from, to). Votes and closing write their own (spec 6.4 payloads).';

drop trigger if exists _100_updated_at on app_public.action_requests;
create trigger _100_updated_at before update on app_public.action_requests for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.action_requests;
create trigger _800_events after insert or update of status on app_public.action_requests for each row execute function app_private.tg_action_requests__events();
--! EndIncluded actionRequests/triggers.sql
--! Included actionRequests/tools/list.sql
-- The actionRequests.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- requests the key can see, newest first, keyset-paged; filters status, assignee, issue, source.
create or replace function app_tools.action_requests_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
  v_issue uuid;
begin
  v_issue := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'action_requests') k;
  end if;
  with page as (
    select a as r from app_public.action_requests a
    where a.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or a.status = args->>'status')
      and (args->>'assignedAgentId' is null or a.assigned_agent_id = app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId'))
      and (args->>'assignedUserId' is null or a.assigned_user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId'))
      and (v_issue is null or a.issue_id = v_issue)
      and (args->>'sourceType' is null or a.source_type = args->>'sourceType')
      and (args->>'sourceId' is null or a.source_id = app_hidden.parse_uuid(args->>'sourceId', 'sourceId'))
      and (v_after_ts is null or (a.created_at, a.id) < (v_after_ts, v_after_id))
    order by a.created_at desc, a.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.action_request_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('action_requests', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.action_requests_list(args jsonb) is 'actionRequests.list: Action requests (recommendation cards and polls), newest first, paged ({items, nextCursor}). Filters: status, assignedAgentId, assignedUserId, issueId, sourceType, sourceId. A narrowed key sees those on issues it can see and those assigned to it.';
grant execute on function app_tools.action_requests_list(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/list.sql
--! Included actionRequests/tools/create.sql
-- The actionRequests.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- creates a request (options[] makes it a poll); the caller is the requester. ISSUE_UPDATED (action-request) by trigger.
create or replace function app_tools.action_requests_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue uuid;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return app_hidden.action_request_json(app_hidden.action_request_insert(args, v_issue, null));
end
$$;
comment on function app_tools.action_requests_create(args jsonb) is 'actionRequests.create: Ask a person or agent to decide: a recommendation card whose kind binds what accept runs (TRANSITION {statusId}, SET_LABELS {add?, remove?}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId?}, or FREE_FORM). options[] (2-20 {key, label, description?}) make it a poll. The caller is the requester.';
grant execute on function app_tools.action_requests_create(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/create.sql
--! Included actionRequests/tools/transition.sql
-- The actionRequests.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a request along its machine (409 for an illegal move).
create or replace function app_tools.action_requests_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.action_request_json(app_hidden.action_request_move(app_hidden.find_action_request(args->>'id', 'id', true), args->>'status'));
end
$$;
comment on function app_tools.action_requests_transition(args jsonb) is 'actionRequests.transition: Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Closed requests do not move (409).';
grant execute on function app_tools.action_requests_transition(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/transition.sql
--! Included actionRequests/tools/accept.sql
-- The actionRequests.accept tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- runs the bound dispatch (same SQL, authorization and run-mode gating as the direct tool) and resolves, in one transaction.
create or replace function app_tools.action_requests_accept(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.action_request_for_decision(args->>'id', 'accepted');
  v_result jsonb;
begin
  -- Resolved first, so activating a plan from its approval request supersedes only the other open requests.
  v_req := app_hidden.action_request_move(v_req, 'RESOLVED');
  v_result := app_hidden.action_request_dispatch(v_req);
  update app_public.action_requests set dispatch_result = v_result where id = v_req.id returning * into v_req;
  return app_hidden.action_request_json(v_req);
end
$$;
comment on function app_tools.action_requests_accept(args jsonb) is 'actionRequests.accept: Accept a request: runs its bound dispatch (transition, labels, agent assignment, close as duplicate; a plan approval activates the plan) in the same transaction, with the same authorization and run-mode gating as the direct tool, and resolves it. Only the assignee, a watcher of its issue, a workspace OWNER/ADMIN or an ADMIN key.';
grant execute on function app_tools.action_requests_accept(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/accept.sql
--! Included actionRequests/tools/decline.sql
-- The actionRequests.decline tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rejects without dispatching; same permission gate as accept.
create or replace function app_tools.action_requests_decline(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.action_request_for_decision(args->>'id', 'declined');
begin
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, 'REJECTED'));
end
$$;
comment on function app_tools.action_requests_decline(args jsonb) is 'actionRequests.decline: Decline a request: REJECTED, nothing dispatched. Same permission as accept.';
grant execute on function app_tools.action_requests_decline(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/decline.sql
--! Included actionRequests/tools/vote.sql
-- The actionRequests.vote tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- records or overwrites the callers vote; ISSUE_UPDATED (action-request) with optionKey, previousOptionKey, changed.
create or replace function app_tools.action_requests_vote(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_user uuid := app_hidden.require_user();
  v_prev text;
  v_id uuid;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is closed' using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if not exists (select 1 from jsonb_array_elements(v_req.options) o where o->>'key' = args->>'optionKey') then
    perform app_hidden.raise_invalid('optionKey', format('unknown option %s (options: %s)', args->>'optionKey',
      (select string_agg(o->>'key', ', ') from jsonb_array_elements(v_req.options) o)));
  end if;
  select v.option_key into v_prev from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  insert into app_public.action_request_votes (workspace_id, request_id, user_id, option_key)
  values (v_req.workspace_id, v_req.id, v_user, args->>'optionKey')
  on conflict (request_id, user_id) do update
    set option_key = excluded.option_key, voted_at = now()
    where action_request_votes.option_key is distinct from excluded.option_key
  returning id into v_id;
  if v_id is null then
    select v.id into v_id from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  end if;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'vote', 'optionKey', args->>'optionKey', 'previousOptionKey', v_prev,
    'changed', v_prev is distinct from args->>'optionKey', 'issueId', v_req.issue_id));
  return jsonb_build_object('id', v_id, 'actionRequestId', v_req.id, 'optionKey', args->>'optionKey',
                            'previousOptionKey', v_prev, 'changed', v_prev is distinct from args->>'optionKey');
end
$$;
comment on function app_tools.action_requests_vote(args jsonb) is 'actionRequests.vote: Vote on a poll: one vote per user, re-voting overwrites until voting is closed (then 400). Returns {id, optionKey, changed}; writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_vote(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/vote.sql
--! Included actionRequests/tools/results.sql
-- The actionRequests.results tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- per option count and firstVoteAt, total, the callers vote, the winner once closed (and the current leader).
create or replace function app_tools.action_requests_results(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id');
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  return jsonb_build_object(
    'id', v_req.id,
    'options', (select coalesce(jsonb_agg(jsonb_build_object('optionKey', t.option_key, 'label', t.label, 'count', t.votes,
                                                             'firstVoteAt', t.first_vote_at) order by t.ord), '[]')
                from app_hidden.poll_tally(v_req.id, v_req.options) t),
    'total', (select count(*) from app_public.action_request_votes v where v.request_id = v_req.id),
    'myVote', (select v.option_key from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = app_hidden.current_user_id()),
    'winningOptionKey', v_req.winning_option_key,
    'leadingOptionKey', app_hidden.poll_winner(v_req.id, v_req.options),
    'votingClosedAt', v_req.voting_closed_at);
end
$$;
comment on function app_tools.action_requests_results(args jsonb) is 'actionRequests.results: A poll''s results: per option {optionKey, label, count, firstVoteAt}, total, myVote, winningOptionKey (set when voting is closed), leadingOptionKey (by the same rule) and votingClosedAt.';
grant execute on function app_tools.action_requests_results(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/results.sql
--! Included actionRequests/tools/closeVoting.sql
-- The actionRequests.closeVoting tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- requester only; sets winningOptionKey (most votes, then earliest first vote, then first option); the request stays open. ISSUE_UPDATED (action-request).
create or replace function app_tools.action_requests_close_voting(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_total bigint;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  if not (case when v_req.requested_by_agent_id is not null then v_req.requested_by_agent_id = app_hidden.current_agent_id()
               when v_req.requested_by_user_id is not null then app_hidden.current_agent_id() is null and v_req.requested_by_user_id = app_hidden.current_user_id()
               else app_hidden.caller_may_moderate() end) then
    raise exception 'Only the requester may close voting' using errcode = 'SV403', detail = 'not_requester';
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is already closed' using errcode = 'SV409', detail = 'voting_closed';
  end if;
  v_total := (select count(*) from app_public.action_request_votes v where v.request_id = v_req.id);
  update app_public.action_requests set voting_closed_at = now(),
    winning_option_key = case when v_total > 0 then app_hidden.poll_winner(v_req.id, v_req.options) else v_req.options->0->>'key' end
  where id = v_req.id returning * into v_req;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'close_voting', 'winningOptionKey', case when v_total > 0 then v_req.winning_option_key end,
    'total', v_total, 'issueId', v_req.issue_id));
  return jsonb_build_object('id', v_req.id, 'winningOptionKey', v_req.winning_option_key, 'total', v_total,
                            'votingClosedAt', v_req.voting_closed_at, 'status', v_req.status);
end
$$;
comment on function app_tools.action_requests_close_voting(args jsonb) is 'actionRequests.closeVoting: Close a poll (the requester only): the winner has the most votes, ties go to the option voted for first, no votes at all to the first option. The request itself stays open. Writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_close_voting(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/closeVoting.sql
--! Included comments/tools/create.sql
-- The comments.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a comment on a visible issue; author = the key's user, authoringAgent = its linked agent (whose open run it
-- is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode. With actionRequest,
-- its recommendation card (a poll when it has options) is created in the same transaction (sourceType comment).
create or replace function app_tools.comments_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_request app_public.action_requests;
begin
  if v_agent is not null then
    select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
    if v_run.id is not null then
      update app_public.agent_runs set last_event_at = now() where id = v_run.id;
    end if;
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, args->>'body', 'COMMENT', args->>'confidence',
          app_hidden.current_user_id(), v_agent, v_run.id)
  returning * into v_comment;
  if args->'actionRequest' is not null and jsonb_typeof(args->'actionRequest') = 'object' then
    v_request := app_hidden.action_request_insert(
      (args->'actionRequest') || jsonb_build_object('sourceType', 'comment', 'sourceId', v_comment.id),
      v_issue.id, v_comment.id, 'actionRequest.');
    return app_hidden.comment_json(v_comment) || jsonb_build_object('actionRequest', app_hidden.action_request_json(v_request));
  end if;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(args jsonb) is 'comments.create: Post a comment on an issue (markdown). The author is the key''s user; an agent-linked key is recorded as authoringAgent. Allowed in every run mode. With actionRequest, its recommendation card (a poll when it has options; fields as actionRequests.create) is created on the issue in the same transaction.';
grant execute on function app_tools.comments_create(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/create.sql
--! Included goals/tools/list.sql
-- The goals.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- goals the key can see, newest first, keyset-paged; status filter; archived ones only with includeArchived.
create or replace function app_tools.goals_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'goals') k;
  end if;
  with page as (
    select g as r from app_public.goals g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (coalesce((args->>'includeArchived')::boolean, false) or g.archived_at is null)
      and (args->>'crewId' is null or g.crew_id = app_hidden.parse_uuid(args->>'crewId', 'crewId'))
      and (v_after_ts is null or (g.created_at, g.id) < (v_after_ts, v_after_id))
    order by g.created_at desc, g.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.goal_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('goals', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.goals_list(args jsonb) is 'goals.list: Goals, newest first, paged ({items, nextCursor}), each with planCount and aggregate. Filters: status, crewId; archived goals only with includeArchived.';
grant execute on function app_tools.goals_list(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/list.sql
--! Included goals/tools/get.sql
-- The goals.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a goal with its plans (newest attempt first), the active plan with its steps, and the aggregate.
create or replace function app_tools.goals_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  return app_hidden.goal_json(v_goal) || jsonb_build_object(
    'plans', (select coalesce(jsonb_agg(app_hidden.plan_json(p) order by p.attempt desc), '[]')
              from app_public.execution_plans p where p.goal_id = v_goal.id),
    'activePlan', (select app_hidden.plan_json(p, true) from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt),
    'openGates', (select coalesce(jsonb_agg(app_hidden.gate_json(g) order by g.created_at), '[]')
                  from app_public.review_gates g join app_public.execution_plans p on p.id = g.plan_id
                  where p.goal_id = v_goal.id and g.status = 'PENDING'));
end
$$;
comment on function app_tools.goals_get(args jsonb) is 'goals.get: A goal with its plans (newest attempt first), the active plan with its steps, pending review gates, and aggregate {activePlanId, totalSteps, doneSteps, blockedSteps}.';
grant execute on function app_tools.goals_get(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/get.sql
--! Included goals/tools/create.sql
-- The goals.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a goal (OPEN), optionally tied to an issue (then it follows that issues narrowing) and a crew. GOAL_CREATED by trigger.
create or replace function app_tools.goals_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue uuid;
  v_crew app_public.agent_crews;
  v_goal app_public.goals;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  else
    perform app_hidden.require_issues_unrestricted('A goal without an issue');
  end if;
  if args->>'crewId' is not null then
    v_crew := app_hidden.find_crew(args->>'crewId', 'crewId');
    if v_crew.archived_at is not null then
      raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived';
    end if;
  end if;
  insert into app_public.goals (workspace_id, title, description, issue_id, crew_id, max_total_cost_usd, max_wall_time_minutes,
                                created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), args->>'title', args->>'description', v_issue, v_crew.id,
          (args->>'maxTotalCostUsd')::numeric, (args->>'maxWallTimeMinutes')::int,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_goal;
  return app_hidden.goal_json(v_goal);
end
$$;
comment on function app_tools.goals_create(args jsonb) is 'goals.create: Create a goal (OPEN), optionally tied to an issue (runs of its steps are opened on that issue, and the goal follows its narrowing) and run by a crew, with optional cost and wall-time caps. Writes GOAL_CREATED.';
grant execute on function app_tools.goals_create(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/create.sql
--! Included goals/tools/abandon.sql
-- The goals.abandon tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ABANDONED (terminal; 409 from ACHIEVED or ABANDONED); the live active plan attempt is canceled.
create or replace function app_tools.goals_abandon(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  perform app_hidden.lock_plan(p.id) from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt;
  select * into v_goal from app_public.goals where id = v_goal.id for update;
  return app_hidden.goal_json(app_hidden.goal_abandon(v_goal, args->>'reason'));
end
$$;
comment on function app_tools.goals_abandon(args jsonb) is 'goals.abandon: Abandon a goal (terminal): its running plan attempt is canceled with its unfinished steps, open gates and step runs.';
grant execute on function app_tools.goals_abandon(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/abandon.sql
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
    v_planner := (app_hidden.crew_agent(args->>'plannerAgentId', 'plannerAgentId')).id;
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
--! Included plans/tools/addSteps.sql
-- The plans.addSteps tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds a batch of steps to a DRAFT plan; dependsOnStepIndexes (0-based, within the batch) must form a DAG.
create or replace function app_tools.plans_add_steps(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'planId', 'planId');
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  return jsonb_build_object('planId', v_plan.id, 'stepIds', to_jsonb(app_hidden.add_plan_steps(v_plan, args->'steps', 'steps')));
end
$$;
comment on function app_tools.plans_add_steps(args jsonb) is 'plans.addSteps: Add steps to a DRAFT plan. dependsOnStepIndexes are 0-based positions within this batch and must form a DAG (a cycle is a 400). Steps start TODO and become READY when the plan runs and their dependencies are DONE.';
grant execute on function app_tools.plans_add_steps(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/addSteps.sql
--! Included plans/tools/requestApproval.sql
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
comment on function app_tools.plans_request_approval(args jsonb) is 'plans.requestApproval: Ask for approval of a DRAFT plan: raises a FREE_FORM action request (sourceType execution-plan, on the goal''s issue) whose acceptance activates the plan. An earlier open approval request is superseded.';
grant execute on function app_tools.plans_request_approval(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/requestApproval.sql
--! Included plans/tools/activate.sql
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
  v_ready := app_hidden.plan_activate(v_plan);
  return jsonb_build_object('ok', true, 'planId', v_plan.id, 'readyStepIds', to_jsonb(v_ready));
end
$$;
comment on function app_tools.plans_activate(args jsonb) is 'plans.activate: Run a DRAFT or APPROVED plan: RUNNING, the goal becomes ACTIVE, root steps become READY (each writes EXECUTION_STEP_READY and is dispatched to its agent, which gets a run).';
grant execute on function app_tools.plans_activate(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/activate.sql
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
    v_judge := (app_hidden.crew_agent(args->>'judgeAgentId', 'judgeAgentId')).id;
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
--! Included plans/tools/recordVerdict.sql
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
comment on function app_tools.plans_record_verdict(args jsonb) is 'plans.recordVerdict: Record the verdict on a step in REVIEW: PASS → DONE (dependants become READY; the last one completes the plan and achieves the goal); FAIL → READY again with the feedback while retries remain (maxStepRetries, default 2), else BLOCKED with a review gate. Writes EXECUTION_STEP_JUDGED.';
grant execute on function app_tools.plans_record_verdict(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/recordVerdict.sql
--! Included executionPlans/tools/list.sql
-- The executionPlans.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- plans the key can see, newest first, keyset-paged; filters goalId, status, activeOnly.
create or replace function app_tools.execution_plans_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'execution_plans') k;
  end if;
  with page as (
    select p as r from app_public.execution_plans p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (args->>'goalId' is null or p.goal_id = app_hidden.parse_uuid(args->>'goalId', 'goalId'))
      and (args->>'status' is null or p.status = args->>'status')
      and (not coalesce((args->>'activeOnly')::boolean, false) or p.is_active_attempt)
      and (v_after_ts is null or (p.created_at, p.id) < (v_after_ts, v_after_id))
    order by p.created_at desc, p.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.plan_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('execution_plans', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.execution_plans_list(args jsonb) is 'executionPlans.list: Execution plans, newest first, paged ({items, nextCursor}). Filters: goalId, status, activeOnly.';
grant execute on function app_tools.execution_plans_list(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/list.sql
--! Included executionPlans/tools/get.sql
-- The executionPlans.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a plan with its steps and open review gates.
create or replace function app_tools.execution_plans_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'id');
begin
  return app_hidden.plan_json(v_plan, true) || jsonb_build_object(
    'gates', (select coalesce(jsonb_agg(app_hidden.gate_json(g) order by g.created_at), '[]')
              from app_public.review_gates g where g.plan_id = v_plan.id));
end
$$;
comment on function app_tools.execution_plans_get(args jsonb) is 'executionPlans.get: An execution plan with its steps (dependsOnStepIds, status, retries, verdicts) and its review gates.';
grant execute on function app_tools.execution_plans_get(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/get.sql
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
    v_planner := (app_hidden.crew_agent(args->>'plannerAgentId', 'plannerAgentId')).id;
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
--! Included executionPlans/tools/transition.sql
-- The executionPlans.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a plan along its machine: APPROVED, RUNNING (= plans.activate), BLOCKED, COMPLETED (all steps done), CANCELED.
create or replace function app_tools.execution_plans_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'id');
  v_to text := args->>'status';
  v_goal app_public.goals;
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  if v_to = 'RUNNING' and v_plan.status in ('DRAFT', 'APPROVED') then
    perform app_hidden.plan_activate(v_plan);
  elsif v_to = 'RUNNING' then
    if exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
      raise exception 'A review gate holds this plan: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
    end if;
    perform app_hidden.plan_move(v_plan, 'RUNNING');
    perform app_hidden.plan_cascade(v_plan.id);
  elsif v_to = 'COMPLETED' then
    if exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED')) then
      raise exception 'Every step must be DONE (or CANCELED) first' using errcode = 'SV409', detail = 'steps_not_done';
    end if;
    perform app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(v_plan.id);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  elsif v_to = 'CANCELED' then
    perform app_hidden.plan_cancel(v_plan);
  else
    perform app_hidden.plan_move(v_plan, v_to);
  end if;
  return app_hidden.plan_json((select p from app_public.execution_plans p where p.id = v_plan.id), true);
end
$$;
comment on function app_tools.execution_plans_transition(args jsonb) is 'executionPlans.transition: Move a plan: APPROVED, RUNNING (as plans.activate; from BLOCKED only when no review gate holds it), BLOCKED, COMPLETED (every step DONE or CANCELED), CANCELED (unfinished steps, gates and step runs end). Illegal moves are 409.';
grant execute on function app_tools.execution_plans_transition(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transition.sql
--! Included executionPlans/tools/transitionStep.sql
-- The executionPlans.transitionStep tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a step of a RUNNING plan: DONE cascades readiness (and completes the plan), REVIEW dispatches the judge when the plan auto-judges, BLOCKED opens a gate.
create or replace function app_tools.execution_plans_transition_step(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_to text := args->>'status';
  v_ready uuid[] := '{}';
  v_judge uuid;
  v_gate app_public.review_gates;
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; its steps move only while it runs', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  if args->>'sourceRunId' is not null then
    update app_public.execution_steps set source_run_id = app_hidden.parse_uuid(args->>'sourceRunId', 'sourceRunId')
    where id = v_step.id returning * into v_step;
  end if;
  if v_to = 'READY' then
    if v_step.status = 'READY' then
      perform app_hidden.assert_move('step', 'Step', v_step.status, v_to);
    end if;
    v_step := app_hidden.step_make_ready(v_step);
  elsif v_to = 'BLOCKED' then
    v_gate := app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" is blocked', v_step.title),
                                    jsonb_build_object('note', args->>'note'));
  else
    v_step := app_hidden.step_move(v_step, v_to);
    if v_to = 'REVIEW' and app_hidden.plan_auto_judges(v_plan) then
      v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position);
      if v_judge is not null then
        perform app_hidden.step_dispatch_judge(v_step, v_judge);
      end if;
    elsif v_to in ('DONE', 'CANCELED') then
      v_ready := app_hidden.plan_cascade(v_plan.id);
    end if;
  end if;
  select * into v_step from app_public.execution_steps where id = v_step.id;
  select * into v_plan from app_public.execution_plans where id = v_plan.id;
  return jsonb_build_object('step', app_hidden.step_json(v_step), 'planStatus', v_plan.status,
    'goalStatus', (select g.status from app_public.goals g where g.id = v_plan.goal_id),
    'readyStepIds', to_jsonb(v_ready), 'judgeAgentId', v_judge, 'gateId', v_gate.id);
end
$$;
comment on function app_tools.execution_plans_transition_step(args jsonb) is 'executionPlans.transitionStep: Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew''s REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED.';
grant execute on function app_tools.execution_plans_transition_step(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transitionStep.sql
--! Included agentCrews/tools/list.sql
-- The agentCrews.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- crews with members and member/plan counts, oldest first, keyset-paged; archived ones with includeArchived.
create or replace function app_tools.agent_crews_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'agent_crews') k;
  end if;
  with page as (
    select c as r from app_public.agent_crews c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (coalesce((args->>'includeArchived')::boolean, false) or c.archived_at is null)
      and (v_after_ts is null or (c.created_at, c.id) > (v_after_ts, v_after_id))
    order by c.created_at, c.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.crew_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('agent_crews', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.agent_crews_list(args jsonb) is 'agentCrews.list: Agent crews, oldest first, paged ({items, nextCursor}), with members and member and plan counts; archived crews with includeArchived.';
grant execute on function app_tools.agent_crews_list(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/list.sql
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
    values (v_crew.workspace_id, v_crew.id, (app_hidden.crew_agent(v_member->>'agentId', format('members.%s.agentId', v_i))).id, v_member->>'role');
  end loop;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_create(args jsonb) is 'agentCrews.create: Create a crew (ADMIN) with optional members [{agentId, role}]: PLANNER decomposes goals, WORKERs take steps, a REVIEWER judges them (and makes plans auto-judge by default).';
grant execute on function app_tools.agent_crews_create(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/create.sql
--! Included agentCrews/tools/update.sql
-- The agentCrews.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes name, description, maxParallel (ADMIN); only the fields given. CREW_UPDATED by trigger on a real change.
create or replace function app_tools.agent_crews_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'id');
begin
  perform app_hidden.require_scope('ADMIN');
  update app_public.agent_crews
  set name = case when args ? 'name' then args->>'name' else name end,
      description = case when args ? 'description' then args->>'description' else description end,
      max_parallel = case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end
  where id = v_crew.id
    and (name, description, max_parallel) is distinct from (
      case when args ? 'name' then args->>'name' else name end,
      case when args ? 'description' then args->>'description' else description end,
      case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end)
  returning * into v_crew;
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_update(args jsonb) is 'agentCrews.update: Change a crew''s name, description or maxParallel (ADMIN); only the fields given.';
grant execute on function app_tools.agent_crews_update(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/update.sql
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
  v_agent app_public.agents := app_hidden.crew_agent(args->>'agentId', 'agentId');
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
--! Included agentCrews/tools/removeMember.sql
-- The agentCrews.removeMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a membership (ADMIN).
create or replace function app_tools.agent_crews_remove_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  perform app_hidden.require_scope('ADMIN');
  delete from app_public.agent_crew_members where id = v_member.id;
  return jsonb_build_object('ok', true, 'id', v_member.id, 'crewId', v_member.crew_id);
end
$$;
comment on function app_tools.agent_crews_remove_member(args jsonb) is 'agentCrews.removeMember: Remove a member from its crew (ADMIN).';
grant execute on function app_tools.agent_crews_remove_member(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/removeMember.sql
--! Included agentCrews/tools/setMemberRole.sql
-- The agentCrews.setMemberRole tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes a members role (ADMIN).
create or replace function app_tools.agent_crews_set_member_role(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  perform app_hidden.require_scope('ADMIN');
  update app_public.agent_crew_members set role = args->>'role' where id = v_member.id and role is distinct from args->>'role'
  returning * into v_member;
  return app_hidden.crew_member_json(app_hidden.find_crew_member(args->>'memberId'));
end
$$;
comment on function app_tools.agent_crews_set_member_role(args jsonb) is 'agentCrews.setMemberRole: Change a crew member''s role (ADMIN).';
grant execute on function app_tools.agent_crews_set_member_role(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/setMemberRole.sql
--! Included agentCrews/tools/archive.sql
-- The agentCrews.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (ADMIN), idempotent; archived crews keep their goals but get no new ones or members.
create or replace function app_tools.agent_crews_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'id');
begin
  perform app_hidden.require_scope('ADMIN');
  if v_crew.archived_at is null then
    update app_public.agent_crews set archived_at = now() where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_archive(args jsonb) is 'agentCrews.archive: Archive a crew (ADMIN; soft, idempotent). Its goals keep it; it takes no new goals or members.';
grant execute on function app_tools.agent_crews_archive(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/archive.sql
--! Included reviewGates/tools/list.sql
-- The reviewGates.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- gates the key can see, newest first, keyset-paged; filters status, planId, goalId.
create or replace function app_tools.review_gates_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'review_gates') k;
  end if;
  with page as (
    select g as r from app_public.review_gates g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (args->>'planId' is null or g.plan_id = app_hidden.parse_uuid(args->>'planId', 'planId'))
      and (args->>'goalId' is null or g.plan_id in (select p.id from app_public.execution_plans p
                                                    where p.goal_id = app_hidden.parse_uuid(args->>'goalId', 'goalId')))
      and (v_after_ts is null or (g.created_at, g.id) < (v_after_ts, v_after_id))
    order by g.created_at desc, g.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.gate_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('review_gates', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.review_gates_list(args jsonb) is 'reviewGates.list: Review gates (approval checkpoints of the loop), newest first, paged ({items, nextCursor}). Filters: status, planId, goalId.';
grant execute on function app_tools.review_gates_list(args jsonb) to svc_visitor;
--! EndIncluded reviewGates/tools/list.sql
--! Included reviewGates/tools/open.sql
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
    v_gate := app_hidden.step_block(v_step, 'MANUAL', coalesce(args->>'title', format('Review step "%s"', v_step.title)),
                                    jsonb_build_object('note', args->>'note'));
  else
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
--! EndIncluded reviewGates/tools/open.sql
--! Included reviewGates/tools/resolve.sql
-- The reviewGates.resolve tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- APPROVE continues the loop, REJECT abandons the goal; a person (or an ADMIN key) decides, never an agent key alone.
create or replace function app_tools.review_gates_resolve(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_gate app_public.review_gates := app_hidden.find_gate(args->>'id');
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  v_gate := app_hidden.gate_resolve(v_gate, args->>'decision', args->>'note');
  return app_hidden.gate_json(v_gate) || jsonb_build_object(
    'planStatus', (select p.status from app_public.execution_plans p where p.id = v_gate.plan_id),
    'goalStatus', (select g.status from app_public.goals g join app_public.execution_plans p on p.goal_id = g.id where p.id = v_gate.plan_id));
end
$$;
comment on function app_tools.review_gates_resolve(args jsonb) is 'reviewGates.resolve: Resolve a pending gate: APPROVE continues (a held step is ready again with fresh retries, a held plan runs again), REJECT abandons the goal. Decided by a person; an agent key needs the ADMIN scope.';
grant execute on function app_tools.review_gates_resolve(args jsonb) to svc_visitor;
--! EndIncluded reviewGates/tools/resolve.sql

--! split: 30-files.sql
-- Issue 13: attachments on an object store, repository links, analytics and standup.
-- Re-runnable while current.

---------------------------------------------------------------------------------------------------
-- Attachments: uploads in flight (initUpload → PUT to the blob store → finalize).

create table if not exists app_public.attachment_uploads (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  storage_key text not null unique,
  target_type text not null check (target_type in ('issue', 'initiative', 'cycle', 'comment')),
  target_id uuid not null,
  filename text not null check (length(filename) between 1 and 255),
  mime_type text not null check (length(mime_type) between 3 and 255),
  size_bytes bigint not null check (size_bytes between 1 and 26214400),
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
comment on table app_public.attachment_uploads is 'Uploads granted by attachments.initUpload and not finalized yet: their declared size counts against the quota until finalize registers the attachment or the expiry job removes the blob.';
comment on column app_public.attachment_uploads.storage_key is 'Object key in the blob store (<workspace id>/<upload id>/<filename>).';
comment on column app_public.attachment_uploads.expires_at is 'After this the upload URL no longer works; a Graphile Worker job then deletes the row and any blob that arrived.';
create index if not exists attachment_uploads_workspace_idx on app_public.attachment_uploads (workspace_id, expires_at);
alter table app_public.attachment_uploads enable row level security;
alter table app_public.attachment_uploads force row level security;
revoke all on app_public.attachment_uploads from svc_visitor;
grant select, delete on app_public.attachment_uploads to svc_visitor;
grant insert (id, workspace_id, storage_key, target_type, target_id, filename, mime_type, size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  on app_public.attachment_uploads to svc_visitor;

alter table app_public.attachments add column if not exists upload_id uuid;
comment on column app_public.attachments.upload_id is 'FILE rows: the attachment_uploads id it was finalized from (the job that cleans unfinalized uploads leaves these blobs alone).';
create index if not exists attachments_storage_key_idx on app_public.attachments (workspace_id, storage_key) where storage_key is not null;
revoke all on app_public.attachments from svc_visitor;
grant select, delete on app_public.attachments to svc_visitor;
grant insert (id, workspace_id, kind, target_type, target_id, external_url, link_title, filename, mime_type, size_bytes, storage_key, created_by_user_id, created_by_agent_id, upload_id)
  on app_public.attachments to svc_visitor;

---------------------------------------------------------------------------------------------------
-- Repository links (spec 4.5): mappings, resources seen on the host, links to issues.

create table if not exists app_public.connection_mappings (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  kind text not null default 'repo' check (kind in ('repo')),
  provider text not null default 'github' check (provider in ('github')),
  repo_full_name text not null check (repo_full_name ~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$'),
  token_env text check (token_env ~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$'),
  api_url text check (api_url ~ '^https?://[^\s]+$' and length(api_url) <= 500),
  status_rules jsonb not null default '{}' check (jsonb_typeof(status_rules) = 'object'),
  sync_title boolean not null default false,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.connection_mappings is 'A workspace''s link to an external repository (kind repo): the repohost tools read issues and pull requests through it, never write to the host.';
comment on column app_public.connection_mappings.repo_full_name is 'owner/name on the host.';
comment on column app_public.connection_mappings.token_env is 'Name of the environment variable holding the host API token (the token itself is never stored); unset = anonymous.';
comment on column app_public.connection_mappings.api_url is 'API base URL for GitHub Enterprise (e.g. https://ghe.example.com/api/v3); unset = https://api.github.com.';
comment on column app_public.connection_mappings.status_rules is 'External state → status category applied by repohost.sync to linked issues (SOURCE and IMPLEMENTS links), e.g. {"closed":"DONE","merged":"DONE"}.';
comment on column app_public.connection_mappings.sync_title is 'When true, repohost.sync copies the external title onto issues linked with kind SOURCE.';
create unique index if not exists connection_mappings_repo_key on app_public.connection_mappings (workspace_id, kind, lower(repo_full_name));
alter table app_public.connection_mappings enable row level security;
alter table app_public.connection_mappings force row level security;
revoke all on app_public.connection_mappings from svc_visitor;
grant select, delete on app_public.connection_mappings to svc_visitor;
grant insert (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;
grant update (token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;

create table if not exists app_public.external_resources (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  mapping_id uuid,
  provider text not null default 'github',
  repo_full_name text not null,
  type text not null check (type in ('issue', 'pull_request')),
  number integer not null check (number > 0),
  url text not null,
  title text,
  state text check (state in ('open', 'closed', 'merged')),
  snapshot jsonb not null default '{}',
  synced_at timestamptz,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, mapping_id) references app_public.connection_mappings (workspace_id, id) on delete set null (mapping_id)
);
comment on table app_public.external_resources is 'An issue or pull request on a repository host as last read (the local snapshot).';
comment on column app_public.external_resources.snapshot is 'The host''s fields we keep: title, state, author, labels, assignees, htmlUrl, updatedAt, closedAt, mergedAt, draft.';
create unique index if not exists external_resources_number_key on app_public.external_resources (workspace_id, lower(repo_full_name), number);
create index if not exists external_resources_mapping_idx on app_public.external_resources (workspace_id, mapping_id);
alter table app_public.external_resources enable row level security;
alter table app_public.external_resources force row level security;
revoke all on app_public.external_resources from svc_visitor;
grant select on app_public.external_resources to svc_visitor;
grant insert (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;
grant update (mapping_id, type, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;

create table if not exists app_public.external_links (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  issue_id uuid not null,
  resource_id uuid not null,
  kind text not null check (kind in ('SOURCE', 'IMPLEMENTS', 'REVIEWS', 'RELATES_TO')),
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  unique (workspace_id, issue_id, resource_id),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, resource_id) references app_public.external_resources (workspace_id, id) on delete cascade
);
comment on table app_public.external_links is 'An issue''s link to an external issue or pull request, with its kind (SOURCE: imported from it; IMPLEMENTS, REVIEWS, RELATES_TO).';
create index if not exists external_links_resource_idx on app_public.external_links (workspace_id, resource_id);
alter table app_public.external_links enable row level security;
alter table app_public.external_links force row level security;
revoke all on app_public.external_links from svc_visitor;
grant select on app_public.external_links to svc_visitor;
grant insert (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id) on app_public.external_links to svc_visitor;
grant update (kind) on app_public.external_links to svc_visitor;

---------------------------------------------------------------------------------------------------
-- Functions, policies, triggers (sql/).

--! Included attachments/shapes.sql
-- attachments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_json(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'kind', a.kind, 'targetType', a.target_type, 'targetId', a.target_id,
    'externalUrl', a.external_url, 'linkTitle', a.link_title, 'filename', a.filename, 'mimeType', a.mime_type,
    'size', a.size_bytes, 'sizeBytes', a.size_bytes, 'createdAt', a.created_at)
$$;
comment on function app_hidden.attachment_json(a app_public.attachments) is 'Attachment (spec 2.6).';
grant execute on function app_hidden.attachment_json(a app_public.attachments) to svc_visitor;
--! EndIncluded attachments/shapes.sql
--! Included attachments/attachments.sql
-- attachments: helper functions (targets, quota, the row behind a tool call).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
 stable
as $$
begin
  if p_type is null or p_type not in ('issue', 'initiative', 'cycle', 'comment') then
    perform app_hidden.raise_invalid('targetType', 'must be issue, initiative, cycle or comment');
  end if;
  if p_type = 'issue' then
    target_id := (app_hidden.find_issue(p_id, 'targetId')).id;
    issue_id := target_id;
  elsif p_type = 'comment' then
    select c.id, c.issue_id into target_id, issue_id from app_public.comments c
    where c.id = app_hidden.parse_uuid(p_id, 'targetId')
      and exists (select 1 from app_public.issues i where i.id = c.issue_id and i.deleted_at is null);
  elsif p_type = 'initiative' then
    select i.id into target_id from app_public.initiatives i where i.id = app_hidden.parse_uuid(p_id, 'targetId');
  else
    select c.id into target_id from app_public.cycles c where c.id = app_hidden.parse_uuid(p_id, 'targetId');
  end if;
  if target_id is null then
    raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
  end if;
end
$$;
comment on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'The issue (id or key), comment, initiative or cycle an attachment goes on, as the caller sees it (RLS: narrowing of the issue behind an issue or comment, initiative narrowing); 404 targetId otherwise. issue_id is the issue behind an issue or comment target.';
grant execute on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_visible(p_id text)
 returns app_public.attachments
 language plpgsql
 stable
as $$
declare v_row app_public.attachments;
begin
  select * into v_row from app_public.attachments a where a.id = app_hidden.parse_uuid(p_id, 'id');
  if v_row.id is null then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.attachment_visible(p_id text) is 'An attachment the caller can see (RLS follows the target it is attached to), else 404.';
grant execute on function app_hidden.attachment_visible(p_id text) to svc_visitor;

create or replace function app_hidden.attachment_bytes_used(p_workspace_id uuid)
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select coalesce((select sum(a.size_bytes) from app_public.attachments a
                   where a.workspace_id = p_workspace_id and a.kind = 'FILE'), 0)
       + coalesce((select sum(u.size_bytes) from app_public.attachment_uploads u
                   where u.workspace_id = p_workspace_id and u.expires_at > now()), 0)
$$;
comment on function app_hidden.attachment_bytes_used(p_workspace_id uuid) is 'Bytes counted against attachmentQuotaMb: every FILE attachment of the workspace plus uploads granted and not expired (whatever the caller''s narrowing lets it see). Security definer: the total, never the rows.';
grant execute on function app_hidden.attachment_bytes_used(p_workspace_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_blob_ref(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('attachment', app_hidden.attachment_json(a), 'storageKey', a.storage_key)
$$;
comment on function app_hidden.attachment_blob_ref(a app_public.attachments) is 'What the Node half of getDownloadUrl/getInline/delete needs: the attachment and its object key (the key never leaves the service).';
grant execute on function app_hidden.attachment_blob_ref(a app_public.attachments) to svc_visitor;

create or replace function app_hidden.url_hostname(p_url text)
 returns text
 language sql
 immutable parallel safe
as $$
  select lower(substring(p_url from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@]*@)?(\[[^\]]+\]|[^/?#:]+)'))
$$;
comment on function app_hidden.url_hostname(p_url text) is 'The host of an http(s) URL, lowercased (null when it is not one): the title a LINK attachment falls back to.';
grant execute on function app_hidden.url_hostname(p_url text) to svc_visitor;
--! EndIncluded attachments/attachments.sql
--! Included attachments/policies.sql
-- Row-level security policies of the attachments tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.attachments;
create policy owner_all on app_public.attachments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.attachments is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.attachments;
create policy select_in_workspace on app_public.attachments for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((target_type = ANY (ARRAY['issue'::text, 'comment'::text])) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((target_type = 'issue'::text) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = attachments.target_id)))) OR ((target_type = 'comment'::text) AND (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE (c.id = attachments.target_id)))))) OR ((target_type = 'initiative'::text) AND ((cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0) OR (target_id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))) OR (target_type = 'cycle'::text))));
comment on policy select_in_workspace on app_public.attachments is 'Attachments of the caller''s workspace that follow their target: on issues (or their comments) only when the issue is visible to a narrowed key, on initiatives only within initiative narrowing; cycles are workspace-wide.';

drop policy if exists insert_in_workspace on app_public.attachments;
create policy insert_in_workspace on app_public.attachments for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.attachments is 'Attachments are added in the caller''s workspace (the tools check the target first).';

drop policy if exists delete_visible on app_public.attachments;
create policy delete_visible on app_public.attachments for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_visible on app_public.attachments is 'A key deletes attachments of its workspace that it can see (the select policy narrows which).';

drop policy if exists owner_all on app_public.attachment_uploads;
create policy owner_all on app_public.attachment_uploads for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.attachment_uploads is 'The schema owner (the expiry job) works on every row.';

drop policy if exists manage_in_workspace on app_public.attachment_uploads;
create policy manage_in_workspace on app_public.attachment_uploads for all to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy manage_in_workspace on app_public.attachment_uploads is 'Uploads of the caller''s workspace; finalize re-checks the target against the finalizing key''s narrowing.';
--! EndIncluded attachments/policies.sql
--! Included attachments/triggers.sql
-- Triggers of the attachments tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_attachments__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.attachments := case when tg_op = 'DELETE' then old else new end;
  v_extra jsonb := jsonb_build_object('attachmentId', v_row.id, 'attachmentChange',
    case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'updated' end);
  v_issue_id uuid;
begin
  if tg_op = 'UPDATE' and new.link_title is not distinct from old.link_title then
    return null;
  end if;
  if v_row.target_type = 'issue' then
    v_issue_id := v_row.target_id;
  elsif v_row.target_type = 'comment' then
    select c.issue_id into v_issue_id from app_public.comments c where c.id = v_row.target_id;
    v_extra := v_extra || jsonb_build_object('commentId', v_row.target_id);
  end if;
  if v_issue_id is not null then
    perform app_private.record_issue_updated(v_row.workspace_id, v_issue_id, array['attachments'], v_extra);
  elsif v_row.target_type = 'initiative' then
    perform app_private.record_event(v_row.workspace_id, 'INITIATIVE_UPDATED', 'initiative', i.id,
      jsonb_build_object('initiativeId', i.id, 'name', i.name, 'changes', jsonb_build_array('attachments'),
                         'archived', i.archived_at is not null) || v_extra)
    from app_public.initiatives i where i.id = v_row.target_id;
  elsif v_row.target_type = 'cycle' then
    perform app_private.record_event(v_row.workspace_id, 'CYCLE_UPDATED', 'cycle', c.id,
      jsonb_build_object('cycleId', c.id, 'number', c.number, 'name', c.name, 'changes', jsonb_build_array('attachments'),
                         'status', c.status, 'previousStatus', c.status) || v_extra)
    from app_public.cycles c where c.id = v_row.target_id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_attachments__events() is 'An attachment added, removed or given its scraped title is a change of its target: ISSUE_UPDATED (changes attachments) of the issue (also for comment attachments), INITIATIVE_UPDATED or CYCLE_UPDATED; payload attachmentId and attachmentChange added/removed/updated.';

drop trigger if exists _800_events on app_public.attachments;
create trigger _800_events after insert or delete or update of link_title on app_public.attachments for each row execute function app_private.tg_attachments__events();

create or replace function app_private.tg_attachments__link_title()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.kind = 'LINK' and new.link_title is null then
    new.link_title := app_hidden.url_hostname(new.external_url);
    perform app_private.attachments_enqueue('svc_attachment_link_title', json_build_object('attachmentId', new.id));
  end if;
  return new;
end
$$;
comment on function app_private.tg_attachments__link_title() is 'A LINK attachment without a title gets its URL''s hostname now and a svc_attachment_link_title job that replaces it with the page title.';

drop trigger if exists _200_link_title on app_public.attachments;
create trigger _200_link_title before insert on app_public.attachments for each row execute function app_private.tg_attachments__link_title();

create or replace function app_private.tg_attachment_uploads__expiry_job()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.attachments_enqueue('svc_attachment_upload_expire', json_build_object('uploadId', new.id),
                                          new.expires_at + interval '1 minute');
  return null;
end
$$;
comment on function app_private.tg_attachment_uploads__expiry_job() is 'Schedules svc_attachment_upload_expire a minute after the upload URL expires: an upload never finalized loses its row and its blob.';

drop trigger if exists _900_expiry_job on app_public.attachment_uploads;
create trigger _900_expiry_job after insert on app_public.attachment_uploads for each row execute function app_private.tg_attachment_uploads__expiry_job();
--! EndIncluded attachments/triggers.sql
--! Included attachments/jobs.sql
-- attachments: what the Graphile Worker jobs of attachments call (owner connections).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone default now())
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job(p_task, p_payload, run_at := p_run_at, max_attempts := 3);
  end if;
end
$$;
comment on function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone) is 'Enqueues an attachments job (svc_attachment_upload_expire, svc_attachment_link_title) in the caller''s transaction. Security definer: the request role has no access to the queue.';

create or replace function app_private.attachment_upload_expire(p_upload_id uuid)
 returns text
 language sql
as $$
  delete from app_public.attachment_uploads u where u.id = p_upload_id and u.expires_at <= now()
  returning u.storage_key
$$;
comment on function app_private.attachment_upload_expire(p_upload_id uuid) is 'Job svc_attachment_upload_expire: removes an upload that was never finalized and returns its object key (the job deletes the blob); null when it was finalized or has not expired.';

create or replace function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text)
 returns void
 language sql
as $$
  update app_public.attachments a set link_title = left(p_title, 500)
  where a.id = p_attachment_id and a.kind = 'LINK' and p_title is not null and p_title <> ''
$$;
comment on function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text) is 'Job svc_attachment_link_title: stores the scraped page title (at most 500 characters) of a LINK attachment (ISSUE_UPDATED/INITIATIVE_UPDATED/CYCLE_UPDATED by trigger).';
--! EndIncluded attachments/jobs.sql
--! Included attachments/tools/initUpload.sql
-- The attachments.initUpload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- Checks the target, the 25 MB per-file limit and the workspace quota (finalized files plus open uploads),
-- records the upload (its trigger schedules the job that removes it if it is never finalized). The Node half signs
-- the PUT URL for the returned key.
create or replace function app_tools.attachments_init_upload(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_size bigint := (args->>'sizeBytes')::bigint;
  v_quota bigint;
  v_used bigint;
  v_id uuid := gen_random_uuid();
  v_expires timestamptz := now() + make_interval(secs => coalesce((args->>'expiresInSeconds')::int, 900));
  v_key text;
begin
  if v_size is null or v_size < 1 or v_size > 26214400 then
    perform app_hidden.raise_invalid('sizeBytes', 'must be 1 to 26214400 bytes (25 MB per file)');
  end if;
  select w.attachment_quota_mb::bigint * 1048576 into v_quota from app_public.workspaces w where w.id = v_ws;
  v_used := app_hidden.attachment_bytes_used(v_ws);
  if v_used + v_size > v_quota then
    raise exception 'Attachment quota exceeded: % of % MB used, this file needs % bytes', round(v_used / 1048576.0, 1), v_quota / 1048576, v_size
      using errcode = 'SV422', detail = 'quota_exceeded';
  end if;
  v_key := v_ws || '/' || v_id;
  insert into app_public.attachment_uploads (id, workspace_id, storage_key, target_type, target_id, filename, mime_type,
                                             size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  values (v_id, v_ws, v_key, args->>'targetType', v_target.target_id, args->>'filename', lower(args->>'mimeType'), v_size,
          app_hidden.current_user_id(), app_hidden.current_agent_id(), v_expires);
  return jsonb_build_object('key', v_key, 'uploadId', v_id, 'expiresAt', v_expires, 'sizeBytes', v_size,
    'mimeType', lower(args->>'mimeType'), 'filename', args->>'filename',
    'targetType', args->>'targetType', 'targetId', v_target.target_id);
end
$$;
grant execute on function app_tools.attachments_init_upload(args jsonb) to svc_visitor;
comment on function app_tools.attachments_init_upload(args jsonb) is 'attachments.initUpload: Start a file upload to an issue, comment, cycle or initiative: returns {uploadUrl, key}. PUT the bytes to uploadUrl (e.g. curl -T file "<uploadUrl>") before expiresAt, then call attachments.finalize with the key. 25 MB per file; the workspace quota (attachmentQuotaMb) counts finalized files and open uploads.';
--! EndIncluded attachments/tools/initUpload.sql
--! Included attachments/tools/finalize.sql
-- The attachments.finalize tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The Node half measured the object (storedSize, null when absent); this checks the upload is the
-- caller's workspace's, not expired, its target still visible, and the size is the declared one, then
-- registers the FILE attachment (ISSUE_UPDATED & co. by trigger) and closes the upload.
create or replace function app_tools.attachments_finalize(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_upload app_public.attachment_uploads;
  v_target record;
  v_row app_public.attachments;
begin
  select * into v_upload from app_public.attachment_uploads u where u.storage_key = args->>'key';
  if v_upload.id is null then
    raise exception 'Upload not found (already finalized, expired, or never started)' using errcode = 'SV404', column = 'key';
  end if;
  if v_upload.expires_at <= now() then
    raise exception 'The upload expired at %; start again with attachments.initUpload', v_upload.expires_at
      using errcode = 'SV409', detail = 'upload_expired';
  end if;
  v_target := app_hidden.attachment_target(v_upload.target_type, v_upload.target_id::text);
  if args->'storedSize' is null or args->'storedSize' = 'null'::jsonb then
    raise exception 'Nothing was uploaded to this key yet: PUT the file to uploadUrl first' using errcode = 'SV409', detail = 'upload_missing';
  end if;
  if (args->>'storedSize')::bigint <> v_upload.size_bytes then
    raise exception 'The stored object has % bytes, initUpload declared %', args->>'storedSize', v_upload.size_bytes
      using errcode = 'SV409', detail = 'size_mismatch';
  end if;
  -- The delete is the arbiter between two finalize calls (and the expiry job): one of them gets the row.
  delete from app_public.attachment_uploads u where u.id = v_upload.id and u.expires_at > now();
  if not found then
    raise exception 'Upload not found (already finalized, expired, or never started)' using errcode = 'SV404', column = 'key';
  end if;
  insert into app_public.attachments (id, workspace_id, kind, target_type, target_id, filename, mime_type, size_bytes,
                                      storage_key, created_by_user_id, created_by_agent_id, upload_id)
  values (v_upload.id, v_upload.workspace_id, 'FILE', v_upload.target_type, v_target.target_id, v_upload.filename,
          v_upload.mime_type, v_upload.size_bytes, v_upload.storage_key, app_hidden.current_user_id(),
          app_hidden.current_agent_id(), v_upload.id);
  select * into v_row from app_public.attachments a where a.id = v_upload.id;
  return app_hidden.attachment_json(v_row);
end
$$;
grant execute on function app_tools.attachments_finalize(args jsonb) to svc_visitor;
comment on function app_tools.attachments_finalize(args jsonb) is 'attachments.finalize: Register an uploaded file as an Attachment (kind FILE): checks the object exists with the size declared at initUpload. An upload never finalized is removed (row and blob) after it expires.';
--! EndIncluded attachments/tools/finalize.sql
--! Included attachments/tools/list.sql
-- The attachments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- attachments of one visible target, oldest first (an array: a target's attachments are few).
create or replace function app_tools.attachments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
begin
  return coalesce((select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
    from app_public.attachments a
    where a.workspace_id = app_hidden.current_workspace_id() and a.target_type = args->>'targetType'
      and a.target_id = v_target.target_id
      and (args->>'kind' is null or a.kind = args->>'kind')), '[]');
end
$$;
grant execute on function app_tools.attachments_list(args jsonb) to svc_visitor;
comment on function app_tools.attachments_list(args jsonb) is 'attachments.list: Attachments (files and links) of an issue, comment, cycle or initiative, oldest first.';
--! EndIncluded attachments/tools/list.sql
--! Included attachments/tools/getDownloadUrl.sql
-- The attachments.getDownloadUrl tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the visible attachment and its object key; the Node half presigns the GET (LINK rows: their URL).
create or replace function app_tools.attachments_get_download_url(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.attachment_blob_ref(app_hidden.attachment_visible(args->>'id'))
$$;
grant execute on function app_tools.attachments_get_download_url(args jsonb) to svc_visitor;
comment on function app_tools.attachments_get_download_url(args jsonb) is 'attachments.getDownloadUrl: A presigned GET URL for a file attachment (valid expiresInSeconds, default 900); for a LINK, its externalUrl.';
--! EndIncluded attachments/tools/getDownloadUrl.sql
--! Included attachments/tools/getInline.sql
-- The attachments.getInline tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the visible attachment and its object key (same checks as getDownloadUrl); the Node half applies the
-- mime allowlist and maxBytes and reads the bytes.
create or replace function app_tools.attachments_get_inline(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.attachment_blob_ref(app_hidden.attachment_visible(args->>'id'))
$$;
grant execute on function app_tools.attachments_get_inline(args jsonb) to svc_visitor;
comment on function app_tools.attachments_get_inline(args jsonb) is 'attachments.getInline: A file attachment''s bytes as base64, for files up to maxBytes (default 1,000,000; at most 25 MB) of an allowed type (image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain, text/markdown). Other types and larger files: use attachments.getDownloadUrl.';
--! EndIncluded attachments/tools/getInline.sql
--! Included attachments/tools/delete.sql
-- The attachments.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a visible attachment (its target's event by trigger); returns it with its object key so the
-- Node half deletes the blob after the commit.
create or replace function app_tools.attachments_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.attachments := app_hidden.attachment_visible(args->>'id');
begin
  delete from app_public.attachments a where a.id = v_row.id;
  return app_hidden.attachment_blob_ref(v_row) || jsonb_build_object('deleted', true);
end
$$;
grant execute on function app_tools.attachments_delete(args jsonb) to svc_visitor;
comment on function app_tools.attachments_delete(args jsonb) is 'attachments.delete: Delete an attachment: its row, and for a file its blob in the object store.';
--! EndIncluded attachments/tools/delete.sql
--! Included attachments/tools/attachLink.sql
-- The attachments.attachLink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a LINK attachment (mimeType text/url, size 0). Without linkTitle the insert trigger puts the hostname
-- in and enqueues the job that fetches the page title.
create or replace function app_tools.attachments_attach_link(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_url text := args->>'externalUrl';
  v_host text := app_hidden.url_hostname(v_url);
  v_title text := nullif(btrim(args->>'linkTitle'), '');
  v_row app_public.attachments;
begin
  if v_url !~* '^https?://' or v_host is null or v_host = '' then
    perform app_hidden.raise_invalid('externalUrl', 'must be an http:// or https:// URL');
  end if;
  insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, link_title, filename,
                                      mime_type, size_bytes, created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), 'LINK', args->>'targetType', v_target.target_id, v_url,
          v_title, coalesce(v_title, v_host), 'text/url', 0,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_row;
  return app_hidden.attachment_json(v_row) || jsonb_build_object('titlePending', v_title is null);
end
$$;
grant execute on function app_tools.attachments_attach_link(args jsonb) to svc_visitor;
comment on function app_tools.attachments_attach_link(args jsonb) is 'attachments.attachLink: Attach a link (kind LINK, mimeType text/url, size 0) to an issue, comment, cycle or initiative. Without linkTitle the hostname stands in until a background job has fetched the page title (5 s, redirects followed, 64 KB read).';
--! EndIncluded attachments/tools/attachLink.sql

--! Included repohost/shapes.sql
-- repohost: JSON shapes and URL parsing.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.repo_mapping_json(m app_public.connection_mappings)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', m.id, 'kind', m.kind, 'provider', m.provider, 'repoFullName', m.repo_full_name,
    'tokenEnv', m.token_env, 'apiUrl', m.api_url, 'statusRules', m.status_rules, 'syncTitle', m.sync_title,
    'active', m.active, 'createdAt', m.created_at, 'updatedAt', m.updated_at)
$$;
comment on function app_hidden.repo_mapping_json(m app_public.connection_mappings) is 'ConnectionMapping (kind repo): the token is named by tokenEnv, never stored.';
grant execute on function app_hidden.repo_mapping_json(m app_public.connection_mappings) to svc_visitor;

create or replace function app_hidden.repo_resource_json(r app_public.external_resources)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', r.id, 'provider', r.provider, 'repoFullName', r.repo_full_name, 'type', r.type,
    'number', r.number, 'url', r.url, 'title', r.title, 'state', r.state, 'snapshot', r.snapshot,
    'syncedAt', r.synced_at, 'mappingId', r.mapping_id)
$$;
comment on function app_hidden.repo_resource_json(r app_public.external_resources) is 'An external issue or pull request with its latest local snapshot.';
grant execute on function app_hidden.repo_resource_json(r app_public.external_resources) to svc_visitor;

create or replace function app_hidden.repo_link_json(l app_public.external_links)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', l.id, 'issueId', l.issue_id, 'kind', l.kind, 'resourceId', l.resource_id,
    'createdAt', l.created_at,
    'resource', (select app_hidden.repo_resource_json(r) from app_public.external_resources r where r.id = l.resource_id))
$$;
comment on function app_hidden.repo_link_json(l app_public.external_links) is 'A link between an issue and an external resource, with the resource.';
grant execute on function app_hidden.repo_link_json(l app_public.external_links) to svc_visitor;

create or replace function app_hidden.repo_parse_url(p_url text, p_field text default 'url'::text)
 returns jsonb
 language plpgsql
 immutable
as $$
declare m text[] := regexp_match(coalesce(p_url, ''),
  '^https?://([A-Za-z0-9.-]+(?::[0-9]+)?)/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(issues|pull|pulls)/([0-9]{1,9})(?:[/?#].*)?$');
begin
  if m is null then
    perform app_hidden.raise_invalid(p_field, 'not an issue or pull request URL (https://<host>/<owner>/<repo>/issues/<n> or /pull/<n>)');
  end if;
  return jsonb_build_object('host', lower(m[1]), 'owner', m[2], 'repo', m[3], 'repoFullName', m[2] || '/' || m[3],
    'type', case when m[4] = 'issues' then 'issue' else 'pull_request' end, 'number', m[5]::int,
    'url', 'https://' || lower(m[1]) || '/' || m[2] || '/' || m[3] || '/' || case when m[4] = 'issues' then 'issues' else 'pull' end || '/' || m[5]);
end
$$;
comment on function app_hidden.repo_parse_url(p_url text, p_field text) is 'Parses https://<host>/<owner>/<repo>/issues/<n> (or /pull/<n>) into {host, owner, repo, repoFullName, type, number, url}; 400 naming the field otherwise.';
grant execute on function app_hidden.repo_parse_url(p_url text, p_field text) to svc_visitor;
--! EndIncluded repohost/shapes.sql
--! Included repohost/mappings.sql
-- repohost: mappings (resolution, in-app procedures, operator command) and resources (snapshot, rules).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.repo_check_status_rules(p_rules jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare v_key text; v_value jsonb;
begin
  if p_rules is null then return null; end if;
  if jsonb_typeof(p_rules) <> 'object' then
    perform app_hidden.raise_invalid('statusRules', 'must be an object such as {"closed":"DONE","merged":"DONE"}');
  end if;
  for v_key, v_value in select * from jsonb_each(p_rules) loop
    if v_key not in ('open', 'closed', 'merged') then
      perform app_hidden.raise_invalid('statusRules', format('unknown external state %s (open, closed, merged)', v_key));
    end if;
    if v_value <> 'null'::jsonb and (jsonb_typeof(v_value) <> 'string'
        or v_value #>> '{}' not in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED')) then
      perform app_hidden.raise_invalid('statusRules', format('%s must map to a status category (BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE, CANCELED)', v_key));
    end if;
  end loop;
  return jsonb_strip_nulls(p_rules);
end
$$;
comment on function app_hidden.repo_check_status_rules(p_rules jsonb) is 'Validates status rules: keys open/closed/merged, values status categories (400 statusRules otherwise); null stays null (no change).';
grant execute on function app_hidden.repo_check_status_rules(p_rules jsonb) to svc_visitor;

create or replace function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if p_token_env is not null and p_token_env !~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$' then
    perform app_hidden.raise_invalid('tokenEnv', 'must be an environment variable name');
  end if;
  if p_api_url is not null and p_api_url !~ '^https?://[^\s]+$' then
    perform app_hidden.raise_invalid('apiUrl', 'must be an http(s) URL');
  end if;
end
$$;
comment on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) is 'Validates a mapping''s tokenEnv (an environment variable name) and apiUrl (http or https), 400 naming the field.';
grant execute on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) to svc_visitor;

create or replace function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text default NULL::text, p_api_url text default NULL::text, p_status_rules jsonb default NULL::jsonb, p_sync_title boolean default false)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  if coalesce(p_repo_full_name, '') !~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' then
    perform app_hidden.raise_invalid('repo', 'must be owner/name');
  end if;
  perform app_hidden.repo_check_host_settings(p_token_env, p_api_url);
  if exists (select 1 from app_public.connection_mappings m where m.workspace_id = p_workspace_id and m.kind = 'repo'
             and lower(m.repo_full_name) = lower(p_repo_full_name)) then
    raise exception 'Repository % is already mapped in this workspace', p_repo_full_name using errcode = 'SV409', detail = 'mapping_exists';
  end if;
  insert into app_public.connection_mappings (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title)
  values (p_workspace_id, 'repo', 'github', p_repo_full_name, p_token_env, rtrim(p_api_url, '/'),
          coalesce(app_hidden.repo_check_status_rules(p_status_rules), '{"closed":"DONE","merged":"DONE"}'), coalesce(p_sync_title, false))
  returning * into v_row;
  return app_hidden.repo_mapping_json(v_row);
end
$$;
comment on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) is 'Maps a repository (kind repo) for the repohost tools; default status rules close linked issues when the external issue closes or the PR merges ({"closed":"DONE","merged":"DONE"}). 409 mapping_exists for a repository already mapped. Used by `svc admin create-repo-mapping` (as owner) and repoMappingsCreate (as the caller, under RLS: OWNER/ADMIN only).';
grant execute on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) to svc_visitor;

create or replace function app_public.repo_mappings_create(repo_full_name text, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v jsonb;
begin
  perform app_hidden.require_workspace_admin_key();
  v := app_hidden.repo_mapping_insert(app_hidden.current_workspace_id(), repo_full_name, token_env, api_url, status_rules, sync_title);
  return (select m from app_public.connection_mappings m where m.id = (v->>'id')::uuid);
end
$$;
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is 'OWNER/ADMIN: maps a repository (owner/name) for the repohost tools. tokenEnv names the environment variable holding the API token; apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
grant execute on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) to svc_visitor;

create or replace function app_public.repo_mappings_update(mapping_id uuid, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default NULL::boolean, active boolean default NULL::boolean, clear_token_env boolean default false, clear_api_url boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.repo_check_host_settings(token_env, api_url);
  update app_public.connection_mappings m set
    token_env = case when clear_token_env then null else coalesce(repo_mappings_update.token_env, m.token_env) end,
    api_url = case when clear_api_url then null else coalesce(rtrim(repo_mappings_update.api_url, '/'), m.api_url) end,
    status_rules = coalesce(app_hidden.repo_check_status_rules(repo_mappings_update.status_rules), m.status_rules),
    sync_title = coalesce(repo_mappings_update.sync_title, m.sync_title),
    active = coalesce(repo_mappings_update.active, m.active)
  where m.id = mapping_id
  returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is 'OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository.';
grant execute on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) to svc_visitor;

create or replace function app_public.repo_mappings_delete(mapping_id uuid)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  delete from app_public.connection_mappings m where m.id = mapping_id returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_delete(mapping_id uuid) is 'OWNER/ADMIN: removes a repository mapping; links and snapshots stay (without a mapping they can no longer be synced).';
grant execute on function app_public.repo_mappings_delete(mapping_id uuid) to svc_visitor;

create or replace function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text default 'repoFullName'::text)
 returns app_public.connection_mappings
 language plpgsql
 stable
as $$
declare v_row app_public.connection_mappings;
begin
  if p_mapping_id is not null then
    select * into v_row from app_public.connection_mappings m where m.id = app_hidden.parse_uuid(p_mapping_id, 'mappingId');
    if v_row.id is null then
      raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
    end if;
    if p_repo_full_name is not null and lower(p_repo_full_name) <> lower(v_row.repo_full_name) then
      perform app_hidden.raise_invalid('repoFullName', format('mapping %s is for %s', v_row.id, v_row.repo_full_name));
    end if;
  elsif p_repo_full_name is not null then
    select * into v_row from app_public.connection_mappings m
    where m.workspace_id = app_hidden.current_workspace_id() and m.kind = 'repo' and lower(m.repo_full_name) = lower(p_repo_full_name);
    if v_row.id is null then
      raise exception 'No repository mapping for % in this workspace (svc admin create-repo-mapping)', p_repo_full_name
        using errcode = 'SV404', column = p_field, detail = 'no_repo_mapping';
    end if;
  else
    perform app_hidden.raise_invalid('repoFullName', 'give mappingId or repoFullName');
  end if;
  if not v_row.active then
    raise exception 'The mapping for % is inactive', v_row.repo_full_name using errcode = 'SV422', detail = 'mapping_inactive';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) is 'The workspace''s active repo mapping by id or by repository full name (case-insensitive); 404 (no_repo_mapping) or 422 mapping_inactive otherwise.';
grant execute on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) to svc_visitor;

create or replace function app_hidden.repohost_prepare(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_parsed jsonb;
  v_mapping app_public.connection_mappings;
  v_items jsonb;
begin
  if args ? 'url' then
    v_parsed := app_hidden.repo_parse_url(args->>'url');
    v_mapping := app_hidden.repo_mapping_resolve(null, v_parsed->>'repoFullName', 'url');
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (v_parsed->>'number')::int));
  elsif args ? 'resourceId' or args ? 'issueId' then
    select coalesce(jsonb_agg(jsonb_build_object('mapping', app_hidden.repo_mapping_json(m), 'repoFullName', r.repo_full_name,
             'number', r.number, 'resourceId', r.id) order by r.repo_full_name, r.number), '[]')
    into v_items
    from app_public.external_resources r
    join app_public.connection_mappings m on m.workspace_id = r.workspace_id and m.kind = 'repo'
      and lower(m.repo_full_name) = lower(r.repo_full_name) and m.active
    where (args->>'resourceId' is null or r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId'))
      and (args->>'issueId' is null or exists (select 1 from app_public.external_links l
             where l.resource_id = r.id and l.issue_id = (app_hidden.find_issue(args->>'issueId', 'issueId')).id));
  else
    v_mapping := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (args->>'number')::int));
  end if;
  return jsonb_build_object('items', v_items);
end
$$;
comment on function app_hidden.repohost_prepare(args jsonb) is 'Read-only, as the caller: what the repohost tools must read from the host (mapping with apiUrl/tokenEnv, repository, number) for a url, a mappingId/repoFullName + number, or the resources behind a resourceId/issueId. The tool''s own function re-checks everything when it records.';
grant execute on function app_hidden.repohost_prepare(args jsonb) to svc_visitor;

create or replace function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb)
 returns app_public.external_resources
 language plpgsql
as $$
declare v_row app_public.external_resources;
begin
  if p_fetched is null or lower(p_fetched->>'repoFullName') <> lower(p_mapping.repo_full_name) then
    raise exception 'host answer missing for %', p_mapping.repo_full_name using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  insert into app_public.external_resources as r (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at)
  values (p_mapping.workspace_id, p_mapping.id, p_mapping.provider, p_mapping.repo_full_name, p_fetched->>'type',
          (p_fetched->>'number')::int, p_fetched->>'url', p_fetched->>'title', p_fetched->>'state',
          coalesce(p_fetched->'snapshot', '{}'), now())
  on conflict (workspace_id, lower(repo_full_name), number) do update
    set mapping_id = excluded.mapping_id, type = excluded.type, url = excluded.url, title = excluded.title,
        state = excluded.state, snapshot = excluded.snapshot, synced_at = excluded.synced_at
  returning * into v_row;
  return v_row;
end
$$;
comment on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) is 'Stores (or refreshes) the snapshot of an external issue/PR as just read from the host.';
grant execute on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) to svc_visitor;

create or replace function app_hidden.repo_apply_rules(p_resource app_public.external_resources)
 returns jsonb
 language plpgsql
as $$
declare
  v_mapping app_public.connection_mappings;
  v_link record;
  v_issue app_public.issues;
  v_category text;
  v_status_id uuid;
  v_patch jsonb;
  v_applied jsonb := '[]';
begin
  select * into v_mapping from app_public.connection_mappings m where m.id = p_resource.mapping_id;
  if v_mapping.id is null then return v_applied; end if;
  v_category := v_mapping.status_rules->>p_resource.state;
  for v_link in
    select l.issue_id, l.kind from app_public.external_links l
    join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
    where l.resource_id = p_resource.id and l.kind in ('SOURCE', 'IMPLEMENTS') order by i.number
  loop
    v_patch := '{}';
    select * into v_issue from app_public.issues i where i.id = v_link.issue_id;
    if v_category is not null and (select s.category from app_public.statuses s where s.id = v_issue.status_id) <> v_category then
      select s.id into v_status_id from app_public.statuses s
      where s.workspace_id = v_issue.workspace_id and s.category = v_category order by s.position, s.id limit 1;
      if v_status_id is not null then v_patch := v_patch || jsonb_build_object('statusId', v_status_id); end if;
    end if;
    if v_mapping.sync_title and v_link.kind = 'SOURCE' and p_resource.title is not null and p_resource.title <> v_issue.title then
      v_patch := v_patch || jsonb_build_object('title', left(p_resource.title, 500));
    end if;
    if v_patch <> '{}' then
      v_issue := app_hidden.update_issue(app_hidden.issue_for_write(v_issue.id::text), v_patch);
      v_applied := v_applied || jsonb_build_object('issueId', v_issue.id, 'key', v_issue.key,
        'changes', (select jsonb_agg(k) from jsonb_object_keys(v_patch) k));
    end if;
  end loop;
  return v_applied;
end
$$;
comment on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) is 'Applies the mapping''s rules to the live issues linked to a resource: status rules (external state → first status of that category) on SOURCE and IMPLEMENTS links, the external title on SOURCE links when syncTitle. Each change is an ordinary issue update (its events by trigger). Returns [{issueId, key, changes}].';
grant execute on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) to svc_visitor;

create or replace function app_hidden.repo_resource_imported(p_resource_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_public.external_links l join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
                 where l.resource_id = p_resource_id and l.kind = 'SOURCE'
                   and l.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.repo_resource_imported(p_resource_id uuid) is 'Whether an external resource was imported into a live issue of the caller''s workspace, including issues outside the key''s narrowing (so importIssue never makes a duplicate). Security definer: a yes/no, never the issue.';
grant execute on function app_hidden.repo_resource_imported(p_resource_id uuid) to svc_visitor;
--! EndIncluded repohost/mappings.sql
--! Included repohost/policies.sql
-- Row-level security policies of the repohost tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.connection_mappings;
create policy owner_all on app_public.connection_mappings for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.connection_mappings is 'The schema owner (operator) works on every row.';

drop policy if exists select_in_workspace on app_public.connection_mappings;
create policy select_in_workspace on app_public.connection_mappings for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.connection_mappings is 'Repository mappings of the caller''s workspace (no secret in them: the token is an environment variable name).';

drop policy if exists manage_as_admin on app_public.connection_mappings;
create policy manage_as_admin on app_public.connection_mappings for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))));
comment on policy manage_as_admin on app_public.connection_mappings is 'Only a key whose own user is OWNER or ADMIN adds, changes or removes repository mappings.';

drop policy if exists owner_all on app_public.external_resources;
create policy owner_all on app_public.external_resources for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.external_resources is 'The schema owner works on every row.';

drop policy if exists manage_in_workspace on app_public.external_resources;
create policy manage_in_workspace on app_public.external_resources for all to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy manage_in_workspace on app_public.external_resources is 'External issues/PRs seen by the caller''s workspace (snapshots of a mapped repository; not narrowed: the links to issues are).';

drop policy if exists owner_all on app_public.external_links;
create policy owner_all on app_public.external_links for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.external_links is 'The schema owner works on every row.';

drop policy if exists on_visible_issues on app_public.external_links;
create policy on_visible_issues on app_public.external_links for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = external_links.issue_id))))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy on_visible_issues on app_public.external_links is 'Links follow their issue: a narrowed key sees and changes links of issues it can see.';
--! EndIncluded repohost/policies.sql
--! Included repohost/triggers.sql
-- Triggers of the repohost tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_external_links__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.external_links := case when tg_op = 'DELETE' then old else new end;
begin
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['externalResources'],
    jsonb_build_object('externalLinkId', v_row.id, 'externalResourceId', v_row.resource_id, 'linkKind', v_row.kind));
  return null;
end
$$;
comment on function app_private.tg_external_links__events() is 'ISSUE_UPDATED (changes externalResources) when an issue is linked to an external issue/PR, or the link changes kind or goes.';

drop trigger if exists _800_events on app_public.external_links;
create trigger _800_events after insert or delete or update of kind on app_public.external_links for each row execute function app_private.tg_external_links__events();

create or replace function app_private.tg_external_resources__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.state is distinct from old.state or new.title is distinct from old.title then
    perform app_private.record_issue_updated(l.workspace_id, l.issue_id, array['externalResources'],
      jsonb_build_object('externalResourceId', new.id, 'externalState', new.state))
    from app_public.external_links l where l.workspace_id = new.workspace_id and l.resource_id = new.id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_external_resources__events() is 'ISSUE_UPDATED (changes externalResources) on every linked issue when a refreshed snapshot changes the external state or title.';

drop trigger if exists _800_events on app_public.external_resources;
create trigger _800_events after update on app_public.external_resources for each row execute function app_private.tg_external_resources__events();

drop trigger if exists _100_updated_at on app_public.connection_mappings;
create trigger _100_updated_at before update on app_public.connection_mappings for each row execute function app_hidden.tg__set_updated_at();
--! EndIncluded repohost/triggers.sql
--! Included repohost/tools/parseUrl.sql
-- The repohost.parseUrl tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- pure parsing; no host call, no mapping needed.
create or replace function app_tools.repohost_parse_url(args jsonb)
 returns jsonb
 language sql
 immutable
as $$
  select app_hidden.repo_parse_url(args->>'url')
$$;
grant execute on function app_tools.repohost_parse_url(args jsonb) to svc_visitor;
comment on function app_tools.repohost_parse_url(args jsonb) is 'repohost.parseUrl: Parse an issue or pull request URL (https://<host>/<owner>/<repo>/issues/<n> or /pull/<n>) into {owner, repo, repoFullName, type, number, url}. No call to the host.';
--! EndIncluded repohost/tools/parseUrl.sql
--! Included repohost/tools/listLinked.sql
-- The repohost.listLinked tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links of one visible issue with their resources (latest local snapshot), oldest first.
create or replace function app_tools.repohost_list_linked(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
begin
  return coalesce((select jsonb_agg(app_hidden.repo_link_json(l) order by l.created_at, l.id)
    from app_public.external_links l
    where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id
      and (args->>'kind' is null or l.kind = args->>'kind')), '[]');
end
$$;
grant execute on function app_tools.repohost_list_linked(args jsonb) to svc_visitor;
comment on function app_tools.repohost_list_linked(args jsonb) is 'repohost.listLinked: External issues and pull requests linked to an issue, each with its link kind and the latest local snapshot (refresh with repohost.sync).';
--! EndIncluded repohost/tools/listLinked.sql
--! Included repohost/tools/link.sql
-- The repohost.link tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fetched = what the Node half just read from the host for the URL's repository and number. Records the
-- snapshot and links it to the issue (an existing link of that issue and resource takes the new kind).
create or replace function app_tools.repohost_link(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_parsed jsonb := app_hidden.repo_parse_url(args->>'url');
  v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(null, v_parsed->>'repoFullName', 'url');
  v_resource app_public.external_resources;
  v_link app_public.external_links;
  v_created boolean;
begin
  if (args->'fetched'->0->>'number')::int is distinct from (v_parsed->>'number')::int then
    raise exception 'host answer missing for %', args->>'url' using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  v_resource := app_hidden.repo_resource_record(v_mapping, args->'fetched'->0);
  select * into v_link from app_public.external_links l where l.issue_id = v_issue.id and l.resource_id = v_resource.id;
  v_created := v_link.id is null;
  if v_created then
    insert into app_public.external_links (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id)
    values (v_issue.workspace_id, v_issue.id, v_resource.id, args->>'kind', app_hidden.current_user_id(), app_hidden.current_agent_id())
    returning * into v_link;
  elsif v_link.kind <> args->>'kind' then
    update app_public.external_links l set kind = args->>'kind' where l.id = v_link.id returning * into v_link;
  end if;
  return app_hidden.repo_link_json(v_link) || jsonb_build_object('created', v_created);
end
$$;
grant execute on function app_tools.repohost_link(args jsonb) to svc_visitor;
comment on function app_tools.repohost_link(args jsonb) is 'repohost.link: Link an issue or pull request URL of a mapped repository to an existing issue with kind SOURCE, IMPLEMENTS, REVIEWS or RELATES_TO. Reads the resource from the host and stores its snapshot; linking the same URL again changes the kind (created false). Never writes to the host.';
--! EndIncluded repohost/tools/link.sql
--! Included repohost/tools/importIssue.sql
-- The repohost.importIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- idempotent: a resource already imported (SOURCE link to a live issue) returns that issue with created
-- false; otherwise issues.create (title from the host, description with the host body and a link back),
-- optional queue, and the SOURCE link, all in this transaction.
create or replace function app_tools.repohost_import_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
  v_fetched jsonb := args->'fetched'->0;
  v_resource app_public.external_resources;
  v_link app_public.external_links;
  v_issue jsonb;
  v_body text;
begin
  if (v_fetched->>'number')::int is distinct from (args->>'number')::int then
    raise exception 'host answer missing for %#%', v_mapping.repo_full_name, args->>'number' using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  v_resource := app_hidden.repo_resource_record(v_mapping, v_fetched);
  select l.* into v_link from app_public.external_links l
  join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
  where l.resource_id = v_resource.id and l.kind = 'SOURCE' order by l.created_at limit 1;
  if v_link.id is not null then
    return jsonb_build_object('issueId', v_link.issue_id, 'created', false,
      'resource', app_hidden.repo_resource_json(v_resource), 'link', app_hidden.repo_link_json(v_link));
  end if;
  if app_hidden.repo_resource_imported(v_resource.id) then
    raise exception '%#% was already imported into an issue this key cannot see', v_resource.repo_full_name, v_resource.number
      using errcode = 'SV409', detail = 'already_imported';
  end if;
  v_body := coalesce(nullif(v_fetched->'snapshot'->>'body', '') || E'\n\n', '')
    || format('Imported from %s', v_resource.url);
  v_issue := app_tools.issues_create(jsonb_strip_nulls(jsonb_build_object(
    'title', left(coalesce(nullif(v_resource.title, ''), v_resource.repo_full_name || '#' || v_resource.number), 500),
    'description', v_body, 'projectId', args->'projectId', 'labelIds', args->'labelIds')));
  if coalesce((args->>'queue')::boolean, false) then
    v_issue := app_tools.issues_queue(jsonb_build_object('id', v_issue->>'id'));
  end if;
  insert into app_public.external_links (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id)
  values (v_mapping.workspace_id, (v_issue->>'id')::uuid, v_resource.id, 'SOURCE', app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_link;
  return jsonb_build_object('issueId', v_issue->>'id', 'created', true, 'issue', v_issue,
    'resource', app_hidden.repo_resource_json(v_resource), 'link', app_hidden.repo_link_json(v_link));
end
$$;
grant execute on function app_tools.repohost_import_issue(args jsonb) to svc_visitor;
comment on function app_tools.repohost_import_issue(args jsonb) is 'repohost.importIssue: Create an issue from an issue or pull request of a mapped repository (give mappingId, or repoFullName with an active mapping, and number). Idempotent: when it was imported before, returns that issue with created false. Links it with kind SOURCE; optional projectId, labelIds, queue.';
--! EndIncluded repohost/tools/importIssue.sql
--! Included repohost/tools/sync.sql
-- The repohost.sync tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fetched = fresh host answers for the resources behind resourceId or issueId (from repohost_prepare).
-- Each snapshot is stored, then the mapping's status/title rules are applied to the linked issues.
create or replace function app_tools.repohost_sync(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_fetched jsonb;
  v_mapping app_public.connection_mappings;
  v_resource app_public.external_resources;
  v_items jsonb := '[]';
begin
  if args->>'issueId' is not null then
    perform app_hidden.find_issue(args->>'issueId', 'issueId');
  end if;
  if args->>'resourceId' is not null and not exists (
      select 1 from app_public.external_resources r where r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId')) then
    raise exception 'External resource not found' using errcode = 'SV404', column = 'resourceId';
  end if;
  for v_fetched in select * from jsonb_array_elements(coalesce(args->'fetched', '[]')) loop
    v_mapping := app_hidden.repo_mapping_resolve(null, v_fetched->>'repoFullName');
    v_resource := app_hidden.repo_resource_record(v_mapping, v_fetched);
    v_items := v_items || jsonb_build_object('resource', app_hidden.repo_resource_json(v_resource),
      'applied', app_hidden.repo_apply_rules(v_resource));
  end loop;
  return jsonb_build_object('items', v_items);
end
$$;
grant execute on function app_tools.repohost_sync(args jsonb) to svc_visitor;
comment on function app_tools.repohost_sync(args jsonb) is 'repohost.sync: Refresh the stored snapshot of linked external resources (one resourceId, or every resource linked to issueId) from the host and apply the mapping''s rules: status rules move SOURCE/IMPLEMENTS-linked issues (e.g. closed or merged → Done), syncTitle copies the title onto SOURCE-linked issues.';
--! EndIncluded repohost/tools/sync.sql
--! Included repohost/tools/search.sql
-- The repohost.search tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the SQL half: the caller's active mapping for the repository (404/422 otherwise); the Node half then
-- searches the host and marks the results already linked in this workspace.
create or replace function app_tools.repohost_search(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
begin
  return jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
    'known', coalesce((select jsonb_object_agg(r.number::text, r.id) from app_public.external_resources r
                       where r.workspace_id = v_mapping.workspace_id and lower(r.repo_full_name) = lower(v_mapping.repo_full_name)), '{}'));
end
$$;
grant execute on function app_tools.repohost_search(args jsonb) to svc_visitor;
comment on function app_tools.repohost_search(args jsonb) is 'repohost.search: Search issues and pull requests of a mapped repository on the host (GitHub search syntax in query); each hit says whether this workspace already knows it (resourceId).';
--! EndIncluded repohost/tools/search.sql

--! Included analytics/tools/summary.sql
-- The analytics.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- coarse counts over the issues the key can see (RLS applies narrowing): by status category and status,
-- throughput (issues completed per UTC day over windowDays), and breaches (SLA, stalled, no-ack events in the
-- window on issues still open).
create or replace function app_tools.analytics_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_days int := coalesce((args->>'windowDays')::int, 14);
  v_from date := (now() at time zone 'utc')::date - (v_days - 1);
  v_by_category jsonb;
  v_by_status jsonb;
  v_per_day jsonb;
  v_breaches jsonb;
begin
  select jsonb_object_agg(c.category, coalesce(n.count, 0)) into v_by_category
  from unnest(array['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED']) as c(category)
  left join (select s.category, count(*) as count from app_public.issues i join app_public.statuses s on s.id = i.status_id
             where i.workspace_id = v_ws and i.deleted_at is null group by s.category) n on n.category = c.category;

  select coalesce(jsonb_agg(jsonb_build_object('statusId', s.id, 'name', s.name, 'category', s.category,
           'count', (select count(*) from app_public.issues i where i.workspace_id = v_ws and i.status_id = s.id and i.deleted_at is null))
         order by s.position, s.id), '[]')
  into v_by_status from app_public.statuses s where s.workspace_id = v_ws;

  select jsonb_agg(jsonb_build_object('date', d::date, 'done', coalesce(n.count, 0)) order by d)
  into v_per_day
  from generate_series(v_from, (now() at time zone 'utc')::date, interval '1 day') d
  left join (select (i.completed_at at time zone 'utc')::date as day, count(*) as count
             from app_public.issues i join app_public.statuses s on s.id = i.status_id and s.category = 'DONE'
             where i.workspace_id = v_ws and i.deleted_at is null and i.completed_at >= v_from::timestamp at time zone 'utc'
             group by 1) n on n.day = d::date;

  select jsonb_build_object(
      'open', count(distinct e.subject_id),
      'byKind', jsonb_build_object(
        'ISSUE_SLA_BREACH', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_SLA_BREACH'),
        'ISSUE_STALLED', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_STALLED'),
        'AGENT_NOACK', count(distinct e.subject_id) filter (where e.kind = 'AGENT_NOACK')))
  into v_breaches
  from app_public.activity_events e
  join app_public.issues i on i.id = e.subject_id and i.deleted_at is null
  join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
  where e.workspace_id = v_ws and e.subject_type = 'issue'
    and e.kind in ('ISSUE_SLA_BREACH', 'ISSUE_STALLED', 'AGENT_NOACK')
    and e.created_at >= v_from::timestamp at time zone 'utc';

  return jsonb_build_object(
    'workspaceKey', (select w.key from app_public.workspaces w where w.id = v_ws),
    'generatedAt', now(),
    'counts', jsonb_build_object('byCategory', v_by_category, 'byStatus', v_by_status,
      'open', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category) where key not in ('DONE', 'CANCELED')),
      'total', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category))),
    'throughput', jsonb_build_object('windowDays', v_days, 'from', v_from,
      'total', (select coalesce(sum((x->>'done')::int), 0) from jsonb_array_elements(v_per_day) x), 'perDay', v_per_day),
    'breaches', v_breaches);
end
$$;
grant execute on function app_tools.analytics_summary(args jsonb) to svc_visitor;
comment on function app_tools.analytics_summary(args jsonb) is 'analytics.summary: Coarse workspace figures over the issues this key can see: counts by status category and by status, throughput (issues completed per UTC day over windowDays, default 14, max 90), and open breaches (issues still open with an SLA breach, stall or missed ack in the window).';
--! EndIncluded analytics/tools/summary.sql
--! Included standup/tools/draft.sql
-- The standup.draft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- what moved in the last sinceHours among the issues the key can see: done (completed), started (work began,
-- not done), opened (created), blocked (open and blocked by an open issue, whenever). Up to 50 rows per
-- group; counts are the full numbers. Markdown for chat.
create or replace function app_tools.standup_draft(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_hours int := coalesce((args->>'sinceHours')::int, 24);
  v_since timestamptz := now() - make_interval(hours => v_hours);
  v_key text := (select w.key from app_public.workspaces w where w.id = v_ws);
  v_groups jsonb := '{}';
  v_counts jsonb := '{}';
  v_group text;
  v_ids uuid[];
  v_md text;
  v_labels jsonb := '{"done":"Done","started":"Started","opened":"Opened","blocked":"Blocked"}';
begin
  foreach v_group in array array['done', 'started', 'opened', 'blocked'] loop
    select array_agg(i.id order by i.number desc) into v_ids
    from app_public.issues i join app_public.statuses s on s.id = i.status_id
    where i.workspace_id = v_ws and i.deleted_at is null and case v_group
      when 'done' then s.category = 'DONE' and i.completed_at >= v_since
      when 'started' then s.category in ('IN_PROGRESS', 'IN_REVIEW') and i.started_at >= v_since
      when 'opened' then i.created_at >= v_since
      else s.category not in ('DONE', 'CANCELED') and exists (
        select 1 from app_public.issue_relations r
        join app_public.issues b on b.id = r.from_issue_id and b.deleted_at is null
        join app_public.statuses bs on bs.id = b.status_id and bs.category not in ('DONE', 'CANCELED')
        where r.workspace_id = v_ws and r.kind = 'BLOCKS' and r.to_issue_id = i.id)
    end;
    v_counts := v_counts || jsonb_build_object(v_group, coalesce(cardinality(v_ids), 0));
    v_groups := v_groups || jsonb_build_object(v_group, coalesce((
      select jsonb_agg(jsonb_build_object('id', i.id, 'number', i.number, 'key', i.key, 'title', i.title) order by i.number desc)
      from app_public.issues i where i.id = any(v_ids[1:50])), '[]'));
  end loop;

  v_md := format('**Standup — %s — last %s h**', v_key, v_hours);
  foreach v_group in array array['done', 'started', 'opened', 'blocked'] loop
    v_md := v_md || E'\n\n' || format('*%s (%s)*', v_labels->>v_group, v_counts->>v_group);
    if jsonb_array_length(v_groups->v_group) = 0 then
      v_md := v_md || E'\n_nothing_';
    else
      v_md := v_md || coalesce((select string_agg(E'\n• `' || (r->>'key') || '` ' || replace(r->>'title', E'\n', ' '), '')
                                from jsonb_array_elements(v_groups->v_group) r), '');
      if (v_counts->>v_group)::int > 50 then
        v_md := v_md || E'\n• …and ' || ((v_counts->>v_group)::int - 50) || ' more';
      end if;
    end if;
  end loop;

  return jsonb_build_object('markdown', v_md, 'sinceHours', v_hours, 'since', v_since, 'workspaceKey', v_key,
    'counts', v_counts, 'groups', v_groups);
end
$$;
grant execute on function app_tools.standup_draft(args jsonb) to svc_visitor;
comment on function app_tools.standup_draft(args jsonb) is 'standup.draft: A standup draft for the last sinceHours (default 24, max 168): issues done, started, opened, and currently blocked (by an open issue), as groups of {id, number, key, title} (up to 50 each; counts are the totals) and as markdown that pastes well into chat.';
--! EndIncluded standup/tools/draft.sql

--! split: 90-say-it-once.sql
-- Issue 8, "say things once": one paging helper, one finder, one bulk-item wrapper.

-- Paging: a list's rows as (shaped item, sort key, id); app_hidden.page_json turns them into {items, nextCursor}.
do $$ begin
  create type app_hidden.page_row as (item jsonb, sort_key text, id uuid);
exception when duplicate_object then null;
end $$;
comment on type app_hidden.page_row is 'One row of a paged list: the shaped item and the (sort key, id) its cursor encodes (id null: the sort key alone).';
-- Cursor decoders take the field to name in their 400 (comments.list and events.recent page with before).
drop function if exists app_hidden.cursor_decode(text, text);
drop function if exists app_hidden.keyset_decode(text, text);
--! Included core/paging.sql
-- Opaque cursors of paged lists.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text)
 returns text
 language plpgsql
 immutable
as $$
declare
  v_b64 text := translate(p_cursor, '-_', '+/');
  v_token text;
begin
  v_b64 := v_b64 || repeat('=', (4 - length(v_b64) % 4) % 4);
  v_token := convert_from(decode(v_b64, 'base64'), 'utf8');
  if left(v_token, length(p_prefix) + 1) <> p_prefix || ':' then
    raise exception 'bad cursor' using errcode = 'SV400', column = p_field;
  end if;
  return substr(v_token, length(p_prefix) + 2);
exception when others then
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) is 'Reads a cursor made by cursor_encode; a foreign or damaged cursor is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) to svc_visitor;

create or replace function app_hidden.cursor_encode(p_token text)
 returns text
 language plpgsql
 immutable parallel safe
as $$
begin
  -- plpgsql: as `language sql` it is never inlined (convert_to is only stable) and was planned again in
  -- every statement that called it (0.15 ms).
  return rtrim(translate(encode(convert_to(p_token, 'utf8'), 'base64'), E'+/\n', '-_'), '=');
end
$$;
comment on function app_hidden.cursor_encode(p_token text) is 'Opaque cursor for keyset pagination (base64url of a small token, no padding, no line breaks).';
grant execute on function app_hidden.cursor_encode(p_token text) to svc_visitor;

create or replace function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text, OUT sort_key text, OUT sort_id uuid)
 returns record
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix, p_field);
begin
  if length(v_token) < 38 or substr(v_token, length(v_token) - 36, 1) <> '|' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end if;
  sort_key := substr(v_token, 1, length(v_token) - 37);
  sort_id := app_hidden.parse_uuid(right(v_token, 36), p_field);
end
$$;
comment on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) is 'Reads a cursor made by keyset_encode (a null cursor gives nulls); anything else is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) to svc_visitor;

create or replace function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select app_hidden.cursor_encode(p_prefix || ':' || p_sort || '|' || p_id::text) $$;
comment on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) is 'Opaque keyset cursor for (sort key, id) ordered lists.';
grant execute on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) to svc_visitor;

-- Every paged list ends the same way: it selects up to limit + 1 rows as page_row (item = the shaped row,
-- sort_key/id = what its cursor encodes) and returns page_json(rows, limit, prefix). The look-ahead row
-- only says that there is a next page; a list shapes it lazily (item null past the limit:
-- `case when row_number() over w <= v_limit then <shape> end`), so no row is shaped for nothing.
create or replace function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_last app_hidden.page_row;
begin
  if cardinality(p_rows) > p_limit then
    v_last := p_rows[p_limit];
  end if;
  return jsonb_build_object(
    'items', (select coalesce(jsonb_agg(r.item order by r.n), '[]')
              from unnest(p_rows[:p_limit]) with ordinality r(item, sort_key, id, n)),
    'nextCursor', case
      when v_last is null then null
      when p_prefix is null then v_last.sort_key
      when v_last.id is null then app_hidden.cursor_encode(p_prefix || ':' || v_last.sort_key)
      else app_hidden.keyset_encode(p_prefix, v_last.sort_key, v_last.id) end);
end
$$;
comment on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) is 'A page of a list: {items, nextCursor} from up to limit + 1 rows in list order. nextCursor (when a row follows the page) is the last item''s keyset_encode(prefix, sort_key, id), or cursor_encode(prefix:sort_key) when id is null, or sort_key itself when prefix is null.';
grant execute on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) to svc_visitor;
--! EndIncluded core/paging.sql
-- One finder: app_hidden.found (404 naming the field) behind every find_<entity>; one bulk wrapper:
-- app_hidden.each_item (it absorbs raise_in_item).
--! Included core/errors.sql
-- Raising the service's own SQLSTATEs (SV400, SV404 ...), mapped to HTTP in src/errors.ts.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The finder every find_<entity> uses: it looks its row up (by id parsed with parse_uuid, so a malformed id
-- is a 400 on the field) and hands it here; nothing found, or nothing visible under RLS, reads the same.
create or replace function app_hidden.found(p_row anyelement, p_what text, p_field text default 'id'::text)
 returns anyelement
 language plpgsql
 stable
as $$
begin
  if p_row is null then
    raise exception '% not found', p_what using errcode = 'SV404', column = p_field;
  end if;
  return p_row;
end
$$;
comment on function app_hidden.found(p_row anyelement, p_what text, p_field text) is 'A looked-up row, or 404 "<what> not found" naming the field when there is none (a missing row and one RLS hides read the same).';
grant execute on function app_hidden.found(p_row anyelement, p_what text, p_field text) to svc_visitor;

create or replace function app_hidden.raise_invalid(p_field text, p_message text)
 returns void
 language plpgsql
as $$
begin
  raise exception '%', p_message using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.raise_invalid(p_field text, p_message text) is 'Raises SV400 for one input field (HTTP 400 with issues = {field: message}).';
grant execute on function app_hidden.raise_invalid(p_field text, p_message text) to svc_visitor;

create or replace function app_hidden.raise_not_found(p_what text)
 returns void
 language plpgsql
as $$
begin
  raise exception '% not found', p_what using errcode = 'SV404';
end
$$;
comment on function app_hidden.raise_not_found(p_what text) is 'Raises SV404 "<what> not found" (HTTP 404).';
grant execute on function app_hidden.raise_not_found(p_what text) to svc_visitor;
--! EndIncluded core/errors.sql
--! Included core/bulk.sql
-- Bulk tools (issues.createMany, issues.updateMany): one item after another, all or nothing.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A bulk tool is `return jsonb_build_object('items', app_hidden.each_item(args->'items', '<fn>(jsonb)'))`,
-- where <fn>(item jsonb) (or <fn>(item jsonb, done jsonb), done = the results so far) handles one item
-- exactly as the single tool does. A business error (SV…) of item N is re-raised naming its field
-- items.N.<field>; any error rolls the whole call back.
create or replace function app_hidden.each_item(p_items jsonb, p_fn regprocedure)
 returns jsonb
 language plpgsql
as $$
declare
  v_call text := format('select %s($1%s)', p_fn::oid::regproc,
                        case when (select p.pronargs from pg_proc p where p.oid = p_fn) = 2 then ', $2' else '' end);
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_result jsonb;
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(p_items) e loop
    begin
      execute v_call into v_result using v_item, v_out;
      v_out := v_out || jsonb_build_array(v_result);
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        raise exception using errcode = v_state, message = v_msg, detail = coalesce(v_detail, ''),
          hint = coalesce(v_hint, ''),
          column = 'items.' || v_index || case when coalesce(v_col, '') <> '' then '.' || v_col else '' end;
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) is 'Bulk tools: p_fn(item[, results so far]) for each item in order, results as a JSON array; a business error (SV…) of item N is re-raised naming its field items.N.<field>, and the whole call rolls back.';
grant execute on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) to svc_visitor;
--! EndIncluded core/bulk.sql
--! Included projects/tools/list.sql
-- The projects.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId
-- filter (null = without initiative).
create or replace function app_tools.projects_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_initiative uuid := app_hidden.parse_uuid(args->>'initiativeId', 'initiativeId');
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'projects');
begin
  return app_hidden.page_json(array(
    select (app_hidden.project_json(p), app_hidden.ts_key(p.created_at), p.id)::app_hidden.page_row
    from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           or (v_initiative is null and p.initiative_id is null)
           or p.initiative_id = v_initiative)
      and (v_after.sort_id is null or (p.created_at, p.id) > (v_after.sort_key::timestamptz, v_after.sort_id))
    order by p.created_at, p.id limit v_limit + 1), v_limit, 'projects');
end
$$;
comment on function app_tools.projects_list(args jsonb) is 'projects.list: Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative).';
grant execute on function app_tools.projects_list(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/list.sql
--! Included initiatives/tools/list.sql
-- The initiatives.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- initiatives the key can see (initiative narrowing), oldest first, keyset-paged.
create or replace function app_tools.initiatives_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'initiatives');
begin
  return app_hidden.page_json(array(
    select (app_hidden.initiative_json(i), app_hidden.ts_key(i.created_at), i.id)::app_hidden.page_row
    from app_public.initiatives i
    where i.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or i.archived_at is null)
      and (v_after.sort_id is null or (i.created_at, i.id) > (v_after.sort_key::timestamptz, v_after.sort_id))
    order by i.created_at, i.id limit v_limit + 1), v_limit, 'initiatives');
end
$$;
comment on function app_tools.initiatives_list(args jsonb) is 'initiatives.list: Initiatives (long-running objectives grouping projects) this key can see, oldest first, paged ({items, nextCursor}).';
grant execute on function app_tools.initiatives_list(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/list.sql
--! Included cycles/tools/list.sql
-- The cycles.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.
create or replace function app_tools.cycles_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'cycles');
begin
  return app_hidden.page_json(array(
    select (app_hidden.cycle_json(c), to_char(c.starts_on, 'YYYY-MM-DD'), c.id)::app_hidden.page_row
    from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or c.status = args->>'status')
      and (v_after.sort_id is null or (c.starts_on, c.id) < (v_after.sort_key::date, v_after.sort_id))
    order by c.starts_on desc, c.id desc limit v_limit + 1), v_limit, 'cycles');
end
$$;
comment on function app_tools.cycles_list(args jsonb) is 'cycles.list: Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.';
grant execute on function app_tools.cycles_list(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/list.sql
--! Included notes/tools/list.sql
-- The notes.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's notes, most recently updated first, keyset-paged; kind NOTE and live (not archived) by
-- default; pinned filter.
create or replace function app_tools.notes_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_archived boolean := coalesce((args->>'archived')::boolean, false);
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_after record;
begin
  perform app_hidden.require_user();
  v_after := app_hidden.keyset_decode(args->>'cursor', 'notes');
  return app_hidden.page_json(array(
    select (app_hidden.note_json(n), app_hidden.ts_key(n.updated_at), n.id)::app_hidden.page_row
    from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = v_kind
      and (n.archived_at is not null) = v_archived
      and (args->>'pinned' is null or n.pinned = (args->>'pinned')::boolean)
      and (v_after.sort_id is null or (n.updated_at, n.id) < (v_after.sort_key::timestamptz, v_after.sort_id))
    order by n.updated_at desc, n.id desc limit v_limit + 1), v_limit, 'notes');
end
$$;
comment on function app_tools.notes_list(args jsonb) is 'notes.list: Your notes, most recently updated first, paged ({items, nextCursor}). Kind NOTE and not archived by default; archived: true lists archived ones; pinned filters.';
grant execute on function app_tools.notes_list(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/list.sql
--! Included notes/tools/listJournal.sql
-- The notes.listJournal tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's live journal entries, newest day first, between from and to (inclusive), limit default 30,
-- keyset-paged.
create or replace function app_tools.notes_list_journal(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 30);
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
  v_after record;
begin
  perform app_hidden.require_user();
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  v_after := app_hidden.keyset_decode(args->>'cursor', 'journal');
  return app_hidden.page_json(array(
    select (app_hidden.note_json(n), to_char(n.journal_date, 'YYYY-MM-DD'), n.id)::app_hidden.page_row
    from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = 'JOURNAL' and n.archived_at is null
      and (v_from is null or n.journal_date >= v_from)
      and (v_to is null or n.journal_date <= v_to)
      and (v_after.sort_id is null or (n.journal_date, n.id) < (v_after.sort_key::date, v_after.sort_id))
    order by n.journal_date desc, n.id desc limit v_limit + 1), v_limit, 'journal');
end
$$;
comment on function app_tools.notes_list_journal(args jsonb) is 'notes.listJournal: Your journal entries, newest day first, between from and to (inclusive dates), paged ({items, nextCursor}); limit default 30.';
grant execute on function app_tools.notes_list_journal(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/listJournal.sql
--! Included time/tools/list.sql
-- The time.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- time entries on issues the key can see (everyone's), newest start first, keyset-paged; filters userId,
-- issueId, from/to.
create or replace function app_tools.time_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record;
begin
  perform app_hidden.require_time_tracking();
  v_after := app_hidden.keyset_decode(args->>'cursor', 'time');
  return app_hidden.page_json(array(
    select (app_hidden.time_entry_json(e), app_hidden.ts_key(e.started_at), e.id)::app_hidden.page_row
    from app_hidden.time_entries_filtered(args) e
    where v_after.sort_id is null or (e.started_at, e.id) < (v_after.sort_key::timestamptz, v_after.sort_id)
    order by e.started_at desc, e.id desc limit v_limit + 1), v_limit, 'time');
end
$$;
comment on function app_tools.time_list(args jsonb) is 'time.list: Time entries on issues this key can see, newest first, paged ({items, nextCursor}); filter by userId, issueId and a from/to day range. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_list(args jsonb) to svc_visitor;
--! EndIncluded time/tools/list.sql
--! Included labels/tools/list.sql
-- The labels.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- labels of the workspace by name (query = substring, case-insensitive), paged.
create or replace function app_tools.labels_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
  v_query text := nullif(btrim(coalesce(args->>'query', '')), '');
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'labels');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.label_json(l), lower(l.name), null)::app_hidden.page_row
    from app_public.labels l
    where l.workspace_id = app_hidden.current_workspace_id()
      and (v_after is null or lower(l.name) > v_after)
      and (v_query is null or strpos(lower(l.name), lower(v_query)) > 0)
    order by lower(l.name) limit v_limit + 1), v_limit, 'labels');
end
$$;
comment on function app_tools.labels_list(args jsonb) is 'labels.list: Labels of the workspace, by name. query matches part of the name. Use label ids with issues.addLabels / removeLabels or issues.update labelIds.';
grant execute on function app_tools.labels_list(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/list.sql
--! Included comments/tools/list.sql
-- The comments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before =
-- the nextCursor of the previous page.
create or replace function app_tools.comments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before record := app_hidden.keyset_decode(args->>'before', 'comments', 'before');
begin
  -- The page first (index order, limit), then its authors by join and an inlined shaper: no per-row
  -- function call.
  return app_hidden.page_json(array(
    select (app_hidden.comment_shape(t.c, u, a), app_hidden.ts_key((t.c).created_at), (t.c).id)::app_hidden.page_row
    from (select c from app_public.comments c
          where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
            and (v_before.sort_id is null or (c.created_at, c.id) < (v_before.sort_key::timestamptz, v_before.sort_id))
          order by c.created_at desc, c.id desc limit v_limit + 1) t
    left join app_public.users u on u.id = (t.c).author_user_id
    left join app_public.agents a on a.id = (t.c).authoring_agent_id
    order by (t.c).created_at desc, (t.c).id desc), v_limit, 'comments');
end
$$;
comment on function app_tools.comments_list(args jsonb) is 'comments.list: Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.';
grant execute on function app_tools.comments_list(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/list.sql
--! Included events/tools/recent.sql
-- The events.recent tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first; filters subjectType, subjectId, kinds; before = the nextCursor of a previous page. Issue
-- narrowing applies to issue subjects.
create or replace function app_tools.events_recent(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_subject_id uuid := app_hidden.parse_uuid(args->>'subjectId', 'subjectId');
  v_kinds text[] := (select array_agg(k) from jsonb_array_elements_text(args->'kinds') k);
  v_before_seq bigint;
begin
  if args->>'subjectType' = 'issue' and v_subject_id is not null then
    -- Narrowing is enforced on the subject itself: an issue outside it is not found.
    perform app_hidden.find_issue(v_subject_id::text, 'subjectId');
  end if;
  if args->>'before' is not null then
    v_before_seq := app_hidden.cursor_decode(args->>'before', 'events', 'before')::bigint;
  end if;
  -- The page first (index order, limit), then its actors by join and an inlined shaper: no per-row
  -- function call (event_json per row was 3 of 7 ms).
  return app_hidden.page_json(array(
    select (app_hidden.event_shape(t.e, a, u, true), (t.e).seq::text, null)::app_hidden.page_row
    from (select e from app_public.activity_events e
          where e.workspace_id = v_ws
            and (args->>'subjectType' is null or e.subject_type = args->>'subjectType')
            and (v_subject_id is null or e.subject_id = v_subject_id)
            and (v_kinds is null or e.kind = any(v_kinds))
            and (v_before_seq is null or e.seq < v_before_seq)
          order by e.seq desc limit v_limit + 1) t
    left join app_public.agents a on a.id = (t.e).actor_agent_id
    left join app_public.users u on u.id = (t.e).actor_user_id
    order by (t.e).seq desc), v_limit, 'events');
end
$$;
comment on function app_tools.events_recent(args jsonb) is 'events.recent: Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id) or kinds; page with before = nextCursor.';
grant execute on function app_tools.events_recent(args jsonb) to svc_visitor;
--! EndIncluded events/tools/recent.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number, keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_page app_hidden.page_row[];
  v_before int := 2147483647;
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the list index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    v_page := array(
      select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, '[]')), (t.i).number::text, null)::app_hidden.page_row
      from (select i from app_public.issues i
            where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
            order by i.number desc limit v_limit + 1) t
      left join app_public.statuses s on s.id = (t.i).status_id
      left join app_public.projects p on p.id = (t.i).project_id
      left join app_public.agents a on a.id = (t.i).assigned_agent_id
      left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                         from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
      order by (t.i).number desc);
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
    end if;
    if v_status is not null then
      if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        v_where := v_where || format(' and i.status_id = %L::uuid', v_status);
      elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
        v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category = %L)', v_status);
      else
        v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and lower(s.name) = lower(%L))', v_status);
      end if;
    end if;
    if args->>'open' is not null then
      v_where := v_where || format(' and i.status_id %s (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category in (''DONE'', ''CANCELED''))',
                                   case when (args->>'open')::boolean then 'not in' else 'in' end);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array(select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')), (t.i).number::text, null)::app_hidden.page_row
       from (select i from app_public.issues i where %s order by i.number desc limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
       order by (t.i).number desc)', v_where, v_limit + 1)
    into v_page
    using app_hidden.current_workspace_id();
  end if;
  return app_hidden.page_json(v_page, v_limit, 'issues');
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included issues/tools/listWatchers.sql
-- The issues.listWatchers tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- watchers of an issue (user or agent identity), oldest first, paged.
create or replace function app_tools.issues_list_watchers(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'watchers');
begin
  return app_hidden.page_json(array(
    select (app_hidden.watcher_json(w), app_hidden.ts_key(w.created_at), w.id)::app_hidden.page_row
    from app_public.issue_watchers w
    where w.issue_id = v_issue.id
      and (v_after.sort_id is null or (w.created_at, w.id) > (v_after.sort_key::timestamptz, v_after.sort_id))
    order by w.created_at, w.id limit v_limit + 1), v_limit, 'watchers');
end
$$;
comment on function app_tools.issues_list_watchers(args jsonb) is 'issues.listWatchers: Who watches an issue: users ({id, name, email}) and agents ({id, profileKey, name}), oldest first, paged.';
grant execute on function app_tools.issues_list_watchers(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/listWatchers.sql
--! Included issues/tools/listWatching.sql
-- The issues.listWatching tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- live issues the caller watches (as its agent, else as its user), newest first, paged.
create or replace function app_tools.issues_list_watching(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
  v_before int;
begin
  if args->>'cursor' is not null then
    v_before := app_hidden.cursor_decode(args->>'cursor', 'watching')::int;
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.issue_json(i), i.number::text, null)::app_hidden.page_row
    from app_public.issues i
    join app_public.issue_watchers w on w.issue_id = i.id
    where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
      and (case when v_agent is not null then w.agent_id = v_agent
                else w.agent_id is null and w.user_id = v_user end)
      and (v_before is null or i.number < v_before)
    order by i.number desc limit v_limit + 1), v_limit, 'watching');
end
$$;
comment on function app_tools.issues_list_watching(args jsonb) is 'issues.listWatching: Issues the caller watches (its linked agent''s watches, else its user''s), newest first, paged.';
grant execute on function app_tools.issues_list_watching(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/listWatching.sql
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once.';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_delete(p_webhook_id uuid) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN).';
grant execute on function app_hidden.webhook_delete(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  if p_webhook_id is not null then
    perform app_hidden.webhook_in_workspace(p_webhook_id);
  end if;
  return app_private.webhook_deliveries_list(app_hidden.current_workspace_id(), p_webhook_id, p_status, p_limit, p_before);
end
$$;
comment on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'In-app: deliveries of the calling workspace (OWNER/ADMIN).';
grant execute on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) to svc_visitor;

create or replace function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', d.id, 'eventId', d.event_id,
    'eventKind', (select e.kind from app_public.activity_events e where e.id = d.event_id),
    'webhookId', d.webhook_id, 'agentId', d.agent_id, 'channel', d.channel, 'status', d.status,
    'attemptCount', d.attempt_count, 'totalAttempts', d.total_attempts,
    'nextAttemptAt', case when d.status = 'PENDING' then d.next_attempt_at end,
    'lastStatusCode', d.last_status_code, 'lastError', d.last_error,
    'deliveredAt', d.delivered_at, 'deadLetteredAt', d.dead_lettered_at, 'createdAt', d.created_at,
    'attempts', coalesce((select jsonb_agg(jsonb_build_object('attempt', a.attempt_number, 'url', a.url,
        'startedAt', a.started_at, 'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error,
        'responseBody', a.response_body) order by a.attempt_number)
      from app_public.webhook_delivery_attempts a where a.workspace_id = d.workspace_id and a.delivery_id = d.id), '[]'))
$$;
comment on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) is 'Delivery shape with every attempt (status, duration, truncated response).';
grant execute on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) to svc_visitor;

create or replace function app_hidden.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';
grant execute on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_in_workspace(p_webhook_id uuid)
 returns uuid
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  if not exists (select 1 from app_public.webhooks where id = p_webhook_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return p_webhook_id;
end
$$;
comment on function app_hidden.webhook_in_workspace(p_webhook_id uuid) is 'The webhook id when it belongs to the calling workspace, else 404.';
grant execute on function app_hidden.webhook_in_workspace(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_json(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events), 'active', w.active,
    'description', w.description, 'deactivatedAt', w.deactivated_at, 'deactivatedReason', w.deactivated_reason,
    'createdAt', w.created_at, 'updatedAt', w.updated_at)
$$;
comment on function app_hidden.webhook_json(w app_public.webhooks) is 'Webhook shape (never the secret).';
grant execute on function app_hidden.webhook_json(w app_public.webhooks) to svc_visitor;

create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once.';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN).';
grant execute on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) to svc_visitor;

create or replace function app_hidden.webhooks_list()
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhooks_list(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.webhooks_list() is 'In-app: the calling workspace''s webhooks with health counts (OWNER/ADMIN).';
grant execute on function app_hidden.webhooks_list() to svc_visitor;

create or replace function app_private.check_webhook_input(p_url text, p_events text[])
 returns text[]
 language plpgsql
 immutable
as $$
declare v_bad text;
begin
  if p_url is not null and (p_url !~ '^https?://[^\s/?#@]+' or length(p_url) > 2048) then
    perform app_hidden.raise_invalid('url', 'url must be an http(s) URL without credentials, at most 2048 characters');
  end if;
  if p_events is null then
    return null;
  end if;
  select e into v_bad from unnest(p_events) e where e is null or not (e = any(app_hidden.event_kinds())) limit 1;
  if found then
    perform app_hidden.raise_invalid('events', format('unknown event kind %s', coalesce(v_bad, 'null')));
  end if;
  return array(select distinct e from unnest(p_events) e order by e);
end
$$;
comment on function app_private.check_webhook_input(p_url text, p_events text[]) is 'Validates a webhook URL and event filter (400 naming the field); returns the events de-duplicated and sorted.';

create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone default NULL::timestamp with time zone)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace');
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone) is 'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>. Runs in the caller''s transaction.';

create or replace function app_private.new_webhook_secret()
 returns text
 language sql
as $$
  -- 32 bytes from two v4 UUIDs (pg_strong_random; 244 random bits), base64: the Standard Webhooks format.
  select 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
$$;
comment on function app_private.new_webhook_secret() is 'A fresh signing secret, whsec_<base64 of 32 bytes> (Standard Webhooks).';

create or replace function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := coalesce(app_private.check_webhook_input(p_url, coalesce(p_events, '{}')), '{}');
  v_webhook app_public.webhooks;
  v_secret text := app_private.new_webhook_secret();
begin
  if p_url is null then
    perform app_hidden.raise_invalid('url', 'url is required');
  end if;
  insert into app_public.webhooks (workspace_id, url, events, description)
  values (p_workspace_id, p_url, v_events, p_description)
  returning * into v_webhook;
  insert into app_private.webhook_secrets (webhook_id, workspace_id, secret) values (v_webhook.id, p_workspace_id, v_secret);
  return app_hidden.webhook_json(v_webhook) || jsonb_build_object('secret', v_secret);
end
$$;
comment on function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[], p_description text) is 'Registers a webhook; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_webhook app_public.webhooks;
begin
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(p_webhook_id uuid) is 'Deletes a webhook with its secret, deliveries and attempts; queued jobs find nothing and stop.';

create or replace function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := least(greatest(coalesce(p_limit, 50), 1), 200);
  v_before app_public.webhook_deliveries;
begin
  if p_status is not null and p_status not in ('PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED') then
    perform app_hidden.raise_invalid('status', 'status must be PENDING, DELIVERED, DEAD_LETTER or CANCELED');
  end if;
  if p_before is not null then
    select * into v_before from app_public.webhook_deliveries where id = p_before and workspace_id = p_workspace_id;
  end if;
  -- The cursor is the last delivery's id itself (prefix null).
  return app_hidden.page_json(array(
    select (app_hidden.webhook_delivery_json(d), d.id::text, null)::app_hidden.page_row
    from app_public.webhook_deliveries d
    where d.workspace_id = p_workspace_id
      and (p_webhook_id is null or d.webhook_id = p_webhook_id)
      and (p_status is null or d.status = p_status)
      and (v_before.id is null or (d.created_at, d.id) < (v_before.created_at, v_before.id))
    order by d.created_at desc, d.id desc limit v_limit + 1), v_limit, null);
end
$$;
comment on function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'Deliveries of a workspace, newest first, optionally of one webhook or status, with their attempts; page with p_before = nextCursor.';

create or replace function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean default false)
 returns jsonb
 language plpgsql
as $$
declare
  v_requeued int := 0;
  v_next_lease timestamptz;
  v_id uuid;
  v_run_at timestamptz;
begin
  if to_regnamespace('graphile_worker') is null then
    return jsonb_build_object('requeued', 0);
  end if;
  -- PENDING deliveries that no live job will pick up: their lease expired (the worker died
  -- mid-attempt) or they have no waiting job (never enqueued, or its job is stuck on a dead worker).
  for v_id, v_run_at in
    select d.id, greatest(d.next_attempt_at, now()) from app_public.webhook_deliveries d
    where d.status = 'PENDING' and (d.locked_until is null or d.locked_until < now())
      -- only overdue ones: a backlog that workers are still working through costs nothing here
      and d.next_attempt_at < now() - make_interval(secs => p_stale_ms / 1000.0)
      and not exists (
        select 1 from graphile_worker.jobs j
        where j.key = 'svc_webhook:' || d.id and j.attempts < j.max_attempts
          and (j.locked_at is null or j.locked_at > now() - make_interval(secs => p_stale_ms / 1000.0)))
  loop
    perform app_private.enqueue_delivery_job(v_id, v_run_at);
    v_requeued := v_requeued + 1;
  end loop;
  -- At start-up, come back when the leases of deliveries that were in flight expire.
  if p_follow_up then
    select min(locked_until) into v_next_lease from app_public.webhook_deliveries
    where status = 'PENDING' and locked_until >= now();
    if v_next_lease is not null then
      perform graphile_worker.add_job('svc_webhooks_sweep', '{}'::json, run_at := v_next_lease + interval '100 milliseconds',
        job_key := 'svc_webhooks_sweep:follow-up', job_key_mode := 'replace');
    end if;
  end if;
  return jsonb_build_object('requeued', v_requeued, 'nextLeaseExpiry', v_next_lease);
end
$$;
comment on function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean) is 'Recovery: re-queues PENDING deliveries whose lease expired or whose job is missing or stuck (older than p_stale_ms). With p_follow_up (worker start-up) it also schedules itself for when the current leases expire.';

create or replace function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer)
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_url text;
  v_secret text;
  v_active boolean;
begin
  update app_public.webhook_deliveries
  set locked_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0)
  where id = p_delivery_id and status = 'PENDING'
    and (locked_until is null or locked_until < clock_timestamp())
    and next_attempt_at <= clock_timestamp() + interval '50 milliseconds'
  returning * into v_delivery;
  if v_delivery.id is null then
    -- Delivered, dead, leased by a live worker, or not due yet (a sweep ran early): make sure a
    -- not-yet-due delivery still has its job, then let this one go.
    select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id;
    if v_delivery.status = 'PENDING' and (v_delivery.locked_until is null or v_delivery.locked_until < clock_timestamp()) then
      perform app_private.enqueue_delivery_job(v_delivery.id, v_delivery.next_attempt_at);
    end if;
    return null;
  end if;

  if v_delivery.webhook_id is not null then
    select w.url, s.secret, w.active into v_url, v_secret, v_active
    from app_public.webhooks w join app_private.webhook_secrets s on s.webhook_id = w.id
    where w.id = v_delivery.webhook_id;
  else
    select a.webhook_url, s.secret, a.webhook_url is not null and a.archived_at is null into v_url, v_secret, v_active
    from app_public.agents a join app_private.agent_webhook_secrets s on s.agent_id = a.id
    where a.id = v_delivery.agent_id;
  end if;
  if not coalesce(v_active, false) then
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      last_error = coalesce(last_error, 'target inactive or removed')
    where id = v_delivery.id;
    return null;
  end if;

  return jsonb_build_object(
    'deliveryId', v_delivery.id, 'eventId', v_delivery.event_id, 'channel', v_delivery.channel,
    'attempt', v_delivery.total_attempts + 1, 'url', v_url, 'secret', v_secret,
    'kind', (select e.kind from app_public.activity_events e where e.id = v_delivery.event_id),
    'body', (select app_hidden.event_json(e, false)::text from app_public.activity_events e where e.id = v_delivery.event_id));
end
$$;
comment on function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer) is 'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body). NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_code int := (p_attempt->>'statusCode')::int;
  v_error text := left(p_attempt->>'error', 1000);
  v_next timestamptz;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null or v_delivery.status <> 'PENDING' then
    return jsonb_build_object('status', coalesce(v_delivery.status, 'GONE'));
  end if;
  insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at,
                                                    duration_ms, status_code, error, response_body)
  values (v_delivery.workspace_id, v_delivery.id, v_delivery.total_attempts + 1, p_attempt->>'url',
          (p_attempt->>'startedAt')::timestamptz, (p_attempt->>'durationMs')::int, v_code, v_error,
          left(p_attempt->>'responseBody', 2048));

  if v_code between 200 and 299 then
    update app_public.webhook_deliveries set status = 'DELIVERED', delivered_at = now(), locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code, last_error = null
    where id = v_delivery.id;
    return jsonb_build_object('status', 'DELIVERED');
  end if;

  if v_code = 410 and v_delivery.webhook_id is not null then
    -- The receiver says the endpoint is gone for good: stop sending to it.
    update app_public.webhooks set active = false, deactivated_at = now(), deactivated_reason = 'endpoint answered 410 Gone'
    where id = v_delivery.webhook_id and active;
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = 'endpoint answered 410 Gone; webhook deactivated'
    where id = v_delivery.id;
    return jsonb_build_object('status', 'CANCELED', 'deactivated', true);
  end if;

  if v_delivery.attempt_count + 1 <= coalesce(cardinality(p_backoff_seconds), 0) then
    v_next := clock_timestamp() + make_interval(secs => p_backoff_seconds[v_delivery.attempt_count + 1]);
    update app_public.webhook_deliveries set next_attempt_at = v_next, locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = coalesce(v_error, format('HTTP %s', v_code))
    where id = v_delivery.id;
    perform app_private.enqueue_delivery_job(v_delivery.id, v_next);
    return jsonb_build_object('status', 'PENDING', 'nextAttemptAt', v_next);
  end if;

  update app_public.webhook_deliveries set status = 'DEAD_LETTER', dead_lettered_at = now(), locked_until = null,
    attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
    last_error = coalesce(v_error, format('HTTP %s', v_code))
  where id = v_delivery.id;
  return jsonb_build_object('status', 'DEAD_LETTER');
end
$$;
comment on function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[]) is 'Worker: records one attempt and moves the delivery on: 2xx DELIVERED; 410 deactivates the webhook (CANCELED); otherwise the next retry after p_backoff_seconds[n], or DEAD_LETTER when the schedule is spent.';

create or replace function app_private.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null then
    perform app_hidden.raise_not_found('Delivery');
  end if;
  if v_delivery.status not in ('DEAD_LETTER', 'CANCELED') then
    raise exception 'Only DEAD_LETTER or CANCELED deliveries can be retried (this one is %)', v_delivery.status
      using errcode = 'SV409', detail = 'not_dead_letter';
  end if;
  if v_delivery.webhook_id is not null and not exists (
    select 1 from app_public.webhooks w where w.id = v_delivery.webhook_id and w.active) then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  update app_public.webhook_deliveries set status = 'PENDING', attempt_count = 0, next_attempt_at = now(),
    locked_until = null, dead_lettered_at = null
  where id = p_delivery_id
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_delivery_retry(p_delivery_id uuid) is 'Puts a DEAD_LETTER (or CANCELED) delivery back in the queue with a fresh retry schedule; same event, same webhook-id.';

create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_secret text := app_private.new_webhook_secret();
begin
  update app_private.webhook_secrets set secret = v_secret, rotated_at = now() where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret);
end
$$;
comment on function app_private.webhook_rotate_secret(p_webhook_id uuid) is 'Replaces a webhook''s signing secret at once and returns the new one (shown once).';

create or replace function app_private.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := app_private.check_webhook_input(p_url, p_events);
  v_webhook app_public.webhooks;
begin
  update app_public.webhooks set
    url = coalesce(p_url, url),
    events = coalesce(v_events, events),
    description = coalesce(p_description, description),
    active = coalesce(p_active, active),
    deactivated_at = case when p_active then null when p_active = false and active then now() else deactivated_at end,
    deactivated_reason = case when p_active then null when p_active = false and active then 'deactivated by an admin' else deactivated_reason end
  where id = p_webhook_id
  returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return app_hidden.webhook_json(v_webhook);
end
$$;
comment on function app_private.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook are canceled when their turn comes.';

create or replace function app_private.webhooks_list(p_workspace_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.webhook_json(w) || jsonb_build_object(
      'pending', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id))
    order by w.created_at, w.id), '[]')
  from app_public.webhooks w where w.workspace_id = p_workspace_id
$$;
comment on function app_private.webhooks_list(p_workspace_id uuid) is 'The workspace''s webhooks with pending and dead-letter counts (no secrets).';

create or replace function app_public.webhook_deliveries_retry(delivery_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delivery_retry(delivery_id) $$;
comment on function app_public.webhook_deliveries_retry(delivery_id uuid) is 'OWNER/ADMIN: puts a dead-lettered delivery back in the queue (same event, same webhook-id).';
grant execute on function app_public.webhook_deliveries_retry(delivery_id uuid) to svc_visitor;

create or replace function app_public.webhooks_create(url text, events text[] default '{}'::text[], description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_create(url, events, description) $$;
comment on function app_public.webhooks_create(url text, events text[], description text) is 'OWNER/ADMIN: registers a webhook for the given event kinds (empty = all). Returns {id, url, events, active, secret}; the secret is shown only here.';
grant execute on function app_public.webhooks_create(url text, events text[], description text) to svc_visitor;

create or replace function app_public.webhooks_delete(webhook_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delete(webhook_id) $$;
comment on function app_public.webhooks_delete(webhook_id uuid) is 'OWNER/ADMIN: deletes a webhook and its pending deliveries.';
grant execute on function app_public.webhooks_delete(webhook_id uuid) to svc_visitor;

create or replace function app_public.webhooks_overview()
 returns jsonb
 language sql
 stable
as $$ select app_hidden.webhooks_list() $$;
comment on function app_public.webhooks_overview() is 'OWNER/ADMIN: the workspace''s webhooks with delivery health counts.';
grant execute on function app_public.webhooks_overview() to svc_visitor;

create or replace function app_public.webhooks_rotate_secret(webhook_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_rotate_secret(webhook_id) $$;
comment on function app_public.webhooks_rotate_secret(webhook_id uuid) is 'OWNER/ADMIN: replaces the signing secret at once and returns the new one (shown once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is 'OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
--! Included projects/projects.sql
-- projects: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_project_initiative_reachable(p_project app_public.projects)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_project.initiative_id is not null
     and not exists (select 1 from app_public.initiatives i where i.id = p_project.initiative_id) then
    raise exception 'The project belongs to an initiative outside this key''s narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) is 'Before moving a project between initiatives: an initiative-narrowed key may not take a project out of an initiative it cannot see (403 narrowing).';
grant execute on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) to svc_visitor;

create or replace function app_hidden.find_project(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select p from app_public.projects p
                           where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()),
                          'Project', p_field);
end
$$;
comment on function app_hidden.find_project(p_id text, p_field text) is 'A project the key can see (archived included), else 404 Project not found.';
grant execute on function app_hidden.find_project(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_json(p app_public.projects)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', p.id, 'name', p.name, 'description', p.description, 'initiativeId', p.initiative_id,
    'initiative', (select jsonb_build_object('id', i.id, 'name', i.name)
                   from app_public.initiatives i where i.id = p.initiative_id),
    'archived', p.archived_at is not null, 'archivedAt', p.archived_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at)
$$;
comment on function app_hidden.project_json(p app_public.projects) is 'Project (spec 2.7): name, description, initiativeId (+ initiative {id, name} when the key can see it), archived state.';
grant execute on function app_hidden.project_json(p app_public.projects) to svc_visitor;
--! EndIncluded projects/projects.sql
--! Included initiatives/initiatives.sql
-- initiatives: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_initiative(p_id text, p_field text default 'id'::text)
 returns app_public.initiatives
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select i from app_public.initiatives i
                           where i.id = app_hidden.parse_uuid(p_id, p_field) and i.workspace_id = app_hidden.current_workspace_id()),
                          'Initiative', p_field);
end
$$;
comment on function app_hidden.find_initiative(p_id text, p_field text) is 'An initiative the key can see, else 404 Initiative not found.';
grant execute on function app_hidden.find_initiative(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'name', i.name, 'description', i.description,
    'archived', i.archived_at is not null, 'archivedAt', i.archived_at,
    'projectCount', (select count(*) from app_public.projects p where p.initiative_id = i.id and p.archived_at is null),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_with_projects then jsonb_build_object('projects', coalesce(
       (select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                         order by p.created_at, p.id)
        from app_public.projects p where p.initiative_id = i.id), '[]'))
     else '{}'::jsonb end
$$;
comment on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) is 'Initiative (spec 2.7): name, description, archived state, projectCount (live projects the key can see); with p_with_projects the linked projects.';
grant execute on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) to svc_visitor;
--! EndIncluded initiatives/initiatives.sql
--! Included cycles/cycles.sql
-- cycles: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date)
 returns void
 language plpgsql
 stable
as $$
declare v_other app_public.cycles;
begin
  if p_ends < p_starts then
    raise exception 'endsOn must be on or after startsOn' using errcode = 'SV400', column = 'endsOn';
  end if;
  select * into v_other from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.id is distinct from p_cycle_id
    and daterange(c.starts_on, c.ends_on, '[]') && daterange(p_starts, p_ends, '[]')
  order by c.starts_on limit 1;
  if v_other.id is not null then
    raise exception 'The dates overlap % (% to %)', v_other.name, v_other.starts_on, v_other.ends_on
      using errcode = 'SV409', detail = 'cycle_overlap';
  end if;
end
$$;
comment on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) is 'Cycle dates: endsOn >= startsOn (400) and no overlap with another non-canceled cycle (409 cycle_overlap).';
grant execute on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) to svc_visitor;

create or replace function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', c.id, 'number', c.number, 'name', c.name, 'startsOn', c.starts_on, 'endsOn', c.ends_on, 'status', c.status,
    'issueCount', n.total, 'openIssueCount', n.open, 'doneIssueCount', n.done,
    'createdAt', c.created_at, 'updatedAt', c.updated_at)
  || case when p_with_issues then jsonb_build_object('issues', coalesce(
       (select jsonb_agg(app_hidden.issue_json(i) order by i.number)
        from app_public.issues i where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null), '[]'))
     else '{}'::jsonb end
  from (select count(*) as total,
               count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
               count(*) filter (where s.category = 'DONE') as done
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null) n
$$;
comment on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) is 'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the issues themselves (lean).';
grant execute on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) to svc_visitor;

create or replace function app_hidden.find_cycle(p_id text, p_field text default 'id'::text)
 returns app_public.cycles
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select c from app_public.cycles c
                           where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
                          'Cycle', p_field);
end
$$;
comment on function app_hidden.find_cycle(p_id text, p_field text) is 'A cycle of the caller''s workspace, else 404 Cycle not found.';
grant execute on function app_hidden.find_cycle(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text)
 returns app_public.cycles
 language plpgsql
as $$
declare
  v_number int;
  v_cycle app_public.cycles;
begin
  select coalesce(max(number), 0) + 1 into v_number from app_public.cycles where workspace_id = p_ws.id;
  insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on, status)
  values (p_ws.id, v_number, coalesce(p_name, 'Sprint ' || v_number), p_starts,
          coalesce(p_ends, p_starts + p_ws.cycle_length_days - 1), p_status)
  returning * into v_cycle;
  return v_cycle;
end
$$;
comment on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) is 'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';
grant execute on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.lock_cycles()
 returns app_public.workspaces
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.cycles:' || app_hidden.current_workspace_id()::text, 0));
  select * from app_public.workspaces where id = app_hidden.current_workspace_id();
$$;
comment on function app_hidden.lock_cycles() is 'Serialises cycle scheduling within a workspace (numbers, dates, rollover) for the transaction; returns the workspace settings.';
grant execute on function app_hidden.lock_cycles() to svc_visitor;

create or replace function app_hidden.next_cycle_start(p_ws app_public.workspaces)
 returns date
 language sql
 stable
as $$
  select greatest(app_hidden.utc_today(),
                  coalesce((select max(c.ends_on) + 1 + p_ws.cycle_cooldown_days
                            from app_public.cycles c where c.workspace_id = p_ws.id and c.status <> 'CANCELED'),
                           app_hidden.utc_today()))
$$;
comment on function app_hidden.next_cycle_start(p_ws app_public.workspaces) is 'Where the next cycle starts by default: after the last non-canceled cycle plus cycleCooldownDays, never before today (UTC).';
grant execute on function app_hidden.next_cycle_start(p_ws app_public.workspaces) to svc_visitor;

create or replace function app_hidden.require_open_cycle(p_cycle app_public.cycles)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_cycle.status in ('COMPLETED', 'CANCELED') then
    raise exception 'Cycle % is %; issues can be planned only into PLANNED or ACTIVE cycles', p_cycle.name, lower(p_cycle.status)
      using errcode = 'SV409', detail = 'cycle_closed';
  end if;
end
$$;
comment on function app_hidden.require_open_cycle(p_cycle app_public.cycles) is 'Issues may be added only to PLANNED or ACTIVE cycles: 409 cycle_closed otherwise.';
grant execute on function app_hidden.require_open_cycle(p_cycle app_public.cycles) to svc_visitor;

create or replace function app_hidden.upcoming_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles
  where workspace_id = app_hidden.current_workspace_id() and status = 'PLANNED'
  order by starts_on, number limit 1
$$;
comment on function app_hidden.upcoming_cycle() is 'The upcoming cycle: the earliest PLANNED one (NULL row when none).';
grant execute on function app_hidden.upcoming_cycle() to svc_visitor;
--! EndIncluded cycles/cycles.sql
--! Included notes/notes.sql
-- notes: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_note(p_id text)
 returns app_public.notes
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  -- manage_own_notes hides every other user's note: theirs and unknown ids read the same.
  return app_hidden.found((select n from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id')), 'Note');
end
$$;
comment on function app_hidden.find_note(p_id text) is 'One of the caller''s own notes, else 404 "Note not found" (another user''s note included).';
grant execute on function app_hidden.find_note(p_id text) to svc_visitor;

create or replace function app_hidden.note_json(n app_public.notes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', n.id, 'title', n.title, 'body', n.body, 'pinned', n.pinned, 'kind', n.kind,
                            'journalDate', n.journal_date, 'archived', n.archived_at is not null, 'archivedAt', n.archived_at,
                            'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.note_json(n app_public.notes) is 'Note (spec 2.14): id, title, body, pinned, kind, journalDate, archived state.';
grant execute on function app_hidden.note_json(n app_public.notes) to svc_visitor;

create or replace function app_public.notes_restore(note_id uuid)
 returns app_public.notes
 language plpgsql
as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  update app_public.notes n set archived_at = null
  where n.id = note_id and n.archived_at is not null
  returning * into v_note;
  if v_note.id is null then
    select * into v_note from app_public.notes n where n.id = note_id;  -- not archived: nothing to do
  end if;
  if v_note.id is null then
    raise exception 'Note not found' using errcode = 'SV404', column = 'noteId';
  end if;
  return v_note;
end
$$;
comment on function app_public.notes_restore(note_id uuid) is 'Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';
grant execute on function app_public.notes_restore(note_id uuid) to svc_visitor;
--! EndIncluded notes/notes.sql
--! Included labels/labels.sql
-- labels: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_label_for_write(p_id text)
 returns app_public.labels
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.found(
    (select l from app_public.labels l
     where l.id = app_hidden.parse_uuid(p_id, 'id') and l.workspace_id = app_hidden.current_workspace_id()), 'Label');
begin
  if not app_hidden.issues_unrestricted() then
    raise exception 'A key with project or label narrowing may not change workspace labels'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_label;
end
$$;
comment on function app_hidden.find_label_for_write(p_id text) is 'A label of the caller''s workspace (404 otherwise) that the key may change (403 narrowing for narrowed keys).';
grant execute on function app_hidden.find_label_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.label_json(l app_public.labels)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color, 'description', l.description,
                            'createdAt', l.created_at, 'updatedAt', l.updated_at)
$$;
comment on function app_hidden.label_json(l app_public.labels) is 'Label {id, name, color, description, createdAt, updatedAt}.';
grant execute on function app_hidden.label_json(l app_public.labels) to svc_visitor;

create or replace function app_hidden.raise_label_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A label named "%" already exists', p_name using errcode = 'SV409', detail = 'label_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_label_name_taken(p_name text) is 'Raises 409 label_exists (names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_label_name_taken(p_name text) to svc_visitor;
--! EndIncluded labels/labels.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    'maxConcurrent', a.max_concurrent, 'webhookUrl', a.webhook_url,
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN: app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN: delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN: archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN: app_private.update_agent in the caller''s workspace.';
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

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent.';

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
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run, swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    select * into v_issue from app_public.issues where id = v_issue.id for update;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.id into v.cycle_id from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v.cycle_id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.uuid_array(args->'labelIds', 'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
--! Included issues/bulk.sql
-- issues: one item of issues.updateMany (issues.createMany items are plain issues.create inputs).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.update_many_item(p_item jsonb, p_done jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(p_item->>'id');
begin
  if p_done @> jsonb_build_array(jsonb_build_object('id', v_issue.id)) then
    perform app_hidden.raise_invalid('id', 'this issue appears more than once in the batch');
  end if;
  return app_hidden.issue_json(app_hidden.update_issue(v_issue, p_item - 'id'), false);
end
$$;
comment on function app_hidden.update_many_item(p_item jsonb, p_done jsonb) is 'issues.updateMany, one patch ({id, ...issues.update fields}): the lean issue after the update; 400 on id when an earlier item (p_done) already updated this issue.';
grant execute on function app_hidden.update_many_item(p_item jsonb, p_done jsonb) to svc_visitor;
--! EndIncluded issues/bulk.sql
--! Included issues/tools/createMany.sql
-- The issues.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- ISSUE_CREATED per issue.
create or replace function app_tools.issues_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_tools.issues_create(jsonb)'));
end
$$;
comment on function app_tools.issues_create_many(args jsonb) is 'issues.createMany: Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.';
grant execute on function app_tools.issues_create_many(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/createMany.sql
--! Included issues/tools/updateMany.sql
-- The issues.updateMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 patches ({id, ...issues.update fields}) in one transaction, all or nothing; errors name
-- items.N.field. One event per issue per kind.
create or replace function app_tools.issues_update_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_hidden.update_many_item(jsonb, jsonb)'));
end
$$;
comment on function app_tools.issues_update_many(args jsonb) is 'issues.updateMany: Apply up to 100 issues.update patches ({id, ...fields}) in one call, all or nothing. A failing item fails the whole call and names its field as items.N.field. Returns the lean issues.';
grant execute on function app_tools.issues_update_many(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/updateMany.sql
drop function if exists app_hidden.raise_in_item(integer, text, text, text, text, text);

--! split: 92-hidden-parent.sql
-- A narrowed key does not learn the id of a parent issue it cannot see (issue 9, docs/decisions.md):
-- app_hidden.visible_parent_id in the lean issue shape. After the tables of the other current files.
--! Included issues/shapes.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not sql: a `language sql` function with a FROM clause is never inlined, and PostgreSQL 17
  -- plans its body again in every statement that calls it (the joins and the RLS policies of five tables:
  -- ~1.5 ms of a 1.8 ms issues.get). plpgsql keeps the plan for the session.
  -- Joins rather than four scalar subqueries: measured 40 us per call instead of 250 us.
  -- The same joins read the issue and shape it in one query in issues.get and issue_json_after_write.
  return (
    select app_hidden.issue_lean_json(i, s, p, a, li.ids)
           || case when p_full then app_hidden.issue_extra_json(i, lf.labels) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                        order by il.created_at, l.id) as labels
                       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                       where p_full and il.issue_id = i.id) lf on true);
end
$$;
comment on function app_hidden.issue_json(i app_public.issues, p_full boolean) is 'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';
grant execute on function app_hidden.issue_json(i app_public.issues, p_full boolean) to svc_visitor;

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  select app_hidden.issue_lean_json(i, s, p, a, li.ids) || app_hidden.issue_extra_json(i, lf.labels)
  into v_json
  from app_public.issues i
  left join app_public.statuses s on s.id = i.status_id
  left join app_public.projects p on p.id = i.project_id
  left join app_public.agents a on a.id = i.assigned_agent_id
  left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                     from app_public.issue_labels il where il.issue_id = i.id) li on true
  left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                      order by il.created_at, l.id) as labels
                     from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                     where il.issue_id = i.id) lf on true
  where i.id = p_issue_id;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query: a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'description', i.description,
    'labels', coalesce(p_labels, '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
$$;
comment on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) is 'What the full issue shape adds to the lean one (description, labels {id, name, color}, the completion contract, creator, start and completion), from rows the caller already fetched; inlined.';
grant execute on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) to svc_visitor;

create or replace function app_hidden.visible_parent_id(p_parent_id uuid)
 returns uuid
 language sql
 stable
as $$
  select case
    when p_parent_id is null then null
    when app_hidden.issues_unrestricted() then p_parent_id
    -- Runs as the caller: the issues policy decides whether the parent is visible.
    else (select p.id from app_public.issues p where p.id = p_parent_id)
  end
$$;
comment on function app_hidden.visible_parent_id(p_parent_id uuid) is 'The parent issue id as the caller may see it: NULL for a narrowed key that cannot see the parent (its id stays hidden, docs/decisions.md).';
grant execute on function app_hidden.visible_parent_id(p_parent_id uuid) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else jsonb_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', app_hidden.visible_parent_id(i.parent_id), 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce(p_label_ids, '[]'),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null).';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'A short issue reference (id, key, number, title, status) embedded in relations, pins and time entries.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues) to svc_visitor;

create or replace function app_hidden.status_json(s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(s app_public.statuses) is 'Status (spec 2.3).';
grant execute on function app_hidden.status_json(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.watcher_json(w app_public.issue_watchers)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(w app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';
grant execute on function app_hidden.watcher_json(w app_public.issue_watchers) to svc_visitor;
--! EndIncluded issues/shapes.sql

--! split: 95-dispatch.sql
-- The dispatcher and the watchdogs (issue 11). assign_issue_agent gains p_dispatch (the dispatcher's
-- AGENT_ASSIGNED payload), so the old signature goes first.
drop function if exists app_hidden.assign_issue_agent(app_public.issues, app_public.agents, text, text, text, uuid);
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run, swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    select * into v_issue from app_public.issues where id = v_issue.id for update;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.id into v.cycle_id from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v.cycle_id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.uuid_array(args->'labelIds', 'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
--! Included dispatch/rules.sql
-- dispatch: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dispatch_rules_check_refs(p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null and not exists (select 1 from app_public.agents where id = p_target_agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
  end if;
  if p_label_id is not null and not exists (select 1 from app_public.labels where id = p_label_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (select 1 from app_public.projects where id = p_project_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) is 'The priority must be one of the issue priorities; the agent, label and project a rule names must be visible to the caller (RLS: its workspace, its narrowing), else 404 naming the field.';
grant execute on function app_hidden.dispatch_rules_check_refs(p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) to svc_visitor;

create or replace function app_public.dispatch_rules_create(target_agent_id uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, at_position integer default NULL::integer, enabled boolean default true)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = v_ws;
  if at_position is not null and at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = v_ws and r.position >= coalesce(at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (v_ws, coalesce(at_position, v_count), dispatch_rules_create.name, dispatch_rules_create.priority,
          dispatch_rules_create.label_id, dispatch_rules_create.project_id, dispatch_rules_create.target_agent_id,
          coalesce(dispatch_rules_create.enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is 'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
grant execute on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_delete(rule_id uuid)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(rule_id uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
grant execute on function app_public.dispatch_rules_delete(rule_id uuid) to svc_visitor;

create or replace function app_public.dispatch_rules_reorder(rule_ids uuid[])
 returns setof app_public.dispatch_rules
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  if rule_ids is null
     or cardinality(rule_ids) <> (select count(distinct x) from unnest(rule_ids) x)
     or (select array_agg(r.id order by r.id) from app_public.dispatch_rules r where r.workspace_id = v_ws)
        is distinct from (select array_agg(x order by x) from unnest(rule_ids) x) then
    perform app_hidden.raise_invalid('ruleIds', 'must list every dispatch rule of the workspace exactly once');
  end if;
  update app_public.dispatch_rules r set position = o.n - 1
  from unnest(rule_ids) with ordinality as o(id, n)
  where r.id = o.id and r.position <> o.n - 1;
  return query select * from app_public.dispatch_rules r where r.workspace_id = v_ws order by r.position;
end
$$;
comment on function app_public.dispatch_rules_reorder(rule_ids uuid[]) is 'OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';
grant execute on function app_public.dispatch_rules_reorder(rule_ids uuid[]) to svc_visitor;

create or replace function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid default NULL::uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, enabled boolean default NULL::boolean, clear text[] default '{}'::text[])
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(dispatch_rules_update.name, r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';
grant execute on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) to svc_visitor;

create or replace function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text default NULL::text, p_label_id uuid default NULL::uuid, p_project_id uuid default NULL::uuid, p_name text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_label_id is not null and not exists (select 1 from app_public.labels where id = p_label_id and workspace_id = p_workspace_id) then
    raise exception 'Label not found in this workspace' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (select 1 from app_public.projects where id = p_project_id and workspace_id = p_workspace_id) then
    raise exception 'Project not found in this workspace' using errcode = 'SV404', column = 'projectId';
  end if;
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch_rules:' || p_workspace_id::text, 0));
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id)
  values (p_workspace_id, (select count(*) from app_public.dispatch_rules where workspace_id = p_workspace_id),
          p_name, p_priority, p_label_id, p_project_id, (app_private.find_agent(p_workspace_id, p_target_agent_id)).id)
  returning * into v_rule;
  return jsonb_build_object('id', v_rule.id, 'position', v_rule.position, 'name', v_rule.name,
    'targetAgentId', v_rule.target_agent_id, 'priority', v_rule.priority, 'labelId', v_rule.label_id,
    'projectId', v_rule.project_id, 'enabled', v_rule.enabled, 'createdAt', v_rule.created_at);
end
$$;
comment on function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text) is 'Operator (svc admin create-dispatch-rule): appends a dispatch rule at the end of the workspace''s order; the agent, label and project must belong to that workspace (404 naming the field).';
--! EndIncluded dispatch/rules.sql
--! Included dispatch/dispatcher.sql
-- The dispatcher: gives queued, unassigned issues to eligible agents (decisions.md "Dispatch").
-- Runs in the worker (owner role) one assignment per transaction; decisions in one workspace are
-- serialized by an advisory lock, so concurrent workers never assign an issue twice or overfill an agent.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], out agent_id uuid, out method text, out reason text)
 returns record
 language plpgsql
 stable
as $$
declare
  v_labels text[];
  v_best int := 0;
  v_matches int;
  v_agent app_public.agents;
begin
  if cardinality(p_eligible) = 0 then
    return;
  end if;
  if p_mode = 'PRIORITY_MATCH' then
    foreach v_agent in array p_eligible loop
      if exists (select 1 from unnest(v_agent.capabilities) c where upper(c) = p_issue.priority) then
        agent_id := v_agent.id;
        method := 'priority-match';
        reason := 'priority-match:' || lower(p_issue.priority);
        return;
      end if;
    end loop;
  elsif p_mode = 'CAPABILITY_MATCH' then
    select coalesce(array_agg(lower(l.name)), '{}') into v_labels
    from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
    where il.issue_id = p_issue.id;
    foreach v_agent in array p_eligible loop
      select count(distinct lower(c)) into v_matches from unnest(v_agent.capabilities) c where lower(c) = any(v_labels);
      if v_matches > v_best then  -- strictly more: ties keep the least recently dispatched
        v_best := v_matches;
        agent_id := v_agent.id;
      end if;
    end loop;
    if agent_id is not null then
      method := 'capability-match';
      reason := format('capability-match:%s/%s', v_best, cardinality(v_labels));
      return;
    end if;
  end if;
  -- ROUND_ROBIN, and the fallback of the matching modes when nothing matches.
  agent_id := p_eligible[1].id;
  method := 'round-robin';
  reason := 'round-robin';
end
$$;
comment on function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], OUT agent_id uuid, OUT method text, OUT reason text) is 'The mode''s choice among eligible agents (given least recently dispatched first): PRIORITY_MATCH = capabilities include the priority name; CAPABILITY_MATCH = most overlap of issue label names and capabilities; both fall back to round-robin.';

create or replace function app_private.dispatch_next(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_issue app_public.issues;
  v_eligible app_public.agents[];
  v_rule app_public.dispatch_rules;
  v_agent app_public.agents;
  v_pick record;
  v_reason text;
  v_dispatch jsonb;
begin
  -- One dispatcher decision at a time per workspace (all workers, all processes).
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch:' || p_workspace_id::text, 0));
  select * into v_ws from app_public.workspaces where id = p_workspace_id;
  -- The dispatcher acts inside the workspace (as the system: no user, key or agent), so the shared
  -- assignment code records its events there.
  perform set_config('svc.workspace_id', p_workspace_id::text, true);
  if v_ws.id is null or not v_ws.auto_dispatch or v_ws.auto_dispatch_mode = 'MANUAL_ONLY' then
    return null;
  end if;
  -- Eligible: not archived, not OFFLINE, load (assigned issues neither DONE nor CANCELED) under
  -- maxConcurrent (0 = unlimited); least recently dispatched first, the round-robin order.
  v_eligible := array(
    select a from app_public.agents a
    where a.workspace_id = p_workspace_id and a.archived_at is null and a.status <> 'OFFLINE'
      and (a.max_concurrent = 0 or a.max_concurrent > (
        select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = p_workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')))
    order by a.last_dispatched_at nulls first, a.created_at, a.id);
  if cardinality(v_eligible) = 0 then
    return null;
  end if;
  -- Most urgent first, then the longest waiting.
  select i.* into v_issue from app_public.issues i
  where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
  order by array_position(array['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'], i.priority), i.created_at, i.id
  limit 1
  for update;
  if v_issue.id is null then
    return null;
  end if;

  -- Rules first: the first enabled rule whose set conditions all match.
  select r.* into v_rule from app_public.dispatch_rules r
  where r.workspace_id = p_workspace_id and r.enabled
    and (r.priority is null or r.priority = v_issue.priority)
    and (r.project_id is null or r.project_id = v_issue.project_id)
    and (r.label_id is null or exists (select 1 from app_public.issue_labels il where il.issue_id = v_issue.id and il.label_id = r.label_id))
  order by r.position
  limit 1;
  if v_rule.id is not null then
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_rule.target_agent_id;
  end if;
  if v_agent.id is not null then
    v_reason := 'rule:' || v_rule.id;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode, 'candidates', jsonb_build_array(v_agent.id),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  else
    v_pick := app_private.dispatch_pick(v_issue, v_ws.auto_dispatch_mode, v_eligible);
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_pick.agent_id;
    v_reason := case when v_rule.id is null then v_pick.reason
                     else format('rule:%s:target-ineligible,%s pick', v_rule.id, v_pick.method) end;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode,
      'candidates', (select jsonb_agg(a.id) from unnest(v_eligible) a),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  end if;

  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id;
  perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', v_reason, null, null, v_dispatch);
  return jsonb_build_object('issueId', v_issue.id, 'agentId', v_agent.id, 'reason', v_reason);
end
$$;
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned issue goes to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

create or replace function app_private.wake_dispatcher(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if exists (select 1 from app_public.workspaces w
             where w.id = p_workspace_id and w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY') then
    -- One pending job per workspace: wakes that arrive while it waits fold into it.
    perform graphile_worker.add_job('svc_dispatch', json_build_object('workspaceId', p_workspace_id),
      job_key := 'svc_dispatch:' || p_workspace_id, job_key_mode := 'preserve_run_at');
  end if;
end
$$;
comment on function app_private.wake_dispatcher(p_workspace_id uuid) is 'Queues the dispatcher job of a workspace with autoDispatch on (one pending job per workspace), in the caller''s transaction: it runs once the change that woke it is committed.';
--! EndIncluded dispatch/dispatcher.sql
--! Included dispatch/watchdogs.sql
-- Watchdogs (decisions.md "Watchdogs"): AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH, each at most once
-- per (issue, kind) per 24 h, off when its window is 0 or null. The worker runs the sweep every minute;
-- `svc admin sweep` runs it now. "Now" is a parameter so tests move time instead of sleeping.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text)
 returns timestamptz
 language sql
 stable
as $$
  select e.created_at from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id and e.kind = p_kind
  order by e.seq desc
  limit 1
$$;
comment on function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text) is 'When an issue last had an event of this kind (AGENT_ASSIGNED = assigned, ISSUE_QUEUED = queued, ...); NULL if never.';

create or replace function app_private.watchdog_sweep(p_now timestamptz default now())
 returns jsonb
 language plpgsql
as $$
declare
  v_fired jsonb := '[]';
  r record;
  v_ref timestamptz;
  v_reason text;
begin
  -- Open issues an agent holds, with when it was assigned (the latest AGENT_ASSIGNED).
  for r in
    select i.id, i.workspace_id, i.assigned_agent_id, i.priority, w.required_ack_seconds, w.assignment_sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'AGENT_ASSIGNED') as assigned_at,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_STATUS_CHANGED') as status_at
    from app_public.workspaces w
    join app_public.issues i on i.workspace_id = w.id and i.assigned_agent_id is not null and i.deleted_at is null
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where w.required_ack_seconds > 0 or w.assignment_sla_minutes > 0
  loop
    continue when r.assigned_at is null;
    -- AGENT_NOACK: the assigned agent neither commented nor moved the status within the window.
    if r.required_ack_seconds > 0 and r.assigned_at + make_interval(secs => r.required_ack_seconds) <= p_now
       and not exists (select 1 from app_public.comments c
                       where c.workspace_id = r.workspace_id and c.issue_id = r.id
                         and c.authoring_agent_id = r.assigned_agent_id and c.created_at >= r.assigned_at)
       and not exists (select 1 from app_public.activity_events e
                       where e.workspace_id = r.workspace_id and e.subject_type = 'issue' and e.subject_id = r.id
                         and e.kind = 'ISSUE_STATUS_CHANGED' and e.actor_agent_id = r.assigned_agent_id
                         and e.created_at >= r.assigned_at)
       and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'AGENT_NOACK', p_now) then
      perform app_private.record_event(r.workspace_id, 'AGENT_NOACK', 'issue', r.id, jsonb_build_object(
        'agentId', r.assigned_agent_id, 'issueId', r.id, 'requiredAckSeconds', r.required_ack_seconds,
        'reason', 'no comment or status change from the assigned agent within the acknowledgement window'));
      v_fired := v_fired || jsonb_build_object('kind', 'AGENT_NOACK', 'subjectId', r.id);
    end if;
    -- ISSUE_STALLED: nothing moved since the assignment or the last status change.
    if r.assignment_sla_minutes > 0 then
      if r.status_at is not null and r.status_at > r.assigned_at then
        v_ref := r.status_at;
        v_reason := 'no activity since last status change';
      else
        v_ref := r.assigned_at;
        v_reason := 'no activity since assignment';
      end if;
      if v_ref + make_interval(mins => r.assignment_sla_minutes) <= p_now
         and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_STALLED', p_now) then
        perform app_private.record_event(r.workspace_id, 'ISSUE_STALLED', 'issue', r.id, jsonb_build_object(
          'issueId', r.id, 'slaMinutes', r.assignment_sla_minutes,
          'breachedByMinutes', floor(extract(epoch from p_now - (v_ref + make_interval(mins => r.assignment_sla_minutes))) / 60)::int,
          'priority', r.priority, 'reason', v_reason));
        v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_STALLED', 'subjectId', r.id);
      end if;
    end if;
  end loop;

  -- ISSUE_SLA_BREACH: an open issue's own slaMinutes, counted from when it was (last) queued.
  for r in
    select i.id, i.workspace_id, i.priority, i.sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_QUEUED') as queued_at
    from app_public.issues i
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where i.sla_minutes > 0 and i.queued and i.deleted_at is null
  loop
    continue when r.queued_at is null or r.queued_at + make_interval(mins => r.sla_minutes) > p_now;
    continue when app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_SLA_BREACH', p_now);
    perform app_private.record_event(r.workspace_id, 'ISSUE_SLA_BREACH', 'issue', r.id, jsonb_build_object(
      'issueId', r.id, 'slaMinutes', r.sla_minutes,
      'breachedByMinutes', floor(extract(epoch from p_now - (r.queued_at + make_interval(mins => r.sla_minutes))) / 60)::int,
      'priority', r.priority));
    v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_SLA_BREACH', 'subjectId', r.id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.watchdog_sweep(p_now timestamptz) is 'Fires the watchdogs due at p_now (default now()) across all workspaces and returns what fired as [{kind, subjectId}]. Worker every minute; `svc admin sweep`.';

create or replace function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.activity_events e
                 where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
                   and e.kind = p_kind and e.created_at > p_now - interval '24 hours')
$$;
comment on function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz) is 'True when this watchdog already fired for the issue in the 24 hours before p_now (each (issue, kind) fires at most once per 24 h).';
--! EndIncluded dispatch/watchdogs.sql
--! Included dispatch/wake.sql
-- What wakes the dispatcher (decisions.md "Dispatch"): an issue becomes queued and unassigned, an agent
-- turns ONLINE (or comes back, or may take more), an agent's load drops, the workspace or its rules change.
-- Triggers only queue the workspace's dispatcher job (app_private.wake_dispatcher); the worker acts.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issues__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.queued and new.assigned_agent_id is null and new.deleted_at is null
     and (tg_op = 'INSERT' or not old.queued or old.assigned_agent_id is not null) then
    perform app_private.wake_dispatcher(new.workspace_id);  -- newly dispatchable
  elsif tg_op = 'UPDATE' and old.assigned_agent_id is not null
     and (new.assigned_agent_id is distinct from old.assigned_agent_id or new.status_id <> old.status_id
          or (new.deleted_at is not null and old.deleted_at is null)) then
    perform app_private.wake_dispatcher(new.workspace_id);  -- the agent's load may have dropped
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__wake_dispatcher() is 'AFTER INSERT/UPDATE on issues: wakes the dispatcher when an issue becomes queued and unassigned, or when its agent''s load may drop (unassigned, status moved, deleted).';

drop trigger if exists _850_wake_dispatcher on app_public.issues;
create trigger _850_wake_dispatcher after insert or update of queued, assigned_agent_id, status_id, deleted_at on app_public.issues for each row execute function app_private.tg_issues__wake_dispatcher();

create or replace function app_private.tg_agents__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.archived_at is null and new.status <> 'OFFLINE'
     and (old.status = 'OFFLINE' or old.archived_at is not null or new.max_concurrent is distinct from old.max_concurrent) then
    perform app_private.wake_dispatcher(new.workspace_id);
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__wake_dispatcher() is 'AFTER UPDATE on agents: wakes the dispatcher when an agent comes ONLINE (or BUSY) from OFFLINE, is unarchived, or its maxConcurrent changes.';

drop trigger if exists _850_wake_dispatcher on app_public.agents;
create trigger _850_wake_dispatcher after update of status, archived_at, max_concurrent on app_public.agents for each row execute function app_private.tg_agents__wake_dispatcher();

create or replace function app_private.tg_workspaces__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.wake_dispatcher(new.id);
  return null;
end
$$;
comment on function app_private.tg_workspaces__wake_dispatcher() is 'AFTER UPDATE OF auto_dispatch, auto_dispatch_mode on workspaces: turning dispatch on (or changing its mode) dispatches what is already queued.';

drop trigger if exists _850_wake_dispatcher on app_public.workspaces;
create trigger _850_wake_dispatcher after update of auto_dispatch, auto_dispatch_mode on app_public.workspaces for each row execute function app_private.tg_workspaces__wake_dispatcher();

create or replace function app_private.tg_dispatch_rules__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.wake_dispatcher(new.workspace_id);
  return null;
end
$$;
comment on function app_private.tg_dispatch_rules__wake_dispatcher() is 'AFTER INSERT/UPDATE on dispatch_rules: a new or changed rule may route what is queued.';

drop trigger if exists _850_wake_dispatcher on app_public.dispatch_rules;
create trigger _850_wake_dispatcher after insert or update on app_public.dispatch_rules for each row execute function app_private.tg_dispatch_rules__wake_dispatcher();

create or replace function app_private.tg_activity_events__agent_dispatch()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Events addressed to an agent also go to its dispatch channel (agent:dispatch:<id>): its webhookUrl
  -- when it has one; every agent sees them on SSE regardless.
  if new.kind = 'AGENT_ASSIGNED' and new.payload ? 'to' then
    perform app_private.enqueue_agent_dispatch(new.id, (new.payload->>'to')::uuid);
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__agent_dispatch() is 'AFTER INSERT on activity_events: AGENT_ASSIGNED (manual, handoff or dispatcher) is delivered to the assigned agent''s dispatch channel.';

drop trigger if exists _510_agent_dispatch on app_public.activity_events;
create trigger _510_agent_dispatch after insert on app_public.activity_events for each row when (new.kind = 'AGENT_ASSIGNED') execute function app_private.tg_activity_events__agent_dispatch();
--! EndIncluded dispatch/wake.sql

--! split: 99-data-path.sql
-- Issue 16: the data path at the speed of the machine. Shapers and helpers that PostgreSQL 17 planned
-- again in every call are plpgsql (plans kept per session) or inlinable SQL; lists join instead of
-- calling a shaper per row; reads and writes use fewer statements.
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.parse_uuid(p_value text, p_field text)
 returns uuid
 language plpgsql
 immutable
as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(p_value text, p_field text) is 'UUID from tool input, or a 400 naming the field.';
grant execute on function app_hidden.parse_uuid(p_value text, p_field text) to svc_visitor;

create or replace function app_hidden.tg__set_updated_at()
 returns trigger
 language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at.';
grant execute on function app_hidden.tg__set_updated_at() to svc_visitor;

create or replace function app_hidden.ts_key(p_ts timestamp with time zone)
 returns text
 language sql
 stable parallel safe
as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(p_ts timestamp with time zone) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';
grant execute on function app_hidden.ts_key(p_ts timestamp with time zone) to svc_visitor;

create or replace function app_hidden.user_today(p_timezone text)
 returns date
 language plpgsql
 stable
as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(p_timezone text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';
grant execute on function app_hidden.user_today(p_timezone text) to svc_visitor;

create or replace function app_hidden.utc_today()
 returns date
 language sql
 stable parallel safe
as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';
grant execute on function app_hidden.utc_today() to svc_visitor;

create or replace function app_hidden.uuid_array(p_value jsonb, p_field text)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- plpgsql: a `language sql` function with a FROM clause is never inlined and was planned again in every
  -- statement that called it (0.15 ms, for every issues.create).
  if p_value is null then
    return '{}';
  end if;
  return (select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
          from jsonb_array_elements_text(p_value) e);
end
$$;
comment on function app_hidden.uuid_array(p_value jsonb, p_field text) is 'uuid[] from a JSON array of strings.';
grant execute on function app_hidden.uuid_array(p_value jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.user_ref_json(p_user_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
  from app_public.users u where u.id = p_user_id
$$;
comment on function app_hidden.user_ref_json(p_user_id uuid) is 'A user as {id, name (email when unnamed), email}; NULL for no user.';
grant execute on function app_hidden.user_ref_json(p_user_id uuid) to svc_visitor;
--! EndIncluded core/util.sql
--! Included core/paging.sql
-- Opaque cursors of paged lists.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text)
 returns text
 language plpgsql
 immutable
as $$
declare
  v_b64 text := translate(p_cursor, '-_', '+/');
  v_token text;
begin
  v_b64 := v_b64 || repeat('=', (4 - length(v_b64) % 4) % 4);
  v_token := convert_from(decode(v_b64, 'base64'), 'utf8');
  if left(v_token, length(p_prefix) + 1) <> p_prefix || ':' then
    raise exception 'bad cursor' using errcode = 'SV400', column = p_field;
  end if;
  return substr(v_token, length(p_prefix) + 2);
exception when others then
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) is 'Reads a cursor made by cursor_encode; a foreign or damaged cursor is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) to svc_visitor;

create or replace function app_hidden.cursor_encode(p_token text)
 returns text
 language plpgsql
 immutable parallel safe
as $$
begin
  -- plpgsql: as `language sql` it is never inlined (convert_to is only stable) and was planned again in
  -- every statement that called it (0.15 ms).
  return rtrim(translate(encode(convert_to(p_token, 'utf8'), 'base64'), E'+/\n', '-_'), '=');
end
$$;
comment on function app_hidden.cursor_encode(p_token text) is 'Opaque cursor for keyset pagination (base64url of a small token, no padding, no line breaks).';
grant execute on function app_hidden.cursor_encode(p_token text) to svc_visitor;

create or replace function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text, OUT sort_key text, OUT sort_id uuid)
 returns record
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix, p_field);
begin
  if length(v_token) < 38 or substr(v_token, length(v_token) - 36, 1) <> '|' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end if;
  sort_key := substr(v_token, 1, length(v_token) - 37);
  sort_id := app_hidden.parse_uuid(right(v_token, 36), p_field);
end
$$;
comment on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) is 'Reads a cursor made by keyset_encode (a null cursor gives nulls); anything else is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) to svc_visitor;

create or replace function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select app_hidden.cursor_encode(p_prefix || ':' || p_sort || '|' || p_id::text) $$;
comment on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) is 'Opaque keyset cursor for (sort key, id) ordered lists.';
grant execute on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) to svc_visitor;

-- Every paged list ends the same way: it selects up to limit + 1 rows as page_row (item = the shaped row,
-- sort_key/id = what its cursor encodes) and returns page_json(rows, limit, prefix). The look-ahead row
-- only says that there is a next page; a list shapes it lazily (item null past the limit:
-- `case when row_number() over w <= v_limit then <shape> end`), so no row is shaped for nothing.
create or replace function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_last app_hidden.page_row;
begin
  if cardinality(p_rows) > p_limit then
    v_last := p_rows[p_limit];
  end if;
  return jsonb_build_object(
    'items', (select coalesce(jsonb_agg(r.item order by r.n), '[]')
              from unnest(p_rows[:p_limit]) with ordinality r(item, sort_key, id, n)),
    'nextCursor', case
      when v_last is null then null
      when p_prefix is null then v_last.sort_key
      when v_last.id is null then app_hidden.cursor_encode(p_prefix || ':' || v_last.sort_key)
      else app_hidden.keyset_encode(p_prefix, v_last.sort_key, v_last.id) end);
end
$$;
comment on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) is 'A page of a list: {items, nextCursor} from up to limit + 1 rows in list order. nextCursor (when a row follows the page) is the last item''s keyset_encode(prefix, sort_key, id), or cursor_encode(prefix:sort_key) when id is null, or sort_key itself when prefix is null.';
grant execute on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) to svc_visitor;
--! EndIncluded core/paging.sql
--! Included issues/shapes.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not sql: a `language sql` function with a FROM clause is never inlined, and PostgreSQL 17
  -- plans its body again in every statement that calls it (the joins and the RLS policies of five tables:
  -- ~1.5 ms of a 1.8 ms issues.get). plpgsql keeps the plan for the session.
  -- Joins rather than four scalar subqueries: measured 40 us per call instead of 250 us.
  -- The same joins read the issue and shape it in one query in issues.get and issue_json_after_write.
  return (
    select app_hidden.issue_lean_json(i, s, p, a, li.ids)
           || case when p_full then app_hidden.issue_extra_json(i, lf.labels) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                        order by il.created_at, l.id) as labels
                       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                       where p_full and il.issue_id = i.id) lf on true);
end
$$;
comment on function app_hidden.issue_json(i app_public.issues, p_full boolean) is 'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';
grant execute on function app_hidden.issue_json(i app_public.issues, p_full boolean) to svc_visitor;

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  select app_hidden.issue_lean_json(i, s, p, a, li.ids) || app_hidden.issue_extra_json(i, lf.labels)
  into v_json
  from app_public.issues i
  left join app_public.statuses s on s.id = i.status_id
  left join app_public.projects p on p.id = i.project_id
  left join app_public.agents a on a.id = i.assigned_agent_id
  left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                     from app_public.issue_labels il where il.issue_id = i.id) li on true
  left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                      order by il.created_at, l.id) as labels
                     from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                     where il.issue_id = i.id) lf on true
  where i.id = p_issue_id;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query: a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'description', i.description,
    'labels', coalesce(p_labels, '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
$$;
comment on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) is 'What the full issue shape adds to the lean one (description, labels {id, name, color}, the completion contract, creator, start and completion), from rows the caller already fetched; inlined.';
grant execute on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) to svc_visitor;

create or replace function app_hidden.visible_parent_id(p_parent_id uuid)
 returns uuid
 language sql
 stable
as $$
  select case
    when p_parent_id is null then null
    when app_hidden.issues_unrestricted() then p_parent_id
    -- Runs as the caller: the issues policy decides whether the parent is visible.
    else (select p.id from app_public.issues p where p.id = p_parent_id)
  end
$$;
comment on function app_hidden.visible_parent_id(p_parent_id uuid) is 'The parent issue id as the caller may see it: NULL for a narrowed key that cannot see the parent (its id stays hidden, docs/decisions.md).';
grant execute on function app_hidden.visible_parent_id(p_parent_id uuid) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else jsonb_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', app_hidden.visible_parent_id(i.parent_id), 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce(p_label_ids, '[]'),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null).';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'A short issue reference (id, key, number, title, status) embedded in relations, pins and time entries.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues) to svc_visitor;

create or replace function app_hidden.status_json(s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(s app_public.statuses) is 'Status (spec 2.3).';
grant execute on function app_hidden.status_json(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.watcher_json(w app_public.issue_watchers)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(w app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';
grant execute on function app_hidden.watcher_json(w app_public.issue_watchers) to svc_visitor;
--! EndIncluded issues/shapes.sql
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run, swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    select * into v_issue from app_public.issues where id = v_issue.id for update;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.id into v.cycle_id from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v.cycle_id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.uuid_array(args->'labelIds', 'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
--! Included issues/tools/get.sql
-- The issues.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the lean issue by id or key; include adds description, labels, comments (newest first, default 20, max 100,
-- soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.
create or replace function app_tools.issues_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ref text := args->>'id';
  v_include jsonb := args->'include';
  v_found record;
  v_issue app_public.issues;
  v_result jsonb;
  v_limit int;
begin
  if v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id (the common case): found and shaped in one query, the joins of issue_json.
    select i as issue, app_hidden.issue_lean_json(i, s, p, a, li.ids) as json
    into v_found
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    where i.id = v_ref::uuid and i.deleted_at is null;
    if v_found.json is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
    end if;
    if v_include is null then
      return v_found.json;
    end if;
    v_issue := v_found.issue;
    v_result := v_found.json;
  else
    v_issue := app_hidden.find_issue(v_ref);
    v_result := app_hidden.issue_json(v_issue, false);
    if v_include is null then
      return v_result;
    end if;
  end if;
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', coalesce(
      (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) order by il.created_at, l.id)
       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
       where il.issue_id = v_issue.id), '[]'));
  end if;
  if jsonb_typeof(v_include->'comments') = 'object' or (v_include->>'comments')::boolean then
    v_limit := coalesce((v_include->'comments'->>'limit')::int, 20);
    v_result := v_result || jsonb_build_object('comments', coalesce(
      (select jsonb_agg(app_hidden.comment_shape(t.c, u, a) order by (t.c).created_at desc, (t.c).id desc)
       from (select c from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) t
       left join app_public.users u on u.id = (t.c).author_user_id
       left join app_public.agents a on a.id = (t.c).authoring_agent_id), '[]'));
  end if;
  if (v_include->>'attachments')::boolean then
    v_result := v_result || jsonb_build_object('attachments', coalesce(
      (select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
       from app_public.attachments a
       where a.workspace_id = v_issue.workspace_id and a.target_type = 'issue' and a.target_id = v_issue.id), '[]'));
  end if;
  if (v_include->>'relations')::boolean then
    -- Seen from this issue: BLOCKS stored from another issue to this one reads BLOCKED_BY.
    v_result := v_result || jsonb_build_object('relations', coalesce(
      (select jsonb_agg(jsonb_build_object(
          'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
          'kind', case when r.to_issue_id = v_issue.id and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
          'direction', case when r.from_issue_id = v_issue.id then 'outbound' else 'inbound' end,
          'issue', (select jsonb_build_object('id', o.id, 'key', o.key, 'title', o.title, 'statusId', o.status_id)
                    from app_public.issues o
                    where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end),
          'createdAt', r.created_at) order by r.created_at, r.id)
       from app_public.issue_relations r
       where r.workspace_id = v_issue.workspace_id and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)), '[]'));
  end if;
  if (v_include->>'currentRun')::boolean then
    v_result := v_result || jsonb_build_object('currentRun',
      (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
  end if;
  return v_result;
end
$$;
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds description, labels, comments (newest first; true = 20, or {limit} up to 100), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/get.sql
--! Included issues/tools/create.sql
-- The issues.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new issue (default status unless statusId), labels attached; ISSUE_CREATED is written by trigger. A
-- narrowed key may only create inside its narrowing.
create or replace function app_tools.issues_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
  v_id uuid := gen_random_uuid();
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
  end if;

  if cardinality(v_label_ids) > 0
     and (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- Everything that can fail is checked above: the insert takes the workspace's issue counter (trigger
  -- _200_assign_number), held until commit, so creates in one workspace queue behind it; after it comes
  -- only what needs the row.
  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), v_status_id, v_project_id,
          v_parent.id, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  if cardinality(v_label_ids) > 0 then
    insert into app_public.issue_labels (workspace_id, issue_id, label_id)
    select v_ws, v_id, l from unnest(v_label_ids) l;
  end if;

  return app_hidden.issue_json_after_write(v_id);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/create.sql
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim; another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %', v_issue.claim_expires_at
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240))
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it; another user''s unexpired claim is 409 already_claimed.';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
--! Included comments/comments.sql
-- comments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.comment_for_write(p_id text)
 returns app_public.comments
 language plpgsql
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, 'id') and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id()
  for update of c;
  if v_comment.id is null then
    raise exception 'Comment not found' using errcode = 'SV404', column = 'id';
  end if;
  -- The author is the agent when an agent wrote it, else the user; a key acts as its agent when it has one.
  if not coalesce(case when v_comment.authoring_agent_id is not null
                        then v_comment.authoring_agent_id = app_hidden.current_agent_id()
                        else app_hidden.current_agent_id() is null and v_comment.author_user_id = app_hidden.current_user_id() end, false)
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the author, a workspace OWNER/ADMIN or an ADMIN key may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(p_id text) is 'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), a person key of a workspace OWNER/ADMIN, or an ADMIN key (403 not_author otherwise).';
grant execute on function app_hidden.comment_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (lists join the authors).
  select jsonb_build_object(
    'id', c.id, 'issueId', c.issue_id, 'body', c.body, 'kind', c.kind, 'confidence', c.confidence,
    'authorUserId', c.author_user_id, 'authoringAgentId', c.authoring_agent_id, 'runId', c.run_id,
    'author', case when u.id is not null then
                jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email) end,
    'authoringAgent', case when a.id is not null then
                        jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'editedAt', c.edited_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) is 'The Comment shape from rows the caller already fetched: the author user (u) and authoring agent (a) as the caller can see them; inlined into lists.';
grant execute on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) to svc_visitor;

create or replace function app_hidden.comment_json(c app_public.comments)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql: as `language sql` with subqueries it was never inlined and was planned again in every
  -- statement that called it (~1 ms per comments.create).
  return (select app_hidden.comment_shape(c, u, a)
          from (select 1) as one
          left join app_public.users u on u.id = c.author_user_id
          left join app_public.agents a on a.id = c.authoring_agent_id);
end
$$;
comment on function app_hidden.comment_json(c app_public.comments) is 'Comment (spec 2.4) with author {id, name, email} and authoringAgent {id, profileKey, name}. Revisions are an in-app read only and are not shown.';
grant execute on function app_hidden.comment_json(c app_public.comments) to svc_visitor;

create or replace function app_public.comments_revision_history(c app_public.comments)
 returns setof app_public.comment_revision
 language sql
 stable
as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(c app_public.comments) is 'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';
grant execute on function app_public.comments_revision_history(c app_public.comments) to svc_visitor;
--! EndIncluded comments/comments.sql
--! Included comments/tools/list.sql
-- The comments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before =
-- the nextCursor of the previous page.
create or replace function app_tools.comments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before record := app_hidden.keyset_decode(args->>'before', 'comments', 'before');
begin
  -- The page first (index order, limit), then its authors by join and an inlined shaper: no per-row
  -- function call.
  return app_hidden.page_json(array(
    select (app_hidden.comment_shape(t.c, u, a), app_hidden.ts_key((t.c).created_at), (t.c).id)::app_hidden.page_row
    from (select c from app_public.comments c
          where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
            and (v_before.sort_id is null or (c.created_at, c.id) < (v_before.sort_key::timestamptz, v_before.sort_id))
          order by c.created_at desc, c.id desc limit v_limit + 1) t
    left join app_public.users u on u.id = (t.c).author_user_id
    left join app_public.agents a on a.id = (t.c).authoring_agent_id
    order by (t.c).created_at desc, (t.c).id desc), v_limit, 'comments');
end
$$;
comment on function app_tools.comments_list(args jsonb) is 'comments.list: Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.';
grant execute on function app_tools.comments_list(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/list.sql
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  select jsonb_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at)
  || case when p_with_actor then jsonb_build_object('actor', coalesce(
       case when a.id is not null then jsonb_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
     else '{}'::jsonb end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)
$$;
comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included.';
--! EndIncluded events/record.sql
--! Included events/tools/recent.sql
-- The events.recent tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first; filters subjectType, subjectId, kinds; before = the nextCursor of a previous page. Issue
-- narrowing applies to issue subjects.
create or replace function app_tools.events_recent(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_subject_id uuid := app_hidden.parse_uuid(args->>'subjectId', 'subjectId');
  v_kinds text[] := (select array_agg(k) from jsonb_array_elements_text(args->'kinds') k);
  v_before_seq bigint;
begin
  if args->>'subjectType' = 'issue' and v_subject_id is not null then
    -- Narrowing is enforced on the subject itself: an issue outside it is not found.
    perform app_hidden.find_issue(v_subject_id::text, 'subjectId');
  end if;
  if args->>'before' is not null then
    v_before_seq := app_hidden.cursor_decode(args->>'before', 'events', 'before')::bigint;
  end if;
  -- The page first (index order, limit), then its actors by join and an inlined shaper: no per-row
  -- function call (event_json per row was 3 of 7 ms).
  return app_hidden.page_json(array(
    select (app_hidden.event_shape(t.e, a, u, true), (t.e).seq::text, null)::app_hidden.page_row
    from (select e from app_public.activity_events e
          where e.workspace_id = v_ws
            and (args->>'subjectType' is null or e.subject_type = args->>'subjectType')
            and (v_subject_id is null or e.subject_id = v_subject_id)
            and (v_kinds is null or e.kind = any(v_kinds))
            and (v_before_seq is null or e.seq < v_before_seq)
          order by e.seq desc limit v_limit + 1) t
    left join app_public.agents a on a.id = (t.e).actor_agent_id
    left join app_public.users u on u.id = (t.e).actor_user_id
    order by (t.e).seq desc), v_limit, 'events');
end
$$;
comment on function app_tools.events_recent(args jsonb) is 'events.recent: Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id) or kinds; page with before = nextCursor.';
grant execute on function app_tools.events_recent(args jsonb) to svc_visitor;
--! EndIncluded events/tools/recent.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number, keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_page app_hidden.page_row[];
  v_before int := 2147483647;
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the list index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    v_page := array(
      select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, '[]')), (t.i).number::text, null)::app_hidden.page_row
      from (select i from app_public.issues i
            where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
            order by i.number desc limit v_limit + 1) t
      left join app_public.statuses s on s.id = (t.i).status_id
      left join app_public.projects p on p.id = (t.i).project_id
      left join app_public.agents a on a.id = (t.i).assigned_agent_id
      left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                         from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
      order by (t.i).number desc);
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
    end if;
    if v_status is not null then
      if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        v_where := v_where || format(' and i.status_id = %L::uuid', v_status);
      elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
        v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category = %L)', v_status);
      else
        v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and lower(s.name) = lower(%L))', v_status);
      end if;
    end if;
    if args->>'open' is not null then
      v_where := v_where || format(' and i.status_id %s (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category in (''DONE'', ''CANCELED''))',
                                   case when (args->>'open')::boolean then 'not in' else 'in' end);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array(select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')), (t.i).number::text, null)::app_hidden.page_row
       from (select i from app_public.issues i where %s order by i.number desc limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
       order by (t.i).number desc)', v_where, v_limit + 1)
    into v_page
    using app_hidden.current_workspace_id();
  end if;
  return app_hidden.page_json(v_page, v_limit, 'issues');
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
