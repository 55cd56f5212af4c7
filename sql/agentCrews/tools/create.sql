-- The agentCrews.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a crew with optional members (ADMIN). CREW_CREATED by trigger.
create or replace function app_tools.agent_crews_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews;
  v_member jsonb;
  v_i int;
begin
  perform app_hidden.require_crew_admin();
  insert into app_public.agent_crews (workspace_id, name, description, max_parallel)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description', coalesce((args->>'maxParallel')::int, 1))
  returning * into v_crew;
  for v_member, v_i in select m, o - 1 from jsonb_array_elements(coalesce(args->'members', '[]')) with ordinality t(m, o) loop
    if exists (select 1 from app_public.agent_crew_members cm where cm.crew_id = v_crew.id
               and cm.agent_id = app_hidden.parse_uuid(v_member->>'agentId', format('members.%s.agentId', v_i))) then
      perform app_hidden.raise_invalid(format('members.%s.agentId', v_i), 'agent listed twice');
    end if;
    insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
    values (v_crew.workspace_id, v_crew.id, (app_hidden.find_live_agent(v_member->>'agentId', format('members.%s.agentId', v_i))).id, v_member->>'role');
  end loop;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_create(args jsonb) is 'agentCrews.create: Create a crew (ADMIN, unnarrowed key) with optional members [{agentId, role}]: PLANNER decomposes goals, WORKERs take steps, a REVIEWER judges them (and makes plans auto-judge by default).';
grant execute on function app_tools.agent_crews_create(args jsonb) to svc_visitor;
