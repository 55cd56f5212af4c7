-- Row-level security policies of the issues tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists delete_in_workspace on app_public.issue_labels;
create policy delete_in_workspace on app_public.issue_labels for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_in_workspace on app_public.issue_labels is 'Unlabel issues of the caller''s workspace.';

drop policy if exists insert_in_workspace on app_public.issue_labels;
create policy insert_in_workspace on app_public.issue_labels for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.issue_labels is 'Label issues of the caller''s workspace.';

drop policy if exists owner_all on app_public.issue_labels;
create policy owner_all on app_public.issue_labels for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issue_labels is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.issue_labels;
create policy select_in_workspace on app_public.issue_labels for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_labels.issue_id))))));
comment on policy select_in_workspace on app_public.issue_labels is 'Labels on issues the caller can see (narrowing applies).';

drop policy if exists delete_own_watch on app_public.issue_watchers;
create policy delete_own_watch on app_public.issue_watchers for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
comment on policy delete_own_watch on app_public.issue_watchers is 'A key removes only its own watch.';

drop policy if exists insert_own_watch on app_public.issue_watchers;
create policy insert_own_watch on app_public.issue_watchers for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id))) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
comment on policy insert_own_watch on app_public.issue_watchers is 'A key watches as its linked agent, or else as its user; never on someone else''s behalf.';

drop policy if exists owner_all on app_public.issue_watchers;
create policy owner_all on app_public.issue_watchers for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issue_watchers is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_on_visible_issues on app_public.issue_watchers;
create policy select_on_visible_issues on app_public.issue_watchers for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id)))));
comment on policy select_on_visible_issues on app_public.issue_watchers is 'Watchers of issues the caller can see.';

drop policy if exists insert_in_workspace on app_public.issues;
create policy insert_in_workspace on app_public.issues for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (project_id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])) OR (cardinality(( SELECT app_hidden.narrowed_label_ids() AS narrowed_label_ids)) > 0))));
comment on policy insert_in_workspace on app_public.issues is 'Create issues in the caller''s workspace; a project-narrowed key only inside its projects (label-narrowed keys are checked once labels are set).';

drop policy if exists owner_all on app_public.issues;
create policy owner_all on app_public.issues for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.issues is 'The schema owner (operator, worker, dispatcher) works on every row.';

drop policy if exists select_in_workspace on app_public.issues;
create policy select_in_workspace on app_public.issues for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id))));
comment on policy select_in_workspace on app_public.issues is 'Issues of the caller''s workspace; a narrowed key sees only issues in its projects or carrying its labels.';

drop policy if exists update_in_workspace on app_public.issues;
create policy update_in_workspace on app_public.issues for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_in_workspace on app_public.issues is 'Update issues the caller can see.';

drop policy if exists owner_all on app_private.issue_detachments;
create policy owner_all on app_private.issue_detachments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.issue_detachments is 'Only the schema owner (the issues triggers, security definer) reads and writes detachments.';
