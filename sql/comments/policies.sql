-- Row-level security policies of the comments tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists insert_on_visible_issues on app_public.comments;
create policy insert_on_visible_issues on app_public.comments for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id)))));
comment on policy insert_on_visible_issues on app_public.comments is 'Comment on issues the caller can see.';

drop policy if exists owner_all on app_public.comments;
create policy owner_all on app_public.comments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.comments is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_on_visible_issues on app_public.comments;
create policy select_on_visible_issues on app_public.comments for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((deleted_at IS NULL) OR (current_setting('svc.include_deleted_comments'::text, true) = 'on'::text)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id))))));
comment on policy select_on_visible_issues on app_public.comments is 'Live comments on issues the caller can see (issue narrowing applies). Soft-deleted comments are kept for audit and hidden from every key; only comments.delete sees one, while deleting it.';

drop policy if exists update_on_visible_issues on app_public.comments;
create policy update_on_visible_issues on app_public.comments for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id)))));
comment on policy update_on_visible_issues on app_public.comments is 'Edit/soft-delete comments on visible issues; authorship is checked by comments.update/delete.';
