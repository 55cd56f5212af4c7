-- The issues.queue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- puts the issue in the dispatch pool (ISSUE_QUEUED when queued flips true); queued false takes it out
-- (ISSUE_UPDATED). Run-mode gated.
create or replace function app_tools.issues_queue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('queued', coalesce((args->>'queued')::boolean, true)));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_queue(args jsonb) is 'issues.queue: Put an issue in the dispatch pool (queued = true; ISSUE_QUEUED). Pass queued: false to take it out again.';
grant execute on function app_tools.issues_queue(args jsonb) to svc_visitor;
