-- The notes.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one of the caller's own notes (archived included).
create or replace function app_tools.notes_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.note_json(app_hidden.find_note(args->>'id'));
end
$$;
comment on function app_tools.notes_get(args jsonb) is 'notes.get: One of your own notes by id (archived too).';
grant execute on function app_tools.notes_get(args jsonb) to svc_visitor;
