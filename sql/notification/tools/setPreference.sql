-- The notification.setPreference tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- upserts the key owner's preference for one event kind, in this workspace (default) or globally; delivery
-- kept when omitted on update.
create or replace function app_tools.notification_set_preference(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_global boolean := coalesce(args->>'scope', 'workspace') = 'global';
  v_kind text := args->>'eventKind';
  v_row app_public.notification_preferences;
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  if v_global then
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (null, v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (user_id, event_kind) where workspace_id is null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  else
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (app_hidden.current_workspace_id(), v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (workspace_id, user_id, event_kind) where workspace_id is not null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  end if;
  return app_hidden.notification_preference_json(v_row);
end
$$;
comment on function app_tools.notification_set_preference(args jsonb) is 'notification.setPreference: Turn notifications of one event kind on or off for the key''s own user, in this workspace (scope workspace, the default) or as a default for every workspace (scope global). A workspace setting wins over the global one; without any, every kind is enabled.';
grant execute on function app_tools.notification_set_preference(args jsonb) to svc_visitor;
