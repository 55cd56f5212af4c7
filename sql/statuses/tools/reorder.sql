-- The statuses.reorder tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the full order (OWNER/ADMIN, key without narrowing): ids = every status of the workspace once; positions
-- become 0..n-1, one STATUS_UPDATED (changes position) per status that moved. Returns the list in its new order.
create or replace function app_tools.statuses_reorder(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_ids uuid[] := app_hidden.uuid_array(args->'ids', 'ids');
  v_before jsonb;
  v_missing text;
  v_status app_public.statuses;
begin
  if cardinality(v_ids) <> (select count(distinct x) from unnest(v_ids) x) then
    perform app_hidden.raise_invalid('ids', 'each status once: ids has duplicates');
  end if;
  if exists (select 1 from unnest(v_ids) x
             where not exists (select 1 from app_public.statuses s where s.id = x and s.workspace_id = v_ws)) then
    raise exception 'Status not found' using errcode = 'SV404', column = 'ids';
  end if;
  select string_agg(format('%s (%s)', s.name, s.id), ', ' order by s.position, s.name) into v_missing
  from app_public.statuses s where s.workspace_id = v_ws and s.id <> all(v_ids);
  if v_missing is not null then
    perform app_hidden.raise_invalid('ids', format('give the full order, every status of the workspace once; missing: %s', v_missing));
  end if;
  select jsonb_object_agg(s.id, s.position) into v_before from app_public.statuses s where s.workspace_id = v_ws;
  for v_status in
    update app_public.statuses s set position = o.n - 1
    from unnest(v_ids) with ordinality as o(id, n)
    where s.id = o.id and s.workspace_id = v_ws and s.position <> o.n - 1
    returning s.*
  loop
    perform app_hidden.record_status_event('STATUS_UPDATED', v_status,
      jsonb_build_object('changes', jsonb_build_array('position'), 'previous', jsonb_build_object('position', v_before->(v_status.id::text))));
  end loop;
  return app_tools.statuses_list('{}');
end
$$;
comment on function app_tools.statuses_reorder(args jsonb) is 'statuses.reorder: OWNER/ADMIN, unnarrowed key: set the board order: ids = every status once, first to last.';
grant execute on function app_tools.statuses_reorder(args jsonb) to svc_visitor;
