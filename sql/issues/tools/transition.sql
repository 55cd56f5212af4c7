-- The issues.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves the issue to another status of the workspace (any move is allowed; ISSUE_STATUS_CHANGED only on a
-- real move). Run-mode gated.
create or replace function app_tools.issues_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', args->>'statusId'));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(args jsonb) is 'issues.transition: Move an issue to another status (statusId from statuses.list). Any status may move to any other.';
grant execute on function app_tools.issues_transition(args jsonb) to svc_visitor;
