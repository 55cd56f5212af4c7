-- The notes.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive of one of the caller's notes; idempotent; no MCP unarchive.
create or replace function app_tools.notes_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_note app_public.notes := app_hidden.note_for_write(args->>'id');
begin
  if v_note.archived_at is null then
    update app_public.notes set archived_at = now() where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_archive(args jsonb) is 'notes.archive: Archive one of your notes (soft; restoring is only possible in the app). Idempotent.';
grant execute on function app_tools.notes_archive(args jsonb) to svc_visitor;
