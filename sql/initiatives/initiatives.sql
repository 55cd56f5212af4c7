-- initiatives: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_initiative(p_id text, p_field text default 'id'::text)
 returns app_public.initiatives
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select i from app_public.initiatives i
                           where i.id = app_hidden.parse_uuid(p_id, p_field) and i.workspace_id = app_hidden.current_workspace_id()),
                          'Initiative', p_field);
end
$$;
comment on function app_hidden.find_initiative(p_id text, p_field text) is 'An initiative the key can see, else 404 Initiative not found.';
grant execute on function app_hidden.find_initiative(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.initiative_for_write(p_id text, p_field text default 'id'::text)
 returns app_public.initiatives
 language plpgsql
as $$
declare v_initiative app_public.initiatives;
begin
  -- Locked until commit and read once the lock is granted (as project_for_write): concurrent archives of one
  -- initiative take turns, and the second finds it archived.
  select * into v_initiative from app_public.initiatives i
  where i.id = app_hidden.parse_uuid(p_id, p_field) and i.workspace_id = app_hidden.current_workspace_id()
  for no key update;
  return app_hidden.found(v_initiative, 'Initiative', p_field);
end
$$;
comment on function app_hidden.initiative_for_write(p_id text, p_field text) is 'An initiative the key can see, locked until commit (its current row), else 404 Initiative not found naming the field. The entry point of every initiative change.';
grant execute on function app_hidden.initiative_for_write(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'name', i.name, 'description', i.description,
    'archived', i.archived_at is not null, 'archivedAt', i.archived_at,
    -- Every linked project the key sees, archived ones included, as projects[] and initiatives.summary list them
    -- (archiving does not unlink; it counted only live ones and disagreed with the list).
    'projectCount', (select count(*) from app_public.projects p where p.initiative_id = i.id),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_with_projects then jsonb_build_object('projects', coalesce(
       (select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                         order by p.created_at, p.id)
        from app_public.projects p where p.initiative_id = i.id), '[]'))
     else '{}'::jsonb end
$$;
comment on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) is 'Initiative (spec 2.7): name, description, archived state, projectCount (the linked projects the key can see, archived ones included: those projects lists); with p_with_projects the linked projects.';
grant execute on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) to svc_visitor;
