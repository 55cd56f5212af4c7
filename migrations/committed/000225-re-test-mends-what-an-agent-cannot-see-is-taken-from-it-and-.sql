--! Previous: sha1:aae82efcc39e8a874bfa981b8f5db34936d9f49d
--! Hash: sha1:75e2e57f4ac9b63872e1206c34789cfcfa80dda8
--! Message: Re-test mends: what an agent cannot see is taken from it, and narrowed keys read no dispatch-rule events

--! split: 1-current.sql
-- From a re-test of the day's fixes:
-- * An issue moved where its agent cannot see it (another project, off a label) is taken from the agent (its runs
--   end, reason out_of_view); a plan step is not given to an agent that cannot see the goal's issue (409).
-- * A narrowed key reads no dispatch-rule events, as it reads no rules.
-- * A new key of an agent wakes the dispatcher (it may see queued issues now).
-- * An agent that completed its run and then unassigned itself gives the issue back too.
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
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at('search', 'priority_rank');

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

create or replace function app_private.tg_issues__out_of_agent_view()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Moved to a project (or off a label) none of its agent's keys can read: the agent could neither read nor work it
  -- and held a slot for it (re-test of the fleet probe's fix). It is taken from the agent as issues.unassign does
  -- (its runs end, reason out_of_view, which its dispatch channel hears); a queued issue goes back to the dispatcher.
  if not app_hidden.agent_sees_issue(new.assigned_agent_id, new) then
    perform app_hidden.end_agent_runs_on_issue(new, new.assigned_agent_id, 'out_of_view');
    update app_public.issues set assigned_agent_id = null where id = new.id;  -- ISSUE_UPDATED by trigger
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__out_of_agent_view() is 'AFTER UPDATE of project_id or label_ids of an assigned live issue: when none of the assigned agent''s keys can see it any more, the agent''s runs on it end (ABANDONED, reason out_of_view) and it is unassigned (ISSUE_UPDATED assignedAgentId); a queued one goes back to the dispatcher.';

drop trigger if exists _820_out_of_agent_view on app_public.issues;
create trigger _820_out_of_agent_view after update of project_id, label_ids on app_public.issues for each row
  when (new.assigned_agent_id is not null and new.deleted_at is null
        and (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids))
  execute function app_private.tg_issues__out_of_agent_view();
--! EndIncluded issues/triggers.sql
--! Included orchestration/loop.sql
-- orchestration: the loop. Finding and locking records, making steps READY (run + dispatch), judging,
-- cascading readiness, completing plans and goals, opening gates. Called by the goals/plans/executionPlans/
-- reviewGates tools and by accepting a plan's approval request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_goal(p_id text, p_field text default 'id'::text)
 returns app_public.goals
 language plpgsql
 stable
as $$
declare v app_public.goals;
begin
  select * into v from app_public.goals
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Goal not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_goal(p_id text, p_field text) is 'A goal the key can see (a goal tied to an issue follows that issue''s narrowing), else 404 naming the field.';
grant execute on function app_hidden.find_goal(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_plan(p_id text, p_field text default 'id'::text)
 returns app_public.execution_plans
 language plpgsql
 stable
as $$
declare v app_public.execution_plans;
begin
  select * into v from app_public.execution_plans
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Plan not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plan(p_id text, p_field text) is 'An execution plan the key can see (through its goal), else 404 naming the field.';
grant execute on function app_hidden.find_plan(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_step(p_id text, p_field text default 'stepId'::text)
 returns app_public.execution_steps
 language plpgsql
 stable
as $$
declare v app_public.execution_steps;
begin
  select * into v from app_public.execution_steps
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  -- Its plan too: the steps policy asks an unnarrowed key nothing per row, and the plan of a goal tied to a deleted
  -- issue is not there (plans policy), so neither is its step.
  if v.id is null or not exists (select 1 from app_public.execution_plans p where p.id = v.plan_id) then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see, of a plan it can see (through its goal: none of a goal tied to a deleted issue), else 404 naming the field.';
grant execute on function app_hidden.find_step(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.lock_plan(p_plan_id uuid)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  -- Lock order everywhere: goal, then plan. Steps are only changed with their plan locked.
  perform 1 from app_public.goals g where g.id = (select p.goal_id from app_public.execution_plans p where p.id = p_plan_id) for update;
  select * into v from app_public.execution_plans where id = p_plan_id for update;
  return v;
end
$$;
comment on function app_hidden.lock_plan(p_plan_id uuid) is 'Locks a plan''s goal and then the plan (FOR UPDATE) and returns the fresh plan: loop mutations of one goal serialize here.';
grant execute on function app_hidden.lock_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0)
 returns uuid
 language sql
 stable
as $$
  -- The member with the least open work (runs on issues, and plan steps given to it, which have a run only when their
  -- goal has an issue), then the next from p_seed round the members: two root steps at positions 0 and 2 went to the
  -- first of two workers by position alone while the other sat idle.
  with members as (
    select m.agent_id, a.workspace_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role)
  select m.agent_id from members m
  order by (select count(*) from app_public.agent_runs r
            where r.workspace_id = m.workspace_id and r.agent_id = m.agent_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
              and r.step_id is null)
           + (select count(*) from app_public.execution_steps st
              where st.workspace_id = m.workspace_id and st.assigned_agent_id = m.agent_id and st.status in ('READY', 'RUNNING', 'REVIEW')),
           (m.i - coalesce(p_seed, 0) % m.n + m.n) % m.n
  limit 1
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...): the one with the least open work (open runs not of a step, and READY, RUNNING or REVIEW steps given to it), ties spread over the members from p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
begin
  return app_hidden.step_dispatch_work(app_hidden.step_move(p_step, 'READY'));
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE) and is given to its worker (step_dispatch_work).';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_work(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps := p_step;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  -- An agent archived since it was given the step is passed over (it can no longer act): the step goes to a live
  -- crew member in its role, else it is READY with no worker and no run.
  v_agent := coalesce((select a.id from app_public.agents a where a.id = p_step.assigned_agent_id and a.archived_at is null),
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position));
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step, whose title is the
  -- run's currentStep (what the board and agents.workload show it working on). A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    -- Read, not locked: the run's own tools lock it and then this plan (budget trigger), so locking it under the
    -- plan's lock could deadlock; a retry's step has the same title.
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id, current_step)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id, v_step.title)
      returning id into v_run;
    end if;
  end if;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'work', 'planId', v_plan.id, 'goalId', v_goal.id, 'stepId', v_step.id, 'title', v_step.title,
    'body', v_step.body, 'expectedOutput', v_step.expected_output, 'verification', v_step.verification,
    'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id), 'assignedAgentId', v_agent,
    'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count, 'runId', v_run, 'issueId', v_goal.issue_id));
  perform app_hidden.dispatch_to_agent(v_event, v_agent);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) is 'Gives a READY step to its worker: its agent (assigned and not archived, else the crew member in its role, default WORKER; none: no worker) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid)
 returns void
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  -- The steps an archived agent was working on (READY or RUNNING, in a running plan) go to a live crew member in
  -- their role, as a step becoming READY does; a RUNNING one is READY again (its run ended with the archive), so the
  -- new worker starts it. They stayed READY with the archived agent, which nothing would ever move.
  for v_step in
    select s.* from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
    where s.workspace_id = p_workspace_id and s.assigned_agent_id = p_agent_id and s.status in ('READY', 'RUNNING')
      and p.status = 'RUNNING'
    order by p.id, s.position, s.id
    for update of s
  loop
    if v_step.status = 'RUNNING' then
      perform app_hidden.step_make_ready(v_step);
    else
      perform app_hidden.step_dispatch_work(v_step);
    end if;
  end loop;
