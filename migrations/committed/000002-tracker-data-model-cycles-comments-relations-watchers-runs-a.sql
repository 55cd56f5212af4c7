--! Previous: sha1:28b799dfd74dd8f7757120dbdfa58e34ea6b11b8
--! Hash: sha1:7d5fd6e85ad3978659ae1b0aad98455368235755
--! Message: tracker data model: cycles, comments, relations, watchers, runs, attachments, pins, notes, time

--! split: 1-current.sql
-- Enter migration here

--! split: 10-tracker-tables.sql
-- The rest of the tracker's data model: cycles, comments, relations, watchers, agent runs,
-- attachments, pins, notes, time entries. Tool functions arrive in later migrations.

-- Events: one ISSUE_UPDATED per issue per transaction --------------------------------------
-- issues.update may change fields and labels in one call; each change would otherwise write its own
-- ISSUE_UPDATED. This merges the changed field names into the transaction's existing event.
create function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}')
returns void
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.xmin = xid(pg_current_xact_id())
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
comment on function app_private.record_issue_updated(uuid, uuid, text[], jsonb) is
  'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote: one event per issue per call.';

-- Issue field changes other than status/priority/assignment/queue/delete now go through the merge.
create or replace function app_private.tg_issues__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
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
  if new.title is distinct from old.title then v_changed := v_changed || 'title'; end if;
  if new.description is distinct from old.description then v_changed := v_changed || 'description'; end if;
  if new.project_id is distinct from old.project_id then v_changed := v_changed || 'projectId'; end if;
  if new.parent_id is distinct from old.parent_id then v_changed := v_changed || 'parentId'; end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := v_changed || 'cycleId'; end if;
  if new.due_date is distinct from old.due_date then v_changed := v_changed || 'dueDate'; end if;
  if new.estimate is distinct from old.estimate then v_changed := v_changed || 'estimate'; end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := v_changed || 'slaMinutes'; end if;
  if new.expected_output is distinct from old.expected_output then v_changed := v_changed || 'expectedOutput'; end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := v_changed || 'verificationChecklist'; end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := v_changed || 'artifactRequired'; end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := v_changed || 'claimedById'; end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := v_changed || 'queued'; end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := v_changed || 'assignedAgentId';
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed);
  end if;
  return null;
end
$$;

-- Cycles ------------------------------------------------------------------------------------

create table app_public.cycles (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  number int not null,
  name text not null check (length(name) between 1 and 200),
  starts_on date not null,
  ends_on date not null,
  status text not null default 'PLANNED' check (status in ('PLANNED', 'ACTIVE', 'COMPLETED', 'CANCELED')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (workspace_id, number),
  check (ends_on >= starts_on)
);
create unique index cycles_one_active on app_public.cycles (workspace_id) where status = 'ACTIVE';
create index cycles_dates_idx on app_public.cycles (workspace_id, starts_on);
comment on table app_public.cycles is 'A time-boxed iteration (shown as Sprint). At most one ACTIVE cycle per workspace: the current one.';
create trigger _100_updated_at before update on app_public.cycles
  for each row execute function app_hidden.tg__set_updated_at();

alter table app_public.issues add column cycle_id uuid;
alter table app_public.issues add foreign key (workspace_id, cycle_id) references app_public.cycles (workspace_id, id);
create index issues_cycle_idx on app_public.issues (workspace_id, cycle_id, number desc) where deleted_at is null;
comment on column app_public.issues.cycle_id is 'The cycle (sprint) the issue is planned in.';
grant update (cycle_id) on app_public.issues to svc_visitor;
grant insert (cycle_id) on app_public.issues to svc_visitor;

-- Comments ------------------------------------------------------------------------------------

create table app_public.comments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  issue_id uuid not null,
  body text not null check (length(body) between 1 and 100000),
  kind text not null default 'COMMENT' check (kind in ('COMMENT', 'STATUS', 'HANDOFF')),
  confidence text check (confidence in ('LOW', 'MEDIUM', 'HIGH')),
  author_user_id uuid references app_public.users on delete set null,
  authoring_agent_id uuid,
  run_id uuid,
  revisions jsonb not null default '[]' check (jsonb_typeof(revisions) = 'array' and jsonb_array_length(revisions) <= 20),
  edited_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, authoring_agent_id) references app_public.agents (workspace_id, id)
);
create index comments_issue_idx on app_public.comments (workspace_id, issue_id, created_at desc, id desc);
comment on table app_public.comments is 'Comments on issues. Deletion is soft (kept for audit, hidden from lists and bundles). Previous bodies in revisions (at most 20, oldest dropped).';
comment on column app_public.comments.kind is 'COMMENT; STATUS = the rolling status comment of an agent run (comments.upsertStatus); HANDOFF = written by issues.reassign.';
comment on column app_public.comments.confidence is 'LOW/MEDIUM/HIGH, persisted whoever the author; rendered only for agent-authored comments.';
create trigger _100_updated_at before update on app_public.comments
  for each row execute function app_hidden.tg__set_updated_at();

