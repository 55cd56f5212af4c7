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
comment on function app_tools.notes_list_journal(args jsonb) is 'notes.listJournal: Your journal entries, newest day first, between from and to (inclusive dates), paged ({items, nextCursor}); limit default 30.';
grant execute on function app_tools.notes_list_journal(args jsonb) to svc_visitor;
