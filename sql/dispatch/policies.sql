-- Row-level security policies of the dispatch tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists hide_from_narrowed_keys on app_public.dispatch_rules;
create policy hide_from_narrowed_keys on app_public.dispatch_rules as restrictive for select to svc_visitor
  using ((( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) AND (cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0)));
comment on policy hide_from_narrowed_keys on app_public.dispatch_rules is 'Restrictive: a key with any narrowing sees no dispatch rules (they name projects and labels it may not see).';

drop policy if exists manage_as_admin on app_public.dispatch_rules;
create policy manage_as_admin on app_public.dispatch_rules for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))));
comment on policy manage_as_admin on app_public.dispatch_rules is 'Only a key whose own user is OWNER or ADMIN changes dispatch rules.';

drop policy if exists owner_all on app_public.dispatch_rules;
create policy owner_all on app_public.dispatch_rules for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.dispatch_rules is 'The schema owner (operator, dispatcher) works on every row.';

drop policy if exists select_in_workspace on app_public.dispatch_rules;
create policy select_in_workspace on app_public.dispatch_rules for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.dispatch_rules is 'Dispatch rules of the caller''s workspace.';
