--! Previous: sha1:c49eceec85e585e5318b0b257ddfa6bf933a39ea
--! Hash: sha1:b2e88e499873955470156836dbc8d1371923cfb1
--! Message: Catalog completion to 205 tools: canvases (tables, 10 tools), statuses and webhook registration as tools, runtime tools (history, restore, children, count, runs.cancel, actionRequests.get/update, chat.getMessage/listMessages), assorted tools; WORKSPACE_UPDATED, WEBHOOK_TESTED and the other new event kinds

--! split: 1-current.sql
-- The catalog's completion: the event kinds of the new tools (statuses, webhooks, canvases, cycle deletion,
-- issue restore).
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
    'WORKSPACE_UPDATED']::text[]
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
-- WORKSPACE_UPDATED: settings changes from every path (workspace.updateSettings, GraphQL, the operator CLI).
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
  return null;
end
$$;
comment on function app_private.tg_workspaces__seed_statuses() is 'AFTER INSERT on workspaces: the six default statuses and the workspace''s issue number sequence.';

create or replace function app_private.tg_workspaces__drop_number_sequence()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  execute format('drop sequence if exists %s', app_private.issue_number_sequence(old.id));
  return null;
end
$$;
comment on function app_private.tg_workspaces__drop_number_sequence() is 'AFTER DELETE on workspaces: drops the workspace''s issue number sequence.';

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
--! EndIncluded workspace/triggers.sql

--! split: 2-canvas.sql
-- Canvases (the `canvas` tools profile): planning whiteboards of a workspace on which issues and free text cards
-- are laid out at x/y positions and connected by edges. Re-runnable while current; functions, policies and
-- triggers come from sql/canvas/ (included below).

create table if not exists app_public.canvases (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  description text check (length(description) <= 10000),
  created_by_user_id uuid references app_public.users(id) on delete set null,
  created_by_agent_id uuid,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, created_by_agent_id) references app_public.agents (workspace_id, id) on delete set null (created_by_agent_id)
);
-- GraphQL: CanvasBoard (inflection singularizes "canvas" to "Canva").
comment on table app_public.canvases is E'@name canvas_board\nA planning whiteboard of the workspace: issue and text cards (canvas_nodes) laid out at x/y positions, connected by edges (canvas_edges). Shared by everyone of the workspace; updatedAt moves with every card or edge change.';
comment on column app_public.canvases.archived_at is 'Archived canvases leave canvas.list (unless includeArchived) and take no card or edge changes.';
-- canvas.list: most recently updated first.
create index if not exists canvases_list_idx on app_public.canvases (workspace_id, updated_at desc, id desc);
create index if not exists canvases_agent_idx on app_public.canvases (workspace_id, created_by_agent_id) where created_by_agent_id is not null;
create index if not exists canvases_user_idx on app_public.canvases (created_by_user_id) where created_by_user_id is not null;
alter table app_public.canvases enable row level security;
alter table app_public.canvases force row level security;
revoke all on app_public.canvases from public;
grant select, delete on app_public.canvases to svc_visitor;
grant insert (workspace_id, name, description, created_by_user_id, created_by_agent_id) on app_public.canvases to svc_visitor;
grant update (name, description, archived_at, updated_at) on app_public.canvases to svc_visitor;

create table if not exists app_public.canvas_nodes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  canvas_id uuid not null,
  kind text not null check (kind in ('issue', 'text')),
  issue_id uuid,
  text text check (length(text) between 1 and 10000),
  x double precision not null check (x between -1e6 and 1e6),
  y double precision not null check (y between -1e6 and 1e6),
  width double precision not null default 240 check (width between 1 and 10000),
  height double precision not null default 120 check (height between 1 and 10000),
  color text check (color ~ '^#[0-9a-f]{6}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  -- The target of canvas_edges' foreign keys: an edge's two nodes are on the edge's canvas.
  unique (workspace_id, canvas_id, id),
  -- An issue is on a canvas at most once.
  unique (workspace_id, canvas_id, issue_id),
  check (case kind when 'issue' then issue_id is not null and text is null else issue_id is null and text is not null end),
  foreign key (workspace_id, canvas_id) references app_public.canvases (workspace_id, id) on delete cascade,
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade
);
comment on table app_public.canvas_nodes is 'A card on a canvas: an issue (kind issue) or free text (kind text) at x/y with a size and an optional #rrggbb color. A key sees an issue card only when it sees the issue.';
comment on column app_public.canvas_nodes.issue_id is 'The issue of an issue card (one card per issue and canvas); deleting the issue for good removes the card.';
create index if not exists canvas_nodes_issue_idx on app_public.canvas_nodes (workspace_id, issue_id) where issue_id is not null;
alter table app_public.canvas_nodes enable row level security;
alter table app_public.canvas_nodes force row level security;
revoke all on app_public.canvas_nodes from public;
grant select, delete on app_public.canvas_nodes to svc_visitor;
grant insert (workspace_id, canvas_id, kind, issue_id, text, x, y, width, height, color) on app_public.canvas_nodes to svc_visitor;
grant update (text, x, y, width, height, color) on app_public.canvas_nodes to svc_visitor;

create table if not exists app_public.canvas_edges (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  canvas_id uuid not null,
  from_node_id uuid not null,
  to_node_id uuid not null,
  label text check (length(label) <= 200),
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  -- Directed: A→B once; B→A is another edge.
  unique (workspace_id, canvas_id, from_node_id, to_node_id),
  check (from_node_id <> to_node_id),
  foreign key (workspace_id, canvas_id) references app_public.canvases (workspace_id, id) on delete cascade,
  constraint canvas_edges_from_node_fkey foreign key (workspace_id, canvas_id, from_node_id)
    references app_public.canvas_nodes (workspace_id, canvas_id, id) on delete cascade,
  constraint canvas_edges_to_node_fkey foreign key (workspace_id, canvas_id, to_node_id)
    references app_public.canvas_nodes (workspace_id, canvas_id, id) on delete cascade
);
comment on table app_public.canvas_edges is 'An arrow between two cards of one canvas (fromNode → toNode) with an optional label. A key sees it when it sees both cards.';
comment on constraint canvas_edges_from_node_fkey on app_public.canvas_edges is E'@fieldName fromNode\n@foreignFieldName outgoingEdges\nThe card the edge starts at (on the same canvas).';
comment on constraint canvas_edges_to_node_fkey on app_public.canvas_edges is E'@fieldName toNode\n@foreignFieldName incomingEdges\nThe card the edge points to (on the same canvas).';
-- Edges by their target card (the unique constraint above serves canvas and from-card lookups).
create index if not exists canvas_edges_to_idx on app_public.canvas_edges (workspace_id, canvas_id, to_node_id);
alter table app_public.canvas_edges enable row level security;
alter table app_public.canvas_edges force row level security;
revoke all on app_public.canvas_edges from public;
grant select, delete on app_public.canvas_edges to svc_visitor;
grant insert (workspace_id, canvas_id, from_node_id, to_node_id, label) on app_public.canvas_edges to svc_visitor;

-- Functions, policies and triggers (sql/), in dependency order -------------------------------------
--! Included canvas/canvas.sql
-- canvas: finders, shapes and limits of the canvas tools.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A card is shown when the caller sees it (RLS: an issue card follows its issue's narrowing) and, for an issue
-- card, the issue is not deleted (a restored issue's card comes back). Hidden cards are left out with their edges.
create or replace function app_hidden.canvas_node_shown(p_node_id uuid)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.canvas_nodes n
                 where n.id = p_node_id
                   and (n.issue_id is null
                        or exists (select 1 from app_public.issues i where i.id = n.issue_id and i.deleted_at is null)))
$$;
comment on function app_hidden.canvas_node_shown(p_node_id uuid) is 'Whether the caller is shown this card: it sees the card (RLS) and, for an issue card, the issue is not deleted.';
grant execute on function app_hidden.canvas_node_shown(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shown_node_ids(p_canvas_id uuid)
 returns uuid[]
 language sql
 stable
as $$
  select coalesce(array_agg(n.id), '{}') from app_public.canvas_nodes n
  where n.workspace_id = app_hidden.current_workspace_id() and n.canvas_id = p_canvas_id
    and (n.issue_id is null
         or exists (select 1 from app_public.issues i where i.id = n.issue_id and i.deleted_at is null))
$$;
comment on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) is 'The ids of the cards of a canvas the caller is shown (canvas_node_shown).';
grant execute on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer)
 returns record
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every card and edge, hidden ones included: limits must not depend on what the calling key sees.
  select (select count(*)::int from app_public.canvas_nodes n
          where n.canvas_id = p_canvas_id and n.workspace_id = app_hidden.current_workspace_id()),
         (select count(*)::int from app_public.canvas_edges e
          where e.canvas_id = p_canvas_id and e.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) is 'How many cards and edges a canvas of the caller''s workspace holds, those the key cannot see included (for the limits and narrowed deletes; counts only).';
grant execute on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', c.id, 'name', c.name, 'description', c.description,
                            'archived', c.archived_at is not null, 'archivedAt', c.archived_at,
                            'nodeCount', p_node_count, 'edgeCount', p_edge_count,
                            'createdByUserId', c.created_by_user_id, 'createdByAgentId', c.created_by_agent_id,
                            'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) is 'Canvas {id, name, description, archived, archivedAt, nodeCount, edgeCount, createdByUserId, createdByAgentId, createdAt, updatedAt} with the given counts.';
grant execute on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_json(c app_public.canvases)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_ids uuid[] := app_hidden.canvas_shown_node_ids(c.id);
begin
  return app_hidden.canvas_shape(c, cardinality(v_ids),
    (select count(*)::int from app_public.canvas_edges e
     where e.workspace_id = c.workspace_id and e.canvas_id = c.id and e.from_node_id in (select unnest(v_ids)) and e.to_node_id in (select unnest(v_ids))));
end
$$;
comment on function app_hidden.canvas_json(c app_public.canvases) is 'Canvas shape whose nodeCount and edgeCount are what the caller is shown (as canvas.get).';
grant execute on function app_hidden.canvas_json(c app_public.canvases) to svc_visitor;

create or replace function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- No FROM: inlined into canvas.get's query, which joins the issue and its status.
  select jsonb_build_object('id', n.id, 'canvasId', n.canvas_id, 'kind', n.kind, 'issueId', n.issue_id,
    'issue', case when i.id is not null then jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title, 'priority', i.priority,
                                                                  'status', jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)) end,
    'text', n.text, 'x', n.x, 'y', n.y, 'width', n.width, 'height', n.height, 'color', n.color,
    'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) is 'Canvas node {id, canvasId, kind, issueId, issue {id, key, title, priority, status} (issue cards), text, x, y, width, height, color, createdAt, updatedAt} from the rows the caller joined.';
grant execute on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.canvas_node_view(n app_public.canvas_nodes)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.canvas_node_json(n, i, s)
  from (select 1) one
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
$$;
comment on function app_hidden.canvas_node_view(n app_public.canvas_nodes) is 'One canvas node''s shape (canvas_node_json), its issue and status read as the caller.';
grant execute on function app_hidden.canvas_node_view(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_edge_json(e app_public.canvas_edges)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', e.id, 'canvasId', e.canvas_id, 'fromNodeId', e.from_node_id, 'toNodeId', e.to_node_id,
                            'label', e.label, 'createdAt', e.created_at)
$$;
comment on function app_hidden.canvas_edge_json(e app_public.canvas_edges) is 'Canvas edge {id, canvasId, fromNodeId, toNodeId, label, createdAt}.';
grant execute on function app_hidden.canvas_edge_json(e app_public.canvas_edges) to svc_visitor;

create or replace function app_hidden.find_canvas(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select c from app_public.canvases c
     where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
    'Canvas', p_field);
end
$$;
comment on function app_hidden.find_canvas(p_id text, p_field text) is 'A canvas of the caller''s workspace by id, else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_for_change(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  -- Locked: card and edge writes of one canvas take turns, so the limits (and duplicate checks) hold under
  -- concurrent calls.
  select * into v_canvas from app_public.canvases c
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()
  for update;
  if v_canvas.id is null then
    raise exception 'Canvas not found' using errcode = 'SV404', column = p_field;
  end if;
  if v_canvas.archived_at is not null then
    raise exception 'Canvas "%" is archived; unarchive it (canvas.update archived false) to change its cards and edges', v_canvas.name
      using errcode = 'SV409', detail = 'canvas_archived';
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_for_change(p_id text, p_field text) is 'A canvas of the caller''s workspace whose cards or edges are about to change, locked until commit; 404 naming the field, 409 canvas_archived for an archived one.';
grant execute on function app_hidden.find_canvas_for_change(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_node(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_nodes
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select n from app_public.canvas_nodes n
     where n.id = v_id and n.workspace_id = app_hidden.current_workspace_id() and app_hidden.canvas_node_shown(n.id)),
    'Canvas node', p_field);
end
$$;
comment on function app_hidden.find_canvas_node(p_id text, p_field text) is 'A card the caller is shown (canvas_node_shown), else 404 naming the field: a card of an issue the key cannot see, or of a deleted issue, reads as missing.';
grant execute on function app_hidden.find_canvas_node(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_edge(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_edges
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select e from app_public.canvas_edges e
     where e.id = v_id and e.workspace_id = app_hidden.current_workspace_id()
       and app_hidden.canvas_node_shown(e.from_node_id) and app_hidden.canvas_node_shown(e.to_node_id)),
    'Canvas edge', p_field);
end
$$;
comment on function app_hidden.find_canvas_edge(p_id text, p_field text) is 'An edge whose two cards the caller is shown, else 404 naming the field.';
grant execute on function app_hidden.find_canvas_edge(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text)
 returns void
 language plpgsql
as $$
declare v_size record;
begin
  select * into v_size from app_hidden.canvas_size(p_canvas_id);
  -- Limits keep canvas.get one bounded answer (500 cards, 1,000 edges).
  if p_what = 'node' and v_size.node_count >= 500 then
    raise exception 'A canvas holds at most 500 nodes and this one is full; remove nodes or start another canvas'
      using errcode = 'SV409', detail = 'canvas_node_limit';
  elsif p_what = 'edge' and v_size.edge_count >= 1000 then
    raise exception 'A canvas holds at most 1000 edges and this one is full; disconnect edges or start another canvas'
      using errcode = 'SV409', detail = 'canvas_edge_limit';
  end if;
end
$$;
comment on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) is 'Raises 409 canvas_node_limit (500 cards) or canvas_edge_limit (1,000 edges) when the canvas has no room for one more node or edge (p_what).';
grant execute on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) to svc_visitor;

create or replace function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb)
 returns void
 language plpgsql
