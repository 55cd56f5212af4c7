-- The canvas.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a canvas, its cards and edges (CANVAS_DELETED); the issues stay. A narrowed key may not delete a
-- canvas holding cards it cannot see: 403 narrowing.
create or replace function app_tools.canvas_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas(args->>'id');
  v_size record;
begin
  -- Locked, so no card is added between the counts and the delete.
  perform 1 from app_public.canvases c where c.id = v_canvas.id for update;
  if not found then
    raise exception 'Canvas not found' using errcode = 'SV404', column = 'id';  -- deleted meanwhile
  end if;
  select * into v_size from app_hidden.canvas_size(v_canvas.id);
  if v_size.node_count > (select count(*) from app_public.canvas_nodes n
                         where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id) then
    raise exception 'This canvas holds cards of issues outside the key''s narrowing; a key that sees them may delete it'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  delete from app_public.canvases where id = v_canvas.id;  -- cards and edges go with it (foreign keys)
  perform app_hidden.record_event('CANVAS_DELETED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'name', v_canvas.name, 'removedNodes', v_size.node_count, 'removedEdges', v_size.edge_count));
  return jsonb_build_object('id', v_canvas.id, 'deleted', true,
                            'removedNodes', v_size.node_count, 'removedEdges', v_size.edge_count);
end
$$;
comment on function app_tools.canvas_delete(args jsonb) is 'canvas.delete: Delete a canvas with its nodes and edges (the issues stay). A narrowed key may not delete a canvas holding cards it cannot see (403 narrowing).';
grant execute on function app_tools.canvas_delete(args jsonb) to svc_visitor;
