--! Previous: sha1:0837c381eee8d429807ece210b44c6c4599e178e
--! Hash: sha1:edb40a4d1f09703698ae4ea101ca3a963a86a0b7
--! Message: planning and personal tools: projects, initiatives, cycles, relations, pins, notes, time

--! split: 1-current.sql
-- Enter migration here

--! split: 30-planning-foundation.sql
-- Planning and personal tools (projects, initiatives, cycles, relations, pins, notes, time):
-- shared helpers, events for initiatives and cycles, and event visibility for narrowed keys.
-- Re-runnable while current: create or replace / drop if exists throughout.

-- Helpers -------------------------------------------------------------------------------------

create or replace function app_hidden.require_user() returns uuid
language plpgsql stable as $$
declare v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user' using errcode = 'SV403', detail = 'user_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_user() is
  'The calling key''s user (personal records: notes, pins, time); 403 user_required for a key without one.';

create or replace function app_hidden.require_issues_unrestricted(p_what text) returns void
language plpgsql stable as $$
begin
  if not app_hidden.issues_unrestricted() then
    raise exception '% changes the whole workspace; it needs a key without project or label narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_issues_unrestricted(text) is
  'Workspace-wide planning moves (creating, re-dating and rolling over cycles) need a key that sees every issue: 403 narrowing otherwise.';

create or replace function app_hidden.utc_today() returns date
language sql stable parallel safe as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';

create or replace function app_hidden.ts_key(p_ts timestamptz) returns text
language sql stable parallel safe as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(timestamptz) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';

create or replace function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) returns text
language sql immutable parallel safe as $$ select app_hidden.cursor_encode(p_prefix || ':' || p_sort || '|' || p_id::text) $$;
comment on function app_hidden.keyset_encode(text, text, uuid) is 'Opaque keyset cursor for (sort key, id) ordered lists.';

create or replace function app_hidden.keyset_decode(p_cursor text, p_prefix text, out sort_key text, out sort_id uuid)
language plpgsql immutable as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix);
begin
  if length(v_token) < 38 or substr(v_token, length(v_token) - 36, 1) <> '|' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
  end if;
  sort_key := substr(v_token, 1, length(v_token) - 37);
  sort_id := app_hidden.parse_uuid(right(v_token, 36), 'cursor');
end
$$;
comment on function app_hidden.keyset_decode(text, text) is 'Reads a cursor made by keyset_encode; anything else is a 400 on field cursor.';

create or replace function app_hidden.issue_ref_json(i app_public.issues) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(app_public.issues) is 'A short issue reference (id, key, number, title, status) embedded in relations, pins and time entries.';

-- Events for records the spec gives no kind: initiatives and cycles (docs/decisions.md) ----------

create or replace function app_private.tg_initiatives__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_CREATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name));
    return null;
  end if;
  if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
  if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
  if new.archived_at is distinct from old.archived_at then v_changed := array_append(v_changed, 'archived'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_UPDATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_initiatives__events() is
  'INITIATIVE_CREATED; INITIATIVE_UPDATED when name, description or archived state change (kinds beyond spec 6.1, see docs/decisions.md).';
drop trigger if exists _800_events on app_public.initiatives;
create trigger _800_events after insert or update on app_public.initiatives
  for each row execute function app_private.tg_initiatives__events();

create or replace function app_private.tg_cycles__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CYCLE_CREATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'startsOn', new.starts_on,
                         'endsOn', new.ends_on, 'status', new.status));
    return null;
  end if;
  if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
  if new.starts_on is distinct from old.starts_on then v_changed := array_append(v_changed, 'startsOn'); end if;
  if new.ends_on is distinct from old.ends_on then v_changed := array_append(v_changed, 'endsOn'); end if;
  if new.status is distinct from old.status then v_changed := array_append(v_changed, 'status'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'CYCLE_UPDATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'status', new.status, 'previousStatus', old.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_cycles__events() is
  'CYCLE_CREATED; CYCLE_UPDATED on rename, re-dating and status moves (rollover completes/activates). Kinds beyond spec 6.1, see docs/decisions.md.';
drop trigger if exists _800_events on app_public.cycles;
create trigger _800_events after insert or update on app_public.cycles
  for each row execute function app_private.tg_cycles__events();

-- Event visibility: project and initiative events follow the key's project / initiative narrowing,
-- as issue and comment events already follow issue narrowing.
drop policy if exists select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and case subject_type
           when 'issue' then (select app_hidden.issues_unrestricted())
                             or exists (select 1 from app_public.issues i where i.id = activity_events.subject_id)
           when 'comment' then (select app_hidden.issues_unrestricted())
                               or exists (select 1 from app_public.comments c where c.id = activity_events.subject_id)
           when 'project' then (select cardinality(app_hidden.narrowed_project_ids())) = 0
                               or subject_id = any((select app_hidden.narrowed_project_ids())::uuid[])
           when 'initiative' then (select cardinality(app_hidden.narrowed_initiative_ids())) = 0
                                  or subject_id = any((select app_hidden.narrowed_initiative_ids())::uuid[])
           else true
         end);
