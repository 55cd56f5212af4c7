--! Previous: sha1:3e0634758cef8e2143ba5fc2f1435696015c7aab
--! Hash: sha1:564cade797963e448e806fc51dcce6977f4f5437
--! Message: Dashboards from a new user's first contact

--! split: 1-current.sql
-- From a new user's first contact with the dashboards:
-- * agentTimeline names the issue of each line (key, title) and shows an issue taken from the agent (ISSUE_UPDATED
--   now says unassignedAgentId);
-- * dispatchSummary counts a rule's fallback as one reason, whichever rule;
-- * dispatch analytics need READ_ANALYTICS; dispatchTimeseries buckets start on the clock;
-- * a null sinceHours (bucketMinutes, maxItems) means the default.
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
--! Included analytics/dashboards.sql
-- The in-app dashboards of spec 4.14 (GraphQL only, never MCP): agent operations (pipeline, timeline, uptime,
-- webhookHealth) and dispatch analytics (summary, timeseries). Each runs as the caller, so row-level security
-- bounds what it counts (a narrowed key counts only the issues and events it may see).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dashboard_window(p_since_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_since_hours < 1 or p_since_hours > 720 then
    perform app_hidden.raise_invalid('sinceHours', 'from 1 to 720 hours (30 days)');
  end if;
  return now() - make_interval(hours => coalesce(p_since_hours, 24));
end
$$;
comment on function app_hidden.dashboard_window(p_since_hours integer) is 'The start of a dashboard''s window, sinceHours ago (1 to 720, null = 24; 400 sinceHours otherwise).';
grant execute on function app_hidden.dashboard_window(p_since_hours integer) to svc_visitor;

create or replace function app_public.agents_pipeline(since_hours integer default 24)
 returns jsonb
 language sql
 stable
as $$
  with w as (select app_hidden.dashboard_window(since_hours) as since)
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    -- Work waiting for the dispatcher: queued, open, nobody assigned.
    'queuedUnassigned', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.deleted_at is null and i.queued and i.assigned_agent_id is null
                           and s.category not in ('DONE', 'CANCELED')),
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
        'agentId', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
        'lastHeartbeatAt', a.last_heartbeat_at, 'maxConcurrent', a.max_concurrent,
        'assignedOpen', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.assigned_agent_id = a.id and i.deleted_at is null and s.category not in ('DONE', 'CANCELED')),
        'runs', runs.counts)
        order by a.profile_key)
      from app_public.agents a
      cross join lateral (
        select jsonb_build_object(
          'active', count(*) filter (where r.status = 'ACTIVE'),
          'waiting', count(*) filter (where r.status = 'WAITING'),
          'stalled', count(*) filter (where r.status = 'STALLED'),
          'completed', count(*) filter (where r.status = 'COMPLETED'),
          'abandoned', count(*) filter (where r.status = 'ABANDONED')) as counts
        from app_public.agent_runs r
        where r.agent_id = a.id and (r.status in ('ACTIVE', 'WAITING', 'STALLED') or r.finished_at >= w.since)) runs
      where a.archived_at is null), '[]'))
  from w
$$;
comment on function app_public.agents_pipeline(since_hours integer) is 'Agent operations dashboard: each live agent''s status, open assigned issues and runs (active, waiting, stalled now; completed and abandoned in the last sinceHours, default 24), and the queued issues nobody holds. In-app only (spec 4.14).';
grant execute on function app_public.agents_pipeline(since_hours integer) to svc_visitor;

