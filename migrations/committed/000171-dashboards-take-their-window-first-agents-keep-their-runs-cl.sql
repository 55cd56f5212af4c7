--! Previous: sha1:a35287fbd1ef8cd7a999be28a322174c71b77081
--! Hash: sha1:467585d255cc847c96e8f05ec0443e5334e9a81a
--! Message: Dashboards take their window first; agents keep their runs; clearWebhookUrl with webhookUrl is a 400

--! split: 1-current.sql
-- agentsPipeline and dispatchSummary checked sinceHours inside their query, reached only through a row of the window
-- (a finished run, an assignment): out of range was answered where there was none (a GraphQL probe). The window is
-- taken first, as a statement.
--! Included analytics/dashboards.sql
-- The in-app dashboards of spec 4.14 (GraphQL only, never MCP): agent operations (pipeline, timeline, uptime,
-- webhookHealth) and dispatch analytics (summary, timeseries). Each runs as the caller, so row-level security
-- bounds what it counts (a narrowed key counts only the issues and events it may see).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dashboard_window(p_since_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_since_hours < 1 or p_since_hours > 720 then
    perform app_hidden.raise_invalid('sinceHours', 'from 1 to 720 hours (30 days)');
  end if;
  return now() - make_interval(hours => coalesce(p_since_hours, 24));
end
$$;
comment on function app_hidden.dashboard_window(p_since_hours integer) is 'The start of a dashboard''s window, sinceHours ago (1 to 720, null = 24; 400 sinceHours otherwise).';
grant execute on function app_hidden.dashboard_window(p_since_hours integer) to svc_visitor;

create or replace function app_public.agents_pipeline(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  -- The window first, as a statement: inside the query it was reached only through a finished run, so a sinceHours
  -- out of range was answered when no agent had one.
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- The dispatch view's figures (agents.workload: the queued pool, each live agent's load and open runs, counted as
  -- the dispatcher counts them), with the runs each agent finished in the window.
  return (
  with w as (select v_since as since, app_tools.agents_workload('{}') as load)
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', w.load->'pool'->'queued',
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
        'agentId', a->'id', 'profileKey', a->'profileKey', 'name', a->'name', 'status', a->'status',
        'lastHeartbeatAt', a->'lastHeartbeatAt', 'maxConcurrent', a->'maxConcurrent', 'assignedOpen', a->'openAssigned',
        'runs', (a->'runs') || (
          select jsonb_build_object('completed', count(*) filter (where r.status = 'COMPLETED'),
                                    'abandoned', count(*) filter (where r.status = 'ABANDONED'))
          from app_public.agent_runs r
          where r.agent_id = (a->>'id')::uuid and r.status in ('COMPLETED', 'ABANDONED') and r.finished_at >= w.since))
        order by x.n)
      from jsonb_array_elements(w.load->'agents') with ordinality x(a, n)), '[]'))
  from w);
end
$$;
comment on function app_public.agents_pipeline(since_hours integer) is 'Agent operations dashboard: each live agent''s status, open assigned issues and runs (active, waiting, stalled now; completed and abandoned in the last sinceHours, default 24), and the queued issues nobody holds. In-app only (spec 4.14).';
grant execute on function app_public.agents_pipeline(since_hours integer) to svc_visitor;

create or replace function app_public.agent_timeline(agent_id uuid, since_hours integer default 24, max_items integer default 200)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  if max_items < 1 or max_items > 1000 then
    perform app_hidden.raise_invalid('maxItems', 'from 1 to 1000');
  end if;
  if not exists (select 1 from app_public.agents a where a.id = agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- What happened to and by the agent, newest first: assignments, its runs' moves, presence, watchdog alerts, kicks,
  -- and what it wrote (events whose actor is the agent).
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'items', coalesce((
    select jsonb_agg(jsonb_build_object('id', e.id, 'kind', e.kind, 'at', e.created_at, 'subjectType', e.subject_type,
                                        'subjectId', e.subject_id, 'payload', e.payload,
                                        -- The issue it is about, by key, when the caller sees it: a line a person can act on.
                                        'issueId', i.id, 'issueKey', i.key, 'issueTitle', i.title) order by e.seq desc)
    from (select e.* from app_public.activity_events e
          where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= v_since
            and (e.actor_agent_id = agent_id
                 or (e.subject_type = 'agent' and e.subject_id = agent_id)
                 or (e.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_KICKED', 'AGENT_NOACK', 'ISSUE_STALLED')
                     and (e.payload->>'agentId' = agent_id::text or e.payload->>'to' = agent_id::text or e.payload->>'from' = agent_id::text))
                 or (e.kind = 'ISSUE_UPDATED' and e.payload->>'unassignedAgentId' = agent_id::text))
          order by e.seq desc limit coalesce(max_items, 200)) e
    left join app_public.issues i
      on i.id = coalesce(case when e.subject_type = 'issue' then e.subject_id end, (e.payload->>'issueId')::uuid)), '[]'));
