--! Previous: sha1:b2e88e499873955470156836dbc8d1371923cfb1
--! Hash: sha1:127326b8d9fb1c4742b233a3912e4c4960b17713
--! Message: Review of the catalog's completion: no hidden parent id in a child's events (detachments kept privately), status and label-merge writes without deadlocks, canvas.update without lost updates, webhook and status event payloads without host, filter or hidden counts, LABEL_* events, unknown ?tools= entries refused, smaller races and conventions

--! split: 1-current.sql
-- Review of the catalog's completion.
-- issues.restore reattached sub-issues by reading a detachedFromParentId its deletion wrote into each child's
-- ISSUE_UPDATED: a key narrowed to see the child but not the parent read the parent's id there, and a restore
-- scanned the workspace's events since the deletion. The detachments are now kept in a private table.
create table if not exists app_private.issue_detachments (
  workspace_id uuid not null references app_public.workspaces(id) on delete cascade,
  parent_id uuid not null references app_public.issues(id) on delete cascade,
  child_id uuid not null references app_public.issues(id) on delete cascade,
  detached_at timestamptz not null default now(),
  primary key (parent_id, child_id)
);
create index if not exists issue_detachments_child_idx on app_private.issue_detachments (child_id);
comment on table app_private.issue_detachments is
  'Sub-issues a soft delete made top-level, by parent: issues.restore reattaches those still live and top-level. A child''s row goes when its parentId changes again.';
alter table app_private.issue_detachments enable row level security;
alter table app_private.issue_detachments force row level security;
revoke all on app_private.issue_detachments from public;
--! Included issues/policies.sql
-- Row-level security policies of the issues tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_in_workspace on app_public.issue_labels;
create policy delete_in_workspace on app_public.issue_labels for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_in_workspace on app_public.issue_labels is 'Unlabel issues of the caller''s workspace.';

drop policy if exists insert_in_workspace on app_public.issue_labels;
create policy insert_in_workspace on app_public.issue_labels for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.issue_labels is 'Label issues of the caller''s workspace.';

drop policy if exists owner_all on app_public.issue_labels;
create policy owner_all on app_public.issue_labels for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issue_labels is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.issue_labels;
create policy select_in_workspace on app_public.issue_labels for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_labels.issue_id))))));
comment on policy select_in_workspace on app_public.issue_labels is 'Labels on issues the caller can see (narrowing applies).';

drop policy if exists delete_own_watch on app_public.issue_watchers;
create policy delete_own_watch on app_public.issue_watchers for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
comment on policy delete_own_watch on app_public.issue_watchers is 'A key removes only its own watch.';

drop policy if exists insert_own_watch on app_public.issue_watchers;
create policy insert_own_watch on app_public.issue_watchers for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id))) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
comment on policy insert_own_watch on app_public.issue_watchers is 'A key watches as its linked agent, or else as its user; never on someone else''s behalf.';

drop policy if exists owner_all on app_public.issue_watchers;
create policy owner_all on app_public.issue_watchers for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issue_watchers is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_on_visible_issues on app_public.issue_watchers;
create policy select_on_visible_issues on app_public.issue_watchers for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id)))));
comment on policy select_on_visible_issues on app_public.issue_watchers is 'Watchers of issues the caller can see.';

drop policy if exists insert_in_workspace on app_public.issues;
create policy insert_in_workspace on app_public.issues for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (project_id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])) OR (cardinality(( SELECT app_hidden.narrowed_label_ids() AS narrowed_label_ids)) > 0))));
comment on policy insert_in_workspace on app_public.issues is 'Create issues in the caller''s workspace; a project-narrowed key only inside its projects (label-narrowed keys are checked once labels are set).';

drop policy if exists owner_all on app_public.issues;
create policy owner_all on app_public.issues for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issues is 'The schema owner (operator, worker, dispatcher) works on every row.';

drop policy if exists select_in_workspace on app_public.issues;
create policy select_in_workspace on app_public.issues for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id))));
comment on policy select_in_workspace on app_public.issues is 'Issues of the caller''s workspace; a narrowed key sees only issues in its projects or carrying its labels.';

drop policy if exists update_in_workspace on app_public.issues;
create policy update_in_workspace on app_public.issues for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.issues is 'Update issues the caller can see.';

