-- The runs.cancel tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ends an open run as ABANDONED (the run machine's only closing state besides COMPLETED), reason canceled:
-- AGENT_RUN_STATUS_CHANGED by trigger _810_run_abandoned; completionMeta keeps when and the caller's reason.
-- Who: the run's agent (like runs.complete), or a key acting for a person (its own user, no linked agent), who
-- may already end the run by reassigning or deleting its issue; any other key is 403 not_run_agent.
-- Closed runs: 409 run_closed. The issue keeps its assignee.
create or replace function app_tools.runs_cancel(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(args->>'runId');
begin
  -- The run's agent (as runs.complete), or a person: a key with its own user and no linked agent.
  if not coalesce(app_hidden.current_agent_id() = v_run.agent_id,
                  app_hidden.current_agent_id() is null and app_hidden.current_user_id() is not null) then
    raise exception 'Only a key linked to the run''s agent, or a person''s key, may cancel this run'
      using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  update app_public.agent_runs
  set completion_meta = coalesce(completion_meta, '{}') || jsonb_strip_nulls(jsonb_build_object(
        'canceledAt', now(), 'cancelReason', args->>'reason'))
  where id = v_run.id;
  return app_hidden.run_json(app_hidden.run_set_status(v_run, 'ABANDONED', 'canceled'));
end
$$;
grant execute on function app_tools.runs_cancel(args jsonb) to svc_visitor;
comment on function app_tools.runs_cancel(args jsonb) is 'runs.cancel: End an open run without completing it: ABANDONED, reason canceled (AGENT_RUN_STATUS_CHANGED); completionMeta keeps cancelReason. The run''s agent, or a person''s key (another agent''s key: 403). Closed runs: 409. The issue stays assigned to the agent and out of the dispatcher''s reach: to give the work back, issues.unassign (which also ends the run).';
