--! AllowInvalidHash
--! Previous: sha1:0cfd54470b76f32425e2e1028da8cb7b941054ca
--! Hash: sha1:a35287fbd1ef8cd7a999be28a322174c71b77081
--! Message: Dispatcher order by time queued; reopen and restore wake it; lastUsedAt is the time of use

--! split: 1-current.sql
-- From a probe of timed behaviour: the dispatcher took queued issues by creation, not by how long they had waited
-- in the pool (an old issue queued late went first while the SLA clock of those queued before ran on): issues get
-- queued_at (when queued last became true; the latest ISSUE_QUEUED for those queued now), and the dispatcher orders
-- by priority, then queued_at. A queued, unassigned issue reopened or restored wakes the dispatcher (it waited for
-- the minute's sweep).
alter table app_public.issues add column if not exists queued_at timestamptz;
comment on column app_public.issues.queued_at is 'When the issue last entered the dispatch pool (queued became true); null when not queued. The dispatcher hands out the most urgent, then the longest waiting.';
-- Edited after it was committed (AllowInvalidHash; an upgrade probe, twenty-eighth session): the backfill moved the
-- updatedAt of every queued issue to the upgrade's time, with no event. A derived column filled in is no change of
-- the issue: updated_at is kept.
alter table app_public.issues disable trigger _100_updated_at;
update app_public.issues i
set queued_at = coalesce((select max(e.created_at) from app_public.activity_events e
                          where e.workspace_id = i.workspace_id and e.subject_type = 'issue' and e.subject_id = i.id
                            and e.kind = 'ISSUE_QUEUED'), i.created_at)
where i.queued and i.queued_at is null;
alter table app_public.issues enable trigger _100_updated_at;
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
  v_before jsonb := '{}';
  v_event uuid;
begin
  if tg_op = 'INSERT' then
    v_event := app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    -- A plugin's key acts for no one: the issue is the first member's (_210_plugin_creator, spec 4.2), and so is
    -- the event's actor, as the issue row says.
    if app_hidden.current_user_id() is null and app_hidden.current_agent_id() is null and app_hidden.current_key_id() is not null then
      update app_public.activity_events set actor_user_id = new.created_by_user_id where id = v_event;
    end if;
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
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById');
  elsif new.claim_expires_at is distinct from old.claim_expires_at then v_changed := array_append(v_changed, 'claimExpiresAt'); -- extended
  end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  -- Where the issue was before a move of project, labels or cycle (not while it is created): a key narrowed to that
  -- scope sees this one event of the issue leaving its view (event_subject_visible), so a live board drops the card;
  -- an MCP subscription to the cycle or project it left hears of it.
  if (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids
      or new.cycle_id is distinct from old.cycle_id)
     and new.created_at <> now() then
    if new.label_ids is distinct from old.label_ids then v_changed := array_append(v_changed, 'labelIds'); end if;
    v_before := jsonb_build_object('before', jsonb_build_object('projectId', old.project_id, 'labelIds', to_jsonb(old.label_ids),
                                                              'cycleId', old.cycle_id));
  end if;
  -- Whom the issue was taken from (issues.unassign, an archived agent's issues): the agent's timeline shows it.
  if new.assigned_agent_id is null and old.assigned_agent_id is not null then
    v_before := coalesce(v_before, '{}') || jsonb_build_object('unassignedAgentId', old.assigned_agent_id);
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed, v_before);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields, with before {projectId, labelIds, cycleId} when the project, labels or cycle moved and unassignedAgentId when the issue was taken from its agent. A change that changes nothing writes nothing.';

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

create or replace function app_private.tg_issues__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A deleted issue is 404 everywhere and its time leaves the lists and sums; a timer left running on it would
  -- still show it (time.running) and keep counting. It stops now, whoever's it is.
  perform app_private.stop_running_timers(new.workspace_id, new.id);
  return null;
end
$$;
comment on function app_private.tg_issues__stop_timers() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: every timer running on it stops (durationMin = elapsed minutes, as time.stop).';

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

create or replace function app_private.tg_issues__queued_at()
 returns trigger
 language plpgsql
as $$
begin
  -- Since when the issue waits in the dispatch pool: the dispatcher hands out the longest waiting first (an old
  -- issue queued late went before those queued long before it), as the SLA clock counts from ISSUE_QUEUED.
  new.queued_at := case when not new.queued then null
                        when tg_op = 'INSERT' or not old.queued then now()
                        else old.queued_at end;
  return new;
end
$$;
comment on function app_private.tg_issues__queued_at() is 'BEFORE INSERT/UPDATE OF queued on issues: queuedAt is when queued last became true (null when not queued).';

drop trigger if exists _160_queued_at on app_public.issues;
create trigger _160_queued_at before insert or update of queued on app_public.issues for each row execute function app_private.tg_issues__queued_at();

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

create or replace function app_private.tg_issues__run_mode_gate()
 returns trigger
 language plpgsql
as $$
begin
  -- Run-mode gating at the row, whatever wrote it: tools check the issue they name, but a workspace-wide write (a
  -- status deleted with its issues moved, labels merged or deleted, a parent deleted or restored) changed an issue
  -- an agent only researched, reviewed or discussed. The fields are those that write an event.
  if app_hidden.current_agent_id() is not null
     and (new.status_id, new.priority, new.title, new.description, new.project_id, new.parent_id, new.cycle_id, new.label_ids,
          new.assigned_agent_id, new.queued, new.claimed_by_id, new.deleted_at, new.due_date, new.estimate, new.sla_minutes,
          new.expected_output, new.verification_checklist, new.artifact_required)
     is distinct from
         (old.status_id, old.priority, old.title, old.description, old.project_id, old.parent_id, old.cycle_id, old.label_ids,
          old.assigned_agent_id, old.queued, old.claimed_by_id, old.deleted_at, old.due_date, old.estimate, old.sla_minutes,
          old.expected_output, old.verification_checklist, old.artifact_required) then
    perform app_hidden.assert_run_mode_allows_mutation(new.id);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__run_mode_gate() is 'BEFORE UPDATE on issues: 403 run_mode_gated when the calling agent has an open RESEARCH/REVIEW/DISCUSS run on the issue and the update changes a field that writes an event, whatever tool or trigger made it (statuses.delete moving issues, labels merged or deleted, a parent deleted or restored, cycles deleted or rolled over).';

create or replace function app_private.tg_issues__live_parent()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'UPDATE' and new.parent_id is not distinct from old.parent_id then
    return new;
  end if;
  -- The tools checked the parent live, but a delete committing meanwhile detached the children it saw, not this
  -- one. Held in share mode until commit: a delete of the parent waits for this write (then detaches the child
  -- too), or this write waits for the delete and finds the parent gone.
  perform from app_public.issues p where p.id = new.parent_id and p.deleted_at is null for share;
  if not found then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'parentId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__live_parent() is 'BEFORE INSERT or UPDATE OF parent_id on issues, with a parent: locks the parent (share) and 404 on parentId when it is deleted, so no live sub-issue points at a deleted issue whatever commits first.';

drop trigger if exists _060_live_parent on app_public.issues;
create trigger _060_live_parent before insert or update of parent_id on app_public.issues for each row
  when (new.parent_id is not null) execute function app_private.tg_issues__live_parent();

drop trigger if exists _050_run_mode_gate on app_public.issues;
create trigger _050_run_mode_gate before update on app_public.issues for each row execute function app_private.tg_issues__run_mode_gate();

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

drop trigger if exists _812_stop_timers on app_public.issues;
create trigger _812_stop_timers after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__stop_timers();

drop trigger if exists _811_restore_links on app_public.issues;
create trigger _811_restore_links after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is not null and new.deleted_at is null) execute function app_private.tg_issues__restore_links();

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
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
    from app_public.labels l where l.id = any(p_issue.label_ids);
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
  -- Assigned and closed issues stay queued (only issues.queue/update {queued: false} clears it) but are no work to hand out.
  select i.* into v_issue from app_public.issues i
  where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
    and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED')
  order by array_position(array['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'], i.priority), i.queued_at, i.created_at, i.id
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
    and (r.label_id is null or r.label_id = any(v_issue.label_ids))
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

  -- Archived since the candidates were read: nothing now (archiving wakes the dispatcher, which picks again).
  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id and archived_at is null;
  if not found then
    return null;
  end if;
  perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', v_reason, null, null, v_dispatch);
  return jsonb_build_object('issueId', v_issue.id, 'agentId', v_agent.id, 'reason', v_reason);
