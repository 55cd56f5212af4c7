-- The projects.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes projects.archive; idempotent; PROJECT_UPDATED (archived false) by trigger.
create or replace function app_tools.projects_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.project_for_write(args->>'id');
begin
  if v_project.archived_at is not null then
    update app_public.projects set archived_at = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_unarchive(args jsonb) is 'projects.unarchive: Restore an archived project. Idempotent.';
grant execute on function app_tools.projects_unarchive(args jsonb) to svc_visitor;