end
$$;
comment on function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid) is 'On archiving an agent: its READY and RUNNING steps of running plans go to a live crew member in their role (READY, EXECUTION_STEP_READY dispatched), or stay READY with no worker when the crew has none.';

create or replace function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_step app_public.execution_steps;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  update app_public.execution_steps set judge_agent_id = p_judge where id = p_step.id returning * into v_step;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'judge', 'judgeAgentId', p_judge, 'planId', v_plan.id, 'goalId', v_plan.goal_id, 'stepId', v_step.id,
    'title', v_step.title, 'body', v_step.body, 'expectedOutput', v_step.expected_output,
    'verification', v_step.verification, 'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id),
    'assignedAgentId', v_step.assigned_agent_id, 'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count,
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0 to 100 (optional)}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

create or replace function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  -- SKIP LOCKED: a run being reported on right now (its tool locked it, and its budget trigger then waits for this
  -- plan's lock) is left to its agent rather than deadlocking; the stale sweep catches it if nobody closes it.
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.id in (select o.id from app_public.agent_runs o
                 where o.workspace_id = p_plan.workspace_id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
                   and o.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id)
                 for update skip locked);
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) is 'Ends the open runs of a plan attempt''s steps (ABANDONED, reason plan_canceled or plan_completed), when the attempt is canceled or completes.';
grant execute on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_cascade(p_plan_id uuid)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_ready uuid[] := '{}';
begin
  select * into v_plan from app_public.execution_plans where id = p_plan_id;
  if v_plan.status <> 'RUNNING' then
    return v_ready;
  end if;
  for v_step in
    select s.* from app_public.execution_steps s
    where s.plan_id = p_plan_id and s.status = 'TODO' and app_hidden.step_dependencies_done(s)
    order by s.position
  loop
    perform app_hidden.step_make_ready(v_step);
    v_ready := v_ready || v_step.id;
  end loop;
  -- Every step DONE (canceled ones skipped, at least one DONE): the plan completes and its goal is achieved.
  if exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status = 'DONE')
     and not exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status not in ('DONE', 'CANCELED')) then
    v_plan := app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(p_plan_id);
    -- Step runs their agents left open would otherwise stay ACTIVE on a finished plan, and stall.
    perform app_hidden.plan_end_step_runs(v_plan, 'plan_completed');
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED (open step runs end, reason plan_completed) and its goal ACHIEVED. Returns the ids made READY.';
grant execute on function app_hidden.plan_cascade(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_resume(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  perform app_hidden.plan_move(p_plan, 'RUNNING');
  -- Steps READY when the plan was blocked are given to their workers again: their moves were refused meanwhile
  -- (409 plan_not_running), and nothing told them the plan runs again (a READY step sat with nobody on it, fleet probe).
  for v_step in
    select s.* from app_public.execution_steps s where s.plan_id = p_plan.id and s.status = 'READY' order by s.position
  loop
    perform app_hidden.step_dispatch_work(v_step);
  end loop;
  return app_hidden.plan_cascade(p_plan.id);
end
$$;
comment on function app_hidden.plan_resume(p_plan app_public.execution_plans) is 'A BLOCKED plan runs again (reviewGates.resolve, executionPlans.transition RUNNING): RUNNING (EXECUTION_PLAN_STATUS_CHANGED), its READY steps are dispatched to their workers again (EXECUTION_STEP_READY), and the readiness cascade runs. Returns the ids the cascade made READY.';
grant execute on function app_hidden.plan_resume(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_activate(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_plan.id);
  v_goal app_public.goals;
begin
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  -- Spec 3.8: only DRAFT or APPROVED. A BLOCKED plan runs again through its gate (reviewGates.resolve) or
  -- executionPlans.transition RUNNING, which refuse while a gate holds it.
  if v_plan.status not in ('DRAFT', 'APPROVED') then
    raise exception 'Plan is %; plans.activate runs a DRAFT or APPROVED plan%', v_plan.status,
      case when v_plan.status = 'BLOCKED' then ' (a blocked plan runs again when its review gate is resolved)' else '' end
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if v_goal.status not in ('PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; its plan cannot run', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
  if v_goal.status = 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'ACTIVE');
  end if;
  -- Activating answers the plan's open approval requests (one being accepted is already RESOLVED).
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return app_hidden.plan_cascade(v_plan.id);
end
$$;
comment on function app_hidden.plan_activate(p_plan app_public.execution_plans) is 'plans.activate (also run by accepting the plan''s approval request): the active DRAFT/APPROVED attempt with steps becomes RUNNING, its goal ACTIVE (startedAt), root steps READY and dispatched. Other open approval requests of the plan are SUPERSEDED. Returns the ids made READY.';
grant execute on function app_hidden.plan_activate(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.gates_cancel(p_plan_id uuid)
 returns void
 language plpgsql
as $$
declare v_gate app_public.review_gates;
begin
  for v_gate in select * from app_public.review_gates g where g.plan_id = p_plan_id and g.status = 'PENDING' loop
    perform app_hidden.gate_move(v_gate, 'CANCELED', 'the plan ended');
  end loop;
end
$$;
comment on function app_hidden.gates_cancel(p_plan_id uuid) is 'CANCELs the PENDING review gates of a plan that ended.';
grant execute on function app_hidden.gates_cancel(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.caller_works_in_plan(p_plan_id uuid)
 returns boolean
 language sql
 stable
as $$
  select app_hidden.current_agent_id() is not null and (
    exists (select 1 from app_public.execution_plans p where p.id = p_plan_id and p.planner_agent_id = app_hidden.current_agent_id())
    or exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id
               and app_hidden.current_agent_id() in (s.assigned_agent_id, s.judge_agent_id)))
$$;
comment on function app_hidden.caller_works_in_plan(p_plan_id uuid) is 'Whether the calling key is an agent working in the plan: its planner, or a worker or judge of one of its steps. Such an agent neither resolves the plan''s gates nor decides its approval (403 own_plan). Never NULL.';
grant execute on function app_hidden.caller_works_in_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.gate_assert_may_decide(p_plan_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  -- Not by an agent of the plan the gate holds (its planner, or a worker or judge of one of its steps), ADMIN or not:
  -- the worker whose spending stopped the plan approved its own budget.
  if app_hidden.caller_works_in_plan(p_plan_id) then
    raise exception 'An agent working in this plan does not decide its review gates: a person (or another ADMIN-scoped key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.gate_assert_may_decide(p_plan_id uuid) is 'Before a pending review gate of the plan is decided, by reviewGates.resolve or by ending what it holds (canceling its step or plan, abandoning the goal, planning again): a person, or an ADMIN-scoped agent key that does not work in the plan (403 person_required / own_plan otherwise).';
grant execute on function app_hidden.gate_assert_may_decide(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A worker or judge does not end the work it is judged on: canceling a failing step (or the plan, or the goal)
  -- completed the plan and achieved the goal around the judge's verdict. The planner, a person or an agent outside
  -- the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id then
    if p_step.id is not null and app_hidden.current_agent_id() = p_step.assigned_agent_id then
      raise exception 'A worker does not cancel its own step: its planner or a person does' using errcode = 'SV403', detail = 'own_step';
    end if;
    raise exception 'An agent working in this plan (a worker or judge) does not cancel its steps or end it: its planner or a person does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Ending what a pending gate holds cancels the gate: as deciding it.
  if exists (select 1 from app_public.review_gates g where g.plan_id = p_plan.id and g.status = 'PENDING'
             and (p_step.id is null or g.step_id = p_step.id)) then
    perform app_hidden.gate_assert_may_decide(p_plan.id);
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before a tool ends work in a live plan (cancels p_step, or with no step cancels or completes the plan, abandons its goal or plans the goal again): an agent working in the plan must be its planner (403 own_step for a worker canceling its own step, own_plan for the others); where a pending review gate holds what ends, the caller must also be one who may decide it (gate_assert_may_decide).';
grant execute on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A step is its worker's: an agent working in the plan moves or holds (reviewGates.open, the plan to BLOCKED) its
  -- own step, and the plan or another's step only as the planner. A fellow worker moved another's step to BLOCKED or
  -- RUNNING under it, or held it or the whole plan behind a gate only a person could clear. A person or an agent
  -- outside the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id
     and (p_step.id is null or app_hidden.current_agent_id() is distinct from p_step.assigned_agent_id) then
    raise exception 'An agent working in this plan acts only on its own step: the planner or a person moves or holds the plan or another''s step'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before an agent moves a step (executionPlans.transitionStep, where the step''s judge is let through by its caller) or holds work behind a gate (reviewGates.open, executionPlans.transition to BLOCKED; no step = the plan): an agent working in the plan acts on its own step, and on the plan or another''s step only as its planner (403 own_plan).';
grant execute on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Called where only the step's judge (or a person) may pass it: its worker is told own_step, any other agent not_judge.
  if app_hidden.current_agent_id() = p_step.assigned_agent_id then
    raise exception 'The step''s worker does not pass its own work: it moves the step to REVIEW; its judge (plans.recordVerdict) or a person passes it'
      using errcode = 'SV403', detail = 'own_step';
  end if;
  raise exception 'Only the step''s judge (plans.judge dispatched it) or a person passes this step or records its verdict'
    using errcode = 'SV403', detail = 'not_judge';
end
$$;
comment on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) is 'Raises 403 for an agent that is not the step''s judge passing it (plans.recordVerdict, executionPlans.transitionStep to DONE): own_step for its worker, not_judge for any other agent. The callers decide when it applies.';
grant execute on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans)
 returns void
 language plpgsql
 stable
as $$
declare v_request app_public.action_requests;
begin
  -- A plan that asked for approval is approved or run by someone who may decide its request (that gate, own_request
  -- included), whatever became of the request: its planner approving or activating it anyway made approval advisory,
  -- and so did declining it, withdrawing it or superseding it (addSteps) before activating.
  -- (Only where it would be approved or run: another plan's move is the machine's 409.)
  select * into v_request from app_public.action_requests ar
  where ar.id = p_plan.approval_request_id and ar.status <> 'RESOLVED' and p_plan.status in ('DRAFT', 'APPROVED');
  if v_request.id is not null then
    perform app_hidden.action_request_assert_may_act(v_request, false,
      format('This plan asked for approval (action request %s, %s): it runs once a request for it is accepted, or by one who may decide it',
             v_request.id, v_request.status));
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) is 'Before a plan is APPROVED or RUNNING by a tool: once it asked for approval and its request was not accepted (open, declined, withdrawn, superseded), only a key that may decide that request (403 not_allowed / own_request otherwise).';
grant execute on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_cancel(p_plan app_public.execution_plans)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_step app_public.execution_steps;
begin
  v_plan := app_hidden.plan_move(p_plan, 'CANCELED');
  for v_step in select * from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED') order by s.position loop
    perform app_hidden.step_move(v_step, 'CANCELED');
  end loop;
  perform app_hidden.gates_cancel(v_plan.id);
  perform app_hidden.plan_end_step_runs(v_plan, 'plan_canceled');
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return v_plan;
end
$$;
comment on function app_hidden.plan_cancel(p_plan app_public.execution_plans) is 'Cancels a live plan attempt: plan CANCELED, its unfinished steps CANCELED, pending gates CANCELED, open step runs ABANDONED, open approval requests SUPERSEDED.';
grant execute on function app_hidden.plan_cancel(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text)
 returns app_public.goals
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
begin
  select * into v_plan from app_public.execution_plans p where p.goal_id = p_goal.id and p.is_active_attempt for update;
  v_goal := app_hidden.goal_move(p_goal, 'ABANDONED', p_reason);
  if v_plan.id is not null and v_plan.status not in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_cancel(v_plan);
  end if;
  return v_goal;
end
$$;
comment on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) is 'goals.abandon (and rejecting a review gate): the goal becomes ABANDONED (terminal) and its live active plan attempt is canceled.';
grant execute on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_goal app_public.goals;
  v_prior app_public.execution_plans;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_goal from app_public.goals where id = p_goal.id for update;
  if v_goal.status not in ('OPEN', 'PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; it cannot be planned again', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  select * into v_prior from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt for update;
  if v_prior.id is not null then
    update app_public.execution_plans set is_active_attempt = false where id = v_prior.id returning * into v_prior;
    if v_prior.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_assert_may_end(v_prior);
      perform app_hidden.plan_cancel(v_prior);
    end if;
  end if;
  insert into app_public.execution_plans (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  values (v_goal.workspace_id, v_goal.id,
          coalesce((select max(p.attempt) from app_public.execution_plans p where p.goal_id = v_goal.id), 0) + 1,
          p_planner, p_context_set_id, p_auto_judge, coalesce(p_max_step_retries, 2))
  returning * into v_plan;
  if v_goal.status <> 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'PLANNING');  -- GOAL_STATUS_CHANGED (and the planner's dispatch) by trigger
  else
    -- Already planning: the new attempt is still announced (and dispatched to its planner).
    v_event := app_hidden.record_event('GOAL_STATUS_CHANGED', 'goal', v_goal.id,
      app_hidden.goal_status_payload(v_goal, 'PLANNING', 'PLANNING'));
    perform app_hidden.dispatch_to_agent(v_event, p_planner);
  end if;
  return v_plan;
end
$$;
comment on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) is 'A new DRAFT plan attempt for a live goal (plans.decompose, executionPlans.create): the previous attempt flips isActiveAttempt false (canceled if live), the goal moves to PLANNING; GOAL_STATUS_CHANGED carries planId and plannerAgentId and is dispatched to the planner.';
grant execute on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) to svc_visitor;

create or replace function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('goalId', p_goal.id, 'from', p_from, 'to', p_to, 'planId', p.id,
                            'plannerAgentId', p.planner_agent_id, 'issueId', p_goal.issue_id, 'title', p_goal.title)
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal.id and p.is_active_attempt
$$;
comment on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) is 'GOAL_STATUS_CHANGED payload (spec 6.4: from, to, planId = the active attempt) plus goalId, plannerAgentId, issueId, title.';
grant execute on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text default 'steps'::text)
 returns uuid[]
 language plpgsql