end
$$;
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned open (not DONE/CANCELED) issue goes to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

create or replace function app_private.wake_dispatcher(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if exists (select 1 from app_public.workspaces w
             where w.id = p_workspace_id and w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY') then
    -- A job per wake, without a job key: a keyed job that a worker locks between this add_job and our
    -- commit would swallow the wake and run before it can see this change. Each job dispatches until
    -- nothing is left; jobs of one workspace serialize on dispatch_next's advisory lock.
    perform graphile_worker.add_job('svc_dispatch', json_build_object('workspaceId', p_workspace_id));
  end if;
end
$$;
comment on function app_private.wake_dispatcher(p_workspace_id uuid) is 'Queues a dispatcher job for a workspace with autoDispatch on, in the caller''s transaction: it runs once the change that woke it is committed, so no wake is lost.';

create or replace function app_private.dispatch_sweep()
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_workspace_id uuid;
  v_woken integer := 0;
begin
  if to_regnamespace('graphile_worker') is null then
    return 0;
  end if;
  -- The dispatcher runs only when woken. A job that a killed worker held stays locked (Graphile Worker frees it
  -- after hours), and no change wakes another while an ONLINE agent waits with free slots: the queue stood still.
  -- Every minute (and at worker start) a workspace with work to hand out and a live agent, and no job waiting to
  -- run, is woken; a job that finds nothing to do ends at once.
  for v_workspace_id in
    select w.id from app_public.workspaces w
    where w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY'
      and exists (select 1 from app_public.agents a
                  where a.workspace_id = w.id and a.archived_at is null and a.status <> 'OFFLINE')
      and exists (select 1 from app_public.issues i
                  where i.workspace_id = w.id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
                    and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED'))
      -- (the public jobs view leaves the payload out: the private table, as the migration of graphile-worker pins it)
      and not exists (select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
                      where t.identifier = 'svc_dispatch' and j.locked_at is null
                        and j.payload->>'workspaceId' = w.id::text)
  loop
    perform app_private.wake_dispatcher(v_workspace_id);
    v_woken := v_woken + 1;
  end loop;
  return v_woken;
end
$$;
comment on function app_private.dispatch_sweep() is 'Wakes the dispatcher of every workspace with autoDispatch on, queued unassigned open issues and an agent not OFFLINE, unless a dispatcher job of it is waiting to run: the recovery for a job a killed worker held. Returns how many were woken; the worker calls it at start and every minute (svc_watchdog_sweep).';
--! EndIncluded dispatch/dispatcher.sql
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
  -- Newly dispatchable: queued, unassigned, restored, or its status moved (a reopened issue is work again).
  if new.queued and new.assigned_agent_id is null and new.deleted_at is null
     and (tg_op = 'INSERT' or not old.queued or old.assigned_agent_id is not null or old.deleted_at is not null
          or new.status_id <> old.status_id) then
    perform app_private.wake_dispatcher(new.workspace_id);
  elsif tg_op = 'UPDATE' and old.assigned_agent_id is not null
     and (new.assigned_agent_id is distinct from old.assigned_agent_id or new.status_id <> old.status_id
          or (new.deleted_at is not null and old.deleted_at is null)) then
    perform app_private.wake_dispatcher(new.workspace_id);  -- the agent's load may have dropped
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__wake_dispatcher() is 'AFTER INSERT/UPDATE on issues: wakes the dispatcher when an issue becomes queued and unassigned (queued, unassigned, restored, or its status moved: reopened), or when its agent''s load may drop (unassigned, status moved, deleted).';

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
-- A key's lastUsedAt is the time of its last use, not of the batched write that came up to 15 s later (after its
-- revocation too).
drop function if exists app_private.touch_api_keys(uuid[]);
--! Included auth/keys.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
  v_scopes text[] := coalesce(p_scopes, v_caller.scopes);
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  if v_caller.user_id is null then
    raise exception 'Plugin keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  -- An agent's key cannot shed its agent identity (and its run-mode gating) by minting a user key.
  if exists (select 1 from app_private.api_keys k where k.id = v_caller.key_id and k.linked_agent_id is not null) then
    raise exception 'Agent keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  if v_kind = 'AGENT' or p_linked_agent_id is not null then
    -- A key that acts as an agent is workspace administration; with an unnarrowed key, as managing agents is (a
    -- narrowed key minted one for any agent and moved that agent onto another runtime with it).
    perform app_private.require_admin(v_caller);
    perform app_hidden.require_unnarrowed('A key acting as an agent is workspace administration');
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it.
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  -- A key never outlives the key that created it.
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  -- A person's own keys are bounded: each key has its own rate limit and event-stream places, which unbounded keys
  -- would make meaningless (an outside probe minted 200 in one GraphQL request). Counted one mint at a time.
  if p_linked_agent_id is null then
    perform pg_advisory_xact_lock(hashtextextended('svc.keys:' || v_caller.workspace_id || ':' || v_caller.user_id, 0));
    if (select count(*) from app_private.api_keys k
        where k.workspace_id = v_caller.workspace_id and k.user_id = v_caller.user_id and k.linked_agent_id is null
          and k.plugin_id is null and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) >= 50 then
      raise exception 'You hold 50 live keys in this workspace, the most one person may; revoke one first'
        using errcode = 'SV409', detail = 'too_many_keys';
    end if;
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;
comment on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'Issues a key owned by the caller''s user: kind inferred (AGENT with a linked agent, else PERSONAL); AGENT keys need OWNER/ADMIN; scopes default to and must stay within the caller''s; narrowing inherited or narrower; never outlives the caller''s key; at most 50 live keys of one person (not linked to an agent) per workspace (409 too_many_keys).';
grant execute on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.access_keys()
 returns setof app_public.api_key
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with c as (select * from app_private.current_caller())
  select app_private.api_key_info(k, c.key_id)
  from app_private.api_keys k, c
  where k.workspace_id = c.workspace_id
    and (k.id = c.key_id
         or (c.user_id is not null and k.user_id = c.user_id)
         -- As for accessRevoke, a narrowed key is no workspace admin here (a project-narrowed OWNER key listed every
         -- key of the workspace, with each one's narrowing).
         or (c.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(c.scopes) or 'FULL' = any(c.scopes)) and app_hidden.key_unnarrowed()))
  order by k.created_at desc, k.id
$$;
comment on function app_hidden.access_keys() is 'Keys the caller may see: its user''s own keys (and itself); every key of the workspace for OWNER/ADMIN with the ADMIN scope and no narrowing.';
grant execute on function app_hidden.access_keys() to svc_visitor;

create or replace function app_hidden.access_revoke(p_key_id uuid)
 returns app_public.api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_key app_private.api_keys;
  -- A narrowed key is no workspace admin here: it could revoke its owner's full key (a leaked narrowed key locking
  -- its owner out).
  v_admin boolean := v_caller.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes))
                     and app_hidden.key_unnarrowed();
  v_beyond text[];
