-- The webhooks.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: changes the fields given through the in-app procedure
-- (app_hidden.webhook_update: checks, WEBHOOK_UPDATED naming the changed fields). Never a secret.
create or replace function app_tools.webhooks_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_update(app_hidden.parse_uuid(args->>'id', 'id'), args->>'url',
    case when args ? 'events' then array(select jsonb_array_elements_text(args->'events')) end,
    (args->>'active')::boolean, args->>'description', 'id');
end
$$;
comment on function app_tools.webhooks_update(args jsonb) is 'webhooks.update: OWNER/ADMIN, unnarrowed key: change url, events, active (false stops deliveries; events meanwhile are never sent) or description of a webhook.';
grant execute on function app_tools.webhooks_update(args jsonb) to svc_visitor;
