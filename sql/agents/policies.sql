-- Row-level security policies of the agents tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists insert_on_visible_issues on app_public.agent_runs;
create policy insert_on_visible_issues on app_public.agent_runs for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id)))));
comment on policy insert_on_visible_issues on app_public.agent_runs is 'Open runs on visible issues (assignment opens them).';

drop policy if exists owner_all on app_public.agent_runs;
create policy owner_all on app_public.agent_runs for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agent_runs is 'The schema owner (watchdogs, dispatcher) works on every row.';

drop policy if exists select_on_visible_issues on app_public.agent_runs;
create policy select_on_visible_issues on app_public.agent_runs for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id))))));
comment on policy select_on_visible_issues on app_public.agent_runs is 'Runs on issues the caller can see.';

drop policy if exists update_on_visible_issues on app_public.agent_runs;
create policy update_on_visible_issues on app_public.agent_runs for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id)))));
comment on policy update_on_visible_issues on app_public.agent_runs is 'Move runs on visible issues; the run tools check the agent link.';

drop policy if exists owner_all on app_private.agent_webhook_secrets;
create policy owner_all on app_private.agent_webhook_secrets for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_private.agent_webhook_secrets is 'Only the schema owner reads agent dispatch secrets.';

drop policy if exists owner_all on app_public.agents;
create policy owner_all on app_public.agents for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.agents is 'The schema owner manages agents.';

drop policy if exists select_in_workspace on app_public.agents;
create policy select_in_workspace on app_public.agents for select to svc_visitor
  using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy select_in_workspace on app_public.agents is 'Agents of the caller''s workspace.';

drop policy if exists update_own_agent on app_public.agents;
create policy update_own_agent on app_public.agents for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (id = ( SELECT app_hidden.current_agent_id() AS current_agent_id))))
  with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
comment on policy update_own_agent on app_public.agents is 'A key linked to an agent may update that agent (heartbeat, status).';
