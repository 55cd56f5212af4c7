-- The agents.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.agents_update, fields given only (webhookUrl null clears; AGENT_UPDATED).
create or replace function app_tools.agents_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.agent_json(app_public.agents_update(
    app_hidden.parse_uuid(args->>'id', 'id'), args->>'name', args->>'profileKey',
    case when args ? 'capabilities' then array(select jsonb_array_elements_text(args->'capabilities')) end,
    args->>'provider', args->>'runtimeMode', (args->>'maxConcurrent')::int,
    args->>'webhookUrl', coalesce(args->'webhookUrl' = 'null'::jsonb, false)));
end
$$;
comment on function app_tools.agents_update(args jsonb) is 'agents.update: OWNER/ADMIN: change the fields given of an agent; webhookUrl null clears it.';
grant execute on function app_tools.agents_update(args jsonb) to svc_visitor;
