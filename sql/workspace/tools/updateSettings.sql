-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the in-app procedure's path (app_hidden.workspace_update_settings: OWNER/ADMIN with the ADMIN scope, else 403
-- admin_required / scope_required): changes the settings given, returns them as workspace.get shows them. A key
-- with any narrowing may not (403 narrowing): the settings rule every project, as webhooks see every event.
-- Every setting that changes is named in one WORKSPACE_UPDATED (trigger on workspaces, sql/workspace/triggers.sql,
-- whatever the path: this tool, GraphQL, the CLI); a call that changes nothing writes none.
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_hidden.workspace_json(app_hidden.workspace_update_settings(
    args->>'name', (args->>'cycleLengthDays')::int, (args->>'cycleCooldownDays')::int,
    (args->>'timeTrackingEnabled')::boolean, (args->>'attachmentQuotaMb')::int, (args->>'requiredAckSeconds')::int,
    (args->>'autoDispatch')::boolean, args->>'autoDispatchMode', (args->>'assignmentSlaMinutes')::int,
    (args->>'agentRunStaleMinutes')::int, (args->>'offlineReclaimMinutes')::int));
end
$$;
grant execute on function app_tools.workspace_update_settings(args jsonb) to svc_visitor;
comment on function app_tools.workspace_update_settings(args jsonb) is 'workspace.updateSettings: Change the workspace settings given (as workspace.get shows them; requiredAckSeconds, assignmentSlaMinutes, offlineReclaimMinutes 0 = off; timeTrackingEnabled false stops every running timer). OWNER/ADMIN with the ADMIN scope and no narrowing (else 403).';
