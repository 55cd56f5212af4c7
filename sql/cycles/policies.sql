-- Row-level security policies of the cycles tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_unnarrowed on app_public.cycles;
create policy delete_unnarrowed on app_public.cycles for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)));
comment on policy delete_unnarrowed on app_public.cycles is 'Delete cycles of the caller''s workspace (cycles.delete: their issues lose the cycle); keys with project or label narrowing may not.';

drop policy if exists insert_in_workspace on app_public.cycles;
create policy insert_in_workspace on app_public.cycles for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.cycles is 'Create cycles in the caller''s workspace.';

drop policy if exists owner_all on app_public.cycles;
create policy owner_all on app_public.cycles for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.cycles is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.cycles;
create policy select_in_workspace on app_public.cycles for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.cycles is 'Cycles of the caller''s workspace.';

drop policy if exists update_in_workspace on app_public.cycles;
create policy update_in_workspace on app_public.cycles for update to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.cycles is 'Update cycles of the caller''s workspace.';
