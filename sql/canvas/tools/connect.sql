-- The canvas.connect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a directed edge between two cards of a live canvas that the caller is shown; no self-loop (400), the same
-- directed edge once (409 edge_exists), at most 1,000 per canvas (409 canvas_edge_limit).
-- CANVAS_UPDATED {change: 'edge_added', edgeId, fromNodeId, toNodeId, issueIds} (canvas_changed).
create or replace function app_tools.canvas_connect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_for_change(args->>'canvasId', 'canvasId');
  v_from app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'fromNodeId', 'fromNodeId');
  v_to app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'toNodeId', 'toNodeId');
  v_edge app_public.canvas_edges;
begin
  -- A card of another canvas reads as missing on this one.
  if v_from.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'fromNodeId';
  elsif v_to.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'toNodeId';
  elsif v_from.id = v_to.id then
    perform app_hidden.raise_invalid('toNodeId', 'a node cannot be connected to itself');
  end if;
  if exists (select 1 from app_public.canvas_edges e
             where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id and e.from_node_id = v_from.id and e.to_node_id = v_to.id) then
    raise exception 'These nodes are already connected in this direction' using errcode = 'SV409', detail = 'edge_exists';
  end if;
  perform app_hidden.canvas_require_room(v_canvas.id, 'edge');
  insert into app_public.canvas_edges (workspace_id, canvas_id, from_node_id, to_node_id, label)
  values (v_canvas.workspace_id, v_canvas.id, v_from.id, v_to.id, nullif(args->>'label', ''))
  returning * into v_edge;
  perform app_hidden.canvas_changed(v_canvas.id, jsonb_build_object(
    'change', 'edge_added', 'edgeId', v_edge.id, 'fromNodeId', v_from.id, 'toNodeId', v_to.id), array[v_from.issue_id, v_to.issue_id]);
  return app_hidden.canvas_edge_json(v_edge);
end
$$;
comment on function app_tools.canvas_connect(args jsonb) is 'canvas.connect: Draw an edge fromNodeId → toNodeId, two cards of canvasId, with an optional label. No self-loops; the same directed edge once (409 edge_exists). At most 1,000 edges per canvas (409 canvas_edge_limit).';
grant execute on function app_tools.canvas_connect(args jsonb) to svc_visitor;