-- Relations -----------------------------------------------------------------------------------

create table app_public.issue_relations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  from_issue_id uuid not null,
  to_issue_id uuid not null,
  kind text not null check (kind in ('BLOCKS', 'DUPLICATES', 'RELATES_TO')),
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  foreign key (workspace_id, from_issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, to_issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  check (from_issue_id <> to_issue_id),
  unique (from_issue_id, to_issue_id, kind)
);
create unique index issue_relations_relates_once on app_public.issue_relations
  (least(from_issue_id, to_issue_id), greatest(from_issue_id, to_issue_id)) where kind = 'RELATES_TO';
create index issue_relations_to_idx on app_public.issue_relations (workspace_id, to_issue_id);
create index issue_relations_from_idx on app_public.issue_relations (workspace_id, from_issue_id);
comment on table app_public.issue_relations is 'Directed links between issues. BLOCKED_BY is stored as the reverse BLOCKS (A BLOCKED_BY B = B BLOCKS A), so each fact has one row; RELATES_TO is symmetric and stored once.';

-- Watchers ------------------------------------------------------------------------------------

create table app_public.issue_watchers (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  issue_id uuid not null,
  user_id uuid references app_public.users on delete cascade,
  agent_id uuid,
  created_at timestamptz not null default now(),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, agent_id) references app_public.agents (workspace_id, id) on delete cascade,
  check ((user_id is null) <> (agent_id is null))
);
create unique index issue_watchers_user_key on app_public.issue_watchers (issue_id, user_id) where user_id is not null;
create unique index issue_watchers_agent_key on app_public.issue_watchers (issue_id, agent_id) where agent_id is not null;
create index issue_watchers_user_idx on app_public.issue_watchers (workspace_id, user_id);
create index issue_watchers_agent_idx on app_public.issue_watchers (workspace_id, agent_id);
comment on table app_public.issue_watchers is 'Who watches an issue: an agent (agent-linked keys) or a user.';

-- Agent runs ----------------------------------------------------------------------------------

create table app_public.agent_runs (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  agent_id uuid not null,
  issue_id uuid not null,
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'WAITING', 'STALLED', 'COMPLETED', 'ABANDONED')),
  engagement_mode text not null default 'EXECUTE' check (engagement_mode in ('EXECUTE', 'RESEARCH', 'REVIEW', 'DISCUSS')),
  current_step text,
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  last_event_at timestamptz not null default now(),
  tokens_in bigint not null default 0,
  tokens_out bigint not null default 0,
  tokens_cached bigint not null default 0,
  cost_usd numeric not null default 0,
  control_state text,
  completion_meta jsonb,
  unique (workspace_id, id),
  foreign key (workspace_id, agent_id) references app_public.agents (workspace_id, id) on delete cascade,
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade
);
create index agent_runs_issue_idx on app_public.agent_runs (workspace_id, issue_id, started_at desc);
create index agent_runs_agent_idx on app_public.agent_runs (workspace_id, agent_id, started_at desc);
create index agent_runs_open_idx on app_public.agent_runs (workspace_id, status) where status in ('ACTIVE', 'WAITING');
comment on table app_public.agent_runs is 'An agent''s engagement on an issue. Assigning an agent opens an ACTIVE run and abandons the previous agent''s open run. The current run of an issue is its newest run neither COMPLETED nor ABANDONED.';

