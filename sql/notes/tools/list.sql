-- The notes.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's notes, most recently updated first, keyset-paged; kind NOTE and live (not archived) by
-- default; pinned filter.
create or replace function app_tools.notes_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
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
comment on function app_tools.notes_list(args jsonb) is 'notes.list: Your notes, most recently updated first, paged ({items, nextCursor}). Kind NOTE and not archived by default; archived: true lists archived ones; pinned filters.';
grant execute on function app_tools.notes_list(args jsonb) to svc_visitor;
