-- repohost: JSON shapes and URL parsing.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.repo_mapping_json(m app_public.connection_mappings)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', m.id, 'kind', m.kind, 'provider', m.provider, 'repoFullName', m.repo_full_name,
    'tokenEnv', m.token_env, 'apiUrl', m.api_url, 'statusRules', m.status_rules, 'syncTitle', m.sync_title,
    'active', m.active, 'createdAt', m.created_at, 'updatedAt', m.updated_at)
$$;
comment on function app_hidden.repo_mapping_json(m app_public.connection_mappings) is 'ConnectionMapping (kind repo): the token is named by tokenEnv, never stored.';
grant execute on function app_hidden.repo_mapping_json(m app_public.connection_mappings) to svc_visitor;

create or replace function app_hidden.repo_resource_json(r app_public.external_resources)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', r.id, 'provider', r.provider, 'repoFullName', r.repo_full_name, 'type', r.type,
    'number', r.number, 'url', r.url, 'title', r.title, 'state', r.state, 'snapshot', r.snapshot,
    'syncedAt', r.synced_at, 'mappingId', r.mapping_id)
$$;
comment on function app_hidden.repo_resource_json(r app_public.external_resources) is 'An external issue or pull request with its latest local snapshot.';
grant execute on function app_hidden.repo_resource_json(r app_public.external_resources) to svc_visitor;

create or replace function app_hidden.repo_link_json(l app_public.external_links)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', l.id, 'issueId', l.issue_id, 'kind', l.kind, 'resourceId', l.resource_id,
    'createdAt', l.created_at,
    'resource', (select app_hidden.repo_resource_json(r) from app_public.external_resources r where r.id = l.resource_id))
$$;
comment on function app_hidden.repo_link_json(l app_public.external_links) is 'A link between an issue and an external resource, with the resource.';
grant execute on function app_hidden.repo_link_json(l app_public.external_links) to svc_visitor;

create or replace function app_hidden.repo_parse_url(p_url text, p_field text default 'url'::text)
 returns jsonb
 language plpgsql
 immutable
as $$
declare m text[] := regexp_match(coalesce(p_url, ''),
  '^https?://([A-Za-z0-9.-]+(?::[0-9]+)?)/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(issues|pull|pulls)/([1-9][0-9]{0,8})(?:[/?#].*)?$');
begin
  -- Numbers start at 1; `.` and `..` are path steps, not owners or repositories.
  if m is null or m[2] in ('.', '..') or m[3] in ('.', '..') then
    perform app_hidden.raise_invalid(p_field, 'not an issue or pull request URL (https://<host>/<owner>/<repo>/issues/<n> or /pull/<n>)');
  end if;
  return jsonb_build_object('host', lower(m[1]), 'owner', m[2], 'repo', m[3], 'repoFullName', m[2] || '/' || m[3],
    'type', case when m[4] = 'issues' then 'issue' else 'pull_request' end, 'number', m[5]::int,
    'url', 'https://' || lower(m[1]) || '/' || m[2] || '/' || m[3] || '/' || case when m[4] = 'issues' then 'issues' else 'pull' end || '/' || m[5]);
end
$$;
comment on function app_hidden.repo_parse_url(p_url text, p_field text) is 'Parses https://<host>/<owner>/<repo>/issues/<n> (or /pull/<n>) into {host, owner, repo, repoFullName, type, number, url}; 400 naming the field otherwise.';
grant execute on function app_hidden.repo_parse_url(p_url text, p_field text) to svc_visitor;