-- Attachments ---------------------------------------------------------------------------------

create table app_public.attachments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  kind text not null check (kind in ('FILE', 'LINK')),
  target_type text not null check (target_type in ('issue', 'initiative', 'cycle', 'comment')),
  target_id uuid not null,
  external_url text check (external_url ~ '^https?://'),
  link_title text,
  filename text,
  mime_type text not null,
  size_bytes bigint not null default 0 check (size_bytes >= 0),
  storage_key text,
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  check (kind <> 'LINK' or external_url is not null)
);
create index attachments_target_idx on app_public.attachments (workspace_id, target_type, target_id, created_at);
comment on table app_public.attachments is 'Files and links attached to issues, initiatives, cycles or comments. LINK rows: mimeType text/url, size 0.';

-- Personal records: pins, notes, time ------------------------------------------------------------

create table app_public.pins (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  user_id uuid not null references app_public.users on delete cascade,
  target_type text not null check (target_type in ('ISSUE', 'PROJECT', 'INITIATIVE', 'SAVED_VIEW', 'CYCLE', 'AGENT')),
  target_id uuid not null,
  position int not null default 0,
  created_at timestamptz not null default now(),
  unique (workspace_id, user_id, target_type, target_id)
);
comment on table app_public.pins is 'A user''s pinned items. MCP pins.* handle issue pins; other target types are in-app only.';

create table app_public.notes (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  user_id uuid not null references app_public.users on delete cascade,
  title text check (length(title) <= 500),
  body text not null default '' check (length(body) <= 200000),
  pinned boolean not null default false,
  kind text not null default 'NOTE' check (kind in ('NOTE', 'JOURNAL')),
  journal_date date,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (kind <> 'JOURNAL' or journal_date is not null)
);
create unique index notes_one_journal_per_day on app_public.notes (workspace_id, user_id, journal_date) where kind = 'JOURNAL';
create index notes_owner_idx on app_public.notes (workspace_id, user_id, updated_at desc);
comment on table app_public.notes is 'A user''s private markdown notes and daily journal in a workspace. Only the owner sees them.';
create trigger _100_updated_at before update on app_public.notes
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.time_entries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  issue_id uuid not null,
  user_id uuid not null references app_public.users on delete cascade,
  started_at timestamptz,
  ended_at timestamptz,
  duration_min int check (duration_min >= 0),
  note text,
  created_at timestamptz not null default now(),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  check (duration_min is not null or (started_at is not null and ended_at is null))
);
create unique index time_entries_one_running on app_public.time_entries (workspace_id, user_id) where duration_min is null;
create index time_entries_issue_idx on app_public.time_entries (workspace_id, issue_id);
create index time_entries_user_idx on app_public.time_entries (workspace_id, user_id, created_at desc);
comment on table app_public.time_entries is 'Time spent on issues: a running timer (duration_min null) or a finished/logged entry. One running timer per user per workspace.';

-- Row-level security ------------------------------------------------------------------------------

alter table app_public.cycles enable row level security;
alter table app_public.cycles force row level security;
create policy select_in_workspace on app_public.cycles for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
create policy insert_in_workspace on app_public.cycles for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id()));
create policy update_in_workspace on app_public.cycles for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.cycles is 'Cycles of the caller''s workspace.';
comment on policy insert_in_workspace on app_public.cycles is 'Create cycles in the caller''s workspace.';
comment on policy update_in_workspace on app_public.cycles is 'Update cycles of the caller''s workspace.';
grant select, insert (workspace_id, number, name, starts_on, ends_on, status), update (name, starts_on, ends_on, status)
  on app_public.cycles to svc_visitor;

