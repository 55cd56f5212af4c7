-- The reviewGates.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- gates the key can see, newest first, keyset-paged; filters status, planId, goalId.
create or replace function app_tools.review_gates_list(args jsonb)
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
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'review_gates') k;
  end if;
  with page as (
    select g as r from app_public.review_gates g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (args->>'planId' is null or g.plan_id = app_hidden.parse_uuid(args->>'planId', 'planId'))
      and (args->>'goalId' is null or g.plan_id in (select p.id from app_public.execution_plans p
                                                    where p.goal_id = app_hidden.parse_uuid(args->>'goalId', 'goalId')))
      and (v_after_ts is null or (g.created_at, g.id) < (v_after_ts, v_after_id))
    order by g.created_at desc, g.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.gate_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('review_gates', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.review_gates_list(args jsonb) is 'reviewGates.list: Review gates (approval checkpoints of the loop), newest first, paged ({items, nextCursor}). Filters: status, planId, goalId.';
grant execute on function app_tools.review_gates_list(args jsonb) to svc_visitor;
