-- The members.setRole tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.members_set_role (MEMBERSHIP_ROLE_CHANGED when it changes).
create or replace function app_tools.members_set_role(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.member_json(app_public.members_set_role(app_hidden.parse_uuid(args->>'userId', 'userId'),
                                                            (args->>'role')::app_public.membership_role));
end
$$;
comment on function app_tools.members_set_role(args jsonb) is 'members.setRole: OWNER/ADMIN: change a member''s role. Only an OWNER grants or removes OWNER; the last OWNER stays.';
grant execute on function app_tools.members_set_role(args jsonb) to svc_visitor;
