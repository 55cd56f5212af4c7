-- The projects.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description, initiativeId (null detaches); PROJECT_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.projects_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked: the initiative check below and the values written are decided on the current row.
  v_project app_public.projects := app_hidden.project_for_write(args->>'id');
  v_name text := coalesce(args->>'name', v_project.name);
  v_description text := case when args ? 'description' then args->>'description' else v_project.description end;
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
  if (v_name, v_description, v_initiative_id) is distinct from (v_project.name, v_project.description, v_project.initiative_id) then
    -- Only the fields given are written (a rename leaves initiative_id to whoever else set it).
    update app_public.projects
    set name = v_name,
        description = case when args ? 'description' then v_description else description end,
        initiative_id = case when args ? 'initiativeId' then v_initiative_id else initiative_id end
    where id = v_project.id
    returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_update(args jsonb) is 'projects.update: Change a project''s name, description (null clears) or initiativeId (null detaches it from its initiative). Only the fields given change.';
grant execute on function app_tools.projects_update(args jsonb) to svc_visitor;
