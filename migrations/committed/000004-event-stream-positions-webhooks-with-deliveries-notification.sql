--! Previous: sha1:edc03d83d21c3f6aa96b8513cf116e5745de0de8
--! Hash: sha1:0837c381eee8d429807ece210b44c6c4599e178e
--! Message: event stream positions, webhooks with deliveries, notification preferences

--! split: 1-current.sql
-- Enter migration here

--! split: 40-event-stream.sql
-- Event stream: commit-ordered positions for SSE resume, the stream readers, and the ephemeral path.
--
-- Why a second ordering next to `seq`: `seq` is allocated at INSERT, so a transaction that started
-- earlier can commit a lower seq after a higher one was already streamed; "seq > last" on resume
-- would then skip it. `stream_pos` is allocated at COMMIT time (a deferred constraint trigger) under
-- a per-workspace transaction lock, so within a workspace positions are handed out in commit order:
-- once a client has seen position P, every event it has not seen has a position above P.
-- Re-runnable while current.

drop trigger if exists _900_sequence_and_notify on app_public.activity_events;
drop trigger if exists _900_notify on app_public.activity_events;
drop function if exists app_private.tg_activity_events__notify();
drop function if exists app_private.tg_activity_events__sequence();

alter table app_public.activity_events add column if not exists stream_pos bigint;
comment on column app_public.activity_events.stream_pos is
  'Commit-ordered position within the workspace (allocated at commit by _900_sequence_and_notify). SSE resumes with stream_pos > the last delivered one; NULL only inside the writing transaction.';

create sequence if not exists app_private.activity_event_stream_pos;
comment on sequence app_private.activity_event_stream_pos is 'Source of activity_events.stream_pos; handed out at commit time under a per-workspace lock.';

-- Events written before this migration get positions in seq order.
update app_public.activity_events set stream_pos = nextval('app_private.activity_event_stream_pos')
where id in (select id from app_public.activity_events where stream_pos is null order by seq);

create unique index if not exists activity_events_stream_idx on app_public.activity_events (workspace_id, stream_pos);

create function app_private.tg_activity_events__sequence() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_pos bigint;
begin
  -- Held until this transaction ends: the next event-writing commit of the workspace waits here, so
  -- a lower position can never become visible after a higher one. Hash collisions between
  -- workspaces only serialise a little more.
  perform pg_advisory_xact_lock(1398161490, hashtext(new.workspace_id::text));
  update app_public.activity_events set stream_pos = nextval('app_private.activity_event_stream_pos')
  where id = new.id
  returning stream_pos into v_pos;
  if v_pos is not null then
    perform pg_notify('svc_events', json_build_object(
      'id', new.id, 'seq', new.seq, 'pos', v_pos, 'workspaceId', new.workspace_id)::text);
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__sequence() is
  'Deferred (commit-time) trigger: allocates stream_pos under a per-workspace advisory lock, so positions follow commit order, then NOTIFYs svc_events with {id, seq, pos, workspaceId} (ids only).';

create constraint trigger _900_sequence_and_notify after insert on app_public.activity_events
  deferrable initially deferred
  for each row execute function app_private.tg_activity_events__sequence();

-- Stream readers. They run as the request role with the subscriber's identity, so the
-- select_in_workspace policy (workspace, key narrowing) decides what a subscriber receives.

create or replace function app_hidden.stream_events(p_ids uuid[]) returns jsonb
language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', e.stream_pos, 'event', app_hidden.event_json(e, false))
                            order by e.stream_pos), '[]')
  from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id() and e.id = any(p_ids) and e.stream_pos is not null
$$;
comment on function app_hidden.stream_events(uuid[]) is
  'SSE live path: the given events that the caller may see, as [{pos, event}] in stream order.';

create or replace function app_hidden.stream_events_after(p_after bigint, p_limit int) returns jsonb
language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', t.stream_pos, 'event', app_hidden.event_json(t, false))
                            order by t.stream_pos), '[]')
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
        order by e.stream_pos limit p_limit) t
