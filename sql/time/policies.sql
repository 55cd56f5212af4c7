-- Row-level security policies of the time tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists insert_own_time on app_public.time_entries;
create policy insert_own_time on app_public.time_entries for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id)))));
comment on policy insert_own_time on app_public.time_entries is 'A user logs and starts timers only as themselves.';

drop policy if exists owner_all on app_public.time_entries;
create policy owner_all on app_public.time_entries for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.time_entries is 'The schema owner (operator) works on every row.';

drop policy if exists select_on_visible_issues on app_public.time_entries;
create policy select_on_visible_issues on app_public.time_entries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id))))));
comment on policy select_on_visible_issues on app_public.time_entries is 'Time logged on issues the caller can see (everyone''s, for summaries).';

drop policy if exists select_own_time on app_public.time_entries;
create policy select_own_time on app_public.time_entries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy select_own_time on app_public.time_entries is 'A user sees their own time entries (so time.running / time.stop find their timer whatever key they use).';

drop policy if exists update_own_time on app_public.time_entries;
create policy update_own_time on app_public.time_entries for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy update_own_time on app_public.time_entries is 'A user stops only their own timers.';

drop policy if exists delete_own_time on app_public.time_entries;
create policy delete_own_time on app_public.time_entries for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy delete_own_time on app_public.time_entries is 'A user deletes only their own time entries (time.delete).';