as $$
begin
  -- A card or edge change is a change of the canvas: it moves to the top of canvas.list and writes CANVAS_UPDATED.
  update app_public.canvases set updated_at = now() where id = p_canvas_id;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', p_canvas_id, jsonb_build_object('canvasId', p_canvas_id) || p_payload);
end
$$;
comment on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb) is 'After a card or edge change: stamps the canvas''s updatedAt and records CANVAS_UPDATED {canvasId, change, ...payload}.';
grant execute on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb) to svc_visitor;
--! EndIncluded canvas/canvas.sql
--! Included canvas/policies.sql
-- Row-level security policies of the canvas tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_in_workspace on app_public.canvases;
create policy delete_in_workspace on app_public.canvases for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_in_workspace on app_public.canvases is 'Delete canvases of the caller''s workspace (canvas.delete refuses a narrowed key a canvas with cards it cannot see).';

drop policy if exists insert_in_workspace on app_public.canvases;
create policy insert_in_workspace on app_public.canvases for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.canvases is 'Create canvases in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvases;
create policy owner_all on app_public.canvases for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvases is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.canvases;
create policy select_in_workspace on app_public.canvases for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.canvases is 'Canvases of the caller''s workspace (shared boards; narrowing hides cards, not canvases).';

drop policy if exists update_in_workspace on app_public.canvases;
create policy update_in_workspace on app_public.canvases for update to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.canvases is 'Rename, describe, archive canvases of the caller''s workspace.';

-- Cards: an issue card follows its issue (narrowing applies); text cards are the workspace's.
drop policy if exists delete_visible on app_public.canvas_nodes;
create policy delete_visible on app_public.canvas_nodes for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy delete_visible on app_public.canvas_nodes is 'Remove cards the caller can see.';

drop policy if exists insert_visible on app_public.canvas_nodes;
create policy insert_visible on app_public.canvas_nodes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy insert_visible on app_public.canvas_nodes is 'Add text cards, and cards of issues the caller can see, in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvas_nodes;
create policy owner_all on app_public.canvas_nodes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvas_nodes is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_visible on app_public.canvas_nodes;
create policy select_visible on app_public.canvas_nodes for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy select_visible on app_public.canvas_nodes is 'Cards of the caller''s workspace; an issue card only when the caller can see the issue (narrowing applies).';

drop policy if exists update_visible on app_public.canvas_nodes;
create policy update_visible on app_public.canvas_nodes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_visible on app_public.canvas_nodes is 'Move, resize, recolor or edit cards the caller can see.';

-- Edges: seen when both cards are (their own policy decides).
drop policy if exists delete_visible on app_public.canvas_edges;
create policy delete_visible on app_public.canvas_edges for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy delete_visible on app_public.canvas_edges is 'Remove edges whose two cards the caller can see.';

drop policy if exists insert_visible on app_public.canvas_edges;
create policy insert_visible on app_public.canvas_edges for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy insert_visible on app_public.canvas_edges is 'Connect cards the caller can see, in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvas_edges;
create policy owner_all on app_public.canvas_edges for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvas_edges is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_visible on app_public.canvas_edges;
create policy select_visible on app_public.canvas_edges for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy select_visible on app_public.canvas_edges is 'Edges of the caller''s workspace whose two cards the caller can see (narrowing hides issue cards and their edges).';
--! EndIncluded canvas/policies.sql
--! Included canvas/triggers.sql
-- Triggers of the canvas tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.canvases;
create trigger _100_updated_at before update on app_public.canvases for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _100_updated_at on app_public.canvas_nodes;
create trigger _100_updated_at before update on app_public.canvas_nodes for each row execute function app_hidden.tg__set_updated_at();
--! EndIncluded canvas/triggers.sql
--! Included canvas/tools/create.sql
-- The canvas.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new, empty canvas of the workspace (CANVAS_CREATED); the key's user and agent are its creators.
create or replace function app_tools.canvas_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  insert into app_public.canvases (workspace_id, name, description, created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description',
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_canvas;
  perform app_hidden.record_event('CANVAS_CREATED', 'canvas', v_canvas.id,
    jsonb_build_object('canvasId', v_canvas.id, 'name', v_canvas.name));
  return app_hidden.canvas_shape(v_canvas, 0, 0);
end
$$;
comment on function app_tools.canvas_create(args jsonb) is 'canvas.create: Create a canvas: a planning whiteboard of the workspace on which issue and text cards are laid out and connected.';
grant execute on function app_tools.canvas_create(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/create.sql
--! Included canvas/tools/list.sql
-- The canvas.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- canvases of the workspace, most recently changed (updated_at) first, keyset-paged; live ones unless
-- includeArchived.
create or replace function app_tools.canvas_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after record;
begin
  v_after := app_hidden.keyset_decode_ts(args->>'cursor', 'canvases');
  return app_hidden.page_json(array(
    select (case when row_number() over w <= v_limit then app_hidden.canvas_json(c) end,
            app_hidden.ts_key(c.updated_at), c.id)::app_hidden.page_row
    from app_public.canvases c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (v_archived or c.archived_at is null)
      and (v_after.sort_id is null or (c.updated_at, c.id) < (v_after.sort_key, v_after.sort_id))
    window w as (order by c.updated_at desc, c.id desc)
    order by c.updated_at desc, c.id desc limit v_limit + 1), v_limit, 'canvases');
end
$$;
comment on function app_tools.canvas_list(args jsonb) is 'canvas.list: Canvases of the workspace, most recently changed first, paged ({items, nextCursor}); archived ones only with includeArchived.';
grant execute on function app_tools.canvas_list(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/list.sql
--! Included canvas/tools/get.sql
-- The canvas.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a canvas with the cards the caller is shown (oldest first) and the edges between them; cards of issues the
-- key cannot see, or of deleted issues, are left out with their edges.
create or replace function app_tools.canvas_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas(args->>'id');
  v_nodes jsonb;
  v_ids uuid[];
  v_edges jsonb;
begin
  select coalesce(jsonb_agg(app_hidden.canvas_node_json(n, i, s) order by n.created_at, n.id), '[]'),
         coalesce(array_agg(n.id), '{}')
  into v_nodes, v_ids
  from app_public.canvas_nodes n
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
  where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id
    and (n.issue_id is null or (i.id is not null and i.deleted_at is null));
  select coalesce(jsonb_agg(app_hidden.canvas_edge_json(e) order by e.created_at, e.id), '[]')
  into v_edges
  from app_public.canvas_edges e
  where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id
    and e.from_node_id in (select unnest(v_ids)) and e.to_node_id in (select unnest(v_ids));
  return app_hidden.canvas_shape(v_canvas, jsonb_array_length(v_nodes), jsonb_array_length(v_edges))
         || jsonb_build_object('nodes', v_nodes, 'edges', v_edges);
end
$$;
comment on function app_tools.canvas_get(args jsonb) is 'canvas.get: A canvas with its nodes (cards) and edges. Cards of issues this key cannot see, or of deleted issues, are left out with their edges.';
grant execute on function app_tools.canvas_get(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/get.sql
--! Included canvas/tools/update.sql
-- The canvas.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description (null clears), archived of a canvas; only the fields given change. CANVAS_UPDATED
-- {change: 'canvas_updated', changes} when something did, nothing otherwise.
create or replace function app_tools.canvas_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas(args->>'id');
  v_name text := coalesce(args->>'name', v_canvas.name);
  v_description text := case when args ? 'description' then args->>'description' else v_canvas.description end;
  v_archived_at timestamptz := case
    when args->>'archived' is null then v_canvas.archived_at
    when (args->>'archived')::boolean then coalesce(v_canvas.archived_at, now())
    else null end;
  v_changes text[] := '{}';
begin
  if v_name is distinct from v_canvas.name then v_changes := array_append(v_changes, 'name'); end if;
  if v_description is distinct from v_canvas.description then v_changes := array_append(v_changes, 'description'); end if;
  if v_archived_at is distinct from v_canvas.archived_at then v_changes := array_append(v_changes, 'archived'); end if;
  if cardinality(v_changes) = 0 then
    return app_hidden.canvas_json(v_canvas);
  end if;
  update app_public.canvases set name = v_name, description = v_description, archived_at = v_archived_at
  where id = v_canvas.id
  returning * into v_canvas;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'change', 'canvas_updated', 'changes', to_jsonb(v_changes),
    'name', v_canvas.name, 'archived', v_canvas.archived_at is not null));
  return app_hidden.canvas_json(v_canvas);
end
$$;
comment on function app_tools.canvas_update(args jsonb) is 'canvas.update: Rename or describe a canvas (description null clears), or archive / unarchive it (archived canvases take no card or edge changes). Only the fields given change.';
grant execute on function app_tools.canvas_update(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/update.sql
--! Included canvas/tools/delete.sql
-- The canvas.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a canvas, its cards and edges (CANVAS_DELETED); the issues stay. A narrowed key may not delete a
-- canvas holding cards it cannot see: 403 narrowing.
create or replace function app_tools.canvas_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas(args->>'id');
  v_size record;
begin
  -- Locked, so no card is added between the counts and the delete.
  perform 1 from app_public.canvases c where c.id = v_canvas.id for update;
  if not found then
    raise exception 'Canvas not found' using errcode = 'SV404', column = 'id';  -- deleted meanwhile
  end if;
  select * into v_size from app_hidden.canvas_size(v_canvas.id);
  if v_size.node_count > (select count(*) from app_public.canvas_nodes n
                         where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id) then
    raise exception 'This canvas holds cards of issues outside the key''s narrowing; a key that sees them may delete it'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  delete from app_public.canvases where id = v_canvas.id;  -- cards and edges go with it (foreign keys)
  perform app_hidden.record_event('CANVAS_DELETED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'name', v_canvas.name, 'removedNodes', v_size.node_count, 'removedEdges', v_size.edge_count));
  return jsonb_build_object('id', v_canvas.id, 'deleted', true,
                            'removedNodes', v_size.node_count, 'removedEdges', v_size.edge_count);
end
$$;
comment on function app_tools.canvas_delete(args jsonb) is 'canvas.delete: Delete a canvas with its nodes and edges (the issues stay). A narrowed key may not delete a canvas holding cards it cannot see (403 narrowing).';
grant execute on function app_tools.canvas_delete(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/delete.sql
--! Included canvas/tools/addNode.sql
-- The canvas.addNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a card on a live canvas: an issue the caller can see (id or key; once per canvas: 409 issue_on_canvas) or
-- free text. 409 canvas_node_limit past 500 cards. CANVAS_UPDATED {change: 'node_added', nodeId, kind}: the
-- issue is not named, as every key of the workspace reads canvas events.
create or replace function app_tools.canvas_add_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_for_change(args->>'canvasId', 'canvasId');
  v_kind text := args->>'kind';
  v_issue app_public.issues;
  v_node app_public.canvas_nodes;
begin
  -- The declaration checks these too; kept here for any other caller of the function.
  if v_kind = 'issue' then
    if args->>'issueId' is null then
      perform app_hidden.raise_invalid('issueId', 'an issue node needs issueId');
    elsif args->>'text' is not null then
      perform app_hidden.raise_invalid('text', 'only text nodes carry text');
    end if;
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    if exists (select 1 from app_public.canvas_nodes n where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id and n.issue_id = v_issue.id) then
      raise exception '% is already on this canvas', v_issue.key using errcode = 'SV409', detail = 'issue_on_canvas', column = 'issueId';
    end if;
  elsif v_kind = 'text' then
    if args->>'text' is null then
      perform app_hidden.raise_invalid('text', 'a text node needs text');
    elsif args->>'issueId' is not null then
      perform app_hidden.raise_invalid('issueId', 'only issue nodes take issueId');
    end if;
  else
    perform app_hidden.raise_invalid('kind', 'kind must be issue or text');
  end if;
  perform app_hidden.canvas_require_room(v_canvas.id, 'node');
  insert into app_public.canvas_nodes (workspace_id, canvas_id, kind, issue_id, text, x, y, width, height, color)
  values (v_canvas.workspace_id, v_canvas.id, v_kind, v_issue.id, args->>'text',
          (args->>'x')::double precision, (args->>'y')::double precision,
          coalesce((args->>'width')::double precision, 240), coalesce((args->>'height')::double precision, 120),
          lower(args->>'color'))
  returning * into v_node;
  perform app_hidden.canvas_changed(v_canvas.id, jsonb_build_object('change', 'node_added', 'nodeId', v_node.id, 'kind', v_kind));
  return app_hidden.canvas_node_view(v_node);
end
$$;
comment on function app_tools.canvas_add_node(args jsonb) is 'canvas.addNode: Add a card at x, y (±1,000,000): kind issue with issueId (id or key; once per canvas, 409 issue_on_canvas) or kind text with text. width/height default 240×120; color #rrggbb. At most 500 nodes per canvas (409 canvas_node_limit).';
grant execute on function app_tools.canvas_add_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/addNode.sql
--! Included canvas/tools/updateNode.sql
-- The canvas.updateNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves, resizes, recolors (color null clears) a card the caller is shown, or edits a text card's text; only the
-- fields given change. CANVAS_UPDATED {change: 'node_updated', nodeId, changes} when something did.
create or replace function app_tools.canvas_update_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_new app_public.canvas_nodes;
  v_changes text[] := '{}';
begin
  if args->>'text' is not null and v_node.kind <> 'text' then
    perform app_hidden.raise_invalid('text', 'only text nodes carry text');
  end if;
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  v_new := v_node;
  v_new.x := coalesce((args->>'x')::double precision, v_node.x);
  v_new.y := coalesce((args->>'y')::double precision, v_node.y);
  v_new.width := coalesce((args->>'width')::double precision, v_node.width);
  v_new.height := coalesce((args->>'height')::double precision, v_node.height);
  v_new.text := coalesce(args->>'text', v_node.text);
  v_new.color := case when args ? 'color' then lower(args->>'color') else v_node.color end;
  if v_new.x is distinct from v_node.x then v_changes := array_append(v_changes, 'x'); end if;
  if v_new.y is distinct from v_node.y then v_changes := array_append(v_changes, 'y'); end if;
  if v_new.width is distinct from v_node.width then v_changes := array_append(v_changes, 'width'); end if;
  if v_new.height is distinct from v_node.height then v_changes := array_append(v_changes, 'height'); end if;
  if v_new.text is distinct from v_node.text then v_changes := array_append(v_changes, 'text'); end if;
  if v_new.color is distinct from v_node.color then v_changes := array_append(v_changes, 'color'); end if;
  if cardinality(v_changes) = 0 then
    return app_hidden.canvas_node_view(v_node);
  end if;
  update app_public.canvas_nodes
  set x = v_new.x, y = v_new.y, width = v_new.width, height = v_new.height, text = v_new.text, color = v_new.color
  where id = v_node.id
  returning * into v_node;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_updated', 'nodeId', v_node.id, 'changes', to_jsonb(v_changes)));
  return app_hidden.canvas_node_view(v_node);
end
$$;
comment on function app_tools.canvas_update_node(args jsonb) is 'canvas.updateNode: Move, resize or recolor a card (color null clears), or edit a text card''s text. Only the fields given change.';
grant execute on function app_tools.canvas_update_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/updateNode.sql
--! Included canvas/tools/removeNode.sql
-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds}.
create or replace function app_tools.canvas_remove_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_edge_ids uuid[];
begin
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  -- The edges the caller sees go first and are named; any others (to cards it cannot see) go with the card.
  with gone as (
    delete from app_public.canvas_edges e
    where e.workspace_id = v_node.workspace_id and e.canvas_id = v_node.canvas_id and (e.from_node_id = v_node.id or e.to_node_id = v_node.id)
    returning e.id)
  select coalesce(array_agg(gone.id order by gone.id), '{}') into v_edge_ids from gone;
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)));
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/removeNode.sql
--! Included canvas/tools/connect.sql
-- The canvas.connect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a directed edge between two cards of a live canvas that the caller is shown; no self-loop (400), the same
-- directed edge once (409 edge_exists), at most 1,000 per canvas (409 canvas_edge_limit).
-- CANVAS_UPDATED {change: 'edge_added', edgeId, fromNodeId, toNodeId}.
create or replace function app_tools.canvas_connect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_for_change(args->>'canvasId', 'canvasId');
  v_from app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'fromNodeId', 'fromNodeId');
  v_to app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'toNodeId', 'toNodeId');
  v_edge app_public.canvas_edges;