drop policy if exists owner_all on app_private.issue_detachments;
create policy owner_all on app_private.issue_detachments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.issue_detachments is 'Only the schema owner (the issues triggers, security definer) reads and writes detachments.';
--! EndIncluded issues/policies.sql
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
  if new.parent_id is distinct from old.parent_id then
    v_changed := array_append(v_changed, 'parentId');
    -- A sub-issue given a parent (or cleared) after its parent's deletion is not reattached by a restore.
    delete from app_private.issue_detachments d where d.child_id = new.id;
  end if;
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
declare v_children uuid[];
begin
  -- Every live child, also those the deleting key cannot see (narrowing): a deleted issue is 404 everywhere,
  -- so nothing may keep pointing at it. Each child writes ISSUE_UPDATED (changes parentId) through _800_events,
  -- whose own bookkeeping runs at the end of this statement (it forgets older detachments of the child).
  with detached as (
    update app_public.issues c set parent_id = null
    where c.workspace_id = new.workspace_id and c.parent_id = new.id and c.deleted_at is null
    returning c.id)
  select array_agg(id) into v_children from detached;
  -- Remembered privately (never in an event: a key may see the child but not the parent), for issues.restore.
  insert into app_private.issue_detachments (workspace_id, parent_id, child_id)
  select new.workspace_id, new.id, child from unnest(v_children) child
  on conflict do nothing;
  return null;
end
$$;
comment on function app_private.tg_issues__detach_children() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: its live sub-issues (all of them, whatever the key''s narrowing) become top-level (parentId null), each with the ISSUE_UPDATED (changes parentId) an update of parentId writes, and app_private.issue_detachments remembers them for issues.restore.';

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
  -- The sub-issues its deletion detached (app_private.issue_detachments) come back, all of them as the deletion
  -- took all of them, unless they moved since: deleted, or their parentId changed after the detachment (that
  -- forgot the detachment, tg_issues__events); and never into a cycle. Each writes ISSUE_UPDATED (changes
  -- parentId) through _800_events.
  update app_public.issues c set parent_id = new.id
  from app_private.issue_detachments d
  where d.parent_id = new.id and c.id = d.child_id and c.workspace_id = new.workspace_id
    and c.parent_id is null and c.deleted_at is null
    and not app_hidden.issue_has_ancestor(new.id, c.id);
  delete from app_private.issue_detachments d where d.parent_id = new.id;
  return null;
end
$$;
comment on function app_private.tg_issues__restore_links() is 'AFTER UPDATE OF deleted_at on issues, when a deleted issue is restored (issues.restore): a parent deleted meanwhile is cleared, and the sub-issues its deletion detached (app_private.issue_detachments) that are still live, top-level and untouched since are reattached, whatever the key''s narrowing (as the deletion detached them), never into a cycle; each with the ISSUE_UPDATED (changes parentId) an update of parentId writes.';

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
--! Included core/caller.sql
-- Who is calling: the request context (transaction-local svc.* settings) and the checks built on it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.caller_may_moderate()
 returns boolean
 language sql
 stable
