--! Previous: sha1:89848c12eb333625b47c8d0b7735eee4a2cbfb1e
--! Hash: sha1:d8056639cbf5aae3dac384ed21ee41e5fd0d8351
--! Message: Review: issues.assigned and run_closed read the open run through agent_open_run; issues_filter reads closed statuses once

--! split: 1-current.sql
-- Review of the session's change: issues.assigned and run_closed read the agent's open run through agent_open_run;
-- issues_filter reads the closed statuses once for open and openOrRunOf. Behaviour unchanged.
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
  if args->>'open' is not null or args->>'openOrRunOf' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    if args->>'open' is not null then
      where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                            else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    -- issues.assigned: open, or closed with the agent's run still open there (work it has not reported finished).
    if args->>'openOrRunOf' is not null then
      where_sql := where_sql || format(' and (i.status_id <> all(%L::uuid[]) or exists (select 1 from app_public.agent_runs r'
        || ' where r.workspace_id = $1 and r.issue_id = i.id and r.agent_id = %L::uuid and r.status in (''ACTIVE'', ''WAITING'', ''STALLED'')))',
        v_status_ids, args->>'openOrRunOf');
    end if;
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
    select jsonb_agg(x.item || jsonb_build_object('openRunId', (app_hidden.agent_open_run((x.item->>'id')::uuid, v_agent.id)).id)
                     order by x.n)
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
--! EndIncluded runs/runs.sql
