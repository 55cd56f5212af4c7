-- The time.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- time entries on issues the key can see (everyone's), newest start first, keyset-paged; filters userId,
-- issueId, from/to.
create or replace function app_tools.time_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record;
begin
  perform app_hidden.require_time_tracking();
  v_after := app_hidden.keyset_decode_ts(args->>'cursor', 'time');
  return app_hidden.page_json(array(
    select (app_hidden.time_entry_json(e), app_hidden.ts_key(e.started_at), e.id)::app_hidden.page_row
    from app_hidden.time_entries_filtered(args) e
    where v_after.sort_id is null or (e.started_at, e.id) < (v_after.sort_key, v_after.sort_id)
    order by e.started_at desc, e.id desc limit v_limit + 1), v_limit, 'time');
end
$$;
comment on function app_tools.time_list(args jsonb) is 'time.list: Time entries on issues this key can see, newest first, paged ({items, nextCursor}); filter by userId, issueId and a from/to day range. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_list(args jsonb) to svc_visitor;
