-- The webhooks.test tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: records WEBHOOK_TESTED and queues its delivery to this webhook only
-- (app_hidden.webhook_test); returns the delivery as webhooks.listDeliveries shows it.
create or replace function app_tools.webhooks_test(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_test(app_hidden.parse_uuid(args->>'id', 'id'), 'id');
end
$$;
comment on function app_tools.webhooks_test(args jsonb) is 'webhooks.test: OWNER/ADMIN, unnarrowed key: send a signed WEBHOOK_TESTED delivery to this webhook now, whatever its filter (see webhooks.listDeliveries).';
grant execute on function app_tools.webhooks_test(args jsonb) to svc_visitor;
