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

create or replace function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer)
 returns timestamp with time zone
 language plpgsql
 stable
as $$
begin
  -- The end too: a start a minute ago with a week's duration counted a week of future work on today.
  if p_started + make_interval(mins => p_minutes) > now() + interval '1 minute' then
    perform app_hidden.raise_invalid('durationMin', 'ends in the future from startedAt: an entry records time already spent');
  end if;
  return p_started + make_interval(mins => p_minutes);
end
$$;
comment on function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer) is 'time.log / time.update: the end of a finished entry (start plus minutes), or a 400 on durationMin when it is in the future (a minute of slack for the caller''s clock).';
grant execute on function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer) to svc_visitor;

create or replace function app_hidden.timer_minutes(p_started_at timestamp with time zone)
 returns integer
 language sql
 stable
as $$
  select greatest(0, round(extract(epoch from now() - p_started_at) / 60))::int
$$;
comment on function app_hidden.timer_minutes(p_started_at timestamp with time zone) is 'A timer stopped now: its whole minutes since p_started_at, rounded (time.stop, time.start stopping the previous one, an issue deleted under it).';
grant execute on function app_hidden.timer_minutes(p_started_at timestamp with time zone) to svc_visitor;

create or replace function app_hidden.stop_running_timer(p_user uuid)
 returns app_public.time_entries
 language sql
as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = app_hidden.timer_minutes(started_at)
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(p_user uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';
grant execute on function app_hidden.stop_running_timer(p_user uuid) to svc_visitor;

create or replace function app_private.stop_running_timers(p_workspace_id uuid, p_issue_id uuid default null, p_user_id uuid default null)
 returns void
 language sql
as $$
  -- Whoever's they are (time entries write no event): durationMin = elapsed minutes, as time.stop.
  update app_public.time_entries e
  set ended_at = now(), duration_min = app_hidden.timer_minutes(e.started_at)
  where e.workspace_id = p_workspace_id and (p_issue_id is null or e.issue_id = p_issue_id)
    and (p_user_id is null or e.user_id = p_user_id) and e.duration_min is null
$$;
comment on function app_private.stop_running_timers(p_workspace_id uuid, p_issue_id uuid, p_user_id uuid) is 'Stops every running timer of the workspace (of one issue, of one person, when given), anyone''s: when the issue is deleted, when time tracking is turned off, when the person is removed.';

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
