-- The notes.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a private note (kind NOTE) or a journal entry (JOURNAL, journalDate default today in the caller's zone; one
-- per day: 409 journal_exists, or journal_archived when the day's entry is archived).
create or replace function app_tools.notes_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
  end if;
  -- One statement decides whether the day has its entry (as notes.todayJournal): a check before the insert let two
  -- calls at once both pass it, and the loser got the unique violation's generic 409 rather than journal_exists.
  insert into app_public.notes (workspace_id, user_id, title, body, pinned, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, args->>'title', args->>'body',
          coalesce((args->>'pinned')::boolean, false), v_kind, v_date)
  on conflict (workspace_id, user_id, journal_date) where kind = 'JOURNAL' do nothing
  returning * into v_note;
  if v_note.id is null then
    -- The day's entry archived: notes.update refuses it too (note_archived), so say so and name the way out.
    select * into v_note from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = v_user
      and n.kind = 'JOURNAL' and n.journal_date = v_date;
    if v_note.archived_at is not null then
      raise exception 'The journal entry for % (note %) is archived: restore it in the app (GraphQL notesRestore) to write in it; no MCP tool unarchives notes', v_date, v_note.id
        using errcode = 'SV409', detail = 'journal_archived';
    end if;
    raise exception 'There is already a journal entry for %; use notes.update (or notes.todayJournal)', v_date
      using errcode = 'SV409', detail = 'journal_exists';
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_create(args jsonb) is 'notes.create: Create a private markdown note for yourself (the key''s user). kind JOURNAL makes a daily journal entry for journalDate (default today); one per day.';
grant execute on function app_tools.notes_create(args jsonb) to svc_visitor;
