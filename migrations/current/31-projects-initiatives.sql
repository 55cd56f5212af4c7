-- projects.* and initiatives.* (spec 4.4). Scopes READ_PROJECTS / WRITE_PROJECTS (checked by the API).
-- Project narrowing (projectIds) and initiative narrowing (initiativeIds) are RLS on the tables.
-- Events: PROJECT_CREATED / PROJECT_UPDATED (link and unlink included) and INITIATIVE_* by trigger.

-- Shapes and lookups ----------------------------------------------------------------------------

create or replace function app_hidden.project_json(p app_public.projects) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', p.id, 'name', p.name, 'description', p.description, 'initiativeId', p.initiative_id,
    'initiative', (select jsonb_build_object('id', i.id, 'name', i.name)
                   from app_public.initiatives i where i.id = p.initiative_id),
    'archived', p.archived_at is not null, 'archivedAt', p.archived_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at)
$$;
comment on function app_hidden.project_json(app_public.projects) is
  'Project (spec 2.7): name, description, initiativeId (+ initiative {id, name} when the key can see it), archived state.';

create or replace function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean default false) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', i.id, 'name', i.name, 'description', i.description,
    'archived', i.archived_at is not null, 'archivedAt', i.archived_at,
    'projectCount', (select count(*) from app_public.projects p where p.initiative_id = i.id and p.archived_at is null),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_with_projects then jsonb_build_object('projects', coalesce(
       (select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                         order by p.created_at, p.id)
        from app_public.projects p where p.initiative_id = i.id), '[]'))
     else '{}'::jsonb end
$$;
comment on function app_hidden.initiative_json(app_public.initiatives, boolean) is
  'Initiative (spec 2.7): name, description, archived state, projectCount (live projects the key can see); with p_with_projects the linked projects.';

create or replace function app_hidden.find_project(p_id text, p_field text default 'id') returns app_public.projects
language plpgsql stable as $$
declare v_project app_public.projects;
begin
  select * into v_project from app_public.projects
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_project.id is null then
    raise exception 'Project not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_project;
end
$$;
comment on function app_hidden.find_project(text, text) is 'A project the key can see (archived included), else 404 Project not found.';

create or replace function app_hidden.find_initiative(p_id text, p_field text default 'id') returns app_public.initiatives
language plpgsql stable as $$
declare v_initiative app_public.initiatives;
begin
  select * into v_initiative from app_public.initiatives
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_initiative.id is null then
    raise exception 'Initiative not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_initiative;
end
$$;
comment on function app_hidden.find_initiative(text, text) is 'An initiative the key can see, else 404 Initiative not found.';

create or replace function app_hidden.check_project_initiative_reachable(p_project app_public.projects) returns void
language plpgsql stable as $$
begin
  if p_project.initiative_id is not null
     and not exists (select 1 from app_public.initiatives i where i.id = p_project.initiative_id) then
    raise exception 'The project belongs to an initiative outside this key''s narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.check_project_initiative_reachable(app_public.projects) is
  'Before moving a project between initiatives: an initiative-narrowed key may not take a project out of an initiative it cannot see (403 narrowing).';

-- projects ------------------------------------------------------------------------------------

