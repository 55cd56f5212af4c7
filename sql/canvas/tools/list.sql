-- The canvas.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- canvases of the workspace, most recently changed (updated_at) first, keyset-paged; live ones unless
-- includeArchived.
create or replace function app_tools.canvas_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after record;
begin
  v_after := app_hidden.keyset_decode_ts(args->>'cursor', 'canvases');
  return app_hidden.page_json(array(
    select (case when row_number() over w <= v_limit then app_hidden.canvas_json(c) end,
            app_hidden.ts_key(c.updated_at), c.id)::app_hidden.page_row
    from app_public.canvases c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (v_archived or c.archived_at is null)
      and (v_after.sort_id is null or (c.updated_at, c.id) < (v_after.sort_key, v_after.sort_id))
    window w as (order by c.updated_at desc, c.id desc)
    order by c.updated_at desc, c.id desc limit v_limit + 1), v_limit, 'canvases');
end
$$;
comment on function app_tools.canvas_list(args jsonb) is 'canvas.list: Canvases of the workspace, most recently changed first, paged ({items, nextCursor}); archived ones only with includeArchived.';
grant execute on function app_tools.canvas_list(args jsonb) to svc_visitor;
