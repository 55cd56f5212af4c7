-- Row-level security policies of the notes tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists manage_own_notes on app_public.notes;
create policy manage_own_notes on app_public.notes for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy manage_own_notes on app_public.notes is 'Notes are private: only their owner sees or changes them (another user''s note is "Note not found").';

drop policy if exists owner_all on app_public.notes;
create policy owner_all on app_public.notes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.notes is 'The schema owner (operator) works on every row.';
