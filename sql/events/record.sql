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
