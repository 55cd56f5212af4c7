-- The canvas.addNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a card on a live canvas: an issue the caller can see (id or key; once per canvas: 409 issue_on_canvas) or
-- free text. 409 canvas_node_limit past 500 cards. CANVAS_UPDATED {change: 'node_added', nodeId, kind, issueIds}
-- (canvas_changed).
create or replace function app_tools.canvas_add_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_for_change(args->>'canvasId', 'canvasId');
  v_kind text := args->>'kind';
  v_issue app_public.issues;
  v_node app_public.canvas_nodes;
begin
  -- The declaration checks these too; kept here for any other caller of the function.
  if v_kind = 'issue' then
    if args->>'issueId' is null then
      perform app_hidden.raise_invalid('issueId', 'an issue node needs issueId');
    elsif args->>'text' is not null then
      perform app_hidden.raise_invalid('text', 'only text nodes carry text');
    end if;
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    if exists (select 1 from app_public.canvas_nodes n where n.workspace_id = v_canvas.workspace_id and n.canvas_id = v_canvas.id and n.issue_id = v_issue.id) then
      raise exception '% is already on this canvas', v_issue.key using errcode = 'SV409', detail = 'issue_on_canvas', column = 'issueId';
    end if;
  elsif v_kind = 'text' then
    if args->>'text' is null then
      perform app_hidden.raise_invalid('text', 'a text node needs text');
    elsif args->>'issueId' is not null then
      perform app_hidden.raise_invalid('issueId', 'only issue nodes take issueId');
    end if;
  else
    perform app_hidden.raise_invalid('kind', 'kind must be issue or text');
  end if;
  perform app_hidden.canvas_require_room(v_canvas.id, 'node');
  insert into app_public.canvas_nodes (workspace_id, canvas_id, kind, issue_id, text, x, y, width, height, color)
  values (v_canvas.workspace_id, v_canvas.id, v_kind, v_issue.id, args->>'text',
          (args->>'x')::double precision, (args->>'y')::double precision,
          coalesce((args->>'width')::double precision, 240), coalesce((args->>'height')::double precision, 120),
          lower(args->>'color'))
  returning * into v_node;
  perform app_hidden.canvas_changed(v_canvas.id, jsonb_build_object('change', 'node_added', 'nodeId', v_node.id, 'kind', v_kind), array[v_issue.id]);
  return app_hidden.canvas_node_view(v_node);
end
$$;
comment on function app_tools.canvas_add_node(args jsonb) is 'canvas.addNode: Add a card at x, y (±1,000,000): kind issue with issueId (id or key; once per canvas, 409 issue_on_canvas) or kind text with text. width/height default 240×120; color #rrggbb. At most 500 nodes per canvas (409 canvas_node_limit).';
grant execute on function app_tools.canvas_add_node(args jsonb) to svc_visitor;
