--! Previous: sha1:ae49ee97bd322b2d186b92e7e805190a0eb74d05
--! Hash: sha1:cdeb4d70ed23af1269c1b22ab387edf6cd862744
--! Message: Stream positions from one sequencer after commit; issue numbers from a sequence per workspace; createMany checks every item first; visible_parent_id in plpgsql

--! split: 1-current.sql
-- The data path, issue 16.
-- 1. The per-row parent check of every issue shape is plpgsql (planned once per session).
--! Included issues/shapes.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not sql: a `language sql` function with a FROM clause is never inlined, and PostgreSQL 17
  -- plans its body again in every statement that calls it (the joins and the RLS policies of five tables:
  -- ~1.5 ms of a 1.8 ms issues.get). plpgsql keeps the plan for the session.
  -- Joins rather than four scalar subqueries: measured 40 us per call instead of 250 us.
  -- The same joins read the issue and shape it in one query in issues.get and issue_json_after_write.
  return (
    select app_hidden.issue_lean_json(i, s, p, a, li.ids)
           || case when p_full then app_hidden.issue_extra_json(i, lf.labels) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                        order by il.created_at, l.id) as labels
                       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                       where p_full and il.issue_id = i.id) lf on true);
end
$$;
comment on function app_hidden.issue_json(i app_public.issues, p_full boolean) is 'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';
grant execute on function app_hidden.issue_json(i app_public.issues, p_full boolean) to svc_visitor;

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  select app_hidden.issue_lean_json(i, s, p, a, li.ids) || app_hidden.issue_extra_json(i, lf.labels)
  into v_json
  from app_public.issues i
  left join app_public.statuses s on s.id = i.status_id
  left join app_public.projects p on p.id = i.project_id
  left join app_public.agents a on a.id = i.assigned_agent_id
  left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                     from app_public.issue_labels il where il.issue_id = i.id) li on true
  left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                      order by il.created_at, l.id) as labels
                     from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                     where il.issue_id = i.id) lf on true
  where i.id = p_issue_id;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query: a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'description', i.description,
    'labels', coalesce(p_labels, '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
$$;
comment on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) is 'What the full issue shape adds to the lean one (description, labels {id, name, color}, the completion contract, creator, start and completion), from rows the caller already fetched; inlined.';
grant execute on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) to svc_visitor;

create or replace function app_hidden.visible_parent_id(p_parent_id uuid)
 returns uuid
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not SQL: called per row of every issue shape, and a SQL function with a subquery is planned again
  -- in every statement (PostgreSQL 17); most issues have no parent and most keys are not narrowed.
  if p_parent_id is null or app_hidden.issues_unrestricted() then
    return p_parent_id;
  end if;
  -- Runs as the caller: the issues policy decides whether the parent is visible.
  return (select p.id from app_public.issues p where p.id = p_parent_id);
end
$$;
comment on function app_hidden.visible_parent_id(p_parent_id uuid) is 'The parent issue id as the caller may see it: NULL for a narrowed key that cannot see the parent (its id stays hidden, docs/decisions.md).';
grant execute on function app_hidden.visible_parent_id(p_parent_id uuid) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else jsonb_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', app_hidden.visible_parent_id(i.parent_id), 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce(p_label_ids, '[]'),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null).';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'A short issue reference (id, key, number, title, status) embedded in relations, pins and time entries.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues) to svc_visitor;

