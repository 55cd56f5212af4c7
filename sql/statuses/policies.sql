-- Row-level security policies of the statuses table's writes (statuses.create/update/delete/reorder). Its
-- owner_all and select_in_workspace policies are in workspace/policies.sql, with the workspace's seeding.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_as_workspace_admin on app_public.statuses;
create policy delete_as_workspace_admin on app_public.statuses for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy delete_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) delete statuses of their workspace.';

drop policy if exists insert_as_workspace_admin on app_public.statuses;
create policy insert_as_workspace_admin on app_public.statuses for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
comment on policy insert_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) add statuses to their workspace.';

drop policy if exists update_as_workspace_admin on app_public.statuses;
create policy update_as_workspace_admin on app_public.statuses for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_as_workspace_admin on app_public.statuses is 'Workspace OWNER/ADMIN (with the ADMIN scope) rename, recolor, recategorize and reorder statuses of their workspace.';
