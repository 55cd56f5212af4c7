-- Row-level security policies of the workspace tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.memberships;
create policy owner_all on app_public.memberships for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.memberships is 'The schema owner manages memberships.';

drop policy if exists select_in_workspace on app_public.memberships;
create policy select_in_workspace on app_public.memberships for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.memberships is 'Memberships of the caller''s workspace.';

drop policy if exists owner_all on app_public.statuses;
create policy owner_all on app_public.statuses for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.statuses is 'The schema owner seeds and manages statuses.';

drop policy if exists select_in_workspace on app_public.statuses;
create policy select_in_workspace on app_public.statuses for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.statuses is 'Statuses of the caller''s workspace.';

drop policy if exists owner_all on app_public.users;
create policy owner_all on app_public.users for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.users is 'The schema owner manages users.';

drop policy if exists select_workspace_members on app_public.users;
create policy select_workspace_members on app_public.users for select to svc_visitor
  using (((EXISTS ( SELECT 1
   FROM app_public.memberships m
  WHERE ((m.user_id = users.id) AND (m.workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))))) OR (EXISTS ( SELECT 1
   FROM app_public.former_members f
  WHERE ((f.user_id = users.id) AND (f.workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))))));
comment on policy select_workspace_members on app_public.users is 'Users are visible only when they are or were members of the caller''s workspace (a former member''s name stays on their comments, events and time).';

drop policy if exists owner_all on app_public.former_members;
create policy owner_all on app_public.former_members for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.former_members is 'The schema owner (remove_member, add_member) writes former members.';

drop policy if exists select_in_workspace on app_public.former_members;
create policy select_in_workspace on app_public.former_members for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.former_members is 'Former members of the caller''s workspace (read by the users policy).';

drop policy if exists owner_all on app_public.workspaces;
create policy owner_all on app_public.workspaces for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.workspaces is 'The schema owner (definer functions, operator CLI, worker) is trusted; it checks tenancy itself.';

drop policy if exists select_own_workspace on app_public.workspaces;
create policy select_own_workspace on app_public.workspaces for select to svc_visitor
  using ((id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_own_workspace on app_public.workspaces is 'A key sees only its own workspace.';