create or replace function app_public.agent_timeline(agent_id uuid, since_hours integer default 24, max_items integer default 200)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  if max_items < 1 or max_items > 1000 then
    perform app_hidden.raise_invalid('maxItems', 'from 1 to 1000');
  end if;
  if not exists (select 1 from app_public.agents a where a.id = agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- What happened to and by the agent, newest first: assignments, its runs' moves, presence, watchdog alerts, kicks,
  -- and what it wrote (events whose actor is the agent).
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'items', coalesce((
    select jsonb_agg(jsonb_build_object('id', e.id, 'kind', e.kind, 'at', e.created_at, 'subjectType', e.subject_type,
                                        'subjectId', e.subject_id, 'payload', e.payload,
                                        -- The issue it is about, by key, when the caller sees it: a line a person can act on.
                                        'issueId', i.id, 'issueKey', i.key, 'issueTitle', i.title) order by e.seq desc)
    from (select e.* from app_public.activity_events e
          where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= v_since
            and (e.actor_agent_id = agent_id
                 or (e.subject_type = 'agent' and e.subject_id = agent_id)
                 or (e.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_KICKED', 'AGENT_NOACK', 'ISSUE_STALLED')
                     and (e.payload->>'agentId' = agent_id::text or e.payload->>'to' = agent_id::text or e.payload->>'from' = agent_id::text))
                 or (e.kind = 'ISSUE_UPDATED' and e.payload->>'unassignedAgentId' = agent_id::text))
          order by e.seq desc limit coalesce(max_items, 200)) e
    left join app_public.issues i
      on i.id = coalesce(case when e.subject_type = 'issue' then e.subject_id end, (e.payload->>'issueId')::uuid)), '[]'));
end
$$;
comment on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) is 'Agent operations dashboard: the events of one agent in the last sinceHours (default 24), newest first, at most maxItems (default 200, max 1000), each with the key and title of the issue it is about when the key sees it: its assignments (to and from it, unassignment included), its runs'' moves, presence changes, watchdog alerts and kicks, and what it did. In-app only (spec 4.14).';
grant execute on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) to svc_visitor;

create or replace function app_public.agent_uptime(agent_id uuid, since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_agent app_public.agents;
  v_first text;
  v_spans jsonb;
begin
  select * into v_agent from app_public.agents a where a.id = agent_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- Time before the agent existed is no time OFFLINE.
  v_since := greatest(v_since, v_agent.created_at);
  -- The status at the window's start: the last change before it, else the first change's `from` inside it, else the
  -- status now (nothing changed in the window).
  select e.payload->>'to' into v_first from app_public.activity_events e
  where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at < v_since
  order by e.seq desc limit 1;
  if v_first is null then
    select e.payload->>'from' into v_first from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
    order by e.seq limit 1;
  end if;
  -- Seconds in each status: each change closes the span of the status before it; the last runs until now.
  with changes as (
    select v_since as at, coalesce(v_first, v_agent.status) as status
    union all
    select e.created_at, e.payload->>'to' from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
  ), spans as (
    select status, extract(epoch from coalesce(lead(at) over (order by at), now()) - at) as seconds from changes
  )
  select jsonb_object_agg(status, round(total)) into v_spans
  from (select status, sum(seconds) as total from spans group by status) t;
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'windowStart', v_since, 'status', v_agent.status,
    'secondsByStatus', coalesce(v_spans, '{}'),
    'changes', (select count(*) from app_public.activity_events e where e.workspace_id = v_agent.workspace_id
                and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since),
    -- Up = ONLINE or BUSY.
    'uptimeRatio', round(((coalesce((v_spans->>'ONLINE')::numeric, 0) + coalesce((v_spans->>'BUSY')::numeric, 0))
                          / greatest(1, extract(epoch from now() - v_since)))::numeric, 4));
end
$$;
comment on function app_public.agent_uptime(agent_id uuid, since_hours integer) is 'Agent operations dashboard: seconds one agent spent ONLINE, BUSY and OFFLINE in the last sinceHours (default 24), from its AGENT_STATUS_CHANGED events, the number of changes, and uptimeRatio (ONLINE or BUSY over the window, which starts at the agent''s creation when that is later: windowStart). In-app only (spec 4.14).';
grant execute on function app_public.agent_uptime(agent_id uuid, since_hours integer) to svc_visitor;

