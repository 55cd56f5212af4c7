-- The time.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one time entry as time.list shows it: anyone's entry on a live issue the key can see (a narrowed key's own
-- entries elsewhere are for its timer tools only); otherwise 404 Time entry not found.
create or replace function app_tools.time_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
begin
  perform app_hidden.require_time_tracking();
  -- time.list's rule, from time.list's own finder: within the narrowing, never on a deleted issue.
  return app_hidden.time_entry_json(app_hidden.found(
    (select e from app_hidden.time_entries_filtered(jsonb_build_object('id', v_id)) e where e.id = v_id), 'Time entry'));
end
$$;
grant execute on function app_tools.time_get(args jsonb) to svc_visitor;
comment on function app_tools.time_get(args jsonb) is 'time.get: One time entry by id, as time.list shows it (anyone''s, on issues this key can see). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