comment on policy select_in_workspace on app_public.activity_events is
  'Events of the caller''s workspace; a narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 31-projects-initiatives.sql
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

--! split: 32-cycles.sql
-- cycles.* (spec 4.4, shown as Sprints). Scopes READ_ISSUES / WRITE_ISSUES (docs/decisions.md).
-- current = the ACTIVE cycle (at most one per workspace); upcoming = the earliest PLANNED one.
-- Moving an issue in or out of a cycle writes ISSUE_UPDATED (changes cycleId) through the issues trigger;
-- cycle rows write CYCLE_CREATED / CYCLE_UPDATED (30-planning-foundation.sql).

create or replace function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean default false) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', c.id, 'number', c.number, 'name', c.name, 'startsOn', c.starts_on, 'endsOn', c.ends_on, 'status', c.status,
    'issueCount', n.total, 'openIssueCount', n.open, 'doneIssueCount', n.done,
    'createdAt', c.created_at, 'updatedAt', c.updated_at)
  || case when p_with_issues then jsonb_build_object('issues', coalesce(
       (select jsonb_agg(app_hidden.issue_json(i) order by i.number)
        from app_public.issues i where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null), '[]'))
     else '{}'::jsonb end
  from (select count(*) as total,
               count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
               count(*) filter (where s.category = 'DONE') as done
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null) n
$$;
comment on function app_hidden.cycle_json(app_public.cycles, boolean) is
  'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the issues themselves (lean).';

create or replace function app_hidden.find_cycle(p_id text, p_field text default 'id') returns app_public.cycles
language plpgsql stable as $$
declare v_cycle app_public.cycles;
begin
  select * into v_cycle from app_public.cycles
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_cycle.id is null then
    raise exception 'Cycle not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_cycle;
end
$$;
comment on function app_hidden.find_cycle(text, text) is 'A cycle of the caller''s workspace, else 404 Cycle not found.';

create or replace function app_hidden.upcoming_cycle() returns app_public.cycles
language sql stable as $$
  select * from app_public.cycles
  where workspace_id = app_hidden.current_workspace_id() and status = 'PLANNED'
  order by starts_on, number limit 1
$$;
comment on function app_hidden.upcoming_cycle() is 'The upcoming cycle: the earliest PLANNED one (NULL row when none).';

create or replace function app_hidden.require_open_cycle(p_cycle app_public.cycles) returns void
language plpgsql stable as $$
begin
  if p_cycle.status in ('COMPLETED', 'CANCELED') then
    raise exception 'Cycle % is %; issues can be planned only into PLANNED or ACTIVE cycles', p_cycle.name, lower(p_cycle.status)
      using errcode = 'SV409', detail = 'cycle_closed';
  end if;