$$;
comment on function app_hidden.stream_events_after(bigint, int) is
  'SSE resume: up to p_limit events after a stream position that the caller may see, oldest first.';

create or replace function app_hidden.stream_backlog(p_after bigint, p_cap int) returns int
language sql stable as $$
  select count(*)::int from (select 1 from app_public.activity_events e
                             where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
                             limit p_cap) t
$$;
comment on function app_hidden.stream_backlog(bigint, int) is
  'SSE resume: how many visible events follow a position, counting at most p_cap (the replay bound).';

create or replace function app_hidden.stream_position(p_event_id uuid, p_max_age interval) returns bigint
language sql stable as $$
  select e.stream_pos from app_public.activity_events e
  where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()
    and e.created_at > now() - p_max_age
$$;
comment on function app_hidden.stream_position(uuid, interval) is
  'SSE resume: stream position of a Last-Event-ID the caller may see and that is younger than p_max_age; NULL otherwise.';

create or replace function app_hidden.stream_head() returns bigint
language sql stable as $$
  select coalesce(max(e.stream_pos), 0) from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.stream_head() is 'SSE: the highest stream position in the caller''s workspace (a new subscriber''s starting point).';

-- Ephemeral events (chat drafts, spec 6.4): published to SSE subscribers on commit, never stored.

create or replace function app_private.publish_ephemeral_event(
  p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb
) returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.publish_ephemeral_event(uuid, text, text, uuid, jsonb) is
  'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
returns jsonb
language sql volatile security definer set search_path = pg_catalog as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(text, text, uuid, jsonb) is
  'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';

grant execute on function app_hidden.stream_events(uuid[]), app_hidden.stream_events_after(bigint, int),
  app_hidden.stream_backlog(bigint, int), app_hidden.stream_position(uuid, interval), app_hidden.stream_head(),
  app_hidden.publish_ephemeral_event(text, text, uuid, jsonb) to svc_visitor;

-- The event kinds of spec 6.1 (plus AGENT_RUN_KICKED). Webhook filters and notification preferences
-- validate against this list; src/events/kinds.ts holds the same list (a test keeps them equal).
create or replace function app_hidden.event_kinds() returns text[]
language sql immutable parallel safe as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1 and AGENT_RUN_KICKED); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

--! split: 41-webhooks.sql
-- Webhooks: registrations, secrets, the delivery outbox, attempts, and the agent dispatch channel.
--
-- Durability: an AFTER INSERT trigger on activity_events writes one delivery row per matching active
-- webhook and enqueues its Graphile Worker job, all in the event's own transaction: a committed event
-- always has its deliveries, a rolled-back one has none. The delivery row (not the job) is the source
-- of truth; jobs only wake workers. A worker claims a delivery with a lease (locked_until); a worker
-- that dies mid-delivery leaves an expired lease that the sweep (worker start-up and every minute)
-- puts back in the queue, so every committed event is delivered at least once, always with the event
-- id as `webhook-id`.
-- Re-runnable while current.

drop trigger if exists _500_webhooks on app_public.activity_events;
drop function if exists app_private.tg_activity_events__webhooks();
drop table if exists app_public.webhook_delivery_attempts cascade;
drop table if exists app_public.webhook_deliveries cascade;
drop table if exists app_private.webhook_secrets cascade;
drop table if exists app_private.agent_webhook_secrets cascade;
drop table if exists app_public.webhooks cascade;

------------------------------------------------------------------------------------------
-- Who may manage webhooks: workspace OWNER or ADMIN (in-app procedures; the operator CLI is the owner).
------------------------------------------------------------------------------------------