begin
  select * into v_key from app_private.api_keys k
  where k.id = p_key_id and k.workspace_id = v_caller.workspace_id;
  if v_key.id is null
     or not (v_key.id = v_caller.key_id
             or (v_caller.user_id is not null and v_key.user_id = v_caller.user_id)
             or v_admin) then
    raise exception 'API key not found' using errcode = 'SV404', column = 'keyId';
  end if;
  -- Another of your own keys: only one that does not exceed this key, by the rule access.create applies to a
  -- new key (scopes, narrowing), so a leaked read-only or narrowed key cannot lock its owner out.
  -- A key may always revoke itself; workspace admins (OWNER/ADMIN with the ADMIN scope) any key.
  if v_key.id <> v_caller.key_id and not v_admin then
    v_beyond := app_private.scopes_not_held(v_caller, v_key.scopes);
    if cardinality(v_beyond) > 0 then
      raise exception 'A key cannot revoke a key with scopes it does not hold: %', array_to_string(v_beyond, ', ')
        using errcode = 'SV403', detail = 'scope_escalation';
    end if;
    if not app_private.narrowing_within(v_caller, v_key.project_ids, v_key.label_ids, v_key.initiative_ids) then
      raise exception 'A narrowed key can only revoke keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  -- The update fires the svc_keys NOTIFY; every API process drops its cached copy.
  v_key := app_private.revoke_api_key(v_key.id);
  return app_private.api_key_info(v_key, v_caller.key_id);