begin
  -- A card of another canvas reads as missing on this one.
  if v_from.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'fromNodeId';
  elsif v_to.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'toNodeId';
  elsif v_from.id = v_to.id then
    perform app_hidden.raise_invalid('toNodeId', 'a node cannot be connected to itself');
  end if;
  if exists (select 1 from app_public.canvas_edges e
             where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id and e.from_node_id = v_from.id and e.to_node_id = v_to.id) then
    raise exception 'These nodes are already connected in this direction' using errcode = 'SV409', detail = 'edge_exists';
  end if;
  perform app_hidden.canvas_require_room(v_canvas.id, 'edge');
  insert into app_public.canvas_edges (workspace_id, canvas_id, from_node_id, to_node_id, label)
  values (v_canvas.workspace_id, v_canvas.id, v_from.id, v_to.id, nullif(args->>'label', ''))
  returning * into v_edge;
  perform app_hidden.canvas_changed(v_canvas.id, jsonb_build_object(
    'change', 'edge_added', 'edgeId', v_edge.id, 'fromNodeId', v_from.id, 'toNodeId', v_to.id));
  return app_hidden.canvas_edge_json(v_edge);
end
$$;
comment on function app_tools.canvas_connect(args jsonb) is 'canvas.connect: Draw an edge fromNodeId → toNodeId, two cards of canvasId, with an optional label. No self-loops; the same directed edge once (409 edge_exists). At most 1,000 edges per canvas (409 canvas_edge_limit).';
grant execute on function app_tools.canvas_connect(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/connect.sql
--! Included canvas/tools/disconnect.sql
-- The canvas.disconnect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes an edge whose two cards the caller is shown, from a live canvas.
-- CANVAS_UPDATED {change: 'edge_removed', edgeId, fromNodeId, toNodeId}.
create or replace function app_tools.canvas_disconnect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_edge app_public.canvas_edges := app_hidden.find_canvas_edge(args->>'id');
begin
  perform app_hidden.find_canvas_for_change(v_edge.canvas_id::text, 'id');
  v_edge := app_hidden.find_canvas_edge(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  delete from app_public.canvas_edges where id = v_edge.id;
  perform app_hidden.canvas_changed(v_edge.canvas_id, jsonb_build_object(
    'change', 'edge_removed', 'edgeId', v_edge.id, 'fromNodeId', v_edge.from_node_id, 'toNodeId', v_edge.to_node_id));
  return jsonb_build_object('id', v_edge.id, 'canvasId', v_edge.canvas_id, 'removed', true);
end
$$;
comment on function app_tools.canvas_disconnect(args jsonb) is 'canvas.disconnect: Remove an edge by its id.';
grant execute on function app_tools.canvas_disconnect(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/disconnect.sql

--! split: 3-statuses-webhooks.sql
-- Catalog completion: the workflow's statuses as tools (statuses.get/create/update/delete/reorder) and webhook
-- registration as tools (webhooks.create/update/delete/rotateSecret/test), with STATUS_* and WEBHOOK_* events.
-- Re-runnable while current.

-- Status names are unique per workspace case-insensitively, as issues.list's status-name filter reads them.
create unique index if not exists statuses_workspace_id_lower_name_key on app_public.statuses (workspace_id, lower(name));
-- Workspace admins write statuses as themselves, under RLS (policies in statuses/policies.sql).
grant insert (workspace_id, name, category, color, position, is_default), update (name, category, color, position, is_default), delete
  on app_public.statuses to svc_visitor;

--! Included statuses/statuses.sql
-- statuses: helper functions of the workflow tools (statuses.get/create/update/delete/reorder).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_status(p_id text, p_field text default 'id'::text)
 returns app_public.statuses
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select s from app_public.statuses s
     where s.id = app_hidden.parse_uuid(p_id, p_field) and s.workspace_id = app_hidden.current_workspace_id()), 'Status', p_field);
end
$$;
comment on function app_hidden.find_status(p_id text, p_field text) is 'A status of the caller''s workspace by id, else 404 naming the field.';
grant execute on function app_hidden.find_status(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.raise_status_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A status named "%" already exists', p_name using errcode = 'SV409', detail = 'status_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_status_name_taken(p_name text) is 'Raises 409 status_exists (status names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_status_name_taken(p_name text) to svc_visitor;

create or replace function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb default '{}'::jsonb)
 returns uuid
 language sql
as $$
  select app_hidden.record_event(p_kind, 'status', s.id, jsonb_build_object('statusId', s.id, 'name', s.name,
    'category', s.category, 'color', s.color, 'position', s.position, 'isDefault', s.is_default) || p_extra)
$$;
comment on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) is 'STATUS_CREATED/UPDATED/DELETED about a status: its fields (as they are now) plus p_extra (changes, previous, movedIssues...).';
grant execute on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) to svc_visitor;

create or replace function app_hidden.require_other_done_status(s app_public.statuses)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Issues are finished by moving them to a DONE status (analytics, cycles, standups count those): keep one.
  if s.category = 'DONE' and not exists (select 1 from app_public.statuses o
                                         where o.workspace_id = s.workspace_id and o.category = 'DONE' and o.id <> s.id) then
    raise exception 'This is the workspace''s last DONE status; the workflow needs one to finish issues (create another first)'
      using errcode = 'SV409', detail = 'last_done_status';
  end if;
end
$$;
comment on function app_hidden.require_other_done_status(s app_public.statuses) is 'Raises 409 last_done_status when s is the only DONE status of its workspace (it may not be deleted or leave DONE).';
grant execute on function app_hidden.require_other_done_status(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.require_workflow_admin()
 returns uuid
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin();
  -- The statuses are every member's board, and deleting one moves issues a narrowed key cannot see.
  if not app_hidden.key_unnarrowed() then
    raise exception 'The workflow''s statuses belong to the whole workspace; changing them needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  -- One workflow change at a time per workspace: the checks (last DONE status, the default, names) read the whole set.
  perform from app_public.statuses s where s.workspace_id = v_ws order by s.id for update;
  return v_ws;
end
$$;
comment on function app_hidden.require_workflow_admin() is 'Every statuses.* write starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), a key without narrowing (403 narrowing); locks the workspace''s statuses for the transaction. Returns the workspace id.';
grant execute on function app_hidden.require_workflow_admin() to svc_visitor;
--! EndIncluded statuses/statuses.sql
--! Included statuses/policies.sql
-- Row-level security policies of the statuses table's writes (statuses.create/update/delete/reorder). Its
-- owner_all and select_in_workspace policies are in workspace/policies.sql, with the workspace's seeding.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_as_workspace_admin on app_public.statuses;
create policy delete_as_workspace_admin on app_public.statuses for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy delete_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) delete statuses of their workspace.';

drop policy if exists insert_as_workspace_admin on app_public.statuses;
create policy insert_as_workspace_admin on app_public.statuses for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy insert_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) add statuses to their workspace.';

