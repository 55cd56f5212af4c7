-- Issue 16, after the merge: the events policy asks the narrowing once per statement and checks subjects
-- per row only for narrowed keys (sql/events/visibility.sql).
--! include events/visibility.sql
--! include events/policies.sql

-- issues.list with a status filter: the status filter reaches the query as constant ids
-- (sql/issues/tools/list.sql), and the planner learns that a status id belongs to one workspace instead of
-- multiplying the two selectivities as if independent.
create statistics if not exists app_public.issues_workspace_status_stats (dependencies) on workspace_id, status_id from app_public.issues;
comment on statistics app_public.issues_workspace_status_stats is 'A status id belongs to one workspace: workspace_id and status_id are not independent (issues.list filtered by status, issue 16).';
--! include issues/tools/list.sql

-- Narrowed keys: the issue narrowing check is plpgsql (planned once per session).
--! include core/narrowing.sql