create or replace function app_tools.projects_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_initiative uuid := app_hidden.parse_uuid(args->>'initiativeId', 'initiativeId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id
    from app_hidden.keyset_decode(args->>'cursor', 'projects') k;
  end if;
  with page as (
    select p as r from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           or (v_initiative is null and p.initiative_id is null)
           or p.initiative_id = v_initiative)
      and (v_after_ts is null or (p.created_at, p.id) > (v_after_ts, v_after_id))
    order by p.created_at, p.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.project_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('projects', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.projects_list(jsonb) is
  'projects.list: projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId filter (null = without initiative).';

create or replace function app_tools.projects_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_initiative app_public.initiatives;
  v_project app_public.projects;
begin
  if cardinality(app_hidden.narrowed_project_ids()) > 0 then
    raise exception 'A project-narrowed key cannot create projects' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  end if;
  insert into app_public.projects (workspace_id, name, description, initiative_id)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description', v_initiative.id)
  returning * into v_project;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_create(jsonb) is
  'projects.create: a new project, optionally in an initiative the key can see; PROJECT_CREATED by trigger. Project-narrowed keys: 403 narrowing.';

create or replace function app_tools.projects_update(args jsonb) returns jsonb
language plpgsql volatile as $$
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
comment on function app_tools.projects_update(jsonb) is
  'projects.update: name, description, initiativeId (null detaches); PROJECT_UPDATED by trigger, none when nothing changes.';

create or replace function app_tools.projects_archive(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_project app_public.projects := app_hidden.find_project(args->>'id');
begin
  if v_project.archived_at is null then
    update app_public.projects set archived_at = now() where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_archive(jsonb) is
  'projects.archive: soft archive (archivedAt); idempotent; PROJECT_UPDATED (archived true) by trigger. Its issues keep their projectId.';

-- initiatives ---------------------------------------------------------------------------------

create or replace function app_tools.initiatives_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id
    from app_hidden.keyset_decode(args->>'cursor', 'initiatives') k;
  end if;
  with page as (
    select i as r from app_public.initiatives i
    where i.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or i.archived_at is null)
      and (v_after_ts is null or (i.created_at, i.id) > (v_after_ts, v_after_id))
    order by i.created_at, i.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.initiative_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('initiatives', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.initiatives_list(jsonb) is
  'initiatives.list: initiatives the key can see (initiative narrowing), oldest first, keyset-paged.';

create or replace function app_tools.initiatives_get(args jsonb) returns jsonb
language sql stable as $$
  select app_hidden.initiative_json(app_hidden.find_initiative(args->>'id'), true)
$$;
comment on function app_tools.initiatives_get(jsonb) is 'initiatives.get: one initiative with its linked projects (those the key can see).';

create or replace function app_tools.initiatives_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_initiative app_public.initiatives;
begin
  if cardinality(app_hidden.narrowed_initiative_ids()) > 0 then
    raise exception 'An initiative-narrowed key cannot create initiatives' using errcode = 'SV403', detail = 'narrowing';
  end if;
  insert into app_public.initiatives (workspace_id, name, description)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description')
  returning * into v_initiative;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_create(jsonb) is
  'initiatives.create: a new initiative; INITIATIVE_CREATED by trigger. Initiative-narrowed keys: 403 narrowing.';

create or replace function app_tools.initiatives_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
begin
  update app_public.initiatives
  set name = coalesce(args->>'name', name),
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_initiative.id
    and (coalesce(args->>'name', name), case when args ? 'description' then args->>'description' else description end)
        is distinct from (name, description)
  returning * into v_initiative;
  if not found then
    v_initiative := app_hidden.find_initiative(args->>'id');
  end if;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_update(jsonb) is 'initiatives.update: name, description; INITIATIVE_UPDATED by trigger, none when nothing changes.';

create or replace function app_tools.initiatives_link_project(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  v_project app_public.projects := app_hidden.find_project(args->>'projectId', 'projectId');
begin
  if v_project.initiative_id is distinct from v_initiative.id then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = v_initiative.id where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_link_project(jsonb) is
  'initiatives.linkProject: sets the project''s initiativeId (moving it from another initiative); idempotent; PROJECT_UPDATED by trigger.';

create or replace function app_tools.initiatives_unlink_project(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_project app_public.projects := app_hidden.find_project(args->>'projectId', 'projectId');
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
comment on function app_tools.initiatives_unlink_project(jsonb) is
  'initiatives.unlinkProject: sets the project''s initiativeId to null; idempotent; 409 not_linked when initiativeId names another initiative; PROJECT_UPDATED by trigger.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
