-- The members.remove tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.members_remove (their keys here revoked; last OWNER stays; MEMBERSHIP_REMOVED).
create or replace function app_tools.members_remove(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_user jsonb := app_hidden.user_ref_json(v_user_id);  -- before: a removed member is no longer visible
  v_m app_public.memberships;
begin
  v_m := app_public.members_remove(v_user_id);
  return app_hidden.member_json(v_m) || jsonb_build_object('user', v_user);
end
$$;
comment on function app_tools.members_remove(args jsonb) is 'members.remove: OWNER/ADMIN: remove a member and revoke their keys here. The last OWNER stays.';
grant execute on function app_tools.members_remove(args jsonb) to svc_visitor;
