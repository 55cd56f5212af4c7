--! Previous: sha1:26e04818dac05af234805d34fbdb31f5dbacb577
--! Hash: sha1:c326cfc6eb7e3b058388987a6bbec8112e190754
--! Message: A second outside probe: an admin's agent keys read only their agent's chats; pins, request sources, own time entries and event payloads do not name what a narrowed key may not see; webhook deliveries need an unnarrowed admin key

--! split: 1-current.sql
-- A second outside probe (GraphQL): a workspace admin's agent keys read only their agent's chats; pins, an action
-- request's source, own time entries and event payloads do not name what a narrowed key may not see; webhook
-- deliveries need an unnarrowed admin key.
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
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND (created_by_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin))) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.chat_thread_issue_visible(issue_id))));
comment on policy select_as_participant on app_public.chat_threads is 'The addressee agent''s keys, the person who opened the thread (keys without an agent) and workspace admins (their own keys, not their agents''); a thread tied to an issue only for keys that may see that issue (narrowing).';

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

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns json
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  -- json (text), not jsonb: events.recent joins its page as text (twice the pages per second).
  select case when p_with_actor then json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload) else e.payload end,
    'createdAt', e.created_at, 'actor', coalesce(
       case when a.id is not null then json_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
  else json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload) else e.payload end,
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
-- GraphQL reads the payload as the tools show it, never the raw column (an initiative-narrowed key read a hidden
-- initiative's id in PROJECT_* payloads there).
comment on column app_public.activity_events.payload is E'@behavior -*\nThe event''s details (spec 6.4). GraphQL: ActivityEvent.payload (app_public.activity_events_payload).';

create or replace function app_public.activity_events_payload(e app_public.activity_events)
 returns jsonb
 language sql
 stable
as $$ select case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload) else e.payload end $$;
comment on function app_public.activity_events_payload(e app_public.activity_events) is 'The event''s details (spec 6.4) as the key may read them (a PROJECT_* initiativeId outside its initiative narrowing is null).';
grant execute on function app_public.activity_events_payload(e app_public.activity_events) to svc_visitor;

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
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((subject_type <> 'chat-thread'::text) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.event_subject_visible(subject_type, subject_id))) OR ((subject_type = 'chat-thread'::text) AND (((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)) OR ((payload ->> 'agentId'::text) = (( SELECT app_hidden.current_agent_id() AS current_agent_id))::text) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ((payload ->> 'openedByUserId'::text) = (( SELECT app_hidden.current_user_id() AS current_user_id))::text))) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.chat_event_visible(subject_id, ((payload -> 'context'::text) ->> 'issueId'::text)))))));
comment on policy select_in_workspace on app_public.activity_events is 'Events of the caller''s workspace. Chat events only for the thread''s participants (payload agentId = the key''s agent, or openedByUserId = the user of a key without agent) and workspace admins'' own keys (not their agents''), as the chat_threads policy says, decided from the payload so no row costs a function call; a narrowed key also needs to see the thread''s and the context''s issue (chat_event_visible). A narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, and goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue).';
--! EndIncluded events/policies.sql
--! Included webhooks/policies.sql
-- Row-level security policies of the webhooks tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.webhook_deliveries;
create policy owner_all on app_public.webhook_deliveries for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhook_deliveries is 'The schema owner (event trigger, worker, management functions) works on every row.';

drop policy if exists select_as_workspace_admin on app_public.webhook_deliveries;
create policy select_as_workspace_admin on app_public.webhook_deliveries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
comment on policy select_as_workspace_admin on app_public.webhook_deliveries is 'Workspace OWNER/ADMIN with a key without narrowing see delivery status (webhook health, dead letters), as for the webhooks themselves: a delivery names an event about any issue.';

drop policy if exists owner_all on app_public.webhook_delivery_attempts;
create policy owner_all on app_public.webhook_delivery_attempts for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhook_delivery_attempts is 'The worker records attempts.';

drop policy if exists select_as_workspace_admin on app_public.webhook_delivery_attempts;
create policy select_as_workspace_admin on app_public.webhook_delivery_attempts for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy select_as_workspace_admin on app_public.webhook_delivery_attempts is 'Workspace OWNER/ADMIN see every attempt.';

drop policy if exists owner_all on app_private.webhook_secrets;
create policy owner_all on app_private.webhook_secrets for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.webhook_secrets is 'Only the schema owner (management functions, worker signing deliveries) reads secrets.';

drop policy if exists owner_all on app_public.webhooks;
create policy owner_all on app_public.webhooks for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhooks is 'The schema owner (management functions, worker) works on every row.';

