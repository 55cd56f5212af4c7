-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.workspace_update_settings, settings given only (OWNER/ADMIN).
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.workspace_json(app_public.workspace_update_settings(
    args->>'name', (args->>'cycleLengthDays')::int, (args->>'cycleCooldownDays')::int,
    (args->>'timeTrackingEnabled')::boolean, (args->>'attachmentQuotaMb')::int, (args->>'requiredAckSeconds')::int,
    (args->>'autoDispatch')::boolean, args->>'autoDispatchMode', (args->>'assignmentSlaMinutes')::int,
    (args->>'agentRunStaleMinutes')::int));
end
$$;
comment on function app_tools.workspace_update_settings(args jsonb) is 'workspace.updateSettings: OWNER/ADMIN: change the settings given (name, cycles, time tracking, dispatch, SLAs).';
grant execute on function app_tools.workspace_update_settings(args jsonb) to svc_visitor;
