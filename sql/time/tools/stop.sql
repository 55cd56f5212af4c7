-- The time.stop tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- stops the caller's running timer and returns the finished entry; 409 no_running_timer when none runs.
create or replace function app_tools.time_stop(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
comment on function app_tools.time_stop(args jsonb) is 'time.stop: Stop your running timer; returns the finished entry with durationMin. 409 no_running_timer when none runs. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_stop(args jsonb) to svc_visitor;
