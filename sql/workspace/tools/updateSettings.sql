-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the in-app procedure's path (app_hidden.workspace_update_settings: OWNER/ADMIN with the ADMIN scope, else 403
-- admin_required / scope_required): changes the settings given, returns them as workspace.get shows them. A key
-- with any narrowing may not (403 narrowing): the settings rule every project, as webhooks see every event.
-- Settings are configuration (like repository mappings and dispatch rules): no event kind records them.
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  perform app_hidden.require_workspace_admin();
  if not app_hidden.key_unnarrowed() then
    raise exception 'Workspace settings apply to the whole workspace; changing them needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return app_hidden.workspace_json(app_hidden.workspace_update_settings(
    args->>'name', (args->>'cycleLengthDays')::int, (args->>'cycleCooldownDays')::int,
    (args->>'timeTrackingEnabled')::boolean, (args->>'attachmentQuotaMb')::int, (args->>'requiredAckSeconds')::int,
    (args->>'autoDispatch')::boolean, args->>'autoDispatchMode', (args->>'assignmentSlaMinutes')::int,
    (args->>'agentRunStaleMinutes')::int));
end
$$;
grant execute on function app_tools.workspace_update_settings(args jsonb) to svc_visitor;
comment on function app_tools.workspace_update_settings(args jsonb) is 'workspace.updateSettings: Change the workspace settings given (as workspace.get shows them; requiredAckSeconds, assignmentSlaMinutes 0 = off). OWNER/ADMIN with the ADMIN scope and no narrowing (else 403).';
