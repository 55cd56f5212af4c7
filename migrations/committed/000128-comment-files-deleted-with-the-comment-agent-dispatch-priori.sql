--! Previous: sha1:c93284263619fac8e3d712d3fcf42888715f4d30
--! Hash: sha1:8fcdabbb74b0f831498a84e52c45171b534deb3c
--! Message: Comment files deleted with the comment; agent dispatch priority; before hidden from narrowed keys entering; kick skips closed issues; webhook CLI events; viewerMayDecide; null list entries

--! split: 1-current.sql
-- agentsCreate/agentsUpdate stored capabilities [null] (and every one_line_list caller a null entry): refused,
-- naming the entry.
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.array_distinct(p_values anyarray)
 returns anyarray
 language sql
 immutable parallel safe
as $$
  select coalesce(array_agg(v order by n), p_values[0:-1])
  from (select v, min(n) as n from unnest(p_values) with ordinality u(v, n) group by v) d
$$;
comment on function app_hidden.array_distinct(p_values anyarray) is 'The array without repeats, each value where it first stood (NULL stays NULL; empty stays empty).';
grant execute on function app_hidden.array_distinct(p_values anyarray) to svc_visitor;

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

-- What the tools' zod `line()` refuses (src/tools/define.ts, NOT_IN_A_LINE), for the writers GraphQL and the CLI reach
-- without the tools' validation: a name an agent or a person reads must not hide a line break or turn text around.
create or replace function app_hidden.one_line(p_value text, p_field text, p_max integer)
 returns text
 language plpgsql
 immutable
as $$
declare v text := btrim(p_value, E' \t\n\r');
begin
  if p_value is null then
    return null;
  elsif v = '' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  elsif length(v) > p_max then
    perform app_hidden.raise_invalid(p_field, format('must be at most %s characters', p_max));
  elsif v ~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]' then
    perform app_hidden.raise_invalid(p_field, 'must be one line of text, without control or direction-override characters');
  end if;
  return v;
end
$$;
comment on function app_hidden.one_line(p_value text, p_field text, p_max integer) is 'A name or title as the tools take it (trimmed, 1 to p_max characters, one line without control or direction-override characters), or a 400 naming the field. NULL stays NULL.';
grant execute on function app_hidden.one_line(p_value text, p_field text, p_max integer) to svc_visitor;

create or replace function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer)
 returns text[]
 language plpgsql
 immutable
as $$
begin
  if p_values is null then
    return null;
  elsif cardinality(p_values) > p_max_items then
    perform app_hidden.raise_invalid(p_field, format('must have at most %s entries', p_max_items));
  elsif array_position(p_values, null) is not null then
    -- one_line keeps a null as null: [null] was stored, and read back where strings were promised.
    perform app_hidden.raise_invalid(p_field || '.' || (array_position(p_values, null) - 1), 'must not be null');
  end if;
  return array(select app_hidden.one_line(v, p_field || '.' || (n - 1), p_max) from unnest(p_values) with ordinality u(v, n) order by n);
end
$$;
comment on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) is 'At most p_max_items entries, none null, each app_hidden.one_line (the 400 names field.<index>). NULL stays NULL.';
grant execute on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) to svc_visitor;

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
-- ActionRequest.viewerMayDecide stayed true on a closed request (accept then answers 409): false once closed.
--! Included actionRequests/shapes.sql
-- actionRequests: JSON shapes and poll arithmetic (spec 2.13, 4.11).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop function if exists app_hidden.with_visible_duplicate(jsonb);  -- now app_hidden.with_visible_issue (issues/shapes.sql)

-- GraphQL reads payload and dispatchResult through with_visible_issue, never the raw columns (a narrowed key read
-- the id of a hidden duplicate there).
comment on column app_public.action_requests.payload is E'@behavior -*\nThe bound dispatch''s arguments (by kind). GraphQL: ActionRequest.payload (app_public.action_requests_payload).';
comment on column app_public.action_requests.dispatch_result is E'@behavior -*\nWhat accept did (the bound dispatch''s result), kept for audit. GraphQL: ActionRequest.dispatchResult.';

comment on column app_public.action_requests.source_id is E'@behavior -*\nWhat the request came from (sourceType). GraphQL: ActionRequest.sourceId (app_public.action_requests_source_id).';

create or replace function app_public.action_requests_source_id(r app_public.action_requests)
 returns uuid
 language sql
 stable