as $$
declare
  v_n int := jsonb_array_length(coalesce(p_steps, '[]'));
  v_base int;
  v_ids uuid[] := '{}';
  v_indeg int[];
  v_queue int[] := '{}';
  v_seen int := 0;
  v_i int;
  v_j int;
  v_d int;
  v_step jsonb;
  v_agent uuid;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm). An index listed
  -- twice is one dependency (counted twice, the step never reached in-degree 0 and was called a cycle).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select distinct (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
      if v_d < 0 or v_d >= v_n then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), format('index %s is not a step of this batch (0..%s)', v_d, v_n - 1));
      elsif v_d = v_i then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), 'a step cannot depend on itself');
      end if;
      v_indeg[v_i + 1] := v_indeg[v_i + 1] + 1;
    end loop;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    if v_indeg[v_i + 1] = 0 then v_queue := v_queue || v_i; end if;
  end loop;
  while cardinality(v_queue) > 0 loop
    v_i := v_queue[1];
    v_queue := v_queue[2:];
    v_seen := v_seen + 1;
    for v_j in 0 .. v_n - 1 loop
      if exists (select 1 from jsonb_array_elements_text(coalesce(p_steps->v_j->'dependsOnStepIndexes', '[]')) e where e::int = v_i) then
        v_indeg[v_j + 1] := v_indeg[v_j + 1] - 1;
        if v_indeg[v_j + 1] = 0 then v_queue := v_queue || v_j; end if;
      end if;
    end loop;
  end loop;
  if v_seen < v_n then
    -- Named as the other errors are: 0-based batch positions, the field of the first step in the cycle.
    perform app_hidden.raise_invalid(
      format('%s.%s.dependsOnStepIndexes', p_field, (select min(i) - 1 from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)),
      format('the dependencies make a cycle (steps %s)', (select string_agg((i - 1)::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_agent := (app_hidden.find_live_agent(v_step->>'assignedAgentId', format('%s.%s.assignedAgentId', p_field, v_i))).id;
      -- Its run is on the goal's issue: an agent that cannot see it could not read its step (re-test, fleet fix).
      perform app_hidden.require_agent_sees_issue(a, i, format('%s.%s.assignedAgentId', p_field, v_i))
      from app_public.agents a, app_public.goals g join app_public.issues i on i.id = g.issue_id
      where a.id = v_agent and g.id = p_plan.goal_id;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  -- The plan an approver was asked about has changed: its open approval request is SUPERSEDED (ask again).
  if v_n > 0 then
    perform app_hidden.action_requests_supersede('execution-plan', p_plan.id);
  end if;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. assignedAgentId must be a live agent (400 agent_archived). Steps start TODO; an open approval request of the plan is SUPERSEDED (what it asked about changed).';
grant execute on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  insert into app_public.review_gates (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  values (p_plan.workspace_id, p_plan.id, p_step_id, p_reason, p_title, coalesce(p_details, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v;  -- REVIEW_GATE_OPENED by trigger
  return v;
end
$$;
comment on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) is 'Opens a PENDING review gate on a plan (and step): STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME or MANUAL.';
grant execute on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  perform app_hidden.step_move(p_step, 'BLOCKED');
  return app_hidden.open_gate(v_plan, p_step.id, p_reason, p_title, p_details);
end
$$;
comment on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) is 'A step becomes BLOCKED and a review gate opens on it (approve: the step is ready again with fresh retries; reject: the goal is abandoned).';
grant execute on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_gate.plan_id);
  v_gate app_public.review_gates;
  v_step app_public.execution_steps;
  v_goal app_public.goals;
begin
  select * into v_gate from app_public.review_gates where id = p_gate.id for update;
  if p_decision = 'REJECT' then
    v_gate := app_hidden.gate_move(v_gate, 'REJECTED', p_note);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_goal.status not in ('ACHIEVED', 'ABANDONED') then
      perform app_hidden.goal_abandon(v_goal, coalesce(p_note, 'review gate rejected'));
    elsif v_plan.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_plan);
    end if;
    return v_gate;
  end if;
  v_gate := app_hidden.gate_move(v_gate, 'APPROVED', p_note);
  if v_gate.step_id is not null then
    -- The held step continues with fresh retries: READY when its dependencies are DONE, else back to TODO.
    select * into v_step from app_public.execution_steps where id = v_gate.step_id;
    if v_step.status = 'BLOCKED' then
      update app_public.execution_steps set retry_count = 0 where id = v_step.id returning * into v_step;
      if v_plan.status = 'RUNNING' and app_hidden.step_dependencies_done(v_step) then
        perform app_hidden.step_make_ready(v_step);
      else
        perform app_hidden.step_move(v_step, 'TODO');
      end if;
    end if;
  elsif v_plan.status = 'BLOCKED' and not exists (
      select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
    perform app_hidden.plan_resume(v_plan);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
--! Included events/visibility.sql
-- Which events a narrowed key sees, as the select_in_workspace policy of activity_events asks it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.key_unnarrowed()
 returns boolean
 language sql
 stable parallel safe
as $$
  select cardinality(app_hidden.narrowed_project_ids()) = 0
     and cardinality(app_hidden.narrowed_label_ids()) = 0
     and cardinality(app_hidden.narrowed_initiative_ids()) = 0
$$;
comment on function app_hidden.key_unnarrowed() is 'True when the calling key has no project, label or initiative narrowing: it sees every event of its workspace. The events policy asks this once per statement before any per-row check.';
grant execute on function app_hidden.key_unnarrowed() to svc_visitor;

drop function if exists app_hidden.event_subject_visible(text, uuid);  -- now with the payload (canvas issueIds)

-- plpgsql, not an inline CASE in the policy: its queries are planned once per session and only run for
-- narrowed keys, where the inline form made every events query plan ~300 sub-plans (issue 16).
create or replace function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns boolean
 language plpgsql
 stable
as $$
begin
  if p_subject_type = 'project' then
    return cardinality(app_hidden.narrowed_project_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_project_ids());
  elsif p_subject_type = 'initiative' then
    return cardinality(app_hidden.narrowed_initiative_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_initiative_ids());
  elsif p_subject_type = 'dispatch-rule' then
    -- As the rules themselves (hide_from_narrowed_keys): a narrowed key reads none, nor their events.
    return false;
  elsif p_subject_type = 'plugin' then
    -- A skill invoked about an issue (SKILL_INVOKED issueId) follows the issue; other plugin events are the workspace's.
    return p_payload->>'issueId' is null or app_hidden.issues_unrestricted()
        or exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
  elsif p_subject_type not in ('issue', 'comment', 'agent-run', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
        or app_hidden.issues_unrestricted() then
    return true;
  elsif p_subject_type = 'canvas' then
    -- The canvas itself is the workspace's (created, renamed, deleted); a card or edge change names the issues of
    -- its cards (issueIds, canvas_changed) and is shown only when the key sees them all, as RLS shows it the cards.
    -- Card events written before issueIds existed (migration 000072) name none, so they are not shown.
    return p_payload->>'change' is null or p_payload->>'change' = 'canvas_updated'
        or (jsonb_typeof(p_payload->'issueIds') = 'array'
            and not exists (select 1 from jsonb_array_elements_text(p_payload->'issueIds') x(id)
                            where not exists (select 1 from app_public.issues i where i.id = x.id::uuid)));
  end if;
  -- Subjects that follow their issue: read as the caller, so their own policies (narrowing included) decide.
  -- One statement per subject type: only the one that runs is started (a single CASE over seven EXISTS
  -- started all seven, policies included, in every call).
  case p_subject_type
    -- The event of an issue moving out of the key's view is shown too, by the scope it had (payload before).
    -- A link's event (payload relationId) needs the other end seen too (relatedIssueId; none in the events
    -- written before it was named, which are then not shown).
    when 'issue' then return (exists (select 1 from app_public.issues i where i.id = p_subject_id)
                              or (p_payload ? 'before' and app_hidden.scope_passes_narrowing(
                                    (p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds')))
                         and (not p_payload ? 'relationId'
                              or exists (select 1 from app_public.issues i where i.id = (p_payload->>'relatedIssueId')::uuid));
    -- A comment's events follow its issue (payload issueId), not the comment row: the comments policy hides a
    -- deleted comment, which would take its creation and its deletion out of the stream, the replay and a resume.
    when 'comment' then return exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_subject_id);
    -- A goal's events and its plans', steps' and gates' follow the goal's issue row (a narrowed key sees no goal
    -- without one), not the goal row: the goals policy hides a deleted issue's goals, which would take their events
    -- out of the stream, the replay and a resume for this key only (as for requests, below).
    when 'goal', 'execution-plan', 'execution-step', 'review-gate' then
      return exists (select 1 from app_public.issues i where i.id = app_hidden.subject_issue_id(p_subject_type, p_subject_id));
    -- A request on an issue follows the issue row (payload issueId), as comments do: the requests policy hides those
    -- of a deleted issue, which would take their events out of the stream, the replay and a resume for this key only.
    else return case when p_payload->>'issueId' is not null
                     then exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid)
                     else exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id) end;
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue, comment and agent-run events only of issues it can see (and the ISSUE_UPDATED of an issue leaving its view, by the payload''s before; a link''s ISSUE_UPDATED only when it sees the other end too, relatedIssueId), project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds), plugin events about an issue (skills.invoke issueId) only of issues it can see, dispatch-rule events never (as the rules); other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid)
 returns uuid
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Read as the owner: the record's own policy hides it once its issue is deleted, but its events stay (they follow
  -- the issue row, which the issues policy shows deleted or not, narrowing applied).
  case p_subject_type
    when 'goal' then return (select g.issue_id from app_public.goals g
                             where g.id = p_subject_id and g.workspace_id = app_hidden.current_workspace_id());
    when 'execution-plan' then return (select g.issue_id from app_public.execution_plans p join app_public.goals g on g.id = p.goal_id
                                       where p.id = p_subject_id and p.workspace_id = app_hidden.current_workspace_id());
    when 'execution-step' then return (select g.issue_id from app_public.execution_steps s
                                       join app_public.execution_plans p on p.id = s.plan_id join app_public.goals g on g.id = p.goal_id
                                       where s.id = p_subject_id and s.workspace_id = app_hidden.current_workspace_id());
    when 'review-gate' then return (select g.issue_id from app_public.review_gates rg
                                    join app_public.execution_plans p on p.id = rg.plan_id join app_public.goals g on g.id = p.goal_id
                                    where rg.id = p_subject_id and rg.workspace_id = app_hidden.current_workspace_id());
    when 'chat-thread' then return (select t.issue_id from app_public.chat_threads t
                                    where t.id = p_subject_id and t.workspace_id = app_hidden.current_workspace_id());
    else return null;
  end case;
end
$$;
comment on function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid) is 'The issue a goal, execution plan or step, review gate (through its goal) or chat thread of the caller''s workspace is tied to (null: none, or no such record), read as the owner: what a narrowed key''s view of their events follows (event_subject_visible, chat_event_passes_narrowing), deleted issue or not.';
grant execute on function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid) to svc_visitor;

