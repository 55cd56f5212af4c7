-- A person's own profile: the name shown on their work and the zone their "today" is counted in.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.update_user(p_user_id uuid, p_name text, p_timezone text)
 returns app_public.users
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_old app_public.users;
  v_new app_public.users;
  v_name text := app_hidden.one_line(p_name, 'name', 100);
  v_zone text;
  v_changes text[];
  v_workspace uuid;
begin
  -- An IANA zone by its name, any case (stored as the database spells it: what notes.todayJournal reads); `at time
  -- zone` would also take POSIX strings such as 'UTC+3', whose sign is the reverse of what a person means, and
  -- 'Factory' and posix/… are not zones people live in.
  if p_timezone is not null then
    select z.name into v_zone from pg_catalog.pg_timezone_names z
    where lower(z.name) = lower(p_timezone) and z.name <> 'Factory' and z.name !~ '^(posix|right)/'
    order by z.name = p_timezone desc, z.name limit 1;
    if v_zone is null then
      perform app_hidden.raise_invalid('timezone', format('unknown time zone %s: an IANA zone name, such as Europe/Paris or America/New_York', left(p_timezone, 100)));
    end if;
  end if;
  select * into v_old from app_public.users u where u.id = p_user_id for update;
  if v_old.id is null then
    perform app_hidden.raise_not_found('User', 'userId');
  end if;
  update app_public.users u
  set name = coalesce(v_name, u.name), timezone = coalesce(v_zone, u.timezone)
  where u.id = p_user_id
  returning * into v_new;
  v_changes := array_remove(array[case when v_new.name is distinct from v_old.name then 'name' end,
                                  case when v_new.timezone is distinct from v_old.timezone then 'timezone' end], null);
  if cardinality(v_changes) > 0 then
    -- Users are global: every workspace the person belongs to shows their name, so each hears of the change.
    for v_workspace in select m.workspace_id from app_public.memberships m where m.user_id = p_user_id loop
      perform app_private.record_event(v_workspace, 'USER_UPDATED', 'user', p_user_id,
        jsonb_build_object('userId', p_user_id, 'changes', to_jsonb(v_changes), 'name', v_new.name, 'timezone', v_new.timezone));
    end loop;
  end if;
  return v_new;
end
$$;
comment on function app_private.update_user(p_user_id uuid, p_name text, p_timezone text) is 'Sets a person''s name (one line, 1 to 100 characters) and IANA time zone; NULL leaves a field as it is. Writes USER_UPDATED in each of their workspaces when something changed. For viewer_update and `svc admin update-user`.';

create or replace function app_hidden.viewer_update(p_name text, p_timezone text)
 returns app_public.users
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The person's own key only: an agent's or a plugin's key acts in the workspace, not as the person.
  if app_hidden.current_agent_id() is not null or app_hidden.current_user_id() is null
     or app_hidden.current_key_user_id() is distinct from app_hidden.current_user_id() then
    raise exception 'Only the person''s own key (PERSONAL or SESSION) may change their profile' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  -- A read-only key reads (a re-probe renamed its person with one): the profile is the person's record, as
  -- notification preferences are.
  perform app_hidden.require_scope('WRITE_USERS');
  return app_private.update_user(app_hidden.current_user_id(), p_name, p_timezone);
end
$$;
comment on function app_hidden.viewer_update(p_name text, p_timezone text) is 'viewerUpdate: app_private.update_user for the calling key''s own person; 403 person_key_required for an agent''s or a plugin''s key, scope_required without WRITE_USERS.';
grant execute on function app_hidden.viewer_update(p_name text, p_timezone text) to svc_visitor;

create or replace function app_public.viewer_update(name text default null, timezone text default null)
 returns app_public.users
 language sql
as $$ select app_hidden.viewer_update(name, timezone) $$;
comment on function app_public.viewer_update(name text, timezone text) is '@arg name The name shown on your work in every workspace (one line, 1 to 100 characters); omitted: unchanged.
@arg timezone Your IANA time zone, such as Europe/Paris (notes.todayJournal counts "today" in it); omitted: unchanged.
@result You, as changed.
Changes the profile of the person the key belongs to; their own PERSONAL or SESSION key only (403 person_key_required for an agent''s or a plugin''s key), holding WRITE_USERS. Emits USER_UPDATED in each of their workspaces when something changed.';
grant execute on function app_public.viewer_update(name text, timezone text) to svc_visitor;
