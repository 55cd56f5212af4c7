-- The goals.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- goals the key can see, newest first, keyset-paged; status filter; archived ones only with includeArchived.
create or replace function app_tools.goals_list(args jsonb)
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
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'goals') k;
  end if;
  with page as (
    select g as r from app_public.goals g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (coalesce((args->>'includeArchived')::boolean, false) or g.archived_at is null)
      and (args->>'crewId' is null or g.crew_id = app_hidden.parse_uuid(args->>'crewId', 'crewId'))
      and (v_after_ts is null or (g.created_at, g.id) < (v_after_ts, v_after_id))
    order by g.created_at desc, g.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.goal_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('goals', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.goals_list(args jsonb) is 'goals.list: Goals, newest first, paged ({items, nextCursor}), each with planCount and aggregate. Filters: status, crewId; archived goals only with includeArchived.';
grant execute on function app_tools.goals_list(args jsonb) to svc_visitor;
