-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds}.
create or replace function app_tools.canvas_remove_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_edge_ids uuid[];
begin
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  -- The edges the caller sees go first and are named; any others (to cards it cannot see) go with the card.
  with gone as (
    delete from app_public.canvas_edges e
    where e.workspace_id = v_node.workspace_id and e.canvas_id = v_node.canvas_id and (e.from_node_id = v_node.id or e.to_node_id = v_node.id)
    returning e.id)
  select coalesce(array_agg(gone.id order by gone.id), '{}') into v_edge_ids from gone;
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)));
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
