-- The canvas.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a canvas with the cards the caller is shown (oldest first) and the edges between them; cards of issues the
-- key cannot see, or of deleted issues, are left out with their edges.
create or replace function app_tools.canvas_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas(args->>'id');
  -- The cards shown by the one rule (canvas_shows_node), as canvas.list's counts.
  v_ids uuid[] := app_hidden.canvas_shown_node_ids(v_canvas.id);
  v_nodes jsonb;
  v_edges jsonb;
begin
  select coalesce(jsonb_agg(app_hidden.canvas_node_json(n, i, s) order by n.created_at, n.id), '[]')
  into v_nodes
  from app_public.canvas_nodes n
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
  where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id and n.id = any(v_ids);
  select coalesce(jsonb_agg(app_hidden.canvas_edge_json(e) order by e.created_at, e.id), '[]')
  into v_edges
  from app_public.canvas_edges e
  where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id
    and e.from_node_id in (select unnest(v_ids)) and e.to_node_id in (select unnest(v_ids));
  return app_hidden.canvas_shape(v_canvas, jsonb_array_length(v_nodes), jsonb_array_length(v_edges))
         || jsonb_build_object('nodes', v_nodes, 'edges', v_edges);
end
$$;
comment on function app_tools.canvas_get(args jsonb) is 'canvas.get: A canvas with its nodes (cards) and edges. Cards of issues this key cannot see, or of deleted issues, are left out with their edges.';
grant execute on function app_tools.canvas_get(args jsonb) to svc_visitor;
