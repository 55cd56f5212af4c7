-- The webhooks.rotateSecret tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: a new signing secret at once, returned this once
-- (app_hidden.webhook_rotate_secret; WEBHOOK_UPDATED with changes secret, never the secret).
create or replace function app_tools.webhooks_rotate_secret(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_rotate_secret(app_hidden.parse_uuid(args->>'id', 'id'));
end
$$;
comment on function app_tools.webhooks_rotate_secret(args jsonb) is 'webhooks.rotateSecret: OWNER/ADMIN, unnarrowed key: new signing secret at once (the old one stops); shown only in this answer.';
grant execute on function app_tools.webhooks_rotate_secret(args jsonb) to svc_visitor;
