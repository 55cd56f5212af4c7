-- members: the JSON shape of a membership (the procedures are app_public.members_*, sql/workspace/members.sql).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.member_json(m app_public.memberships)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('userId', m.user_id, 'user', app_hidden.user_ref_json(m.user_id), 'role', m.role,
                            'createdAt', m.created_at)
$$;
comment on function app_hidden.member_json(m app_public.memberships) is 'Member: userId, user {id, name, email}, role (OWNER, ADMIN, MEMBER), createdAt.';
grant execute on function app_hidden.member_json(m app_public.memberships) to svc_visitor;
