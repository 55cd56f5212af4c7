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
