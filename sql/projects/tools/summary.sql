-- The projects.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a progress view of one project the key can see (archived included, as projects.get): counts of its live
-- issues that the key can see, by status category and, for open ones, priority; done/open, % complete, overdue.
create or replace function app_tools.projects_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_project app_public.projects := app_hidden.find_project(args->>'id');
begin
  return jsonb_build_object('project', app_hidden.project_json(v_project), 'generatedAt', now())
         || app_hidden.issue_progress_json(array[v_project.id]);
end
$$;
grant execute on function app_tools.projects_summary(args jsonb) to svc_visitor;
comment on function app_tools.projects_summary(args jsonb) is 'projects.summary: Progress of a project: its issues (that this key sees) by status category and open ones by priority; open, done, percentComplete (of non-canceled), overdue, unassigned, estimates.';