create or replace function app_hidden.status_json(s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(s app_public.statuses) is 'Status (spec 2.3).';
grant execute on function app_hidden.status_json(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.watcher_json(w app_public.issue_watchers)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(w app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';
grant execute on function app_hidden.watcher_json(w app_public.issue_watchers) to svc_visitor;
--! EndIncluded issues/shapes.sql

-- 2. Stream positions are handed out after commit by one sequencer (app_private.sequence_events, called by
--    every process's Notifier), not at commit under a per-workspace lock with a NOTIFY per writing
--    transaction: writers of one workspace no longer queue behind each other's WAL flush.
drop trigger if exists _900_sequence_and_notify on app_public.activity_events;
drop function if exists app_private.tg_activity_events__sequence();
create index if not exists activity_events_unsequenced_idx on app_public.activity_events (seq) where stream_pos is null;
comment on column app_public.activity_events.stream_pos is 'Position in the workspace''s event stream, handed out after commit by app_private.sequence_events (one sequencer at a time, so every snapshot sees a prefix). SSE resumes with stream_pos > the last delivered one; NULL until sequenced (moments after commit).';
comment on sequence app_private.activity_event_stream_pos is 'Source of activity_events.stream_pos; handed out by app_private.sequence_events only.';
--! Included events/stream.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.stream_backlog(p_after bigint, p_cap integer)
 returns integer
 language sql
 stable
as $$
  select count(*)::int from (select 1 from app_public.activity_events e
                             where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
                             limit p_cap) t
$$;
comment on function app_hidden.stream_backlog(p_after bigint, p_cap integer) is 'SSE resume: how many visible events follow a position, counting at most p_cap (the replay bound).';
grant execute on function app_hidden.stream_backlog(p_after bigint, p_cap integer) to svc_visitor;

create or replace function app_hidden.stream_events(p_ids uuid[])
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', e.stream_pos, 'event', app_hidden.event_json(e, false))
                            order by e.stream_pos), '[]')
  from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id() and e.id = any(p_ids) and e.stream_pos is not null
$$;
comment on function app_hidden.stream_events(p_ids uuid[]) is 'SSE live path: the given events that the caller may see, as [{pos, event}] in stream order.';
grant execute on function app_hidden.stream_events(p_ids uuid[]) to svc_visitor;

create or replace function app_hidden.stream_events_after(p_after bigint, p_limit integer)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', t.stream_pos, 'event', app_hidden.event_json(t, false))
                            order by t.stream_pos), '[]')
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
        order by e.stream_pos limit p_limit) t
$$;
comment on function app_hidden.stream_events_after(p_after bigint, p_limit integer) is 'SSE resume: up to p_limit events after a stream position that the caller may see, oldest first.';
grant execute on function app_hidden.stream_events_after(p_after bigint, p_limit integer) to svc_visitor;

create or replace function app_hidden.stream_head()
 returns bigint
 language sql
 stable
as $$
  select coalesce(max(e.stream_pos), 0) from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.stream_head() is 'SSE: the highest stream position in the caller''s workspace (a new subscriber''s starting point).';
grant execute on function app_hidden.stream_head() to svc_visitor;

create or replace function app_hidden.stream_position(p_event_id uuid, p_max_age interval)
 returns bigint
 language sql
 stable
as $$
  -- An event not positioned yet (committed moments ago; app_private.sequence_events) resumes from the head:
  -- it and whatever follows it arrive live.
  select coalesce(e.stream_pos, app_hidden.stream_head()) from app_public.activity_events e
  where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()
    and e.created_at > now() - p_max_age
$$;
comment on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) is 'SSE resume: stream position of a Last-Event-ID the caller may see and that is younger than p_max_age (the head if it has none yet); NULL otherwise.';
grant execute on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) to svc_visitor;

create or replace function app_private.sequence_events(p_limit integer)
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  r record;
  v_count integer := 0;
