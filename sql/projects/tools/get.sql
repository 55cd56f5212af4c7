-- The projects.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one project the key can see (archived included).
create or replace function app_tools.projects_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.project_json(app_hidden.find_project(args->>'id'));
end
$$;
comment on function app_tools.projects_get(args jsonb) is 'projects.get: One project by id (archived ones too).';
grant execute on function app_tools.projects_get(args jsonb) to svc_visitor;
