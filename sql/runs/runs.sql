-- runs: the run contract, run changes by the run's agent, and the stale-run sweep.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.run_contract_version()
 returns text
 language sql
 immutable parallel safe
as $$ select '2026-11-01'::text $$;
comment on function app_hidden.run_contract_version() is 'Version of the run contract (completion gates, runProtocol). Stored in completionMeta.contractVersion by runs.complete and shown in agent.context.bundle runProtocol.';
grant execute on function app_hidden.run_contract_version() to svc_visitor;

create or replace function app_hidden.find_run(p_run_id text, p_field text default 'runId'::text)
 returns app_public.agent_runs
 language plpgsql
 stable
as $$
declare v_run app_public.agent_runs;
begin
  -- A deleted issue's runs are gone with it (404, as its comments and events), until it is restored.
  select r.* into v_run from app_public.agent_runs r
  join app_public.issues i on i.id = r.issue_id and i.deleted_at is null
  where r.id = app_hidden.parse_uuid(p_run_id, p_field) and r.workspace_id = app_hidden.current_workspace_id();
  if v_run.id is null then
    raise exception 'Run not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_run;
end
$$;
comment on function app_hidden.find_run(p_run_id text, p_field text) is 'A run the caller can see (its issue is visible to the key and not deleted); 404 naming the field otherwise.';
grant execute on function app_hidden.find_run(p_run_id text, p_field text) to svc_visitor;

create or replace function app_hidden.run_closed_message(r app_public.agent_runs)
 returns text
 language sql
 stable
as $$
  -- An agent reporting on a run that ended (unassigned and assigned again, canceled, superseded) is told which run is
  -- its open one on the issue, if any: it kept reporting on the old id.
  select 'This run is ' || lower(r.status) || coalesce('; your open run on this issue is ' || (app_hidden.agent_open_run(r.issue_id, r.agent_id)).id,
                                                   '; you have no open run on this issue')
$$;
comment on function app_hidden.run_closed_message(r app_public.agent_runs) is 'The text of 409 run_closed for the run''s own agent: the run''s status, and the id of its open run on the same issue when it has one.';
grant execute on function app_hidden.run_closed_message(r app_public.agent_runs) to svc_visitor;

create or replace function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(p_run_id);
begin
  if app_hidden.current_agent_id() is distinct from v_run.agent_id then
    raise exception 'Only a key linked to the run''s agent may change this run' using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if p_open_only and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception '%', app_hidden.run_closed_message(v_run) using errcode = 'SV409', detail = 'run_closed';
  end if;
  return v_run;
end
$$;
comment on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) is 'A visible run locked FOR UPDATE, after checking that the calling key is linked to the run''s agent (403 not_run_agent) and, with p_open_only, that it is not COMPLETED or ABANDONED (409 run_closed). The entry of recordUsage, complete, setWaiting and resumeWork.';
grant execute on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) to svc_visitor;

create or replace function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'from', p_from,
    'to', r.status, 'engagementMode', r.engagement_mode, 'reason', p_reason)
$$;
comment on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) is 'Payload of AGENT_RUN_STATUS_CHANGED: runId, agentId, issueId, from, to, engagementMode, reason.';
grant execute on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_from text := r.status;
begin
  if p_to = 'ABANDONED' then  -- its event is written by trigger _810_run_abandoned (every path to ABANDONED)
    perform set_config('svc.run_end_reason', coalesce(p_reason, ''), true);
  end if;
  update app_public.agent_runs
  set status = p_to, last_event_at = now(),
      finished_at = case when p_to in ('COMPLETED', 'ABANDONED') then now() end,
      -- Every completed run keeps the run contract version (spec 2.11), those completed for the agent too (a plan
      -- step accepted: reason step_done); runs.complete has written its own completionMeta already.
      completion_meta = case when p_to = 'COMPLETED' and completion_meta is null
                             then jsonb_build_object('contractVersion', app_hidden.run_contract_version(), 'completedAt', now(), 'reason', p_reason)
                             else completion_meta end
  where id = r.id
  returning * into r;
  if p_to = 'ABANDONED' then
    perform set_config('svc.run_end_reason', '', true);
  else
    perform app_hidden.record_event('AGENT_RUN_STATUS_CHANGED', 'issue', r.issue_id,
      app_hidden.run_status_payload(r, v_from, p_reason));
  end if;
  return r;
end
$$;
comment on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) is 'Moves a run to another status (finishedAt on COMPLETED/ABANDONED, lastEventAt bumped; a COMPLETED run without completionMeta gets {contractVersion, completedAt, reason}) and writes AGENT_RUN_STATUS_CHANGED (subject: the run''s issue; for ABANDONED trigger _810_run_abandoned writes it with p_reason).';
grant execute on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_list_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.run_json(r) || jsonb_build_object(
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                        'workspace', jsonb_build_object('key', w.key))
              from app_public.issues i join app_public.workspaces w on w.id = i.workspace_id
              where i.id = r.issue_id))
$$;
comment on function app_hidden.run_list_json(r app_public.agent_runs) is 'A runs.list row (spec 4.9): the run''s scalars, agent {id, profileKey, name} and issue {id, key, number, title, workspace {key}}.';
grant execute on function app_hidden.run_list_json(r app_public.agent_runs) to svc_visitor;