end
$$;
comment on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) is 'Agent operations dashboard: the events of one agent in the last sinceHours (default 24), newest first, at most maxItems (default 200, max 1000), each with the key and title of the issue it is about when the key sees it: its assignments (to and from it, unassignment included), its runs'' moves, presence changes, watchdog alerts and kicks, and what it did. In-app only (spec 4.14).';
grant execute on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) to svc_visitor;

create or replace function app_public.agent_uptime(agent_id uuid, since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_agent app_public.agents;
  v_first text;
  v_spans jsonb;
begin
  select * into v_agent from app_public.agents a where a.id = agent_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- Time before the agent existed is no time OFFLINE.
  v_since := greatest(v_since, v_agent.created_at);
  -- The status at the window's start: the last change before it, else the first change's `from` inside it, else the
  -- status now (nothing changed in the window).
  select e.payload->>'to' into v_first from app_public.activity_events e
  where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at < v_since
  order by e.seq desc limit 1;
  if v_first is null then
    select e.payload->>'from' into v_first from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
    order by e.seq limit 1;
  end if;
  -- Seconds in each status: each change closes the span of the status before it; the last runs until now.
  with changes as (
    select v_since as at, coalesce(v_first, v_agent.status) as status
    union all
    select e.created_at, e.payload->>'to' from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
  ), spans as (
    select status, extract(epoch from coalesce(lead(at) over (order by at), now()) - at) as seconds from changes
  )
  select jsonb_object_agg(status, round(total)) into v_spans
  from (select status, sum(seconds) as total from spans group by status) t;
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'windowStart', v_since, 'status', v_agent.status,
    'secondsByStatus', coalesce(v_spans, '{}'),
    'changes', (select count(*) from app_public.activity_events e where e.workspace_id = v_agent.workspace_id
                and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since),
    -- Up = ONLINE or BUSY.
    'uptimeRatio', round(((coalesce((v_spans->>'ONLINE')::numeric, 0) + coalesce((v_spans->>'BUSY')::numeric, 0))
                          / greatest(1, extract(epoch from now() - v_since)))::numeric, 4));
end
$$;
comment on function app_public.agent_uptime(agent_id uuid, since_hours integer) is 'Agent operations dashboard: seconds one agent spent ONLINE, BUSY and OFFLINE in the last sinceHours (default 24), from its AGENT_STATUS_CHANGED events, the number of changes, and uptimeRatio (ONLINE or BUSY over the window, which starts at the agent''s creation when that is later: windowStart). In-app only (spec 4.14).';
grant execute on function app_public.agent_uptime(agent_id uuid, since_hours integer) to svc_visitor;