drop policy if exists update_as_workspace_admin on app_public.statuses;
create policy update_as_workspace_admin on app_public.statuses for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) rename, recolor, recategorize and reorder statuses of their workspace.';
--! EndIncluded statuses/policies.sql
--! Included statuses/tools/get.sql
-- The statuses.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one status of the workspace by id (404 for another workspace's).
create or replace function app_tools.statuses_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.status_json(app_hidden.find_status(args->>'id'));
end
$$;
comment on function app_tools.statuses_get(args jsonb) is 'statuses.get: One workflow status by id.';
grant execute on function app_tools.statuses_get(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/get.sql
--! Included statuses/tools/create.sql
-- The statuses.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new workflow status (OWNER/ADMIN, key without narrowing): name unique case-insensitively (409 status_exists),
-- at most 50 per workspace; at `position` the statuses from there on move down one (each STATUS_UPDATED), else last.
create or replace function app_tools.statuses_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_position int := (args->>'position')::int;
  v_status app_public.statuses;
  v_moved app_public.statuses;
begin
  if (select count(*) from app_public.statuses s where s.workspace_id = v_ws) >= 50 then
    raise exception 'A workspace has at most 50 statuses' using errcode = 'SV409', detail = 'status_limit';
  end if;
  if exists (select 1 from app_public.statuses s where s.workspace_id = v_ws and lower(s.name) = lower(args->>'name')) then
    perform app_hidden.raise_status_name_taken(args->>'name');
  end if;
  if v_position is null then
    v_position := coalesce((select max(s.position) + 1 from app_public.statuses s where s.workspace_id = v_ws), 0);
  else
    for v_moved in
      update app_public.statuses s set position = s.position + 1
      where s.workspace_id = v_ws and s.position >= v_position
      returning s.*
    loop
      perform app_hidden.record_status_event('STATUS_UPDATED', v_moved,
        jsonb_build_object('changes', jsonb_build_array('position'), 'previous', jsonb_build_object('position', v_moved.position - 1)));
    end loop;
  end if;
  insert into app_public.statuses (workspace_id, name, category, color, position)
  values (v_ws, args->>'name', args->>'category', coalesce(args->>'color', '#94a3b8'), v_position)
  returning * into v_status;
  perform app_hidden.record_status_event('STATUS_CREATED', v_status);
  return app_hidden.status_json(v_status);
exception when unique_violation then
  perform app_hidden.raise_status_name_taken(args->>'name');
end
$$;
comment on function app_tools.statuses_create(args jsonb) is 'statuses.create: OWNER/ADMIN, unnarrowed key: add a status (unique name, at most 50). position: 0 = first, the ones from there move down; default last.';
grant execute on function app_tools.statuses_create(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/create.sql
--! Included statuses/tools/update.sql
-- The statuses.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rename, recolor, recategorize or make default a status (OWNER/ADMIN, key without narrowing). One STATUS_UPDATED
-- with changes and previous values; none when nothing changed. The former default gets its own STATUS_UPDATED.
create or replace function app_tools.statuses_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_old app_public.statuses := app_hidden.find_status(args->>'id');
  v_status app_public.statuses;
  v_former app_public.statuses;
  v_category text := coalesce(args->>'category', v_old.category);
  v_make_default boolean := coalesce((args->>'isDefault')::boolean, false) and not v_old.is_default;
  v_changes jsonb := '[]';
  v_previous jsonb := '{}';
begin
  if args->>'name' is not null and lower(args->>'name') <> lower(v_old.name) and exists (
       select 1 from app_public.statuses s
       where s.workspace_id = v_ws and lower(s.name) = lower(args->>'name') and s.id <> v_old.id) then
    perform app_hidden.raise_status_name_taken(args->>'name');
  end if;
  if v_category <> v_old.category then
    -- The issues in it would change category without moving (no ISSUE_STATUS_CHANGED, startedAt/completedAt
    -- not stamped, the dispatcher not told): only an empty status changes category.
    if exists (select 1 from app_public.issues i where i.workspace_id = v_ws and i.status_id = v_old.id) then
      raise exception 'Issues are in this status; move them first (or create a status of the new category and delete this one with moveIssuesTo)'
        using errcode = 'SV409', detail = 'status_in_use';
    end if;
    perform app_hidden.require_other_done_status(v_old);
  end if;
  if (v_old.is_default or v_make_default) and v_category in ('DONE', 'CANCELED') then
    raise exception 'The default status (where new issues start) must be open, not DONE or CANCELED'
      using errcode = 'SV409', detail = 'default_status_closed';
  end if;
  if v_make_default then
    -- Two statements: the one-default index is checked row by row.
    update app_public.statuses s set is_default = false where s.workspace_id = v_ws and s.is_default returning s.* into v_former;
    if v_former.id is not null then
      perform app_hidden.record_status_event('STATUS_UPDATED', v_former,
        jsonb_build_object('changes', jsonb_build_array('isDefault'), 'previous', jsonb_build_object('isDefault', true)));
    end if;
  end if;
  update app_public.statuses s
  set name = coalesce(args->>'name', s.name), color = coalesce(args->>'color', s.color),
      category = v_category, is_default = s.is_default or v_make_default
  where s.id = v_old.id
  returning s.* into v_status;

  if v_status.name is distinct from v_old.name then
    v_changes := v_changes || '["name"]'; v_previous := v_previous || jsonb_build_object('name', v_old.name);
  end if;
  if v_status.color is distinct from v_old.color then
    v_changes := v_changes || '["color"]'; v_previous := v_previous || jsonb_build_object('color', v_old.color);
  end if;
  if v_status.category is distinct from v_old.category then
    v_changes := v_changes || '["category"]'; v_previous := v_previous || jsonb_build_object('category', v_old.category);
  end if;
  if v_status.is_default is distinct from v_old.is_default then
    v_changes := v_changes || '["isDefault"]'; v_previous := v_previous || jsonb_build_object('isDefault', v_old.is_default);
  end if;
  if jsonb_array_length(v_changes) > 0 then
    perform app_hidden.record_status_event('STATUS_UPDATED', v_status, jsonb_build_object('changes', v_changes, 'previous', v_previous));
  end if;
  return app_hidden.status_json(v_status);
exception when unique_violation then
  perform app_hidden.raise_status_name_taken(args->>'name');
end
$$;
comment on function app_tools.statuses_update(args jsonb) is 'statuses.update: OWNER/ADMIN, unnarrowed key: rename, recolor, recategorize (only while it has no issues) or make it the default (must be open).';
grant execute on function app_tools.statuses_update(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/update.sql
--! Included statuses/tools/delete.sql
-- The statuses.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a status (OWNER/ADMIN, key without narrowing); its issues (trashed ones too) move to moveIssuesTo first,
-- each with its ISSUE_STATUS_CHANGED. Refused (409): the default status, the last DONE status, a status holding
-- issues without moveIssuesTo.
create or replace function app_tools.statuses_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_status app_public.statuses := app_hidden.find_status(args->>'id');
  v_to app_public.statuses;
  v_held int;
  v_moved int := 0;
begin
  if v_status.is_default then
    raise exception 'This is the default status (where new issues start); make another status the default first (statuses.update isDefault)'
      using errcode = 'SV409', detail = 'default_status';
  end if;
  perform app_hidden.require_other_done_status(v_status);
  if args->>'moveIssuesTo' is not null then
    v_to := app_hidden.find_status(args->>'moveIssuesTo', 'moveIssuesTo');
    if v_to.id = v_status.id then
      perform app_hidden.raise_invalid('moveIssuesTo', 'moveIssuesTo must be another status than the one deleted');
    end if;
  end if;
  select count(*) into v_held from app_public.issues i where i.workspace_id = v_ws and i.status_id = v_status.id;
  if v_held > 0 then
    if v_to.id is null then
      raise exception '% issue(s) are in this status (trashed ones count: they may be restored); give moveIssuesTo', v_held
        using errcode = 'SV409', detail = 'status_in_use';
    end if;
    -- As the caller: the issue triggers record ISSUE_STATUS_CHANGED and stamp startedAt/completedAt.
    update app_public.issues i set status_id = v_to.id where i.workspace_id = v_ws and i.status_id = v_status.id;
    get diagnostics v_moved = row_count;
  end if;
  delete from app_public.statuses s where s.id = v_status.id;
  perform app_hidden.record_status_event('STATUS_DELETED', v_status,
    jsonb_build_object('movedIssues', v_moved, 'movedIssuesTo', v_to.id));
  return jsonb_build_object('ok', true, 'id', v_status.id, 'movedIssues', v_moved, 'movedIssuesTo', v_to.id);
end
$$;
comment on function app_tools.statuses_delete(args jsonb) is 'statuses.delete: OWNER/ADMIN, unnarrowed key: delete a status, its issues moving to moveIssuesTo (required if it has any). Not the default nor the last DONE status.';
grant execute on function app_tools.statuses_delete(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/delete.sql
--! Included statuses/tools/reorder.sql
-- The statuses.reorder tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the full order (OWNER/ADMIN, key without narrowing): ids = every status of the workspace once; positions
-- become 0..n-1, one STATUS_UPDATED (changes position) per status that moved. Returns the list in its new order.
create or replace function app_tools.statuses_reorder(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_ids uuid[] := app_hidden.uuid_array(args->'ids', 'ids');
  v_before jsonb;
  v_missing text;
  v_status app_public.statuses;
begin
  if cardinality(v_ids) <> (select count(distinct x) from unnest(v_ids) x) then
    perform app_hidden.raise_invalid('ids', 'each status once: ids has duplicates');
  end if;
  if exists (select 1 from unnest(v_ids) x
             where not exists (select 1 from app_public.statuses s where s.id = x and s.workspace_id = v_ws)) then
    raise exception 'Status not found' using errcode = 'SV404', column = 'ids';
  end if;
  select string_agg(format('%s (%s)', s.name, s.id), ', ' order by s.position, s.name) into v_missing
  from app_public.statuses s where s.workspace_id = v_ws and s.id <> all(v_ids);
  if v_missing is not null then
    perform app_hidden.raise_invalid('ids', format('give the full order, every status of the workspace once; missing: %s', v_missing));
  end if;
  select jsonb_object_agg(s.id, s.position) into v_before from app_public.statuses s where s.workspace_id = v_ws;
  for v_status in
    update app_public.statuses s set position = o.n - 1
    from unnest(v_ids) with ordinality as o(id, n)
    where s.id = o.id and s.workspace_id = v_ws and s.position <> o.n - 1
    returning s.*
  loop
    perform app_hidden.record_status_event('STATUS_UPDATED', v_status,
      jsonb_build_object('changes', jsonb_build_array('position'), 'previous', jsonb_build_object('position', v_before->(v_status.id::text))));
  end loop;
  return app_tools.statuses_list('{}');
end
$$;
comment on function app_tools.statuses_reorder(args jsonb) is 'statuses.reorder: OWNER/ADMIN, unnarrowed key: set the board order: ids = every status once, first to last.';
grant execute on function app_tools.statuses_reorder(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/reorder.sql
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
    'WORKSPACE_UPDATED']::text[]
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
--! Included events/triggers.sql
-- Triggers of the events tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_activity_events__webhooks()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_delivery uuid;
begin
  for v_delivery in
    insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
    select new.workspace_id, new.id, w.id, 'webhook:' || w.id
    from app_public.webhooks w
    where w.workspace_id = new.workspace_id and w.active
      and (cardinality(w.events) = 0 or new.kind = any(w.events))
      -- A webhook hears nothing about its own registration (the others do; its receiver may not hold a new
      -- secret yet), and WEBHOOK_TESTED goes to the tested webhook alone (app_private.webhook_test queues it).
      and not (new.subject_type = 'webhook' and new.subject_id = w.id)
      and new.kind <> 'WEBHOOK_TESTED'
    returning id
  loop
    perform app_private.enqueue_delivery_job(v_delivery);
  end loop;
  return null;
end
$$;
comment on function app_private.tg_activity_events__webhooks() is 'AFTER INSERT on activity_events: one delivery (and its job) per active webhook whose filter matches, in the event''s transaction.';

drop trigger if exists _500_webhooks on app_public.activity_events;
create trigger _500_webhooks after insert on app_public.activity_events for each row execute function app_private.tg_activity_events__webhooks();
--! EndIncluded events/triggers.sql
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_webhook_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  -- A webhook receives every event of the workspace (or every event of its kinds): a key narrowed to some
  -- projects, labels or initiatives must not point one at itself, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception 'Webhooks deliver the whole workspace''s events; managing them needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_webhook_admin() is 'Every in-app webhook procedure and webhooks.* tool starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), and a key without narrowing (403 narrowing).';
grant execute on function app_hidden.require_webhook_admin() to svc_visitor;

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_result jsonb;
begin
  perform app_hidden.require_webhook_admin();
  v_result := app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
  -- The workspace's other webhooks receive it; this one hears nothing about itself (the outbox trigger).
  perform app_hidden.record_event('WEBHOOK_CREATED', 'webhook', (v_result->>'id')::uuid,
    (select app_hidden.webhook_event_payload(w) from app_public.webhooks w where w.id = (v_result->>'id')::uuid));
  return v_result;
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (host only, never the secret).';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_webhook app_public.webhooks;
  v_result jsonb;
begin
  perform app_hidden.require_webhook_admin();
  select * into v_webhook from app_public.webhooks where id = app_hidden.webhook_in_workspace(p_webhook_id);
  v_result := app_private.webhook_delete(v_webhook.id);
  perform app_hidden.record_event('WEBHOOK_DELETED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return v_result;
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

create or replace function app_hidden.webhook_host(p_url text)
 returns text
 language sql
 immutable
as $$ select lower(substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://(\[[^]/?#]*\]|[^/?#:]*)')) $$;
comment on function app_hidden.webhook_host(p_url text) is 'The host of a webhook URL (lower case; an IPv6 literal keeps its brackets), without port, path or query.';
grant execute on function app_hidden.webhook_host(p_url text) to svc_visitor;

create or replace function app_hidden.webhook_event_payload(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('webhookId', w.id, 'host', app_hidden.webhook_host(w.url), 'events', to_jsonb(w.events), 'active', w.active)
$$;
comment on function app_hidden.webhook_event_payload(w app_public.webhooks) is 'Payload of the WEBHOOK_* events: id, host, events, active. Never the secret, nor the URL''s path or query (they may carry a token).';
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

create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_result jsonb;
begin
  perform app_hidden.require_webhook_admin();
  v_result := app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id));
  perform app_hidden.record_event('WEBHOOK_UPDATED', 'webhook', p_webhook_id,
    (select app_hidden.webhook_event_payload(w) from app_public.webhooks w where w.id = p_webhook_id)
    || jsonb_build_object('changes', jsonb_build_array('secret')));
  return v_result;
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once. Records WEBHOOK_UPDATED (changes secret; never the secret itself).';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
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
declare
  v_old app_public.webhooks;
  v_new app_public.webhooks;
  v_result jsonb;
  v_changes text[] := '{}';
begin
  perform app_hidden.require_webhook_admin();
  select * into v_old from app_public.webhooks where id = app_hidden.webhook_in_workspace(p_webhook_id);
  v_result := app_private.webhook_update(v_old.id, p_url, p_events, p_active, p_description);
  select * into v_new from app_public.webhooks where id = v_old.id;
  if v_new.url is distinct from v_old.url then v_changes := array_append(v_changes, 'url'); end if;
  if v_new.events is distinct from v_old.events then v_changes := array_append(v_changes, 'events'); end if;
  if v_new.active is distinct from v_old.active then v_changes := array_append(v_changes, 'active'); end if;
  if v_new.description is distinct from v_old.description then v_changes := array_append(v_changes, 'description'); end if;
  -- A change that changes nothing records nothing. The URL's path and query never reach the event: host only.
  if cardinality(v_changes) > 0 then
    perform app_hidden.record_event('WEBHOOK_UPDATED', 'webhook', v_new.id, app_hidden.webhook_event_payload(v_new)
      || jsonb_build_object('changes', to_jsonb(v_changes))
      || case when app_hidden.webhook_host(v_new.url) is distinct from app_hidden.webhook_host(v_old.url)
              then jsonb_build_object('previousHost', app_hidden.webhook_host(v_old.url)) else '{}' end);
  end if;
  return v_result;
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
--! Included webhooks/tools/create.sql
-- The webhooks.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: registers a webhook through the in-app procedure (app_hidden.webhook_create:
-- URL and event checks, WEBHOOK_CREATED); the answer carries the signing secret, shown only here. The run hook
-- checked the URL in Node first (credentials, private targets), as GraphQL and the CLI do.
create or replace function app_tools.webhooks_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_create(args->>'url', array(select jsonb_array_elements_text(coalesce(args->'events', '[]'))),
    args->>'description');
end
$$;
comment on function app_tools.webhooks_create(args jsonb) is 'webhooks.create: OWNER/ADMIN, unnarrowed key: register a webhook (events default: all). The answer holds its signing secret, shown only this once.';
grant execute on function app_tools.webhooks_create(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/create.sql
--! Included webhooks/tools/update.sql
-- The webhooks.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: changes the fields given through the in-app procedure
-- (app_hidden.webhook_update: checks, WEBHOOK_UPDATED naming the changed fields). Never a secret.
create or replace function app_tools.webhooks_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_update(app_hidden.parse_uuid(args->>'id', 'id'), args->>'url',
    case when args ? 'events' then array(select jsonb_array_elements_text(args->'events')) end,
    (args->>'active')::boolean, args->>'description');
end
$$;
comment on function app_tools.webhooks_update(args jsonb) is 'webhooks.update: OWNER/ADMIN, unnarrowed key: change url, events, active (false pauses deliveries) or description of a webhook.';
grant execute on function app_tools.webhooks_update(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/update.sql
--! Included webhooks/tools/delete.sql
-- The webhooks.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: deletes a webhook with its secret and deliveries (app_hidden.webhook_delete,
-- WEBHOOK_DELETED).
create or replace function app_tools.webhooks_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_delete(app_hidden.parse_uuid(args->>'id', 'id'));
end
$$;
comment on function app_tools.webhooks_delete(args jsonb) is 'webhooks.delete: OWNER/ADMIN, unnarrowed key: delete a webhook and its deliveries.';
grant execute on function app_tools.webhooks_delete(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/delete.sql
--! Included webhooks/tools/rotateSecret.sql
-- The webhooks.rotateSecret tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: a new signing secret at once, returned this once
-- (app_hidden.webhook_rotate_secret; WEBHOOK_UPDATED with changes secret, never the secret).
create or replace function app_tools.webhooks_rotate_secret(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_rotate_secret(app_hidden.parse_uuid(args->>'id', 'id'));
end
$$;
comment on function app_tools.webhooks_rotate_secret(args jsonb) is 'webhooks.rotateSecret: OWNER/ADMIN, unnarrowed key: new signing secret at once (the old one stops); shown only in this answer.';
grant execute on function app_tools.webhooks_rotate_secret(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/rotateSecret.sql
--! Included webhooks/tools/test.sql
-- The webhooks.test tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: records WEBHOOK_TESTED and queues its delivery to this webhook only
-- (app_hidden.webhook_test); returns the delivery as webhooks.listDeliveries shows it.
create or replace function app_tools.webhooks_test(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_test(app_hidden.parse_uuid(args->>'id', 'id'));
end
$$;
comment on function app_tools.webhooks_test(args jsonb) is 'webhooks.test: OWNER/ADMIN, unnarrowed key: send a signed WEBHOOK_TESTED delivery to this webhook now, whatever its filter (see webhooks.listDeliveries).';
grant execute on function app_tools.webhooks_test(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/test.sql

--! split: 4-runtime-tools.sql
-- The runtime namespaces' new tools (issues.history/restore/children/count, runs.cancel, actionRequests.get/update,
-- chat.getMessage/listMessages). issues.list's filters move to app_hidden.issues_filter (shared with
-- issues.count); a soft delete names the parent it detaches sub-issues from, and a restore reattaches them.

-- actionRequests.update: the requester amends these columns (status and resolution were already writable).
grant update (title, body, severity, due_at, assigned_user_id, assigned_agent_id) on app_public.action_requests to svc_visitor;

--! Included issues/filters.sql
-- issues: the filters of issues.list, shared with issues.count.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issues_filter(args jsonb, out from_sql text, out where_sql text, out search tsquery)
 returns record
 language plpgsql
 stable
as $$
declare
  v_status text := args->>'status';
  v_status_ids uuid[];
begin
  -- The caller executes `from <from_sql> where <where_sql>` with $1 = the workspace id and $2 = search. Every
  -- value is written in as a constant (format %L): the query is planned per call, so each filter gets its own
  -- index. Paging (cursor, limit) is the caller's.
  from_sql := 'app_public.issues i';
  where_sql := 'i.workspace_id = $1 and i.deleted_at is null';
  if args->>'query' is not null then
    -- Full-text search (issues_search_gin). The matches come from a definer function (the index is unusable
    -- under RLS, see issue_search_matches); joined back to issues, the policies apply. m.rank is the match's.
    search := app_hidden.search_tsquery(args->>'query');
    from_sql := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
  end if;
  if args->>'statusId' is not null then
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
  -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
  -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_status_ids := array[v_status::uuid];
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
    else
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
      if cardinality(v_status_ids) = 0 then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        raise exception 'No status has this id, category or name' using errcode = 'SV400', column = 'status';
      end if;
    end if;
    where_sql := where_sql || case cardinality(v_status_ids)
      when 0 then ' and false'
      when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
      else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
  end if;
  if args->>'open' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                          else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
  end if;
  if args->>'priority' is not null then
    where_sql := where_sql || format(' and i.priority = %L', args->>'priority');
  end if;
  if args ? 'projectId' then
    where_sql := where_sql || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    where_sql := where_sql || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    where_sql := where_sql || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    where_sql := where_sql || case when args->>'parentId' is null then ' and i.parent_id is null'
      else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
  end if;
  if args ? 'claimedById' then
    where_sql := where_sql || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    where_sql := where_sql || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                     app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    where_sql := where_sql || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;
end
$$;
comment on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) is 'The filters of issues.list and issues.count (query, status as id, category or name, statusId, open, priority, projectId, assignedAgentId, cycleId, parentId, claimedById with null = none, labelIds any of, queued) as the FROM and WHERE of a query over live issues i of the workspace ($1), with the search tsquery ($2, matches m with m.rank) when query is given; 400 naming the field for a bad value. Paging is the caller''s.';
grant execute on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) to svc_visitor;
--! EndIncluded issues/filters.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text;
  v_items json[];
  v_keys text[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text;
  v_rank text := 'null::real';
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session (force_generic_plan: left to choose, the plan cache re-planned it in every call for a workspace
    -- of 100,000 issues, where a generic LIMIT looks costlier than a custom plan: 2.7 ms a call instead of
    -- 1.7), reading the (workspace_id, number) index from the cursor down. Filtered calls EXECUTE their
    -- query, planned per call whatever this setting says.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode_int(args->>'cursor', 'issues');
    end if;
    select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number desc),
           array_agg((t.i).number::text order by (t.i).number desc)
    into v_items, v_keys
    from (select i from app_public.issues i
          where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
          order by i.number desc limit v_limit + 1) t
    left join app_public.statuses s on s.id = (t.i).status_id
    left join app_public.projects p on p.id = (t.i).project_id
    left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  else
    -- Filters (shared with issues.count): the query is built for them (planned per call, so each filter
    -- gets its own index).
    select f.from_sql, f.where_sql, f.search into v_from, v_where, v_query from app_hidden.issues_filter(args) f;
    if v_query is not null then
      -- Full-text search: ranked, paged by (rank, number) from the cursor on.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        select array_agg(app_hidden.issue_lean_json(i, s, p, a) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
        join app_public.issues i on i.id = m.id
        left join app_public.statuses s on s.id = i.status_id
        left join app_public.projects p on p.id = i.project_id
        left join app_public.agents a on a.id = i.assigned_agent_id;
        return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issues-search');
      elsif v_after is not null then
        v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode_int(args->>'cursor', 'issues'));
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by %s), array_agg(%s order by %s)
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id',
      v_outer_order, v_sort, v_outer_order, v_rank, v_from, v_where, v_order, v_limit + 1)
    into v_items, v_keys
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included issues/tools/count.sql
-- The issues.count tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- how many issues the filters of issues.list select (app_hidden.issues_filter, the same code), in total and
-- per status and per priority, in one grouped pass. RLS narrows the rows, as in the list.
create or replace function app_tools.issues_count(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  f record;
  v_total bigint;
  v_by_status jsonb;
  v_by_priority jsonb;
begin
  select * into f from app_hidden.issues_filter(args);
  execute format(
    'with g as (select i.status_id, i.priority, count(*) as n, grouping(i.status_id) as gs, grouping(i.priority) as gp
                from %s where %s group by grouping sets ((i.status_id), (i.priority), ()))
     select coalesce((select n from g where gs = 1 and gp = 1), 0),
            coalesce((select jsonb_agg(jsonb_build_object(''statusId'', g.status_id, ''name'', s.name, ''category'', s.category,
                                                          ''count'', g.n) order by s.position, s.name, g.status_id)
                      from g join app_public.statuses s on s.id = g.status_id where g.gs = 0), ''[]''),
            coalesce((select jsonb_agg(jsonb_build_object(''priority'', g.priority, ''count'', g.n)
                                       order by array_position(array[''URGENT'', ''HIGH'', ''MEDIUM'', ''LOW'', ''NONE''], g.priority))
                      from g where g.gp = 0), ''[]'')',
    f.from_sql, f.where_sql)
  into v_total, v_by_status, v_by_priority
  using app_hidden.current_workspace_id(), f.search;
  return jsonb_build_object('total', v_total, 'byStatus', v_by_status, 'byPriority', v_by_priority);
end
$$;
grant execute on function app_tools.issues_count(args jsonb) to svc_visitor;
comment on function app_tools.issues_count(args jsonb) is 'issues.count: Count what issues.list''s filters select: total, byStatus [{statusId, name, category, count}], byPriority.';
--! EndIncluded issues/tools/count.sql
--! Included issues/tools/children.sql
-- The issues.children tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the live sub-issues (parentId) of an issue the key can see (id or key), those the key can see (RLS), in
-- creation order (number ascending), keyset-paged.
create or replace function app_tools.issues_children(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_parent app_public.issues := app_hidden.find_issue(args->>'id');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after int := coalesce(app_hidden.cursor_decode_int(args->>'cursor', 'issue-children'), 0);
  v_items json[];
  v_keys text[];
begin
  select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number),
         array_agg((t.i).number::text order by (t.i).number)
  into v_items, v_keys
  from (select i from app_public.issues i
        where i.workspace_id = v_parent.workspace_id and i.parent_id = v_parent.id and i.deleted_at is null
          and i.number > v_after
        order by i.number limit v_limit + 1) t
  left join app_public.statuses s on s.id = (t.i).status_id
  left join app_public.projects p on p.id = (t.i).project_id
  left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issue-children');
end
$$;
grant execute on function app_tools.issues_children(args jsonb) to svc_visitor;
comment on function app_tools.issues_children(args jsonb) is 'issues.children: Sub-issues of an issue, oldest first, paged.';
--! EndIncluded issues/tools/children.sql
--! Included issues/tools/history.sql
-- The issues.history tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the activity of one issue (id or key, narrowing as issues.get): its own events (subjectType issue: status,
-- assignment, runs, ...) and those of its comments, deleted comments included; newest first, paged by seq;
-- the shape of events.recent.
create or replace function app_tools.issues_history(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before bigint := coalesce(app_hidden.cursor_decode_bigint(args->>'cursor', 'issue-history'), 9223372036854775807);
  v_comment_ids uuid[];
  v_items json[];
  v_keys text[];
begin
  -- A deleted comment's events (its creation, its deletion) stay part of the issue's history. The comments
  -- policy hides deleted comments, and a narrowed key's events policy asks it, so both reads below see them
  -- for this statement only (as comments.delete does).
  perform set_config('svc.include_deleted_comments', 'on', true);
  v_comment_ids := array(select c.id from app_public.comments c
                         where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id);
  -- Two index reads (activity_events_subject_idx), each at most a page, merged newest first.
  select array_agg(app_hidden.event_shape(t.e, a, u, true) order by (t.e).seq desc),
         array_agg((t.e).seq::text order by (t.e).seq desc)
  into v_items, v_keys
  from (select x.e from (
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'issue' and e.subject_id = v_issue.id
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)
          union all
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'comment' and e.subject_id = any(v_comment_ids)
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)) x
        order by (x.e).seq desc limit v_limit + 1) t
  left join app_public.agents a on a.id = (t.e).actor_agent_id
  left join app_public.users u on u.id = (t.e).actor_user_id;
  perform set_config('svc.include_deleted_comments', '', true);
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issue-history');
end
$$;
grant execute on function app_tools.issues_history(args jsonb) to svc_visitor;
comment on function app_tools.issues_history(args jsonb) is 'issues.history: An issue''s events and its comments'', newest first, paged, as events.recent.';
--! EndIncluded issues/tools/history.sql
--! Included issues/tools/restore.sql
-- The issues.restore tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes issues.delete (no retention window: a deleted issue is kept, so any time): the issue (id or key; a
-- deleted one the key could see, else 404) is live again with its comments, labels, watchers and relations,
-- which the deletion left in place. 409 not_deleted for a live issue. ISSUE_RESTORED, and the sub-issues its
-- deletion detached are reattached: triggers _800_events and _811_restore_links. Abandoned runs stay closed.
-- Run-mode gated.
create or replace function app_tools.issues_restore(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ref text := args->>'id';
  v_issue app_public.issues;
begin
  -- find_issue's lookup, deleted issues included (the policies still narrow).
  if v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_issue from app_public.issues i where i.id = v_ref::uuid for update;
  else
    select * into v_issue from app_public.issues i
    where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(v_ref) for update;
  end if;
  if v_issue.id is null then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
  end if;
  if v_issue.deleted_at is null then
    raise exception 'Issue % is not deleted', v_issue.key using errcode = 'SV409', detail = 'not_deleted';
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  update app_public.issues set deleted_at = null where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
grant execute on function app_tools.issues_restore(args jsonb) to svc_visitor;
comment on function app_tools.issues_restore(args jsonb) is 'issues.restore: Undo issues.delete (any time): comments, labels, watchers, relations and the sub-issues it detached come back (ISSUE_RESTORED); runs stay closed; 409 if live.';
--! EndIncluded issues/tools/restore.sql
--! Included issues/triggers.sql
-- Triggers of the issues tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if exists (select 1 from app_public.issues i where i.id = v_row.issue_id and i.created_at = now()) then
    return null;  -- labels set while the issue is created belong to its ISSUE_CREATED
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue (not in the transaction that creates it).';

create or replace function app_private.tg_issue_labels__label_ids()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_issue_ids uuid[] := array(select distinct c.issue_id from changed c);
begin
  -- Lock the issues first, read their labels after (a new statement, so a new snapshot): a transaction
  -- changing the same issue's labels at the same time has committed by then, and neither loses the other's.
  perform from app_public.issues i where i.id = any(v_issue_ids) order by i.id for no key update;
  update app_public.issues i
  set label_ids = coalesce((select array_agg(il.label_id order by il.created_at, il.label_id)
                            from app_public.issue_labels il where il.issue_id = i.id), '{}')
  where i.id = any(v_issue_ids);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__label_ids() is 'AFTER INSERT/DELETE statement on issue_labels (transition table `changed`): copies each changed issue''s label ids, oldest first, into issues.label_ids, which the issue shapes read.';

create or replace function app_private.issue_number_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
as $$ select 'app_private.issue_numbers_' || pg_catalog.replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.issue_number_sequence(p_workspace_id uuid) is 'The qualified name of a workspace''s issue number sequence (created with the workspace). No SET clause, so it is inlined.';

create or replace function app_private.tg_issues__assign_number()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sequence, not a counter row: a row would stay locked until commit (its WAL flush included), so the
  -- creates of one workspace would queue one behind the other. The price: a create that fails after this
  -- point leaves a gap in the numbers (docs/decisions.md).
  new.number := nextval(app_private.issue_number_sequence(new.workspace_id)::regclass);
  new.key := (select w.key from app_public.workspaces w where w.id = new.workspace_id) || '-' || new.number;
  return new;
end
$$;
comment on function app_private.tg_issues__assign_number() is 'BEFORE INSERT on issues: the next number of the workspace''s sequence and the key <WS>-<n>.';

create or replace function app_private.tg_issues__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
    return null;
  end if;
  if new.deleted_at is null and old.deleted_at is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_RESTORED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key, 'deletedAt', old.deleted_at));
    return null;
  end if;
  if new.status_id is distinct from old.status_id then
    perform app_private.record_event(new.workspace_id, 'ISSUE_STATUS_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.status_id, 'to', new.status_id));
  end if;
  if new.priority is distinct from old.priority then
    perform app_private.record_event(new.workspace_id, 'ISSUE_PRIORITY_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.priority, 'to', new.priority));
  end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_ASSIGNED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'agentId', new.assigned_agent_id,
                         'from', old.assigned_agent_id, 'to', new.assigned_agent_id));
  end if;
  if new.queued and not old.queued then
    perform app_private.record_event(new.workspace_id, 'ISSUE_QUEUED', 'issue', new.id,
      jsonb_build_object('issueId', new.id));
  end if;
  if new.title is distinct from old.title then v_changed := array_append(v_changed, 'title'); end if;
  if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
  if new.project_id is distinct from old.project_id then v_changed := array_append(v_changed, 'projectId'); end if;
  if new.parent_id is distinct from old.parent_id then v_changed := array_append(v_changed, 'parentId'); end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := array_append(v_changed, 'cycleId'); end if;
  if new.due_date is distinct from old.due_date then v_changed := array_append(v_changed, 'dueDate'); end if;
  if new.estimate is distinct from old.estimate then v_changed := array_append(v_changed, 'estimate'); end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := array_append(v_changed, 'slaMinutes'); end if;
  if new.expected_output is distinct from old.expected_output then v_changed := array_append(v_changed, 'expectedOutput'); end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := array_append(v_changed, 'verificationChecklist'); end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := array_append(v_changed, 'artifactRequired'); end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById'); end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields. A change that changes nothing writes nothing.';

create or replace function app_private.tg_issues__detach_children()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_child uuid;
begin
  -- Every live child, also those the deleting key cannot see (narrowing): a deleted issue is 404 everywhere,
  -- so nothing may keep pointing at it. Each child writes ISSUE_UPDATED (changes parentId) through _800_events.
  for v_child in
    update app_public.issues c set parent_id = null
    where c.workspace_id = new.workspace_id and c.parent_id = new.id and c.deleted_at is null
    returning c.id
  loop
    -- Why, in that same ISSUE_UPDATED: issues.restore reattaches the children named so (_811_restore_links).
    perform app_private.record_issue_updated(new.workspace_id, v_child, array['parentId'],
                                             jsonb_build_object('detachedFromParentId', new.id));
  end loop;
  return null;
end
$$;
comment on function app_private.tg_issues__detach_children() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: its live sub-issues (all of them, whatever the key''s narrowing) become top-level (parentId null), each with the ISSUE_UPDATED (changes parentId, detachedFromParentId) an update of parentId writes.';

create or replace function app_private.tg_issues__restore_links()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The restored issue may not point at a parent deleted meanwhile (a deleted issue is 404 everywhere).
  update app_public.issues i set parent_id = null
  where i.id = new.id and exists (select 1 from app_public.issues p where p.id = new.parent_id and p.deleted_at is not null);
  -- The sub-issues its deletion detached (their ISSUE_UPDATED since the deletion names it as
  -- detachedFromParentId) come back, all of them as the deletion took all of them, unless they moved since:
  -- deleted, given another parent, or their parentId changed again (set and cleared) after the detachment;
  -- and never into a cycle. Each writes ISSUE_UPDATED (changes parentId) through _800_events.
  update app_public.issues c set parent_id = new.id
  from (select e.subject_id as child_id, max(e.seq) as seq
        from app_public.activity_events e
        where e.workspace_id = new.workspace_id and e.kind = 'ISSUE_UPDATED' and e.subject_type = 'issue'
          and e.seq > coalesce((select max(d.seq) from app_public.activity_events d
                                where d.workspace_id = new.workspace_id and d.subject_type = 'issue'
                                  and d.subject_id = new.id and d.kind = 'ISSUE_DELETED'), 0)
          and e.payload->>'detachedFromParentId' = new.id::text
        group by e.subject_id) d
  where c.id = d.child_id and c.workspace_id = new.workspace_id and c.parent_id is null and c.deleted_at is null
    and not exists (select 1 from app_public.activity_events l
                    where l.workspace_id = new.workspace_id and l.subject_type = 'issue' and l.subject_id = c.id
                      and l.kind = 'ISSUE_UPDATED' and l.seq > d.seq and l.payload->'changes' ? 'parentId')
    and not app_hidden.issue_has_ancestor(new.id, c.id);
  return null;
end
$$;
comment on function app_private.tg_issues__restore_links() is 'AFTER UPDATE OF deleted_at on issues, when a deleted issue is restored (issues.restore): a parent deleted meanwhile is cleared, and the sub-issues its deletion detached (ISSUE_UPDATED with detachedFromParentId since the deletion) that are still live, top-level and untouched since are reattached, whatever the key''s narrowing (as the deletion detached them), never into a cycle; each with the ISSUE_UPDATED (changes parentId) an update of parentId writes.';

create or replace function app_private.tg_issues__plugin_creator()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.created_by_user_id is null and new.created_by_agent_id is null then
    new.created_by_user_id := (select m.user_id from app_public.memberships m
                               where m.workspace_id = new.workspace_id order by m.created_at, m.id limit 1);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__plugin_creator() is 'BEFORE INSERT on issues: an issue created by a key with neither user nor agent (a plugin key) is attributed to the first workspace member (spec 4.2).';

create or replace function app_private.tg_issues__status_timestamps()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_category text;
begin
  if tg_op = 'UPDATE' and new.status_id is not distinct from old.status_id then
    return new;
  end if;
  select s.category into v_category from app_public.statuses s where s.id = new.status_id;
  if v_category in ('IN_PROGRESS', 'IN_REVIEW', 'DONE') and new.started_at is null then
    new.started_at := now();
  end if;
  if v_category in ('DONE', 'CANCELED') then
    new.completed_at := coalesce(new.completed_at, now());
  else
    new.completed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__status_timestamps() is 'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt is set on DONE/CANCELED and cleared when the issue is reopened.';

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _150_status_timestamps on app_public.issues;
create trigger _150_status_timestamps before insert or update of status_id on app_public.issues for each row execute function app_private.tg_issues__status_timestamps();

drop trigger if exists _200_assign_number on app_public.issues;
create trigger _200_assign_number before insert on app_public.issues for each row execute function app_private.tg_issues__assign_number();

drop trigger if exists _210_plugin_creator on app_public.issues;
create trigger _210_plugin_creator before insert on app_public.issues for each row execute function app_private.tg_issues__plugin_creator();

drop trigger if exists _810_detach_children on app_public.issues;
create trigger _810_detach_children after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__detach_children();

drop trigger if exists _811_restore_links on app_public.issues;
create trigger _811_restore_links after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is not null and new.deleted_at is null) execute function app_private.tg_issues__restore_links();

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
--! Included runs/tools/cancel.sql
-- The runs.cancel tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ends an open run as ABANDONED (the run machine's only closing state besides COMPLETED), reason canceled:
-- AGENT_RUN_STATUS_CHANGED by trigger _810_run_abandoned; completionMeta keeps when and the caller's reason.
-- Who: the run's agent (like runs.complete), or a key acting for a person (its own user, no linked agent), who
-- may already end the run by reassigning or deleting its issue; any other key is 403 not_run_agent.
-- Closed runs: 409 run_closed. The issue keeps its assignee.
create or replace function app_tools.runs_cancel(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(args->>'runId');
begin
  -- The run's agent (as runs.complete), or a person: a key with its own user and no linked agent.
  if not coalesce(app_hidden.current_agent_id() = v_run.agent_id,
                  app_hidden.current_agent_id() is null and app_hidden.current_user_id() is not null) then
    raise exception 'Only a key linked to the run''s agent, or a person''s key, may cancel this run'
      using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  update app_public.agent_runs
  set completion_meta = coalesce(completion_meta, '{}') || jsonb_strip_nulls(jsonb_build_object(
        'canceledAt', now(), 'cancelReason', args->>'reason'))
  where id = v_run.id;
  return app_hidden.run_json(app_hidden.run_set_status(v_run, 'ABANDONED', 'canceled'));
end
$$;
grant execute on function app_tools.runs_cancel(args jsonb) to svc_visitor;
comment on function app_tools.runs_cancel(args jsonb) is 'runs.cancel: End an open run without completing it: ABANDONED, reason canceled (AGENT_RUN_STATUS_CHANGED); completionMeta keeps cancelReason. The run''s agent, or a person''s key (another agent''s key: 403). Closed runs: 409.';
--! EndIncluded runs/tools/cancel.sql
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
  -- Every branch is coalesced to a boolean: a key without an agent (or a plugin key without a user) compares as
  -- NULL, and NULL here would make `if not ...` pass the caller through.
  select coalesce(p_request.assigned_agent_id is not null
                  and p_request.assigned_agent_id is not distinct from app_hidden.current_agent_id(), false)
      or coalesce(p_request.assigned_user_id is not null and app_hidden.current_agent_id() is null
                  and p_request.assigned_user_id is not distinct from app_hidden.current_user_id(), false)
      or coalesce(p_request.issue_id is not null and exists (
            select 1 from app_public.issue_watchers w
            where w.issue_id = p_request.issue_id
              and case when app_hidden.current_agent_id() is not null then w.agent_id = app_hidden.current_agent_id()
                       else w.user_id = app_hidden.current_user_id() end), false)
      -- OWNER/ADMIN is the membership role (spec 2.8) of a person: a key with no linked agent whose own user has
      -- that role. The ADMIN scope alone does not make a MEMBER (or an agent) an OWNER/ADMIN.
      or coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
$$;
comment on function app_hidden.action_request_may_decide(p_request app_public.action_requests) is 'accept/decline gate (spec 3.6, 4.11): the assignee (the assigned agent''s own key, or the assigned user''s key acting as a person), a watcher of the request''s issue (as the key watches: agent or user), or a person (key with no linked agent) whose workspace role is OWNER or ADMIN. The ADMIN scope alone grants nothing here. Never NULL.';
grant execute on function app_hidden.action_request_may_decide(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- `is not distinct from`: a key without an agent (or without a user) must compare false, not NULL
  -- (`if not NULL` would let it through).
  select coalesce(case
    when p_request.requested_by_agent_id is not null then p_request.requested_by_agent_id is not distinct from app_hidden.current_agent_id()
    when p_request.requested_by_user_id is not null then app_hidden.current_agent_id() is null
                                                          and p_request.requested_by_user_id is not distinct from app_hidden.current_user_id()
    else app_hidden.caller_may_moderate() end, false)
$$;
comment on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) is 'Whether the calling key speaks for the requester: the requesting agent''s own key, or the requesting person''s key acting as a person (no linked agent); a request without a requester (raised by the system) counts as a workspace OWNER/ADMIN person''s. Never NULL. closeVoting and update use it.';
grant execute on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) to svc_visitor;

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
  if p_request.kind = 'CLOSE_AS_DUPLICATE' then
    -- relations.add below takes this lock; taken after the issue's row lock it could deadlock with a concurrent
    -- relations.add that holds it and waits on that row (its foreign-key check).
    perform app_hidden.lock_directed_relations('DUPLICATES');
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
      'labelIds', to_jsonb(v_issue.label_ids));
  elsif p_request.kind = 'ASSIGN_AGENT' then
    v_agent := app_hidden.find_agent(v_payload->>'agentId', null, 'payload.agentId');
    if v_agent.archived_at is not null then
      raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'payload.agentId', detail = 'agent_archived';
    end if;
    if not (v_issue.assigned_agent_id is not distinct from v_agent.id and exists (
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
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if v.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v.issue_id);
  end if;
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise), decidable by the caller (403 not_allowed otherwise) and not by an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue (403 run_mode_gated).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
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
  if not app_hidden.action_request_caller_is_requester(v_req) then
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
--! Included actionRequests/tools/get.sql
-- The actionRequests.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one request the key can see (a request on an issue follows its narrowing; one assigned to the key's agent
-- or user is visible to it), as actionRequests.list shows it.
create or replace function app_tools.action_requests_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.action_request_json(app_hidden.find_action_request(args->>'id'));
end
$$;
grant execute on function app_tools.action_requests_get(args jsonb) to svc_visitor;
comment on function app_tools.action_requests_get(args jsonb) is 'actionRequests.get: One action request by id, as actionRequests.list shows it.';
--! EndIncluded actionRequests/tools/get.sql
--! Included actionRequests/tools/update.sql
-- The actionRequests.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the requester (or, besides, a workspace OWNER/ADMIN acting as a person) amends an open or snoozed request:
-- title, body, severity, dueAt, assignedUserId, assignedAgentId (null clears the nullable ones). Its kind,
-- bound payload and poll options stay. ISSUE_UPDATED (action-request, change updated, changes) when something
-- changed. Closed requests: 409 request_closed.
create or replace function app_tools.action_requests_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_new app_public.action_requests := v_req;
  v_changes text[];
begin
  if not (app_hidden.action_request_caller_is_requester(v_req) or app_hidden.caller_may_moderate()) then
    raise exception 'Only the requester (or a workspace OWNER/ADMIN) may change this request'
      using errcode = 'SV403', detail = 'not_requester';
  end if;
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be changed', v_req.status using errcode = 'SV409', detail = 'request_closed';
  end if;
  if args ? 'title' then v_new.title := args->>'title'; end if;
  if args ? 'body' then v_new.body := args->>'body'; end if;
  if args ? 'severity' then v_new.severity := args->>'severity'; end if;
  if args ? 'dueAt' then v_new.due_at := (args->>'dueAt')::timestamptz; end if;
  if args ? 'assignedUserId' then
    v_new.assigned_user_id := null;
    if args->>'assignedUserId' is not null then
      select m.user_id into v_new.assigned_user_id from app_public.memberships m
      where m.workspace_id = v_req.workspace_id and m.user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId');
      if v_new.assigned_user_id is null then
        raise exception 'User not found in this workspace' using errcode = 'SV404', column = 'assignedUserId';
      end if;
    end if;
  end if;
  if args ? 'assignedAgentId' then
    v_new.assigned_agent_id := case when args->>'assignedAgentId' is not null
      then (app_hidden.find_agent(args->>'assignedAgentId', null, 'assignedAgentId')).id end;
  end if;
  v_changes := array_remove(array[
    case when v_new.title is distinct from v_req.title then 'title' end,
    case when v_new.body is distinct from v_req.body then 'body' end,
    case when v_new.severity is distinct from v_req.severity then 'severity' end,
    case when v_new.due_at is distinct from v_req.due_at then 'dueAt' end,
    case when v_new.assigned_user_id is distinct from v_req.assigned_user_id then 'assignedUserId' end,
    case when v_new.assigned_agent_id is distinct from v_req.assigned_agent_id then 'assignedAgentId' end], null);
  if cardinality(v_changes) = 0 then
    return app_hidden.action_request_json(v_req);
  end if;
  update app_public.action_requests
  set title = v_new.title, body = v_new.body, severity = v_new.severity, due_at = v_new.due_at,
      assigned_user_id = v_new.assigned_user_id, assigned_agent_id = v_new.assigned_agent_id
  where id = v_req.id
  returning * into v_new;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_new.id, jsonb_build_object(
    'actionRequestId', v_new.id, 'issueId', v_new.issue_id, 'change', 'updated', 'changes', to_jsonb(v_changes),
    'assignedUserId', v_new.assigned_user_id, 'assignedAgentId', v_new.assigned_agent_id));
  return app_hidden.action_request_json(v_new);
end
$$;
grant execute on function app_tools.action_requests_update(args jsonb) to svc_visitor;
comment on function app_tools.action_requests_update(args jsonb) is 'actionRequests.update: The requester (or a workspace OWNER/ADMIN person) amends an open or snoozed request: title, body, severity, dueAt, assignee (null clears). Kind, payload and options stay. Closed: 409. To withdraw it, transition it to DISMISSED.';
--! EndIncluded actionRequests/tools/update.sql
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

create or replace function app_hidden.chat_message_for_agent(p_message_id text)
 returns app_public.chat_messages
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_message app_public.chat_messages;
begin
  perform app_hidden.require_own_agent();  -- a key without an agent hears that first, as in the other chat tools
  -- Found as the owner (RLS would hide another agent's thread as a 404), then gated as chat.getThread gates its
  -- thread: 404 outside the workspace, 403 not_addressee inside it.
  select * into v_message from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, 'id') and m.workspace_id = app_hidden.current_workspace_id();
  if v_message.id is null then
    raise exception 'Message not found' using errcode = 'SV404', column = 'id';
  end if;
  perform app_hidden.chat_thread_for_agent(v_message.thread_id::text);
  return v_message;
end
$$;
comment on function app_hidden.chat_message_for_agent(p_message_id text) is 'Addressee gating of chat.getMessage: the message (of the caller''s workspace, else 404 on id) must be in a thread addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee, as chat_thread_for_agent).';
grant execute on function app_hidden.chat_message_for_agent(p_message_id text) to svc_visitor;

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
--! Included chat/tools/getMessage.sql
-- The chat.getMessage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one message by id (e.g. the messageId of a CHAT_MESSAGE_POSTED delivery), in a thread addressed to the
-- key's agent (gated as chat.getThread), with the shape of chat.getThread's messages.
create or replace function app_tools.chat_get_message(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.chat_message_json(app_hidden.chat_message_for_agent(args->>'id'));
end
$$;
grant execute on function app_tools.chat_get_message(args jsonb) to svc_visitor;
comment on function app_tools.chat_get_message(args jsonb) is 'chat.getMessage: One message by id (e.g. a CHAT_MESSAGE_POSTED messageId), shaped as in chat.getThread. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/getMessage.sql
--! Included chat/tools/listMessages.sql
-- The chat.listMessages tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the messages of a thread addressed to the key's agent (gated as chat.getThread) after a message (after = a
-- message id of the thread, or nextCursor; none = from the first), oldest first, paged forward: what arrived
-- since the last one the agent read. chat.getThread pages the other way, from the newest back.
create or replace function app_tools.chat_list_messages(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_seq bigint := 0;
begin
  if args->>'after' is not null then
    select m.seq into v_after_seq from app_public.chat_messages m
    where m.id = app_hidden.parse_uuid(args->>'after', 'after') and m.workspace_id = v_thread.workspace_id
      and m.thread_id = v_thread.id;
    if v_after_seq is null then
      raise exception 'after must be a message of this thread' using errcode = 'SV400', column = 'after';
    end if;
  end if;
  -- The cursor is the last message id of the page (page_json with no prefix: the sort key itself).
  return app_hidden.page_json(array(
    select (app_hidden.chat_message_json(m), m.id::text, null)::app_hidden.page_row
    from app_public.chat_messages m
    where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id and m.seq > v_after_seq
    order by m.seq limit v_limit + 1), v_limit, null);
end
$$;
grant execute on function app_tools.chat_list_messages(args jsonb) to svc_visitor;
comment on function app_tools.chat_list_messages(args jsonb) is 'chat.listMessages: Messages of a thread after one (after = a message id or nextCursor; none = from the first), oldest first, paged forward: what came since you last read. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/listMessages.sql

--! split: 5-assorted-tools.sql
-- Catalog completion, assorted namespaces: cycles.delete, projects.summary, initiatives.summary, time.get,
-- relations.list, members.get, notification.resetPreference, repohost.unlink, workspace.updateSettings,
-- agents.workload, labels.merge (events.kinds runs in Node). Re-runnable while current.

-- Deletes the request role may now make (the policies are in the included files): a cycle (cycles.delete), a
-- notification preference of the caller's own (notification.resetPreference), an issue's external link
-- (repohost.unlink; policy on_visible_issues already covers every command).
grant delete on app_public.cycles to svc_visitor;
grant delete on app_public.notification_preferences to svc_visitor;
grant delete on app_public.external_links to svc_visitor;

-- relations.list pages the workspace's relations oldest first.
create index if not exists issue_relations_created_idx on app_public.issue_relations (workspace_id, created_at, id);

--! Included cycles/policies.sql
-- Row-level security policies of the cycles tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_unnarrowed on app_public.cycles;
create policy delete_unnarrowed on app_public.cycles for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)));
comment on policy delete_unnarrowed on app_public.cycles is 'Delete cycles of the caller''s workspace (cycles.delete: their issues lose the cycle); keys with project or label narrowing may not.';

drop policy if exists insert_in_workspace on app_public.cycles;
create policy insert_in_workspace on app_public.cycles for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.cycles is 'Create cycles in the caller''s workspace.';

drop policy if exists owner_all on app_public.cycles;
create policy owner_all on app_public.cycles for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.cycles is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.cycles;
create policy select_in_workspace on app_public.cycles for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.cycles is 'Cycles of the caller''s workspace.';

drop policy if exists update_in_workspace on app_public.cycles;
create policy update_in_workspace on app_public.cycles for update to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.cycles is 'Update cycles of the caller''s workspace.';
--! EndIncluded cycles/policies.sql
--! Included cycles/triggers.sql
-- Triggers of the cycles tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_cycles__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'CYCLE_DELETED', 'cycle', old.id,
      jsonb_build_object('cycleId', old.id, 'number', old.number, 'name', old.name, 'startsOn', old.starts_on,
                         'endsOn', old.ends_on, 'status', app_hidden.cycle_status(old)));
    -- Pins are personal rows of every member: nothing may keep pointing at the cycle.
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'CYCLE' and p.target_id = old.id;
    return null;
  end if;
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CYCLE_CREATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'startsOn', new.starts_on,
                         'endsOn', new.ends_on, 'status', app_hidden.cycle_status(new)));
    return null;
  end if;
  if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
  if new.starts_on is distinct from old.starts_on then v_changed := array_append(v_changed, 'startsOn'); end if;
  if new.ends_on is distinct from old.ends_on then v_changed := array_append(v_changed, 'endsOn'); end if;
  if new.status is distinct from old.status then v_changed := array_append(v_changed, 'status'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'CYCLE_UPDATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'status', new.status, 'previousStatus', old.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_cycles__events() is 'CYCLE_CREATED (status: on the calendar, as cycles.get shows it); CYCLE_UPDATED on rename, re-dating and status moves (rollover completes/activates; status and previousStatus: the stored values that changed); CYCLE_DELETED (status: on the calendar when deleted), and the members'' pins of a deleted cycle go. Kinds beyond spec 6.1, see docs/decisions.md.';

drop trigger if exists _100_updated_at on app_public.cycles;
create trigger _100_updated_at before update on app_public.cycles for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.cycles;
create trigger _800_events after insert or update or delete on app_public.cycles for each row execute function app_private.tg_cycles__events();
--! EndIncluded cycles/triggers.sql
--! Included cycles/tools/delete.sql
-- The cycles.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a cycle that has not run: PLANNED (not started) or CANCELED, or any cycle that never held an issue.
-- A started or ended cycle with issues is history (409 cycle_started); one with attachments keeps them until they
-- are deleted (409 cycle_has_attachments: their files live outside SQL). Its issues, deleted ones included, lose
-- the cycle (ISSUE_UPDATED cycleId each, by trigger), then CYCLE_DELETED (trigger). Needs a key without
-- project/label narrowing: it changes issues the key might not see.
create or replace function app_tools.cycles_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_status text;
  v_detached jsonb;
begin
  perform app_hidden.require_issues_unrestricted('Deleting a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  select * into v_cycle from app_public.cycles where id = v_cycle.id for update;
  v_status := app_hidden.cycle_status(v_cycle);
  if v_status in ('ACTIVE', 'COMPLETED')
     and exists (select 1 from app_public.issues i where i.workspace_id = v_cycle.workspace_id and i.cycle_id = v_cycle.id) then
    raise exception 'Cycle % is %: a sprint that ran with issues is history and stays (only PLANNED, CANCELED or empty cycles can be deleted)',
      v_cycle.name, lower(v_status) using errcode = 'SV409', detail = 'cycle_started';
  end if;
  if exists (select 1 from app_public.attachments a
             where a.workspace_id = v_cycle.workspace_id and a.target_type = 'cycle' and a.target_id = v_cycle.id) then
    raise exception 'Cycle % has attachments: delete them first (attachments.list, attachments.delete)', v_cycle.name
      using errcode = 'SV409', detail = 'cycle_has_attachments';
  end if;
  with moved as (
    update app_public.issues i set cycle_id = null
    where i.workspace_id = v_cycle.workspace_id and i.cycle_id = v_cycle.id
    returning i.id, i.number, i.deleted_at)
  select coalesce(jsonb_agg(id order by number) filter (where deleted_at is null), '[]') into v_detached from moved;
  delete from app_public.cycles where id = v_cycle.id;
  return jsonb_build_object('ok', true, 'id', v_cycle.id, 'number', v_cycle.number, 'name', v_cycle.name,
                            'status', v_status, 'detachedIssueIds', v_detached);
end
$$;
grant execute on function app_tools.cycles_delete(args jsonb) to svc_visitor;
comment on function app_tools.cycles_delete(args jsonb) is 'cycles.delete: Delete a PLANNED or CANCELED cycle, or one that never held an issue; its issues lose the cycle. A sprint that ran with issues: 409 cycle_started; with attachments: 409 cycle_has_attachments. Needs a key without project/label narrowing.';
--! EndIncluded cycles/tools/delete.sql
--! Included projects/progress.sql
-- Progress figures of projects (projects.summary, initiatives.summary).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_progress_json(p_project_ids uuid[])
 returns jsonb
 language sql
 stable
as $$
  -- One pass over the live issues of the projects, as the caller: RLS leaves out what the key's narrowing hides.
  select jsonb_build_object(
    'total', n.total, 'open', n.open, 'done', n.done, 'canceled', n.canceled,
    -- Done out of what is still meant to be done (canceled issues do not count either way); null without any.
    'percentComplete', case when n.total - n.canceled > 0 then round(100.0 * n.done / (n.total - n.canceled))::int end,
    'overdue', n.overdue, 'unassignedOpen', n.unassigned_open,
    'byCategory', jsonb_build_object('BACKLOG', n.backlog, 'TODO', n.todo, 'IN_PROGRESS', n.in_progress,
                                     'IN_REVIEW', n.in_review, 'DONE', n.done, 'CANCELED', n.canceled),
    'openByPriority', jsonb_build_object('URGENT', n.urgent, 'HIGH', n.high, 'MEDIUM', n.medium, 'LOW', n.low, 'NONE', n.none),
    'estimate', jsonb_build_object('total', n.estimate_total, 'done', n.estimate_done),
    'lastCompletedAt', n.last_completed_at)
  from (
    select count(*) as total,
           count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
           count(*) filter (where s.category = 'DONE') as done,
           count(*) filter (where s.category = 'CANCELED') as canceled,
           count(*) filter (where s.category = 'BACKLOG') as backlog,
           count(*) filter (where s.category = 'TODO') as todo,
           count(*) filter (where s.category = 'IN_PROGRESS') as in_progress,
           count(*) filter (where s.category = 'IN_REVIEW') as in_review,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.due_date < app_hidden.utc_today()) as overdue,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.assigned_agent_id is null) as unassigned_open,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.priority = 'URGENT') as urgent,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.priority = 'HIGH') as high,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.priority = 'MEDIUM') as medium,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.priority = 'LOW') as low,
           count(*) filter (where s.category not in ('DONE', 'CANCELED') and i.priority = 'NONE') as none,
           coalesce(sum(i.estimate) filter (where s.category <> 'CANCELED'), 0) as estimate_total,
           coalesce(sum(i.estimate) filter (where s.category = 'DONE'), 0) as estimate_done,
           max(i.completed_at) filter (where s.category = 'DONE') as last_completed_at
    from app_public.issues i join app_public.statuses s on s.id = i.status_id
    where i.workspace_id = app_hidden.current_workspace_id() and i.project_id = any(p_project_ids) and i.deleted_at is null) n
