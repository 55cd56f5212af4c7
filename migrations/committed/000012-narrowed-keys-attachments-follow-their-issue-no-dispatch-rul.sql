--! Previous: sha1:17827d37001b3cc7b958b44787047a8f79a2b386
--! Hash: sha1:e86fec149e69af2428e32c2c6ffb17e07baa2253
--! Message: narrowed keys: attachments follow their issue; no dispatch rules

--! split: 1-current.sql
-- Enter migration here

--! split: 55-narrowing-for-attachments-and-rules.sql
-- Narrowed keys: attachments follow the issue behind them (directly or through a comment), and dispatch
-- rules (workspace configuration naming projects and labels) are for unnarrowed keys only.
drop policy if exists select_in_workspace on app_public.attachments;
create policy select_in_workspace on app_public.attachments for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or (target_type = 'issue' and exists (select 1 from app_public.issues i where i.id = attachments.target_id))
              or (target_type = 'comment' and exists (select 1 from app_public.comments c where c.id = attachments.target_id))
              or target_type not in ('issue', 'comment')));
comment on policy select_in_workspace on app_public.attachments is
  'Attachments of the caller''s workspace; for a narrowed key, those on issues (or their comments) only when the issue is visible.';

create policy hide_from_narrowed_keys on app_public.dispatch_rules as restrictive for select to svc_visitor
  using ((select app_hidden.issues_unrestricted()) and cardinality((select app_hidden.narrowed_initiative_ids())) = 0);
comment on policy hide_from_narrowed_keys on app_public.dispatch_rules is
  'Restrictive: a key with any narrowing sees no dispatch rules (they name projects and labels it may not see).';
