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
