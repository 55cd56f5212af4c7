-- The repohost.sync tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fetched = fresh host answers for the resources behind resourceId or issueId (from repohost_prepare).
-- Each snapshot is stored, then the mapping's status/title rules are applied to the linked issues.
create or replace function app_tools.repohost_sync(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_fetched jsonb;
  v_mapping app_public.connection_mappings;
  v_resource app_public.external_resources;
  v_items jsonb := '[]';
begin
  if args->>'issueId' is not null then
    perform app_hidden.find_issue(args->>'issueId', 'issueId');
  end if;
  if args->>'resourceId' is not null and not exists (
      select 1 from app_public.external_resources r where r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId')) then
    raise exception 'External resource not found' using errcode = 'SV404', column = 'resourceId';
  end if;
  for v_fetched in select * from jsonb_array_elements(coalesce(args->'fetched', '[]')) loop
    v_mapping := app_hidden.repo_mapping_resolve(null, v_fetched->>'repoFullName');
    v_resource := app_hidden.repo_resource_record(v_mapping, v_fetched);
    v_items := v_items || jsonb_build_object('resource', app_hidden.repo_resource_json(v_resource),
      'applied', app_hidden.repo_apply_rules(v_resource));
  end loop;
  return jsonb_build_object('items', v_items);
end
$$;
grant execute on function app_tools.repohost_sync(args jsonb) to svc_visitor;
comment on function app_tools.repohost_sync(args jsonb) is 'repohost.sync: Refresh the stored snapshot of linked external resources (one resourceId, or every resource linked to issueId) from the host and apply the mapping''s rules: status rules move SOURCE/IMPLEMENTS-linked issues (e.g. closed or merged → Done), syncTitle copies the title onto SOURCE-linked issues.';
