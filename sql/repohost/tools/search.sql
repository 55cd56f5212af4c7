-- The repohost.search tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the SQL half: the caller's active mapping for the repository (404/422 otherwise); the Node half then
-- searches the host and marks the results already linked in this workspace.
create or replace function app_tools.repohost_search(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
begin
  return jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
    'known', coalesce((select jsonb_object_agg(r.number::text, r.id) from app_public.external_resources r
                       where r.workspace_id = v_mapping.workspace_id and lower(r.repo_full_name) = lower(v_mapping.repo_full_name)), '{}'));
end
$$;
grant execute on function app_tools.repohost_search(args jsonb) to svc_visitor;
comment on function app_tools.repohost_search(args jsonb) is 'repohost.search: Search issues and pull requests of a mapped repository on the host (GitHub search syntax in query, without repo:, user:, org: or owner:); each hit says whether this workspace already knows it (resourceId).';
