-- Issue 6 (tools): the catalog past 200 tools; each tool reuses the in-app procedures and helpers.

-- Spec 4.14/4.15 keep these in-app only (not MCP); an earlier draft of this branch had them as tools.
drop function if exists app_tools.agents_create(jsonb);
drop function if exists app_tools.agents_update(jsonb);
drop function if exists app_tools.agents_archive(jsonb);
drop function if exists app_tools.agents_unarchive(jsonb);
drop function if exists app_tools.members_add(jsonb);
drop function if exists app_tools.members_remove(jsonb);
drop function if exists app_tools.members_set_role(jsonb);
drop function if exists app_tools.access_list_keys(jsonb);
drop function if exists app_tools.access_revoke(jsonb);
drop function if exists app_hidden.api_key_json(app_public.api_key);
drop function if exists app_tools.comments_revisions(jsonb);
-- Over the runtime profile's 40 KB budget (docs/decisions.md).
drop function if exists app_tools.workspace_update_settings(jsonb);
drop function if exists app_tools.action_requests_get(jsonb);

--! include comments/find.sql
--! include projects/tools/get.sql
--! include labels/tools/get.sql
--! include reviewGates/tools/get.sql
--! include agentCrews/tools/get.sql
--! include notes/tools/get.sql
--! include runtimes/tools/get.sql
--! include runs/tools/get.sql
--! include attachments/tools/get.sql
--! include agents/tools/get.sql
--! include events/tools/get.sql
--! include comments/tools/get.sql
--! include members/members.sql
--! include members/tools/list.sql
--! include projects/tools/unarchive.sql
--! include initiatives/tools/archive.sql
--! include initiatives/tools/unarchive.sql
--! include agentCrews/tools/unarchive.sql
--! include webhooks/tools/list.sql
--! include webhooks/tools/get.sql
--! include webhooks/tools/listDeliveries.sql