create or replace function app_hidden.is_workspace_admin() returns boolean
language sql stable as $$
  select exists (select 1 from app_public.memberships m
                 where m.workspace_id = app_hidden.current_workspace_id()
                   and m.user_id = app_hidden.current_user_id()
                   and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is 'True when the calling user is OWNER or ADMIN of the calling workspace.';

create or replace function app_hidden.require_workspace_admin() returns void
language plpgsql stable as $$
begin
  if not app_hidden.is_workspace_admin() then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
end
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling user is OWNER or ADMIN of the calling workspace.';

------------------------------------------------------------------------------------------
-- Tables
------------------------------------------------------------------------------------------

create table app_public.webhooks (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  url text not null check (url ~ '^https?://[^\s/?#@]+' and length(url) <= 2048),
  events text[] not null default '{}',
  active boolean not null default true,
  description text check (length(description) <= 500),
  deactivated_at timestamptz,
  deactivated_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.webhooks is
  'A registered webhook: every event of the workspace whose kind is in events (empty = all) is POSTed, signed, to url while active.';
comment on column app_public.webhooks.events is 'Event kinds delivered; empty = every kind.';
comment on column app_public.webhooks.active is 'Inactive webhooks get no new deliveries; an endpoint answering 410 Gone is deactivated.';
create index webhooks_active_idx on app_public.webhooks (workspace_id) where active;
create trigger _100_updated_at before update on app_public.webhooks
  for each row execute function app_hidden.tg__set_updated_at();

create table app_private.webhook_secrets (
  webhook_id uuid primary key,
  workspace_id uuid not null,
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'),
  rotated_at timestamptz not null default now(),
  foreign key (workspace_id, webhook_id) references app_public.webhooks (workspace_id, id) on delete cascade
);
comment on table app_private.webhook_secrets is
  'Signing secret of each webhook (whsec_<base64>, Standard Webhooks format). Shown once at creation or rotation; never readable by the request role.';

create table app_private.agent_webhook_secrets (
  agent_id uuid primary key,
  workspace_id uuid not null,
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'),
  rotated_at timestamptz not null default now(),
  foreign key (workspace_id, agent_id) references app_public.agents (workspace_id, id) on delete cascade
);
comment on table app_private.agent_webhook_secrets is
  'Signing secret for agent dispatch deliveries to an agent''s webhookUrl; obtained (and replaced) with svc admin rotate-agent-secret.';

create table app_public.webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  event_id uuid not null references app_public.activity_events on delete cascade,
  webhook_id uuid,
  agent_id uuid,
  channel text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED')),
  attempt_count int not null default 0,
  total_attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until timestamptz,
  last_status_code int,
  last_error text,
  delivered_at timestamptz,
  dead_lettered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (webhook_id, event_id),
  unique (agent_id, event_id),
  check (num_nonnulls(webhook_id, agent_id) = 1),
  foreign key (workspace_id, webhook_id) references app_public.webhooks (workspace_id, id) on delete cascade,
  foreign key (workspace_id, agent_id) references app_public.agents (workspace_id, id) on delete cascade
);
comment on table app_public.webhook_deliveries is
  'Outbox: one row per (event, webhook) or (event, agent dispatch), written in the event''s transaction. PENDING until a 2xx (DELIVERED), retries exhausted (DEAD_LETTER) or the target is gone (CANCELED).';
comment on column app_public.webhook_deliveries.channel is 'webhook:<webhookId> or agent:dispatch:<agentId> (spec 6.6).';
comment on column app_public.webhook_deliveries.attempt_count is 'Attempts in the current round (a dead-letter retry starts a new round); drives the backoff.';
comment on column app_public.webhook_deliveries.locked_until is 'Lease of the worker attempting it now; an expired lease on a PENDING row means that worker died, and the sweep re-queues it.';
create index webhook_deliveries_pending_idx on app_public.webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_webhook_idx on app_public.webhook_deliveries (workspace_id, webhook_id, created_at desc);
create index webhook_deliveries_status_idx on app_public.webhook_deliveries (workspace_id, status, created_at desc);
create index webhook_deliveries_event_idx on app_public.webhook_deliveries (event_id);
create trigger _100_updated_at before update on app_public.webhook_deliveries
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.webhook_delivery_attempts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  delivery_id uuid not null,
  attempt_number int not null,
  url text not null,
  started_at timestamptz not null,
  duration_ms int not null,
  status_code int,
  error text,
  response_body text check (length(response_body) <= 2048),
  created_at timestamptz not null default now(),
  foreign key (workspace_id, delivery_id) references app_public.webhook_deliveries (workspace_id, id) on delete cascade
);
comment on table app_public.webhook_delivery_attempts is
  'Every delivery attempt: URL, HTTP status (or error), duration and the first 2 kB of the response.';
