-- Row-level security policies of the notification tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_own_preferences on app_public.notification_preferences;
create policy delete_own_preferences on app_public.notification_preferences for delete to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy delete_own_preferences on app_public.notification_preferences is 'A user removes their own preferences (notification.resetPreference), global ones and those of the calling workspace.';

drop policy if exists insert_own_preferences on app_public.notification_preferences;
create policy insert_own_preferences on app_public.notification_preferences for insert to svc_visitor
  with check (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy insert_own_preferences on app_public.notification_preferences is 'A user sets their own preferences, for the calling workspace or globally.';

drop policy if exists owner_all on app_public.notification_preferences;
create policy owner_all on app_public.notification_preferences for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.notification_preferences is 'The schema owner (notification fan-out, operator) works on every row.';

drop policy if exists select_own_preferences on app_public.notification_preferences;
create policy select_own_preferences on app_public.notification_preferences for select to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
comment on policy select_own_preferences on app_public.notification_preferences is 'A user sees their own rows: global ones and those of the calling workspace.';

drop policy if exists update_own_preferences on app_public.notification_preferences;
create policy update_own_preferences on app_public.notification_preferences for update to svc_visitor
  using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))))
  with check ((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)));
comment on policy update_own_preferences on app_public.notification_preferences is 'A user changes their own preferences.';
