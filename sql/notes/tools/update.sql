-- The notes.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- title (null clears), body, pinned of one of the caller's live notes; archived: 409 note_archived.
create or replace function app_tools.notes_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_note app_public.notes := app_hidden.note_for_write(args->>'id');
  v_title text := case when args ? 'title' then args->>'title' else v_note.title end;
  v_body text := coalesce(args->>'body', v_note.body);
  v_pinned boolean := coalesce((args->>'pinned')::boolean, v_note.pinned);
begin
  if v_note.archived_at is not null then
    raise exception 'Note is archived; archived notes can be restored only in the app' using errcode = 'SV409', detail = 'note_archived';
  end if;
  if (v_title, v_body, v_pinned) is distinct from (v_note.title, v_note.body, v_note.pinned) then
    -- Only the fields given are written.
    update app_public.notes
    set title = case when args ? 'title' then v_title else title end,
        body = case when args->>'body' is not null then v_body else body end,
        pinned = case when args->>'pinned' is not null then v_pinned else pinned end
    where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_update(args jsonb) is 'notes.update: Edit one of your notes: title (null clears), body, pinned. Only the fields given change. Archived notes cannot be edited.';
grant execute on function app_tools.notes_update(args jsonb) to svc_visitor;
