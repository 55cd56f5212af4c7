--! Previous: sha1:bb14ed6c50cedc8fd034703881bad8d403de08e0
--! Hash: sha1:62e98bab8957fa39f4ea7cf75d2e35aed9962fcd
--! Message: Agents find their open runs: issues.assigned openRunId and closed issues with an open run; run_closed names the open run; bundle on another agent's issue

--! split: 1-current.sql
-- What the fleet probe found an agent could not tell: issues.assigned lists closed issues where the agent's run is
-- still open and gives each its openRunId; run_closed names the agent's open run on the issue; the run protocol
-- says when another agent holds the issue (mayMutateIssue false), names the arguments of the status line and usage
-- calls, and says "1 minute".
drop function if exists app_tools.issues_assigned(jsonb);
drop function if exists app_hidden.run_protocol(app_public.agent_runs);

--! Included issues/filters.sql
-- issues: the filters of issues.list, shared with issues.count.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issues_filter(args jsonb, out from_sql text, out where_sql text, out search tsquery)
 returns record
 language plpgsql
 stable
as $$
declare
  v_status text := args->>'status';
  v_status_ids uuid[];
  v_named record;
begin
  -- The caller executes `from <from_sql> where <where_sql>` with $1 = the workspace id, $2 = search and $3 = the
  -- search window's floor from a cursor (issue_search_matches; null on a first page or a count). Every
  -- value is written in as a constant (format %L): the query is planned per call, so each filter gets its own
  -- index. Paging (cursor, limit) is the caller's.
  from_sql := 'app_public.issues i';
  where_sql := 'i.workspace_id = $1 and i.deleted_at is null';
  if args->>'query' is not null then
    -- Full-text search (issues_search_gin). The matches come from a definer function (the index is unusable
    -- under RLS, see issue_search_matches); joined back to issues, the policies apply. m.rank is the match's.
    search := app_hidden.search_tsquery(args->>'query');
    from_sql := 'app_hidden.issue_search_matches($2, p_floor => $3) m join app_public.issues i on i.id = m.id';
  end if;
  if args->>'statusId' is not null then
    if v_status is not null then
      -- Both, naming different statuses, listed nothing; naming the same one, one is enough.
      perform app_hidden.raise_invalid('status', 'give status or statusId, not both');
    end if;
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
  -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
  -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_status_ids := array[v_status::uuid];
    else
      v_named := app_hidden.statuses_named(v_status);
      v_status_ids := v_named.ids;
      -- A category no status has lists nothing; a word that is neither a name nor a category is refused.
      if cardinality(v_status_ids) = 0 and not v_named.by_category then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        perform app_hidden.raise_no_status_named(v_status, 'status');
      end if;
    end if;
    where_sql := where_sql || case cardinality(v_status_ids)
      when 0 then ' and false'
      when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
      else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
  end if;
  if args->>'open' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                          else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
  end if;
  -- issues.assigned: open, or closed with the agent's run still open there (work it has not reported finished).
  if args->>'openOrRunOf' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(' and (i.status_id <> all(%L::uuid[]) or exists (select 1 from app_public.agent_runs r'
      || ' where r.workspace_id = $1 and r.issue_id = i.id and r.agent_id = %L::uuid and r.status in (''ACTIVE'', ''WAITING'', ''STALLED'')))',
      v_status_ids, args->>'openOrRunOf');
  end if;
  if args->>'priority' is not null then
    where_sql := where_sql || format(' and i.priority = %L', args->>'priority');
  end if;
  if jsonb_typeof(args->'priorities') = 'array' then
    -- Any of several ("URGENT or HIGH"): the API has checked each is a priority.
    where_sql := where_sql || format(' and i.priority = any(%L::text[])', array(select jsonb_array_elements_text(args->'priorities')));
  end if;
  if args ? 'projectId' then
    where_sql := where_sql || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    where_sql := where_sql || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    where_sql := where_sql || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    -- A parent the key cannot see reads as none (the issue shape says parentId null), in the filter too: else
    -- `parentId: null` would leave out the children of hidden issues, and the count tell that such parents exist.
    where_sql := where_sql || case
      when args->>'parentId' is not null then format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id)
      when app_hidden.issues_unrestricted() then ' and i.parent_id is null'
      else ' and app_hidden.visible_issue_id(i.parent_id) is null' end;
  end if;
  if args ? 'claimedById' then
    where_sql := where_sql || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    where_sql := where_sql || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                     app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    where_sql := where_sql || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;
