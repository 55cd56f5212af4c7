-- The initiatives.linkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId (moving it from another initiative); idempotent; PROJECT_UPDATED by
-- trigger.
create or replace function app_tools.initiatives_link_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  -- Locked: the move and the narrowing check are decided on the project's current initiative.
  v_project app_public.projects := app_hidden.project_for_write(args->>'projectId', 'projectId');
begin
  if v_project.initiative_id is distinct from v_initiative.id then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = v_initiative.id where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_link_project(args jsonb) is 'initiatives.linkProject: Attach a project to an initiative (sets the project''s initiativeId, moving it from any other initiative). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_link_project(args jsonb) to svc_visitor;
