-- projects: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_project_initiative_reachable(p_project app_public.projects)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_project.initiative_id is not null
     and not exists (select 1 from app_public.initiatives i where i.id = p_project.initiative_id) then
    raise exception 'The project belongs to an initiative outside this key''s narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) is 'Before moving a project between initiatives: an initiative-narrowed key may not take a project out of an initiative it cannot see (403 narrowing).';
grant execute on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) to svc_visitor;

create or replace function app_hidden.find_project(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select p from app_public.projects p
                           where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()),
                          'Project', p_field);
end
$$;
comment on function app_hidden.find_project(p_id text, p_field text) is 'A project the key can see (archived included), else 404 Project not found.';
grant execute on function app_hidden.find_project(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_for_write(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
as $$
declare v_project app_public.projects;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (a link, an unlink and its
  -- initiative check, the narrowing guard, an archive) sees every change committed before it, and none slips in
  -- between the read and the write. FOR NO KEY UPDATE, the lock the project's own UPDATE takes: issues filed in the
  -- project meanwhile (KEY SHARE through their foreign key) do not wait for it.
  select * into v_project from app_public.projects p
  where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()
  for no key update;
  return app_hidden.found(v_project, 'Project', p_field);
end
$$;
comment on function app_hidden.project_for_write(p_id text, p_field text) is 'A project the key can see (archived included), locked until commit (its current row), else 404 Project not found naming the field. The entry point of every project change.';
grant execute on function app_hidden.project_for_write(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_json(p app_public.projects)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', p.id, 'name', p.name, 'description', p.description,
    -- Under RLS: an initiative-narrowed key does not learn the id of an initiative outside its narrowing.
    'initiativeId', (select i.id from app_public.initiatives i where i.id = p.initiative_id),
    'initiative', (select jsonb_build_object('id', i.id, 'name', i.name)
                   from app_public.initiatives i where i.id = p.initiative_id),
    'archived', p.archived_at is not null, 'archivedAt', p.archived_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at)
$$;
comment on function app_hidden.project_json(p app_public.projects) is 'Project (spec 2.7): name, description, initiativeId and initiative {id, name} (both null when the key cannot see the initiative), archived state.';
grant execute on function app_hidden.project_json(p app_public.projects) to svc_visitor;
