-- The agentCrews.addMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds an agent in a role (ADMIN); an agent is in a crew once (409 already_member).
create or replace function app_tools.agent_crews_add_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'crewId', 'crewId');
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', 'agentId');
  v_member app_public.agent_crew_members;
begin
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
  end if;
  -- One statement decides: two adds at once both passed a check before the insert, and the loser got the unique
  -- violation's generic 409 rather than already_member.
  insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
  values (v_crew.workspace_id, v_crew.id, v_agent.id, args->>'role')
  on conflict (crew_id, agent_id) do nothing
  returning * into v_member;
  if v_member.id is null then
    raise exception 'Agent % is already in this crew (use setMemberRole)', v_agent.profile_key using errcode = 'SV409', detail = 'already_member';
  end if;
  return app_hidden.crew_member_json(v_member);
end
$$;
comment on function app_tools.agent_crews_add_member(args jsonb) is 'agentCrews.addMember: Add an agent to a crew in a role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan). An agent is in a crew once (409 already_member; change roles with setMemberRole).';
grant execute on function app_tools.agent_crews_add_member(args jsonb) to svc_visitor;