create index webhook_delivery_attempts_delivery_idx on app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number);

-- Row-level security: readable by workspace OWNER/ADMIN (in-app webhook health); written only by the
-- owner (definer functions, worker). Secrets have no request-role policy at all.

alter table app_public.webhooks enable row level security;
alter table app_public.webhooks force row level security;
create policy select_as_workspace_admin on app_public.webhooks for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.is_workspace_admin()));
comment on policy select_as_workspace_admin on app_public.webhooks is 'Workspace OWNER/ADMIN see the workspace''s webhooks (never their secrets, which live in app_private).';
create policy owner_all on app_public.webhooks to current_user using (true) with check (true);
comment on policy owner_all on app_public.webhooks is 'The schema owner (management functions, worker) works on every row.';

alter table app_private.webhook_secrets enable row level security;
alter table app_private.webhook_secrets force row level security;
create policy owner_all on app_private.webhook_secrets to current_user using (true) with check (true);
comment on policy owner_all on app_private.webhook_secrets is 'Only the schema owner (management functions, worker signing deliveries) reads secrets.';

alter table app_private.agent_webhook_secrets enable row level security;
alter table app_private.agent_webhook_secrets force row level security;
create policy owner_all on app_private.agent_webhook_secrets to current_user using (true) with check (true);
comment on policy owner_all on app_private.agent_webhook_secrets is 'Only the schema owner reads agent dispatch secrets.';

alter table app_public.webhook_deliveries enable row level security;
alter table app_public.webhook_deliveries force row level security;
create policy select_as_workspace_admin on app_public.webhook_deliveries for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.is_workspace_admin()));
comment on policy select_as_workspace_admin on app_public.webhook_deliveries is 'Workspace OWNER/ADMIN see delivery status (webhook health, dead letters).';
create policy owner_all on app_public.webhook_deliveries to current_user using (true) with check (true);
comment on policy owner_all on app_public.webhook_deliveries is 'The schema owner (event trigger, worker, management functions) works on every row.';

alter table app_public.webhook_delivery_attempts enable row level security;
alter table app_public.webhook_delivery_attempts force row level security;
create policy select_as_workspace_admin on app_public.webhook_delivery_attempts for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.is_workspace_admin()));
comment on policy select_as_workspace_admin on app_public.webhook_delivery_attempts is 'Workspace OWNER/ADMIN see every attempt.';
create policy owner_all on app_public.webhook_delivery_attempts to current_user using (true) with check (true);
comment on policy owner_all on app_public.webhook_delivery_attempts is 'The worker records attempts.';

grant select on app_public.webhooks, app_public.webhook_deliveries, app_public.webhook_delivery_attempts to svc_visitor;

------------------------------------------------------------------------------------------
-- Shapes and helpers
------------------------------------------------------------------------------------------

create or replace function app_private.new_webhook_secret() returns text
language sql volatile as $$
  -- 32 bytes from two v4 UUIDs (pg_strong_random; 244 random bits), base64: the Standard Webhooks format.
  select 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
$$;
comment on function app_private.new_webhook_secret() is 'A fresh signing secret, whsec_<base64 of 32 bytes> (Standard Webhooks).';

create or replace function app_hidden.webhook_json(w app_public.webhooks) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events), 'active', w.active,
    'description', w.description, 'deactivatedAt', w.deactivated_at, 'deactivatedReason', w.deactivated_reason,
    'createdAt', w.created_at, 'updatedAt', w.updated_at)
$$;
comment on function app_hidden.webhook_json(app_public.webhooks) is 'Webhook shape (never the secret).';

create or replace function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) returns jsonb
language sql stable as $$
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
comment on function app_hidden.webhook_delivery_json(app_public.webhook_deliveries) is 'Delivery shape with every attempt (status, duration, truncated response).';