$$;
comment on function app_hidden.issue_progress_json(p_project_ids uuid[]) is 'Progress over the live issues of these projects that the key can see: total, open, done, canceled, percentComplete (done of the non-canceled, rounded; null when there are none), overdue (open, dueDate before today UTC), unassignedOpen (open without an agent), byCategory, openByPriority, estimate {total (non-canceled), done}, lastCompletedAt.';
grant execute on function app_hidden.issue_progress_json(p_project_ids uuid[]) to svc_visitor;
--! EndIncluded projects/progress.sql
--! Included projects/tools/summary.sql
-- The projects.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a progress view of one project the key can see (archived included, as projects.get): counts of its live
-- issues that the key can see, by status category and, for open ones, priority; done/open, % complete, overdue.
create or replace function app_tools.projects_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_project app_public.projects := app_hidden.find_project(args->>'id');
begin
  return jsonb_build_object('project', app_hidden.project_json(v_project), 'generatedAt', now())
         || app_hidden.issue_progress_json(array[v_project.id]);
end
$$;
grant execute on function app_tools.projects_summary(args jsonb) to svc_visitor;
comment on function app_tools.projects_summary(args jsonb) is 'projects.summary: Progress of a project: its issues (that this key sees) by status category and open ones by priority; open, done, percentComplete (of non-canceled), overdue, unassigned, estimates.';
--! EndIncluded projects/tools/summary.sql
--! Included initiatives/tools/summary.sql
-- The initiatives.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects.summary rolled up over the projects of one initiative the key can see: the totals over every linked
-- project the key can see (archived ones included: archiving does not unlink), and a compact row per project.
create or replace function app_tools.initiatives_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
  v_projects uuid[] := array(select p.id from app_public.projects p
                             where p.workspace_id = v_initiative.workspace_id and p.initiative_id = v_initiative.id
                             order by p.created_at, p.id);
