-- The members.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.members_add (OWNER/ADMIN; only an OWNER adds an OWNER; MEMBERSHIP_CREATED).
create or replace function app_tools.members_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_m app_public.memberships;
begin
  -- Two statements: the new user is visible to the shaper only in a later snapshot.
  v_m := app_public.members_add(args->>'email', coalesce(args->>'role', 'MEMBER')::app_public.membership_role);
  return app_hidden.member_json(v_m);
end
$$;
comment on function app_tools.members_add(args jsonb) is 'members.add: OWNER/ADMIN: add a person by email (user created if new; no invite sent). Only an OWNER adds an OWNER.';
grant execute on function app_tools.members_add(args jsonb) to svc_visitor;
