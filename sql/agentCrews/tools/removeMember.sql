-- The agentCrews.removeMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a membership (ADMIN).
create or replace function app_tools.agent_crews_remove_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  -- The crew first, locked (crew_for_write: the rights, and one membership change of a crew at a time); then the
  -- membership as it is now: a concurrent remove took it (404, as a later call gets) or it is removed here.
  perform app_hidden.crew_for_write(v_member.crew_id::text, 'memberId');
  delete from app_public.agent_crew_members where id = v_member.id returning * into v_member;
  perform app_hidden.found(v_member, 'Crew member', 'memberId');
  return jsonb_build_object('ok', true, 'id', v_member.id, 'crewId', v_member.crew_id);
end
$$;
comment on function app_tools.agent_crews_remove_member(args jsonb) is 'agentCrews.removeMember: Remove a member from its crew (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).';
grant execute on function app_tools.agent_crews_remove_member(args jsonb) to svc_visitor;
