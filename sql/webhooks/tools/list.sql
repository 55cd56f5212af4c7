-- The webhooks.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: the workspace's webhooks with health counts (app_public.webhooks_overview); never a secret.
create or replace function app_tools.webhooks_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return jsonb_build_object('items', app_public.webhooks_overview());
end
$$;
comment on function app_tools.webhooks_list(args jsonb) is 'webhooks.list: OWNER/ADMIN, with a key without narrowing: webhooks of the workspace with pending and dead-letter counts. Never a secret.';
grant execute on function app_tools.webhooks_list(args jsonb) to svc_visitor;
