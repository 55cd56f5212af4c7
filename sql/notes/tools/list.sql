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
  v_after record;
begin
  perform app_hidden.require_user();
  v_after := app_hidden.keyset_decode_ts(args->>'cursor', 'notes');
  return app_hidden.page_json(array(
    select (app_hidden.note_json(n), app_hidden.ts_key(n.updated_at), n.id)::app_hidden.page_row
    from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = v_kind
      and (n.archived_at is not null) = v_archived
      and (args->>'pinned' is null or n.pinned = (args->>'pinned')::boolean)
      and (v_after.sort_id is null or (n.updated_at, n.id) < (v_after.sort_key, v_after.sort_id))
    order by n.updated_at desc, n.id desc limit v_limit + 1), v_limit, 'notes');
end
$$;
comment on function app_tools.notes_list(args jsonb) is 'notes.list: Your notes, most recently updated first, paged ({items, nextCursor}). Kind NOTE and not archived by default; archived: true lists archived ones; pinned filters.';
grant execute on function app_tools.notes_list(args jsonb) to svc_visitor;