drop policy if exists select_as_workspace_admin on app_public.webhooks;
create policy select_as_workspace_admin on app_public.webhooks for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy select_as_workspace_admin on app_public.webhooks is 'Workspace OWNER/ADMIN see the workspace''s webhooks (never their secrets, which live in app_private).';
--! EndIncluded webhooks/policies.sql
--! Included pins/policies.sql
-- Row-level security policies of the pins tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists manage_own_pins on app_public.pins;
create policy manage_own_pins on app_public.pins for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((target_type <> ALL (ARRAY['ISSUE'::text, 'PROJECT'::text, 'INITIATIVE'::text])) OR ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR ((target_type = 'ISSUE'::text) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = pins.target_id)))) OR ((target_type = 'PROJECT'::text) AND (EXISTS ( SELECT 1 FROM app_public.projects p WHERE (p.id = pins.target_id)))) OR ((target_type = 'INITIATIVE'::text) AND (EXISTS ( SELECT 1 FROM app_public.initiatives n WHERE (n.id = pins.target_id)))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy manage_own_pins on app_public.pins is 'Pins are personal: a user sees and changes only their own, and a narrowed key only those on issues, projects and initiatives it can see.';

drop policy if exists owner_all on app_public.pins;
create policy owner_all on app_public.pins for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.pins is 'The schema owner (operator) works on every row.';
--! EndIncluded pins/policies.sql
--! Included time/time.sql
-- time: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_time_tracking()
 returns void
 language plpgsql
 stable
as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';
grant execute on function app_hidden.require_time_tracking() to svc_visitor;

create or replace function app_hidden.stop_running_timer(p_user uuid)
 returns app_public.time_entries
 language sql
as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = greatest(0, round(extract(epoch from now() - started_at) / 60))::int
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(p_user uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';
grant execute on function app_hidden.stop_running_timer(p_user uuid) to svc_visitor;

create or replace function app_hidden.time_entries_filtered(args jsonb)
 returns setof app_public.time_entries
 language plpgsql
 stable
as $$
declare
  v_issue_id uuid;
  v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
begin
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return query
    select e.* from app_public.time_entries e
    where e.workspace_id = app_hidden.current_workspace_id()
      -- Lists follow issue narrowing even for the caller's own entries (select_own_time is for timers).
      and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
      -- Deleted issues are 404 everywhere, so their time is not listed or summed either.
      and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
      and (v_id is null or e.id = v_id)
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(args jsonb) is 'Time entries on issues the key can see and that are not deleted (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by id (time.get), issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';
grant execute on function app_hidden.time_entries_filtered(args jsonb) to svc_visitor;

create or replace function app_hidden.time_entry_json(e app_public.time_entries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', app_hidden.visible_issue_id(e.issue_id),
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(e app_public.time_entries) is 'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';
grant execute on function app_hidden.time_entry_json(e app_public.time_entries) to svc_visitor;

create or replace function app_hidden.own_time_entry_for_write(p_id text)
 returns app_public.time_entries
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  -- Only the caller's own entries (select_own_time), and not those of deleted issues (404 there as everywhere).
  select e.* into v_entry from app_public.time_entries e
  where e.id = app_hidden.parse_uuid(p_id, 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and e.user_id = app_hidden.current_user_id()
    -- Within the key's narrowing, as time.list (the timer tools alone reach a timer outside it).
    and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
    and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
  for update;
  return app_hidden.found(v_entry, 'Time entry');
end
$$;
comment on function app_hidden.own_time_entry_for_write(p_id text) is 'time.update / time.delete: the caller''s own entry, locked (another person''s entry, one on a deleted issue or on an issue outside the key''s narrowing is 404 Time entry not found).';
grant execute on function app_hidden.own_time_entry_for_write(p_id text) to svc_visitor;
--! EndIncluded time/time.sql
--! Included actionRequests/shapes.sql
-- actionRequests: JSON shapes and poll arithmetic (spec 2.13, 4.11).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.with_visible_duplicate(p_json jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_ref text := p_json->>'duplicateOfIssueId';
begin
  if v_ref is null or app_hidden.issues_unrestricted() then
    return p_json;
  end if;
  -- As the caller (RLS): the issue, named by id or key as the request was made, must be visible.
  if v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     and exists (select 1 from app_public.issues i where i.id = v_ref::uuid) then
    return p_json;
  elsif exists (select 1 from app_public.issues i where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(v_ref)) then
    return p_json;
  end if;
  return jsonb_set(p_json, '{duplicateOfIssueId}', 'null');
end
$$;
comment on function app_hidden.with_visible_duplicate(p_json jsonb) is 'An action request''s payload or dispatch result with duplicateOfIssueId (an id or key) null when the caller cannot see that issue (narrowing).';
grant execute on function app_hidden.with_visible_duplicate(p_json jsonb) to svc_visitor;

-- GraphQL reads payload and dispatchResult through with_visible_duplicate, never the raw columns (a narrowed key read
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
as $$ select app_hidden.with_visible_duplicate(r.payload) $$;
comment on function app_public.action_requests_payload(r app_public.action_requests) is 'The bound dispatch''s arguments (by kind); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_payload(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_dispatch_result(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_duplicate(r.dispatch_result) $$;
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
    'payload', app_hidden.with_visible_duplicate(r.payload),
    'assignedUserId', r.assigned_user_id, 'assignedAgentId', r.assigned_agent_id, 'issueId', r.issue_id,
    'commentId', r.comment_id, 'dueAt', r.due_at, 'sourceType', r.source_type, 'sourceId', app_public.action_requests_source_id(r),
    'status', r.status, 'options', coalesce(r.options, '[]'::jsonb), 'isPoll', r.options is not null,
    'votingClosedAt', r.voting_closed_at, 'winningOptionKey', r.winning_option_key,
    'requestedByUserId', r.requested_by_user_id, 'requestedByAgentId', r.requested_by_agent_id,
    'resolvedAt', r.resolved_at, 'resolvedByUserId', r.resolved_by_user_id, 'resolvedByAgentId', r.resolved_by_agent_id,
    'dispatchResult', app_hidden.with_visible_duplicate(r.dispatch_result), 'createdAt', r.created_at, 'updatedAt', r.updated_at)
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
      'title', new.title, 'isPoll', new.options is not null, 'sourceType', new.source_type,
      -- An issue named as the source may be one a reader of this event cannot see: the request itself shows it to those who can.
      'sourceId', case when new.source_type = 'issue' then null else new.source_id end,
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