alter table app_public.comments enable row level security;
alter table app_public.comments force row level security;
create policy select_on_visible_issues on app_public.comments for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = comments.issue_id)));
create policy insert_on_visible_issues on app_public.comments for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and exists (select 1 from app_public.issues i where i.id = comments.issue_id));
create policy update_on_visible_issues on app_public.comments for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and exists (select 1 from app_public.issues i where i.id = comments.issue_id));
comment on policy select_on_visible_issues on app_public.comments is 'Comments on issues the caller can see (issue narrowing applies).';
comment on policy insert_on_visible_issues on app_public.comments is 'Comment on issues the caller can see.';
comment on policy update_on_visible_issues on app_public.comments is 'Edit/soft-delete comments on visible issues; authorship is checked by comments.update/delete.';
grant select, insert (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id),
  update (body, confidence, revisions, edited_at, deleted_at) on app_public.comments to svc_visitor;

alter table app_public.issue_relations enable row level security;
alter table app_public.issue_relations force row level security;
create policy select_between_visible_issues on app_public.issue_relations for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or (exists (select 1 from app_public.issues i where i.id = issue_relations.from_issue_id)
                  and exists (select 1 from app_public.issues i where i.id = issue_relations.to_issue_id))));
create policy insert_between_visible_issues on app_public.issue_relations for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and exists (select 1 from app_public.issues i where i.id = issue_relations.from_issue_id)
              and exists (select 1 from app_public.issues i where i.id = issue_relations.to_issue_id));
create policy delete_between_visible_issues on app_public.issue_relations for delete to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and exists (select 1 from app_public.issues i where i.id = issue_relations.from_issue_id)
         and exists (select 1 from app_public.issues i where i.id = issue_relations.to_issue_id));
comment on policy select_between_visible_issues on app_public.issue_relations is 'Relations whose both ends the caller can see.';
comment on policy insert_between_visible_issues on app_public.issue_relations is 'Link two issues the caller can see.';
comment on policy delete_between_visible_issues on app_public.issue_relations is 'Unlink two issues the caller can see.';
grant select, insert (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id), delete
  on app_public.issue_relations to svc_visitor;

alter table app_public.issue_watchers enable row level security;
alter table app_public.issue_watchers force row level security;
create policy select_on_visible_issues on app_public.issue_watchers for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and exists (select 1 from app_public.issues i where i.id = issue_watchers.issue_id));
create policy insert_own_watch on app_public.issue_watchers for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and exists (select 1 from app_public.issues i where i.id = issue_watchers.issue_id)
              and (agent_id = (select app_hidden.current_agent_id())
                   or (agent_id is null and user_id = (select app_hidden.current_user_id()))));
create policy delete_own_watch on app_public.issue_watchers for delete to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and (agent_id = (select app_hidden.current_agent_id())
              or (agent_id is null and user_id = (select app_hidden.current_user_id()))));
comment on policy select_on_visible_issues on app_public.issue_watchers is 'Watchers of issues the caller can see.';
comment on policy insert_own_watch on app_public.issue_watchers is 'A key watches as its linked agent, or else as its user; never on someone else''s behalf.';
comment on policy delete_own_watch on app_public.issue_watchers is 'A key removes only its own watch.';
grant select, insert (workspace_id, issue_id, user_id, agent_id), delete on app_public.issue_watchers to svc_visitor;

alter table app_public.agent_runs enable row level security;
alter table app_public.agent_runs force row level security;
create policy select_on_visible_issues on app_public.agent_runs for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = agent_runs.issue_id)));
create policy insert_on_visible_issues on app_public.agent_runs for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and exists (select 1 from app_public.issues i where i.id = agent_runs.issue_id));
create policy update_on_visible_issues on app_public.agent_runs for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and exists (select 1 from app_public.issues i where i.id = agent_runs.issue_id));
comment on policy select_on_visible_issues on app_public.agent_runs is 'Runs on issues the caller can see.';
comment on policy insert_on_visible_issues on app_public.agent_runs is 'Open runs on visible issues (assignment opens them).';
comment on policy update_on_visible_issues on app_public.agent_runs is 'Move runs on visible issues; the run tools check the agent link.';
grant select, insert (workspace_id, agent_id, issue_id, status, engagement_mode),
  update (status, engagement_mode, current_step, finished_at, last_event_at, tokens_in, tokens_out, tokens_cached, cost_usd, control_state, completion_meta)
  on app_public.agent_runs to svc_visitor;

