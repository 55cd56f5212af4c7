-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.stream_backlog(p_after bigint, p_cap integer)
 returns integer
 language sql
 stable
as $$
  select count(*)::int from (select 1 from app_public.activity_events e
                             where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
                             limit p_cap) t
$$;
comment on function app_hidden.stream_backlog(p_after bigint, p_cap integer) is 'SSE resume: how many visible events follow a position, counting at most p_cap (the replay bound).';
grant execute on function app_hidden.stream_backlog(p_after bigint, p_cap integer) to svc_visitor;

create or replace function app_hidden.stream_events(p_ids uuid[])
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', e.stream_pos, 'event', app_hidden.event_json(e, false))
                            order by e.stream_pos), '[]')
  from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id() and e.id = any(p_ids) and e.stream_pos is not null
$$;
comment on function app_hidden.stream_events(p_ids uuid[]) is 'SSE live path: the given events that the caller may see, as [{pos, event}] in stream order.';
grant execute on function app_hidden.stream_events(p_ids uuid[]) to svc_visitor;

create or replace function app_hidden.stream_events_after(p_after bigint, p_limit integer)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', t.stream_pos, 'event', app_hidden.event_json(t, false))
                            order by t.stream_pos), '[]')
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
        order by e.stream_pos limit p_limit) t
$$;
comment on function app_hidden.stream_events_after(p_after bigint, p_limit integer) is 'SSE resume: up to p_limit events after a stream position that the caller may see, oldest first.';
grant execute on function app_hidden.stream_events_after(p_after bigint, p_limit integer) to svc_visitor;

create or replace function app_hidden.stream_head()
 returns bigint
 language sql
 stable
as $$
  select coalesce(max(e.stream_pos), 0) from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.stream_head() is 'SSE: the highest stream position in the caller''s workspace (a new subscriber''s starting point).';
grant execute on function app_hidden.stream_head() to svc_visitor;

create or replace function app_hidden.stream_position(p_event_id uuid, p_max_age interval)
 returns bigint
 language sql
 stable
as $$
  select e.stream_pos from app_public.activity_events e
  where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()
    and e.created_at > now() - p_max_age
$$;
comment on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) is 'SSE resume: stream position of a Last-Event-ID the caller may see and that is younger than p_max_age; NULL otherwise.';
grant execute on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) to svc_visitor;