as $$ select case when r.source_type = 'issue' then app_hidden.visible_issue_id(r.source_id) else r.source_id end $$;
comment on function app_public.action_requests_source_id(r app_public.action_requests) is 'What the request came from (sourceType); an issue the key cannot see is null.';
grant execute on function app_public.action_requests_source_id(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_payload(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_payload(r app_public.action_requests) is 'The bound dispatch''s arguments (by kind); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_payload(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_dispatch_result(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_dispatch_result(r app_public.action_requests) is 'What accept did (the bound dispatch''s result); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_dispatch_result(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_json(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'title', r.title, 'body', r.body, 'severity', r.severity, 'kind', r.kind,
    -- The issue a CLOSE_AS_DUPLICATE names only if the caller may see it (as in its dispatch result).
    'payload', app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId'),
    'assignedUserId', r.assigned_user_id, 'assignedAgentId', r.assigned_agent_id, 'issueId', r.issue_id,
    'commentId', r.comment_id, 'dueAt', r.due_at, 'sourceType', r.source_type, 'sourceId', app_public.action_requests_source_id(r),
    'status', r.status, 'options', coalesce(r.options, '[]'::jsonb), 'isPoll', r.options is not null,
    'votingClosedAt', r.voting_closed_at, 'winningOptionKey', r.winning_option_key,
    'requestedByUserId', r.requested_by_user_id, 'requestedByAgentId', r.requested_by_agent_id,
    'resolvedAt', r.resolved_at, 'resolvedByUserId', r.resolved_by_user_id, 'resolvedByAgentId', r.resolved_by_agent_id,
    'dispatchResult', app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId'), 'createdAt', r.created_at, 'updatedAt', r.updated_at)
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

create or replace function app_public.action_requests_viewer_may_decide(r app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- A closed request has nothing left to decide (accept and decline answer 409): no buttons for it.
  select r.status in ('OPEN', 'SNOOZED') and app_hidden.action_request_may_decide(r)
$$;
comment on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) is 'Whether the calling key may accept or decline this request now: it is open (OPEN or SNOOZED) and the key is its assignee, a watcher of its issue, or a person whose workspace role is OWNER or ADMIN (the gate accept and decline apply). A board shows its buttons by it.';
grant execute on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_vote_counts(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_object_agg(t.option_key, t.votes), '{}') from app_hidden.poll_tally(r.id, r.options) t
$$;
comment on function app_public.action_requests_vote_counts(r app_public.action_requests) is 'A poll''s votes per option key ({} for a request without options), counted in the database: a board shows them whatever the number of voters.';
grant execute on function app_public.action_requests_vote_counts(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_viewer_vote(r app_public.action_requests)
 returns text
 language sql
 stable
as $$
  select v.option_key from app_public.action_request_votes v
  where v.request_id = r.id and v.user_id = app_hidden.current_user_id()
$$;
comment on function app_public.action_requests_viewer_vote(r app_public.action_requests) is 'The option key the calling key''s user voted for on this poll, or null.';
grant execute on function app_public.action_requests_viewer_vote(r app_public.action_requests) to svc_visitor;
--! EndIncluded actionRequests/shapes.sql
-- An issue moved INTO a narrowed key's view carried before.projectId, the id of a project the key may not see:
-- before is shown only to a key that could see the issue there.
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.project_event_payload(p_payload jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- An initiative-narrowed key sees every project's events, but not the id of an initiative outside its
  -- narrowing (as project_json hides it).
  if p_payload->>'initiativeId' is null or cardinality(app_hidden.narrowed_initiative_ids()) = 0
     or (p_payload->>'initiativeId')::uuid = any(app_hidden.narrowed_initiative_ids()) then
    return p_payload;
  end if;
  return p_payload || '{"initiativeId": null}';
end
$$;
comment on function app_hidden.project_event_payload(p_payload jsonb) is 'A PROJECT_* event payload as the caller may read it: initiativeId null when the key''s initiative narrowing leaves that initiative out.';
grant execute on function app_hidden.project_event_payload(p_payload jsonb) to svc_visitor;

-- GraphQL reads the payload as the tools show it, never the raw column (an initiative-narrowed key read a hidden
-- initiative's id in PROJECT_* payloads there).
comment on column app_public.activity_events.payload is E'@behavior -*\nThe event''s details (spec 6.4). GraphQL: ActivityEvent.payload (app_public.activity_events_payload).';

create or replace function app_public.activity_events_payload(e app_public.activity_events)
 returns jsonb
 language sql
 stable
as $$
  select case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload)
              -- An issue coming INTO a narrowed key's view from where it may not look: its before names that place
              -- (a hidden project's id). before is for a key that saw the issue there, to hear of it leaving.
              when e.payload ? 'before' and not app_hidden.key_unnarrowed()
                   and not app_hidden.scope_passes_narrowing((e.payload->'before'->>'projectId')::uuid, e.payload->'before'->'labelIds')
                then e.payload - 'before'
              else e.payload end
$$;
comment on function app_public.activity_events_payload(e app_public.activity_events) is 'The event''s details (spec 6.4) as the key may read them (a PROJECT_* initiativeId outside its initiative narrowing is null; an ISSUE_UPDATED before {projectId, labelIds, cycleId} only for a key that could see the issue there).';
grant execute on function app_public.activity_events_payload(e app_public.activity_events) to svc_visitor;

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns json
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  -- json (text), not jsonb: events.recent joins its page as text (twice the pages per second).
  select case when p_with_actor then json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', app_public.activity_events_payload(e),
    'createdAt', e.created_at, 'actor', coalesce(
       case when a.id is not null then json_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
  else json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', app_public.activity_events_payload(e),
    'createdAt', e.created_at) end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape (json) from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)::jsonb
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
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_UPDATED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED',
    'INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'CYCLE_CREATED', 'CYCLE_UPDATED', 'GOAL_UPDATED',
    'CYCLE_DELETED', 'ISSUE_RESTORED', 'STATUS_CREATED', 'STATUS_UPDATED', 'STATUS_DELETED',
    'WEBHOOK_CREATED', 'WEBHOOK_UPDATED', 'WEBHOOK_DELETED', 'WEBHOOK_TESTED', 'CANVAS_CREATED', 'CANVAS_UPDATED', 'CANVAS_DELETED',
    'WORKSPACE_UPDATED', 'LABEL_CREATED', 'LABEL_UPDATED', 'LABEL_DELETED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration, initiatives, cycles, statuses, webhooks, canvases); kept equal to src/events/kinds.ts by a test.';
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
    -- A second change in the transaction keeps the first's before (the issue's scope before the transaction).
    set payload = e.payload || case when e.payload ? 'before' then coalesce(p_extra, '{}') - 'before' else coalesce(p_extra, '{}') end
                  || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included (its before stays the first one''s).';
--! EndIncluded events/record.sql
-- An agent's dispatch deliveries waited 20-40 s behind its workspace's webhook deliveries to hosts that never
-- answer (each holding a slot of the workspace's share for the deadline): they are queued at priority -1.
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_webhook_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  -- A webhook receives every event of the workspace (or every event of its kinds).
  perform app_hidden.require_unnarrowed_admin('Webhooks deliver the whole workspace''s events');
end
$$;
comment on function app_hidden.require_webhook_admin() is 'Every in-app webhook procedure and webhooks.* tool starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), and a key without narrowing (403 narrowing).';
grant execute on function app_hidden.require_webhook_admin() to svc_visitor;

create or replace function app_private.lock_webhook_registrations(p_workspace_id uuid)
 returns void
 language sql
as $$
  -- One registration change at a time per workspace: each records a WEBHOOK_* event that is delivered to the
  -- workspace's other webhooks, so two deletes at once each waited for the other's webhook (deadlock, then 409).
  select pg_advisory_xact_lock(hashtextextended('svc.webhooks:' || p_workspace_id::text, 0))
$$;
comment on function app_private.lock_webhook_registrations(p_workspace_id uuid) is 'Serialises the webhook registration changes of a workspace for the transaction (advisory lock, reentrant).';

create or replace function app_hidden.require_webhook_admin_for_change()
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.require_webhook_admin();
  perform app_private.lock_webhook_registrations(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.require_webhook_admin_for_change() is 'require_webhook_admin, then serialises the workspace''s webhook registration changes for the transaction (advisory lock).';
grant execute on function app_hidden.require_webhook_admin_for_change() to svc_visitor;

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (webhookId and active only).';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_delete(p_webhook_id uuid) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_DELETED.';
grant execute on function app_hidden.webhook_delete(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
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
  perform app_hidden.require_webhook_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';
grant execute on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_event_payload(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  -- Every key of the workspace reads WEBHOOK_* events, and only admins may read webhooks: no URL, host, event
  -- filter or secret here (webhooks.get shows them to an admin).
  select jsonb_build_object('webhookId', w.id, 'active', w.active)
$$;
comment on function app_hidden.webhook_event_payload(w app_public.webhooks) is 'Payload of the WEBHOOK_* events: webhookId and active only. Every key of the workspace reads these events; the URL, host, event filter and secret stay with admins (webhooks.get).';
grant execute on function app_hidden.webhook_event_payload(w app_public.webhooks) to svc_visitor;

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

drop function if exists app_hidden.webhook_rotate_secret(uuid);
create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id), p_keep_previous_hours);
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once; the old one signs beside it for p_keep_previous_hours. Records WEBHOOK_UPDATED (changes secret, previousSecretValidUntil; never a secret).';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) to svc_visitor;

create or replace function app_hidden.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_test(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_test(p_webhook_id uuid) is 'In-app: queue a WEBHOOK_TESTED delivery to one webhook of the calling workspace now (OWNER/ADMIN); 409 webhook_inactive for an inactive one.';
grant execute on function app_hidden.webhook_test(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';
grant execute on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) to svc_visitor;

create or replace function app_hidden.webhooks_list()
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
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

create or replace function app_private.outbound_flags(p_workspace_id uuid)
 returns text[]
 language sql
 immutable
 set search_path to 'pg_catalog'
as $$
  select array['svc_outbound:' || p_workspace_id]
$$;
comment on function app_private.outbound_flags(p_workspace_id uuid) is 'The Graphile Worker flags of a workspace''s outbound job (a webhook or agent delivery, a link title). A worker runs at most half its slots of one workspace''s outbound jobs: while it does, it fetches none flagged so (forbiddenFlags, src/outbound/tenant-share.ts), however many of the workspace''s targets hang.';

create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone default NULL::timestamp with time zone)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries d where d.id = p_delivery_id;
  -- A delivery gone with its webhook (a deferred job putting itself back) has nothing left to send; its null
  -- workspace would make a null flag, which add_job refuses (22023), failing the job ten times over.
  if v_delivery.id is not null and to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      flags := app_private.outbound_flags(v_delivery.workspace_id),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace',
      -- An agent's dispatch (its assignment, a chat message) goes before the workspace's webhook deliveries: behind
      -- a dozen webhooks to hosts that never answer, each holding a slot of its share for the whole deadline, an
      -- agent waited 20 to 40 s for its work.
      priority := case when v_delivery.agent_id is not null then -1 else 0 end);
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone) is 'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>, flagged as its workspace''s outbound work (outbound_flags); an agent''s dispatch delivery at priority -1 (before webhook deliveries); nothing for a delivery that no longer exists. Runs in the caller''s transaction.';

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
  -- At most 50 per workspace (every event becomes a delivery to each of them), counted under the lock that
  -- serialises registration changes (require_webhook_admin_for_change takes it too; it is reentrant).
  perform app_private.lock_webhook_registrations(p_workspace_id);
  if (select count(*) from app_public.webhooks w where w.workspace_id = p_workspace_id) >= 50 then
    raise exception 'A workspace has at most 50 webhooks; delete one first' using errcode = 'SV409', detail = 'webhook_limit';
  end if;
  insert into app_public.webhooks (workspace_id, url, events, description)
  values (p_workspace_id, p_url, v_events, p_description)
  returning * into v_webhook;
  insert into app_private.webhook_secrets (webhook_id, workspace_id, secret) values (v_webhook.id, p_workspace_id, v_secret);
  -- The workspace's other webhooks receive it; this one hears nothing about itself (the outbox trigger).
  perform app_private.record_event(p_workspace_id, 'WEBHOOK_CREATED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return app_hidden.webhook_json(v_webhook) || jsonb_build_object('secret', v_secret);
end
$$;
comment on function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[], p_description text) is 'Registers a webhook (at most 50 per workspace: 409 webhook_limit) and records WEBHOOK_CREATED; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_webhook app_public.webhooks;
begin
  perform app_private.lock_webhook_registrations((select w.workspace_id from app_public.webhooks w where w.id = p_webhook_id));
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_DELETED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(p_webhook_id uuid) is 'Deletes a webhook with its secret, deliveries and attempts (queued jobs find nothing and stop) and records WEBHOOK_DELETED.';

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
  v_previous text;
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

  -- The previous secret, while a rotation's grace lasts, signs beside the current one.
  if v_delivery.webhook_id is not null then
    select w.url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end, w.active
      into v_url, v_secret, v_previous, v_active
    from app_public.webhooks w join app_private.webhook_secrets s on s.webhook_id = w.id
    where w.id = v_delivery.webhook_id;
  else
    select a.webhook_url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end,
           a.webhook_url is not null and a.archived_at is null
      into v_url, v_secret, v_previous, v_active
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
    'deliveryId', v_delivery.id, 'workspaceId', v_delivery.workspace_id, 'eventId', v_delivery.event_id, 'channel', v_delivery.channel,
    'attempt', v_delivery.total_attempts + 1, 'url', v_url, 'secret', v_secret, 'previousSecret', v_previous,
    'kind', (select e.kind from app_public.activity_events e where e.id = v_delivery.event_id),
    'body', (select app_hidden.event_json(e, false)::text from app_public.activity_events e where e.id = v_delivery.event_id));
end
$$;
comment on function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer) is 'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body) and whose it is (workspaceId: the worker spreads slow targets'' retries per workspace). NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_hook app_public.webhooks;
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
    where id = v_delivery.webhook_id and active
    returning * into v_hook;
    -- A state change, as an admin switching it off is: WEBHOOK_UPDATED (the system acting, no actor).
    if v_hook.id is not null then
      perform app_private.record_event(v_hook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_hook.id,
        app_hidden.webhook_event_payload(v_hook) || jsonb_build_object('changes', jsonb_build_array('active'),
                                                                       'deactivatedReason', v_hook.deactivated_reason));
    end if;
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

drop function if exists app_private.webhook_rotate_secret(uuid);
create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  -- The old secret keeps signing beside the new one (webhook-signature carries both) until the receiver has the new
  -- one: a rotation no longer breaks a live integration. 0 ends it at once (a leaked secret).
  update app_private.webhook_secrets
  set previous_secret = case when v_until is not null then secret end, previous_secret_expires_at = v_until,
      secret = v_secret, rotated_at = now()
  where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  perform app_private.record_event(w.workspace_id, 'WEBHOOK_UPDATED', 'webhook', w.id, app_hidden.webhook_event_payload(w)
    || jsonb_build_object('changes', jsonb_build_array('secret'), 'previousSecretValidUntil', v_until))
  from app_public.webhooks w where w.id = p_webhook_id;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'Replaces a webhook''s signing secret and returns the new one (shown once); the old one also signs deliveries for p_keep_previous_hours (0: stops at once; previousSecretValidUntil says until when). Records WEBHOOK_UPDATED (changes secret; never a secret).';

drop function if exists app_private.check_keep_previous_hours(integer);
create or replace function app_private.previous_secret_until(p_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_hours is null or p_hours < 0 or p_hours > 168 then
    perform app_hidden.raise_invalid('keepPreviousHours', 'keepPreviousHours must be from 0 (the old secret stops at once) to 168 (a week)');
  end if;
  return case when p_hours > 0 then now() + make_interval(hours => p_hours) end;
end
$$;
comment on function app_private.previous_secret_until(p_hours integer) is 'A rotation''s grace for the old secret (webhooks and agent dispatch): until when it still signs, null for 0 hours (it stops at once); 0 to 168, else 400 on keepPreviousHours.';

create or replace function app_private.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_webhook app_public.webhooks;
  v_event uuid;
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_webhook from app_public.webhooks where id = p_webhook_id;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  if not v_webhook.active then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  -- A stored event (the audit trail says who tested which webhook; deliveries need one), which the outbox
  -- trigger fans out to no webhook: only this one gets it, whatever its event filter.
  v_event := app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_TESTED', 'webhook', v_webhook.id,
    app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('test', true));
  insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
  values (v_webhook.workspace_id, v_event, v_webhook.id, 'webhook:' || v_webhook.id)
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_test(p_webhook_id uuid) is 'Records WEBHOOK_TESTED about a webhook and queues its delivery to that webhook only (signed and retried like any delivery); 409 webhook_inactive.';

create or replace function app_private.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := app_private.check_webhook_input(p_url, p_events);
  v_old app_public.webhooks;
  v_webhook app_public.webhooks;
  v_changes text[] := '{}';
begin
  select * into v_old from app_public.webhooks where id = p_webhook_id for update;
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
  if v_webhook.url is distinct from v_old.url then v_changes := array_append(v_changes, 'url'); end if;
  if v_webhook.events is distinct from v_old.events then v_changes := array_append(v_changes, 'events'); end if;
  if v_webhook.active is distinct from v_old.active then v_changes := array_append(v_changes, 'active'); end if;
  if v_webhook.description is distinct from v_old.description then v_changes := array_append(v_changes, 'description'); end if;
  -- A change that changes nothing records nothing. The event names what changed, never the values.
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_webhook.id,
      app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return app_hidden.webhook_json(v_webhook);
end
$$;
comment on function app_private.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook are canceled when their turn comes. Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';

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

drop function if exists app_public.webhooks_rotate_secret(uuid);
create or replace function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer default 24)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_rotate_secret(webhook_id, coalesce(keep_previous_hours, 24)) $$;
comment on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) is 'OWNER/ADMIN: replaces the signing secret and returns the new one (shown once); the old one also signs deliveries for keepPreviousHours (default 24, 0 to 168; 0 stops it at once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is 'OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
-- runs.kick re-sent the dispatch of a run whose issue was already Done: a closed issue's run is not kicked.
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
  v_quiet interval;
  v_event uuid;
begin
  -- One kick of a run at a time: two at once each saw no recent kick and both fired (two deliveries to the agent).
  -- The check below reads with a snapshot taken after the lock, so it sees the other's kick once committed.
  perform pg_advisory_xact_lock(hashtextextended('svc.run-kick:' || v_run.id::text, 0));
  v_run := app_hidden.find_run(v_run.id::text);
  v_quiet := now() - v_run.last_event_at;
  -- A kick counts as the run's latest nudge: the next one is due 5 minutes after it (each kick re-sends the
  -- agent's dispatch delivery, so repeating it at once only floods the agent).
  -- Nor is a run of a closed issue kicked (an agent that moved its issue to Done without runs.complete was sent
  -- the Done issue's dispatch again).
  if v_run.status <> 'ACTIVE' or v_quiet < interval '5 minutes'
     or (select s.category from app_public.issues i join app_public.statuses s on s.id = i.status_id
         where i.id = v_run.issue_id) in ('DONE', 'CANCELED')
     or exists (
       select 1 from app_public.activity_events e
       where e.workspace_id = v_run.workspace_id and e.subject_type = 'issue' and e.subject_id = v_run.issue_id
         and e.kind = 'AGENT_RUN_KICKED' and e.payload->>'runId' = v_run.id::text
         and e.created_at > now() - interval '5 minutes') then
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
comment on function app_tools.runs_kick(args jsonb) is 'runs.kick: Nudge an ACTIVE run of an open issue that has been quiet for 5 minutes or more and not kicked in the last 5: re-fires the agent''s dispatch delivery (agent:dispatch:<agentId>) and records AGENT_RUN_KICKED; the run itself is unchanged. Otherwise {ok: true, kicked: false}.';
--! EndIncluded runs/tools/kick.sql
-- A deleted comment's files stayed on disk for good, outside the quota (upload-then-delete looped past it): they
-- are deleted with the comment (events by the attachments' trigger), their blobs by a job.
--! Included comments/triggers.sql
-- Triggers of the comments tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_comments__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'COMMENT_CREATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'kind', new.kind, 'authorUserId', new.author_user_id,
      'authoringAgentId', new.authoring_agent_id, 'confidence', new.confidence));
  elsif new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'COMMENT_UPDATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'deleted', true));
  elsif (new.body, new.confidence) is distinct from (old.body, old.confidence) then
    perform app_private.record_event(new.workspace_id, 'COMMENT_UPDATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'kind', new.kind, 'edited', true));
  end if;
  return null;
end
$$;
comment on function app_private.tg_comments__events() is 'COMMENT_CREATED; COMMENT_UPDATED on edit and on soft delete (payload.deleted).';

drop trigger if exists _100_updated_at on app_public.comments;
create trigger _100_updated_at before update on app_public.comments for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.comments;
create trigger _800_events after insert or update on app_public.comments for each row execute function app_private.tg_comments__events();

create or replace function app_private.tg_comments__drop_attachments()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_key text;
begin
  -- A deleted comment is not restored, and no tool reaches its files: they stayed on disk for good, outside the quota
  -- (a workspace could loop upload-then-delete past it). They go with the comment (each removal is its issue's
  -- ISSUE_UPDATED, by the attachments' trigger); the blobs are deleted by a job once this commits.
  for v_key in
    delete from app_public.attachments a
    where a.workspace_id = new.workspace_id and a.target_type = 'comment' and a.target_id = new.id
    returning a.storage_key
  loop
    if v_key is not null then
      perform app_private.attachments_enqueue('svc_attachment_blob_delete', json_build_object('storageKey', v_key));
    end if;
  end loop;
  return null;
end
$$;
comment on function app_private.tg_comments__drop_attachments() is 'A comment soft-deleted: its attachments are deleted (ISSUE_UPDATED attachmentChange removed, by trigger) and their blobs queued for deletion (svc_attachment_blob_delete).';

drop trigger if exists _810_drop_attachments on app_public.comments;
create trigger _810_drop_attachments after update of deleted_at on app_public.comments
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function app_private.tg_comments__drop_attachments();
--! EndIncluded comments/triggers.sql
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
    where c.id = app_hidden.parse_uuid(p_id, 'targetId') and c.deleted_at is null
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

create or replace function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
as $$
begin
  select t.target_id, t.issue_id into target_id, issue_id from app_hidden.attachment_target(p_type, p_id) t;
  -- cycles.delete refuses a cycle with attachments while it holds the cycle's row lock. This key-share lock
  -- serialises the two: the delete waits for this attachment (and then sees it: 409), or this waits for the
  -- delete (and then finds the cycle gone: 404). No attachment is left on a deleted cycle.
  if p_type = 'cycle' then
    perform 1 from app_public.cycles c where c.id = target_id for key share;
    if not found then
      raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
    end if;
  end if;
end
$$;
comment on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'attachment_target for the tools that attach (attachLink, finalize): a cycle target is also locked FOR KEY SHARE, so cycles.delete and the attaching serialise.';
grant execute on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_visible(p_id text)
 returns app_public.attachments
 language plpgsql
 stable
as $$
declare v_row app_public.attachments;
begin
  select * into v_row from app_public.attachments a where a.id = app_hidden.parse_uuid(p_id, 'id');
  -- Deleted issues are 404 everywhere: so are the attachments on them, on their comments, and on deleted comments.
  if v_row.id is null
     or (v_row.target_type = 'issue'
         and not exists (select 1 from app_public.issues i where i.id = v_row.target_id and i.deleted_at is null))
     or (v_row.target_type = 'comment'
         and not exists (select 1 from app_public.comments c join app_public.issues i on i.id = c.issue_id
                         where c.id = v_row.target_id and c.deleted_at is null and i.deleted_at is null)) then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.attachment_visible(p_id text) is 'An attachment the caller can see (RLS follows the target it is attached to) whose issue or comment target is not soft-deleted (nor the comment''s issue), else 404: the finder of attachments.get, getInline, getDownloadUrl and delete.';
grant execute on function app_hidden.attachment_visible(p_id text) to svc_visitor;

create or replace function app_hidden.attachment_bytes_used(p_workspace_id uuid)
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- A deleted comment's files are deleted with it (tg_comments__drop_attachments); a deleted issue's count (issues.restore
  -- brings them back).
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
-- svc admin's webhook commands changed webhooks without an event: WEBHOOK_* are recorded by app_private.webhook_*,
-- on every path.
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_webhook_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  -- A webhook receives every event of the workspace (or every event of its kinds).
  perform app_hidden.require_unnarrowed_admin('Webhooks deliver the whole workspace''s events');
end
$$;
comment on function app_hidden.require_webhook_admin() is 'Every in-app webhook procedure and webhooks.* tool starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), and a key without narrowing (403 narrowing).';
grant execute on function app_hidden.require_webhook_admin() to svc_visitor;

create or replace function app_private.lock_webhook_registrations(p_workspace_id uuid)
 returns void
 language sql
as $$
  -- One registration change at a time per workspace: each records a WEBHOOK_* event that is delivered to the
  -- workspace's other webhooks, so two deletes at once each waited for the other's webhook (deadlock, then 409).
  select pg_advisory_xact_lock(hashtextextended('svc.webhooks:' || p_workspace_id::text, 0))
$$;
comment on function app_private.lock_webhook_registrations(p_workspace_id uuid) is 'Serialises the webhook registration changes of a workspace for the transaction (advisory lock, reentrant).';

create or replace function app_hidden.require_webhook_admin_for_change()
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.require_webhook_admin();
  perform app_private.lock_webhook_registrations(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.require_webhook_admin_for_change() is 'require_webhook_admin, then serialises the workspace''s webhook registration changes for the transaction (advisory lock).';
grant execute on function app_hidden.require_webhook_admin_for_change() to svc_visitor;

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (webhookId and active only).';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_delete(p_webhook_id uuid) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_DELETED.';
grant execute on function app_hidden.webhook_delete(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
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
  perform app_hidden.require_webhook_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';
grant execute on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_event_payload(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  -- Every key of the workspace reads WEBHOOK_* events, and only admins may read webhooks: no URL, host, event
  -- filter or secret here (webhooks.get shows them to an admin).
  select jsonb_build_object('webhookId', w.id, 'active', w.active)
$$;
comment on function app_hidden.webhook_event_payload(w app_public.webhooks) is 'Payload of the WEBHOOK_* events: webhookId and active only. Every key of the workspace reads these events; the URL, host, event filter and secret stay with admins (webhooks.get).';
grant execute on function app_hidden.webhook_event_payload(w app_public.webhooks) to svc_visitor;

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

drop function if exists app_hidden.webhook_rotate_secret(uuid);
create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id), p_keep_previous_hours);
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once; the old one signs beside it for p_keep_previous_hours. Records WEBHOOK_UPDATED (changes secret, previousSecretValidUntil; never a secret).';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) to svc_visitor;

create or replace function app_hidden.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_test(app_hidden.webhook_in_workspace(p_webhook_id));
end
$$;
comment on function app_hidden.webhook_test(p_webhook_id uuid) is 'In-app: queue a WEBHOOK_TESTED delivery to one webhook of the calling workspace now (OWNER/ADMIN); 409 webhook_inactive for an inactive one.';
grant execute on function app_hidden.webhook_test(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';
grant execute on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) to svc_visitor;

create or replace function app_hidden.webhooks_list()
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
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

create or replace function app_private.outbound_flags(p_workspace_id uuid)
 returns text[]
 language sql
 immutable
 set search_path to 'pg_catalog'
as $$
  select array['svc_outbound:' || p_workspace_id]
$$;
comment on function app_private.outbound_flags(p_workspace_id uuid) is 'The Graphile Worker flags of a workspace''s outbound job (a webhook or agent delivery, a link title). A worker runs at most half its slots of one workspace''s outbound jobs: while it does, it fetches none flagged so (forbiddenFlags, src/outbound/tenant-share.ts), however many of the workspace''s targets hang.';

create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone default NULL::timestamp with time zone)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries d where d.id = p_delivery_id;
  -- A delivery gone with its webhook (a deferred job putting itself back) has nothing left to send; its null
  -- workspace would make a null flag, which add_job refuses (22023), failing the job ten times over.
  if v_delivery.id is not null and to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      flags := app_private.outbound_flags(v_delivery.workspace_id),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace',
      -- An agent's dispatch (its assignment, a chat message) goes before the workspace's webhook deliveries: behind
      -- a dozen webhooks to hosts that never answer, each holding a slot of its share for the whole deadline, an
      -- agent waited 20 to 40 s for its work.
      priority := case when v_delivery.agent_id is not null then -1 else 0 end);
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone) is 'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>, flagged as its workspace''s outbound work (outbound_flags); an agent''s dispatch delivery at priority -1 (before webhook deliveries); nothing for a delivery that no longer exists. Runs in the caller''s transaction.';

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
  -- At most 50 per workspace (every event becomes a delivery to each of them), counted under the lock that
  -- serialises registration changes (require_webhook_admin_for_change takes it too; it is reentrant).
  perform app_private.lock_webhook_registrations(p_workspace_id);
  if (select count(*) from app_public.webhooks w where w.workspace_id = p_workspace_id) >= 50 then
    raise exception 'A workspace has at most 50 webhooks; delete one first' using errcode = 'SV409', detail = 'webhook_limit';
  end if;
  insert into app_public.webhooks (workspace_id, url, events, description)
  values (p_workspace_id, p_url, v_events, p_description)
  returning * into v_webhook;
  insert into app_private.webhook_secrets (webhook_id, workspace_id, secret) values (v_webhook.id, p_workspace_id, v_secret);
  -- The workspace's other webhooks receive it; this one hears nothing about itself (the outbox trigger).
  perform app_private.record_event(p_workspace_id, 'WEBHOOK_CREATED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return app_hidden.webhook_json(v_webhook) || jsonb_build_object('secret', v_secret);
end
$$;
comment on function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[], p_description text) is 'Registers a webhook (at most 50 per workspace: 409 webhook_limit) and records WEBHOOK_CREATED; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_webhook app_public.webhooks;
begin
  perform app_private.lock_webhook_registrations((select w.workspace_id from app_public.webhooks w where w.id = p_webhook_id));
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_DELETED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(p_webhook_id uuid) is 'Deletes a webhook with its secret, deliveries and attempts (queued jobs find nothing and stop) and records WEBHOOK_DELETED.';

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
  v_previous text;
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

  -- The previous secret, while a rotation's grace lasts, signs beside the current one.
  if v_delivery.webhook_id is not null then
    select w.url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end, w.active
      into v_url, v_secret, v_previous, v_active
    from app_public.webhooks w join app_private.webhook_secrets s on s.webhook_id = w.id
    where w.id = v_delivery.webhook_id;
  else
    select a.webhook_url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end,
           a.webhook_url is not null and a.archived_at is null
      into v_url, v_secret, v_previous, v_active
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
    'deliveryId', v_delivery.id, 'workspaceId', v_delivery.workspace_id, 'eventId', v_delivery.event_id, 'channel', v_delivery.channel,
    'attempt', v_delivery.total_attempts + 1, 'url', v_url, 'secret', v_secret, 'previousSecret', v_previous,
    'kind', (select e.kind from app_public.activity_events e where e.id = v_delivery.event_id),
    'body', (select app_hidden.event_json(e, false)::text from app_public.activity_events e where e.id = v_delivery.event_id));