end
$$;
comment on function app_hidden.access_revoke(p_key_id uuid) is 'Revokes the calling key itself, or another of its user''s keys that does not exceed it (scopes held, narrowing within, as for access.create: else 403 scope_escalation / narrowing); OWNER/ADMIN with the ADMIN scope and an unnarrowed key: any key of the workspace. Permanent; the key fails with 401 revoked on its next call.';
grant execute on function app_hidden.access_revoke(p_key_id uuid) to svc_visitor;

drop function if exists app_hidden.authenticate(bytea);  -- its row gained agent_archived (000083), workspace_admin (000095)
create or replace function app_hidden.authenticate(p_token_hash bytea)
 returns table(key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone, revoked_at timestamp with time zone, acting_user_id uuid, agent_archived boolean, workspace_admin boolean)
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.id, k.workspace_id, k.user_id, k.kind, k.linked_agent_id, k.scopes,
         k.project_ids, k.label_ids, k.initiative_ids, k.expires_at, k.revoked_at,
         -- plugin keys with no user act as the first workspace member (spec 4.2 issues.create)
         coalesce(k.user_id, (select m.user_id from app_public.memberships m
                              where m.workspace_id = k.workspace_id order by m.created_at, m.id limit 1)),
         -- tools/list leaves out what only a live agent may call (agents.me, heartbeats, chat, run reports)
         (select a.archived_at is not null from app_public.agents a where a.id = k.linked_agent_id),
         -- and what only a workspace OWNER/ADMIN may call (settings, the workflow, webhooks)
         exists (select 1 from app_public.memberships m
                 where m.workspace_id = k.workspace_id and m.user_id = k.user_id and m.role in ('OWNER', 'ADMIN'))
  from app_private.api_keys k
  where k.token_hash = p_token_hash
