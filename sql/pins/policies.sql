-- Row-level security policies of the pins tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists manage_own_pins on app_public.pins;
create policy manage_own_pins on app_public.pins for all to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((target_type <> ALL (ARRAY['ISSUE'::text, 'PROJECT'::text, 'INITIATIVE'::text])) OR ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR ((target_type = 'ISSUE'::text) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = pins.target_id)))) OR ((target_type = 'PROJECT'::text) AND (EXISTS ( SELECT 1 FROM app_public.projects p WHERE (p.id = pins.target_id)))) OR ((target_type = 'INITIATIVE'::text) AND (EXISTS ( SELECT 1 FROM app_public.initiatives n WHERE (n.id = pins.target_id)))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy manage_own_pins on app_public.pins is 'Pins are personal: a user sees and changes only their own, and a narrowed key only those on issues, projects and initiatives it can see.';

drop policy if exists owner_all on app_public.pins;
create policy owner_all on app_public.pins for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.pins is 'The schema owner (operator) works on every row.';
