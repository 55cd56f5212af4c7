-- The webhooks.listDeliveries tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: deliveries newest first with their attempts (app_hidden.webhook_deliveries_list).
create or replace function app_tools.webhooks_list_deliveries(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.webhook_deliveries_list(app_hidden.parse_uuid(args->>'webhookId', 'webhookId'), args->>'status',
    coalesce((args->>'limit')::int, 50), app_hidden.parse_uuid(args->>'cursor', 'cursor'));
end
$$;
comment on function app_tools.webhooks_list_deliveries(args jsonb) is 'webhooks.listDeliveries: OWNER/ADMIN, with a key without narrowing: webhook deliveries newest first with their attempts; filter by webhookId or status.';
grant execute on function app_tools.webhooks_list_deliveries(args jsonb) to svc_visitor;