as $$
  -- Roles, not scopes (spec 2.8): keys are FULL by default, so a scope test would make every member a moderator.
  select app_hidden.current_agent_id() is null
     and exists (select 1 from app_public.memberships m
                 where m.workspace_id = app_hidden.current_workspace_id()
                   and m.user_id = app_hidden.current_user_id()
                   and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.caller_may_moderate() is 'True for a key acting as a person (no linked agent) whose user is workspace OWNER or ADMIN (a membership role; the ADMIN scope alone does not moderate). Used to override authorship (comments.update/delete) and another user''s claim (issues.release).';
grant execute on function app_hidden.caller_may_moderate() to svc_visitor;

create or replace function app_hidden.caller_role()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select m.role
  from app_private.api_keys k
  join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_role() is 'Workspace role (OWNER, ADMIN, MEMBER) of the calling key''s own user; NULL for plugin keys. Used by policies on admin-managed tables.';
grant execute on function app_hidden.caller_role() to svc_visitor;

create or replace function app_hidden.current_agent_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.agent_id', true), '')::uuid $$;
comment on function app_hidden.current_agent_id() is 'Agent linked to the calling key (linkedAgentId), if any.';
grant execute on function app_hidden.current_agent_id() to svc_visitor;

create or replace function app_hidden.current_key_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.key_id', true), '')::uuid $$;
comment on function app_hidden.current_key_id() is 'The calling API key.';
grant execute on function app_hidden.current_key_id() to svc_visitor;

create or replace function app_hidden.current_key_user_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is 'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';
grant execute on function app_hidden.current_key_user_id() to svc_visitor;

create or replace function app_hidden.current_scopes()
 returns text[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.scopes', true), '')::text[], '{}') $$;
comment on function app_hidden.current_scopes() is 'Scopes of the calling key; FULL holds every scope.';
grant execute on function app_hidden.current_scopes() to svc_visitor;

create or replace function app_hidden.current_user_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.user_id', true), '')::uuid $$;
comment on function app_hidden.current_user_id() is 'User owning the calling key (NULL for plugin keys with no user).';
grant execute on function app_hidden.current_user_id() to svc_visitor;

create or replace function app_hidden.current_workspace_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.workspace_id', true), '')::uuid $$;
comment on function app_hidden.current_workspace_id() is 'Workspace of the calling key (svc.workspace_id). NULL outside a request: every policy then denies.';
grant execute on function app_hidden.current_workspace_id() to svc_visitor;

create or replace function app_hidden.has_scope(p_scope text)
 returns boolean
 language sql
 stable parallel safe
as $$
    select p_scope = any(app_hidden.current_scopes()) or 'FULL' = any(app_hidden.current_scopes())
  $$;
comment on function app_hidden.has_scope(p_scope text) is 'True when the calling key holds the scope (or FULL).';
grant execute on function app_hidden.has_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.is_workspace_admin()
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_hidden.has_scope('ADMIN') and exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is 'True when the calling key holds ADMIN and its own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';
grant execute on function app_hidden.is_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_key_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';
grant execute on function app_hidden.require_key_user() to svc_visitor;

create or replace function app_hidden.require_scope(p_scope text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.has_scope(p_scope) then
    raise exception 'scope % required', p_scope using errcode = 'SVSCP', hint = p_scope;
  end if;
end
$$;
comment on function app_hidden.require_scope(p_scope text) is 'Raises SVSCP (HTTP 403 scope_required) unless the calling key holds the scope.';
grant execute on function app_hidden.require_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.require_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user' using errcode = 'SV403', detail = 'user_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_user() is 'The calling key''s user (personal records: notes, pins, time); 403 user_required for a key without one.';
grant execute on function app_hidden.require_user() to svc_visitor;

create or replace function app_hidden.require_workspace_admin()
 returns void
 language sql
 stable
as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';
grant execute on function app_hidden.require_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_unnarrowed_admin(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  -- Settings of the whole workspace (webhooks, the workflow, its settings): a key narrowed to some projects,
  -- labels or initiatives may not change them, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception '%; changing them needs a key without project, label or initiative narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_unnarrowed_admin(p_what text) is 'Raises 403 admin_required / scope_required as require_workspace_admin, and 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing. For what rules the whole workspace: webhooks, statuses, settings.';
grant execute on function app_hidden.require_unnarrowed_admin(p_what text) to svc_visitor;

create or replace function app_hidden.require_workspace_admin_key()
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';
grant execute on function app_hidden.require_workspace_admin_key() to svc_visitor;

create or replace function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_key app_private.api_keys;
begin
  -- The API authenticates from a short-lived cache; this check in the call's own statement makes
  -- revocation and expiry exact (a revoked key fails on its very next call).
  select * into v_key from app_private.api_keys where id = p_key_id;
  if v_key.id is null or v_key.workspace_id is distinct from p_workspace_id then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  perform
    set_config('svc.workspace_id', p_workspace_id::text, true),
    set_config('svc.user_id', coalesce(p_user_id::text, ''), true),
    set_config('svc.key_id', p_key_id::text, true),
    set_config('svc.agent_id', coalesce(p_agent_id::text, ''), true),
    set_config('svc.scopes', coalesce(p_scopes, '{}')::text, true),
    set_config('svc.project_ids', coalesce(p_project_ids, '{}')::text, true),
    set_config('svc.label_ids', coalesce(p_label_ids, '{}')::text, true),
    set_config('svc.initiative_ids', coalesce(p_initiative_ids, '{}')::text, true);
end
$$;
comment on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Checks the key is still live (401 revoked/expired otherwise) and writes the caller identity into transaction-local settings. The API calls it in the same statement as the tool function.';
grant execute on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) to svc_visitor;

create or replace function app_private.current_caller()
 returns app_private.caller
 language plpgsql
 stable
as $$
declare
  v_key app_private.api_keys;
  v_caller app_private.caller;
begin
  select * into v_key from app_private.api_keys where id = app_hidden.current_key_id();
  if v_key.id is null or v_key.workspace_id is distinct from app_hidden.current_workspace_id() then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  v_caller.key_id := v_key.id;
  v_caller.workspace_id := v_key.workspace_id;
  v_caller.user_id := v_key.user_id;
  v_caller.kind := v_key.kind;
  v_caller.plugin_id := v_key.plugin_id;
  v_caller.scopes := v_key.scopes;
  v_caller.project_ids := v_key.project_ids;
  v_caller.label_ids := v_key.label_ids;
  v_caller.initiative_ids := v_key.initiative_ids;
  v_caller.expires_at := v_key.expires_at;
  v_caller.role := (select m.role from app_public.memberships m
                    where m.workspace_id = v_key.workspace_id and m.user_id = v_key.user_id);
  return v_caller;
end
$$;
comment on function app_private.current_caller() is 'The calling key (svc.key_id), re-read and re-checked (401 when revoked/expired/foreign), with its own user''s workspace role.';

create or replace function app_private.require_admin(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_caller.role is null or p_caller.role not in ('OWNER', 'ADMIN') then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
  if not ('ADMIN' = any(p_caller.scopes) or 'FULL' = any(p_caller.scopes)) then
    raise exception 'scope ADMIN required' using errcode = 'SVSCP', hint = 'ADMIN';
  end if;
end
$$;
comment on function app_private.require_admin(p_caller app_private.caller) is 'Workspace administration: the key''s user is OWNER or ADMIN (else 403 admin_required) and the key holds ADMIN (else 403 scope_required).';
--! EndIncluded core/caller.sql
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
  -- The statuses are every member's board, and deleting one moves issues a narrowed key cannot see.
  perform app_hidden.require_unnarrowed_admin('The workflow''s statuses belong to the whole workspace');
  -- One workflow change at a time per workspace: the checks (last DONE status, the default, names) read the whole
  -- set. An advisory lock, not row locks on every status: those would block every issue write of the workspace
  -- (its foreign key takes KEY SHARE on a status) and deadlock against an issue moving while a status is deleted.
  perform pg_advisory_xact_lock(hashtextextended('svc.statuses:' || v_ws::text, 0));
  return v_ws;
end
$$;
comment on function app_hidden.require_workflow_admin() is 'Every statuses.* write starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), a key without narrowing (403 narrowing); serialises the workspace''s status writes for the transaction (advisory lock). Returns the workspace id.';
grant execute on function app_hidden.require_workflow_admin() to svc_visitor;
--! EndIncluded statuses/statuses.sql
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
  -- Only this status is row-locked: no issue can enter it until the delete commits (their foreign key waits).
  perform from app_public.statuses s where s.id = v_status.id for update;
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
  -- No count in the event: every key reads it, and a narrowed one must not learn how many issues it cannot see.
  perform app_hidden.record_status_event('STATUS_DELETED', v_status, jsonb_build_object('movedIssuesTo', v_to.id));
  return jsonb_build_object('ok', true, 'id', v_status.id, 'movedIssues', v_moved, 'movedIssuesTo', v_to.id);
end
$$;
comment on function app_tools.statuses_delete(args jsonb) is 'statuses.delete: OWNER/ADMIN, unnarrowed key: delete a status, its issues moving to moveIssuesTo (required if it has any). Not the default nor the last DONE status.';
grant execute on function app_tools.statuses_delete(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/delete.sql
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
    -- not stamped, the dispatcher not told): only an empty status changes category. Row-locked first, so no
    -- issue enters it before this commits.
    perform from app_public.statuses s where s.id = v_old.id for update;
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
-- WEBHOOK_* events carry no host nor event filter (every key reads them; webhooks are for admins), and
-- STATUS_DELETED no count of moved issues (a narrowed key must not learn how many it cannot see).
drop function if exists app_hidden.webhook_host(text);
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
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (webhookId and active only).';
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
  -- A change that changes nothing records nothing. The event names what changed, never the values.
  if cardinality(v_changes) > 0 then
    perform app_hidden.record_event('WEBHOOK_UPDATED', 'webhook', v_new.id, app_hidden.webhook_event_payload(v_new)
      || jsonb_build_object('changes', to_jsonb(v_changes)));
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
  -- Both labels locked, in id order: a concurrent rename, delete or merge of either waits for this one. `into`
  -- only FOR NO KEY UPDATE: labelling an issue with it takes KEY SHARE on it while holding the issue's row, and
  -- this merge then waits for that issue (a FOR UPDATE here deadlocked them).
  if v_from.id < v_into.id then
    perform from app_public.labels l where l.id = v_from.id for update;
    perform from app_public.labels l where l.id = v_into.id for no key update;
  else
    perform from app_public.labels l where l.id = v_into.id for no key update;
    perform from app_public.labels l where l.id = v_from.id for update;
  end if;
  -- Then the issues carrying `from`, in id order, before writing any of their labels: an issue being labelled
  -- concurrently holds its row while it inserts (issue, into); taking the row first makes this merge wait for
  -- that write instead of both waiting on each other's (issue, into) row.
  perform from app_public.issues i
  where i.workspace_id = v_ws and i.id in (select il.issue_id from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id)
  order by i.id for update;
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
-- LABEL_CREATED / LABEL_UPDATED / LABEL_DELETED: label changes wrote no event (labels.merge of an unused label
-- left no trace at all).
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
--! Included labels/triggers.sql
-- Triggers of the labels tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'LABEL_CREATED', 'label', new.id,
      jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color));
  elsif tg_op = 'UPDATE' then
    if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
    if new.color is distinct from old.color then v_changed := array_append(v_changed, 'color'); end if;
    if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
    if cardinality(v_changed) > 0 then
      perform app_private.record_event(new.workspace_id, 'LABEL_UPDATED', 'label', new.id,
        jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color, 'changes', to_jsonb(v_changed)));
    end if;
  else
    -- labels.delete and labels.merge (the label merged away); its issues' ISSUE_UPDATED labelIds come from the
    -- issue_labels triggers.
    perform app_private.record_event(old.workspace_id, 'LABEL_DELETED', 'label', old.id,
      jsonb_build_object('labelId', old.id, 'name', old.name));
  end if;
  return null;
end
$$;
comment on function app_private.tg_labels__events() is 'AFTER INSERT/UPDATE/DELETE on labels: LABEL_CREATED, LABEL_UPDATED (changes: name, color, description; nothing changed, no event), LABEL_DELETED (labels.delete, labels.merge). Labels are visible to every key of the workspace (label narrowing restricts issues), so are their events.';

drop trigger if exists _100_updated_at on app_public.labels;

create trigger _100_updated_at before update on app_public.labels for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.labels;
create trigger _800_events after insert or update or delete on app_public.labels for each row execute function app_private.tg_labels__events();
--! EndIncluded labels/triggers.sql
--! Included cycles/tools/delete.sql
-- The cycles.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a cycle that has not run: PLANNED (not started) or CANCELED, or any cycle holding no issue now (trashed ones count).
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
  -- Attaching to a cycle takes a key-share lock on it (app_hidden.attachment_target_for_write): under this row
  -- lock no attachment can appear on the cycle unseen.
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
comment on function app_tools.cycles_delete(args jsonb) is 'cycles.delete: Delete a PLANNED or CANCELED cycle, or any cycle holding no issue (trashed ones count); its issues lose the cycle. A sprint that ran with issues: 409 cycle_started; with attachments: 409 cycle_has_attachments. Needs a key without project/label narrowing.';
--! EndIncluded cycles/tools/delete.sql

--! split: 2-canvas-fixes.sql
-- Review of the canvases (catalog completion).
-- canvas.list pages newest created first, on (created_at, id): updated_at moves with every card or edge change,
-- so a canvas edited while someone paged jumped over the cursor and was skipped.
create index if not exists canvases_created_idx on app_public.canvases (workspace_id, created_at desc, id desc);
drop index if exists app_public.canvases_list_idx;
-- find_canvas_locked (canvas.update and canvas.delete lock the row before reading it), canvas_shows_node (the one
-- "card shown" rule), canvas_node_edge_ids (removedEdgeIds names edges to cards the key cannot see too).
--! Included canvas/canvas.sql
-- canvas: finders, shapes and limits of the canvas tools.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A card is shown when the caller sees it (RLS: an issue card follows its issue's narrowing) and, for an issue
-- card, the issue is not deleted (a restored issue's card comes back). Hidden cards are left out with their edges.
-- The one definition of the rule: canvas_node_shown, canvas_shown_node_ids (canvas.get, canvas_json) apply it.
create or replace function app_hidden.canvas_shows_node(n app_public.canvas_nodes)
 returns boolean
 language sql
 stable
as $$
  -- No FROM: inlined into the callers' queries. The row itself was read under RLS, so only the issue is left.
  select n.issue_id is null
         or exists (select 1 from app_public.issues i where i.id = n.issue_id and i.deleted_at is null)
$$;
comment on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) is 'Whether a card the caller read (RLS) is shown: a text card, or an issue card whose issue the caller sees and is not deleted.';
grant execute on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_node_shown(p_node_id uuid)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.canvas_nodes n where n.id = p_node_id and app_hidden.canvas_shows_node(n))
$$;
comment on function app_hidden.canvas_node_shown(p_node_id uuid) is 'Whether the caller is shown this card (canvas_shows_node): it sees the card (RLS) and, for an issue card, the issue is not deleted.';
grant execute on function app_hidden.canvas_node_shown(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shown_node_ids(p_canvas_id uuid)
 returns uuid[]
 language sql
 stable
as $$
  select coalesce(array_agg(n.id), '{}') from app_public.canvas_nodes n
  where n.workspace_id = app_hidden.current_workspace_id() and n.canvas_id = p_canvas_id
    and app_hidden.canvas_shows_node(n)
$$;
comment on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) is 'The ids of the cards of a canvas the caller is shown (canvas_shows_node).';
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

create or replace function app_hidden.canvas_node_edge_ids(p_node_id uuid)
 returns uuid[]
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every edge of the card, those to cards the key cannot see included: canvas.removeNode names all the edges its
  -- card takes along (the foreign keys remove them whatever the key sees). Edge ids only: they name no issue.
  select coalesce(array_agg(e.id order by e.id), '{}') from app_public.canvas_edges e
  where e.workspace_id = app_hidden.current_workspace_id() and (e.from_node_id = p_node_id or e.to_node_id = p_node_id)
$$;
comment on function app_hidden.canvas_node_edge_ids(p_node_id uuid) is 'The ids of every edge from or to a card of the caller''s workspace, edges to cards the key cannot see included (for canvas.removeNode''s removedEdgeIds; ids only).';
grant execute on function app_hidden.canvas_node_edge_ids(p_node_id uuid) to svc_visitor;

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

create or replace function app_hidden.find_canvas_locked(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  -- Locked until commit, and read after the lock is granted: a write computed from this row (canvas.update's
  -- patch, canvas.delete's check) sees every change committed before it and none can slip in after it.
  select * into v_canvas from app_public.canvases c
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()
  for update;
  if v_canvas.id is null then
    raise exception 'Canvas not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_locked(p_id text, p_field text) is 'A canvas of the caller''s workspace, locked until commit (its current row), else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas_locked(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_for_change(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases := app_hidden.find_canvas_locked(p_id, p_field);
begin
  -- Locked: card and edge writes of one canvas take turns, so the limits (and duplicate checks) hold under
  -- concurrent calls.
  if v_canvas.archived_at is not null then
    raise exception 'Canvas "%" is archived; unarchive it (canvas.update archived false) to change its cards and edges', v_canvas.name
      using errcode = 'SV409', detail = 'canvas_archived';
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_for_change(p_id text, p_field text) is 'A canvas of the caller''s workspace whose cards or edges are about to change, locked until commit (find_canvas_locked); 404 naming the field, 409 canvas_archived for an archived one.';
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
  -- A card or edge change is a change of the canvas: it stamps updatedAt and writes CANVAS_UPDATED.
  update app_public.canvases set updated_at = now() where id = p_canvas_id;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', p_canvas_id, jsonb_build_object('canvasId', p_canvas_id) || p_payload);
end
$$;
comment on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb) is 'After a card or edge change: stamps the canvas''s updatedAt and records CANVAS_UPDATED {canvasId, change, ...payload}.';
grant execute on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb) to svc_visitor;
--! EndIncluded canvas/canvas.sql
--! Included canvas/tools/update.sql
-- The canvas.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description (null clears), archived of a canvas; only the fields given change. CANVAS_UPDATED
-- {change: 'canvas_updated', changes} when something did, nothing otherwise. The row is locked before the patch is
-- computed, so a concurrent change of another field is kept and `changes` names only what this call changed.
create or replace function app_tools.canvas_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_locked(args->>'id');
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

-- deletes a canvas, its cards and edges (CANVAS_DELETED {canvasId, name}: no counts, as every key of the
-- workspace reads canvas events); the issues stay. A narrowed key may not delete a canvas holding cards it cannot
-- see: 403 narrowing. The answer counts the cards and edges the caller sees (after that check: all of them).
create or replace function app_tools.canvas_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked, so no card is added between the counts and the delete.
  v_canvas app_public.canvases := app_hidden.find_canvas_locked(args->>'id');
  v_size record;
  v_nodes integer;
  v_edges integer;
begin
  select * into v_size from app_hidden.canvas_size(v_canvas.id);
  select count(*) into v_nodes from app_public.canvas_nodes n
  where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id;
  if v_size.node_count > v_nodes then
    raise exception 'This canvas holds cards of issues outside the key''s narrowing; a key that sees them may delete it'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  select count(*) into v_edges from app_public.canvas_edges e
  where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id;
  delete from app_public.canvases where id = v_canvas.id;  -- cards and edges go with it (foreign keys)
  perform app_hidden.record_event('CANVAS_DELETED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'name', v_canvas.name));
  return jsonb_build_object('ok', true, 'id', v_canvas.id, 'deleted', true, 'removedNodes', v_nodes, 'removedEdges', v_edges);
end
$$;
comment on function app_tools.canvas_delete(args jsonb) is 'canvas.delete: Delete a canvas with its nodes and edges (the issues stay). A narrowed key may not delete a canvas holding cards it cannot see (403 narrowing).';
grant execute on function app_tools.canvas_delete(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/delete.sql
--! Included canvas/tools/removeNode.sql
-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds}: every edge that went, those to cards the
-- key cannot see included (edge ids name no issue), in the event and in the answer alike.
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
  -- Collected through the definer (RLS hides edges to cards the key cannot see); the canvas lock keeps the set
  -- until the foreign keys remove those edges with the card.
  v_edge_ids := app_hidden.canvas_node_edge_ids(v_node.id);
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)));
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/removeNode.sql
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
  -- The cards shown by the one rule (canvas_shows_node), as canvas.list's counts.
  v_ids uuid[] := app_hidden.canvas_shown_node_ids(v_canvas.id);
  v_nodes jsonb;
  v_edges jsonb;
begin
  select coalesce(jsonb_agg(app_hidden.canvas_node_json(n, i, s) order by n.created_at, n.id), '[]')
  into v_nodes
  from app_public.canvas_nodes n
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
  where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id and n.id = any(v_ids);
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
--! Included canvas/tools/list.sql
-- The canvas.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- canvases of the workspace, newest created first, keyset-paged on (created_at, id): a key that never moves, so a
-- canvas edited while someone pages (every card or edge change stamps updated_at) is neither skipped nor listed
-- twice; live ones unless includeArchived.
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
            app_hidden.ts_key(c.created_at), c.id)::app_hidden.page_row
    from app_public.canvases c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (v_archived or c.archived_at is null)
      and (v_after.sort_id is null or (c.created_at, c.id) < (v_after.sort_key, v_after.sort_id))
    window w as (order by c.created_at desc, c.id desc)
    order by c.created_at desc, c.id desc limit v_limit + 1), v_limit, 'canvases');
