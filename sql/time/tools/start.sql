-- The time.start tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- starts the caller's timer on a visible issue, stopping a running one first (returned as stopped); already
-- running on that issue: unchanged.
create or replace function app_tools.time_start(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_running app_public.time_entries;
  v_stopped app_public.time_entries;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.hold_membership();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  -- One timer decision per person at a time: two concurrent starts would each see no running timer.
  perform pg_advisory_xact_lock(hashtextextended('svc.timer:' || v_issue.workspace_id::text || v_user::text, 0));
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
comment on function app_tools.time_start(args jsonb) is 'time.start: Start your timer on an issue. A timer already running on another issue is stopped first (returned as stopped); one on the same issue keeps running. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_start(args jsonb) to svc_visitor;
