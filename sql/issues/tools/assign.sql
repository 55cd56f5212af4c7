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
