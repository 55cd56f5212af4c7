-- Watchdogs (decisions.md "Watchdogs"): AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH, each at most once
-- per (issue, kind) per 24 h and per assignment (per queueing for the SLA), off when its window is 0 or null. The worker runs the sweep every minute;
-- `svc admin sweep` runs it now. "Now" is a parameter so tests move time instead of sleeping.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text)
 returns timestamptz
 language sql
 stable
as $$
  select e.created_at from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id and e.kind = p_kind
  order by e.seq desc
  limit 1
$$;
comment on function app_private.issue_last_event_at(p_workspace_id uuid, p_issue_id uuid, p_kind text) is 'When an issue last had an event of this kind (AGENT_ASSIGNED = assigned, ISSUE_QUEUED = queued, ...); NULL if never.';

create or replace function app_private.watchdog_sweep(p_now timestamptz default now())
 returns jsonb
 language plpgsql
as $$
declare
  v_fired jsonb := '[]';
  r record;
  v_ref timestamptz;
  v_reason text;
  v_event uuid;
begin
  -- One sweep at a time (the worker's minute and `svc admin sweep` may meet): the second waits, then sees what the
  -- first fired, so no watchdog fires twice.
  perform pg_advisory_xact_lock(hashtextextended('svc.watchdog_sweep', 0));
  -- Open issues an agent holds, with when it was assigned (the latest AGENT_ASSIGNED).
  for r in
    select i.id, i.workspace_id, i.assigned_agent_id, i.priority, w.required_ack_seconds, w.assignment_sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'AGENT_ASSIGNED') as assigned_at,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_STATUS_CHANGED') as status_at,
           -- The assigned agent's runs on it: their last sign of life (usage reports, status lines, chat, waiting and
           -- resuming move it; the stale-run sweep marking one STALLED does not).
           (select max(ar.last_event_at) from app_public.agent_runs ar
            where ar.workspace_id = i.workspace_id and ar.issue_id = i.id and ar.agent_id = i.assigned_agent_id) as run_at,
           -- Its newest run there: an agent whose run waits on someone, has completed or was ended is not the one to
           -- nudge (ISSUE_STALLED is still written, for the people watching; it is not dispatched to the agent).
           (select ar.status from app_public.agent_runs ar
            where ar.workspace_id = i.workspace_id and ar.issue_id = i.id and ar.agent_id = i.assigned_agent_id
            order by ar.started_at desc, ar.id desc limit 1) as run_status,
           (select max(c.created_at) from app_public.comments c
            where c.workspace_id = i.workspace_id and c.issue_id = i.id and c.authoring_agent_id = i.assigned_agent_id) as comment_at
    from app_public.workspaces w
    join app_public.issues i on i.workspace_id = w.id and i.assigned_agent_id is not null and i.deleted_at is null
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where w.required_ack_seconds > 0 or w.assignment_sla_minutes > 0
  loop
    continue when r.assigned_at is null;
    -- AGENT_NOACK: the assigned agent neither commented, moved the status nor reported on its run within the window.
    if r.required_ack_seconds > 0 and r.assigned_at + make_interval(secs => r.required_ack_seconds) <= p_now
       and not exists (select 1 from app_public.comments c
                       where c.workspace_id = r.workspace_id and c.issue_id = r.id
                         and c.authoring_agent_id = r.assigned_agent_id and c.created_at >= r.assigned_at)
       -- A status move by the agent, or a report of its own on its run (a run status it set: waiting, completion;
       -- usage and steps): an agent that did the work and completed its run without commenting was reported as
       -- silent. Only what the agent did counts (a person canceling its run is no answer from it).
       and not exists (select 1 from app_public.activity_events e
                       where e.workspace_id = r.workspace_id and e.actor_agent_id = r.assigned_agent_id
                         and e.created_at >= r.assigned_at
                         and ((e.subject_type = 'issue' and e.subject_id = r.id
                               and e.kind in ('ISSUE_STATUS_CHANGED', 'AGENT_RUN_STATUS_CHANGED'))
                              or (e.subject_type = 'agent-run' and e.kind = 'AGENT_RUN_UPDATED'
                                  and e.subject_id in (select ar.id from app_public.agent_runs ar
                                                       where ar.issue_id = r.id and ar.agent_id = r.assigned_agent_id))))
       and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'AGENT_NOACK', p_now, r.assigned_at) then
      -- Told to the agent too (its dispatch channel, when it has a webhookUrl): it is the one that can answer.
      perform app_private.enqueue_agent_dispatch(app_private.record_event(r.workspace_id, 'AGENT_NOACK', 'issue', r.id, jsonb_build_object(
        'agentId', r.assigned_agent_id, 'issueId', r.id, 'requiredAckSeconds', r.required_ack_seconds,
        'reason', 'no comment, status change or run report from the assigned agent within the acknowledgement window')), r.assigned_agent_id);
      v_fired := v_fired || jsonb_build_object('kind', 'AGENT_NOACK', 'subjectId', r.id);
    end if;
    -- ISSUE_STALLED: nothing moved since the latest of the assignment, a status change, a comment of the assigned
    -- agent and its run's last sign of life (the reason says which).
    if r.assignment_sla_minutes > 0 then
      v_ref := r.assigned_at;
      v_reason := 'no activity since assignment';
      if r.status_at > v_ref then
        v_ref := r.status_at;
        v_reason := 'no activity since last status change';
      end if;
      if r.comment_at > v_ref then
        v_ref := r.comment_at;
        v_reason := 'no activity since the assigned agent''s last comment';
      end if;
      if r.run_at > v_ref then
        v_ref := r.run_at;
        v_reason := 'no activity since the run''s last report';
      end if;
      if v_ref + make_interval(mins => r.assignment_sla_minutes) <= p_now
         and not app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_STALLED', p_now, r.assigned_at) then
        v_event := app_private.record_event(r.workspace_id, 'ISSUE_STALLED', 'issue', r.id, jsonb_build_object(
          'issueId', r.id, 'slaMinutes', r.assignment_sla_minutes,
          'breachedByMinutes', floor(extract(epoch from p_now - (v_ref + make_interval(mins => r.assignment_sla_minutes))) / 60)::int,
          'priority', r.priority, 'reason', v_reason));
        if r.run_status is null or r.run_status in ('ACTIVE', 'STALLED') then
          perform app_private.enqueue_agent_dispatch(v_event, r.assigned_agent_id);
        end if;
        v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_STALLED', 'subjectId', r.id);
      end if;
    end if;
  end loop;

  -- ISSUE_SLA_BREACH: an open issue's own slaMinutes, counted from when it was (last) queued.
  for r in
    select i.id, i.workspace_id, i.priority, i.sla_minutes,
           app_private.issue_last_event_at(i.workspace_id, i.id, 'ISSUE_QUEUED') as queued_at
    from app_public.issues i
    join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
    where i.sla_minutes > 0 and i.queued and i.deleted_at is null
  loop
    continue when r.queued_at is null or r.queued_at + make_interval(mins => r.sla_minutes) > p_now;
    continue when app_private.watchdog_fired_recently(r.workspace_id, r.id, 'ISSUE_SLA_BREACH', p_now, r.queued_at);
    perform app_private.record_event(r.workspace_id, 'ISSUE_SLA_BREACH', 'issue', r.id, jsonb_build_object(
      'issueId', r.id, 'slaMinutes', r.sla_minutes,
      'breachedByMinutes', floor(extract(epoch from p_now - (r.queued_at + make_interval(mins => r.sla_minutes))) / 60)::int,
      'priority', r.priority));
    v_fired := v_fired || jsonb_build_object('kind', 'ISSUE_SLA_BREACH', 'subjectId', r.id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.watchdog_sweep(p_now timestamptz) is 'Fires the watchdogs due at p_now (default now()) across all workspaces and returns what fired as [{kind, subjectId}]; AGENT_NOACK and ISSUE_STALLED also go to the assigned agent''s dispatch channel (ISSUE_STALLED only while its newest run there is ACTIVE or STALLED, or it has none: not to an agent waiting on someone or done). Worker every minute; `svc admin sweep`.';

drop function if exists app_private.watchdog_fired_recently(uuid, uuid, text, timestamptz);  -- now with p_since
create or replace function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz, p_since timestamptz)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.activity_events e
                 where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
                   and e.kind = p_kind and e.created_at > greatest(p_now - interval '24 hours', p_since))
$$;
comment on function app_private.watchdog_fired_recently(p_workspace_id uuid, p_issue_id uuid, p_kind text, p_now timestamptz, p_since timestamptz) is 'True when this watchdog already fired for the issue in the 24 hours before p_now and after p_since (the assignment, or the queueing, it is about): a new assignee gets its own window.';
