-- notification: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.notification_preference_json(p app_public.notification_preferences)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', p.id, 'userId', p.user_id, 'workspaceId', p.workspace_id, 'eventKind', p.event_kind,
    'enabled', p.enabled, 'delivery', p.delivery, 'scope', case when p.workspace_id is null then 'global' else 'workspace' end,
    'updatedAt', p.updated_at)
$$;
comment on function app_hidden.notification_preference_json(p app_public.notification_preferences) is 'NotificationPreference (spec 2.16) plus scope.';
grant execute on function app_hidden.notification_preference_json(p app_public.notification_preferences) to svc_visitor;

create or replace function app_private.notification_preference_effective(p_user_id uuid, p_workspace_id uuid, p_kind text)
 returns table(enabled boolean, delivery text, source text)
 language sql
 stable
as $$
  select coalesce(w.enabled, g.enabled, true), coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
         case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end
  from (select 1) one
  left join app_public.notification_preferences w
    on w.user_id = p_user_id and w.workspace_id = p_workspace_id and w.event_kind = p_kind
  left join app_public.notification_preferences g
    on g.user_id = p_user_id and g.workspace_id is null and g.event_kind = p_kind
$$;
comment on function app_private.notification_preference_effective(p_user_id uuid, p_workspace_id uuid, p_kind text) is 'For notification fan-out: whether the user wants this kind in this workspace (workspace row, else global row, else enabled).';
