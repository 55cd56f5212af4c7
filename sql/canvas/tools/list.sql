-- The canvas.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- canvases of the workspace, newest created first, keyset-paged on (created_at, id): a key that never moves, so a
-- canvas edited while someone pages (every card or edge change stamps updated_at) is neither skipped nor listed
-- twice; live ones unless includeArchived.
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
            app_hidden.ts_key(c.created_at), c.id)::app_hidden.page_row
    from app_public.canvases c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (v_archived or c.archived_at is null)
      and (v_after.sort_id is null or (c.created_at, c.id) < (v_after.sort_key, v_after.sort_id))
    window w as (order by c.created_at desc, c.id desc)
    order by c.created_at desc, c.id desc limit v_limit + 1), v_limit, 'canvases');
end
$$;
comment on function app_tools.canvas_list(args jsonb) is 'canvas.list: Canvases of the workspace, newest first (by creation: editing a canvas does not move it, so paging skips none), paged ({items, nextCursor}); archived ones only with includeArchived.';
grant execute on function app_tools.canvas_list(args jsonb) to svc_visitor;
