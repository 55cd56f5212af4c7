-- The canvas.updateNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves, resizes, recolors (color null clears) a card the caller is shown, or edits a text card's text; only the
-- fields given change. CANVAS_UPDATED {change: 'node_updated', nodeId, changes, issueIds} when something did.
create or replace function app_tools.canvas_update_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_new app_public.canvas_nodes;
  v_changes text[] := '{}';
begin
  if args->>'text' is not null and v_node.kind <> 'text' then
    perform app_hidden.raise_invalid('text', 'only text nodes carry text');
  end if;
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  v_new := v_node;
  v_new.x := coalesce((args->>'x')::double precision, v_node.x);
  v_new.y := coalesce((args->>'y')::double precision, v_node.y);
  v_new.width := coalesce((args->>'width')::double precision, v_node.width);
  v_new.height := coalesce((args->>'height')::double precision, v_node.height);
  v_new.text := coalesce(args->>'text', v_node.text);
  v_new.color := case when args ? 'color' then lower(args->>'color') else v_node.color end;
  if v_new.x is distinct from v_node.x then v_changes := array_append(v_changes, 'x'); end if;
  if v_new.y is distinct from v_node.y then v_changes := array_append(v_changes, 'y'); end if;
  if v_new.width is distinct from v_node.width then v_changes := array_append(v_changes, 'width'); end if;
  if v_new.height is distinct from v_node.height then v_changes := array_append(v_changes, 'height'); end if;
  if v_new.text is distinct from v_node.text then v_changes := array_append(v_changes, 'text'); end if;
  if v_new.color is distinct from v_node.color then v_changes := array_append(v_changes, 'color'); end if;
  if cardinality(v_changes) = 0 then
    return app_hidden.canvas_node_view(v_node);
  end if;
  update app_public.canvas_nodes
  set x = v_new.x, y = v_new.y, width = v_new.width, height = v_new.height, text = v_new.text, color = v_new.color
  where id = v_node.id
  returning * into v_node;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_updated', 'nodeId', v_node.id, 'changes', to_jsonb(v_changes)), array[v_node.issue_id]);
  return app_hidden.canvas_node_view(v_node);
end
$$;
comment on function app_tools.canvas_update_node(args jsonb) is 'canvas.updateNode: Move, resize or recolor a card (color null clears), or edit a text card''s text. Only the fields given change.';
grant execute on function app_tools.canvas_update_node(args jsonb) to svc_visitor;
