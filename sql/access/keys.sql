-- access: the JSON shape of a key as lists show it (the procedures are app_public.access_*, sql/auth/keys.sql).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.api_key_json(k app_public.api_key)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', k.id, 'name', k.name, 'kind', k.kind, 'prefix', k.prefix, 'scopes', to_jsonb(k.scopes),
    'narrowing', jsonb_build_object('projectIds', to_jsonb(coalesce(k.project_ids, '{}')), 'labelIds', to_jsonb(coalesce(k.label_ids, '{}')),
                                    'initiativeIds', to_jsonb(coalesce(k.initiative_ids, '{}'))),
    'userId', k.user_id, 'linkedAgentId', k.linked_agent_id, 'pluginId', k.plugin_id, 'createdAt', k.created_at,
    'lastUsedAt', k.last_used_at, 'expiresAt', k.expires_at, 'revokedAt', k.revoked_at, 'isCurrent', k.is_current)
$$;
comment on function app_hidden.api_key_json(k app_public.api_key) is 'ApiKey as lists show it: display prefix, scopes, narrowing, owner, lastUsedAt, expiresAt, revokedAt. Never the token or its hash.';
grant execute on function app_hidden.api_key_json(k app_public.api_key) to svc_visitor;
