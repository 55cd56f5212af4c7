-- The issues.addLabels tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds labels (already present: no change, no event). Run-mode gated.
create or replace function app_tools.issues_add_labels(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(args->'labelIds', 'labelIds'), null);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_add_labels(args jsonb) is 'issues.addLabels: Add labels to an issue (labels already on it are left alone). Returns the full issue.';
grant execute on function app_tools.issues_add_labels(args jsonb) to svc_visitor;
