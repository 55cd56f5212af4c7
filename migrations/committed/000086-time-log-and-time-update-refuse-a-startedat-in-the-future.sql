--! Previous: sha1:0a27730e1652c498c362d63274de1de01a82fe2e
--! Hash: sha1:5d4d0453e46e1801659aace2fce54729a19d513e
--! Message: time.log and time.update refuse a startedAt in the future

--! split: 1-current.sql
-- From an outside probe: time.log and time.update refuse a startedAt in the future (400 on startedAt).
--! Included time/time.sql
-- time: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_time_tracking()
 returns void
 language plpgsql
 stable
as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';
grant execute on function app_hidden.require_time_tracking() to svc_visitor;

create or replace function app_hidden.spent_start(p_started_at text)
 returns timestamp with time zone
 language plpgsql
 stable
as $$
declare v_started timestamptz := p_started_at::timestamptz;
begin
  -- An entry records time already spent: a start in the future (2030, a wrong year) is a typo, not a plan.
  -- A minute of slack for the caller's clock.
  if v_started > now() + interval '1 minute' then
    perform app_hidden.raise_invalid('startedAt', 'is in the future: an entry records time already spent');
  end if;
  return v_started;
end
$$;
comment on function app_hidden.spent_start(p_started_at text) is 'time.log / time.update: the startedAt given (ISO 8601), or a 400 on startedAt when it is in the future.';
grant execute on function app_hidden.spent_start(p_started_at text) to svc_visitor;

create or replace function app_hidden.stop_running_timer(p_user uuid)
 returns app_public.time_entries
 language sql
as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = greatest(0, round(extract(epoch from now() - started_at) / 60))::int
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(p_user uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';
grant execute on function app_hidden.stop_running_timer(p_user uuid) to svc_visitor;

create or replace function app_hidden.time_entries_filtered(args jsonb)
 returns setof app_public.time_entries
 language plpgsql
 stable
as $$
declare
  v_issue_id uuid;
  v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
begin
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return query
    select e.* from app_public.time_entries e
    where e.workspace_id = app_hidden.current_workspace_id()
      -- Lists follow issue narrowing even for the caller's own entries (select_own_time is for timers).
      and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
      -- Deleted issues are 404 everywhere, so their time is not listed or summed either.
      and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
      and (v_id is null or e.id = v_id)
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(args jsonb) is 'Time entries on issues the key can see and that are not deleted (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by id (time.get), issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';
grant execute on function app_hidden.time_entries_filtered(args jsonb) to svc_visitor;

create or replace function app_hidden.time_entry_json(e app_public.time_entries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', app_hidden.visible_issue_id(e.issue_id),
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(e app_public.time_entries) is 'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';
grant execute on function app_hidden.time_entry_json(e app_public.time_entries) to svc_visitor;

create or replace function app_hidden.own_time_entry_for_write(p_id text)
 returns app_public.time_entries
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  -- Only the caller's own entries (select_own_time), and not those of deleted issues (404 there as everywhere).
  select e.* into v_entry from app_public.time_entries e
  where e.id = app_hidden.parse_uuid(p_id, 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and e.user_id = app_hidden.current_user_id()
    -- Within the key's narrowing, as time.list (the timer tools alone reach a timer outside it).
    and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
    and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
  for update;
  return app_hidden.found(v_entry, 'Time entry');
end
$$;
comment on function app_hidden.own_time_entry_for_write(p_id text) is 'time.update / time.delete: the caller''s own entry, locked (another person''s entry, one on a deleted issue or on an issue outside the key''s narrowing is 404 Time entry not found).';
grant execute on function app_hidden.own_time_entry_for_write(p_id text) to svc_visitor;
--! EndIncluded time/time.sql
--! Included time/tools/log.sql
-- The time.log tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a finished manual entry of durationMin on a visible issue (startedAt defaults to now minus the duration).
create or replace function app_tools.time_log(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_minutes int := (args->>'durationMin')::int;
  v_started timestamptz;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_started := coalesce(app_hidden.spent_start(args->>'startedAt'), now() - make_interval(mins => v_minutes));
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note)
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, v_started + make_interval(mins => v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(args jsonb) is 'time.log: Log time spent on an issue manually: durationMin minutes (startedAt defaults to now minus the duration). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_log(args jsonb) to svc_visitor;
--! EndIncluded time/tools/log.sql
--! Included time/tools/update.sql
-- The time.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- corrects one of the caller's entries: note, and for a finished entry durationMin and startedAt (endedAt follows);
-- a running timer's times are the clock's (409 timer_running).
create or replace function app_tools.time_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_entry app_public.time_entries;
  v_minutes int;
  v_started timestamptz;
begin
  perform app_hidden.require_time_tracking();
  perform app_hidden.require_user();
  v_entry := app_hidden.own_time_entry_for_write(args->>'id');
  if v_entry.duration_min is null and (args ? 'durationMin' or args ? 'startedAt') then
    raise exception 'This timer is running: stop it first, then correct its duration or start'
      using errcode = 'SV409', detail = 'timer_running';
  end if;
  v_minutes := coalesce((args->>'durationMin')::int, v_entry.duration_min);
  v_started := coalesce(app_hidden.spent_start(args->>'startedAt'), v_entry.started_at);
  update app_public.time_entries
  set duration_min = v_minutes, started_at = v_started,
      ended_at = case when v_minutes is null then null else v_started + make_interval(mins => v_minutes) end,
      note = case when args ? 'note' then args->>'note' else note end
  where id = v_entry.id
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_update(args jsonb) is 'time.update: Correct one of your time entries: note, and for a finished entry durationMin and startedAt (endedAt follows). A running timer''s times come from the clock (409 timer_running). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_update(args jsonb) to svc_visitor;
--! EndIncluded time/tools/update.sql
