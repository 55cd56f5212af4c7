-- The projects.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; PROJECT_UPDATED (archived true) by trigger. Its issues keep their
-- projectId.
create or replace function app_tools.projects_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.project_for_write(args->>'id');
begin
  if v_project.archived_at is null then
    update app_public.projects set archived_at = now() where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_archive(args jsonb) is 'projects.archive: Archive a project (soft: it leaves projects.list and new issues cannot use it; its issues keep their projectId). Idempotent.';
grant execute on function app_tools.projects_archive(args jsonb) to svc_visitor;
