-- The notes.listJournal tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's live journal entries, newest day first, between from and to (inclusive), limit default 30,
-- keyset-paged.
create or replace function app_tools.notes_list_journal(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 30);
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
  v_after record;
begin
  perform app_hidden.require_user();
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  v_after := app_hidden.keyset_decode_date(args->>'cursor', 'journal');
  return app_hidden.page_json(array(
    select (app_hidden.note_json(n), to_char(n.journal_date, 'YYYY-MM-DD'), n.id)::app_hidden.page_row
    from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = 'JOURNAL' and n.archived_at is null
      and (v_from is null or n.journal_date >= v_from)
      and (v_to is null or n.journal_date <= v_to)
      and (v_after.sort_id is null or (n.journal_date, n.id) < (v_after.sort_key, v_after.sort_id))
    order by n.journal_date desc, n.id desc limit v_limit + 1), v_limit, 'journal');
end
$$;
comment on function app_tools.notes_list_journal(args jsonb) is 'notes.listJournal: Your journal entries, newest day first, between from and to (inclusive dates), paged ({items, nextCursor}); limit default 30.';
grant execute on function app_tools.notes_list_journal(args jsonb) to svc_visitor;
