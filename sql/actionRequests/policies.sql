-- Row-level security policies of action requests and votes. A request tied to an issue follows that issue's
-- narrowing (assigned to the key's agent or not: its issue id, body and payload are about that issue); a narrowed
-- key also sees requests without an issue assigned to its agent or its user. A request of a deleted issue, or the
-- card of a deleted comment, is not there for any key.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.action_requests;
create policy owner_all on app_public.action_requests for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.action_requests is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_requests on app_public.action_requests;
create policy select_visible_requests on app_public.action_requests for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)))))) AND (((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL)))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.comments c WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL))))));
comment on policy select_visible_requests on app_public.action_requests is 'Requests of the workspace; a narrowed key sees those on issues it can see and those without an issue assigned to its agent or user. None of a deleted issue (404 everywhere, as its runs and comments; back with the issue), nor the card of a deleted comment (comment_id: comments.create''s actionRequest; 404 as the comment is).';

drop policy if exists insert_visible_requests on app_public.action_requests;
create policy insert_visible_requests on app_public.action_requests for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))))));
comment on policy insert_visible_requests on app_public.action_requests is 'Requests on issues the key can see (a narrowed key: only on an issue).';

drop policy if exists update_visible_requests on app_public.action_requests;
create policy update_visible_requests on app_public.action_requests for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)))))) AND (((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL)))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.comments c WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)))))) AND (((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL)))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.comments c WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL))))));
comment on policy update_visible_requests on app_public.action_requests is 'Request moves, votes closing and accept/decline by keys that can see the request (none of a deleted issue or a deleted comment).';

drop policy if exists owner_all on app_public.action_request_votes;
create policy owner_all on app_public.action_request_votes for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.action_request_votes is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_votes on app_public.action_request_votes;
create policy select_visible_votes on app_public.action_request_votes for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy select_visible_votes on app_public.action_request_votes is 'Votes on requests the key can see (counts are public to those who see the poll).';

drop policy if exists insert_own_vote on app_public.action_request_votes;
create policy insert_own_vote on app_public.action_request_votes for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy insert_own_vote on app_public.action_request_votes is 'A user casts only their own vote.';

drop policy if exists update_own_vote on app_public.action_request_votes;
create policy update_own_vote on app_public.action_request_votes for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1 FROM app_public.action_requests r WHERE (r.id = action_request_votes.request_id)))));
comment on policy update_own_vote on app_public.action_request_votes is 'A user changes only their own vote.';
