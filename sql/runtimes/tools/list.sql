-- The runtimes.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first, {items, nextCursor}; kind filter; archived ones only with includeArchived.
create or replace function app_tools.runtimes_list(args jsonb)
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
    select k.sort_key, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode_ts(args->>'cursor', 'runtimes') k;
  end if;
  with page as (
    select r from app_public.runtimes r
    where r.workspace_id = app_hidden.current_workspace_id()
      and (args->>'kind' is null or r.kind = args->>'kind')
      and (coalesce((args->>'includeArchived')::boolean, false) or r.archived_at is null)
      and (v_after_ts is null or (r.created_at, r.id) < (v_after_ts, v_after_id))
    order by r.created_at desc, r.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.runtime_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('runtimes', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
grant execute on function app_tools.runtimes_list(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_list(args jsonb) is 'runtimes.list: Runtimes of the workspace, newest first, with _count.agents and an owner summary; secrets appear only as hasSecret. Archived ones only with includeArchived.';
