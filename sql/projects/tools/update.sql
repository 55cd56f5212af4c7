-- The projects.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description, initiativeId (null detaches); PROJECT_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.projects_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_project app_public.projects := app_hidden.find_project(args->>'id');
  v_initiative_id uuid := v_project.initiative_id;
begin
  if args ? 'initiativeId' then
    if args->>'initiativeId' is null then
      v_initiative_id := null;
    else
      v_initiative_id := (app_hidden.find_initiative(args->>'initiativeId', 'initiativeId')).id;
    end if;
    if v_initiative_id is distinct from v_project.initiative_id then
      perform app_hidden.check_project_initiative_reachable(v_project);
    end if;
  end if;
  update app_public.projects
  set name = coalesce(args->>'name', name),
      description = case when args ? 'description' then args->>'description' else description end,
      initiative_id = v_initiative_id
  where id = v_project.id
    and (coalesce(args->>'name', name), case when args ? 'description' then args->>'description' else description end, v_initiative_id)
        is distinct from (name, description, initiative_id)
  returning * into v_project;
  if not found then
    v_project := app_hidden.find_project(args->>'id');
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_update(args jsonb) is 'projects.update: Change a project''s name, description (null clears) or initiativeId (null detaches it from its initiative). Only the fields given change.';
grant execute on function app_tools.projects_update(args jsonb) to svc_visitor;
