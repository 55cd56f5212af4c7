--! Previous: sha1:69f7c7b296b75053033e97283169f3c844a381c2
--! Hash: sha1:dac94b8e784917305d1427fbbbea34184d4d5392
--! Message: one admin rule for in-app procedures; webhook mutations over GraphQL

--! split: 1-current.sql
-- Enter migration here

--! split: 51-one-admin-check.sql
-- One rule for "workspace administrator", shared by the webhook procedures and the other in-app ones:
-- the calling key's OWN user (never the acting member a plugin key borrows) is OWNER or ADMIN, and the
-- key holds the ADMIN scope. (000004 checked the acting user and no scope, so a plugin key acting as
-- the first member could manage webhooks.)

create or replace function app_hidden.is_workspace_admin() returns boolean
language sql stable security definer set search_path = pg_catalog as $$
  select exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is
  'True when the calling key''s own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';

create or replace function app_hidden.require_workspace_admin() returns void
language sql stable as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is
  'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';

-- GraphQL mutations for webhooks: thin invoker functions over the checked app_hidden wrappers.
create or replace function app_public.webhooks_create(url text, events text[] default '{}', description text default null) returns jsonb
language sql volatile as $$ select app_hidden.webhook_create(url, events, description) $$;
comment on function app_public.webhooks_create(text, text[], text) is
  'OWNER/ADMIN: registers a webhook for the given event kinds (empty = all). Returns {id, url, events, active, secret}; the secret is shown only here.';

create or replace function app_public.webhooks_update(webhook_id uuid, url text default null, events text[] default null,
  active boolean default null, description text default null) returns jsonb
language sql volatile as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(uuid, text, text[], boolean, text) is
  'OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';

create or replace function app_public.webhooks_delete(webhook_id uuid) returns jsonb
language sql volatile as $$ select app_hidden.webhook_delete(webhook_id) $$;
comment on function app_public.webhooks_delete(uuid) is 'OWNER/ADMIN: deletes a webhook and its pending deliveries.';

create or replace function app_public.webhooks_rotate_secret(webhook_id uuid) returns jsonb
language sql volatile as $$ select app_hidden.webhook_rotate_secret(webhook_id) $$;
comment on function app_public.webhooks_rotate_secret(uuid) is 'OWNER/ADMIN: replaces the signing secret at once and returns the new one (shown once).';

create or replace function app_public.webhook_deliveries_retry(delivery_id uuid) returns jsonb
language sql volatile as $$ select app_hidden.webhook_delivery_retry(delivery_id) $$;
comment on function app_public.webhook_deliveries_retry(uuid) is 'OWNER/ADMIN: puts a dead-lettered delivery back in the queue (same event, same webhook-id).';

create or replace function app_public.webhooks_overview() returns jsonb
language sql stable as $$ select app_hidden.webhooks_list() $$;
comment on function app_public.webhooks_overview() is 'OWNER/ADMIN: the workspace''s webhooks with delivery health counts.';

grant execute on function app_public.webhooks_create(text, text[], text), app_public.webhooks_update(uuid, text, text[], boolean, text),
  app_public.webhooks_delete(uuid), app_public.webhooks_rotate_secret(uuid), app_public.webhook_deliveries_retry(uuid),
  app_public.webhooks_overview() to svc_visitor;
