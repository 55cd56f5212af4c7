-- The agentCrews.setMemberRole tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes a members role (ADMIN).
create or replace function app_tools.agent_crews_set_member_role(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  -- The crew first, locked (crew_for_write: the rights, and one membership change of a crew at a time); then the
  -- membership as it is now (a concurrent remove took it: 404).
  perform app_hidden.crew_for_write(v_member.crew_id::text, 'memberId');
  update app_public.agent_crew_members set role = args->>'role' where id = v_member.id and role is distinct from args->>'role';
  return app_hidden.crew_member_json(app_hidden.find_crew_member(args->>'memberId'));
end
$$;
comment on function app_tools.agent_crews_set_member_role(args jsonb) is 'agentCrews.setMemberRole: Change a crew member''s role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).';
grant execute on function app_tools.agent_crews_set_member_role(args jsonb) to svc_visitor;