end
$$;
comment on function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer) is 'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body) and whose it is (workspaceId: the worker spreads slow targets'' retries per workspace). NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_hook app_public.webhooks;
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
    where id = v_delivery.webhook_id and active
    returning * into v_hook;
    -- A state change, as an admin switching it off is: WEBHOOK_UPDATED (the system acting, no actor).
    if v_hook.id is not null then
      perform app_private.record_event(v_hook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_hook.id,
        app_hidden.webhook_event_payload(v_hook) || jsonb_build_object('changes', jsonb_build_array('active'),
                                                                       'deactivatedReason', v_hook.deactivated_reason));
    end if;
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

drop function if exists app_private.webhook_rotate_secret(uuid);
create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  -- The old secret keeps signing beside the new one (webhook-signature carries both) until the receiver has the new
  -- one: a rotation no longer breaks a live integration. 0 ends it at once (a leaked secret).
  update app_private.webhook_secrets
  set previous_secret = case when v_until is not null then secret end, previous_secret_expires_at = v_until,
      secret = v_secret, rotated_at = now()
  where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  perform app_private.record_event(w.workspace_id, 'WEBHOOK_UPDATED', 'webhook', w.id, app_hidden.webhook_event_payload(w)
    || jsonb_build_object('changes', jsonb_build_array('secret'), 'previousSecretValidUntil', v_until))
  from app_public.webhooks w where w.id = p_webhook_id;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'Replaces a webhook''s signing secret and returns the new one (shown once); the old one also signs deliveries for p_keep_previous_hours (0: stops at once; previousSecretValidUntil says until when). Records WEBHOOK_UPDATED (changes secret; never a secret).';