end
$$;
comment on function app_hidden.require_open_cycle(app_public.cycles) is 'Issues may be added only to PLANNED or ACTIVE cycles: 409 cycle_closed otherwise.';

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) returns void
language plpgsql stable as $$
declare v_other app_public.cycles;
begin
  if p_ends < p_starts then
    raise exception 'endsOn must be on or after startsOn' using errcode = 'SV400', column = 'endsOn';
  end if;
  select * into v_other from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.id is distinct from p_cycle_id
    and daterange(c.starts_on, c.ends_on, '[]') && daterange(p_starts, p_ends, '[]')
  order by c.starts_on limit 1;
  if v_other.id is not null then
    raise exception 'The dates overlap % (% to %)', v_other.name, v_other.starts_on, v_other.ends_on
      using errcode = 'SV409', detail = 'cycle_overlap';
  end if;
end
$$;
comment on function app_hidden.check_cycle_dates(uuid, date, date) is
  'Cycle dates: endsOn >= startsOn (400) and no overlap with another non-canceled cycle (409 cycle_overlap).';

create or replace function app_hidden.lock_cycles() returns app_public.workspaces
language sql volatile as $$
  select pg_advisory_xact_lock(hashtextextended('svc.cycles:' || app_hidden.current_workspace_id()::text, 0));
  select * from app_public.workspaces where id = app_hidden.current_workspace_id();
$$;
comment on function app_hidden.lock_cycles() is
  'Serialises cycle scheduling within a workspace (numbers, dates, rollover) for the transaction; returns the workspace settings.';

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text)
returns app_public.cycles
language plpgsql volatile as $$
declare
  v_number int;
  v_cycle app_public.cycles;
begin
  select coalesce(max(number), 0) + 1 into v_number from app_public.cycles where workspace_id = p_ws.id;
  insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on, status)
  values (p_ws.id, v_number, coalesce(p_name, 'Sprint ' || v_number), p_starts,
          coalesce(p_ends, p_starts + p_ws.cycle_length_days - 1), p_status)
  returning * into v_cycle;
  return v_cycle;
end
$$;
comment on function app_hidden.insert_cycle(app_public.workspaces, text, date, date, text) is
  'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';

create or replace function app_hidden.next_cycle_start(p_ws app_public.workspaces) returns date
language sql stable as $$
  select greatest(app_hidden.utc_today(),
                  coalesce((select max(c.ends_on) + 1 + p_ws.cycle_cooldown_days
                            from app_public.cycles c where c.workspace_id = p_ws.id and c.status <> 'CANCELED'),
                           app_hidden.utc_today()))
$$;
comment on function app_hidden.next_cycle_start(app_public.workspaces) is
  'Where the next cycle starts by default: after the last non-canceled cycle plus cycleCooldownDays, never before today (UTC).';

-- Tools -----------------------------------------------------------------------------------------

