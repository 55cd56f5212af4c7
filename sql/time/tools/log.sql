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
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, app_hidden.spent_end(v_started, v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(args jsonb) is 'time.log: Log time spent on an issue manually: durationMin minutes (startedAt defaults to now minus the duration). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_log(args jsonb) to svc_visitor;