begin
  -- One sequencer at a time in the database, whichever process calls: positions are handed out only here,
  -- in transactions that follow one another, so every snapshot sees a prefix of each workspace's positions
  -- and a reader resuming after position P can never miss an event that gets a lower one later. Writers
  -- take no lock and send no NOTIFY (whose database-wide lock is held through every commit's WAL flush).
  if not pg_try_advisory_xact_lock(1398161490, 0) then
    return 0;
  end if;
  for r in
    update app_public.activity_events e set stream_pos = p.pos
    from (select t.id, nextval('app_private.activity_event_stream_pos') as pos
          from (select u.id from app_public.activity_events u where u.stream_pos is null order by u.seq limit p_limit) t) p
    where e.id = p.id and e.stream_pos is null
    returning e.id, e.seq, e.stream_pos, e.workspace_id
  loop
    perform pg_notify('svc_events', json_build_object(
      'id', r.id, 'seq', r.seq, 'pos', r.stream_pos, 'workspaceId', r.workspace_id)::text);
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$$;
comment on function app_private.sequence_events(p_limit integer) is 'Gives committed events without a stream position one (oldest first, at most p_limit) and NOTIFYs svc_events {id, seq, pos, workspaceId} for each; returns how many. Called in a loop by every process''s Notifier; one runs at a time.';
--! EndIncluded events/stream.sql
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

-- 3. Issue numbers come from a sequence per workspace instead of a counter row locked until commit.
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

create or replace function app_private.issue_number_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
 set search_path to 'pg_catalog'
as $$ select 'app_private.issue_numbers_' || replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.issue_number_sequence(p_workspace_id uuid) is 'The qualified name of a workspace''s issue number sequence (created with the workspace).';

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
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields. A change that changes nothing writes nothing.';

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

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
-- issues.createMany checks every item before any takes a number (a failed call leaves no gap).
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run, swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    select * into v_issue from app_public.issues where id = v_issue.id for update;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.id into v.cycle_id from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v.cycle_id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.uuid_array(args->'labelIds', 'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;

-- issues.create's checks, apart from the insert: issues.createMany runs them for every item before any item
-- takes a number.
create or replace function app_hidden.issue_create_refs(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
  end if;

  if cardinality(v_label_ids) > 0
     and (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  return jsonb_build_object('statusId', v_status_id, 'projectId', v_project_id, 'parentId', v_parent.id);
end
$$;
comment on function app_hidden.issue_create_refs(args jsonb) is 'issues.create''s checks without the insert: the status (default unless statusId), project, parent and labels, resolved as {statusId, projectId, parentId}; 404 naming the field otherwise.';
grant execute on function app_hidden.issue_create_refs(args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
--! Included issues/tools/create.sql
-- The issues.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new issue (default status unless statusId), labels attached; ISSUE_CREATED is written by trigger. A
-- narrowed key may only create inside its narrowing.
create or replace function app_tools.issues_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_label_ids uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
  v_id uuid := gen_random_uuid();
  v_refs jsonb;
begin
  v_refs := app_hidden.issue_create_refs(args);
  -- Everything that can fail is checked above, so the number the insert takes (trigger _200_assign_number,
  -- from the workspace's sequence) is not lost to a failure after it.
  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), (v_refs->>'statusId')::uuid,
          (v_refs->>'projectId')::uuid, (v_refs->>'parentId')::uuid, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  if cardinality(v_label_ids) > 0 then
    insert into app_public.issue_labels (workspace_id, issue_id, label_id)
    select v_ws, v_id, l from unnest(v_label_ids) l;
  end if;

  return app_hidden.issue_json_after_write(v_id);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/create.sql
--! Included issues/tools/createMany.sql
-- The issues.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- ISSUE_CREATED per issue.
create or replace function app_tools.issues_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  -- Every item is checked before any takes a number: a failing item leaves no gap in the numbers.
  perform app_hidden.each_item(args->'items', 'app_hidden.issue_create_refs(jsonb)');
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_tools.issues_create(jsonb)'));
end
$$;
comment on function app_tools.issues_create_many(args jsonb) is 'issues.createMany: Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.';
grant execute on function app_tools.issues_create_many(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/createMany.sql
do $$
declare r record;
begin
  for r in select w.id, coalesce(c.last_issue_number, 0) as last
           from app_public.workspaces w left join app_private.workspace_counters c on c.workspace_id = w.id
  loop
    execute format('create sequence if not exists %s as integer', app_private.issue_number_sequence(r.id));
    if r.last > 0 then
      perform setval(app_private.issue_number_sequence(r.id)::regclass, r.last);
    end if;
  end loop;
end
$$;
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

drop trigger if exists _800_events on app_public.memberships;
create trigger _800_events after insert or delete or update on app_public.memberships for each row execute function app_private.tg_memberships__events();

drop trigger if exists _100_updated_at on app_public.workspaces;
create trigger _100_updated_at before update on app_public.workspaces for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _900_drop_number_sequence on app_public.workspaces;
create trigger _900_drop_number_sequence after delete on app_public.workspaces for each row execute function app_private.tg_workspaces__drop_number_sequence();

drop trigger if exists _500_seed_statuses on app_public.workspaces;
create trigger _500_seed_statuses after insert on app_public.workspaces for each row execute function app_private.tg_workspaces__seed_statuses();
--! EndIncluded workspace/triggers.sql
drop table if exists app_private.workspace_counters;
