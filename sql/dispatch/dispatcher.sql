-- The dispatcher: gives queued, unassigned issues to eligible agents (decisions.md "Dispatch").
-- Runs in the worker (owner role) one assignment per transaction; decisions in one workspace are
-- serialized by an advisory lock, so concurrent workers never assign an issue twice or overfill an agent.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], out agent_id uuid, out method text, out reason text)
 returns record
 language plpgsql
 stable
as $$
declare
  v_labels text[];
  v_best int := 0;
  v_matches int;
  v_agent app_public.agents;
begin
  if cardinality(p_eligible) = 0 then
    return;
  end if;
  if p_mode = 'PRIORITY_MATCH' then
    foreach v_agent in array p_eligible loop
      if exists (select 1 from unnest(v_agent.capabilities) c where upper(c) = p_issue.priority) then
        agent_id := v_agent.id;
        method := 'priority-match';
        reason := 'priority-match:' || lower(p_issue.priority);
        return;
      end if;
    end loop;
  elsif p_mode = 'CAPABILITY_MATCH' then
    select coalesce(array_agg(lower(l.name)), '{}') into v_labels
    from app_public.labels l where l.id = any(p_issue.label_ids);
    foreach v_agent in array p_eligible loop
      select count(distinct lower(c)) into v_matches from unnest(v_agent.capabilities) c where lower(c) = any(v_labels);
      if v_matches > v_best then  -- strictly more: ties keep the least recently dispatched
        v_best := v_matches;
        agent_id := v_agent.id;
      end if;
    end loop;
    if agent_id is not null then
      method := 'capability-match';
      reason := format('capability-match:%s/%s', v_best, cardinality(v_labels));
      return;
    end if;
  end if;
  -- ROUND_ROBIN, and the fallback of the matching modes when nothing matches.
  agent_id := p_eligible[1].id;
  method := 'round-robin';
  reason := 'round-robin';
end
$$;
comment on function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], OUT agent_id uuid, OUT method text, OUT reason text) is 'The mode''s choice among eligible agents (given least recently dispatched first): PRIORITY_MATCH = capabilities include the priority name; CAPABILITY_MATCH = most overlap of issue label names and capabilities; both fall back to round-robin.';

