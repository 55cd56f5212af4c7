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

create or replace function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid)
 returns uuid[]
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- The issues of every card connected to this one, hidden ones included: a removal's event names them, so a key
  -- that cannot see one of them does not learn, from removedEdgeIds, that the card was connected to it.
  select coalesce(array_agg(distinct n.issue_id) filter (where n.issue_id is not null), '{}')
  from app_public.canvas_edges e
  join app_public.canvas_nodes n on n.id = case when e.from_node_id = p_node_id then e.to_node_id else e.from_node_id end
  where e.workspace_id = app_hidden.current_workspace_id() and (e.from_node_id = p_node_id or e.to_node_id = p_node_id)
$$;
comment on function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid) is 'The issue ids of the cards connected to a card of the caller''s workspace, cards the key cannot see included (for the issueIds of canvas.removeNode''s event; read by the events policy, never shown to a key that cannot see them).';
grant execute on function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid) to svc_visitor;

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
