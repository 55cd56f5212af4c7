--! Previous: sha1:6362e4f30ded0078182cf56dff9b579284ed9f30
--! Hash: sha1:eceb610f285e1b153449d62436ff86415a19c72a
--! Message: issues.create re-reads without label subqueries when it set none; the number sequence name inlined; issues_list_idx dropped (duplicate of the unique (workspace_id, number))

--! split: 1-current.sql
-- issues.create without labels re-reads the new issue without the label subqueries.
drop function if exists app_hidden.issue_json_after_write(uuid);
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

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean default true)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  if p_has_labels then
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
  else
    -- The writer knows the issue has no labels (a create without labelIds): the label subqueries, whose
    -- start-up is a fifth of this query, are left out.
    select app_hidden.issue_lean_json(i, s, p, a, '[]') || app_hidden.issue_extra_json(i, '[]')
    into v_json
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    where i.id = p_issue_id;
  end if;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query (without the label subqueries when the writer knows there are none): a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean) to svc_visitor;

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

  return app_hidden.issue_json_after_write(v_id, cardinality(v_label_ids) > 0);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/create.sql
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim; another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %', v_issue.claim_expires_at
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240))
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it; another user''s unexpired claim is 409 already_claimed.';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
-- The name of a workspace's number sequence is inlined (no SET clause).
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
-- issues_list_idx (workspace_id, number desc) where deleted_at is null duplicated the unique
-- (workspace_id, number) index, which the list and search plans read (soft-deleted rows are few and filtered):
-- one index less to update on every create.
drop index if exists app_public.issues_list_idx;
--! Included issues/search.sql
-- Full-text search over issues (issues.list query, GraphQL searchIssues).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.search_tsquery(p_query text, p_field text default 'query'::text)
 returns tsquery
 language plpgsql
 immutable
as $$
declare
  v_words text[];
begin
  -- Only the words (letters and digits) reach to_tsquery: no operator, quote or backslash of the input can.
  v_words := array(select lower(m[1]) from regexp_matches(coalesce(p_query, ''), '([[:alnum:]]+)', 'g') m limit 32);
  if cardinality(v_words) = 0 then
    raise exception 'query has no words to search for' using errcode = 'SV400', column = p_field;
  end if;
  -- Every word must match; the last one as a prefix (people search while they type).
  return to_tsquery('simple', array_to_string(v_words, ' & ') || ':*');
end
$$;
comment on function app_hidden.search_tsquery(p_query text, p_field text) is 'The tsquery of a search box: its words (letters and digits, at most 32) ANDed, the last one as a prefix; 400 on the field when it has none.';
grant execute on function app_hidden.search_tsquery(p_query text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer)
 returns table(id uuid, number integer, rank real)
 language plpgsql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
 set plan_cache_mode to 'force_custom_plan'
as $$
declare
  -- Only the newest v_ranked matches are ranked (ts_rank reads each match's document); older ones follow,
  -- newest first, with rank -1.
  v_ranked constant int := 500;
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce(p_limit, 2147483647);
  v_boundary int;
  v_n int := 0;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through (workspace_id, number) when many issues match (it stops after
    -- v_ranked), through issues_search_gin (workspace, document) when few do (custom plan per call: the
    -- planner sees the query).
    select coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.number), '{}'),
           coalesce(array_agg(pg_catalog.ts_rank(c.search, p_query)), '{}')
    into v_ids, v_numbers, v_ranks
    from (select i.id, i.number, i.search from app_public.issues i
          where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
          order by i.number desc limit v_ranked) c;
    if pg_catalog.cardinality(v_ids) = v_ranked then
      v_boundary := v_numbers[v_ranked];
    end if;
    return query
      select c.id, c.number, c.rank from rows from (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_numbers), pg_catalog.unnest(v_ranks)) as c(id, number, rank)
      where p_after_rank is null or (c.rank, c.number) < (p_after_rank, p_after_number)
      order by c.rank desc, c.number desc
      limit v_limit;
    get diagnostics v_n = row_count;
    if v_boundary is null or v_n >= v_limit then
      return;
    end if;
    p_after_number := v_boundary;
  end if;
  return query
    select i.id, i.number, (-1)::real from app_public.issues i
    where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
      and i.number < p_after_number
    order by i.number desc
    limit v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) is 'The caller''s workspace''s issues matching p_query: the newest 500 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues, the newest 1,000 12 ms, the newest 500 4.5 ms). After the (rank, number) of a cursor, at most p_limit (null = all). Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) to svc_visitor;

create or replace function app_public.search_issues(query text)
 returns setof app_public.issues
 language sql
 stable
as $$
  select i.* from app_hidden.issue_search_matches(app_hidden.search_tsquery(query)) m
  join app_public.issues i on i.id = m.id
  order by m.rank desc, m.number desc
$$;
comment on function app_public.search_issues(query text) is 'Issues whose title or description match the words of query (the last word as a prefix), best match first (title matches weigh more), then newest. Only issues the key may see.';
grant execute on function app_public.search_issues(query text) to svc_visitor;
--! EndIncluded issues/search.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_page app_hidden.page_row[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text := 'app_public.issues i';
  v_rank text := 'null::real';
  v_status_ids uuid[];
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the (workspace_id, number) index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    v_page := array(
      select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, '[]')), (t.i).number::text, null)::app_hidden.page_row
      from (select i from app_public.issues i
            where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
            order by i.number desc limit v_limit + 1) t
      left join app_public.statuses s on s.id = (t.i).status_id
      left join app_public.projects p on p.id = (t.i).project_id
      left join app_public.agents a on a.id = (t.i).assigned_agent_id
      left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                         from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
      order by (t.i).number desc);
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'query' is not null then
      -- Full-text search (issues_search_gin): ranked, paged by (rank, number) from the cursor on.
      v_query := app_hidden.search_tsquery(args->>'query');
      -- The matches come from a definer function (the index is unusable under RLS, see issue_search_matches);
      -- joined back to issues, the policies apply.
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
        v_page := array(
          select (app_hidden.issue_lean_json(i, s, p, a, coalesce(l.ids, '[]')), m.rank::text || ':' || m.number::text, null)::app_hidden.page_row
          from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
          join app_public.issues i on i.id = m.id
          left join app_public.statuses s on s.id = i.status_id
          left join app_public.projects p on p.id = i.project_id
          left join app_public.agents a on a.id = i.assigned_agent_id
          left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                             from app_public.issue_labels il where il.issue_id = i.id) l on true
          order by m.rank desc, m.number desc);
        return app_hidden.page_json(v_page, v_limit, 'issues-search');
      else
        v_from := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
        if v_after is not null then
          v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
        end if;
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
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
      end if;
      v_where := v_where || case cardinality(v_status_ids)
        when 0 then ' and false'
        when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
        else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
    end if;
    if args->>'open' is not null then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
      v_where := v_where || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                        else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array(select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')), %s, null)::app_hidden.page_row
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
       order by %s)', v_sort, v_rank, v_from, v_where, v_order, v_limit + 1, v_outer_order)
    into v_page
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json(v_page, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
