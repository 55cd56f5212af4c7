-- The notes.todayJournal tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- get-or-create the caller's JOURNAL entry for today in the given zone (else users.timezone, default UTC);
-- idempotent, created says which.
create or replace function app_tools.notes_today_journal(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
comment on function app_tools.notes_today_journal(args jsonb) is 'notes.todayJournal: Get or create today''s journal entry for you. "Today" is in timezone (IANA name such as Europe/Paris) if given, else your user time zone (default UTC). Idempotent; created tells whether it was just made.';
grant execute on function app_tools.notes_today_journal(args jsonb) to svc_visitor;