create or replace function app_private.check_webhook_input(p_url text, p_events text[]) returns text[]
language plpgsql immutable as $$
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
comment on function app_private.check_webhook_input(text, text[]) is 'Validates a webhook URL and event filter (400 naming the field); returns the events de-duplicated and sorted.';

-- The Graphile Worker job of a delivery. Keyed by delivery id, so re-enqueueing never doubles a
-- waiting job, and a job stuck on a dead worker is superseded. If graphile_worker is not installed
-- yet (a database migrated by graphile-migrate alone), the PENDING row waits for the worker's
-- start-up sweep instead.
create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamptz default null) returns void
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace');
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(uuid, timestamptz) is
  'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>. Runs in the caller''s transaction.';

------------------------------------------------------------------------------------------
-- Every committed event gets its deliveries in its own transaction
------------------------------------------------------------------------------------------

create function app_private.tg_activity_events__webhooks() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare v_delivery uuid;
begin
  for v_delivery in
    insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
    select new.workspace_id, new.id, w.id, 'webhook:' || w.id
    from app_public.webhooks w
    where w.workspace_id = new.workspace_id and w.active
      and (cardinality(w.events) = 0 or new.kind = any(w.events))
    returning id
  loop
    perform app_private.enqueue_delivery_job(v_delivery);
  end loop;
  return null;
end
$$;
comment on function app_private.tg_activity_events__webhooks() is
  'AFTER INSERT on activity_events: one delivery (and its job) per active webhook whose filter matches, in the event''s transaction.';
create trigger _500_webhooks after insert on app_public.activity_events
  for each row execute function app_private.tg_activity_events__webhooks();

------------------------------------------------------------------------------------------
-- Agent dispatch channel (agent:dispatch:{agentId}): the mechanism dispatch features call
------------------------------------------------------------------------------------------

create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid) returns text
language plpgsql volatile as $$
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
comment on function app_private.rotate_agent_webhook_secret(uuid) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns it (shown once).';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) returns uuid
language plpgsql volatile security definer set search_path = pg_catalog as $$
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
comment on function app_private.enqueue_agent_dispatch(uuid, uuid) is
  'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

------------------------------------------------------------------------------------------
-- Management (owner: operator CLI; wrappers below add the OWNER/ADMIN check for in-app use)
------------------------------------------------------------------------------------------

create or replace function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[] default '{}', p_description text default null)
returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_create(uuid, text, text[], text) is
  'Registers a webhook; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_update(
  p_webhook_id uuid, p_url text default null, p_events text[] default null, p_active boolean default null,
  p_description text default null
) returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_update(uuid, text, text[], boolean, text) is
  'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook are canceled when their turn comes.';

create or replace function app_private.webhook_delete(p_webhook_id uuid) returns jsonb
language plpgsql volatile as $$
declare v_webhook app_public.webhooks;
begin
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(uuid) is 'Deletes a webhook with its secret, deliveries and attempts; queued jobs find nothing and stop.';

create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid) returns jsonb
language plpgsql volatile as $$
declare v_secret text := app_private.new_webhook_secret();
begin
  update app_private.webhook_secrets set secret = v_secret, rotated_at = now() where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret);
end
$$;
comment on function app_private.webhook_rotate_secret(uuid) is 'Replaces a webhook''s signing secret at once and returns the new one (shown once).';

create or replace function app_private.webhooks_list(p_workspace_id uuid) returns jsonb
language sql stable as $$
  select coalesce(jsonb_agg(app_hidden.webhook_json(w) || jsonb_build_object(
      'pending', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id))
    order by w.created_at, w.id), '[]')
  from app_public.webhooks w where w.workspace_id = p_workspace_id
$$;
comment on function app_private.webhooks_list(uuid) is 'The workspace''s webhooks with pending and dead-letter counts (no secrets).';

create or replace function app_private.webhook_deliveries_list(
  p_workspace_id uuid, p_webhook_id uuid default null, p_status text default null, p_limit int default 50, p_before uuid default null
) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := least(greatest(coalesce(p_limit, 50), 1), 200);
  v_before app_public.webhook_deliveries;
  v_items jsonb;
  v_count int;
