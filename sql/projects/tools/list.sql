-- The projects.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId
-- filter (null = without initiative).
create or replace function app_tools.projects_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_initiative uuid := app_hidden.parse_uuid(args->>'initiativeId', 'initiativeId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id
    from app_hidden.keyset_decode(args->>'cursor', 'projects') k;
  end if;
  with page as (
    select p as r from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           or (v_initiative is null and p.initiative_id is null)
           or p.initiative_id = v_initiative)
      and (v_after_ts is null or (p.created_at, p.id) > (v_after_ts, v_after_id))
    order by p.created_at, p.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.project_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('projects', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.projects_list(args jsonb) is 'projects.list: Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative).';
grant execute on function app_tools.projects_list(args jsonb) to svc_visitor;
