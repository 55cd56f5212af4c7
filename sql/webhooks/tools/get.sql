-- The webhooks.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: one webhook with its health counts; 404 for another workspace's.
create or replace function app_tools.webhooks_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
begin
  return app_hidden.found((select w from jsonb_array_elements(app_public.webhooks_overview()) w where w->>'id' = v_id::text), 'Webhook');
end
$$;
comment on function app_tools.webhooks_get(args jsonb) is 'webhooks.get: OWNER/ADMIN, with a key without narrowing: one webhook by id, with its delivery health. Never a secret.';
grant execute on function app_tools.webhooks_get(args jsonb) to svc_visitor;
