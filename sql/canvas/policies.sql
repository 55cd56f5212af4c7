-- Row-level security policies of the canvas tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_in_workspace on app_public.canvases;
create policy delete_in_workspace on app_public.canvases for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_in_workspace on app_public.canvases is 'Delete canvases of the caller''s workspace (canvas.delete refuses a narrowed key a canvas with cards it cannot see).';

drop policy if exists insert_in_workspace on app_public.canvases;
create policy insert_in_workspace on app_public.canvases for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.canvases is 'Create canvases in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvases;
create policy owner_all on app_public.canvases for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvases is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.canvases;
create policy select_in_workspace on app_public.canvases for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.canvases is 'Canvases of the caller''s workspace (shared boards; narrowing hides cards, not canvases).';

drop policy if exists update_in_workspace on app_public.canvases;
create policy update_in_workspace on app_public.canvases for update to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.canvases is 'Rename, describe, archive canvases of the caller''s workspace.';

-- Cards: an issue card follows its issue (narrowing applies); text cards are the workspace's.
drop policy if exists delete_visible on app_public.canvas_nodes;
create policy delete_visible on app_public.canvas_nodes for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy delete_visible on app_public.canvas_nodes is 'Remove cards the caller can see.';

drop policy if exists insert_visible on app_public.canvas_nodes;
create policy insert_visible on app_public.canvas_nodes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy insert_visible on app_public.canvas_nodes is 'Add text cards, and cards of issues the caller can see, in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvas_nodes;
create policy owner_all on app_public.canvas_nodes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvas_nodes is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_visible on app_public.canvas_nodes;
create policy select_visible on app_public.canvas_nodes for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
comment on policy select_visible on app_public.canvas_nodes is 'Cards of the caller''s workspace; an issue card only when the caller can see the issue (narrowing applies).';

drop policy if exists update_visible on app_public.canvas_nodes;
create policy update_visible on app_public.canvas_nodes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_visible on app_public.canvas_nodes is 'Move, resize, recolor or edit cards the caller can see.';

-- Edges: seen when both cards are (their own policy decides).
drop policy if exists delete_visible on app_public.canvas_edges;
create policy delete_visible on app_public.canvas_edges for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy delete_visible on app_public.canvas_edges is 'Remove edges whose two cards the caller can see.';

drop policy if exists insert_visible on app_public.canvas_edges;
create policy insert_visible on app_public.canvas_edges for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy insert_visible on app_public.canvas_edges is 'Connect cards the caller can see, in the caller''s workspace.';

drop policy if exists owner_all on app_public.canvas_edges;
create policy owner_all on app_public.canvas_edges for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.canvas_edges is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_visible on app_public.canvas_edges;
create policy select_visible on app_public.canvas_edges for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
comment on policy select_visible on app_public.canvas_edges is 'Edges of the caller''s workspace whose two cards the caller can see (narrowing hides issue cards and their edges).';
