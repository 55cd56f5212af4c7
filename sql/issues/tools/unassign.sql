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
  perform app_hidden.unassign_issue_agent(v_issue, 'unassigned');
  if app_hidden.current_agent_id() = v_issue.assigned_agent_id then
    -- The agent gives the issue back: the dispatcher handed it straight back to it, 17 times in 10 s (fleet probe).
    -- Its latest run says so, ended here or completed before (runs.complete, then issues.unassign).
    update app_public.agent_runs r set completion_meta = coalesce(r.completion_meta, '{}') || jsonb_build_object('returnedAt', now())
    where r.id = (select l.id from app_public.agent_runs l
                  where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id and l.agent_id = v_issue.assigned_agent_id
                  order by l.started_at desc, l.id desc limit 1);
  end if;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives it back: while queued, the dispatcher does not hand it to that agent again. Not assigned: unchanged. Returns the full issue.';
