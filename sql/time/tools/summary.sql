-- The time.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- minutes of finished entries (running timers excluded) in total, by user, by issue and by UTC day, with the
-- time.list filters.
create or replace function app_tools.time_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_time_tracking();
  return (
    with e as (select * from app_hidden.time_entries_filtered(args) where duration_min is not null)
    select jsonb_build_object(
      'from', args->'from', 'to', args->'to',
      'totalMin', coalesce((select sum(duration_min) from e), 0),
      'entryCount', (select count(*) from e),
      'byUser', coalesce((
        select jsonb_agg(jsonb_build_object('userId', t.user_id, 'name', t.name, 'totalMin', t.total) order by t.total desc, t.user_id)
        from (select e.user_id, (select coalesce(nullif(u.name, ''), u.email) from app_public.users u where u.id = e.user_id) as name,
                     sum(e.duration_min) as total
              from e group by e.user_id) t), '[]'),
      'byIssue', coalesce((
        select jsonb_agg(jsonb_build_object('issueId', t.issue_id, 'key', i.key, 'title', i.title, 'totalMin', t.total)
                         order by t.total desc, t.issue_id)
        from (select e.issue_id, sum(e.duration_min) as total from e group by e.issue_id) t
        left join app_public.issues i on i.id = t.issue_id), '[]'),
      'byDay', coalesce((
        select jsonb_agg(jsonb_build_object('day', t.day, 'totalMin', t.total) order by t.day)
        from (select (e.started_at at time zone 'UTC')::date as day, sum(e.duration_min) as total from e group by 1) t), '[]')));
end
$$;
comment on function app_tools.time_summary(args jsonb) is 'time.summary: Minutes logged (finished entries) in total, by user, by issue and by UTC day, with the same filters as time.list. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_summary(args jsonb) to svc_visitor;
