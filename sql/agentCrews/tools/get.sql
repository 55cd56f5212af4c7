-- The agentCrews.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one crew with its members (archived included).
create or replace function app_tools.agent_crews_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_get(args jsonb) is 'agentCrews.get: One crew by id, with its members (archived crews too).';
grant execute on function app_tools.agent_crews_get(args jsonb) to svc_visitor;
