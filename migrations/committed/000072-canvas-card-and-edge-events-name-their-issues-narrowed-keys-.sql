--! Previous: sha1:061fdf7c325b374917b34ee62698012e71aac547
--! Hash: sha1:99f1f52045670ce7df399c324d9c6c81a742aed2
--! Message: Canvas card and edge events name their issues; narrowed keys see only those of cards they see

--! split: 1-current.sql
-- Canvas card and edge events name the issues of their cards (issueIds), and the events policy shows them to a
-- narrowed key only when it sees every one of those issues: a narrowed key no longer learns that a card of an issue
-- it cannot see was added, moved, connected or removed. Card events written before this carry no issueIds and are
-- not shown to narrowed keys (the event log is not rewritten).
--! Included canvas/canvas.sql
-- canvas: finders, shapes and limits of the canvas tools.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A card is shown when the caller sees it (RLS: an issue card follows its issue's narrowing) and, for an issue
-- card, the issue is not deleted (a restored issue's card comes back). Hidden cards are left out with their edges.
-- The one definition of the rule: canvas_node_shown, canvas_shown_node_ids (canvas.get, canvas_json) apply it.
create or replace function app_hidden.canvas_shows_node(n app_public.canvas_nodes)
 returns boolean
 language sql
 stable
as $$
  -- No FROM: inlined into the callers' queries. The row itself was read under RLS, so only the issue is left.
  select n.issue_id is null
         or exists (select 1 from app_public.issues i where i.id = n.issue_id and i.deleted_at is null)
$$;
comment on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) is 'Whether a card the caller read (RLS) is shown: a text card, or an issue card whose issue the caller sees and is not deleted.';
grant execute on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_node_shown(p_node_id uuid)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.canvas_nodes n where n.id = p_node_id and app_hidden.canvas_shows_node(n))
$$;
comment on function app_hidden.canvas_node_shown(p_node_id uuid) is 'Whether the caller is shown this card (canvas_shows_node): it sees the card (RLS) and, for an issue card, the issue is not deleted.';
grant execute on function app_hidden.canvas_node_shown(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shown_node_ids(p_canvas_id uuid)
 returns uuid[]
 language sql
 stable
as $$
  select coalesce(array_agg(n.id), '{}') from app_public.canvas_nodes n
  where n.workspace_id = app_hidden.current_workspace_id() and n.canvas_id = p_canvas_id
    and app_hidden.canvas_shows_node(n)
$$;
comment on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) is 'The ids of the cards of a canvas the caller is shown (canvas_shows_node).';
grant execute on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer)
 returns record
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every card and edge, hidden ones included: limits must not depend on what the calling key sees.
  select (select count(*)::int from app_public.canvas_nodes n
          where n.canvas_id = p_canvas_id and n.workspace_id = app_hidden.current_workspace_id()),
         (select count(*)::int from app_public.canvas_edges e
          where e.canvas_id = p_canvas_id and e.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) is 'How many cards and edges a canvas of the caller''s workspace holds, those the key cannot see included (for the limits and narrowed deletes; counts only).';
grant execute on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_node_edge_ids(p_node_id uuid)
 returns uuid[]
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every edge of the card, those to cards the key cannot see included: canvas.removeNode names all the edges its
  -- card takes along (the foreign keys remove them whatever the key sees). Edge ids only: they name no issue.
  select coalesce(array_agg(e.id order by e.id), '{}') from app_public.canvas_edges e
  where e.workspace_id = app_hidden.current_workspace_id() and (e.from_node_id = p_node_id or e.to_node_id = p_node_id)
