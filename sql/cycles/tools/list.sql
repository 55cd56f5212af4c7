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
  v_after record := app_hidden.keyset_decode_date(args->>'cursor', 'cycles');
begin
  return app_hidden.page_json(array(
    select (app_hidden.cycle_json(c), to_char(c.starts_on, 'YYYY-MM-DD'), c.id)::app_hidden.page_row
    from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or app_hidden.cycle_status(c) = args->>'status')
      and (v_after.sort_id is null or (c.starts_on, c.id) < (v_after.sort_key, v_after.sort_id))
    order by c.starts_on desc, c.id desc limit v_limit + 1), v_limit, 'cycles');
end
$$;
comment on function app_tools.cycles_list(args jsonb) is 'cycles.list: Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Status follows the calendar: a cycle whose dates include today is ACTIVE, one that has ended COMPLETED. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.';
grant execute on function app_tools.cycles_list(args jsonb) to svc_visitor;
