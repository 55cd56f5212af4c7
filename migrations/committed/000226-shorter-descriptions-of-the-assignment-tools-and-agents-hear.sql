--! Previous: sha1:75e2e57f4ac9b63872e1206c34789cfcfa80dda8
--! Hash: sha1:236e444ffae2363c5255984111774389a1292966
--! Message: Shorter descriptions of the assignment tools and agents.heartbeat

--! split: 1-current.sql
-- Shorter descriptions of issues.assign, issues.reassign, issues.unassign and agents.heartbeat (the planning tool
-- list stays within its budget); the functions' comments follow their catalog descriptions.
--! Included agents/tools/heartbeat.sql
-- The agents.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one UPDATE sets status (default ONLINE) and lastHeartbeatAt (and attaches runtimeId); the trigger writes
-- AGENT_STATUS_CHANGED only when the status changed. Keys without an agent, archived or foreign agents: 403.
create or replace function app_tools.agents_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_runtime app_public.runtimes;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
    -- Moving the agent onto another runtime is a runtime change (the agent serves the whole workspace): a narrowed
    -- key attached its agent to a shared runtime and then rewrote that runtime's info as "its own".
    if v_runtime.id is distinct from v_agent.runtime_id then
      perform app_hidden.require_unnarrowed('Attaching the agent to another runtime changes what serves the whole workspace');
    end if;
  end if;
  update app_public.agents a
  set status = coalesce(args->>'status', 'ONLINE'), last_heartbeat_at = now(),
      runtime_id = coalesce(v_runtime.id, a.runtime_id)
  where a.id = v_agent.id
  returning * into v_agent;
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt in one update; runtimeId attaches the agent to a runtime (not an archived one: 409 runtime_archived). AGENT_STATUS_CHANGED only when the status changes. Presence expires: no heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work. Keys without an agent, or linked to an archived agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
--! Included issues/tools/assign.sql
-- The issues.assign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- assigns an agent (agentId or profileKey; archived → 400 agent_archived). ISSUE_ASSIGNED + AGENT_ASSIGNED
-- (reason manual, auto false); opens an ACTIVE run (mode, default EXECUTE) and abandons the previous agent's
-- open run. Run-mode gated.
create or replace function app_tools.issues_assign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_field text := case when args ? 'agentId' then 'agentId' else 'profileKey' end;
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', v_field, args->>'profileKey');
  v_open app_public.agent_runs;
begin
  -- Same agent with an open run: nothing to do, unless another mode is asked for (the open run keeps its mode, so
  -- a silent success would leave the caller believing the agent now researches). Same agent without one: a fresh
  -- run (re-engagement).
  v_open := app_hidden.agent_open_run(v_issue.id, v_agent.id);
  if v_issue.assigned_agent_id = v_agent.id and v_open.id is not null then
    if args->>'mode' is not null and args->>'mode' <> v_open.engagement_mode then
      raise exception 'Agent % already has an open % run on this issue: it ends with runs.complete (or runs.cancel), then assign the agent in % mode',
        v_agent.profile_key, v_open.engagement_mode, args->>'mode' using errcode = 'SV409', detail = 'run_open';
    end if;
  else
    perform app_hidden.require_agent_sees_issue(v_agent, v_issue, v_field);
    perform app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'manual');
  end if;
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true)
    || jsonb_build_object('currentRun', (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
end
$$;
comment on function app_tools.issues_assign(args jsonb) is 'issues.assign: Assign an agent (agentId or profileKey) to an issue. Opens an ACTIVE run for it (mode, default EXECUTE) and abandons the previous agent''s open run; writes ISSUE_ASSIGNED and AGENT_ASSIGNED. Archived agents: 400; an agent whose keys cannot see the issue: 409 agent_cannot_see_issue.';
grant execute on function app_tools.issues_assign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/assign.sql
--! Included issues/tools/reassign.sql
-- The issues.reassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one transaction: HANDOFF comment "Handoff → @<profileKey>: <rationale>", the swap, ISSUE_ASSIGNED and
-- AGENT_ASSIGNED {reason handoff, rationale, commentId}; new ACTIVE run, previous open run abandoned. 400 for
-- an archived or the same agent, or a rationale under 10 characters. Run-mode gated.
create or replace function app_tools.issues_reassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_agent app_public.agents := app_hidden.find_live_agent(null, 'toProfileKey', args->>'toProfileKey');
  v_rationale text := btrim(args->>'rationale');
  v_comment_id uuid;
  v_run_id uuid;
begin
  if v_issue.assigned_agent_id = v_agent.id then
    raise exception 'The issue is already assigned to %', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'same_agent';
  end if;
  perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'toProfileKey');
  if length(coalesce(v_rationale, '')) < 10 then
    perform app_hidden.raise_invalid('rationale', 'rationale must be at least 10 characters');
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, format('Handoff → @%s: %s', v_agent.profile_key, v_rationale), 'HANDOFF',
          app_hidden.current_user_id(), app_hidden.current_agent_id(),
          (select r.id from app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id()) r))
  returning id into v_comment_id;
  v_run_id := app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'handoff', v_rationale, v_comment_id);
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true) || jsonb_build_object(
    'handoffCommentId', v_comment_id,
    'currentRun', (select app_hidden.run_json(r) from app_public.agent_runs r where r.id = v_run_id));
end
$$;
comment on function app_tools.issues_reassign(args jsonb) is 'issues.reassign: Hand an issue off to another agent in one step: posts the comment "Handoff → @<profileKey>: <rationale>", swaps the assignee, opens the new agent''s run and writes AGENT_ASSIGNED (reason handoff). 400 for an archived or the same agent; 409 agent_cannot_see_issue if its keys cannot see the issue; rationale at least 10 characters.';
grant execute on function app_tools.issues_reassign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/reassign.sql
--! Included issues/tools/unassign.sql
-- The issues.unassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes the issue from its agent: the agent's open runs on it end (ABANDONED, reason unassigned) and assignedAgentId
-- is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue is back in the dispatcher's pool. Not assigned:
-- no change. Run-mode gated, as assignment is.
create or replace function app_tools.issues_unassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.assigned_agent_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  perform app_hidden.end_agent_runs_on_issue(v_issue, v_issue.assigned_agent_id, 'unassigned');
  if app_hidden.current_agent_id() = v_issue.assigned_agent_id then
    -- The agent gives the issue back: the dispatcher handed it straight back to it, 17 times in 10 s (fleet probe).
    -- Its latest run says so, ended here or completed before (runs.complete, then issues.unassign).
    update app_public.agent_runs r set completion_meta = coalesce(r.completion_meta, '{}') || jsonb_build_object('returnedAt', now())
    where r.id = (select l.id from app_public.agent_runs l
                  where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id and l.agent_id = v_issue.assigned_agent_id
                  order by l.started_at desc, l.id desc limit 1);
  end if;
  update app_public.issues set assigned_agent_id = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives it back: while queued, the dispatcher does not hand it to that agent again. Not assigned: unchanged. Returns the full issue.';
--! EndIncluded issues/tools/unassign.sql