begin
  return jsonb_build_object('initiative', app_hidden.initiative_json(v_initiative), 'generatedAt', now())
    || app_hidden.issue_progress_json(v_projects)
    || jsonb_build_object('projects', coalesce((
         select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                          || (select jsonb_build_object('total', g->'total', 'open', g->'open', 'done', g->'done',
                                                        'canceled', g->'canceled', 'percentComplete', g->'percentComplete',
                                                        'overdue', g->'overdue')
                              from app_hidden.issue_progress_json(array[p.id]) g)
                          order by p.created_at, p.id)
         from app_public.projects p where p.id = any(v_projects)), '[]'));
end
$$;
grant execute on function app_tools.initiatives_summary(args jsonb) to svc_visitor;
comment on function app_tools.initiatives_summary(args jsonb) is 'initiatives.summary: Progress of an initiative: projects.summary rolled up over its projects (archived too), with a row per project.';
--! EndIncluded initiatives/tools/summary.sql
--! Included time/tools/get.sql
-- The time.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one time entry as time.list shows it: anyone's entry on a live issue the key can see (a narrowed key's own
-- entries elsewhere are for its timer tools only); otherwise 404 Time entry not found.
create or replace function app_tools.time_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
begin
  perform app_hidden.require_time_tracking();
  return app_hidden.time_entry_json(app_hidden.found(
    (select e from app_public.time_entries e
     where e.id = v_id and e.workspace_id = app_hidden.current_workspace_id()
       -- time.list's rule (app_hidden.time_entries_filtered): within the narrowing, never on a deleted issue.
       and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
       and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)),
    'Time entry'));