end
$$;
comment on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) is 'The filters of issues.list and issues.count (query, status as id, category or name, statusId, open, openOrRunOf (open, or closed with that agent''s run open), priority, projectId, assignedAgentId, cycleId, parentId, claimedById with null = none, labelIds any of, queued) as the FROM and WHERE of a query over live issues i of the workspace ($1), with the search tsquery ($2, matches m with m.rank) when query is given; 400 naming the field for a bad value. Paging is the caller''s.';
grant execute on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) to svc_visitor;
--! EndIncluded issues/filters.sql
--! Included issues/tools/assigned.sql
-- The issues.assigned tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- issues assigned to an agent (agentId, profileKey, or the key's linked agent; 400 without any), open ones
-- unless includeClosed; paged like issues.list.
create or replace function app_tools.issues_assigned(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents;
  v_page jsonb;
begin
  if args->>'agentId' is not null or args->>'profileKey' is not null then
    v_agent := app_hidden.find_agent(args->>'agentId', args->>'profileKey',
                                     case when args ? 'agentId' then 'agentId' else 'profileKey' end);
  elsif app_hidden.current_agent_id() is not null then
    v_agent := app_hidden.find_agent(app_hidden.current_agent_id()::text, null, 'agentId');
  else
    perform app_hidden.raise_invalid('agentId', 'pass agentId or profileKey, or call with a key linked to an agent');
  end if;
  -- Without includeClosed: open issues, and closed ones where the agent's run is still open (it moved the issue to
  -- done without runs.complete): else that run was nowhere an agent looks.
  v_page := app_tools.issues_list(jsonb_build_object(
    'assignedAgentId', v_agent.id, 'limit', coalesce((args->>'limit')::int, 50), 'cursor', args->>'cursor')
    || case when coalesce((args->>'includeClosed')::boolean, false) then '{}'::jsonb
            else jsonb_build_object('openOrRunOf', v_agent.id) end);
  -- Each issue with the agent's open run there (the newest), what runs.* and comments.upsertStatus report on.
  return v_page || jsonb_build_object('items', coalesce((
    select jsonb_agg(x.item || jsonb_build_object('openRunId', (
             select r.id from app_public.agent_runs r
             where r.workspace_id = v_agent.workspace_id and r.issue_id = (x.item->>'id')::uuid and r.agent_id = v_agent.id
               and r.status in ('ACTIVE', 'WAITING', 'STALLED')
             order by r.started_at desc, r.id desc limit 1)) order by x.n)
    from jsonb_array_elements(v_page->'items') with ordinality x(item, n)), '[]'));
end
$$;
comment on function app_tools.issues_assigned(args jsonb) is 'issues.assigned: Issues assigned to an agent (agentId or profileKey; neither: the key''s own agent, 400 if none): open ones and closed ones with its run still open (includeClosed: all), each with openRunId (its open run or null). Paged like issues.list.';
grant execute on function app_tools.issues_assigned(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/assigned.sql
--! Included runs/runs.sql
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
  select 'This run is ' || lower(r.status) || coalesce((
    select '; your open run on this issue is ' || o.id from app_public.agent_runs o
    where o.workspace_id = r.workspace_id and o.issue_id = r.issue_id and o.agent_id = r.agent_id
      and o.status in ('ACTIVE', 'WAITING', 'STALLED')
    order by o.started_at desc, o.id desc limit 1), '; you have no open run on this issue')
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
--! EndIncluded runs/runs.sql
--! Included runs/tools/recordUsage.sql
-- The runs.recordUsage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cumulative usage: each given field replaces the stored one (idempotent); costUsd kept verbatim. Only the
-- run's agent. AGENT_RUN_UPDATED when a figure or the step changed (a repeated report writes nothing).
create or replace function app_tools.runs_record_usage(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', false);
  v_before app_public.agent_runs := v_run;
  v_changes text[];
begin
  -- Late usage of a closed run is accepted; a step is what an open run is doing now.
  if args ? 'currentStep' and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception '%; only an open run has a current step', app_hidden.run_closed_message(v_run)
      using errcode = 'SV409', detail = 'run_closed', column = 'currentStep';
  end if;
  update app_public.agent_runs r set
    current_step = case when args ? 'currentStep' then args->>'currentStep' else r.current_step end,
    tokens_in = coalesce((args->>'tokensIn')::bigint, r.tokens_in),
    tokens_out = coalesce((args->>'tokensOut')::bigint, r.tokens_out),
    tokens_cached = coalesce((args->>'tokensCached')::bigint, r.tokens_cached),
    cost_usd = coalesce((args->>'costUsd')::numeric, r.cost_usd),
    last_event_at = case when r.status in ('ACTIVE', 'WAITING', 'STALLED') then now() else r.last_event_at end
  where r.id = v_run.id
  returning * into v_run;
  -- Compared as text: costUsd is kept verbatim, so "1.50" after "1.5" is a change people see.
  v_changes := array_remove(array[
    case when v_run.tokens_in is distinct from v_before.tokens_in then 'tokensIn' end,
    case when v_run.tokens_out is distinct from v_before.tokens_out then 'tokensOut' end,
    case when v_run.tokens_cached is distinct from v_before.tokens_cached then 'tokensCached' end,
    case when v_run.cost_usd::text is distinct from v_before.cost_usd::text then 'costUsd' end,
    case when v_run.current_step is distinct from v_before.current_step then 'currentStep' end], null);
  if cardinality(v_changes) > 0 then
    -- Subject: the run (so an issue's own timeline is not filled with usage reports); it follows its issue's narrowing.
    perform app_hidden.record_event('AGENT_RUN_UPDATED', 'agent-run', v_run.id, jsonb_build_object(
      'runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id, 'status', v_run.status,
      'changes', to_jsonb(v_changes), 'tokensIn', v_run.tokens_in, 'tokensOut', v_run.tokens_out,
      'tokensCached', v_run.tokens_cached, 'costUsd', v_run.cost_usd, 'currentStep', v_run.current_step));
  end if;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_record_usage(args jsonb) to svc_visitor;
comment on function app_tools.runs_record_usage(args jsonb) is 'runs.recordUsage: Report cumulative usage of a run: each given value replaces the stored one (idempotent; send totals, not increments). costUsd is stored verbatim. currentStep (one line; null clears) says what the run is doing now, for people watching; only while the run is open (409 run_closed). A report that changes something writes AGENT_RUN_UPDATED (subject the run). Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/recordUsage.sql
--! Included agent/tools/contextBundle.sql
-- The agent.context.bundle tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- everything an agent needs in one call. issueId: workspace, issue (full), description, comments (last 50,
-- oldest first), attachments, relations, currentRun, artifacts, completionContract, runProtocol,
-- externalResources. threadId: workspace, thread, messages (last 50, oldest first), agent, linkedIssues.
create or replace function app_tools.agent_context_bundle(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_workspace jsonb := (select app_hidden.workspace_json(w) from app_public.workspaces w
                        where w.id = app_hidden.current_workspace_id());
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_run app_public.agent_runs;
  v_own_run app_public.agent_runs;
  v_get jsonb;
begin
  if (args->>'issueId' is null) = (args->>'threadId' is null) then
    perform app_hidden.raise_invalid(case when args->>'issueId' is null then 'issueId' else 'threadId' end,
      'give exactly one of issueId or threadId');
  end if;
  if args->>'issueId' is not null then
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    -- currentRun: the caller's own run when it is an agent with one on this issue, else the issue's current run.
    -- The contract and the run protocol are the caller's own: another agent's RESEARCH run does not make this
    -- caller read-only (spec 3.2), and its runs.complete is not this caller's to call.
    if app_hidden.current_agent_id() is not null then
      v_own_run := app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id());
    end if;
    v_run := case when v_own_run.id is not null then v_own_run else app_hidden.current_run(v_issue.id) end;
    v_get := app_tools.issues_get(jsonb_build_object('id', v_issue.id,
      'include', jsonb_build_object('attachments', true, 'relations', true)));
    return jsonb_build_object(
      'workspace', v_workspace,
      'issue', app_hidden.issue_json(v_issue, true),
      'description', v_issue.description,
      'comments', coalesce((select jsonb_agg(app_hidden.comment_json(c) order by c.created_at, c.id)
                            from (select * from app_public.comments c
                                  where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
                                  order by c.created_at desc, c.id desc limit 50) c), '[]'),
      'commentCount', (select count(*) from app_public.comments c
                       where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null),
      'attachments', v_get->'attachments',
      'relations', v_get->'relations',
      'currentRun', case when v_run.id is not null then app_hidden.run_json(v_run) end,
      -- What earlier runs on this issue reported producing (runs.complete producedArtifactIds), newest run
      -- first; an id that names one of the issue's attachments carries that attachment.
      'artifacts', coalesce((select jsonb_agg(jsonb_build_object(
                                 'id', x.artifact_id, 'runId', r.id, 'agentId', r.agent_id,
                                 'completedAt', r.completion_meta->'completedAt',
                                 'attachment', (select app_hidden.attachment_json(a) from app_public.attachments a
                                                where a.workspace_id = r.workspace_id and a.target_type = 'issue' and a.target_id = r.issue_id
                                                  and a.id::text = x.artifact_id))
                               order by r.started_at desc, r.id, x.n)
                             from (select * from app_public.agent_runs r
                                   where r.workspace_id = v_issue.workspace_id and r.issue_id = v_issue.id
                                     and r.status = 'COMPLETED'
                                     and jsonb_typeof(r.completion_meta->'producedArtifactIds') = 'array'
                                   order by r.started_at desc limit 50) r,
                                  jsonb_array_elements_text(r.completion_meta->'producedArtifactIds') with ordinality x(artifact_id, n)), '[]'),
      'completionContract', jsonb_build_object(
        'engagementMode', coalesce(v_own_run.engagement_mode, 'EXECUTE'),
        'expectedOutput', v_issue.expected_output,
        'verificationChecklist', v_issue.verification_checklist,
        'artifactRequired', v_issue.artifact_required,
        'requires', case coalesce(v_own_run.engagement_mode, 'EXECUTE')
          when 'EXECUTE' then to_jsonb(array_remove(array['summary',
            case when v_issue.artifact_required then 'producedArtifactIds' end,
            case when jsonb_array_length(v_issue.verification_checklist) > 0 then 'verificationResult' end], null))
          when 'RESEARCH' then '["summary", "confidence"]'::jsonb
          when 'REVIEW' then '["summary", "verdict"]'::jsonb
          else '["summary"]'::jsonb end),
      'runProtocol', app_hidden.run_protocol(v_own_run, v_issue),
      -- Linked external issues and pull requests (repohost.link / importIssue), with their latest local snapshot.
      'externalResources', coalesce((select jsonb_agg(app_hidden.repo_link_json(l) order by l.created_at, l.id)
                                     from app_public.external_links l
                                     where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id), '[]'));
  end if;

  if app_hidden.current_agent_id() is not null then
    v_thread := app_hidden.chat_thread_for_agent(args->>'threadId');  -- addressee gating
  else
    select * into v_thread from app_public.chat_threads t
    where t.id = app_hidden.parse_uuid(args->>'threadId', 'threadId');
    if v_thread.id is null then
      raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
    end if;
  end if;
  return jsonb_build_object(
    'workspace', v_workspace,
    'thread', app_hidden.chat_thread_json(v_thread),
    'messages', coalesce((select jsonb_agg(app_hidden.chat_message_json(m) order by m.seq)
                          from (select * from app_public.chat_messages m
                                where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                order by m.seq desc limit 50) m), '[]'),
    'messageCount', (select count(*) from app_public.chat_messages m
                     where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id),
    'agent', (select app_hidden.agent_json(a) from app_public.agents a where a.id = v_thread.agent_id),
    'linkedIssues', coalesce((select jsonb_agg(app_hidden.issue_ref_json(i, s) order by i.number)
                              from app_public.issues i left join app_public.statuses s on s.id = i.status_id
                              where i.workspace_id = v_thread.workspace_id and i.deleted_at is null
                                and (i.id = v_thread.issue_id or i.id::text in (
                                  select m.context_snapshot->>'issueId' from app_public.chat_messages m
                                  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                    and m.context_snapshot->>'issueId' is not null))), '[]'));
end
$$;
grant execute on function app_tools.agent_context_bundle(args jsonb) to svc_visitor;
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first) and commentCount (all there are), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, stepId, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50) and messageCount, agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql
