-- notes: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_note(p_id text)
 returns app_public.notes
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  -- manage_own_notes hides every other user's note: theirs and unknown ids read the same.
  return app_hidden.found((select n from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id')), 'Note');
end
$$;
comment on function app_hidden.find_note(p_id text) is 'One of the caller''s own notes, else 404 "Note not found" (another user''s note included).';
grant execute on function app_hidden.find_note(p_id text) to svc_visitor;

create or replace function app_hidden.note_for_write(p_id text)
 returns app_public.notes
 language plpgsql
as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_user();
  -- Locked until commit and read once the lock is granted: two edits of one note each write their own fields over
  -- the other's (not over the row both read first), an edit sees an archive that committed while it waited, and
  -- concurrent archives stamp one archivedAt.
  select * into v_note from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id') for no key update;
  return app_hidden.found(v_note, 'Note');
end
$$;
comment on function app_hidden.note_for_write(p_id text) is 'One of the caller''s own notes, locked until commit (its current row), else 404 "Note not found" (another user''s note included). The entry point of every note change.';
grant execute on function app_hidden.note_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.note_json(n app_public.notes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', n.id, 'title', n.title, 'body', n.body, 'pinned', n.pinned, 'kind', n.kind,
                            'journalDate', n.journal_date, 'archived', n.archived_at is not null, 'archivedAt', n.archived_at,
                            'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.note_json(n app_public.notes) is 'Note (spec 2.14): id, title, body, pinned, kind, journalDate, archived state.';
grant execute on function app_hidden.note_json(n app_public.notes) to svc_visitor;

create or replace function app_public.notes_restore(note_id uuid)
 returns app_public.notes
 language plpgsql
as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  update app_public.notes n set archived_at = null
  where n.id = note_id and n.archived_at is not null
  returning * into v_note;
  if v_note.id is null then
    select * into v_note from app_public.notes n where n.id = note_id;  -- not archived: nothing to do
  end if;
  if v_note.id is null then
    raise exception 'Note not found' using errcode = 'SV404', column = 'noteId';
  end if;
  return v_note;
end
$$;
comment on function app_public.notes_restore(note_id uuid) is '@arg noteId One of your archived notes (another person''s note is Note not found).
@result The note, restored (as it was when it was not archived).
Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';
grant execute on function app_public.notes_restore(note_id uuid) to svc_visitor;
