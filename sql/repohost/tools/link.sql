-- The repohost.link tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fetched = what the Node half just read from the host for the URL's repository and number. Records the
-- snapshot and links it to the issue (an existing link of that issue and resource takes the new kind).
create or replace function app_tools.repohost_link(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_parsed jsonb := app_hidden.repo_parse_url(args->>'url');
  v_mapping app_public.connection_mappings := app_hidden.repo_mapping_resolve(null, v_parsed->>'repoFullName', 'url');
  v_resource app_public.external_resources;
  v_link app_public.external_links;
  v_created boolean;
begin
  if (args->'fetched'->0->>'number')::int is distinct from (v_parsed->>'number')::int then
    raise exception 'host answer missing for %', args->>'url' using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  v_resource := app_hidden.repo_resource_record(v_mapping, args->'fetched'->0);
  select * into v_link from app_public.external_links l where l.issue_id = v_issue.id and l.resource_id = v_resource.id;
  v_created := v_link.id is null;
  if v_created then
    insert into app_public.external_links (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id)
    values (v_issue.workspace_id, v_issue.id, v_resource.id, args->>'kind', app_hidden.current_user_id(), app_hidden.current_agent_id())
    returning * into v_link;
  elsif v_link.kind <> args->>'kind' then
    update app_public.external_links l set kind = args->>'kind' where l.id = v_link.id returning * into v_link;
  end if;
  return app_hidden.repo_link_json(v_link) || jsonb_build_object('created', v_created);
end
$$;
grant execute on function app_tools.repohost_link(args jsonb) to svc_visitor;
comment on function app_tools.repohost_link(args jsonb) is 'repohost.link: Link an issue or pull request URL of a mapped repository to an existing issue with kind SOURCE, IMPLEMENTS, REVIEWS or RELATES_TO. Reads the resource from the host and stores its snapshot; linking the same URL again changes the kind (created false). Never writes to the host.';
