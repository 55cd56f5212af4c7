-- The notification.getPreferences tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the key owner's rows (global and this workspace) and the effective setting per kind (workspace row, else
-- global, else enabled).
create or replace function app_tools.notification_get_preferences(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_ws uuid := app_hidden.current_workspace_id();
  v_kinds text[] := coalesce((select array_agg(k) from jsonb_array_elements_text(args->'eventKinds') k), app_hidden.event_kinds());
begin
  return jsonb_build_object(
    'preferences', coalesce((select jsonb_agg(app_hidden.notification_preference_json(p)
                                              order by p.event_kind, p.workspace_id nulls first)
                             from app_public.notification_preferences p
                             where p.user_id = v_user and p.event_kind = any(v_kinds)
                               and (p.workspace_id is null or p.workspace_id = v_ws)), '[]'),
    'effective', (select jsonb_agg(jsonb_build_object('eventKind', k,
                    'enabled', coalesce(w.enabled, g.enabled, true),
                    'delivery', coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
                    'source', case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end)
                  order by k)
                  from unnest(v_kinds) k
                  left join app_public.notification_preferences w on w.user_id = v_user and w.workspace_id = v_ws and w.event_kind = k
                  left join app_public.notification_preferences g on g.user_id = v_user and g.workspace_id is null and g.event_kind = k));
end
$$;
comment on function app_tools.notification_get_preferences(args jsonb) is 'notification.getPreferences: The key''s own notification settings: the stored rows (this workspace and global) and the effective setting for each event kind (workspace row, else global row, else enabled).';
grant execute on function app_tools.notification_get_preferences(args jsonb) to svc_visitor;
