-- The canvas.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a canvas, its cards and edges (CANVAS_DELETED {canvasId, name}: no counts, as every key of the
-- workspace reads canvas events); the issues stay. A narrowed key may not delete a canvas holding cards it cannot
-- see: 403 narrowing. The answer counts the cards and edges the caller sees (after that check: all of them).
create or replace function app_tools.canvas_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked, so no card is added between the counts and the delete.
  v_canvas app_public.canvases := app_hidden.find_canvas_locked(args->>'id');
  v_size record;
  v_nodes integer;
  v_edges integer;
begin
  select * into v_size from app_hidden.canvas_size(v_canvas.id);
  select count(*) into v_nodes from app_public.canvas_nodes n
  where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id;
  if v_size.node_count > v_nodes then
    raise exception 'This canvas holds cards of issues outside the key''s narrowing; a key that sees them may delete it'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  select count(*) into v_edges from app_public.canvas_edges e
  where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id;
  delete from app_public.canvases where id = v_canvas.id;  -- cards and edges go with it (foreign keys)
  perform app_hidden.record_event('CANVAS_DELETED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'name', v_canvas.name));
  return jsonb_build_object('ok', true, 'id', v_canvas.id, 'deleted', true, 'removedNodes', v_nodes, 'removedEdges', v_edges);
end
$$;
comment on function app_tools.canvas_delete(args jsonb) is 'canvas.delete: Delete a canvas with its nodes and edges (the issues stay). A narrowed key may not delete a canvas holding cards it cannot see (403 narrowing).';
grant execute on function app_tools.canvas_delete(args jsonb) to svc_visitor;