create or replace function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Runs as the caller: the threads policy decides (the addressee agent's keys, the person who opened it,
  -- workspace admins; a thread tied to an issue only for keys that may see it). The issue a person's message
  -- was about is in the payload, so it must be visible too.
  return exists (select 1 from app_public.chat_threads t where t.id = p_thread_id)
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) is 'Whether the caller sees a chat-thread event: the caller sees the thread (chat_threads policy: participants and admins, the thread issue''s narrowing) and the issue of the message''s context, if any. The event stream asks it for realtime drafts; the events policy asks chat_event_passes_narrowing.';
grant execute on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) to svc_visitor;

create or replace function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
declare v_issue uuid := app_hidden.subject_issue_id('chat-thread', p_thread_id);
begin
  -- The events policy decides who takes part from the payload; this is the narrowing: the thread's issue as the
  -- caller sees issues (the row, deleted or not: the threads policy hides a deleted issue's threads, which would
  -- take their stored events out of the stream, the replay and a resume for this key only, as for requests), and
  -- the issue a person's message was about (in the payload).
  return (v_issue is null or exists (select 1 from app_public.issues i where i.id = v_issue))
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text) is 'Whether a narrowed key sees a stored chat-thread event, beyond the participants the events policy reads from the payload: the thread''s issue, if any, passes the key''s narrowing (deleted or not: a deleted issue''s thread keeps its events, as its requests do), and so does the issue of the message''s context, if any.';
grant execute on function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text) to svc_visitor;
--! EndIncluded events/visibility.sql
--! Included dispatch/triggers.sql
-- Triggers of the dispatch tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.dispatch_rules;
create trigger _100_updated_at before update on app_public.dispatch_rules for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_dispatch_rules__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_rule app_public.dispatch_rules := case when tg_op = 'DELETE' then old else new end;
  v_changed text[] := '{}';
  v_kind text := case tg_op when 'INSERT' then 'DISPATCH_RULE_CREATED' when 'UPDATE' then 'DISPATCH_RULE_UPDATED' else 'DISPATCH_RULE_DELETED' end;
