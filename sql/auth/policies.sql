-- Row-level security policies of the auth tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.api_keys;
create policy owner_all on app_private.api_keys for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.api_keys is 'Only the schema owner reads key rows (through app_hidden.authenticate).';

drop policy if exists owner_all on app_private.plugins;
create policy owner_all on app_private.plugins for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.plugins is 'The schema owner manages plugin records.';
