-- Notification preferences (spec 2.16, 4.13): per user and event kind, for one workspace or for
-- every workspace (global). A workspace row wins over a global row; no row = enabled.
-- Re-runnable while current.

drop function if exists app_tools.notification_set_preference(jsonb);
drop function if exists app_tools.notification_get_preferences(jsonb);
drop function if exists app_hidden.current_key_user_id();
drop function if exists app_private.notification_preference_effective(uuid, uuid, text);
drop table if exists app_public.notification_preferences cascade;

create table app_public.notification_preferences (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid references app_public.workspaces on delete cascade,
  user_id uuid not null references app_public.users on delete cascade,
  event_kind text not null,
  enabled boolean not null default true,
  delivery text not null default 'INBOX_ONLY' check (delivery in ('INBOX_ONLY', 'INBOX_AND_DIGEST')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app_public.notification_preferences is
  'Whether a user is notified of an event kind, and how. workspace_id NULL = the user''s global default for every workspace; a workspace row wins over it; no row = enabled.';
comment on column app_public.notification_preferences.workspace_id is 'NULL for a global (cross-workspace) row.';
comment on column app_public.notification_preferences.delivery is 'INBOX_ONLY or INBOX_AND_DIGEST; today both behave the same (spec 4.13).';
create unique index notification_preferences_workspace_key on app_public.notification_preferences (workspace_id, user_id, event_kind)
  where workspace_id is not null;
create unique index notification_preferences_global_key on app_public.notification_preferences (user_id, event_kind)
  where workspace_id is null;
create trigger _100_updated_at before update on app_public.notification_preferences
  for each row execute function app_hidden.tg__set_updated_at();

alter table app_public.notification_preferences enable row level security;
alter table app_public.notification_preferences force row level security;
create policy select_own_preferences on app_public.notification_preferences for select to svc_visitor
  using (user_id = (select app_hidden.current_user_id())
         and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())));
comment on policy select_own_preferences on app_public.notification_preferences is
  'A user sees their own rows: global ones and those of the calling workspace.';
create policy insert_own_preferences on app_public.notification_preferences for insert to svc_visitor
  with check (user_id = (select app_hidden.current_user_id())
              and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())));
comment on policy insert_own_preferences on app_public.notification_preferences is
  'A user sets their own preferences, for the calling workspace or globally.';
create policy update_own_preferences on app_public.notification_preferences for update to svc_visitor
  using (user_id = (select app_hidden.current_user_id())
         and (workspace_id is null or workspace_id = (select app_hidden.current_workspace_id())))
  with check (user_id = (select app_hidden.current_user_id()));
comment on policy update_own_preferences on app_public.notification_preferences is 'A user changes their own preferences.';
create policy owner_all on app_public.notification_preferences to current_user using (true) with check (true);
comment on policy owner_all on app_public.notification_preferences is 'The schema owner (notification fan-out, operator) works on every row.';

grant select on app_public.notification_preferences to svc_visitor;
grant insert (workspace_id, user_id, event_kind, enabled, delivery) on app_public.notification_preferences to svc_visitor;
grant update (enabled, delivery) on app_public.notification_preferences to svc_visitor;

create or replace function app_hidden.current_key_user_id() returns uuid
language sql stable security definer set search_path = pg_catalog as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is
  'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';

create or replace function app_private.notification_preference_effective(p_user_id uuid, p_workspace_id uuid, p_kind text)
returns table (enabled boolean, delivery text, source text)
language sql stable as $$
  select coalesce(w.enabled, g.enabled, true), coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
         case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end
  from (select 1) one
  left join app_public.notification_preferences w
    on w.user_id = p_user_id and w.workspace_id = p_workspace_id and w.event_kind = p_kind
  left join app_public.notification_preferences g
    on g.user_id = p_user_id and g.workspace_id is null and g.event_kind = p_kind
$$;
comment on function app_private.notification_preference_effective(uuid, uuid, text) is
  'For notification fan-out: whether the user wants this kind in this workspace (workspace row, else global row, else enabled).';

create or replace function app_hidden.notification_preference_json(p app_public.notification_preferences) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', p.id, 'userId', p.user_id, 'workspaceId', p.workspace_id, 'eventKind', p.event_kind,
    'enabled', p.enabled, 'delivery', p.delivery, 'scope', case when p.workspace_id is null then 'global' else 'workspace' end,
    'updatedAt', p.updated_at)
$$;
comment on function app_hidden.notification_preference_json(app_public.notification_preferences) is 'NotificationPreference (spec 2.16) plus scope.';

create or replace function app_hidden.require_key_user() returns uuid
language plpgsql stable as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';

create or replace function app_tools.notification_set_preference(args jsonb) returns jsonb
language plpgsql volatile as $$
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
comment on function app_tools.notification_set_preference(jsonb) is
  'notification.setPreference: upserts the key owner''s preference for one event kind, in this workspace (default) or globally; delivery kept when omitted on update.';

create or replace function app_tools.notification_get_preferences(args jsonb) returns jsonb
language plpgsql stable as $$
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
comment on function app_tools.notification_get_preferences(jsonb) is
  'notification.getPreferences: the key owner''s rows (global and this workspace) and the effective setting per kind (workspace row, else global, else enabled).';

grant execute on function app_hidden.current_key_user_id(), app_hidden.notification_preference_json(app_public.notification_preferences),
  app_hidden.require_key_user(), app_tools.notification_set_preference(jsonb), app_tools.notification_get_preferences(jsonb)
  to svc_visitor;
