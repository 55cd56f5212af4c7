-- The repohost.importIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- idempotent: a resource already imported (SOURCE link to a live issue) returns that issue with created
-- false; one imported into an issue now in the trash is 409 naming it (a daily import neither brings back what a
-- person deleted nor makes a second issue beside it; issues.restore brings it back); otherwise issues.create
-- (title from the host, description with the host body and a link back), optional queue, and the SOURCE link, all
-- in this transaction.
create or replace function app_tools.repohost_import_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
  v_fetched jsonb := args->'fetched'->0;
  v_resource app_public.external_resources;
  v_link app_public.external_links;
  v_issue jsonb;
  v_found record;
  v_body text;
begin
  if (v_fetched->>'number')::int is distinct from (args->>'number')::int then
    raise exception 'host answer missing for %#%', v_mapping.repo_full_name, args->>'number' using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  v_resource := app_hidden.repo_resource_record(v_mapping, v_fetched);
  -- The import this key sees, a live issue's before a deleted one's.
  select l as link, i.key, i.deleted_at is not null as deleted into v_found from app_public.external_links l
  join app_public.issues i on i.id = l.issue_id
  where l.resource_id = v_resource.id and l.kind = 'SOURCE' order by i.deleted_at is not null, l.created_at limit 1;
  if v_found.deleted then
    raise exception '%#% was imported into %, which is deleted: issues.restore brings it back', v_resource.repo_full_name,
      v_resource.number, v_found.key using errcode = 'SV409', detail = 'already_imported';
  elsif found then
    return jsonb_build_object('issueId', (v_found.link).issue_id, 'created', false,
      'resource', app_hidden.repo_resource_json(v_resource), 'link', app_hidden.repo_link_json(v_found.link));
  end if;
  if app_hidden.repo_resource_imported(v_resource.id) then
    raise exception '%#% was already imported into an issue this key cannot see', v_resource.repo_full_name, v_resource.number
      using errcode = 'SV409', detail = 'already_imported';
  end if;
  v_body := coalesce(nullif(v_fetched->'snapshot'->>'body', '') || E'\n\n', '')
    || format('Imported from %s', v_resource.url);
  v_issue := app_tools.issues_create(jsonb_strip_nulls(jsonb_build_object(
    'title', left(coalesce(nullif(v_resource.title, ''), v_resource.repo_full_name || '#' || v_resource.number), 500),
    'description', v_body, 'projectId', args->'projectId', 'labelIds', args->'labelIds')));
  if coalesce((args->>'queue')::boolean, false) then
    v_issue := app_tools.issues_queue(jsonb_build_object('id', v_issue->>'id'));
  end if;
  insert into app_public.external_links (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id)
  values (v_mapping.workspace_id, (v_issue->>'id')::uuid, v_resource.id, 'SOURCE', app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_link;
  return jsonb_build_object('issueId', v_issue->>'id', 'created', true, 'issue', v_issue,
    'resource', app_hidden.repo_resource_json(v_resource), 'link', app_hidden.repo_link_json(v_link));
end
$$;
grant execute on function app_tools.repohost_import_issue(args jsonb) to svc_visitor;
comment on function app_tools.repohost_import_issue(args jsonb) is 'repohost.importIssue: Create an issue from an issue or pull request of a mapped repository (give mappingId, or repoFullName with an active mapping, and number). Idempotent: when it was imported before, returns that issue with created false (409 already_imported when that issue is deleted, naming it, or out of the key''s sight). Links it with kind SOURCE; optional projectId, labelIds, queue.';
