-- The issues.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes any of title, description, priority, statusId, projectId, parentId, cycleId, dueDate, estimate,
-- slaMinutes, expectedOutput, verificationChecklist, artifactRequired; labelIds replaces the label set.
-- Run-mode gated.
create or replace function app_tools.issues_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  if args->>'parentId' is not null then
    perform app_hidden.lock_issue_parents();  -- before the issue's row lock
  end if;
  v_issue := app_hidden.update_issue(app_hidden.issue_for_write(args->>'id'), args - 'id');
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_update(args jsonb) is 'issues.update: Change fields of an issue: only the fields given change; null clears a nullable field; labelIds replaces the label set. Writes ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_UPDATED for what really changed. Returns the full issue.';
grant execute on function app_tools.issues_update(args jsonb) to svc_visitor;
