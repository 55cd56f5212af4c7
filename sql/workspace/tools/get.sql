-- The workspace.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- settings of the caller's workspace.
create or replace function app_tools.workspace_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.workspace_json(w) from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_tools.workspace_get(args jsonb) is 'workspace.get: Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...). No member list.';
grant execute on function app_tools.workspace_get(args jsonb) to svc_visitor;