alter table app_public.attachments enable row level security;
alter table app_public.attachments force row level security;
create policy select_in_workspace on app_public.attachments for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and (target_type <> 'issue' or (select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = attachments.target_id)));
comment on policy select_in_workspace on app_public.attachments is 'Attachments of the caller''s workspace; on issues only when the issue is visible.';
grant select on app_public.attachments to svc_visitor;

alter table app_public.pins enable row level security;
alter table app_public.pins force row level security;
create policy manage_own_pins on app_public.pins for all to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()))
  with check (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()));
comment on policy manage_own_pins on app_public.pins is 'Pins are personal: a user sees and changes only their own.';
grant select, insert (workspace_id, user_id, target_type, target_id, position), update (position), delete on app_public.pins to svc_visitor;

alter table app_public.notes enable row level security;
alter table app_public.notes force row level security;
create policy manage_own_notes on app_public.notes for all to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()))
  with check (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()));
comment on policy manage_own_notes on app_public.notes is 'Notes are private: only their owner sees or changes them (another user''s note is "Note not found").';
grant select, insert (workspace_id, user_id, title, body, pinned, kind, journal_date),
  update (title, body, pinned, archived_at) on app_public.notes to svc_visitor;

alter table app_public.time_entries enable row level security;
alter table app_public.time_entries force row level security;
create policy select_on_visible_issues on app_public.time_entries for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = time_entries.issue_id)));
create policy insert_own_time on app_public.time_entries for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id())
              and exists (select 1 from app_public.issues i where i.id = time_entries.issue_id));
create policy update_own_time on app_public.time_entries for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()));
comment on policy select_on_visible_issues on app_public.time_entries is 'Time logged on issues the caller can see (everyone''s, for summaries).';
comment on policy insert_own_time on app_public.time_entries is 'A user logs and starts timers only as themselves.';
comment on policy update_own_time on app_public.time_entries is 'A user stops only their own timers.';
grant select, insert (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note),
  update (ended_at, duration_min, note) on app_public.time_entries to svc_visitor;

-- The request role may now manage labels, projects and initiatives (tools check scopes).
create policy insert_in_workspace on app_public.labels for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id()));
create policy update_in_workspace on app_public.labels for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
create policy delete_in_workspace on app_public.labels for delete to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy insert_in_workspace on app_public.labels is 'Create labels in the caller''s workspace.';
comment on policy update_in_workspace on app_public.labels is 'Rename/recolor labels of the caller''s workspace.';
comment on policy delete_in_workspace on app_public.labels is 'Delete labels of the caller''s workspace (they come off every issue).';
grant insert (workspace_id, name, color, description), update (name, color, description), delete on app_public.labels to svc_visitor;

create policy insert_in_workspace on app_public.projects for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and cardinality((select app_hidden.narrowed_project_ids())) = 0);
create policy update_visible on app_public.projects for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select cardinality(app_hidden.narrowed_project_ids())) = 0
              or id = any((select app_hidden.narrowed_project_ids())::uuid[])));
comment on policy insert_in_workspace on app_public.projects is 'Create projects in the caller''s workspace; a project-narrowed key cannot widen its own reach.';
comment on policy update_visible on app_public.projects is 'Update projects the caller can see.';
grant insert (workspace_id, name, description, initiative_id), update (name, description, initiative_id, archived_at)
  on app_public.projects to svc_visitor;

create policy insert_in_workspace on app_public.initiatives for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and cardinality((select app_hidden.narrowed_initiative_ids())) = 0);
create policy update_visible on app_public.initiatives for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select cardinality(app_hidden.narrowed_initiative_ids())) = 0
              or id = any((select app_hidden.narrowed_initiative_ids())::uuid[])));
comment on policy insert_in_workspace on app_public.initiatives is 'Create initiatives; an initiative-narrowed key cannot widen its own reach.';
comment on policy update_visible on app_public.initiatives is 'Update initiatives the caller can see.';
grant insert (workspace_id, name, description), update (name, description, archived_at) on app_public.initiatives to svc_visitor;

