-- Row-level security policies of the relations tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_between_visible_issues on app_public.issue_relations;
create policy delete_between_visible_issues on app_public.issue_relations for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))));
comment on policy delete_between_visible_issues on app_public.issue_relations is 'Unlink two issues the caller can see.';

drop policy if exists insert_between_visible_issues on app_public.issue_relations;
create policy insert_between_visible_issues on app_public.issue_relations for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))));
comment on policy insert_between_visible_issues on app_public.issue_relations is 'Link two issues the caller can see.';

drop policy if exists owner_all on app_public.issue_relations;
create policy owner_all on app_public.issue_relations for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issue_relations is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_between_visible_issues on app_public.issue_relations;
create policy select_between_visible_issues on app_public.issue_relations for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))))));
comment on policy select_between_visible_issues on app_public.issue_relations is 'Relations whose both ends the caller can see.';
