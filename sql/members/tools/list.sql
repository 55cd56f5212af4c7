-- The members.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- members of the workspace by email, paged.
create or replace function app_tools.members_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'members');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.member_json(m), lower(u.email), null)::app_hidden.page_row
    from app_public.memberships m join app_public.users u on u.id = m.user_id
    where m.workspace_id = app_hidden.current_workspace_id()
      and (v_after is null or lower(u.email) > v_after)
      and (args->>'role' is null or m.role = args->>'role')
    order by lower(u.email) limit v_limit + 1), v_limit, 'members');
end
$$;
comment on function app_tools.members_list(args jsonb) is 'members.list: People of the workspace with their role, by email.';
grant execute on function app_tools.members_list(args jsonb) to svc_visitor;
