-- The initiatives.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects.summary rolled up over the projects of one initiative the key can see: the totals over every linked
-- project the key can see (archived ones included: archiving does not unlink), and a compact row per project.
create or replace function app_tools.initiatives_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
  v_projects uuid[] := array(select p.id from app_public.projects p
                             where p.workspace_id = v_initiative.workspace_id and p.initiative_id = v_initiative.id
                             order by p.created_at, p.id);
begin
  return jsonb_build_object('initiative', app_hidden.initiative_json(v_initiative), 'generatedAt', now())
    || app_hidden.issue_progress_json(v_projects)
    || jsonb_build_object('projects', coalesce((
         select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                          || (select jsonb_build_object('total', g->'total', 'open', g->'open', 'done', g->'done',
                                                        'canceled', g->'canceled', 'percentComplete', g->'percentComplete',
                                                        'overdue', g->'overdue')
                              from app_hidden.issue_progress_json(array[p.id]) g)
                          order by p.created_at, p.id)
         from app_public.projects p where p.id = any(v_projects)), '[]'));
end
$$;
grant execute on function app_tools.initiatives_summary(args jsonb) to svc_visitor;
comment on function app_tools.initiatives_summary(args jsonb) is 'initiatives.summary: Progress of an initiative: projects.summary rolled up over its projects (archived too), with a row per project.';
