-- The initiatives.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- initiatives the key can see (initiative narrowing), oldest first, keyset-paged.
create or replace function app_tools.initiatives_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'initiatives');
begin
  return app_hidden.page_json(array(
    select (app_hidden.initiative_json(i), app_hidden.ts_key(i.created_at), i.id)::app_hidden.page_row
    from app_public.initiatives i
    where i.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or i.archived_at is null)
      and (v_after.sort_id is null or (i.created_at, i.id) > (v_after.sort_key, v_after.sort_id))
    order by i.created_at, i.id limit v_limit + 1), v_limit, 'initiatives');
end
$$;
comment on function app_tools.initiatives_list(args jsonb) is 'initiatives.list: Initiatives (long-running objectives grouping projects) this key can see, oldest first, paged ({items, nextCursor}).';
grant execute on function app_tools.initiatives_list(args jsonb) to svc_visitor;
