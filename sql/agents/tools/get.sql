-- The agents.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one agent of the workspace (archived included).
create or replace function app_tools.agents_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.agent_json(app_hidden.find_agent(args->>'id', null, 'id'));
end
$$;
comment on function app_tools.agents_get(args jsonb) is 'agents.get: One agent by id (archived too).';
grant execute on function app_tools.agents_get(args jsonb) to svc_visitor;