begin
  if p_status is not null and p_status not in ('PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED') then
    perform app_hidden.raise_invalid('status', 'status must be PENDING, DELIVERED, DEAD_LETTER or CANCELED');
  end if;
  if p_before is not null then
    select * into v_before from app_public.webhook_deliveries where id = p_before and workspace_id = p_workspace_id;
  end if;
  select coalesce(jsonb_agg(app_hidden.webhook_delivery_json(t) order by t.created_at desc, t.id desc), '[]'), count(*)
  into v_items, v_count
  from (select * from app_public.webhook_deliveries d
        where d.workspace_id = p_workspace_id
          and (p_webhook_id is null or d.webhook_id = p_webhook_id)
          and (p_status is null or d.status = p_status)
          and (v_before.id is null or (d.created_at, d.id) < (v_before.created_at, v_before.id))
        order by d.created_at desc, d.id desc limit v_limit + 1) t;
  if v_count > v_limit then
    v_items := v_items - v_limit;
    return jsonb_build_object('items', v_items, 'nextCursor', v_items->(v_limit - 1)->>'id');
  end if;
  return jsonb_build_object('items', v_items, 'nextCursor', null);
end
$$;
comment on function app_private.webhook_deliveries_list(uuid, uuid, text, int, uuid) is
  'Deliveries of a workspace, newest first, optionally of one webhook or status, with their attempts; page with p_before = nextCursor.';

create or replace function app_private.webhook_delivery_retry(p_delivery_id uuid) returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_delivery_retry(uuid) is
  'Puts a DEAD_LETTER (or CANCELED) delivery back in the queue with a fresh retry schedule; same event, same webhook-id.';

-- In-app wrappers (GraphQL mutations call these): caller must be OWNER/ADMIN of the calling
-- workspace, and may only reach that workspace's webhooks.

create or replace function app_hidden.webhook_in_workspace(p_webhook_id uuid) returns uuid
language plpgsql stable security definer set search_path = pg_catalog as $$
begin
  if not exists (select 1 from app_public.webhooks where id = p_webhook_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  return p_webhook_id;
end
$$;
comment on function app_hidden.webhook_in_workspace(uuid) is 'The webhook id when it belongs to the calling workspace, else 404.';

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}', p_description text default null) returns jsonb
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(text, text[], text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once.';

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default null, p_events text[] default null,
  p_active boolean default null, p_description text default null) returns jsonb
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(uuid, text, text[], boolean, text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN).';

create or replace function app_hidden.webhook_delete(p_webhook_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_delete(uuid) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN).';

create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_rotate_secret(uuid) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once.';

create or replace function app_hidden.webhooks_list() returns jsonb
language plpgsql stable security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  return app_private.webhooks_list(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.webhooks_list() is 'In-app: the calling workspace''s webhooks with health counts (OWNER/ADMIN).';

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default null, p_status text default null,
  p_limit int default 50, p_before uuid default null) returns jsonb
language plpgsql stable security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  if p_webhook_id is not null then
    perform app_hidden.webhook_in_workspace(p_webhook_id);
  end if;
  return app_private.webhook_deliveries_list(app_hidden.current_workspace_id(), p_webhook_id, p_status, p_limit, p_before);
end
$$;
comment on function app_hidden.webhook_deliveries_list(uuid, text, int, uuid) is 'In-app: deliveries of the calling workspace (OWNER/ADMIN).';

create or replace function app_hidden.webhook_delivery_retry(p_delivery_id uuid) returns jsonb
language plpgsql volatile security definer set search_path = pg_catalog as $$
begin
  perform app_hidden.require_workspace_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';

grant execute on function app_hidden.is_workspace_admin(), app_hidden.require_workspace_admin(),
  app_hidden.webhook_json(app_public.webhooks), app_hidden.webhook_delivery_json(app_public.webhook_deliveries),
  app_hidden.webhook_in_workspace(uuid), app_hidden.webhook_create(text, text[], text),
  app_hidden.webhook_update(uuid, text, text[], boolean, text), app_hidden.webhook_delete(uuid),
  app_hidden.webhook_rotate_secret(uuid), app_hidden.webhooks_list(),
  app_hidden.webhook_deliveries_list(uuid, text, int, uuid), app_hidden.webhook_delivery_retry(uuid)
  to svc_visitor;

