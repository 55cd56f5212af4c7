-- The agentCrews.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes name, description, maxParallel (ADMIN); only the fields given. CREW_UPDATED by trigger on a real change.
create or replace function app_tools.agent_crews_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  update app_public.agent_crews
  set name = case when args ? 'name' then args->>'name' else name end,
      description = case when args ? 'description' then args->>'description' else description end,
      max_parallel = case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end
  where id = v_crew.id
    and (name, description, max_parallel) is distinct from (
      case when args ? 'name' then args->>'name' else name end,
      case when args ? 'description' then args->>'description' else description end,
      case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end)
  returning * into v_crew;
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_update(args jsonb) is 'agentCrews.update: Change a crew''s name, description or maxParallel (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan); only the fields given.';
grant execute on function app_tools.agent_crews_update(args jsonb) to svc_visitor;
