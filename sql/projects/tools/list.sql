-- The projects.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId
-- filter (null = without initiative; one the key cannot see is 404).
create or replace function app_tools.projects_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  -- An initiative the key cannot see is 404 here as everywhere (filtering by it would tell its projects).
  v_initiative uuid := case when args->>'initiativeId' is not null
                            then (app_hidden.find_initiative(args->>'initiativeId', 'initiativeId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'projects');
begin
  return app_hidden.page_json(array(
    select (app_hidden.project_json(p), app_hidden.ts_key(p.created_at), p.id)::app_hidden.page_row
    from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           -- null: projects without an initiative as the key sees them (one of a hidden initiative reads null too)
           or (v_initiative is null and (p.initiative_id is null
               or not exists (select 1 from app_public.initiatives i where i.id = p.initiative_id)))
           or p.initiative_id = v_initiative)
      and (v_after.sort_id is null or (p.created_at, p.id) > (v_after.sort_key, v_after.sort_id))
    order by p.created_at, p.id limit v_limit + 1), v_limit, 'projects');
end
$$;
comment on function app_tools.projects_list(args jsonb) is 'projects.list: Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative; one the key cannot see is 404).';
grant execute on function app_tools.projects_list(args jsonb) to svc_visitor;
