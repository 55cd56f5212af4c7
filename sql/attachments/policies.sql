-- Row-level security policies of the attachments tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.attachments;
create policy owner_all on app_public.attachments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.attachments is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.attachments;
create policy select_in_workspace on app_public.attachments for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((target_type = ANY (ARRAY['issue'::text, 'comment'::text])) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((target_type = 'issue'::text) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = attachments.target_id)))) OR ((target_type = 'comment'::text) AND (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE (c.id = attachments.target_id)))))) OR ((target_type = 'initiative'::text) AND ((cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0) OR (target_id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))) OR (target_type = 'cycle'::text))));
comment on policy select_in_workspace on app_public.attachments is 'Attachments of the caller''s workspace that follow their target: on issues (or their comments) only when the issue is visible to a narrowed key, on initiatives only within initiative narrowing; cycles are workspace-wide.';

drop policy if exists insert_in_workspace on app_public.attachments;
create policy insert_in_workspace on app_public.attachments for insert to svc_visitor
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy insert_in_workspace on app_public.attachments is 'Attachments are added in the caller''s workspace (the tools check the target first).';

drop policy if exists delete_visible on app_public.attachments;
create policy delete_visible on app_public.attachments for delete to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy delete_visible on app_public.attachments is 'A key deletes attachments of its workspace that it can see (the select policy narrows which).';

drop policy if exists owner_all on app_public.attachment_uploads;
create policy owner_all on app_public.attachment_uploads for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.attachment_uploads is 'The schema owner (the expiry job) works on every row.';

drop policy if exists manage_in_workspace on app_public.attachment_uploads;
create policy manage_in_workspace on app_public.attachment_uploads for all to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy manage_in_workspace on app_public.attachment_uploads is 'Uploads of the caller''s workspace; finalize re-checks the target against the finalizing key''s narrowing.';
