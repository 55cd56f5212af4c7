-- The webhooks.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: deletes a webhook with its secret and deliveries (app_hidden.webhook_delete,
-- WEBHOOK_DELETED).
create or replace function app_tools.webhooks_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_delete(app_hidden.parse_uuid(args->>'id', 'id'), 'id');
end
$$;
comment on function app_tools.webhooks_delete(args jsonb) is 'webhooks.delete: OWNER/ADMIN, unnarrowed key: delete a webhook and its deliveries.';
grant execute on function app_tools.webhooks_delete(args jsonb) to svc_visitor;