create or replace function app_public.webhook_health(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- Webhooks are an admin's, and a narrowed key reads none (their attempts may echo any issue's event).
  if not app_hidden.is_workspace_admin() or not app_hidden.key_unnarrowed() then
    raise exception 'Webhook health is for a workspace OWNER or ADMIN with a key without narrowing' using errcode = 'SV403', detail = 'admin_required';
  end if;
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'webhooks', coalesce((
    select jsonb_agg(jsonb_build_object(
      'webhookId', w.id, 'url', w.url, 'active', w.active, 'deactivatedReason', w.deactivated_reason,
      'pending', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'delivered', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.delivered_at >= v_since),
      'attempts', a.attempts, 'failedAttempts', a.failed,
      'successRate', case when a.attempts > 0 then round((a.attempts - a.failed)::numeric / a.attempts, 4) end,
      'p95DurationMs', a.p95,
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.webhook_id = w.id),
      'lastError', (select coalesce(x.error, 'HTTP ' || x.status_code) from app_public.webhook_delivery_attempts x
                    join app_public.webhook_deliveries d on d.id = x.delivery_id
                    where d.webhook_id = w.id and (x.status_code is null or x.status_code not between 200 and 299)
                    order by x.started_at desc limit 1))
      order by w.created_at, w.id)
    from app_public.webhooks w
    left join lateral (
      select count(*) as attempts,
             count(*) filter (where x.status_code is null or x.status_code not between 200 and 299) as failed,
             percentile_disc(0.95) within group (order by x.duration_ms) as p95
      from app_public.webhook_delivery_attempts x join app_public.webhook_deliveries d on d.id = x.delivery_id
      where d.webhook_id = w.id and x.started_at >= v_since) a on true), '[]'));
