-- The cycles.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.
create or replace function app_tools.cycles_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'cycles') k;
  end if;
  with page as (
    select c as r from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or c.status = args->>'status')
      and (v_after_date is null or (c.starts_on, c.id) < (v_after_date, v_after_id))
    order by c.starts_on desc, c.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).starts_on desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.cycle_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('cycles', to_char((r).starts_on, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.cycles_list(args jsonb) is 'cycles.list: Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.';
grant execute on function app_tools.cycles_list(args jsonb) to svc_visitor;