begin
  -- Which agent gets which work is the workspace's to follow like any other change (fleet probe: rules changed
  -- without a trace). A rule deleted with the label, project or agent it names says so too.
  if tg_op = 'UPDATE' then
    if new.position is distinct from old.position then v_changed := array_append(v_changed, 'position'); end if;
    if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
    if new.priority is distinct from old.priority then v_changed := array_append(v_changed, 'priority'); end if;
    if new.label_id is distinct from old.label_id then v_changed := array_append(v_changed, 'labelId'); end if;
    if new.project_id is distinct from old.project_id then v_changed := array_append(v_changed, 'projectId'); end if;
    if new.target_agent_id is distinct from old.target_agent_id then v_changed := array_append(v_changed, 'targetAgentId'); end if;
    if new.enabled is distinct from old.enabled then v_changed := array_append(v_changed, 'enabled'); end if;
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  -- A workspace being deleted takes its rules with it: nothing to tell.
  if tg_op = 'DELETE' and not exists (select 1 from app_public.workspaces w where w.id = old.workspace_id) then
    return null;
  end if;
  perform app_private.record_event(v_rule.workspace_id, v_kind, 'dispatch-rule', v_rule.id,
    jsonb_build_object('ruleId', v_rule.id, 'position', v_rule.position, 'name', v_rule.name, 'priority', v_rule.priority,
      'labelId', v_rule.label_id, 'projectId', v_rule.project_id, 'targetAgentId', v_rule.target_agent_id,
      'enabled', v_rule.enabled)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_dispatch_rules__events() is 'AFTER INSERT/UPDATE/DELETE on dispatch_rules: DISPATCH_RULE_CREATED, DISPATCH_RULE_UPDATED (changes: position, name, priority, labelId, projectId, targetAgentId, enabled; nothing changed, no event; a rule moved by another''s insert, delete or a reorder too), DISPATCH_RULE_DELETED (dispatchRulesDelete, or with the label, project or agent it names). Subject dispatch-rule; read by the keys that read the rules (no narrowed key).';

drop trigger if exists _800_events on app_public.dispatch_rules;
create trigger _800_events after insert or update or delete on app_public.dispatch_rules for each row execute function app_private.tg_dispatch_rules__events();
--! EndIncluded dispatch/triggers.sql
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
  elsif new.kind = 'AGENT_RUN_STATUS_CHANGED' and new.payload->>'to' = 'ABANDONED'
        and new.actor_agent_id is distinct from (new.payload->>'agentId')::uuid then
    -- Its run was ended by someone else (unassigned, handed to another agent, canceled by a person, its plan
    -- canceled): an agent driven by its webhook learnt it only from its next call's 409 (fleet probe).
    perform app_private.enqueue_agent_dispatch(new.id, (new.payload->>'agentId')::uuid);
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__agent_dispatch() is 'AFTER INSERT on activity_events: AGENT_ASSIGNED (manual, handoff or dispatcher) is delivered to the assigned agent''s dispatch channel, and AGENT_RUN_STATUS_CHANGED to ABANDONED by anyone but the run''s agent to that agent''s.';

drop trigger if exists _510_agent_dispatch on app_public.activity_events;
create trigger _510_agent_dispatch after insert on app_public.activity_events for each row when (new.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED')) execute function app_private.tg_activity_events__agent_dispatch();

create or replace function app_private.tg_api_keys__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A new key may let its agent see queued issues it could not (app_hidden.agent_sees_issue).
  perform app_private.wake_dispatcher(new.workspace_id);
  return null;
end
$$;
comment on function app_private.tg_api_keys__wake_dispatcher() is 'AFTER INSERT of an agent''s key: wakes the dispatcher, as the key may let the agent see queued issues it could not.';

drop trigger if exists _850_wake_dispatcher on app_private.api_keys;
create trigger _850_wake_dispatcher after insert on app_private.api_keys for each row when (new.linked_agent_id is not null) execute function app_private.tg_api_keys__wake_dispatcher();
--! EndIncluded dispatch/wake.sql
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
  v_seeing app_public.agents[] := '{}';
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
  -- Most urgent first, then the longest waiting: the first issue an eligible agent can see (an agent whose keys are
  -- narrowed is given only issues it can read; one no free agent sees waits without holding up those behind it).
  -- Assigned and closed issues stay queued (only issues.queue/update {queued: false} clears it) but are no work to hand out.
  for v_issue in
    select i.* from app_public.issues i
    where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
      and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED')
    order by i.priority_rank, i.queued_at, i.created_at, i.id
    limit 200
    for update
  loop
    v_seeing := array(
      select a from unnest(v_eligible) a
      where app_hidden.agent_sees_issue(a.id, v_issue)
        -- Nor to an agent that gave it back (issues.unassign with its own key) since it was last queued.
        and not exists (select 1 from app_public.agent_runs r
                        where r.workspace_id = p_workspace_id and r.issue_id = v_issue.id and r.agent_id = a.id
                          and (r.completion_meta->>'returnedAt')::timestamptz >= v_issue.queued_at));
    exit when cardinality(v_seeing) > 0;
  end loop;
  if cardinality(v_seeing) = 0 then
    return null;
  end if;
  v_eligible := v_seeing;

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
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned open (not DONE/CANCELED) issue that an eligible agent can see (agent_sees_issue) goes, among those agents, to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

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
--! Included issues/tools/unassign.sql
-- The issues.unassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes the issue from its agent: the agent's open runs on it end (ABANDONED, reason unassigned) and assignedAgentId
-- is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue is back in the dispatcher's pool. Not assigned:
-- no change. Run-mode gated, as assignment is.
create or replace function app_tools.issues_unassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.assigned_agent_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  perform app_hidden.end_agent_runs_on_issue(v_issue, v_issue.assigned_agent_id, 'unassigned');
  if app_hidden.current_agent_id() = v_issue.assigned_agent_id then
    -- The agent gives the issue back: the dispatcher handed it straight back to it, 17 times in 10 s (fleet probe).
    -- Its latest run says so, ended here or completed before (runs.complete, then issues.unassign).
    update app_public.agent_runs r set completion_meta = coalesce(r.completion_meta, '{}') || jsonb_build_object('returnedAt', now())
    where r.id = (select l.id from app_public.agent_runs l
                  where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id and l.agent_id = v_issue.assigned_agent_id
                  order by l.started_at desc, l.id desc limit 1);
  end if;
  update app_public.issues set assigned_agent_id = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives the issue back: while it stays queued the dispatcher hands it to other agents, not to this one again (its latest run says returnedAt in completionMeta; a person may still assign it). Not assigned: unchanged. Returns the full issue.';
--! EndIncluded issues/tools/unassign.sql