------------------------------------------------------------------------------------------
-- Worker side (owner only)
------------------------------------------------------------------------------------------

create or replace function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms int) returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_delivery_claim(uuid, int) is
  'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body). NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_delivery_record(uuid, jsonb, numeric[]) is
  'Worker: records one attempt and moves the delivery on: 2xx DELIVERED; 410 deactivates the webhook (CANCELED); otherwise the next retry after p_backoff_seconds[n], or DEAD_LETTER when the schedule is spent.';

create or replace function app_private.webhook_deliveries_sweep(p_stale_ms int, p_follow_up boolean default false) returns jsonb
language plpgsql volatile as $$
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
comment on function app_private.webhook_deliveries_sweep(int, boolean) is
  'Recovery: re-queues PENDING deliveries whose lease expired or whose job is missing or stuck (older than p_stale_ms). With p_follow_up (worker start-up) it also schedules itself for when the current leases expire.';

--! split: 42-notification-preferences.sql
-- Notification preferences (spec 2.16, 4.13): per user and event kind, for one workspace or for
-- every workspace (global). A workspace row wins over a global row; no row = enabled.
-- Re-runnable while current.

drop function if exists app_tools.notification_set_preference(jsonb);
drop function if exists app_tools.notification_get_preferences(jsonb);
drop function if exists app_hidden.current_key_user_id();
drop function if exists app_private.notification_preference_effective(uuid, uuid, text);
drop table if exists app_public.notification_preferences cascade;

create table app_public.notification_preferences (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid references app_public.workspaces on delete cascade,
  user_id uuid not null references app_public.users on delete cascade,
  event_kind text not null,
  enabled boolean not null default true,
  delivery text not null default 'INBOX_ONLY' check (delivery in ('INBOX_ONLY', 'INBOX_AND_DIGEST')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app_public.notification_preferences is
  'Whether a user is notified of an event kind, and how. workspace_id NULL = the user''s global default for every workspace; a workspace row wins over it; no row = enabled.';
comment on column app_public.notification_preferences.workspace_id is 'NULL for a global (cross-workspace) row.';
comment on column app_public.notification_preferences.delivery is 'INBOX_ONLY or INBOX_AND_DIGEST; today both behave the same (spec 4.13).';
create unique index notification_preferences_workspace_key on app_public.notification_preferences (workspace_id, user_id, event_kind)
  where workspace_id is not null;
create unique index notification_preferences_global_key on app_public.notification_preferences (user_id, event_kind)
  where workspace_id is null;
create trigger _100_updated_at before update on app_public.notification_preferences
  for each row execute function app_hidden.tg__set_updated_at();

alter table app_public.notification_preferences enable row level security;
alter table app_public.notification_preferences force row level security;
create policy select_own_preferences on app_public.notification_preferences for select to svc_visitor
  using (user_id = (select app_hidden.current_user_id())
         and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())));
comment on policy select_own_preferences on app_public.notification_preferences is
  'A user sees their own rows: global ones and those of the calling workspace.';
create policy insert_own_preferences on app_public.notification_preferences for insert to svc_visitor
  with check (user_id = (select app_hidden.current_user_id())
              and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())));
comment on policy insert_own_preferences on app_public.notification_preferences is
  'A user sets their own preferences, for the calling workspace or globally.';
create policy update_own_preferences on app_public.notification_preferences for update to svc_visitor
  using (user_id = (select app_hidden.current_user_id())
         and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())))
  with check (user_id = (select app_hidden.current_user_id()));
comment on policy update_own_preferences on app_public.notification_preferences is 'A user changes their own preferences.';
create policy owner_all on app_public.notification_preferences to current_user using (true) with check (true);
comment on policy owner_all on app_public.notification_preferences is 'The schema owner (notification fan-out, operator) works on every row.';