$$;
comment on function app_hidden.canvas_node_edge_ids(p_node_id uuid) is 'The ids of every edge from or to a card of the caller''s workspace, edges to cards the key cannot see included (for canvas.removeNode''s removedEdgeIds; ids only).';
grant execute on function app_hidden.canvas_node_edge_ids(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', c.id, 'name', c.name, 'description', c.description,
                            'archived', c.archived_at is not null, 'archivedAt', c.archived_at,
                            'nodeCount', p_node_count, 'edgeCount', p_edge_count,
                            'createdByUserId', c.created_by_user_id, 'createdByAgentId', c.created_by_agent_id,
                            'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) is 'Canvas {id, name, description, archived, archivedAt, nodeCount, edgeCount, createdByUserId, createdByAgentId, createdAt, updatedAt} with the given counts.';
grant execute on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_json(c app_public.canvases)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_ids uuid[] := app_hidden.canvas_shown_node_ids(c.id);
begin
  return app_hidden.canvas_shape(c, cardinality(v_ids),
    (select count(*)::int from app_public.canvas_edges e
     where e.workspace_id = c.workspace_id and e.canvas_id = c.id and e.from_node_id in (select unnest(v_ids)) and e.to_node_id in (select unnest(v_ids))));
end
$$;
comment on function app_hidden.canvas_json(c app_public.canvases) is 'Canvas shape whose nodeCount and edgeCount are what the caller is shown (as canvas.get).';
grant execute on function app_hidden.canvas_json(c app_public.canvases) to svc_visitor;

create or replace function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- No FROM: inlined into canvas.get's query, which joins the issue and its status.
  select jsonb_build_object('id', n.id, 'canvasId', n.canvas_id, 'kind', n.kind, 'issueId', n.issue_id,
    'issue', case when i.id is not null then jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title, 'priority', i.priority,
                                                                  'status', jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)) end,
    'text', n.text, 'x', n.x, 'y', n.y, 'width', n.width, 'height', n.height, 'color', n.color,
    'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) is 'Canvas node {id, canvasId, kind, issueId, issue {id, key, title, priority, status} (issue cards), text, x, y, width, height, color, createdAt, updatedAt} from the rows the caller joined.';
grant execute on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.canvas_node_view(n app_public.canvas_nodes)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.canvas_node_json(n, i, s)
  from (select 1) one
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
$$;
comment on function app_hidden.canvas_node_view(n app_public.canvas_nodes) is 'One canvas node''s shape (canvas_node_json), its issue and status read as the caller.';
grant execute on function app_hidden.canvas_node_view(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_edge_json(e app_public.canvas_edges)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', e.id, 'canvasId', e.canvas_id, 'fromNodeId', e.from_node_id, 'toNodeId', e.to_node_id,
                            'label', e.label, 'createdAt', e.created_at)
$$;
comment on function app_hidden.canvas_edge_json(e app_public.canvas_edges) is 'Canvas edge {id, canvasId, fromNodeId, toNodeId, label, createdAt}.';
grant execute on function app_hidden.canvas_edge_json(e app_public.canvas_edges) to svc_visitor;

create or replace function app_hidden.find_canvas(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select c from app_public.canvases c
     where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
    'Canvas', p_field);
end
$$;
comment on function app_hidden.find_canvas(p_id text, p_field text) is 'A canvas of the caller''s workspace by id, else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_locked(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  -- Locked until commit, and read after the lock is granted: a write computed from this row (canvas.update's
  -- patch, canvas.delete's check) sees every change committed before it and none can slip in after it.
  select * into v_canvas from app_public.canvases c
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()
  for update;
  if v_canvas.id is null then
    raise exception 'Canvas not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_locked(p_id text, p_field text) is 'A canvas of the caller''s workspace, locked until commit (its current row), else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas_locked(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_for_change(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases := app_hidden.find_canvas_locked(p_id, p_field);
begin
  -- Locked: card and edge writes of one canvas take turns, so the limits (and duplicate checks) hold under
  -- concurrent calls.
  if v_canvas.archived_at is not null then
    raise exception 'Canvas "%" is archived; unarchive it (canvas.update archived false) to change its cards and edges', v_canvas.name
      using errcode = 'SV409', detail = 'canvas_archived';
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_for_change(p_id text, p_field text) is 'A canvas of the caller''s workspace whose cards or edges are about to change, locked until commit (find_canvas_locked); 404 naming the field, 409 canvas_archived for an archived one.';
grant execute on function app_hidden.find_canvas_for_change(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_node(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_nodes
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select n from app_public.canvas_nodes n
     where n.id = v_id and n.workspace_id = app_hidden.current_workspace_id() and app_hidden.canvas_node_shown(n.id)),
    'Canvas node', p_field);
end
$$;
comment on function app_hidden.find_canvas_node(p_id text, p_field text) is 'A card the caller is shown (canvas_node_shown), else 404 naming the field: a card of an issue the key cannot see, or of a deleted issue, reads as missing.';
grant execute on function app_hidden.find_canvas_node(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_edge(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_edges
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select e from app_public.canvas_edges e
     where e.id = v_id and e.workspace_id = app_hidden.current_workspace_id()
       and app_hidden.canvas_node_shown(e.from_node_id) and app_hidden.canvas_node_shown(e.to_node_id)),
    'Canvas edge', p_field);
end
$$;
comment on function app_hidden.find_canvas_edge(p_id text, p_field text) is 'An edge whose two cards the caller is shown, else 404 naming the field.';
grant execute on function app_hidden.find_canvas_edge(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text)
 returns void
 language plpgsql
as $$
declare v_size record;
begin
  select * into v_size from app_hidden.canvas_size(p_canvas_id);
  -- Limits keep canvas.get one bounded answer (500 cards, 1,000 edges).
  if p_what = 'node' and v_size.node_count >= 500 then
    raise exception 'A canvas holds at most 500 nodes and this one is full; remove nodes or start another canvas'
      using errcode = 'SV409', detail = 'canvas_node_limit';
  elsif p_what = 'edge' and v_size.edge_count >= 1000 then
    raise exception 'A canvas holds at most 1000 edges and this one is full; disconnect edges or start another canvas'
      using errcode = 'SV409', detail = 'canvas_edge_limit';
  end if;
end
$$;
comment on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) is 'Raises 409 canvas_node_limit (500 cards) or canvas_edge_limit (1,000 edges) when the canvas has no room for one more node or edge (p_what).';
grant execute on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) to svc_visitor;

