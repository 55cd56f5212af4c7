-- The issues.count tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- how many issues the filters of issues.list select (app_hidden.issues_filter, the same code), in total and
-- per status and per priority, in one grouped pass. RLS narrows the rows, as in the list.
create or replace function app_tools.issues_count(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  f record;
  v_total bigint;
  v_by_status jsonb;
  v_by_priority jsonb;
begin
  select * into f from app_hidden.issues_filter(args);
  execute format(
    'with g as (select i.status_id, i.priority, count(*) as n, grouping(i.status_id) as gs, grouping(i.priority) as gp
                from %s where %s group by grouping sets ((i.status_id), (i.priority), ()))
     select coalesce((select n from g where gs = 1 and gp = 1), 0),
            coalesce((select jsonb_agg(jsonb_build_object(''statusId'', g.status_id, ''name'', s.name, ''category'', s.category,
                                                          ''count'', g.n) order by s.position, s.name, g.status_id)
                      from g join app_public.statuses s on s.id = g.status_id where g.gs = 0), ''[]''),
            coalesce((select jsonb_agg(jsonb_build_object(''priority'', g.priority, ''count'', g.n)
                                       order by array_position(array[''URGENT'', ''HIGH'', ''MEDIUM'', ''LOW'', ''NONE''], g.priority))
                      from g where g.gp = 0), ''[]'')',
    f.from_sql, f.where_sql)
  into v_total, v_by_status, v_by_priority
  using app_hidden.current_workspace_id(), f.search, null::int;
  return jsonb_build_object('total', v_total, 'byStatus', v_by_status, 'byPriority', v_by_priority);
end
$$;
grant execute on function app_tools.issues_count(args jsonb) to svc_visitor;
comment on function app_tools.issues_count(args jsonb) is 'issues.count: Count what issues.list''s filters select: total, byStatus [{statusId, name, category, count}], byPriority.';
