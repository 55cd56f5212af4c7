-- The statuses.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- statuses ordered by position, optionally of one category.
create or replace function app_tools.statuses_list(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.status_json(s) order by s.position, s.name), '[]')
  from app_public.statuses s
  where s.workspace_id = app_hidden.current_workspace_id()
    and (args->>'category' is null or s.category = args->>'category')
$$;
comment on function app_tools.statuses_list(args jsonb) is 'statuses.list: Workflow statuses of the workspace, ordered by position. Use a status id with issues.transition.';
grant execute on function app_tools.statuses_list(args jsonb) to svc_visitor;
