--! Previous: sha1:f04ae456cde74796af5b4c62773530171347e83e
--! Hash: sha1:e4c1dc4f2ab3fe5cad503b3673d701999eb06bb7
--! Message: svc admin delete-workspace: a tenant is removed with everything in it

--! split: 1-current.sql
-- Offboarding a tenant (an outside probe: no documented way, and a DBA's DELETE of the workspace row failed on its own
-- triggers): app_private.delete_workspace (svc admin delete-workspace) deletes the workspace and everything in it, its
-- files (a job each) and the users whose only workspace it was. The rows that go with a workspace write no events
-- (record_event skips a workspace being deleted, named by a BEFORE DELETE trigger); a deleted key is notified as a
-- revoked one is (its streams end, caches drop it).
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

create or replace function app_hidden.narrowed_issue_payload(p_payload jsonb)
 returns jsonb
 language sql
 stable
as $$
  -- For a narrowed key: before only when the key could see the issue there (an issue coming into its view named
  -- where it came from), and a projectId it cannot see as null (an issue created in a hidden project and moved
  -- into view: its ISSUE_CREATED named that project). Read under the key's RLS.
  select (case when p_payload ? 'before'
                    and not app_hidden.scope_passes_narrowing((p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds')
               then p_payload - 'before' else p_payload end)
         || case when p_payload->>'projectId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      and not exists (select 1 from app_public.projects p where p.id = (p_payload->>'projectId')::uuid)
                 then jsonb_build_object('projectId', null) else '{}' end
$$;
comment on function app_hidden.narrowed_issue_payload(p_payload jsonb) is 'An event payload as a narrowed key reads it: before only for a key that could see the issue there; a projectId of a project the key cannot see is null.';
grant execute on function app_hidden.narrowed_issue_payload(p_payload jsonb) to svc_visitor;

create or replace function app_public.activity_events_payload(e app_public.activity_events)
 returns jsonb
 language sql
 stable
as $$
  select case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload)
              -- An issue coming INTO a narrowed key's view from where it may not look: its before names that place
              -- (a hidden project's id). before is for a key that saw the issue there, to hear of it leaving.
              when not (e.payload ? 'before' or e.payload ? 'projectId') or app_hidden.key_unnarrowed() then e.payload
              else app_hidden.narrowed_issue_payload(e.payload) end
$$;
comment on function app_public.activity_events_payload(e app_public.activity_events) is 'The event''s details (spec 6.4) as the key may read them (a PROJECT_* initiativeId outside its initiative narrowing is null; for a narrowed key, narrowed_issue_payload: before only where it could see the issue, a hidden projectId null).';
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
    'WORKSPACE_UPDATED', 'LABEL_CREATED', 'LABEL_UPDATED', 'LABEL_DELETED', 'API_KEY_CREATED', 'API_KEY_REVOKED', 'CHAT_THREAD_OPENED',
    'USER_UPDATED', 'DISPATCH_RULE_CREATED', 'DISPATCH_RULE_UPDATED', 'DISPATCH_RULE_DELETED',
    'REPO_MAPPING_CREATED', 'REPO_MAPPING_UPDATED', 'REPO_MAPPING_DELETED', 'PLUGIN_CREATED', 'PLUGIN_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration, initiatives, cycles, statuses, webhooks, canvases, keys, chat threads opened, profiles, dispatch rules, repository mappings, plugins); kept equal to src/events/kinds.ts by a test.';
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

create or replace function app_private.workspace_seq_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
as $$ select 'app_private.workspace_seq_' || pg_catalog.replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.workspace_seq_sequence(p_workspace_id uuid) is 'The qualified name of the sequence that numbers a workspace''s events and chat messages (their seq; created with the workspace). No SET clause, so it is inlined.';

-- seq is numbered per workspace, not by one sequence for all: a tenant reads seq (GraphQL, the cursors of
-- events.recent and issues.history), and the gaps of a global counter told it how busy every other workspace was.
comment on column app_public.activity_events.seq is 'Order of the workspace''s events (their own sequence, app_private.workspace_seq_sequence), used for stable newest-first paging.';
-- stream_pos comes from one sequence for all workspaces (app_private.sequence_events): internal to SSE resume,
-- which clients do by event id.
comment on column app_public.activity_events.stream_pos is E'@behavior -*\nPosition in the event stream, handed out after commit by app_private.sequence_events (one sequencer at a time, so every snapshot sees a prefix). SSE resumes with stream_pos > the last delivered one; NULL until sequenced (moments after commit). Not in GraphQL: one sequence for all workspaces.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  -- Nothing is told of a workspace being deleted (tg_workspaces__deleting), by the rows that go with it.
  if pg_catalog.strpos(pg_catalog.current_setting('svc.deleting_workspaces', true), p_workspace_id::text) > 0 then
    return null;
  end if;
  insert into app_public.activity_events (workspace_id, seq, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, nextval(app_private.workspace_seq_sequence(p_workspace_id)::regclass),
          p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor; none (NULL) for a workspace being deleted. Security definer: the request role cannot forge events.';

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
--! Included workspace/triggers.sql
-- Triggers of the workspace tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_memberships__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_CREATED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'role', new.role));
  elsif tg_op = 'UPDATE' and new.role is distinct from old.role then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_ROLE_CHANGED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'from', old.role, 'to', new.role));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'MEMBERSHIP_REMOVED', 'membership', old.id,
      jsonb_build_object('userId', old.user_id, 'role', old.role));
  end if;
  return null;
