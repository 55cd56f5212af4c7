-- The canvas.disconnect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes an edge whose two cards the caller is shown, from a live canvas.
-- CANVAS_UPDATED {change: 'edge_removed', edgeId, fromNodeId, toNodeId, issueIds} (canvas_changed).
create or replace function app_tools.canvas_disconnect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_edge app_public.canvas_edges := app_hidden.find_canvas_edge(args->>'id');
begin
  perform app_hidden.find_canvas_for_change(v_edge.canvas_id::text, 'id');
  v_edge := app_hidden.find_canvas_edge(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  delete from app_public.canvas_edges where id = v_edge.id;
  perform app_hidden.canvas_changed(v_edge.canvas_id, jsonb_build_object(
    'change', 'edge_removed', 'edgeId', v_edge.id, 'fromNodeId', v_edge.from_node_id, 'toNodeId', v_edge.to_node_id),
    -- Read as the caller: the edge was visible, so both its cards are.
    array(select n.issue_id from app_public.canvas_nodes n where n.id in (v_edge.from_node_id, v_edge.to_node_id)));
  return jsonb_build_object('id', v_edge.id, 'canvasId', v_edge.canvas_id, 'removed', true);
end
$$;
comment on function app_tools.canvas_disconnect(args jsonb) is 'canvas.disconnect: Remove an edge by its id.';
grant execute on function app_tools.canvas_disconnect(args jsonb) to svc_visitor;
