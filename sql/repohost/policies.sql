-- Row-level security policies of the repohost tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.connection_mappings;
create policy owner_all on app_public.connection_mappings for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.connection_mappings is 'The schema owner (operator) works on every row.';

drop policy if exists select_in_workspace on app_public.connection_mappings;
create policy select_in_workspace on app_public.connection_mappings for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.connection_mappings is 'Repository mappings of the caller''s workspace (no secret in them: the token is an environment variable name).';

drop policy if exists manage_as_admin on app_public.connection_mappings;
create policy manage_as_admin on app_public.connection_mappings for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))));
comment on policy manage_as_admin on app_public.connection_mappings is 'Only a key whose own user is OWNER or ADMIN adds, changes or removes repository mappings.';

drop policy if exists owner_all on app_public.external_resources;
create policy owner_all on app_public.external_resources for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.external_resources is 'The schema owner works on every row.';

drop policy if exists manage_in_workspace on app_public.external_resources;
create policy manage_in_workspace on app_public.external_resources for all to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy manage_in_workspace on app_public.external_resources is 'External issues/PRs seen by the caller''s workspace (snapshots of a mapped repository; not narrowed: the links to issues are).';

drop policy if exists owner_all on app_public.external_links;
create policy owner_all on app_public.external_links for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.external_links is 'The schema owner works on every row.';

drop policy if exists on_visible_issues on app_public.external_links;
create policy on_visible_issues on app_public.external_links for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = external_links.issue_id))))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy on_visible_issues on app_public.external_links is 'Links follow their issue: a narrowed key sees and changes links of issues it can see.';