create or replace function app_public.webhook_health(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- Webhooks are an admin's, and a narrowed key reads none (their attempts may echo any issue's event).
  if not app_hidden.is_workspace_admin() or not app_hidden.key_unnarrowed() then
    raise exception 'Webhook health is for a workspace OWNER or ADMIN with a key without narrowing' using errcode = 'SV403', detail = 'admin_required';
  end if;
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'webhooks', coalesce((
    select jsonb_agg(jsonb_build_object(
      'webhookId', w.id, 'url', w.url, 'active', w.active, 'deactivatedReason', w.deactivated_reason,
      'pending', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'delivered', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.delivered_at >= v_since),
      'attempts', a.attempts, 'failedAttempts', a.failed,
      'successRate', case when a.attempts > 0 then round((a.attempts - a.failed)::numeric / a.attempts, 4) end,
      'p95DurationMs', a.p95,
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.webhook_id = w.id),
      'lastError', (select coalesce(x.error, 'HTTP ' || x.status_code) from app_public.webhook_delivery_attempts x
                    join app_public.webhook_deliveries d on d.id = x.delivery_id
                    where d.webhook_id = w.id and (x.status_code is null or x.status_code not between 200 and 299)
                    order by x.started_at desc limit 1))
      order by w.created_at, w.id)
    from app_public.webhooks w
    left join lateral (
      select count(*) as attempts,
             count(*) filter (where x.status_code is null or x.status_code not between 200 and 299) as failed,
             percentile_disc(0.95) within group (order by x.duration_ms) as p95
      from app_public.webhook_delivery_attempts x join app_public.webhook_deliveries d on d.id = x.delivery_id
      where d.webhook_id = w.id and x.started_at >= v_since) a on true), '[]'));
end
$$;
comment on function app_public.webhook_health(since_hours integer) is 'Agent operations dashboard (OWNER/ADMIN, no narrowing): each webhook''s deliveries pending and dead-lettered now, delivered, attempted and failed in the last sinceHours (default 24), success rate, p95 attempt duration, the last delivery and the last failure. In-app only (spec 4.14).';
grant execute on function app_public.webhook_health(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_summary(since_hours integer default 24)
 returns jsonb
 language sql
 stable
as $$
  with w as (select app_hidden.dashboard_window(since_hours) as since, app_hidden.require_scope('READ_ANALYTICS') as scope),
  assigned as (
    select e.* from app_public.activity_events e, w
    where e.workspace_id = app_hidden.current_workspace_id() and e.kind = 'AGENT_ASSIGNED' and e.created_at >= w.since
  ),
  -- Queue to assignment: each automatic assignment against the latest ISSUE_QUEUED of its issue before it.
  waits as (
    select extract(epoch from a.created_at - q.created_at) as seconds
    from assigned a
    cross join lateral (select e.created_at from app_public.activity_events e
                        where e.workspace_id = a.workspace_id and e.subject_type = 'issue' and e.subject_id = a.subject_id
                          and e.kind = 'ISSUE_QUEUED' and e.seq < a.seq
                        order by e.seq desc limit 1) q
    where (a.payload->>'auto')::boolean
  )
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.deleted_at is null and i.queued and i.assigned_agent_id is null
                           and s.category not in ('DONE', 'CANCELED')),
    'assignments', (select count(*) from assigned),
    'automatic', (select count(*) from assigned where (payload->>'auto')::boolean),
    'manual', (select count(*) from assigned where not coalesce((payload->>'auto')::boolean, false)),
    'byReason', coalesce((select jsonb_object_agg(reason, n) from (
                  -- A rule's fallback names its rule id (spec 6.4): counted as one reason, whichever rule.
                  select coalesce(regexp_replace(payload->>'reason', '^rule:[^:]+:', 'rule:'), 'none') as reason, count(*) as n
                  from assigned group by 1) r), '{}'),
    'byMode', coalesce((select jsonb_object_agg(mode, n) from (
                  select payload->'dispatch'->>'mode' as mode, count(*) as n from assigned
                  where payload->'dispatch'->>'mode' is not null group by 1) m), '{}'),
    'byAgent', coalesce((select jsonb_agg(jsonb_build_object('agentId', x.agent_id, 'profileKey', ag.profile_key, 'assignments', x.n)
                                          order by x.n desc, ag.profile_key)
                  from (select payload->>'agentId' as agent_id, count(*) as n from assigned group by 1) x
                  left join app_public.agents ag on ag.id::text = x.agent_id), '[]'),
    'queueToAssignSeconds', (select jsonb_build_object(
                  'count', count(*),
                  'p50', round(percentile_cont(0.5) within group (order by seconds)::numeric, 1),
                  'p90', round(percentile_cont(0.9) within group (order by seconds)::numeric, 1),
                  'max', round(max(seconds)::numeric, 1)) from waits),
    'watchdogs', (select jsonb_build_object(
                  'agentNoAck', count(*) filter (where e.kind = 'AGENT_NOACK'),
                  'issueStalled', count(*) filter (where e.kind = 'ISSUE_STALLED'),
                  'slaBreach', count(*) filter (where e.kind = 'ISSUE_SLA_BREACH'))
                  from app_public.activity_events e, w
                  where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= w.since
                    and e.kind in ('AGENT_NOACK', 'ISSUE_STALLED', 'ISSUE_SLA_BREACH')))