end
$$;
grant execute on function app_tools.time_get(args jsonb) to svc_visitor;
comment on function app_tools.time_get(args jsonb) is 'time.get: One time entry by id, as time.list shows it (anyone''s, on issues this key can see). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
--! EndIncluded time/tools/get.sql
--! Included relations/tools/list.sql
-- The relations.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the workspace's relations as stored (one row per fact: BLOCKS, DUPLICATES, RELATES_TO), oldest first,
-- keyset-paged; only links whose both issues are live and visible to the key (RLS: narrowing). kind filters
-- the stored kind; issueId keeps the links of one issue (either end; 404 when the key cannot see it).
create or replace function app_tools.relations_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'relations');
begin
  return app_hidden.page_json(array(
    select (jsonb_build_object(
              'id', r.id, 'kind', r.kind, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
              'fromIssue', app_hidden.issue_ref_json(f), 'toIssue', app_hidden.issue_ref_json(t),
              'createdAt', r.created_at),
            app_hidden.ts_key(r.created_at), r.id)::app_hidden.page_row
    from app_public.issue_relations r
    -- Joined as the caller: both ends must pass the issues' policies (narrowing) and be live.
    join app_public.issues f on f.id = r.from_issue_id and f.deleted_at is null
    join app_public.issues t on t.id = r.to_issue_id and t.deleted_at is null
    where r.workspace_id = app_hidden.current_workspace_id()
      and (args->>'kind' is null or r.kind = args->>'kind')
      and (v_issue is null or r.from_issue_id = v_issue or r.to_issue_id = v_issue)
      and (v_after.sort_id is null or (r.created_at, r.id) > (v_after.sort_key, v_after.sort_id))
    order by r.created_at, r.id limit v_limit + 1), v_limit, 'relations');
