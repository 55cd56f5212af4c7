-- The webhooks.rotateSecret tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: a new signing secret, returned this once; the old one signs beside it for
-- keepPreviousHours (default 24; 0 stops it at once) (app_hidden.webhook_rotate_secret; WEBHOOK_UPDATED, never a secret).
create or replace function app_tools.webhooks_rotate_secret(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_rotate_secret(app_hidden.parse_uuid(args->>'id', 'id'), coalesce((args->>'keepPreviousHours')::int, 24), 'id');
end
$$;
comment on function app_tools.webhooks_rotate_secret(args jsonb) is 'webhooks.rotateSecret: OWNER/ADMIN, unnarrowed key: new signing secret, shown only in this answer. The old one keeps signing beside it (webhook-signature carries both) for keepPreviousHours, default 24, so receivers can switch without losing deliveries; 0 stops it at once (a leaked secret).';
grant execute on function app_tools.webhooks_rotate_secret(args jsonb) to svc_visitor;