end
$$;
comment on function app_tools.canvas_list(args jsonb) is 'canvas.list: Canvases of the workspace, newest first (by creation: editing a canvas does not move it, so paging skips none), paged ({items, nextCursor}); archived ones only with includeArchived.';
grant execute on function app_tools.canvas_list(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/list.sql

--! split: 3-misc-fixes.sql
-- Review of the catalog's completion, assorted tools.
-- repohost.unlink: of two concurrent calls the second answers 404 (the link is re-deleted under the issue's lock).
--! Included repohost/tools/unlink.sql
-- The repohost.unlink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes one link (an id from repohost.listLinked or repohost.link) of an issue the key may change; the
-- resource's snapshot stays (workspace-wide, other issues may link it). ISSUE_UPDATED (externalResources) by
-- trigger, as linking writes. Of two concurrent calls for one link, the second (after the first's lock) finds it
-- gone: 404, no event.
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
  -- The link was read before the lock: a concurrent unlink may have removed it (or repohost.link changed its kind).
  delete from app_public.external_links l where l.id = v_link.id returning * into v_link;
  if not found then
    raise exception 'Link not found' using errcode = 'SV404', column = 'id';
  end if;
  return jsonb_build_object('id', v_link.id, 'issueId', v_issue.id, 'issueKey', v_issue.key, 'resourceId', v_link.resource_id,
                            'kind', v_link.kind, 'removed', true);
end
$$;
grant execute on function app_tools.repohost_unlink(args jsonb) to svc_visitor;
comment on function app_tools.repohost_unlink(args jsonb) is 'repohost.unlink: Remove a link between an issue and an external issue or PR (id from repohost.listLinked). Nothing is written to the host.';
--! EndIncluded repohost/tools/unlink.sql
-- agents.workload: freeSlots null for a key narrowed by project or label (its load count may miss issues).
--! Included agents/tools/workload.sql
-- The agents.workload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the dispatch view: the workspace's dispatch settings, the pool (queued, unassigned, open issues; next = the one
-- the dispatcher hands out first), and for every live (non-archived) agent by profileKey its presence, load against
-- maxConcurrent, open runs by status and its current run (the newest ACTIVE one, else the newest open one) with
-- the issue, mode and step. Issue and run figures count what the key can see (RLS: narrowing). A narrowed key's
-- load may miss issues it cannot see, so its freeSlots is null rather than overstated (a definer count would
-- reveal how many hidden issues an agent holds).
create or replace function app_tools.agents_workload(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws app_public.workspaces := (select w from app_public.workspaces w where w.id = app_hidden.current_workspace_id());
  v_whole_load boolean := app_hidden.issues_unrestricted();
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
               -- The dispatcher's rule (load = open assigned issues; maxConcurrent 0 = unlimited); unknown to a narrowed key.
               'freeSlots', case when a.max_concurrent = 0 or not v_whole_load then null
                                 else greatest(a.max_concurrent - l.open_assigned, 0) end,
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
comment on function app_tools.agents_workload(args jsonb) is 'agents.workload: Dispatch view: the queued pool (by priority, next out) and, per live agent, status, load (open assigned issues) vs maxConcurrent, open runs and current run (issue, mode, step). Counts what this key can see; for a key narrowed by project or label, freeSlots is null (its load count may miss issues it cannot see).';
--! EndIncluded agents/tools/workload.sql
--! Included workspace/tools/updateSettings.sql
-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the in-app procedure's path (app_hidden.workspace_update_settings: OWNER/ADMIN with the ADMIN scope, else 403
-- admin_required / scope_required): changes the settings given, returns them as workspace.get shows them. A key
-- with any narrowing may not (403 narrowing): the settings rule every project, as webhooks see every event.
-- Every setting that changes is named in one WORKSPACE_UPDATED (trigger on workspaces, sql/workspace/triggers.sql,
-- whatever the path: this tool, GraphQL, the CLI); a call that changes nothing writes none.
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
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
-- chat.listMessages pages with cursor (it was after), as every other list.
--! Included chat/tools/listMessages.sql
-- The chat.listMessages tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the messages of a thread addressed to the key's agent (gated as chat.getThread) after a message (cursor = a
-- message id of the thread: nextCursor, or the last message the agent read; none = from the first), oldest first,
-- paged forward: what arrived since. chat.getThread pages the other way, from the newest back.
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
  if args->>'cursor' is not null then
    select m.seq into v_after_seq from app_public.chat_messages m
    where m.id = app_hidden.parse_uuid(args->>'cursor', 'cursor') and m.workspace_id = v_thread.workspace_id
      and m.thread_id = v_thread.id;
    if v_after_seq is null then
      raise exception 'cursor must be a message id of this thread' using errcode = 'SV400', column = 'cursor';
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
comment on function app_tools.chat_list_messages(args jsonb) is 'chat.listMessages: Messages of a thread after one (cursor = nextCursor or the id of a message of the thread, e.g. the last one you read; none = from the first), oldest first, paged forward: what came since you last read. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
--! EndIncluded chat/tools/listMessages.sql
-- Attaching to a cycle locks it FOR KEY SHARE, so cycles.delete cannot leave an attachment on a deleted cycle.
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
  v_target record := app_hidden.attachment_target_for_write(args->>'targetType', args->>'targetId');
  v_url text := args->>'externalUrl';
  v_host text := app_hidden.url_hostname(v_url);
  v_title text := nullif(btrim(args->>'linkTitle'), '');
  v_row app_public.attachments;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
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
  v_target := app_hidden.attachment_target_for_write(v_upload.target_type, v_upload.target_id::text);
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
--! Included cycles/tools/delete.sql
-- The cycles.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a cycle that has not run: PLANNED (not started) or CANCELED, or any cycle holding no issue now (trashed ones count).
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
  -- Attaching to a cycle takes a key-share lock on it (app_hidden.attachment_target_for_write): under this row
  -- lock no attachment can appear on the cycle unseen.
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
comment on function app_tools.cycles_delete(args jsonb) is 'cycles.delete: Delete a PLANNED or CANCELED cycle, or any cycle holding no issue (trashed ones count); its issues lose the cycle. A sprint that ran with issues: 409 cycle_started; with attachments: 409 cycle_has_attachments. Needs a key without project/label narrowing.';
--! EndIncluded cycles/tools/delete.sql
-- time.get and notification.resetPreference use the rules of time.list and notification.getPreferences.
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
    'id', e.id, 'issueId', e.issue_id,
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
  -- time.list's rule, from time.list's own finder: within the narrowing, never on a deleted issue.
  return app_hidden.time_entry_json(app_hidden.found(
    (select e from app_hidden.time_entries_filtered(jsonb_build_object('id', v_id)) e where e.id = v_id), 'Time entry'));
end
$$;
grant execute on function app_tools.time_get(args jsonb) to svc_visitor;
comment on function app_tools.time_get(args jsonb) is 'time.get: One time entry by id, as time.list shows it (anyone''s, on issues this key can see). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
--! EndIncluded time/tools/get.sql
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
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  delete from app_public.notification_preferences p
  where p.user_id = v_user and p.event_kind = v_kind
    and (case when v_global then p.workspace_id is null else p.workspace_id = v_ws end);
  get diagnostics v_removed = row_count;
  -- What applies now, as notification.getPreferences says it (workspace row, else global row, else enabled).
  return jsonb_build_object(
    'eventKind', v_kind, 'scope', case when v_global then 'global' else 'workspace' end, 'removed', v_removed > 0,
    'effective', app_tools.notification_get_preferences(jsonb_build_object('eventKinds', jsonb_build_array(v_kind)))->'effective'->0);
end
$$;
grant execute on function app_tools.notification_reset_preference(args jsonb) to svc_visitor;
comment on function app_tools.notification_reset_preference(args jsonb) is 'notification.resetPreference: Remove your setting for one event kind (this workspace''s, or the global one with scope global) so the next rule applies again (workspace, global, enabled). Returns the effective setting; removed false if there was none.';
--! EndIncluded notification/tools/resetPreference.sql