grant select on app_public.notification_preferences to svc_visitor;
grant insert (workspace_id, user_id, event_kind, enabled, delivery) on app_public.notification_preferences to svc_visitor;
grant update (enabled, delivery) on app_public.notification_preferences to svc_visitor;

create or replace function app_hidden.current_key_user_id() returns uuid
language sql stable security definer set search_path = pg_catalog as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is
  'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';

create or replace function app_private.notification_preference_effective(p_user_id uuid, p_workspace_id uuid, p_kind text)
returns table (enabled boolean, delivery text, source text)
language sql stable as $$
  select coalesce(w.enabled, g.enabled, true), coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
         case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end
  from (select 1) one
  left join app_public.notification_preferences w
    on w.user_id = p_user_id and w.workspace_id = p_workspace_id and w.event_kind = p_kind
  left join app_public.notification_preferences g
    on g.user_id = p_user_id and g.workspace_id is null and g.event_kind = p_kind
$$;
comment on function app_private.notification_preference_effective(uuid, uuid, text) is
  'For notification fan-out: whether the user wants this kind in this workspace (workspace row, else global row, else enabled).';

create or replace function app_hidden.notification_preference_json(p app_public.notification_preferences) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', p.id, 'userId', p.user_id, 'workspaceId', p.workspace_id, 'eventKind', p.event_kind,
    'enabled', p.enabled, 'delivery', p.delivery, 'scope', case when p.workspace_id is null then 'global' else 'workspace' end,
    'updatedAt', p.updated_at)
$$;
comment on function app_hidden.notification_preference_json(app_public.notification_preferences) is 'NotificationPreference (spec 2.16) plus scope.';

create or replace function app_hidden.require_key_user() returns uuid
language plpgsql stable as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';

create or replace function app_tools.notification_set_preference(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_global boolean := coalesce(args->>'scope', 'workspace') = 'global';
  v_kind text := args->>'eventKind';
  v_row app_public.notification_preferences;
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  if v_global then
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (null, v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (user_id, event_kind) where workspace_id is null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  else
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (app_hidden.current_workspace_id(), v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (workspace_id, user_id, event_kind) where workspace_id is not null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  end if;
  return app_hidden.notification_preference_json(v_row);
end
$$;
comment on function app_tools.notification_set_preference(jsonb) is
  'notification.setPreference: upserts the key owner''s preference for one event kind, in this workspace (default) or globally; delivery kept when omitted on update.';

create or replace function app_tools.notification_get_preferences(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_ws uuid := app_hidden.current_workspace_id();
  v_kinds text[] := coalesce((select array_agg(k) from jsonb_array_elements_text(args->'eventKinds') k), app_hidden.event_kinds());
begin
  return jsonb_build_object(
    'preferences', coalesce((select jsonb_agg(app_hidden.notification_preference_json(p)
                                              order by p.event_kind, p.workspace_id nulls first)
                             from app_public.notification_preferences p
                             where p.user_id = v_user and p.event_kind = any(v_kinds)
                               and (p.workspace_id is null or p.workspace_id = v_ws)), '[]'),
    'effective', (select jsonb_agg(jsonb_build_object('eventKind', k,
                    'enabled', coalesce(w.enabled, g.enabled, true),
                    'delivery', coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
                    'source', case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end)
                  order by k)
                  from unnest(v_kinds) k
                  left join app_public.notification_preferences w on w.user_id = v_user and w.workspace_id = v_ws and w.event_kind = k
                  left join app_public.notification_preferences g on g.user_id = v_user and g.workspace_id is null and g.event_kind = k));
end
$$;
comment on function app_tools.notification_get_preferences(jsonb) is
  'notification.getPreferences: the key owner''s rows (global and this workspace) and the effective setting per kind (workspace row, else global, else enabled).';

grant execute on function app_hidden.current_key_user_id(), app_hidden.notification_preference_json(app_public.notification_preferences),
  app_hidden.require_key_user(), app_tools.notification_set_preference(jsonb), app_tools.notification_get_preferences(jsonb)
  to svc_visitor;
