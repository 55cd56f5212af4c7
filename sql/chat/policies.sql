-- Row-level security policies of the chat tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.chat_threads;
create policy owner_all on app_public.chat_threads for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.chat_threads is 'The schema owner (in-app procedures, svc admin open-chat) opens threads.';

drop policy if exists select_as_participant on app_public.chat_threads;
create policy select_as_participant on app_public.chat_threads for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND (created_by_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin))) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.chat_thread_issue_visible(issue_id)) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1 FROM app_public.issues d WHERE ((d.id = chat_threads.issue_id) AND (d.deleted_at IS NULL)))))));
comment on policy select_as_participant on app_public.chat_threads is 'The addressee agent''s keys, the person who opened the thread (keys without an agent) and workspace admins (their own keys, not their agents''); a thread tied to an issue only for keys that may see that issue (narrowing), and none tied to a deleted issue (404 everywhere, as its requests; back with the issue).';

drop policy if exists owner_all on app_public.chat_messages;
create policy owner_all on app_public.chat_messages for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.chat_messages is 'The schema owner posts USER messages (in-app procedures).';

drop policy if exists select_in_visible_threads on app_public.chat_messages;
create policy select_in_visible_threads on app_public.chat_messages for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE (t.id = chat_messages.thread_id)))));
comment on policy select_in_visible_threads on app_public.chat_messages is 'Messages of the threads the caller sees.';

drop policy if exists insert_as_addressee on app_public.chat_messages;
create policy insert_as_addressee on app_public.chat_messages for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (role = 'AGENT'::text) AND (author_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE ((t.id = chat_messages.thread_id) AND (t.agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)))))));
comment on policy insert_as_addressee on app_public.chat_messages is 'Agents post AGENT replies only in threads addressed to them.';