-- Owner access ------------------------------------------------------------------------------------
create policy owner_all on app_public.cycles to current_user using (true) with check (true);
create policy owner_all on app_public.comments to current_user using (true) with check (true);
create policy owner_all on app_public.issue_relations to current_user using (true) with check (true);
create policy owner_all on app_public.issue_watchers to current_user using (true) with check (true);
create policy owner_all on app_public.agent_runs to current_user using (true) with check (true);
create policy owner_all on app_public.attachments to current_user using (true) with check (true);
create policy owner_all on app_public.pins to current_user using (true) with check (true);
create policy owner_all on app_public.notes to current_user using (true) with check (true);
create policy owner_all on app_public.time_entries to current_user using (true) with check (true);
comment on policy owner_all on app_public.cycles is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.comments is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.issue_relations is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.issue_watchers is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.agent_runs is 'The schema owner (watchdogs, dispatcher) works on every row.';
comment on policy owner_all on app_public.attachments is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.pins is 'The schema owner (operator) works on every row.';
comment on policy owner_all on app_public.notes is 'The schema owner (operator) works on every row.';
comment on policy owner_all on app_public.time_entries is 'The schema owner (operator) works on every row.';

-- Events for the new tables -------------------------------------------------------------------------

create function app_private.tg_comments__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
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
create trigger _800_events after insert or update on app_public.comments
  for each row execute function app_private.tg_comments__events();

create function app_private.tg_projects__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'PROJECT_CREATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id));
  elsif (new.name, new.description, new.initiative_id, new.archived_at)
        is distinct from (old.name, old.description, old.initiative_id, old.archived_at) then
    perform app_private.record_event(new.workspace_id, 'PROJECT_UPDATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id,
                         'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_projects__events() is 'PROJECT_CREATED; PROJECT_UPDATED on edit, initiative link/unlink or archive.';
create trigger _800_events after insert or update on app_public.projects
  for each row execute function app_private.tg_projects__events();

-- Label and relation changes are changes to the issue: ISSUE_UPDATED (merged per issue per transaction).
-- Labels attached while the issue is being created belong to its ISSUE_CREATED.
create function app_private.tg_issue_labels__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if exists (select 1 from app_public.activity_events e
             where e.workspace_id = v_row.workspace_id and e.subject_type = 'issue' and e.subject_id = v_row.issue_id
               and e.kind = 'ISSUE_CREATED' and e.xmin = xid(pg_current_xact_id())) then
    return null;
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue.';
create trigger _800_events after insert or delete on app_public.issue_labels
  for each row execute function app_private.tg_issue_labels__events();

create function app_private.tg_issue_relations__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_row app_public.issue_relations := case when tg_op = 'DELETE' then old else new end;
begin
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.from_issue_id, array['relations']);
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.to_issue_id, array['relations']);
  return null;
end
$$;
comment on function app_private.tg_issue_relations__events() is 'ISSUE_UPDATED (changes relations) on both issues when a relation is added or removed.';
create trigger _800_events after insert or delete on app_public.issue_relations
  for each row execute function app_private.tg_issue_relations__events();

-- Comment events of a narrowed key follow the comment's issue.
drop policy select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or (subject_type <> 'issue' and subject_type <> 'comment')
              or (subject_type = 'issue' and exists (select 1 from app_public.issues i where i.id = activity_events.subject_id))
              or (subject_type = 'comment' and exists (select 1 from app_public.comments c where c.id = activity_events.subject_id))));
comment on policy select_in_workspace on app_public.activity_events is
  'Events of the caller''s workspace; for a narrowed key, issue and comment events only of issues it can see.';

-- Issue shape gains cycleId.
create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id),
    'projectId', i.project_id,
    'project', (select jsonb_build_object('id', p.id, 'name', p.name)
                from app_public.projects p where p.id = i.project_id),
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
                      from app_public.agents a where a.id = i.assigned_agent_id),
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', i.parent_id, 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce((select jsonb_agg(il.label_id order by il.created_at, il.label_id)
                          from app_public.issue_labels il where il.issue_id = i.id), '[]'),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_full then jsonb_build_object(
    'description', i.description,
    'labels', coalesce((select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                         order by il.created_at, l.id)
                        from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                        where il.issue_id = i.id), '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
  else '{}'::jsonb end
$$;
