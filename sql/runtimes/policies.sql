-- Row-level security policies of the runtimes tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.runtimes;
create policy owner_all on app_public.runtimes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.runtimes is 'The schema owner manages every runtime.';

drop policy if exists select_in_workspace on app_public.runtimes;
create policy select_in_workspace on app_public.runtimes for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.runtimes is 'Runtimes of the caller''s workspace (agents show theirs as {id, name, kind}).';

drop policy if exists insert_with_admin_scope on app_public.runtimes;
create policy insert_with_admin_scope on app_public.runtimes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.runtimes is 'Keys holding ADMIN register runtimes (an agent''s bridge included).';

drop policy if exists update_with_admin_scope on app_public.runtimes;
create policy update_with_admin_scope on app_public.runtimes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_with_admin_scope on app_public.runtimes is 'Keys holding ADMIN heartbeat, configure and report info of runtimes.';

drop policy if exists owner_all on app_private.runtime_secrets;
create policy owner_all on app_private.runtime_secrets for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.runtime_secrets is 'Only the schema owner (security-definer helpers) reads runtime secret hashes.';
