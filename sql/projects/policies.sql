-- Row-level security policies of the projects tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists insert_in_workspace on app_public.projects;
create policy insert_in_workspace on app_public.projects for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (cardinality(( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)) = 0)));
comment on policy insert_in_workspace on app_public.projects is 'Create projects in the caller''s workspace; a project-narrowed key cannot widen its own reach.';

drop policy if exists owner_all on app_public.projects;
create policy owner_all on app_public.projects for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.projects is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.projects;
create policy select_in_workspace on app_public.projects for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))));
comment on policy select_in_workspace on app_public.projects is 'Projects of the caller''s workspace, narrowed to projectIds when the key has them.';

drop policy if exists update_visible on app_public.projects;
create policy update_visible on app_public.projects for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))));
comment on policy update_visible on app_public.projects is 'Update projects the caller can see.';