create or replace function app_private.dispatch_next(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_issue app_public.issues;
  v_eligible app_public.agents[];
  v_seeing app_public.agents[] := '{}';
  v_rule app_public.dispatch_rules;
  v_agent app_public.agents;
  v_pick record;
  v_reason text;
  v_dispatch jsonb;
begin
  -- One dispatcher decision at a time per workspace (all workers, all processes).
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch:' || p_workspace_id::text, 0));
  select * into v_ws from app_public.workspaces where id = p_workspace_id;
  -- The dispatcher acts inside the workspace (as the system: no user, key or agent), so the shared
  -- assignment code records its events there.
  perform set_config('svc.workspace_id', p_workspace_id::text, true);
  if v_ws.id is null or not v_ws.auto_dispatch or v_ws.auto_dispatch_mode = 'MANUAL_ONLY' then
    return null;
  end if;
  -- Eligible: not archived, not OFFLINE, load (assigned issues neither DONE nor CANCELED) under
  -- maxConcurrent (0 = unlimited); least recently dispatched first, the round-robin order.
  v_eligible := array(
    select a from app_public.agents a
    where a.workspace_id = p_workspace_id and a.archived_at is null and a.status <> 'OFFLINE'
      and (a.max_concurrent = 0 or a.max_concurrent > (
        select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = p_workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')))
    order by a.last_dispatched_at nulls first, a.created_at, a.id);
  if cardinality(v_eligible) = 0 then
    return null;
  end if;
  -- Most urgent first, then the longest waiting: the first issue an eligible agent can see (an agent whose keys are
  -- narrowed is given only issues it can read; one no free agent sees waits without holding up those behind it).
  -- Assigned and closed issues stay queued (only issues.queue/update {queued: false} clears it) but are no work to hand out.
  for v_issue in
    select i.* from app_public.issues i
    where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
      and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED')
    order by i.priority_rank, i.queued_at, i.created_at, i.id
    limit 200
    for update
  loop
    v_seeing := array(
      select a from unnest(v_eligible) a
      where app_hidden.agent_sees_issue(a.id, v_issue)
        -- Nor to an agent that gave it back (issues.unassign with its own key) since it was last queued.
        and not exists (select 1 from app_public.agent_runs r
                        where r.workspace_id = p_workspace_id and r.issue_id = v_issue.id and r.agent_id = a.id
                          and (r.completion_meta->>'returnedAt')::timestamptz >= v_issue.queued_at));
    exit when cardinality(v_seeing) > 0;
  end loop;
  if cardinality(v_seeing) = 0 then
    return null;
  end if;
  v_eligible := v_seeing;

  -- Rules first: the first enabled rule whose set conditions all match.
  select r.* into v_rule from app_public.dispatch_rules r
  where r.workspace_id = p_workspace_id and r.enabled
    and (r.priority is null or r.priority = v_issue.priority)
    and (r.project_id is null or r.project_id = v_issue.project_id)
    and (r.label_id is null or r.label_id = any(v_issue.label_ids))
  order by r.position
  limit 1;
  if v_rule.id is not null then
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_rule.target_agent_id;
  end if;
  if v_agent.id is not null then
    v_reason := 'rule:' || v_rule.id;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode, 'candidates', jsonb_build_array(v_agent.id),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  else
    v_pick := app_private.dispatch_pick(v_issue, v_ws.auto_dispatch_mode, v_eligible);
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_pick.agent_id;
    v_reason := case when v_rule.id is null then v_pick.reason
                     else format('rule:%s:target-ineligible,%s pick', v_rule.id, v_pick.method) end;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode,
      'candidates', (select jsonb_agg(a.id) from unnest(v_eligible) a),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  end if;

  -- Archived since the candidates were read: nothing now (archiving wakes the dispatcher, which picks again).
  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id and archived_at is null;
  if not found then
    return null;
  end if;
  perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', v_reason, null, null, v_dispatch);
  return jsonb_build_object('issueId', v_issue.id, 'agentId', v_agent.id, 'reason', v_reason);
end
$$;
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned open (not DONE/CANCELED) issue that an eligible agent can see (agent_sees_issue) goes, among those agents, to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

create or replace function app_private.wake_dispatcher(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if exists (select 1 from app_public.workspaces w
             where w.id = p_workspace_id and w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY') then
    -- A job per wake, without a job key: a keyed job that a worker locks between this add_job and our
    -- commit would swallow the wake and run before it can see this change (and a key would queue the workspace's
    -- writers one behind the other on its row until commit). Each job first removes the workspace's other waiting
    -- jobs (dispatch_coalesce), then dispatches until nothing is left; jobs of one workspace serialize on
    -- dispatch_next's advisory lock.
    perform graphile_worker.add_job('svc_dispatch', json_build_object('workspaceId', p_workspace_id));
  end if;
end
$$;
comment on function app_private.wake_dispatcher(p_workspace_id uuid) is 'Queues a dispatcher job for a workspace with autoDispatch on, in the caller''s transaction: it runs once the change that woke it is committed, so no wake is lost.';

create or replace function app_private.waiting_dispatch_jobs(p_workspace_id uuid)
 returns setof bigint
 language plpgsql
 stable
 set search_path to 'pg_catalog'
as $$
begin
  -- (plpgsql: a database without Graphile Worker's schema still takes the definition. The public jobs view leaves
  -- the payload out: the private table, as the migration of graphile-worker pins it.)
  return query
    select j.id from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = 'svc_dispatch' and j.locked_at is null and j.payload->>'workspaceId' = p_workspace_id::text;
end
$$;
comment on function app_private.waiting_dispatch_jobs(p_workspace_id uuid) is 'The svc_dispatch jobs of a workspace waiting to run (not locked by a worker): what dispatch_coalesce removes, and what dispatch_sweep looks for before waking a workspace.';

create or replace function app_private.dispatch_coalesce(p_workspace_id uuid)
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_done integer;
begin
  if to_regnamespace('graphile_worker') is null then
    return 0;
  end if;
  -- A dispatcher job about to hand out everything there is finishes its workspace's other waiting jobs first: each
  -- was queued by a change committed before this (it is visible), so the dispatching that follows sees it. Without
  -- this, every wake stayed a job: one tenant's heartbeats and re-queues left 3,368 waiting, drained at 6 a second,
  -- and another tenant's dispatch waited 52 s behind them (an outside probe). complete_jobs leaves locked jobs alone.
  select count(*) into v_done
  from graphile_worker.complete_jobs(array(select app_private.waiting_dispatch_jobs(p_workspace_id)));
  return v_done;
end
$$;
comment on function app_private.dispatch_coalesce(p_workspace_id uuid) is 'Completes (removes) the waiting svc_dispatch jobs of a workspace; a dispatcher job calls it before it hands out work, which covers every change that queued them. Returns how many.';

create or replace function app_private.dispatch_sweep()
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_workspace_id uuid;
  v_woken integer := 0;
begin
  if to_regnamespace('graphile_worker') is null then
    return 0;
  end if;
  -- The dispatcher runs only when woken. A job that a killed worker held stays locked (Graphile Worker frees it
  -- after hours), and no change wakes another while an ONLINE agent waits with free slots: the queue stood still.
  -- Every minute (and at worker start) a workspace with work to hand out and a live agent, and no job waiting to
  -- run, is woken; a job that finds nothing to do ends at once.
  for v_workspace_id in
    select w.id from app_public.workspaces w
    where w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY'
      and exists (select 1 from app_public.agents a
                  where a.workspace_id = w.id and a.archived_at is null and a.status <> 'OFFLINE')
      and exists (select 1 from app_public.issues i
                  where i.workspace_id = w.id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
                    and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED'))
      and not exists (select from app_private.waiting_dispatch_jobs(w.id))
  loop
    perform app_private.wake_dispatcher(v_workspace_id);
    v_woken := v_woken + 1;
  end loop;
  return v_woken;
end
$$;
comment on function app_private.dispatch_sweep() is 'Wakes the dispatcher of every workspace with autoDispatch on, queued unassigned open issues and an agent not OFFLINE, unless a dispatcher job of it is waiting to run: the recovery for a job a killed worker held. Returns how many were woken; the worker calls it at start and every minute (svc_watchdog_sweep).';
