-- The webhooks.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: registers a webhook through the in-app procedure (app_hidden.webhook_create:
-- URL and event checks, WEBHOOK_CREATED); the answer carries the signing secret, shown only here. The run hook
-- checked the URL in Node first (credentials, private targets), as GraphQL and the CLI do.
create or replace function app_tools.webhooks_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_create(args->>'url', array(select jsonb_array_elements_text(coalesce(args->'events', '[]'))),
    args->>'description');
end
$$;
comment on function app_tools.webhooks_create(args jsonb) is 'webhooks.create: OWNER/ADMIN, unnarrowed key: register a webhook (events default: all). The answer holds its signing secret, shown only this once.';
grant execute on function app_tools.webhooks_create(args jsonb) to svc_visitor;
