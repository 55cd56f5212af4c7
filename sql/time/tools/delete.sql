-- The time.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes one of the caller's entries (a running timer is discarded).
create or replace function app_tools.time_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  perform app_hidden.require_user();
  v_entry := app_hidden.own_time_entry_for_write(args->>'id');
  delete from app_public.time_entries where id = v_entry.id;
  return jsonb_build_object('id', v_entry.id, 'deleted', true);
end
$$;
comment on function app_tools.time_delete(args jsonb) is 'time.delete: Delete one of your time entries (a running timer is discarded). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_delete(args jsonb) to svc_visitor;