drop function if exists app_hidden.canvas_changed(uuid, jsonb);  -- now with the cards' issues (issueIds)

create or replace function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[])
 returns void
 language plpgsql
as $$
begin
  -- A card or edge change is a change of the canvas: it stamps updatedAt and writes CANVAS_UPDATED. The event names
  -- the issues of the cards it touches (issueIds; [] for text cards), so the events policy shows it to a narrowed
  -- key only when that key sees them all (event_subject_visible), as RLS shows it those cards.
  update app_public.canvases set updated_at = now() where id = p_canvas_id;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', p_canvas_id,
    jsonb_build_object('canvasId', p_canvas_id) || p_payload || jsonb_build_object('issueIds', to_jsonb(array_remove(p_issue_ids, null))));
end
$$;
comment on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[]) is 'After a card or edge change: stamps the canvas''s updatedAt and records CANVAS_UPDATED {canvasId, change, ...payload, issueIds} (issueIds: the issues of the cards touched, nulls of text cards left out).';
grant execute on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[]) to svc_visitor;
--! EndIncluded canvas/canvas.sql
--! Included canvas/tools/addNode.sql
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
--! EndIncluded canvas/tools/addNode.sql
--! Included canvas/tools/updateNode.sql
-- The canvas.updateNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves, resizes, recolors (color null clears) a card the caller is shown, or edits a text card's text; only the
-- fields given change. CANVAS_UPDATED {change: 'node_updated', nodeId, changes} when something did.
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
--! EndIncluded canvas/tools/updateNode.sql
--! Included canvas/tools/removeNode.sql
-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds}: every edge that went, those to cards the
-- key cannot see included (edge ids name no issue), in the event and in the answer alike.
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
  -- Collected through the definer (RLS hides edges to cards the key cannot see); the canvas lock keeps the set
  -- until the foreign keys remove those edges with the card.
  v_edge_ids := app_hidden.canvas_node_edge_ids(v_node.id);
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)), array[v_node.issue_id]);
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/removeNode.sql
--! Included canvas/tools/connect.sql
-- The canvas.connect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a directed edge between two cards of a live canvas that the caller is shown; no self-loop (400), the same
-- directed edge once (409 edge_exists), at most 1,000 per canvas (409 canvas_edge_limit).
-- CANVAS_UPDATED {change: 'edge_added', edgeId, fromNodeId, toNodeId}.
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
--! EndIncluded canvas/tools/connect.sql
--! Included canvas/tools/disconnect.sql
-- The canvas.disconnect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes an edge whose two cards the caller is shown, from a live canvas.
-- CANVAS_UPDATED {change: 'edge_removed', edgeId, fromNodeId, toNodeId}.
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
--! EndIncluded canvas/tools/disconnect.sql
--! Included events/visibility.sql
-- Which events a narrowed key sees, as the select_in_workspace policy of activity_events asks it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.key_unnarrowed()
 returns boolean
 language sql
 stable parallel safe
as $$
  select cardinality(app_hidden.narrowed_project_ids()) = 0
     and cardinality(app_hidden.narrowed_label_ids()) = 0
     and cardinality(app_hidden.narrowed_initiative_ids()) = 0
