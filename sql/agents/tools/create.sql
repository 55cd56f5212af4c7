-- The agents.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.agents_create (OWNER/ADMIN; AGENT_CREATED); the Node half checked webhookUrl.
create or replace function app_tools.agents_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.agent_json(app_public.agents_create(
    args->>'profileKey', args->>'name',
    coalesce(array(select jsonb_array_elements_text(args->'capabilities')), '{}'),
    coalesce(args->>'provider', 'CUSTOM'), coalesce(args->>'runtimeMode', 'PERSISTENT'),
    coalesce((args->>'maxConcurrent')::int, 1), args->>'webhookUrl'));
end
$$;
comment on function app_tools.agents_create(args jsonb) is 'agents.create: OWNER/ADMIN: create an agent (profileKey unique). maxConcurrent 0 = unlimited.';
grant execute on function app_tools.agents_create(args jsonb) to svc_visitor;