$$;
comment on function app_hidden.authenticate(p_token_hash bytea) is 'Looks a key up by the SHA-256 of its token, with whether its linked agent is archived and whether its own user is OWNER or ADMIN of the workspace. Returns no row for an unknown hash; the API decides invalid / revoked / expired in that order.';
grant execute on function app_hidden.authenticate(p_token_hash bytea) to svc_visitor;

create or replace function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid)
 returns app_public.api_key
 language sql
 stable
as $$
  select row(k.id, k.name, k.kind::app_public.api_key_kind, k.prefix, k.scopes::app_public.api_key_scope[],
             k.project_ids, k.label_ids, k.initiative_ids, k.user_id, k.linked_agent_id, k.plugin_id,
             k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.id = p_current_key_id)::app_public.api_key
$$;
comment on function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid) is 'A key row as lists show it (no hash).';

create or replace function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare
  v_key app_private.api_keys;
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
begin
  if p_user_id is not null and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id) then
    perform app_hidden.raise_invalid('user', 'user is not a member of this workspace');
  end if;
  if v_kind = 'AGENT' and p_linked_agent_id is null then
    perform app_hidden.raise_invalid('linkedAgentId', 'an AGENT key needs a linked agent');
  end if;
  if v_kind in ('PERSONAL', 'SESSION') and p_linked_agent_id is not null then
    perform app_hidden.raise_invalid('linkedAgentId', format('a %s key has no linked agent (an AGENT key acts as one)', v_kind));
  end if;
  if v_kind = 'SESSION' and p_expires_at is null then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key needs an expiry');
  end if;
  -- Spec 8: a session lives 1 to 168 hours, whichever path issues it (access.createSession, access.create, the CLI).
  -- A minute of slack for the clock between computing the expiry and this check.
  if v_kind = 'SESSION' and p_expires_at > now() + interval '168 hours 1 minute' then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key expires within 168 hours; use a PERSONAL key to keep access longer');
  end if;
  if p_linked_agent_id is not null and not exists (
    select 1 from app_public.agents where id = p_linked_agent_id and workspace_id = p_workspace_id) then
    perform app_hidden.raise_not_found('Agent', 'linkedAgentId');
  end if;
  if exists (select 1 from unnest(p_project_ids) pid
             where not exists (select 1 from app_public.projects p where p.id = pid and p.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('projectIds', 'unknown project in this workspace');
  end if;
  if exists (select 1 from unnest(p_label_ids) lid
             where not exists (select 1 from app_public.labels l where l.id = lid and l.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('labelIds', 'unknown label in this workspace');
  end if;
  if exists (select 1 from unnest(p_initiative_ids) iid
             where not exists (select 1 from app_public.initiatives i where i.id = iid and i.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('initiativeIds', 'unknown initiative in this workspace');
  end if;
  insert into app_private.api_keys (workspace_id, user_id, plugin_id, kind, linked_agent_id, name, scopes,
                                    project_ids, label_ids, initiative_ids, expires_at, token_hash, prefix)
  -- A value given twice is stored once (`--scopes READ_ISSUES,READ_ISSUES`), in the order first given.
  values (p_workspace_id, p_user_id, p_plugin_id, v_kind, p_linked_agent_id, app_hidden.one_line(p_name, 'name', 200), app_hidden.array_distinct(p_scopes),
          app_hidden.array_distinct(coalesce(p_project_ids, '{}')), app_hidden.array_distinct(coalesce(p_label_ids, '{}')),
          app_hidden.array_distinct(coalesce(p_initiative_ids, '{}')),
          p_expires_at, p_token_hash, p_prefix)
  returning * into v_key;
  return v_key;
end
$$;
comment on function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text, p_plugin_id uuid) is 'Stores a new key (hash and display prefix only; the token is generated by the caller and shown once). Kind is inferred: AGENT with a linked agent, else PERSONAL.';

create or replace function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea)
 returns record
 language plpgsql
as $$
begin
  raw_key := 'svc_sk_' || rtrim(translate(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64'), '+/', '-_'), '=');
  prefix := left(raw_key, 14);
  token_hash := sha256(convert_to(raw_key, 'UTF8'));
end
$$;
comment on function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea) is 'A fresh token svc_sk_<43 base64url chars>, its 14-character display prefix and its SHA-256 (the only part stored).';

create or replace function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_public.issued_api_key
 language plpgsql
as $$
declare
  v_token record := app_private.generate_api_token();
  v_key app_private.api_keys;
  v_out app_public.issued_api_key;
begin
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  if exists (select 1 from unnest(p_scopes) s where s not in (select unnest(enum_range(null::app_public.api_key_scope))::text)) then
    perform app_hidden.raise_invalid('scopes', 'unknown scope');
  end if;
  if p_expires_at is not null and p_expires_at <= now() then
    perform app_hidden.raise_invalid('expiresAt', 'must be in the future');
  end if;
  v_key := app_private.create_api_key(p_workspace_id, p_user_id, p_kind, p_linked_agent_id,
    p_scopes, p_project_ids, p_label_ids, p_initiative_ids,
    p_expires_at, v_token.token_hash, v_token.prefix, p_name, p_plugin_id);
  v_out := row(v_key.id, v_token.raw_key, v_key.prefix, v_key.kind::app_public.api_key_kind,
    v_key.scopes::app_public.api_key_scope[], v_key.project_ids, v_key.label_ids, v_key.initiative_ids,
    v_key.linked_agent_id, v_key.plugin_id, v_key.name, v_key.expires_at, v_key.created_at);
  return v_out;
end
$$;
comment on function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text, p_plugin_id uuid) is 'Generates a token and stores the key (app_private.create_api_key). The one path for `svc admin create-key`, `create-workspace` and every in-app key procedure.';

create or replace function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[])
 returns text[]
 language sql
 stable
as $$
  select case when 'FULL' = any(p_caller.scopes) then '{}'::text[]
              else array(select s from unnest(p_scopes) s where s <> all(p_caller.scopes)) end
$$;
comment on function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[]) is 'The scopes of p_scopes the calling key does not hold (none when it holds FULL): the comparison behind "a key never exceeds its creator" (require_scopes_within) and access.revoke.';

create or replace function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns boolean
 language sql
 stable
as $$
  select (cardinality(p_caller.project_ids) = 0 and cardinality(p_caller.label_ids) = 0
          or ((cardinality(p_project_ids) > 0 or cardinality(p_label_ids) > 0)
              and p_project_ids <@ p_caller.project_ids and p_label_ids <@ p_caller.label_ids))
     and (cardinality(p_caller.initiative_ids) = 0
          or (cardinality(p_initiative_ids) > 0 and p_initiative_ids <@ p_caller.initiative_ids))
$$;
comment on function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Whether a key narrowed to these projects/labels/initiatives (empty = unrestricted) sees no more than the calling key: a project/label-narrowed caller needs a narrowed key within its projects and labels, an initiative-narrowed one a key within its initiatives. Used by access.create, pluginIssueApiKey (after inheriting the caller''s narrowing) and access.revoke.';

create or replace function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[])
 returns void
 language plpgsql
 stable
as $$
declare v_extra text[] := app_private.scopes_not_held(p_caller, p_scopes);
begin
  if cardinality(v_extra) > 0 then
    raise exception 'A key cannot grant scopes it does not hold: %', array_to_string(v_extra, ', ')
      using errcode = 'SV403', detail = 'scope_escalation';
  end if;
end
$$;
comment on function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[]) is 'No escalation: a new key''s scopes must be held by the key creating it (FULL holds all). 403 scope_escalation otherwise.';