$$;
comment on function app_hidden.key_unnarrowed() is 'True when the calling key has no project, label or initiative narrowing: it sees every event of its workspace. The events policy asks this once per statement before any per-row check.';
grant execute on function app_hidden.key_unnarrowed() to svc_visitor;

-- plpgsql, not an inline CASE in the policy: its queries are planned once per session and only run for
-- narrowed keys, where the inline form made every events query plan ~300 sub-plans (issue 16).
create or replace function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns boolean
 language plpgsql
 stable
as $$
begin
  if p_subject_type = 'project' then
    return cardinality(app_hidden.narrowed_project_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_project_ids());
  elsif p_subject_type = 'initiative' then
    return cardinality(app_hidden.narrowed_initiative_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_initiative_ids());
  elsif p_subject_type not in ('issue', 'comment', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
        or app_hidden.issues_unrestricted() then
    return true;
  elsif p_subject_type = 'canvas' then
    -- The canvas itself is the workspace's (created, renamed, deleted); a card or edge change names the issues of
    -- its cards (issueIds, canvas_changed) and is shown only when the key sees them all, as RLS shows it the cards.
    -- Card events written before issueIds existed (migration 000072) name none, so they are not shown.
    return p_payload->>'change' is null or p_payload->>'change' = 'canvas_updated'
        or (jsonb_typeof(p_payload->'issueIds') = 'array'
            and not exists (select 1 from jsonb_array_elements_text(p_payload->'issueIds') x(id)
                            where not exists (select 1 from app_public.issues i where i.id = x.id::uuid)));
  end if;
  -- Subjects that follow their issue: read as the caller, so their own policies (narrowing included) decide.
  -- One statement per subject type: only the one that runs is started (a single CASE over seven EXISTS
  -- started all seven, policies included, in every call).
  case p_subject_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_subject_id);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_subject_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    else return exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id);
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds); other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Runs as the caller: the threads policy decides (the addressee agent's keys, the person who opened it,
  -- workspace admins; a thread tied to an issue only for keys that may see it). The issue a person's message
  -- was about is in the payload, so it must be visible too.
  return exists (select 1 from app_public.chat_threads t where t.id = p_thread_id)
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) is 'Whether the caller sees a chat-thread event: the caller sees the thread (chat_threads policy: participants and admins, the thread issue''s narrowing) and the issue of the message''s context, if any.';
grant execute on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) to svc_visitor;
--! EndIncluded events/visibility.sql
--! Included events/policies.sql
-- Row-level security policies of the events tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.activity_events;
create policy owner_all on app_public.activity_events for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.activity_events is 'Only the owner writes events (through app_private.record_event).';

drop policy if exists select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((subject_type <> 'chat-thread'::text) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.event_subject_visible(subject_type, subject_id, payload))) OR ((subject_type = 'chat-thread'::text) AND (((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)) OR ((payload ->> 'agentId'::text) = (( SELECT app_hidden.current_agent_id() AS current_agent_id))::text) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ((payload ->> 'openedByUserId'::text) = (( SELECT app_hidden.current_user_id() AS current_user_id))::text))) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.chat_event_visible(subject_id, ((payload -> 'context'::text) ->> 'issueId'::text)))))));
comment on policy select_in_workspace on app_public.activity_events is 'Events of the caller''s workspace. Chat events only for the thread''s participants (payload agentId = the key''s agent, or openedByUserId = the user of a key without agent) and workspace admins'' own keys (not their agents''), as the chat_threads policy says, decided from the payload so no row costs a function call; a narrowed key also needs to see the thread''s and the context''s issue (chat_event_visible). A narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, and goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), and canvas card and edge events only when it sees every issue they name (payload issueIds).';
--! EndIncluded events/policies.sql
--! Included events/tools/get.sql
-- The events.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one activity event whose subject the key can see.
create or replace function app_tools.events_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_event app_public.activity_events;
begin
  select * into v_event from app_public.activity_events e
  where e.id = app_hidden.parse_uuid(args->>'id', 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and app_hidden.event_subject_visible(e.subject_type, e.subject_id, e.payload);
  return app_hidden.event_json(app_hidden.found(v_event, 'Event'));
end
$$;
comment on function app_tools.events_get(args jsonb) is 'events.get: One activity event by id.';
grant execute on function app_tools.events_get(args jsonb) to svc_visitor;
--! EndIncluded events/tools/get.sql
drop function if exists app_hidden.event_subject_visible(text, uuid);