end
$$;
comment on function app_private.tg_memberships__events() is 'MEMBERSHIP_CREATED / _ROLE_CHANGED / _REMOVED.';

create or replace function app_private.tg_workspaces__seed_statuses()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  insert into app_public.statuses (workspace_id, name, category, color, position, is_default) values
    (new.id, 'Backlog', 'BACKLOG', '#94a3b8', 0, false),
    (new.id, 'Todo', 'TODO', '#64748b', 1, true),
    (new.id, 'In Progress', 'IN_PROGRESS', '#f59e0b', 2, false),
    (new.id, 'In Review', 'IN_REVIEW', '#8b5cf6', 3, false),
    (new.id, 'Done', 'DONE', '#22c55e', 4, false),
    (new.id, 'Canceled', 'CANCELED', '#ef4444', 5, false);
  execute format('create sequence %s as integer', app_private.issue_number_sequence(new.id));
  execute format('create sequence %s', app_private.workspace_seq_sequence(new.id));
  return null;
end
$$;
comment on function app_private.tg_workspaces__seed_statuses() is 'AFTER INSERT on workspaces: the six default statuses and the workspace''s sequences (issue numbers; the seq of its events and chat messages).';

create or replace function app_private.tg_workspaces__deleting()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The rows deleted with the workspace (members, agents, keys, ...) fire their own triggers, whose events would go
  -- to the workspace being deleted: into a sequence dropped with it, under a foreign key to a row gone. record_event
  -- writes none for a workspace named here (transaction-local).
  perform set_config('svc.deleting_workspaces', coalesce(current_setting('svc.deleting_workspaces', true), '') || old.id::text || ',', true);
  return old;
end
$$;
comment on function app_private.tg_workspaces__deleting() is 'BEFORE DELETE on workspaces: names the workspace in svc.deleting_workspaces for the rest of the transaction, so the rows deleted with it write no events (app_private.record_event).';

drop trigger if exists _000_deleting on app_public.workspaces;
create trigger _000_deleting before delete on app_public.workspaces for each row execute function app_private.tg_workspaces__deleting();

create or replace function app_private.tg_workspaces__drop_number_sequence()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  execute format('drop sequence if exists %s', app_private.issue_number_sequence(old.id));
  execute format('drop sequence if exists %s', app_private.workspace_seq_sequence(old.id));
  return null;
