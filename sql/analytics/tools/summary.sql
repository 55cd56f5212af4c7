-- The analytics.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- coarse counts over the issues the key can see (RLS applies narrowing): by status category and status,
-- throughput (issues completed per UTC day over windowDays), and breaches (SLA, stalled, no-ack events in the
-- window on issues still open).
create or replace function app_tools.analytics_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_days int := coalesce((args->>'windowDays')::int, 14);
  v_from date := (now() at time zone 'utc')::date - (v_days - 1);
  v_by_category jsonb;
  v_by_status jsonb;
  v_per_day jsonb;
  v_breaches jsonb;
begin
  select jsonb_object_agg(c.category, coalesce(n.count, 0)) into v_by_category
  from unnest(app_hidden.status_categories()) as c(category)
  left join (select s.category, count(*) as count from app_public.issues i join app_public.statuses s on s.id = i.status_id
             where i.workspace_id = v_ws and i.deleted_at is null group by s.category) n on n.category = c.category;

  select coalesce(jsonb_agg(jsonb_build_object('statusId', s.id, 'name', s.name, 'category', s.category,
           'count', (select count(*) from app_public.issues i where i.workspace_id = v_ws and i.status_id = s.id and i.deleted_at is null))
         order by s.position, s.id), '[]')
  into v_by_status from app_public.statuses s where s.workspace_id = v_ws;

  select jsonb_agg(jsonb_build_object('date', d::date, 'done', coalesce(n.count, 0)) order by d)
  into v_per_day
  from generate_series(v_from, (now() at time zone 'utc')::date, interval '1 day') d
  left join (select (i.completed_at at time zone 'utc')::date as day, count(*) as count
             from app_public.issues i join app_public.statuses s on s.id = i.status_id and s.category = 'DONE'
             where i.workspace_id = v_ws and i.deleted_at is null and i.completed_at >= v_from::timestamp at time zone 'utc'
             group by 1) n on n.day = d::date;

  select jsonb_build_object(
      'open', count(distinct e.subject_id),
      'byKind', jsonb_build_object(
        'ISSUE_SLA_BREACH', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_SLA_BREACH'),
        'ISSUE_STALLED', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_STALLED'),
        'AGENT_NOACK', count(distinct e.subject_id) filter (where e.kind = 'AGENT_NOACK')))
  into v_breaches
  from app_public.activity_events e
  join app_public.issues i on i.id = e.subject_id and i.deleted_at is null
  join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
  where e.workspace_id = v_ws and e.subject_type = 'issue'
    and e.kind in ('ISSUE_SLA_BREACH', 'ISSUE_STALLED', 'AGENT_NOACK')
    and e.created_at >= v_from::timestamp at time zone 'utc';

  return jsonb_build_object(
    'workspaceKey', (select w.key from app_public.workspaces w where w.id = v_ws),
    'generatedAt', now(),
    'counts', jsonb_build_object('byCategory', v_by_category, 'byStatus', v_by_status,
      'open', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category) where key not in ('DONE', 'CANCELED')),
      'total', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category))),
    'throughput', jsonb_build_object('windowDays', v_days, 'from', v_from,
      'total', (select coalesce(sum((x->>'done')::int), 0) from jsonb_array_elements(v_per_day) x), 'perDay', v_per_day),
    'breaches', v_breaches);
end
$$;
grant execute on function app_tools.analytics_summary(args jsonb) to svc_visitor;
comment on function app_tools.analytics_summary(args jsonb) is 'analytics.summary: Coarse workspace figures over the issues this key can see: counts by status category and by status, throughput (issues completed per UTC day over windowDays, default 14, max 90), and open breaches (issues still open with an SLA breach, stall or missed ack in the window).';
