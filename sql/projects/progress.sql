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
