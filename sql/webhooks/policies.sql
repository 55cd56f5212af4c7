-- Row-level security policies of the webhooks tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.webhook_deliveries;
create policy owner_all on app_public.webhook_deliveries for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhook_deliveries is 'The schema owner (event trigger, worker, management functions) works on every row.';

drop policy if exists select_as_workspace_admin on app_public.webhook_deliveries;
create policy select_as_workspace_admin on app_public.webhook_deliveries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
comment on policy select_as_workspace_admin on app_public.webhook_deliveries is 'Workspace OWNER/ADMIN with a key without narrowing see delivery status (webhook health, dead letters), as for the webhooks themselves: a delivery names an event about any issue.';

drop policy if exists owner_all on app_public.webhook_delivery_attempts;
create policy owner_all on app_public.webhook_delivery_attempts for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhook_delivery_attempts is 'The worker records attempts.';

drop policy if exists select_as_workspace_admin on app_public.webhook_delivery_attempts;
create policy select_as_workspace_admin on app_public.webhook_delivery_attempts for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
comment on policy select_as_workspace_admin on app_public.webhook_delivery_attempts is 'Workspace OWNER/ADMIN with a key without narrowing see every attempt, as the deliveries: an attempt keeps the start of the receiver''s answer, which may echo an event about any issue.';

drop policy if exists owner_all on app_private.webhook_secrets;
create policy owner_all on app_private.webhook_secrets for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.webhook_secrets is 'Only the schema owner (management functions, worker signing deliveries) reads secrets.';

drop policy if exists owner_all on app_public.webhooks;
create policy owner_all on app_public.webhooks for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.webhooks is 'The schema owner (management functions, worker) works on every row.';

drop policy if exists select_as_workspace_admin on app_public.webhooks;
create policy select_as_workspace_admin on app_public.webhooks for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
comment on policy select_as_workspace_admin on app_public.webhooks is 'Workspace OWNER/ADMIN with a key without narrowing see the workspace''s webhooks (never their secrets, which live in app_private); a narrowed key manages no webhooks, and a webhook receives events about every issue.';
