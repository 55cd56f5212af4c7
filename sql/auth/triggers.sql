-- Triggers of the auth tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_api_keys__notify_revoked()
 returns trigger
 language plpgsql
as $$
begin
  perform pg_notify('svc_keys', case when tg_op = 'DELETE' then old.id else new.id end::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked or deleted key at once, and to end its streams.';

drop trigger if exists _900_notify_revoked on app_private.api_keys;
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__notify_revoked();
-- A key deleted with its workspace or its user (a stream opened with it stayed open).
drop trigger if exists _900_notify_deleted on app_private.api_keys;
create trigger _900_notify_deleted after delete on app_private.api_keys for each row execute function app_private.tg_api_keys__notify_revoked();

create or replace function app_private.tg_api_keys__identity_fixed()
 returns trigger
 language plpgsql
as $$
begin
  -- A call runs as its key's row says (set_request_context), while each API process and its open streams keep the
  -- row they authenticated: were the row's identity to change, they would disagree until the cache or stream ended.
  -- Keys are rotated instead (spec 5.8): issue a new one, revoke the old.
  raise exception 'A key''s workspace, owner, agent, plugin, kind, scopes, narrowing and hash never change: issue a new key and revoke this one'
    using errcode = 'SV409', detail = 'key_identity_fixed';
end
$$;
comment on function app_private.tg_api_keys__identity_fixed() is 'BEFORE UPDATE on api_keys changing what a call runs as (workspace, user, plugin, kind, agent, scopes, narrowing, token hash): refused; a key is rotated, never edited.';

drop trigger if exists _100_identity_fixed on app_private.api_keys;
create trigger _100_identity_fixed before update on app_private.api_keys for each row
  when ((old.workspace_id, old.user_id, old.plugin_id, old.kind, old.linked_agent_id, old.scopes, old.project_ids, old.label_ids,
         old.initiative_ids, old.token_hash)
        is distinct from (new.workspace_id, new.user_id, new.plugin_id, new.kind, new.linked_agent_id, new.scopes, new.project_ids,
         new.label_ids, new.initiative_ids, new.token_hash))
  execute function app_private.tg_api_keys__identity_fixed();

create or replace function app_private.tg_api_keys__agent_offline()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- An agent whose last live key is revoked can no longer heartbeat, claim or report: it is OFFLINE now (reason
  -- keys_revoked), so the dispatcher stops handing it work; it stayed ONLINE, queued work and all, until the
  -- presence sweep 30 minutes later. Its row is locked first: two of its keys revoked at once then see each other's
  -- revocation (the check below runs after the lock, on what committed), and the last of them finds none left.
  perform 1 from app_public.agents a
  where a.id = new.linked_agent_id and a.status <> 'OFFLINE' and a.archived_at is null
  for update;
  if found and not app_private.agent_has_live_key(new.linked_agent_id) then
    perform set_config('svc.agent_status_reason', 'keys_revoked', true);
    update app_public.agents set status = 'OFFLINE' where id = new.linked_agent_id;
    perform set_config('svc.agent_status_reason', '', true);
  end if;
  return null;
end
$$;
comment on function app_private.tg_api_keys__agent_offline() is 'An agent''s last live key revoked (accessRevoke, svc admin revoke-key, the person who issued it removed): the agent goes OFFLINE at once (AGENT_STATUS_CHANGED, reason keys_revoked), so the dispatcher skips it. A new key and a heartbeat bring it back.';

drop trigger if exists _850_agent_offline on app_private.api_keys;
create trigger _850_agent_offline after update of revoked_at on app_private.api_keys for each row
  when (new.revoked_at is not null and old.revoked_at is null and new.linked_agent_id is not null)
  execute function app_private.tg_api_keys__agent_offline();

create or replace function app_private.tg_api_keys__events()
 returns trigger
 language plpgsql
as $$
begin
  -- Who holds access is the workspace's audit trail: issuing and revoking a key are state changes like any other.
  -- Never the token or its hash; the prefix is what lists show.
  perform app_private.record_event(new.workspace_id, case when tg_op = 'INSERT' then 'API_KEY_CREATED' else 'API_KEY_REVOKED' end,
    'api-key', new.id, jsonb_build_object('keyId', new.id, 'kind', new.kind, 'prefix', new.prefix, 'userId', new.user_id,
      'linkedAgentId', new.linked_agent_id, 'pluginId', new.plugin_id, 'expiresAt', new.expires_at, 'revokedAt', new.revoked_at));
  return null;
end
$$;
comment on function app_private.tg_api_keys__events() is 'API_KEY_CREATED when a key is issued (any path: access.*, plugins, the CLI, a new workspace''s owner key) and API_KEY_REVOKED when it is revoked (accessRevoke, svc admin revoke-key, a member removed); subject api-key, payload without secrets.';

drop trigger if exists _800_events_created on app_private.api_keys;
create trigger _800_events_created after insert on app_private.api_keys for each row execute function app_private.tg_api_keys__events();
drop trigger if exists _800_events_revoked on app_private.api_keys;
create trigger _800_events_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__events();

create or replace function app_private.tg_plugins__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  -- What a plugin's keys may be given and which skills skills.invoke may call are the workspace's to follow like its
  -- webhooks and dispatch rules (the event audit's last configuration without a trace).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['name', 'manifest.scopes:scopes', 'manifest.skills:skills', 'approved_at']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  perform app_private.record_event(new.workspace_id, case tg_op when 'INSERT' then 'PLUGIN_CREATED' else 'PLUGIN_UPDATED' end,
    'plugin', new.id,
    jsonb_build_object('pluginId', new.id, 'name', new.name, 'scopes', coalesce(new.manifest->'scopes', '[]'),
      'skills', coalesce((select jsonb_agg(s->'name') from jsonb_array_elements(coalesce(new.manifest->'skills', '[]')) s), '[]'),
      'approvedAt', new.approved_at)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_plugins__events() is 'AFTER INSERT/UPDATE on plugins: PLUGIN_CREATED, PLUGIN_UPDATED (changes: name, scopes, skills, approvedAt; nothing changed, no event). Subject plugin; payload pluginId, name, scopes, skills (their names), approvedAt.';

drop trigger if exists _800_events on app_private.plugins;
create trigger _800_events after insert or update on app_private.plugins for each row execute function app_private.tg_plugins__events();