create or replace function app_private.revoke_api_key(p_key_id uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare v_key app_private.api_keys;
begin
  update app_private.api_keys set revoked_at = coalesce(revoked_at, now()) where id = p_key_id returning * into v_key;
  if v_key.id is null then
    perform app_hidden.raise_not_found('API key', null);
  end if;
  return v_key;
end
$$;
comment on function app_private.revoke_api_key(p_key_id uuid) is 'Revokes a key permanently (revocation cannot be undone).';

create or replace function app_private.touch_api_keys(p_key_ids uuid[], p_used_at timestamptz[])
 returns void
 language sql
as $$
  -- The time of the use, not of this batched write (which came up to 15 s later, after a revocation too: a key
  -- read as used after it was revoked). Never earlier than what another process wrote.
  update app_private.api_keys k set last_used_at = greatest(k.last_used_at, u.used_at)
  from unnest(p_key_ids, p_used_at) as u(id, used_at)
  where k.id = u.id
$$;
comment on function app_private.touch_api_keys(p_key_ids uuid[], p_used_at timestamptz[]) is 'Best-effort lastUsedAt, batched by the API (not one write per call): each key''s time of last use.';

create or replace function app_public.access_create(kind app_public.api_key_kind default NULL::app_public.api_key_kind, linked_agent_id uuid default NULL::uuid, expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  if array_position(scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  if kind = 'SESSION' and expires_in_days is null then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key needs an expiry (or use accessCreateSession)');
  end if;
  -- Said here on the field this caller gave (create_api_key checks every path, naming ttlHours).
  if kind = 'SESSION' and expires_in_days > 7 then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key expires within 7 days (168 hours); use a PERSONAL key to keep access longer');
  end if;
  return app_hidden.access_create_key(kind::text, linked_agent_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.create: issues a key owned by you. kind is inferred when omitted: AGENT when linkedAgentId is given (needs OWNER/ADMIN), else PERSONAL. scopes default to your key''s scopes and cannot exceed them; expiresInDays 1-3650 (none = no expiry, but never later than your own key''s). The rawKey is returned once.';
grant execute on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_personal(expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language sql
as $$
  select app_public.access_create('PERSONAL', null, expires_in_days, scopes, project_ids, label_ids, initiative_ids, name)
$$;
comment on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.createPersonal: a PERSONAL key owned by you, with no agent link. The rawKey is returned once.';
grant execute on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_session(ttl_hours integer default 24, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if coalesce(ttl_hours, 24) not between 1 and 168 then
    perform app_hidden.raise_invalid('ttlHours', 'must be 1 to 168');
  end if;
  return app_hidden.access_create_key('SESSION', null, null, null, null, null,
    now() + make_interval(hours => coalesce(ttl_hours, 24)), name);
end
$$;
comment on function app_public.access_create_session(ttl_hours integer, name text) is 'access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (1-168, default 24). The rawKey is returned once.';
grant execute on function app_public.access_create_session(ttl_hours integer, name text) to svc_visitor;

create or replace function app_public.access_keys()
 returns setof app_public.api_key
 language sql
 stable
as $$ select * from app_hidden.access_keys() $$;
comment on function app_public.access_keys() is 'API keys you may see, newest first: your own; every key of the workspace for OWNER/ADMIN. Display prefix and metadata only.';
grant execute on function app_public.access_keys() to svc_visitor;

create or replace function app_public.access_revoke(key_id uuid)
 returns app_public.api_key
 language sql
as $$ select app_hidden.access_revoke(key_id) $$;
comment on function app_public.access_revoke(key_id uuid) is 'Revokes a key: the calling key itself, another of your keys whose scopes this key holds and whose narrowing is within this key''s (403 scope_escalation / narrowing otherwise), or (OWNER/ADMIN) any key of the workspace. Permanent: its next call fails with 401 revoked.';
grant execute on function app_public.access_revoke(key_id uuid) to svc_visitor;
--! EndIncluded auth/keys.sql
