-- The workspace.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- settings of the caller's workspace, and who the caller is in it (a person's key had no other way to learn its own
-- user id, which claimedById, time.list and actionRequests.list filter by, short of a write that happened to echo it).
create or replace function app_tools.workspace_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.workspace_json(w) || jsonb_build_object('caller', app_hidden.caller_json())
  from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_tools.workspace_get(args jsonb) is 'workspace.get: Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...), and caller: who this key acts as (keyId, kind, pluginId, userId, agentId, role, scopes, narrowing; the ids claimedById, time.list and actionRequests.list filter by). No member list.';
grant execute on function app_tools.workspace_get(args jsonb) to svc_visitor;