create or replace function app_hidden.run_protocol(r app_public.agent_runs, p_issue app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  with ctx as (
    select coalesce((select w.agent_run_stale_minutes from app_public.workspaces w where w.id = p_issue.workspace_id), 30) as stale,
           -- An agent reading an issue another agent holds: that agent's work, not this one's.
           case when r.id is null and p_issue.assigned_agent_id is not null
                     and p_issue.assigned_agent_id is distinct from app_hidden.current_agent_id()
                     and app_hidden.current_agent_id() is not null
                then (select a.profile_key from app_public.agents a where a.id = p_issue.assigned_agent_id) end as holder)
  select jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(),
    'runId', r.id,
    'engagementMode', coalesce(r.engagement_mode, 'EXECUTE'),
    'modeInstruction', case coalesce(r.engagement_mode, 'EXECUTE')
      when 'EXECUTE' then 'Do the work. Before runs.complete: attach at least one produced artifact when artifactRequired, and report every verificationChecklist item done in verificationResult.'
      when 'RESEARCH' then 'Investigate and report; do not change the issue (update, transition, assign, labels are rejected). Complete with a summary and a confidence (LOW, MEDIUM, HIGH).'
      when 'REVIEW' then 'Review the work and do not change the issue. Complete with a summary and a verdict: APPROVE or REQUEST_CHANGES.'
      when 'DISCUSS' then 'Reply only (comments, chat); do not change the issue. Complete with a summary and nothing else.'
    end,
    'stepId', r.step_id,
    -- What the agent reads to know how to work: every way out of a run that an agent took wrongly (an outside probe
    -- playing an MCP-only agent) is said here, since agents read the catalog and the bundle, not the README.
    'protocolInstruction', case
      when ctx.holder is not null then 'This issue is assigned to another agent (' || ctx.holder || '): its work and runs are that agent''s. '
        || 'Comment to help; leave its status and fields to that agent or a person (issues.reassign hands work over).'
      when r.id is null then 'You have no open run on this issue: nothing to report or complete here. '
        || 'If it is still assigned to you and its work is done, move it to a done status with issues.transition (an open assigned issue keeps a dispatch slot).'
      when r.status in ('COMPLETED', 'ABANDONED') then 'This run is closed (' || r.status || '). '
        || 'If the issue is still assigned to you and its work is done, move it to a done status with issues.transition (an open assigned issue keeps a dispatch slot); to hand it back, issues.unassign.'
      else 'Keep one rolling status line with comments.upsertStatus {issueId, body}; report cumulative token usage with runs.recordUsage {runId, tokensIn, tokensOut}; '
        || 'call runs.setWaiting while blocked on someone and runs.resumeWork when you continue. '
        || case when r.step_id is not null
             then 'This run works on execution step ' || r.step_id || ': finish it with executionPlans.transitionStep {stepId, status: DONE} '
               || '(REVIEW where the plan reviews its steps), which completes this run; runs.complete alone would leave the step READY and its plan waiting. '
             when coalesce(r.engagement_mode, 'EXECUTE') = 'EXECUTE'
             then 'When the work is done, do both: move the issue to a done status with issues.transition (an open assigned issue keeps your '
               || 'dispatch slot) and close this run with runs.complete {runId, summary, ...}; neither does the other. '
               || 'To give the work back instead, issues.unassign (runs.cancel ends the run but leaves the issue assigned to you). '
             else 'Finish with runs.complete {runId, summary, ...}. '
           end
        || 'A run with no run activity (status line, comments, usage, changes to its issue, resumeWork) for '
        || ctx.stale || case when ctx.stale = 1 then ' minute' else ' minutes' end
        || ' is marked STALLED; agents.heartbeat keeps you ONLINE, not the run active.'
    end,
    'mayMutateIssue', ctx.holder is null
      and (r.id is null or (r.engagement_mode = 'EXECUTE' and r.status in ('ACTIVE', 'WAITING', 'STALLED'))))
  from ctx
$$;
comment on function app_hidden.run_protocol(r app_public.agent_runs, p_issue app_public.issues) is 'runProtocol of agent.context.bundle: contractVersion, runId, engagementMode, modeInstruction, stepId (a plan step''s run), protocolInstruction (how to work, report and finish this run, what to do with no open run, or that another agent holds the issue), mayMutateIssue (false in RESEARCH, REVIEW and DISCUSS runs, once a run is closed, and for an agent on an issue another agent holds).';
grant execute on function app_hidden.run_protocol(r app_public.agent_runs, p_issue app_public.issues) to svc_visitor;

create or replace function app_private.sweep_stale_runs(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_run app_public.agent_runs;
  v_fired jsonb := '[]';
begin
  for v_run in
    select r.* from app_public.agent_runs r join app_public.workspaces w on w.id = r.workspace_id
    where r.status = 'ACTIVE' and r.last_event_at < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by r.workspace_id, r.last_event_at
    for update of r skip locked
  loop
    update app_public.agent_runs set status = 'STALLED' where id = v_run.id;
    perform app_private.record_event(v_run.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', v_run.issue_id,
      jsonb_build_object('runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id, 'from', 'ACTIVE',
        'to', 'STALLED', 'engagementMode', v_run.engagement_mode, 'reason', 'stale',
        'quietMinutes', floor(extract(epoch from p_now - v_run.last_event_at) / 60)::int));
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_RUN_STALLED', 'subjectId', v_run.id,
      'issueId', v_run.issue_id, 'agentId', v_run.agent_id, 'workspaceId', v_run.workspace_id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.sweep_stale_runs(p_now timestamp with time zone) is 'Stale-run sweep (decisions: Runs): ACTIVE runs whose lastEventAt is older than the workspace''s agentRunStaleMinutes at p_now become STALLED, each with AGENT_RUN_STATUS_CHANGED (reason stale). Returns [{kind: AGENT_RUN_STALLED, subjectId: runId, issueId, agentId, workspaceId}]. Run every minute by the worker (cron svc_watchdog_sweep, with the watchdogs) and by svc admin sweep.';