create or replace function app_tools.cycles_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'cycles') k;
  end if;
  with page as (
    select c as r from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or c.status = args->>'status')
      and (v_after_date is null or (c.starts_on, c.id) < (v_after_date, v_after_id))
    order by c.starts_on desc, c.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).starts_on desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.cycle_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('cycles', to_char((r).starts_on, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.cycles_list(jsonb) is 'cycles.list: cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.';

create or replace function app_tools.cycles_get(args jsonb) returns jsonb
language sql stable as $$ select app_hidden.cycle_json(app_hidden.find_cycle(args->>'id'), true) $$;
comment on function app_tools.cycles_get(jsonb) is 'cycles.get: one cycle with its issues (those the key can see).';

create or replace function app_tools.cycles_current(args jsonb) returns jsonb
language sql stable as $$
  select app_hidden.cycle_json(c, true) from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status = 'ACTIVE'
$$;
comment on function app_tools.cycles_current(jsonb) is 'cycles.current: the ACTIVE cycle with its issues, or null.';

create or replace function app_tools.cycles_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends);
  if coalesce((args->>'activate')::boolean, false) then
    if exists (select 1 from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE') then
      raise exception 'Another cycle is active; finish it with cycles.rollover' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(jsonb) is
  'cycles.create: a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays / cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.';

create or replace function app_tools.cycles_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(jsonb) is 'cycles.update: name, startsOn, endsOn (no overlaps); CYCLE_UPDATED by trigger, none when nothing changes.';

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false) returns uuid[]
language plpgsql volatile as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(jsonb, text, boolean) is
  'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';

create or replace function app_tools.cycles_plan(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles;
  v_add uuid[] := app_hidden.resolve_issue_list(args->'add', 'add', true);
  v_remove uuid[] := app_hidden.resolve_issue_list(args->'remove', 'remove', true);
  v_added jsonb;
  v_removed jsonb;
begin
  if args->>'cycleId' is not null then
    v_cycle := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  else
    v_cycle := app_hidden.upcoming_cycle();
    if v_cycle.id is null then
      raise exception 'There is no upcoming (PLANNED) cycle; create one with cycles.create or pass cycleId'
        using errcode = 'SV409', detail = 'no_upcoming_cycle';
    end if;
  end if;
  perform app_hidden.require_open_cycle(v_cycle);
  if cardinality(v_add) + cardinality(v_remove) = 0 then
    raise exception 'give issues to add or remove' using errcode = 'SV400', column = 'add';
  end if;
  if v_add && v_remove then
    raise exception 'an issue cannot be both added and removed' using errcode = 'SV400', column = 'remove';
  end if;
  with moved as (
    update app_public.issues set cycle_id = v_cycle.id
    where id = any(v_add) and cycle_id is distinct from v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_added from moved;
  with moved as (
    update app_public.issues set cycle_id = null
    where id = any(v_remove) and cycle_id = v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_removed from moved;
  return jsonb_build_object('cycle', app_hidden.cycle_json(v_cycle, true), 'added', v_added, 'removed', v_removed);
end
$$;
comment on function app_tools.cycles_plan(jsonb) is
  'cycles.plan: bulk add/remove issues for the upcoming cycle (or cycleId), all or nothing; added/removed list the issues that actually moved (one ISSUE_UPDATED each, by trigger).';

create or replace function app_tools.cycles_add_issue(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  perform app_hidden.require_open_cycle(v_cycle);
  if v_issue.cycle_id is distinct from v_cycle.id then
    update app_public.issues set cycle_id = v_cycle.id where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_add_issue(jsonb) is
  'cycles.addIssue: puts an issue into a PLANNED or ACTIVE cycle (moving it from another); idempotent; ISSUE_UPDATED (cycleId) by trigger.';

create or replace function app_tools.cycles_remove_issue(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  if v_issue.cycle_id = v_cycle.id then
    update app_public.issues set cycle_id = null where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_remove_issue(jsonb) is
  'cycles.removeIssue: takes an issue out of the cycle; an issue not in it is left as is (idempotent); ISSUE_UPDATED (cycleId) by trigger.';

create or replace function app_tools.cycles_rollover(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_ws app_public.workspaces;
  v_current app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  select * into v_current from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE';
  v_next := app_hidden.upcoming_cycle();
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_current.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_current.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    update app_public.cycles set status = 'COMPLETED' where id = v_current.id returning * into v_current;
  end if;
  update app_public.cycles set status = 'ACTIVE' where id = v_next.id returning * into v_next;
  return jsonb_build_object(
    'completed', case when v_current.id is null then null else app_hidden.cycle_json(v_current) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(jsonb) is
  'cycles.rollover: moves unfinished issues (status category not DONE/CANCELED) from the ACTIVE cycle to the upcoming one (created from cycleLengthDays/cycleCooldownDays when none), completes the current and activates the next. Needs an unnarrowed key.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 33-relations.sql
-- relations.* (spec 2.5, 4.4). Scopes READ_ISSUES / WRITE_ISSUES. Both issues must be visible to the key.
-- Storage: one row per fact. BLOCKED_BY A→B is stored as B BLOCKS A; RELATES_TO is symmetric.
-- ISSUE_UPDATED (changes relations) on both issues is written by tg_issue_relations__events.

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', (select app_hidden.issue_ref_json(i) from app_public.issues i
              where i.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(app_public.issue_relations, uuid) is
  'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end.';

create or replace function app_tools.relations_add(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(jsonb) is
  'relations.add: links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409.';

create or replace function app_tools.relations_remove(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_rel app_public.issue_relations;
begin
  delete from app_public.issue_relations
  where id = app_hidden.parse_uuid(args->>'id', 'id') and workspace_id = app_hidden.current_workspace_id()
  returning * into v_rel;
  if v_rel.id is null then
    raise exception 'Relation not found' using errcode = 'SV404', column = 'id';
  end if;
  return jsonb_build_object('id', v_rel.id, 'removed', true, 'kind', v_rel.kind,
                            'fromIssueId', v_rel.from_issue_id, 'toIssueId', v_rel.to_issue_id);
end
$$;
comment on function app_tools.relations_remove(jsonb) is
  'relations.remove: deletes a relation whose both issues the key can see (else 404); ISSUE_UPDATED on both issues by trigger.';

create or replace function app_tools.relations_list_for_issue(args jsonb) returns jsonb
language plpgsql stable as $$
declare v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
begin
  return coalesce((
    select jsonb_agg(t.v order by t.created_at, t.id)
    from (select app_hidden.relation_view(r, v_issue.id) as v, r.created_at, r.id
          from app_public.issue_relations r
          where r.workspace_id = v_issue.workspace_id
            and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)
            and exists (select 1 from app_public.issues o
                        where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end
                          and o.deleted_at is null)) t
    where args->>'kind' is null or t.v->>'kind' = args->>'kind'), '[]');
end
$$;
comment on function app_tools.relations_list_for_issue(jsonb) is
  'relations.listForIssue: inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links to issues the key cannot see or that are deleted are left out.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 34-pins-notes.sql
-- pins.* (issue pins, spec 4.8) and notes.* (spec 2.14, 3.5, 4.8). Personal records of the key's user:
-- RLS (manage_own_pins, manage_own_notes) keeps them private; they write no ActivityEvent (docs/decisions.md).

-- pins ------------------------------------------------------------------------------------------

create or replace function app_hidden.pins_json() returns jsonb
language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('issueId', i.id, 'position', p.position, 'pinnedAt', p.created_at,
                                               'issue', app_hidden.issue_json(i))
                            order by p.position, p.created_at, p.id), '[]')
  from app_public.pins p
  join app_public.issues i on i.id = p.target_id and i.deleted_at is null
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
    and p.target_type = 'ISSUE'
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see).';

create or replace function app_tools.pins_list(args jsonb) returns jsonb
language plpgsql stable as $$
begin
  perform app_hidden.require_user();
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_list(jsonb) is 'pins.list: the caller''s pinned issues, in pin order.';

create or replace function app_tools.pins_set(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid := app_hidden.require_user();
  v_ids uuid[] := app_hidden.resolve_issue_list(args->'issueIds', 'issueIds');
begin
  -- Pins on issues outside a narrowed key's reach are not this key's to change: they stay.
  delete from app_public.pins p
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = v_user and p.target_type = 'ISSUE'
    and not (p.target_id = any(v_ids))
    and (app_hidden.issues_unrestricted() or exists (select 1 from app_public.issues i where i.id = p.target_id));
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  select app_hidden.current_workspace_id(), v_user, 'ISSUE', t.id, t.ord - 1
  from unnest(v_ids) with ordinality t(id, ord)
  on conflict (workspace_id, user_id, target_type, target_id)
  do update set position = excluded.position where pins.position is distinct from excluded.position;
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_set(jsonb) is
  'pins.set: makes the caller''s pinned issues exactly this ordered list (idempotent); other pin types and pins outside a narrowed key''s reach are untouched.';

-- notes -----------------------------------------------------------------------------------------

create or replace function app_hidden.note_json(n app_public.notes) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', n.id, 'title', n.title, 'body', n.body, 'pinned', n.pinned, 'kind', n.kind,
                            'journalDate', n.journal_date, 'archived', n.archived_at is not null, 'archivedAt', n.archived_at,
                            'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.note_json(app_public.notes) is 'Note (spec 2.14): id, title, body, pinned, kind, journalDate, archived state.';

create or replace function app_hidden.find_note(p_id text) returns app_public.notes
language plpgsql stable as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_user();
  -- manage_own_notes hides every other user's note: theirs and unknown ids read the same.
  select * into v_note from app_public.notes where id = app_hidden.parse_uuid(p_id, 'id');
  if v_note.id is null then
    raise exception 'Note not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_note;
end
$$;
comment on function app_hidden.find_note(text) is 'One of the caller''s own notes, else 404 "Note not found" (another user''s note included).';

create or replace function app_hidden.user_today(p_timezone text) returns date
language plpgsql stable as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';

create or replace function app_tools.notes_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid := app_hidden.require_user();
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_date date;
  v_note app_public.notes;
begin
  if v_kind = 'NOTE' and args->>'journalDate' is not null then
    raise exception 'journalDate is only for JOURNAL notes' using errcode = 'SV400', column = 'journalDate';
  end if;
  if v_kind = 'JOURNAL' then
    v_date := coalesce((args->>'journalDate')::date, app_hidden.user_today(null));
    if exists (select 1 from app_public.notes n where n.workspace_id = app_hidden.current_workspace_id()
               and n.user_id = v_user and n.kind = 'JOURNAL' and n.journal_date = v_date) then
      raise exception 'There is already a journal entry for %; use notes.update (or notes.todayJournal)', v_date
        using errcode = 'SV409', detail = 'journal_exists';
    end if;
  end if;
  insert into app_public.notes (workspace_id, user_id, title, body, pinned, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, args->>'title', args->>'body',
          coalesce((args->>'pinned')::boolean, false), v_kind, v_date)
  returning * into v_note;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_create(jsonb) is
  'notes.create: a private note (kind NOTE) or a journal entry (JOURNAL, journalDate default today in the caller''s zone; one per day: 409 journal_exists).';

create or replace function app_tools.notes_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_archived boolean := coalesce((args->>'archived')::boolean, false);
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_user();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'notes') k;
  end if;
  with page as (
    select n as r from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = v_kind
      and (n.archived_at is not null) = v_archived
      and (args->>'pinned' is null or n.pinned = (args->>'pinned')::boolean)
      and (v_after_ts is null or (n.updated_at, n.id) < (v_after_ts, v_after_id))
    order by n.updated_at desc, n.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).updated_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.note_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('notes', app_hidden.ts_key((r).updated_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.notes_list(jsonb) is
  'notes.list: the caller''s notes, most recently updated first, keyset-paged; kind NOTE and live (not archived) by default; pinned filter.';

create or replace function app_tools.notes_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_note app_public.notes := app_hidden.find_note(args->>'id');
  v_title text := case when args ? 'title' then args->>'title' else v_note.title end;
  v_body text := coalesce(args->>'body', v_note.body);
  v_pinned boolean := coalesce((args->>'pinned')::boolean, v_note.pinned);
begin
  if v_note.archived_at is not null then
    raise exception 'Note is archived; archived notes can be restored only in the app' using errcode = 'SV409', detail = 'note_archived';
  end if;
  if (v_title, v_body, v_pinned) is distinct from (v_note.title, v_note.body, v_note.pinned) then
    update app_public.notes set title = v_title, body = v_body, pinned = v_pinned where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_update(jsonb) is 'notes.update: title (null clears), body, pinned of one of the caller''s live notes; archived: 409 note_archived.';

create or replace function app_tools.notes_archive(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_note app_public.notes := app_hidden.find_note(args->>'id');
begin
  if v_note.archived_at is null then
    update app_public.notes set archived_at = now() where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_archive(jsonb) is 'notes.archive: soft archive of one of the caller''s notes; idempotent; no MCP unarchive.';

create or replace function app_tools.notes_today_journal(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid := app_hidden.require_user();
  v_date date := app_hidden.user_today(args->>'timezone');
  v_note app_public.notes;
  v_created boolean := false;
begin
  insert into app_public.notes (workspace_id, user_id, body, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, '', 'JOURNAL', v_date)
  on conflict (workspace_id, user_id, journal_date) where kind = 'JOURNAL' do nothing
  returning * into v_note;
  v_created := v_note.id is not null;
  if not v_created then
    select * into v_note from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = v_user
      and n.kind = 'JOURNAL' and n.journal_date = v_date;
  end if;
  return app_hidden.note_json(v_note) || jsonb_build_object('created', v_created);
end
$$;
comment on function app_tools.notes_today_journal(jsonb) is
  'notes.todayJournal: get-or-create the caller''s JOURNAL entry for today in the given zone (else users.timezone, default UTC); idempotent, created says which.';

create or replace function app_tools.notes_list_journal(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 30);
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_user();
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'journal') k;
  end if;
  with page as (
    select n as r from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = 'JOURNAL' and n.archived_at is null
      and (v_from is null or n.journal_date >= v_from)
      and (v_to is null or n.journal_date <= v_to)
      and (v_after_date is null or (n.journal_date, n.id) < (v_after_date, v_after_id))
    order by n.journal_date desc, n.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).journal_date desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.note_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('journal', to_char((r).journal_date, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.notes_list_journal(jsonb) is
  'notes.listJournal: the caller''s live journal entries, newest day first, between from and to (inclusive), limit default 30, keyset-paged.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 35-time.sql
-- time.* (spec 2.7, 4.6). Scopes READ_ISSUES / WRITE_ISSUES. Every tool: 403 time_tracking_disabled when
-- the workspace has time tracking off. One running timer per user per workspace (time_entries_one_running);
-- time.start stops a running one first. Entries write no ActivityEvent (personal records, docs/decisions.md).
-- Days (list ranges, summary byDay) are UTC dates of startedAt.

-- A user always sees their own entries (their running timer included), even through a narrowed key;
-- everyone's entries on visible issues stay visible through select_on_visible_issues.
drop policy if exists select_own_time on app_public.time_entries;
create policy select_own_time on app_public.time_entries for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and user_id = (select app_hidden.current_user_id()));
comment on policy select_own_time on app_public.time_entries is
  'A user sees their own time entries (so time.running / time.stop find their timer whatever key they use).';

create or replace function app_hidden.require_time_tracking() returns void
language plpgsql stable as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';

create or replace function app_hidden.time_entry_json(e app_public.time_entries) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', e.issue_id,
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(app_public.time_entries) is
  'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';

create or replace function app_hidden.stop_running_timer(p_user uuid) returns app_public.time_entries
language sql volatile as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = greatest(0, round(extract(epoch from now() - started_at) / 60))::int
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';

create or replace function app_tools.time_start(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_running app_public.time_entries;
  v_stopped app_public.time_entries;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  select * into v_running from app_public.time_entries
  where workspace_id = v_issue.workspace_id and user_id = v_user and duration_min is null;
  if v_running.issue_id = v_issue.id then
    return jsonb_build_object('entry', app_hidden.time_entry_json(v_running), 'stopped', null);
  end if;
  if v_running.id is not null then
    v_stopped := app_hidden.stop_running_timer(v_user);
  end if;
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, note)
  values (v_issue.workspace_id, v_issue.id, v_user, now(), args->>'note')
  returning * into v_entry;
  return jsonb_build_object('entry', app_hidden.time_entry_json(v_entry),
                            'stopped', case when v_stopped.id is null then null else app_hidden.time_entry_json(v_stopped) end);
end
$$;
comment on function app_tools.time_start(jsonb) is
  'time.start: starts the caller''s timer on a visible issue, stopping a running one first (returned as stopped); already running on that issue: unchanged.';

create or replace function app_tools.time_stop(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_entry := app_hidden.stop_running_timer(app_hidden.require_user());
  if v_entry.id is null then
    raise exception 'No timer is running' using errcode = 'SV409', detail = 'no_running_timer';
  end if;
  if args ? 'note' then
    update app_public.time_entries set note = args->>'note' where id = v_entry.id returning * into v_entry;
  end if;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_stop(jsonb) is 'time.stop: stops the caller''s running timer and returns the finished entry; 409 no_running_timer when none runs.';

create or replace function app_tools.time_log(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_minutes int := (args->>'durationMin')::int;
  v_started timestamptz;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_started := coalesce((args->>'startedAt')::timestamptz, now() - make_interval(mins => v_minutes));
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note)
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, v_started + make_interval(mins => v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(jsonb) is 'time.log: a finished manual entry of durationMin on a visible issue (startedAt defaults to now minus the duration).';

create or replace function app_hidden.time_entries_filtered(args jsonb) returns setof app_public.time_entries
language plpgsql stable as $$
declare
  v_issue_id uuid;
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
begin
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return query
    select e.* from app_public.time_entries e
    where e.workspace_id = app_hidden.current_workspace_id()
      -- Lists follow issue narrowing even for the caller's own entries (select_own_time is for timers).
      and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(jsonb) is
  'Time entries on issues the key can see (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';

create or replace function app_tools.time_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_time_tracking();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'time') k;
  end if;
  with page as (
    select e as r from app_hidden.time_entries_filtered(args) e
    where v_after_ts is null or (e.started_at, e.id) < (v_after_ts, v_after_id)
    order by e.started_at desc, e.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.time_entry_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('time', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.time_list(jsonb) is
  'time.list: time entries on issues the key can see (everyone''s), newest start first, keyset-paged; filters userId, issueId, from/to.';

create or replace function app_tools.time_summary(args jsonb) returns jsonb
language plpgsql stable as $$
begin
  perform app_hidden.require_time_tracking();
  return (
    with e as (select * from app_hidden.time_entries_filtered(args) where duration_min is not null)
    select jsonb_build_object(
      'from', args->'from', 'to', args->'to',
      'totalMin', coalesce((select sum(duration_min) from e), 0),
      'entryCount', (select count(*) from e),
      'byUser', coalesce((
        select jsonb_agg(jsonb_build_object('userId', t.user_id, 'name', t.name, 'totalMin', t.total) order by t.total desc, t.user_id)
        from (select e.user_id, (select coalesce(nullif(u.name, ''), u.email) from app_public.users u where u.id = e.user_id) as name,
                     sum(e.duration_min) as total
              from e group by e.user_id) t), '[]'),
      'byIssue', coalesce((
        select jsonb_agg(jsonb_build_object('issueId', t.issue_id, 'key', i.key, 'title', i.title, 'totalMin', t.total)
                         order by t.total desc, t.issue_id)
        from (select e.issue_id, sum(e.duration_min) as total from e group by e.issue_id) t
        left join app_public.issues i on i.id = t.issue_id), '[]'),
      'byDay', coalesce((
        select jsonb_agg(jsonb_build_object('day', t.day, 'totalMin', t.total) order by t.day)
        from (select (e.started_at at time zone 'UTC')::date as day, sum(e.duration_min) as total from e group by 1) t), '[]')));
end
$$;
comment on function app_tools.time_summary(jsonb) is
  'time.summary: minutes of finished entries (running timers excluded) in total, by user, by issue and by UTC day, with the time.list filters.';

create or replace function app_tools.time_running(args jsonb) returns jsonb
language plpgsql stable as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  select * into v_entry from app_public.time_entries
  where workspace_id = app_hidden.current_workspace_id() and user_id = app_hidden.require_user() and duration_min is null;
  return case when v_entry.id is null then null else app_hidden.time_entry_json(v_entry) end;
end
$$;
comment on function app_tools.time_running(jsonb) is 'time.running: the caller''s running timer, or null.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
