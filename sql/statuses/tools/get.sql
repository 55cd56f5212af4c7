-- The statuses.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one status of the workspace by id (404 for another workspace's).
create or replace function app_tools.statuses_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.status_json(app_hidden.find_status(args->>'id'));
end
$$;
comment on function app_tools.statuses_get(args jsonb) is 'statuses.get: One workflow status by id.';
grant execute on function app_tools.statuses_get(args jsonb) to svc_visitor;
