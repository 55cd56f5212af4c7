-- The notification.resetPreference tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes the key owner's own row for one event kind (this workspace's, or the global one with scope global),
-- so the next rule applies again (global row, else enabled); idempotent: removed false when there was none.
create or replace function app_tools.notification_reset_preference(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_ws uuid := app_hidden.current_workspace_id();
  v_global boolean := coalesce(args->>'scope', 'workspace') = 'global';
  v_kind text := args->>'eventKind';
  v_removed int;
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  delete from app_public.notification_preferences p
  where p.user_id = v_user and p.event_kind = v_kind
    and (case when v_global then p.workspace_id is null else p.workspace_id = v_ws end);
  get diagnostics v_removed = row_count;
  -- What applies now, as notification.getPreferences says it (workspace row, else global row, else enabled).
  return jsonb_build_object(
    'eventKind', v_kind, 'scope', case when v_global then 'global' else 'workspace' end, 'removed', v_removed > 0,
    'effective', app_tools.notification_get_preferences(jsonb_build_object('eventKinds', jsonb_build_array(v_kind)))->'effective'->0);
end
$$;
grant execute on function app_tools.notification_reset_preference(args jsonb) to svc_visitor;
comment on function app_tools.notification_reset_preference(args jsonb) is 'notification.resetPreference: Remove your setting for one event kind (this workspace''s, or the global one with scope global) so the next rule applies again (workspace, global, enabled). Returns the effective setting; removed false if there was none.';
