-- Row-level security policies of the orchestration tables. A goal tied to an issue follows that issue's
-- narrowing; a narrowed key sees no goal without an issue. Plans, steps and gates follow their goal.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.goals;
create policy owner_all on app_public.goals for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.goals is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_goals on app_public.goals;
create policy select_visible_goals on app_public.goals for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL)))))));
comment on policy select_visible_goals on app_public.goals is 'Goals of the workspace; a narrowed key sees only goals tied to issues it can see. None tied to a deleted issue (404 everywhere, as its requests and runs; back with the issue), and so none of their plans, steps and gates.';

drop policy if exists insert_visible_goals on app_public.goals;
create policy insert_visible_goals on app_public.goals for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id)))))));
comment on policy insert_visible_goals on app_public.goals is 'Any key may create goals it can see (a narrowed key: only tied to an issue it can see).';

drop policy if exists update_visible_goals on app_public.goals;
create policy update_visible_goals on app_public.goals for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL)))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1 FROM app_public.issues i WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL)))))));
comment on policy update_visible_goals on app_public.goals is 'Goal moves by keys that can see the goal (through the loop functions); none tied to a deleted issue.';

drop policy if exists owner_all on app_public.execution_plans;
create policy owner_all on app_public.execution_plans for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.execution_plans is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_plans on app_public.execution_plans;
create policy select_visible_plans on app_public.execution_plans for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id)))));
comment on policy select_visible_plans on app_public.execution_plans is 'Plans of goals the key can see, for every key (a goal tied to a deleted issue is not there, nor are its plans).';

drop policy if exists insert_visible_plans on app_public.execution_plans;
create policy insert_visible_plans on app_public.execution_plans for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id)))));
comment on policy insert_visible_plans on app_public.execution_plans is 'Plans for goals the key can see.';

drop policy if exists update_visible_plans on app_public.execution_plans;
create policy update_visible_plans on app_public.execution_plans for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id)))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.goals g WHERE (g.id = execution_plans.goal_id)))));
comment on policy update_visible_plans on app_public.execution_plans is 'Plan moves on goals the key can see.';

drop policy if exists owner_all on app_public.execution_steps;
create policy owner_all on app_public.execution_steps for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.execution_steps is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_steps on app_public.execution_steps;
create policy select_visible_steps on app_public.execution_steps for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy select_visible_steps on app_public.execution_steps is 'Steps of plans the key can see. An unnarrowed key is not asked per row (steps are many and read often): a step of a goal tied to a deleted issue is 404 at its entry point instead (find_step), as its plan is here.';

drop policy if exists insert_visible_steps on app_public.execution_steps;
create policy insert_visible_steps on app_public.execution_steps for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy insert_visible_steps on app_public.execution_steps is 'Steps for plans the key can see.';

drop policy if exists update_visible_steps on app_public.execution_steps;
create policy update_visible_steps on app_public.execution_steps for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = execution_steps.plan_id))))));
comment on policy update_visible_steps on app_public.execution_steps is 'Step moves on plans the key can see.';

drop policy if exists owner_all on app_public.review_gates;
create policy owner_all on app_public.review_gates for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.review_gates is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_visible_gates on app_public.review_gates;
create policy select_visible_gates on app_public.review_gates for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id)))));
comment on policy select_visible_gates on app_public.review_gates is 'Review gates of plans the key can see, for every key (none of a goal tied to a deleted issue).';

drop policy if exists insert_visible_gates on app_public.review_gates;
create policy insert_visible_gates on app_public.review_gates for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id)))));
comment on policy insert_visible_gates on app_public.review_gates is 'Gates on plans the key can see.';

drop policy if exists update_visible_gates on app_public.review_gates;
create policy update_visible_gates on app_public.review_gates for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id)))))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1 FROM app_public.execution_plans p WHERE (p.id = review_gates.plan_id)))));
comment on policy update_visible_gates on app_public.review_gates is 'Resolving gates on plans the key can see.';

drop policy if exists owner_all on app_public.agent_crews;
create policy owner_all on app_public.agent_crews for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agent_crews is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_in_workspace on app_public.agent_crews;
create policy select_in_workspace on app_public.agent_crews for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.agent_crews is 'Crews are workspace configuration: every key of the workspace sees them.';

drop policy if exists insert_with_admin_scope on app_public.agent_crews;
create policy insert_with_admin_scope on app_public.agent_crews for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.agent_crews is 'Only ADMIN-scoped keys create crews.';

drop policy if exists update_with_admin_scope on app_public.agent_crews;
create policy update_with_admin_scope on app_public.agent_crews for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy update_with_admin_scope on app_public.agent_crews is 'Only ADMIN-scoped keys change or archive crews.';

drop policy if exists owner_all on app_public.agent_crew_members;
create policy owner_all on app_public.agent_crew_members for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agent_crew_members is 'The schema owner (operator, budget trigger) works on every row.';

drop policy if exists select_in_workspace on app_public.agent_crew_members;
create policy select_in_workspace on app_public.agent_crew_members for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.agent_crew_members is 'Crew members are visible to every key of the workspace.';

drop policy if exists insert_with_admin_scope on app_public.agent_crew_members;
create policy insert_with_admin_scope on app_public.agent_crew_members for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy insert_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys add members.';

drop policy if exists update_with_admin_scope on app_public.agent_crew_members;
create policy update_with_admin_scope on app_public.agent_crew_members for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)))
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy update_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys change member roles.';

drop policy if exists delete_with_admin_scope on app_public.agent_crew_members;
create policy delete_with_admin_scope on app_public.agent_crew_members for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
comment on policy delete_with_admin_scope on app_public.agent_crew_members is 'Only ADMIN-scoped keys remove members.';
