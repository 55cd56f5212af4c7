-- The dispatcher and the watchdogs (issue 11). assign_issue_agent gains p_dispatch (the dispatcher's
-- AGENT_ASSIGNED payload), so the old signature goes first.
drop function if exists app_hidden.assign_issue_agent(app_public.issues, app_public.agents, text, text, text, uuid);
--! include issues/write.sql
--! include dispatch/rules.sql
--! include dispatch/dispatcher.sql
--! include dispatch/watchdogs.sql
--! include dispatch/wake.sql