end
$$;
comment on function app_public.webhook_health(since_hours integer) is 'Agent operations dashboard (OWNER/ADMIN, no narrowing): each webhook''s deliveries pending and dead-lettered now, delivered, attempted and failed in the last sinceHours (default 24), success rate, p95 attempt duration, the last delivery and the last failure. In-app only (spec 4.14).';
grant execute on function app_public.webhook_health(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_summary(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_since timestamptz;
begin
  -- First, as a statement of its own: inside the query (a column of the window's CTE) it ran only when some row
  -- read that CTE's column, so a workspace with no assignment answered a key without the scope.
  perform app_hidden.require_scope('READ_ANALYTICS');
  -- The window too (a sinceHours out of range is a 400 whatever the query reads).
  v_since := app_hidden.dashboard_window(since_hours);
  return (
  with w as (select v_since as since),
  assigned as (
    select e.* from app_public.activity_events e, w
    where e.workspace_id = app_hidden.current_workspace_id() and e.kind = 'AGENT_ASSIGNED' and e.created_at >= w.since
  ),
  -- Queue to assignment: each automatic assignment against the latest ISSUE_QUEUED of its issue before it.
  waits as (
    select extract(epoch from a.created_at - q.created_at) as seconds
    from assigned a
    cross join lateral (select e.created_at from app_public.activity_events e
                        where e.workspace_id = a.workspace_id and e.subject_type = 'issue' and e.subject_id = a.subject_id
                          and e.kind = 'ISSUE_QUEUED' and e.seq < a.seq
                        order by e.seq desc limit 1) q
    where (a.payload->>'auto')::boolean
  )
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.deleted_at is null and i.queued and i.assigned_agent_id is null
                           and s.category not in ('DONE', 'CANCELED')),
    'assignments', (select count(*) from assigned),
    'automatic', (select count(*) from assigned where (payload->>'auto')::boolean),
    'manual', (select count(*) from assigned where not coalesce((payload->>'auto')::boolean, false)),
    'byReason', coalesce((select jsonb_object_agg(reason, n) from (
                  -- A rule's fallback names its rule id (spec 6.4): counted as one reason, whichever rule.
                  select coalesce(regexp_replace(payload->>'reason', '^rule:[^:]+:', 'rule:'), 'none') as reason, count(*) as n
                  from assigned group by 1) r), '{}'),
    'byMode', coalesce((select jsonb_object_agg(mode, n) from (
                  select payload->'dispatch'->>'mode' as mode, count(*) as n from assigned
                  where payload->'dispatch'->>'mode' is not null group by 1) m), '{}'),
    'byAgent', coalesce((select jsonb_agg(jsonb_build_object('agentId', x.agent_id, 'profileKey', ag.profile_key, 'assignments', x.n)
                                          order by x.n desc, ag.profile_key)
                  from (select payload->>'agentId' as agent_id, count(*) as n from assigned group by 1) x
                  left join app_public.agents ag on ag.id::text = x.agent_id), '[]'),
    'queueToAssignSeconds', (select jsonb_build_object(
                  'count', count(*),
                  'p50', round(percentile_cont(0.5) within group (order by seconds)::numeric, 1),
                  'p90', round(percentile_cont(0.9) within group (order by seconds)::numeric, 1),
                  'max', round(max(seconds)::numeric, 1)) from waits),
    'watchdogs', (select jsonb_build_object(
                  'agentNoAck', count(*) filter (where e.kind = 'AGENT_NOACK'),
                  'issueStalled', count(*) filter (where e.kind = 'ISSUE_STALLED'),
                  'slaBreach', count(*) filter (where e.kind = 'ISSUE_SLA_BREACH'))
                  from app_public.activity_events e, w
                  where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= w.since
                    and e.kind in ('AGENT_NOACK', 'ISSUE_STALLED', 'ISSUE_SLA_BREACH'))));
end
$$;
comment on function app_public.dispatch_summary(since_hours integer) is 'Dispatch analytics (READ_ANALYTICS): assignments in the last sinceHours (default 24), automatic and manual, by reason, by dispatch mode and by agent; the queue-to-assignment wait of automatic ones (p50, p90, max seconds); watchdog alerts (AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH); queued issues nobody holds now. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_summary(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_timeseries(since_hours integer default 24, bucket_minutes integer default 60)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_step interval;
begin
  perform app_hidden.require_scope('READ_ANALYTICS');
  if bucket_minutes < 5 or bucket_minutes > 1440 or coalesce(since_hours, 24) * 60 / coalesce(bucket_minutes, 60) > 500 then
    perform app_hidden.raise_invalid('bucketMinutes', 'from 5 to 1440 minutes, and at most 500 buckets in the window');
  end if;
  v_step := make_interval(mins => coalesce(bucket_minutes, 60));
  -- Buckets on the clock (an hour's bucket starts on the hour), the first one holding the window's start.
  v_since := date_bin(v_step, v_since, timestamptz '2000-01-01 00:00:00+00');
  -- Buckets aligned to the window's start, oldest first, empty ones included (a chart needs every point).
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'bucketMinutes', coalesce(bucket_minutes, 60), 'buckets', (
    select jsonb_agg(jsonb_build_object('start', v_since + v_step * b.n, 'queued', coalesce(c.queued, 0),
                                        'assigned', coalesce(c.assigned, 0), 'automatic', coalesce(c.automatic, 0),
                                        'noAck', coalesce(c.no_ack, 0), 'stalled', coalesce(c.stalled, 0)) order by b.n)
    from generate_series(0, ceil(extract(epoch from now() - v_since) / extract(epoch from v_step))::int - 1) b(n)
    -- Each event counted into its bucket by arithmetic, in one pass over the window (a range join per bucket took
    -- 4 s for 500 buckets over 100,000 events).
    left join (
      select floor(extract(epoch from e.created_at - v_since) / extract(epoch from v_step))::int as n,
             count(*) filter (where e.kind = 'ISSUE_QUEUED') as queued,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED') as assigned,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED' and (e.payload->>'auto')::boolean) as automatic,
             count(*) filter (where e.kind = 'AGENT_NOACK') as no_ack,
             count(*) filter (where e.kind = 'ISSUE_STALLED') as stalled
      from app_public.activity_events e
      where e.workspace_id = app_hidden.current_workspace_id()
        and e.kind in ('ISSUE_QUEUED', 'AGENT_ASSIGNED', 'AGENT_NOACK', 'ISSUE_STALLED') and e.created_at >= v_since
      group by 1) c on c.n = b.n));
