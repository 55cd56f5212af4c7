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
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_member.crew_id);
  update app_public.agent_crew_members set role = args->>'role' where id = v_member.id and role is distinct from args->>'role'
  returning * into v_member;
  return app_hidden.crew_member_json(app_hidden.find_crew_member(args->>'memberId'));
end
$$;
comment on function app_tools.agent_crews_set_member_role(args jsonb) is 'agentCrews.setMemberRole: Change a crew member''s role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).';
grant execute on function app_tools.agent_crews_set_member_role(args jsonb) to svc_visitor;
