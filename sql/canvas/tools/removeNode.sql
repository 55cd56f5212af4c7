-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds, issueIds}: every edge that went, those to
-- cards the key cannot see included, in the event and in the answer alike; the event's issueIds name the issues of
-- the connected cards too, so keys that cannot see them do not read it.
create or replace function app_tools.canvas_remove_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_edge_ids uuid[];
  v_issue_ids uuid[];
begin
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  -- Collected through the definer (RLS hides edges to cards the key cannot see); the canvas lock keeps the set
  -- until the foreign keys remove those edges with the card.
  v_edge_ids := app_hidden.canvas_node_edge_ids(v_node.id);
  -- The event names the card's issue and those of the cards it was connected to: its removedEdgeIds tell of those
  -- connections, so only keys that see all those issues read it.
  v_issue_ids := array[v_node.issue_id] || app_hidden.canvas_node_neighbour_issue_ids(v_node.id);
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)), v_issue_ids);
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