end
$$;
comment on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) is 'Dispatch analytics (READ_ANALYTICS): per bucket of bucketMinutes (default 60, 5 to 1440, at most 500 buckets; buckets start on the clock, the first holding the window''s start) over the last sinceHours (default 24), oldest first, empty buckets included: issues queued, assignments (and the automatic ones), AGENT_NOACK and ISSUE_STALLED alerts. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) to svc_visitor;
--! EndIncluded analytics/dashboards.sql
-- agentsDelete removed an agent's runs and chat threads with it (they cascade): refused like issues and comments
-- (409 agent_in_use). agentsUpdate with clearWebhookUrl and webhookUrl both is a 400 (it dropped the URL silently).
-- A duplicate profileKey names the field.
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
grant execute on function app_public.agents_webhook_url(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    -- The dispatch URL may carry a token: workspace admins only (as runtimes' endpoints), and the operator (svc
    -- admin, no caller).
    'maxConcurrent', a.max_concurrent, 'webhookUrl', app_public.agents_webhook_url(a),
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s own key, the agent''s own keys and the operator (agents_webhook_url; it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.require_agent_manager()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  -- Agents serve the whole workspace: their dispatches and webhook carry any issue's events, so a key narrowed to
  -- some projects could point an agent's webhookUrl at itself and receive what it may not see.
  perform app_hidden.require_unnarrowed('Agents work on the whole workspace');
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent; else 403 admin_required) with an unnarrowed key (else 403 narrowing).';
grant execute on function app_hidden.require_agent_manager() to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN acting as a person (require_agent_manager): delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.update_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
begin
  if p_agent_id is not null then
    return app_hidden.found((select a from app_public.agents a
                             where a.id = app_hidden.parse_uuid(p_agent_id, p_field) and a.workspace_id = app_hidden.current_workspace_id()),
                            'Agent', p_field);
  end if;
  return app_hidden.found((select a from app_public.agents a
                           where a.profile_key = lower(p_profile_key) and a.workspace_id = app_hidden.current_workspace_id()),
                          'Agent', p_field);
end
$$;
comment on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';
grant execute on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text default null)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v app_public.agents := app_hidden.find_agent(p_agent_id, p_profile_key, p_field);
begin
  if v.archived_at is not null then
    raise exception 'Agent % is archived', v.profile_key using errcode = 'SV400', column = p_field, detail = 'agent_archived';
  end if;
  return v;
end
$$;
comment on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) is 'An agent of the caller''s workspace that is not archived, by id (else by profileKey, as find_agent): for what puts an agent to work (issues.assign/reassign, an action request''s assignee or bound assignment, a crew, planner, judge or step). 404 unknown, 400 agent_archived, both naming the field.';
grant execute on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, app_hidden.one_line(p_name, 'name', 200),
          coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'Creates an agent (AGENT_CREATED by trigger).';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  -- Its runs and chat threads would go with it (they cascade): the record of its work is kept, as for issues and
  -- comments, by archiving instead.
  if exists (select 1 from app_public.agent_runs r where r.workspace_id = p_workspace_id and r.agent_id = v_agent.id)
     or exists (select 1 from app_public.chat_threads c where c.workspace_id = p_workspace_id and c.agent_id = v_agent.id) then
    raise exception 'Agent % has runs or chat threads; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end if;
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;
  exception when foreign_key_violation then
    raise exception 'Agent % still has issues or comments; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent that no issue, comment, run or chat thread refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event app_public.activity_events;
  v_agent app_public.agents;
  v_delivery uuid;
begin
  select * into v_event from app_public.activity_events where id = p_event_id;
  if v_event.id is null then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  if v_agent.webhook_url is null or v_agent.archived_at is not null then
    return null; -- no endpoint: the agent sees the event on SSE only
  end if;
  -- A secret exists before the first delivery; the operator reads it with rotate-agent-secret.
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret)
  values (v_agent.id, v_agent.workspace_id, app_private.new_webhook_secret())
  on conflict (agent_id) do nothing;
  insert into app_public.webhook_deliveries (workspace_id, event_id, agent_id, channel)
  values (v_event.workspace_id, v_event.id, v_agent.id, 'agent:dispatch:' || v_agent.id)
  on conflict (agent_id, event_id) do nothing
  returning id into v_delivery;
  if v_delivery is not null then
    perform app_private.enqueue_delivery_job(v_delivery);
  end if;
  return v_delivery;
end
$$;
comment on function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) is 'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

create or replace function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create or replace function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (archive, restore) sees
  -- every change committed before it. FOR NO KEY UPDATE, the lock the agent's own UPDATE takes: runs opened and
  -- issues assigned to it meanwhile (KEY SHARE through their foreign keys) do not wait for it. Lock order: an
  -- archive takes the agent's issues first (as every issue write does), then this.
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id for no key update;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, locked until commit (its current row), else 404 (as find_agent).';