drop function if exists app_private.check_keep_previous_hours(integer);
create or replace function app_private.previous_secret_until(p_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_hours is null or p_hours < 0 or p_hours > 168 then
    perform app_hidden.raise_invalid('keepPreviousHours', 'keepPreviousHours must be from 0 (the old secret stops at once) to 168 (a week)');
  end if;
  return case when p_hours > 0 then now() + make_interval(hours => p_hours) end;
end
$$;
comment on function app_private.previous_secret_until(p_hours integer) is 'A rotation''s grace for the old secret (webhooks and agent dispatch): until when it still signs, null for 0 hours (it stops at once); 0 to 168, else 400 on keepPreviousHours.';

create or replace function app_private.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_webhook app_public.webhooks;
  v_event uuid;
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_webhook from app_public.webhooks where id = p_webhook_id;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook');
  end if;
  if not v_webhook.active then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  -- A stored event (the audit trail says who tested which webhook; deliveries need one), which the outbox
  -- trigger fans out to no webhook: only this one gets it, whatever its event filter.
  v_event := app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_TESTED', 'webhook', v_webhook.id,
    app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('test', true));
  insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
  values (v_webhook.workspace_id, v_event, v_webhook.id, 'webhook:' || v_webhook.id)
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_test(p_webhook_id uuid) is 'Records WEBHOOK_TESTED about a webhook and queues its delivery to that webhook only (signed and retried like any delivery); 409 webhook_inactive.';