end
$$;
comment on function app_private.tg_workspaces__drop_number_sequence() is 'AFTER DELETE on workspaces: drops the workspace''s sequences (issue numbers; seq of events and chat messages).';

create or replace function app_private.tg_workspaces__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- With tracking off every time tool is 403, time.stop included: a timer left running could not be stopped and
  -- would count the whole time tracking stayed off. They stop now, whoever's (as when their issue is deleted).
  perform app_private.stop_running_timers(new.id);
  return null;
end
$$;
comment on function app_private.tg_workspaces__stop_timers() is 'AFTER UPDATE OF time_tracking_enabled on workspaces, when time tracking is turned off: every running timer of the workspace stops (durationMin = elapsed minutes, as time.stop).';

create or replace function app_private.tg_workspaces__events()
 returns trigger
 language plpgsql
as $$
declare v_changes text[];
begin
  -- The settings an admin changes (workspace.updateSettings, GraphQL, CLI), by their API names.
  select array_agg(c.api order by c.api) into v_changes
  from (values
    ('name', old.name is distinct from new.name),
    ('cycleLengthDays', old.cycle_length_days is distinct from new.cycle_length_days),
    ('cycleCooldownDays', old.cycle_cooldown_days is distinct from new.cycle_cooldown_days),
    ('timeTrackingEnabled', old.time_tracking_enabled is distinct from new.time_tracking_enabled),
    ('attachmentQuotaMb', old.attachment_quota_mb is distinct from new.attachment_quota_mb),
    ('requiredAckSeconds', old.required_ack_seconds is distinct from new.required_ack_seconds),
    ('autoDispatch', old.auto_dispatch is distinct from new.auto_dispatch),
    ('autoDispatchMode', old.auto_dispatch_mode is distinct from new.auto_dispatch_mode),
    ('assignmentSlaMinutes', old.assignment_sla_minutes is distinct from new.assignment_sla_minutes),
    ('agentRunStaleMinutes', old.agent_run_stale_minutes is distinct from new.agent_run_stale_minutes)) as c(api, changed)
  where c.changed;
  if v_changes is not null then
    perform app_private.record_event(new.id, 'WORKSPACE_UPDATED', 'workspace', new.id, jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return null;
end
$$;
comment on function app_private.tg_workspaces__events() is 'AFTER UPDATE of the settings columns on workspaces: WORKSPACE_UPDATED naming the settings that changed (nothing when none did).';

drop trigger if exists _800_events on app_public.memberships;
create trigger _800_events after insert or delete or update on app_public.memberships for each row execute function app_private.tg_memberships__events();

drop trigger if exists _100_updated_at on app_public.workspaces;
create trigger _100_updated_at before update on app_public.workspaces for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _900_drop_number_sequence on app_public.workspaces;
create trigger _900_drop_number_sequence after delete on app_public.workspaces for each row execute function app_private.tg_workspaces__drop_number_sequence();

drop trigger if exists _800_events on app_public.workspaces;
create trigger _800_events after update of name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled, attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes, agent_run_stale_minutes on app_public.workspaces for each row execute function app_private.tg_workspaces__events();

drop trigger if exists _500_seed_statuses on app_public.workspaces;
create trigger _500_seed_statuses after insert on app_public.workspaces for each row execute function app_private.tg_workspaces__seed_statuses();

drop trigger if exists _810_stop_timers on app_public.workspaces;
create trigger _810_stop_timers after update of time_tracking_enabled on app_public.workspaces for each row
  when (old.time_tracking_enabled and not new.time_tracking_enabled) execute function app_private.tg_workspaces__stop_timers();
--! EndIncluded workspace/triggers.sql
--! Included workspace/workspace.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.workspace_json(w app_public.workspaces)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'slug', w.slug, 'key', w.key, 'name', w.name,
    'cycleLengthDays', w.cycle_length_days, 'cycleCooldownDays', w.cycle_cooldown_days,
    'timeTrackingEnabled', w.time_tracking_enabled, 'attachmentQuotaMb', w.attachment_quota_mb,
    'requiredAckSeconds', w.required_ack_seconds, 'autoDispatch', w.auto_dispatch,
    'autoDispatchMode', w.auto_dispatch_mode, 'assignmentSlaMinutes', w.assignment_sla_minutes,
    'agentRunStaleMinutes', w.agent_run_stale_minutes)
