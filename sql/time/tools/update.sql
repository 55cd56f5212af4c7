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
      ended_at = case when v_minutes is null then null
                      when args ? 'durationMin' or args ? 'startedAt' then app_hidden.spent_end(v_started, v_minutes)
                      else v_started + make_interval(mins => v_minutes) end,
      note = case when args ? 'note' then args->>'note' else note end
  where id = v_entry.id
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_update(args jsonb) is 'time.update: Correct one of your time entries: note, and for a finished entry durationMin and startedAt (endedAt follows). A running timer''s times come from the clock (409 timer_running). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_update(args jsonb) to svc_visitor;
