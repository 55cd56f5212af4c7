-- Orchestration lists page through app_hidden.page_json; one function adds dispatch rules for the
-- in-app procedure and the operator's CLI.
drop function if exists app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text);
--! include dispatch/rules.sql
--! include goals/tools/list.sql
--! include reviewGates/tools/list.sql
--! include executionPlans/tools/list.sql
--! include actionRequests/tools/list.sql
--! include agentCrews/tools/list.sql
--! include agent/tools/contextBundle.sql
