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
    select app_hidden.issue_lean_json(i, s, p, a)::jsonb
           || case when p_full then app_hidden.issue_extra_json(i, app_hidden.issue_labels_json(i.label_ids)) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id);
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
  select app_hidden.issue_lean_json(i, s, p, a)::jsonb || app_hidden.issue_extra_json(i, app_hidden.issue_labels_json(i.label_ids))
  into v_json
  from app_public.issues i
  left join app_public.statuses s on s.id = i.status_id
  left join app_public.projects p on p.id = i.project_id
  left join app_public.agents a on a.id = i.assigned_agent_id
  where i.id = p_issue_id;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query: a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_labels_json(p_label_ids uuid[])
 returns jsonb
 language plpgsql
 stable
as $$
begin
  if cardinality(p_label_ids) = 0 then
    return '[]';  -- most issues: no query at all
  end if;
  return coalesce((select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                    order by array_position(p_label_ids, l.id))
                   from app_public.labels l where l.id = any(p_label_ids)), '[]');
end
$$;
comment on function app_hidden.issue_labels_json(p_label_ids uuid[]) is 'The labels {id, name, color} of an issue, in the order of its label_ids (plpgsql: its plan is kept for the session).';
grant execute on function app_hidden.issue_labels_json(p_label_ids uuid[]) to svc_visitor;

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

drop function if exists app_hidden.visible_parent_id(uuid);  -- now visible_issue_id (parents, chat contexts, duplicates)

create or replace function app_hidden.visible_issue_id(p_issue_id uuid)
 returns uuid
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not SQL: called per row of every issue shape, and a SQL function with a subquery is planned again
  -- in every statement (PostgreSQL 17); most issues have no parent and most keys are not narrowed.
  if p_issue_id is null or app_hidden.issues_unrestricted() then
    return p_issue_id;
  end if;
  -- Runs as the caller: the issues policy decides whether the issue is visible.
  return (select i.id from app_public.issues i where i.id = p_issue_id);
end
$$;
comment on function app_hidden.visible_issue_id(p_issue_id uuid) is 'An issue id another record names (a parent, a chat message''s context, a duplicate), as the caller may see it: NULL for a narrowed key that cannot see that issue (its id stays hidden, docs/decisions.md). Runs as the caller (RLS).';
grant execute on function app_hidden.visible_issue_id(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.with_visible_issue(p_json jsonb, p_field text)
 returns jsonb
 language sql
 stable
as $$
  select case when p_json->>p_field is null then p_json
              else jsonb_set(p_json, array[p_field], coalesce(to_jsonb(app_hidden.visible_issue_id((p_json->>p_field)::uuid)), 'null')) end
$$;
comment on function app_hidden.with_visible_issue(p_json jsonb, p_field text) is 'A JSON object with the issue id in p_field as the caller may see it (visible_issue_id: null when a narrowed key cannot see that issue): a chat message''s context, an action request''s duplicate.';
grant execute on function app_hidden.with_visible_issue(p_json jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents)
 returns json
 language sql
 stable
as $$
  select json_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else json_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else json_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else json_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued,
    -- Most issues have no parent: no call then (a plpgsql call per row of every list page).
    'parentId', case when i.parent_id is null then null else app_hidden.visible_issue_id(i.parent_id) end, 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', to_json(i.label_ids),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null). json, built as text: lists join it as is, single issues cast it to jsonb.';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- One expression, no subquery: inlined into the caller's query, so a list of them is planned once (PostgreSQL 17
  -- plans a non-inlined SQL function again on every call: 0.4 ms a row in a list of 1,000 relations).
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', case when s.id is null then null else jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category) end)
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses) is 'A short issue reference (id, key, number, title, status) from the issue and its status row (null when not found), embedded in relations and linked issues.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.issue_ref_json(i, (select s from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'issue_ref_json of one issue, its status looked up; lists join the status and call the two-argument form.';
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