end
$$;
grant execute on function app_tools.relations_list(args jsonb) to svc_visitor;
comment on function app_tools.relations_list(args jsonb) is 'relations.list: Relations of the workspace as stored (fromIssue BLOCKS, DUPLICATES or RELATES_TO toIssue; BLOCKED_BY is stored reversed), oldest first, paged. Only links between issues this key can see. Filters: kind, issueId (either end).';
--! EndIncluded relations/tools/list.sql
--! Included members/tools/get.sql
-- The members.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one member of the caller's workspace by user id, with their role; anyone else (a member of another
-- workspace only, or no one) is 404 on userId.
create or replace function app_tools.members_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.member_json(app_hidden.found(
    (select m from app_public.memberships m
     where m.workspace_id = app_hidden.current_workspace_id()
       and m.user_id = app_hidden.parse_uuid(args->>'userId', 'userId')),
    'Member', 'userId'));
end
$$;
grant execute on function app_tools.members_get(args jsonb) to svc_visitor;
comment on function app_tools.members_get(args jsonb) is 'members.get: One person of the workspace by user id, with their role (OWNER, ADMIN, MEMBER). Someone who is not a member is 404.';
--! EndIncluded members/tools/get.sql
--! Included notification/policies.sql
-- Row-level security policies of the notification tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_own_preferences on app_public.notification_preferences;
create policy delete_own_preferences on app_public.notification_preferences for delete to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy delete_own_preferences on app_public.notification_preferences is 'A user removes their own preferences (notification.resetPreference), global ones and those of the calling workspace.';

drop policy if exists insert_own_preferences on app_public.notification_preferences;
create policy insert_own_preferences on app_public.notification_preferences for insert to svc_visitor
  with check (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy insert_own_preferences on app_public.notification_preferences is 'A user sets their own preferences, for the calling workspace or globally.';

drop policy if exists owner_all on app_public.notification_preferences;
create policy owner_all on app_public.notification_preferences for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.notification_preferences is 'The schema owner (notification fan-out, operator) works on every row.';

drop policy if exists select_own_preferences on app_public.notification_preferences;
create policy select_own_preferences on app_public.notification_preferences for select to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy select_own_preferences on app_public.notification_preferences is 'A user sees their own rows: global ones and those of the calling workspace.';

drop policy if exists update_own_preferences on app_public.notification_preferences;
create policy update_own_preferences on app_public.notification_preferences for update to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))))
  with check ((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)));
comment on policy update_own_preferences on app_public.notification_preferences is 'A user changes their own preferences.';
--! EndIncluded notification/policies.sql
--! Included notification/tools/resetPreference.sql
-- The notification.resetPreference tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes the key owner's own row for one event kind (this workspace's, or the global one with scope global),
-- so the next rule applies again (global row, else enabled); idempotent: removed false when there was none.
create or replace function app_tools.notification_reset_preference(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_ws uuid := app_hidden.current_workspace_id();
  v_global boolean := coalesce(args->>'scope', 'workspace') = 'global';
  v_kind text := args->>'eventKind';
  v_removed int;
  v_w app_public.notification_preferences;
  v_g app_public.notification_preferences;
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  delete from app_public.notification_preferences p
  where p.user_id = v_user and p.event_kind = v_kind
    and (case when v_global then p.workspace_id is null else p.workspace_id = v_ws end);
  get diagnostics v_removed = row_count;
  -- What applies now (notification.getPreferences' rule): workspace row, else global row, else enabled.
  select * into v_w from app_public.notification_preferences p where p.user_id = v_user and p.workspace_id = v_ws and p.event_kind = v_kind;
  select * into v_g from app_public.notification_preferences p where p.user_id = v_user and p.workspace_id is null and p.event_kind = v_kind;
  return jsonb_build_object(
    'eventKind', v_kind, 'scope', case when v_global then 'global' else 'workspace' end, 'removed', v_removed > 0,
    'effective', jsonb_build_object(
      'eventKind', v_kind,
      'enabled', coalesce(v_w.enabled, v_g.enabled, true),
      'delivery', coalesce(v_w.delivery, v_g.delivery, 'INBOX_ONLY'),
      'source', case when v_w.id is not null then 'workspace' when v_g.id is not null then 'global' else 'default' end));
end
$$;
grant execute on function app_tools.notification_reset_preference(args jsonb) to svc_visitor;
comment on function app_tools.notification_reset_preference(args jsonb) is 'notification.resetPreference: Remove your setting for one event kind (this workspace''s, or the global one with scope global) so the next rule applies again (workspace, global, enabled). Returns the effective setting; removed false if there was none.';
--! EndIncluded notification/tools/resetPreference.sql
--! Included repohost/tools/unlink.sql
-- The repohost.unlink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes one link (an id from repohost.listLinked or repohost.link) of an issue the key may change; the
-- resource's snapshot stays (workspace-wide, other issues may link it). ISSUE_UPDATED (externalResources) by
-- trigger, as linking writes.
create or replace function app_tools.repohost_unlink(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_link app_public.external_links := app_hidden.found(
    (select l from app_public.external_links l
     where l.id = app_hidden.parse_uuid(args->>'id', 'id') and l.workspace_id = app_hidden.current_workspace_id()),
    'Link');
  v_issue app_public.issues;
begin
  -- The issue's own write path: live and visible (404), locked, run-mode gated (as repohost.link).
  v_issue := app_hidden.issue_for_write(v_link.issue_id::text, 'id');
  delete from app_public.external_links l where l.id = v_link.id;
  return jsonb_build_object('id', v_link.id, 'issueId', v_issue.id, 'issueKey', v_issue.key, 'resourceId', v_link.resource_id,
                            'kind', v_link.kind, 'removed', true);
end
$$;
grant execute on function app_tools.repohost_unlink(args jsonb) to svc_visitor;
comment on function app_tools.repohost_unlink(args jsonb) is 'repohost.unlink: Remove a link between an issue and an external issue or PR (id from repohost.listLinked). Nothing is written to the host.';
--! EndIncluded repohost/tools/unlink.sql
--! Included workspace/tools/updateSettings.sql
-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the in-app procedure's path (app_hidden.workspace_update_settings: OWNER/ADMIN with the ADMIN scope, else 403
-- admin_required / scope_required): changes the settings given, returns them as workspace.get shows them. A key
-- with any narrowing may not (403 narrowing): the settings rule every project, as webhooks see every event.
-- Settings are configuration (like repository mappings and dispatch rules): no event kind records them.
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  perform app_hidden.require_workspace_admin();
  if not app_hidden.key_unnarrowed() then
    raise exception 'Workspace settings apply to the whole workspace; changing them needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return app_hidden.workspace_json(app_hidden.workspace_update_settings(
    args->>'name', (args->>'cycleLengthDays')::int, (args->>'cycleCooldownDays')::int,
    (args->>'timeTrackingEnabled')::boolean, (args->>'attachmentQuotaMb')::int, (args->>'requiredAckSeconds')::int,
    (args->>'autoDispatch')::boolean, args->>'autoDispatchMode', (args->>'assignmentSlaMinutes')::int,
    (args->>'agentRunStaleMinutes')::int));
end
$$;
grant execute on function app_tools.workspace_update_settings(args jsonb) to svc_visitor;
comment on function app_tools.workspace_update_settings(args jsonb) is 'workspace.updateSettings: Change the workspace settings given (as workspace.get shows them; requiredAckSeconds, assignmentSlaMinutes 0 = off). OWNER/ADMIN with the ADMIN scope and no narrowing (else 403).';
--! EndIncluded workspace/tools/updateSettings.sql
--! Included agents/tools/workload.sql
-- The agents.workload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the dispatch view: the workspace's dispatch settings, the pool (queued, unassigned, open issues; next = the one
-- the dispatcher hands out first), and for every live (non-archived) agent by profileKey its presence, load against
-- maxConcurrent, open runs by status and its current run (the newest ACTIVE one, else the newest open one) with
-- the issue, mode and step. Issue and run figures count what the key can see (RLS: narrowing).
create or replace function app_tools.agents_workload(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws app_public.workspaces := (select w from app_public.workspaces w where w.id = app_hidden.current_workspace_id());
begin
  return jsonb_build_object(
    'generatedAt', now(),
    'autoDispatch', v_ws.auto_dispatch, 'autoDispatchMode', v_ws.auto_dispatch_mode,
    'pool', (select jsonb_build_object('queued', count(*),
                      'byPriority', jsonb_build_object(
                        'URGENT', count(*) filter (where i.priority = 'URGENT'), 'HIGH', count(*) filter (where i.priority = 'HIGH'),
                        'MEDIUM', count(*) filter (where i.priority = 'MEDIUM'), 'LOW', count(*) filter (where i.priority = 'LOW'),
                        'NONE', count(*) filter (where i.priority = 'NONE')),
                      -- The dispatcher's order: most urgent first, then the longest waiting.
                      'next', (array_agg(jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                                            'priority', i.priority)
                                         order by array_position(array['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'], i.priority),
                                                  i.created_at, i.id))[1])
             from app_public.issues i join app_public.statuses s on s.id = i.status_id
             where i.workspace_id = v_ws.id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
               and s.category not in ('DONE', 'CANCELED')),
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
               'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
               'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
               'capabilities', to_jsonb(a.capabilities),
               'maxConcurrent', a.max_concurrent, 'openAssigned', l.open_assigned,
               -- The dispatcher's rule (load = open assigned issues; maxConcurrent 0 = unlimited).
               'freeSlots', case when a.max_concurrent = 0 then null else greatest(a.max_concurrent - l.open_assigned, 0) end,
               'runs', jsonb_build_object('active', r.active, 'waiting', r.waiting, 'stalled', r.stalled),
               'currentRun', (select jsonb_build_object(
                                'id', cr.id, 'status', cr.status, 'engagementMode', cr.engagement_mode,
                                'currentStep', cr.current_step, 'startedAt', cr.started_at, 'lastEventAt', cr.last_event_at,
                                'issue', jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title))
                              from app_public.agent_runs cr join app_public.issues i on i.id = cr.issue_id
                              where cr.workspace_id = a.workspace_id and cr.agent_id = a.id
                                and cr.status in ('ACTIVE', 'WAITING', 'STALLED') and i.deleted_at is null
                              order by cr.status = 'ACTIVE' desc, cr.started_at desc, cr.id desc limit 1))
             order by a.profile_key)
      from app_public.agents a
      cross join lateral (
        select count(*) as open_assigned
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = a.workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')) l
      cross join lateral (
        select count(*) filter (where x.status = 'ACTIVE') as active,
               count(*) filter (where x.status = 'WAITING') as waiting,
               count(*) filter (where x.status = 'STALLED') as stalled
        from app_public.agent_runs x join app_public.issues i on i.id = x.issue_id and i.deleted_at is null
        where x.workspace_id = a.workspace_id and x.agent_id = a.id and x.status in ('ACTIVE', 'WAITING', 'STALLED')) r
      where a.workspace_id = v_ws.id and a.archived_at is null), '[]'));
end
$$;
grant execute on function app_tools.agents_workload(args jsonb) to svc_visitor;
comment on function app_tools.agents_workload(args jsonb) is 'agents.workload: Dispatch view: the queued pool (by priority, next out) and, per live agent, status, load (open assigned issues) vs maxConcurrent, open runs and current run (issue, mode, step). Counts what this key can see.';
--! EndIncluded agents/tools/workload.sql
--! Included labels/tools/merge.sql
-- The labels.merge tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- every issue carrying the label fromId (deleted issues too: they keep their labels) gets intoId, then fromId is
-- deleted as labels.delete deletes it (dispatch rules on it go with it). One ISSUE_UPDATED (labelIds) per issue
-- that carried fromId, by the issue_labels triggers. Not for narrowed keys (they would relabel issues they
-- cannot see).
create or replace function app_tools.labels_merge(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_from app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'fromId', 'fromId') and l.workspace_id = v_ws),
    'Label', 'fromId');
  v_into app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'intoId', 'intoId') and l.workspace_id = v_ws),
    'Label', 'intoId');
  v_carried int;
  v_added int;
begin
  if v_from.id = v_into.id then
    perform app_hidden.raise_invalid('intoId', 'must be another label than fromId');
  end if;
  perform app_hidden.require_issues_unrestricted('Merging labels');
  -- Both labels locked: a concurrent rename, delete or merge of either waits for this one.
  perform from app_public.labels l where l.id in (v_from.id, v_into.id) order by l.id for update;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select il.workspace_id, il.issue_id, v_into.id from app_public.issue_labels il
  where il.workspace_id = v_ws and il.label_id = v_from.id
  on conflict do nothing;
  get diagnostics v_added = row_count;
  delete from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id;
  get diagnostics v_carried = row_count;
  delete from app_public.labels l where l.id = v_from.id;
  return jsonb_build_object('ok', true, 'fromId', v_from.id, 'fromName', v_from.name,
                            'into', app_hidden.label_json(v_into), 'issueCount', v_carried, 'addedToIssues', v_added);
end
$$;
grant execute on function app_tools.labels_merge(args jsonb) to svc_visitor;
comment on function app_tools.labels_merge(args jsonb) is 'labels.merge: Merge label fromId into intoId: its issues get intoId, then fromId is deleted (as labels.delete). Returns the surviving label and issue counts. Keys narrowed to projects or labels may not.';
--! EndIncluded labels/tools/merge.sql
