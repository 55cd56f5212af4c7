-- The projects.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new project, optionally in an initiative the key can see; PROJECT_CREATED by trigger. Project-narrowed
-- keys: 403 narrowing.
create or replace function app_tools.projects_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_initiative app_public.initiatives;
  v_project app_public.projects;
begin
  if cardinality(app_hidden.narrowed_project_ids()) > 0 then
    raise exception 'A project-narrowed key cannot create projects' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  end if;
  insert into app_public.projects (workspace_id, name, description, initiative_id)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description', v_initiative.id)
  returning * into v_project;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_create(args jsonb) is 'projects.create: Create a project (name, optional description and initiativeId). Returns the project; use its id as projectId on issues. Keys narrowed to projects cannot create projects.';
grant execute on function app_tools.projects_create(args jsonb) to svc_visitor;
