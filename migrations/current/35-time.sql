-- time.* (spec 2.7, 4.6). Scopes READ_ISSUES / WRITE_ISSUES. Every tool: 403 time_tracking_disabled when
-- the workspace has time tracking off. One running timer per user per workspace (time_entries_one_running);
-- time.start stops a running one first. Entries write no ActivityEvent (personal records, docs/decisions.md).
-- Days (list ranges, summary byDay) are UTC dates of startedAt.

-- A user always sees their own entries (their running timer included), even through a narrowed key;
-- everyone's entries on visible issues stay visible through select_on_visible_issues.
drop policy if exists select_own_time on app_public.time_entries;
create policy select_own_time on app_public.time_entries for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()));
comment on policy select_own_time on app_public.time_entries is
  'A user sees their own time entries (so time.running / time.stop find their timer whatever key they use).';

create or replace function app_hidden.require_time_tracking() returns void
language plpgsql stable as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';

create or replace function app_hidden.time_entry_json(e app_public.time_entries) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', e.issue_id,
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(app_public.time_entries) is
  'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';

create or replace function app_hidden.stop_running_timer(p_user uuid) returns app_public.time_entries
language sql volatile as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = greatest(0, round(extract(epoch from now() - started_at) / 60))::int
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';

create or replace function app_tools.time_start(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_running app_public.time_entries;
  v_stopped app_public.time_entries;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  select * into v_running from app_public.time_entries
  where workspace_id = v_issue.workspace_id and user_id = v_user and duration_min is null;
  if v_running.issue_id = v_issue.id then
    return jsonb_build_object('entry', app_hidden.time_entry_json(v_running), 'stopped', null);
  end if;
  if v_running.id is not null then
    v_stopped := app_hidden.stop_running_timer(v_user);
  end if;
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, note)
  values (v_issue.workspace_id, v_issue.id, v_user, now(), args->>'note')
  returning * into v_entry;
  return jsonb_build_object('entry', app_hidden.time_entry_json(v_entry),
                            'stopped', case when v_stopped.id is null then null else app_hidden.time_entry_json(v_stopped) end);
end
$$;
comment on function app_tools.time_start(jsonb) is
  'time.start: starts the caller''s timer on a visible issue, stopping a running one first (returned as stopped); already running on that issue: unchanged.';

create or replace function app_tools.time_stop(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_entry := app_hidden.stop_running_timer(app_hidden.require_user());
  if v_entry.id is null then
    raise exception 'No timer is running' using errcode = 'SV409', detail = 'no_running_timer';
  end if;
  if args ? 'note' then
    update app_public.time_entries set note = args->>'note' where id = v_entry.id returning * into v_entry;
  end if;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_stop(jsonb) is 'time.stop: stops the caller''s running timer and returns the finished entry; 409 no_running_timer when none runs.';

create or replace function app_tools.time_log(args jsonb) returns jsonb
language plpgsql volatile as $$
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
  v_started := coalesce((args->>'startedAt')::timestamptz, now() - make_interval(mins => v_minutes));
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note)
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, v_started + make_interval(mins => v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(jsonb) is 'time.log: a finished manual entry of durationMin on a visible issue (startedAt defaults to now minus the duration).';

create or replace function app_hidden.time_entries_filtered(args jsonb) returns setof app_public.time_entries
language plpgsql stable as $$
declare
  v_issue_id uuid;
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
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(jsonb) is
  'Time entries on issues the key can see (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';

create or replace function app_tools.time_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_time_tracking();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'time') k;
  end if;
  with page as (
    select e as r from app_hidden.time_entries_filtered(args) e
    where v_after_ts is null or (e.started_at, e.id) < (v_after_ts, v_after_id)
    order by e.started_at desc, e.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.time_entry_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('time', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.time_list(jsonb) is
  'time.list: time entries on issues the key can see (everyone''s), newest start first, keyset-paged; filters userId, issueId, from/to.';

create or replace function app_tools.time_summary(args jsonb) returns jsonb
language plpgsql stable as $$
begin
  perform app_hidden.require_time_tracking();
  return (
    with e as (select * from app_hidden.time_entries_filtered(args) where duration_min is not null)
    select jsonb_build_object(
      'from', args->'from', 'to', args->'to',
      'totalMin', coalesce((select sum(duration_min) from e), 0),
      'entryCount', (select count(*) from e),
      'byUser', coalesce((
        select jsonb_agg(jsonb_build_object('userId', t.user_id, 'name', t.name, 'totalMin', t.total) order by t.total desc, t.user_id)
        from (select e.user_id, (select coalesce(nullif(u.name, ''), u.email) from app_public.users u where u.id = e.user_id) as name,
                     sum(e.duration_min) as total
              from e group by e.user_id) t), '[]'),
      'byIssue', coalesce((
        select jsonb_agg(jsonb_build_object('issueId', t.issue_id, 'key', i.key, 'title', i.title, 'totalMin', t.total)
                         order by t.total desc, t.issue_id)
        from (select e.issue_id, sum(e.duration_min) as total from e group by e.issue_id) t
        left join app_public.issues i on i.id = t.issue_id), '[]'),
      'byDay', coalesce((
        select jsonb_agg(jsonb_build_object('day', t.day, 'totalMin', t.total) order by t.day)
        from (select (e.started_at at time zone 'UTC')::date as day, sum(e.duration_min) as total from e group by 1) t), '[]')));
end
$$;
comment on function app_tools.time_summary(jsonb) is
  'time.summary: minutes of finished entries (running timers excluded) in total, by user, by issue and by UTC day, with the time.list filters.';

create or replace function app_tools.time_running(args jsonb) returns jsonb
language plpgsql stable as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  select * into v_entry from app_public.time_entries
  where workspace_id = app_hidden.current_workspace_id() and user_id = app_hidden.require_user() and duration_min is null;
  return case when v_entry.id is null then null else app_hidden.time_entry_json(v_entry) end;
end
$$;
comment on function app_tools.time_running(jsonb) is 'time.running: the caller''s running timer, or null.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