$$;
comment on function app_public.dispatch_summary(since_hours integer) is 'Dispatch analytics (READ_ANALYTICS): assignments in the last sinceHours (default 24), automatic and manual, by reason, by dispatch mode and by agent; the queue-to-assignment wait of automatic ones (p50, p90, max seconds); watchdog alerts (AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH); queued issues nobody holds now. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_summary(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_timeseries(since_hours integer default 24, bucket_minutes integer default 60)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_step interval;
begin
  perform app_hidden.require_scope('READ_ANALYTICS');
  if bucket_minutes < 5 or bucket_minutes > 1440 or coalesce(since_hours, 24) * 60 / coalesce(bucket_minutes, 60) > 500 then
    perform app_hidden.raise_invalid('bucketMinutes', 'from 5 to 1440 minutes, and at most 500 buckets in the window');
  end if;
  v_step := make_interval(mins => coalesce(bucket_minutes, 60));
  -- Buckets on the clock (an hour's bucket starts on the hour), the first one holding the window's start.
  v_since := date_bin(v_step, v_since, timestamptz '2000-01-01 00:00:00+00');
  -- Buckets aligned to the window's start, oldest first, empty ones included (a chart needs every point).
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'bucketMinutes', coalesce(bucket_minutes, 60), 'buckets', (
    select jsonb_agg(jsonb_build_object('start', v_since + v_step * b.n, 'queued', coalesce(c.queued, 0),
                                        'assigned', coalesce(c.assigned, 0), 'automatic', coalesce(c.automatic, 0),
                                        'noAck', coalesce(c.no_ack, 0), 'stalled', coalesce(c.stalled, 0)) order by b.n)
    from generate_series(0, ceil(extract(epoch from now() - v_since) / extract(epoch from v_step))::int - 1) b(n)
    -- Each event counted into its bucket by arithmetic, in one pass over the window (a range join per bucket took
    -- 4 s for 500 buckets over 100,000 events).
    left join (
      select floor(extract(epoch from e.created_at - v_since) / extract(epoch from v_step))::int as n,
             count(*) filter (where e.kind = 'ISSUE_QUEUED') as queued,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED') as assigned,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED' and (e.payload->>'auto')::boolean) as automatic,
             count(*) filter (where e.kind = 'AGENT_NOACK') as no_ack,
             count(*) filter (where e.kind = 'ISSUE_STALLED') as stalled
      from app_public.activity_events e
      where e.workspace_id = app_hidden.current_workspace_id()
        and e.kind in ('ISSUE_QUEUED', 'AGENT_ASSIGNED', 'AGENT_NOACK', 'ISSUE_STALLED') and e.created_at >= v_since
      group by 1) c on c.n = b.n));
end
$$;
comment on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) is 'Dispatch analytics (READ_ANALYTICS): per bucket of bucketMinutes (default 60, 5 to 1440, at most 500 buckets; buckets start on the clock, the first holding the window''s start) over the last sinceHours (default 24), oldest first, empty buckets included: issues queued, assignments (and the automatic ones), AGENT_NOACK and ISSUE_STALLED alerts. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) to svc_visitor;
--! EndIncluded analytics/dashboards.sql
