-- Row-level security policies of the attachments tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.attachments;
create policy owner_all on app_public.attachments for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.attachments is 'The schema owner (operator, worker) works on every row.';

drop policy if exists select_in_workspace on app_public.attachments;
create policy select_in_workspace on app_public.attachments for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((target_type = 'issue'::text) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = attachments.target_id)))) OR ((target_type = 'comment'::text) AND (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE (c.id = attachments.target_id)))) OR (target_type <> ALL (ARRAY['issue'::text, 'comment'::text])))));
comment on policy select_in_workspace on app_public.attachments is 'Attachments of the caller''s workspace; for a narrowed key, those on issues (or their comments) only when the issue is visible.';