drop function if exists app_private.rotate_agent_webhook_secret(uuid);
-- Its answer was the secret alone (text) until migration 000125: dropped so the jsonb one can replace it.
drop function if exists app_private.rotate_agent_webhook_secret(uuid, integer);
create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  -- As a webhook's rotation: the old secret signs beside the new one for the grace (0: stops at once).
  insert into app_private.agent_webhook_secrets as s (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update
  set previous_secret = case when v_until is not null then s.secret end, previous_secret_expires_at = v_until,
      secret = excluded.secret, rotated_at = now()
  returning previous_secret_expires_at into v_until;
  return jsonb_build_object('secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns {secret (shown once), previousSecretValidUntil}: the old one also signs until then (null: it stopped at once, or there was none).';

create or replace function app_hidden.lock_live_agent(p_agent_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- FOR SHARE waits for an archive in progress (its row lock is taken after the agent's issues', the order of every
  -- issue write), then sees whether it committed. As the owner: the agents policy lets keys lock only their own agent.
  if (select a.archived_at from app_public.agents a
      where a.id = p_agent_id and a.workspace_id = coalesce(app_hidden.current_workspace_id(), a.workspace_id) for share) is not null then
    raise exception 'The agent is archived' using errcode = 'SV400', detail = 'agent_archived';
  end if;
end
$$;
comment on function app_hidden.lock_live_agent(p_agent_id uuid) is 'Before an assignment: locks the agent FOR SHARE (waiting for an archive in progress) and raises 400 agent_archived if it is archived.';
grant execute on function app_hidden.lock_live_agent(p_agent_id uuid) to svc_visitor;

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  if p_archived then
    -- The lock order of every issue write: its issue first, then the runs and the agent (assign_issue_agent). An
    -- issue assigned meanwhile is found by the statements below (each sees what committed before it).
    perform 1 from app_public.issues i
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
    order by i.id for update;
  end if;
  -- Decided again on the locked row: a concurrent archive (or restore) may have committed since the read above, and
  -- writing over it restamped archivedAt with an AGENT_UPDATED saying "restored" (archived: false).
  v_agent := app_private.agent_for_write(p_workspace_id, p_agent_id);
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform set_config('svc.run_end_reason', 'agent_archived', true);
    update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_workspace_id and agent_id = v_agent.id and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'));
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    -- Its plan steps pass to a live crew member. Their events are the workspace's (svc admin sets none).
    perform set_config('svc.workspace_id', p_workspace_id::text, true);
    perform app_private.steps_pass_over_archived_agent(p_workspace_id, v_agent.id);
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher), passes its plan steps to a live crew member and sets it OFFLINE.';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. SKIP LOCKED: an
  -- agent being assigned or heartbeating right now is left for the next sweep.
  perform set_config('svc.agent_status_reason', 'heartbeat_timeout', true);
  for v_agent in
    select a.* from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    where a.status <> 'OFFLINE' and a.archived_at is null
      and coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', v_agent.id, 'agentId', v_agent.id,
      'workspaceId', v_agent.workspace_id, 'lastHeartbeatAt', v_agent.last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if coalesce(p_clear_webhook_url, false) and p_webhook_url is not null then
    perform app_hidden.raise_invalid('clearWebhookUrl', 'either webhookUrl or clearWebhookUrl, not both');
  end if;
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
  end if;
  update app_public.agents a set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create or replace function app_public.agents_archive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(agent_id uuid) is 'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is 'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is 'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
grant execute on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.require_own_agent()
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.require_own_agent() is 'The agent linked to the calling key; 403 agent_key_required (no linked agent), agent_forbidden (another workspace) or agent_archived.';
grant execute on function app_hidden.require_own_agent() to svc_visitor;

create or replace function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if p_agent_id is null then
    return null;  -- nobody to deliver to (e.g. a step with no agent yet)
  end if;
  if not exists (select 1 from app_public.activity_events e
                 where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;
--! EndIncluded agents/agents.sql
