-- A narrowed key does not learn the id of a parent issue it cannot see (issue 9 item 8, docs/decisions.md):
-- parentId is null in the issue shape when the parent is outside the key's narrowing. Un-narrowed keys
-- see every issue of their workspace, so they skip the extra lookup. Re-runnable while current.

create or replace function app_hidden.visible_parent_id(p_parent_id uuid) returns uuid
language sql stable as $$
  select case
    when p_parent_id is null then null
    when app_hidden.issues_unrestricted() then p_parent_id
    -- Runs as the caller: the issues policy decides whether the parent is visible.
    else (select p.id from app_public.issues p where p.id = p_parent_id)
  end
$$;
comment on function app_hidden.visible_parent_id(uuid) is
  'The parent issue id as the caller may see it: NULL for a narrowed key that cannot see the parent (its id stays hidden).';

create or replace function app_hidden.issue_lean_json(
  i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb
) returns jsonb
language sql stable as $$
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
comment on function app_hidden.issue_lean_json(app_public.issues, app_public.statuses, app_public.projects, app_public.agents, jsonb) is
  'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null).';
grant execute on function app_hidden.visible_parent_id(uuid) to svc_visitor;
