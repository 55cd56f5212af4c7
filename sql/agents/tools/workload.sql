-- The agents.workload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the dispatch view: the workspace's dispatch settings, the pool (queued, unassigned, open issues; next = the one
-- the dispatcher hands out first), and for every live (non-archived) agent by profileKey its presence, load against
-- maxConcurrent, open runs by status and its current run (the newest ACTIVE one, else the newest open one) with
-- the issue, mode and step. Issue and run figures count what the key can see (RLS: narrowing). A narrowed key's
-- load may miss issues it cannot see, so its freeSlots is null rather than overstated (a definer count would
-- reveal how many hidden issues an agent holds).
create or replace function app_tools.agents_workload(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws app_public.workspaces := (select w from app_public.workspaces w where w.id = app_hidden.current_workspace_id());
  v_whole_load boolean := app_hidden.issues_unrestricted();
begin
  return jsonb_build_object(
    'generatedAt', now(),
    'autoDispatch', v_ws.auto_dispatch, 'autoDispatchMode', v_ws.auto_dispatch_mode,
    'pool', (select jsonb_build_object('queued', count(*),
                      'byPriority', jsonb_build_object(
                        'URGENT', count(*) filter (where i.priority = 'URGENT'), 'HIGH', count(*) filter (where i.priority = 'HIGH'),
                        'MEDIUM', count(*) filter (where i.priority = 'MEDIUM'), 'LOW', count(*) filter (where i.priority = 'LOW'),
                        'NONE', count(*) filter (where i.priority = 'NONE')),
                      -- The dispatcher's order: most urgent first, then the longest waiting.
                      'next', (array_agg(jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                                            'priority', i.priority)
                                         order by i.priority_rank, i.queued_at, i.created_at, i.id))[1])
             from app_public.issues i join app_public.statuses s on s.id = i.status_id
             where i.workspace_id = v_ws.id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
               and s.category not in ('DONE', 'CANCELED')),
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
               'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
               'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
               'capabilities', to_jsonb(a.capabilities),
               'maxConcurrent', a.max_concurrent, 'openAssigned', l.open_assigned,
               -- The dispatcher's rule (load = open assigned issues; maxConcurrent 0 = unlimited); unknown to a narrowed key.
               'freeSlots', case when a.max_concurrent = 0 or not v_whole_load then null
                                 else greatest(a.max_concurrent - l.open_assigned, 0) end,
               'runs', jsonb_build_object('active', r.active, 'waiting', r.waiting, 'stalled', r.stalled),
               'currentRun', (select jsonb_build_object(
                                'id', cr.id, 'status', cr.status, 'engagementMode', cr.engagement_mode,
                                'currentStep', cr.current_step, 'startedAt', cr.started_at, 'lastEventAt', cr.last_event_at,
                                'issue', jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title))
                              from app_public.agent_runs cr join app_public.issues i on i.id = cr.issue_id
                              where cr.workspace_id = a.workspace_id and cr.agent_id = a.id
                                and cr.status in ('ACTIVE', 'WAITING', 'STALLED') and i.deleted_at is null
                              order by cr.status = 'ACTIVE' desc, cr.started_at desc, cr.id desc limit 1))
             order by a.profile_key)
      from app_public.agents a
      cross join lateral (
        select count(*) as open_assigned
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = a.workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')) l
      cross join lateral (
        select count(*) filter (where x.status = 'ACTIVE') as active,
               count(*) filter (where x.status = 'WAITING') as waiting,
               count(*) filter (where x.status = 'STALLED') as stalled
        from app_public.agent_runs x join app_public.issues i on i.id = x.issue_id and i.deleted_at is null
        where x.workspace_id = a.workspace_id and x.agent_id = a.id and x.status in ('ACTIVE', 'WAITING', 'STALLED')) r
      where a.workspace_id = v_ws.id and a.archived_at is null), '[]'));
end
$$;
grant execute on function app_tools.agents_workload(args jsonb) to svc_visitor;
comment on function app_tools.agents_workload(args jsonb) is 'agents.workload: Dispatch view: the queued pool (by priority, next out) and, per live agent, status, load (open assigned issues) vs maxConcurrent, open runs and current run (issue, mode, step). Counts what this key can see; for a key narrowed by project or label, freeSlots is null (its load count may miss issues it cannot see).';
