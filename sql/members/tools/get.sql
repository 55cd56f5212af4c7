-- The members.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one member of the caller's workspace by user id, with their role; anyone else (a member of another
-- workspace only, or no one) is 404 on userId.
create or replace function app_tools.members_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.member_json(app_hidden.found(
    (select m from app_public.memberships m
     where m.workspace_id = app_hidden.current_workspace_id()
       and m.user_id = app_hidden.parse_uuid(args->>'userId', 'userId')),
    'Member', 'userId'));
end
$$;
grant execute on function app_tools.members_get(args jsonb) to svc_visitor;
comment on function app_tools.members_get(args jsonb) is 'members.get: One person of the workspace by user id, with their role (OWNER, ADMIN, MEMBER). Someone who is not a member is 404.';