create or replace function app_private.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := app_private.check_webhook_input(p_url, p_events);
  v_old app_public.webhooks;
  v_webhook app_public.webhooks;
  v_changes text[] := '{}';
begin
  select * into v_old from app_public.webhooks where id = p_webhook_id for update;
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
  if v_webhook.url is distinct from v_old.url then v_changes := array_append(v_changes, 'url'); end if;
  if v_webhook.events is distinct from v_old.events then v_changes := array_append(v_changes, 'events'); end if;
  if v_webhook.active is distinct from v_old.active then v_changes := array_append(v_changes, 'active'); end if;
  if v_webhook.description is distinct from v_old.description then v_changes := array_append(v_changes, 'description'); end if;
  -- A change that changes nothing records nothing. The event names what changed, never the values.
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_webhook.id,
      app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return app_hidden.webhook_json(v_webhook);
end
$$;
comment on function app_private.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook are canceled when their turn comes. Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';

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

drop function if exists app_public.webhooks_rotate_secret(uuid);
create or replace function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer default 24)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_rotate_secret(webhook_id, coalesce(keep_previous_hours, 24)) $$;
comment on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) is 'OWNER/ADMIN: replaces the signing secret and returns the new one (shown once); the old one also signs deliveries for keepPreviousHours (default 24, 0 to 168; 0 stops it at once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is 'OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
