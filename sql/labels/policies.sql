-- Row-level security policies of the labels tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_in_workspace on app_public.labels;
create policy delete_in_workspace on app_public.labels for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)));
comment on policy delete_in_workspace on app_public.labels is 'Delete labels of the caller''s workspace (they come off every issue); keys with project or label narrowing may not.';

drop policy if exists insert_in_workspace on app_public.labels;
create policy insert_in_workspace on app_public.labels for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.labels is 'Create labels in the caller''s workspace.';

drop policy if exists owner_all on app_public.labels;
create policy owner_all on app_public.labels for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.labels is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.labels;
create policy select_in_workspace on app_public.labels for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.labels is 'Labels of the caller''s workspace (label narrowing restricts issues, not the label list).';

drop policy if exists update_in_workspace on app_public.labels;
create policy update_in_workspace on app_public.labels for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.labels is 'Rename/recolor labels of the caller''s workspace; keys with project or label narrowing may not.';
