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
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_time_tracking();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'time') k;
  end if;
  with page as (
    select e as r from app_hidden.time_entries_filtered(args) e
    where v_after_ts is null or (e.started_at, e.id) < (v_after_ts, v_after_id)
    order by e.started_at desc, e.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.time_entry_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('time', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.time_list(args jsonb) is 'time.list: Time entries on issues this key can see, newest first, paged ({items, nextCursor}); filter by userId, issueId and a from/to day range. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_list(args jsonb) to svc_visitor;
