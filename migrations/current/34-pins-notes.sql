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
