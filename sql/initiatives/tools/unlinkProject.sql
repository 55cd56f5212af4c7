-- The initiatives.unlinkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId to null; idempotent; 409 not_linked when initiativeId names another
-- initiative; PROJECT_UPDATED by trigger.
create or replace function app_tools.initiatives_unlink_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked: not_linked and the narrowing check are decided on the project's current initiative (a concurrent link
  -- to another one is seen, not undone).
  v_project app_public.projects := app_hidden.project_for_write(args->>'projectId', 'projectId');
  v_initiative app_public.initiatives;
begin
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
    if v_project.initiative_id is distinct from v_initiative.id and v_project.initiative_id is not null then
      raise exception 'The project is linked to another initiative' using errcode = 'SV409', detail = 'not_linked';
    end if;
  end if;
  if v_project.initiative_id is not null then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_unlink_project(args jsonb) is 'initiatives.unlinkProject: Detach a project from its initiative (sets initiativeId null). Pass initiativeId to make sure it is detached from that one (409 not_linked if it belongs to another). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_unlink_project(args jsonb) to svc_visitor;