$$;
comment on function app_hidden.workspace_json(w app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';
grant execute on function app_hidden.workspace_json(w app_public.workspaces) to svc_visitor;

create or replace function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  -- As workspace.updateSettings over MCP: settings rule the whole workspace (GraphQL let a narrowed key set them).
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';
grant execute on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) to svc_visitor;

create or replace function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  -- Letters with accents keep their base letter ('Équipe Café' is equipe-cafe, not quipe-caf): the name decomposed
  -- (NFKD), its combining marks dropped, and the few letters that do not decompose spelled out.
  v_slug text := trim(both '-' from regexp_replace(
    replace(replace(replace(replace(translate(
      regexp_replace(normalize(lower(p_name), NFKD), '[\u0300-\u036f]', '', 'g'),
      'øłđħı', 'oldhi'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'),
    '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409', column = 'key';
  end if;
  if v_slug = '' then v_slug := lower(p_key); end if;
  v_slug := left(v_slug, 50);
  if exists (select 1 from app_public.workspaces where slug = v_slug) then
    v_slug := v_slug || '-' || lower(p_key);
  end if;
  insert into app_public.workspaces (name, key, slug) values (p_name, p_key, v_slug) returning * into v_ws;
  v_user := app_private.ensure_user(p_owner_email);
  insert into app_public.memberships (workspace_id, user_id, role) values (v_ws.id, v_user.id, 'OWNER');
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'owner', jsonb_build_object('id', v_user.id, 'email', v_user.email));
end
$$;
comment on function app_private.create_workspace(p_name text, p_key text, p_owner_email text) is 'Creates a workspace (statuses seeded by trigger) and makes the owner email its OWNER. The operator CLI then issues the owner''s key.';

create or replace function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
as $$
declare v_ws app_public.workspaces;
begin
  update app_public.workspaces w set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), w.name),
    cycle_length_days = coalesce(p_cycle_length_days, w.cycle_length_days),
    cycle_cooldown_days = coalesce(p_cycle_cooldown_days, w.cycle_cooldown_days),
    time_tracking_enabled = coalesce(p_time_tracking_enabled, w.time_tracking_enabled),
    attachment_quota_mb = coalesce(p_attachment_quota_mb, w.attachment_quota_mb),
    required_ack_seconds = coalesce(p_required_ack_seconds, w.required_ack_seconds),
    auto_dispatch = coalesce(p_auto_dispatch, w.auto_dispatch),
    auto_dispatch_mode = coalesce(p_auto_dispatch_mode, w.auto_dispatch_mode),
    assignment_sla_minutes = coalesce(p_assignment_sla_minutes, w.assignment_sla_minutes),
    agent_run_stale_minutes = coalesce(p_agent_run_stale_minutes, w.agent_run_stale_minutes)
  where w.id = p_workspace_id
  returning * into v_ws;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create or replace function app_private.workspace_by_key(p_key text)
 returns app_public.workspaces
 language plpgsql
 stable
as $$
declare v_ws app_public.workspaces;
begin
  -- One value may be one workspace's key and another's slug (key ACME, and the slug acme of workspace ENG named
  -- Acme), or a slug spelled as another's id: an id wins, then a key, then a slug. The first row found decided, so
  -- `--workspace ACME` acted on ENG, and which one changed as rows were updated.
  select * into v_ws from app_public.workspaces
  where key = upper(p_key) or slug = lower(p_key) or id::text = lower(p_key)
  order by id::text = lower(p_key) desc, key = upper(p_key) desc
  limit 1;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by id, key or slug (operator CLI), in that order of preference when one value names several.';

create or replace function app_public.current_workspace()
 returns app_public.workspaces
 language sql
 stable
as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';
grant execute on function app_public.current_workspace() to svc_visitor;

create or replace function app_public.workspace_update_settings(name text default NULL::text, cycle_length_days integer default NULL::integer, cycle_cooldown_days integer default NULL::integer, time_tracking_enabled boolean default NULL::boolean, attachment_quota_mb integer default NULL::integer, required_ack_seconds integer default NULL::integer, auto_dispatch boolean default NULL::boolean, auto_dispatch_mode text default NULL::text, assignment_sla_minutes integer default NULL::integer, agent_run_stale_minutes integer default NULL::integer)
 returns app_public.workspaces
 language sql
as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes)
$$;
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) is '@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg cycleLengthDays Default length of new cycles in days, 1 to 365; omitted = unchanged.
@arg cycleCooldownDays Days left free between cycles, 0 to 365; omitted = unchanged.
@arg timeTrackingEnabled Whether the time.* tools work; omitted = unchanged.
@arg attachmentQuotaMb Attachment storage in MB, 0 or more; omitted = unchanged.
@arg requiredAckSeconds Seconds an assigned agent has to answer (a comment, a status move or a run report) before AGENT_NOACK fires, 0 = off; omitted = unchanged.
@arg autoDispatch Whether the dispatcher hands queued issues to agents; omitted = unchanged.
@arg autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; omitted = unchanged.
@arg assignmentSlaMinutes Minutes an assigned open issue may go without activity before ISSUE_STALLED fires, 0 = off; omitted = unchanged.
@arg agentRunStaleMinutes Minutes without a sign of life before a run is STALLED and an agent OFFLINE, at least 1; omitted = unchanged.
@result The workspace with its settings as changed.
OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) to svc_visitor;

create or replace function app_private.delete_workspace(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_counts jsonb;
  v_key text;
  v_files int := 0;
  v_members uuid[];
  v_users jsonb;
begin
  select * into v_ws from app_public.workspaces w where w.id = p_workspace_id for update;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  v_counts := jsonb_build_object(
    'issues', (select count(*) from app_public.issues i where i.workspace_id = p_workspace_id),
    'comments', (select count(*) from app_public.comments c where c.workspace_id = p_workspace_id),
    'events', (select count(*) from app_public.activity_events e where e.workspace_id = p_workspace_id),
    'keys', (select count(*) from app_private.api_keys k where k.workspace_id = p_workspace_id));
  -- The files' bytes go once this commits (a worker job each, as for a deleted comment's files): the rows go now.
  for v_key in
    select a.storage_key from app_public.attachments a where a.workspace_id = p_workspace_id and a.storage_key is not null
    union
    select u.storage_key from app_public.attachment_uploads u where u.workspace_id = p_workspace_id
  loop
    perform app_private.attachments_enqueue('svc_attachment_blob_delete', json_build_object('storageKey', v_key));
    v_files := v_files + 1;
  end loop;
  v_members := array(select m.user_id from app_public.memberships m where m.workspace_id = p_workspace_id
                     union select f.user_id from app_public.former_members f where f.workspace_id = p_workspace_id);
  -- Everything of the workspace goes with its row (every reference to it cascades); its keys' streams and cached
  -- copies end on every process (api_keys' delete trigger notifies), and the rows deleted in the cascade write no
  -- events (tg_workspaces__deleting).
  delete from app_public.workspaces w where w.id = p_workspace_id;
  -- People whose only workspace it was, as member or former member, go too (their email is personal data); those
  -- who belong elsewhere stay, with their work there.
  with gone as (
    delete from app_public.users u
    where u.id = any(v_members)
      and not exists (select 1 from app_public.memberships m where m.user_id = u.id)
      and not exists (select 1 from app_public.former_members f where f.user_id = u.id)
    returning u.email)
  select coalesce(jsonb_agg(g.email order by g.email), '[]') into v_users from gone g;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'deleted', v_counts || jsonb_build_object('files', v_files, 'users', v_users));
end
$$;
comment on function app_private.delete_workspace(p_workspace_id uuid) is 'Deletes a workspace and everything in it (svc admin delete-workspace): every row that references it (by cascade, writing no events), its keys (their streams end), its files (a svc_attachment_blob_delete job each, once this commits), and the users whose only workspace it was. Returns the workspace and what went: issues, comments, events, keys, files, users (emails).';
--! EndIncluded workspace/workspace.sql
--! Included auth/triggers.sql
-- Triggers of the auth tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_api_keys__notify_revoked()
 returns trigger
 language plpgsql
as $$
begin
  perform pg_notify('svc_keys', case when tg_op = 'DELETE' then old.id else new.id end::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked or deleted key at once, and to end its streams.';

drop trigger if exists _900_notify_revoked on app_private.api_keys;
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__notify_revoked();
-- A key deleted with its workspace or its user (a stream opened with it stayed open).
drop trigger if exists _900_notify_deleted on app_private.api_keys;
create trigger _900_notify_deleted after delete on app_private.api_keys for each row execute function app_private.tg_api_keys__notify_revoked();

create or replace function app_private.tg_api_keys__events()
 returns trigger
 language plpgsql
as $$
begin
  -- Who holds access is the workspace's audit trail: issuing and revoking a key are state changes like any other.
  -- Never the token or its hash; the prefix is what lists show.
  perform app_private.record_event(new.workspace_id, case when tg_op = 'INSERT' then 'API_KEY_CREATED' else 'API_KEY_REVOKED' end,
    'api-key', new.id, jsonb_build_object('keyId', new.id, 'kind', new.kind, 'prefix', new.prefix, 'userId', new.user_id,
      'linkedAgentId', new.linked_agent_id, 'pluginId', new.plugin_id, 'expiresAt', new.expires_at, 'revokedAt', new.revoked_at));
  return null;
end
$$;
comment on function app_private.tg_api_keys__events() is 'API_KEY_CREATED when a key is issued (any path: access.*, plugins, the CLI, a new workspace''s owner key) and API_KEY_REVOKED when it is revoked (accessRevoke, svc admin revoke-key, a member removed); subject api-key, payload without secrets.';

drop trigger if exists _800_events_created on app_private.api_keys;
create trigger _800_events_created after insert on app_private.api_keys for each row execute function app_private.tg_api_keys__events();
drop trigger if exists _800_events_revoked on app_private.api_keys;
create trigger _800_events_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__events();

create or replace function app_private.tg_plugins__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  -- What a plugin's keys may be given and which skills skills.invoke may call are the workspace's to follow like its
  -- webhooks and dispatch rules (the event audit's last configuration without a trace).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['name', 'manifest.scopes:scopes', 'manifest.skills:skills', 'approved_at']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  perform app_private.record_event(new.workspace_id, case tg_op when 'INSERT' then 'PLUGIN_CREATED' else 'PLUGIN_UPDATED' end,
    'plugin', new.id,
    jsonb_build_object('pluginId', new.id, 'name', new.name, 'scopes', coalesce(new.manifest->'scopes', '[]'),
      'skills', coalesce((select jsonb_agg(s->'name') from jsonb_array_elements(coalesce(new.manifest->'skills', '[]')) s), '[]'),
      'approvedAt', new.approved_at)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_plugins__events() is 'AFTER INSERT/UPDATE on plugins: PLUGIN_CREATED, PLUGIN_UPDATED (changes: name, scopes, skills, approvedAt; nothing changed, no event). Subject plugin; payload pluginId, name, scopes, skills (their names), approvedAt.';

drop trigger if exists _800_events on app_private.plugins;
create trigger _800_events after insert or update on app_private.plugins for each row execute function app_private.tg_plugins__events();
--! EndIncluded auth/triggers.sql
