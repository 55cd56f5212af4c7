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
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Any event of the caller's workspace, seen by this key now or not: the key was sent this id, and what it may
  -- no longer see (an issue that left its narrowing) must not turn a resume into a reset with events lost. The
  -- replay from there is read as the caller (stream_events_after), so nothing hidden is sent; a position says
  -- nothing of its event. An event not positioned yet (committed moments ago; app_private.sequence_events)
  -- resumes from the head: it and whatever follows it arrive live. One older than p_max_age is -1: the client is told
  -- its id is too old, not that it is unknown.
  select case when e.created_at > now() - p_max_age then coalesce(e.stream_pos, app_hidden.stream_head()) else -1 end
  from app_public.activity_events e
  where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) is 'SSE resume: stream position of a Last-Event-ID of the caller''s workspace (visible to the key now or not) that is younger than p_max_age (the head if it has none yet); -1 for an older one; NULL for an id the workspace never had.';
grant execute on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) to svc_visitor;

create or replace function app_private.sequence_events(p_limit integer)
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  r record;
  v_count integer := 0;
  v_ids uuid[];
  v_positions bigint[];
begin
  -- One sequencer at a time in the database, whichever process calls: positions are handed out only here,
  -- in transactions that follow one another, so every snapshot sees a prefix of each workspace's positions
  -- and a reader resuming after position P can never miss an event that gets a lower one later. Writers
  -- take no lock and send no NOTIFY (whose database-wide lock is held through every commit's WAL flush).
  if not pg_try_advisory_xact_lock(1398161490, 0) then
    return 0;
  end if;
  -- The batch, its positions, then the update, in three statements the planner cannot fold together: as one
  -- UPDATE … FROM (subquery with nextval), planned for the empty backlog the statistics usually show, it re-ran the
  -- batch's subquery for every unsequenced row (a burst of 20,000 events drained 1,000 per 10 s and stalled every
  -- workspace's stream for minutes, burning 1,000 positions per event: an outside probe).
  select array_agg(u.id order by u.seq) into v_ids
  from (select u.id, u.seq from app_public.activity_events u where u.stream_pos is null order by u.seq limit p_limit) u;
  if v_ids is null then
    return 0;
  end if;
  select array_agg(nextval('app_private.activity_event_stream_pos') order by n) into v_positions
  from generate_series(1, cardinality(v_ids)) n;
  for r in
    with positioned as (
      update app_public.activity_events e set stream_pos = p.pos
      from unnest(v_ids, v_positions) as p(id, pos)
      where e.id = p.id
      returning e.id, e.seq, e.stream_pos, e.workspace_id)
    select * from positioned order by stream_pos
  loop
    perform pg_notify('svc_events', json_build_object(
      'id', r.id, 'seq', r.seq, 'pos', r.stream_pos, 'workspaceId', r.workspace_id)::text);
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$$;
comment on function app_private.sequence_events(p_limit integer) is 'Gives committed events without a stream position one (oldest first, at most p_limit) and NOTIFYs svc_events {id, seq, pos, workspaceId} for each; returns how many. Called in a loop by every process''s Notifier; one runs at a time.';
