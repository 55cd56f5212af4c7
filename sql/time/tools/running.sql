-- The time.running tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's running timer, or null.
create or replace function app_tools.time_running(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  select * into v_entry from app_public.time_entries
  where workspace_id = app_hidden.current_workspace_id() and user_id = app_hidden.require_user() and duration_min is null;
  return case when v_entry.id is null then null else app_hidden.time_entry_json(v_entry) end;
end
$$;
comment on function app_tools.time_running(args jsonb) is 'time.running: Your running timer, or null. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_running(args jsonb) to svc_visitor;
