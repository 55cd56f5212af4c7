-- The runs.setWaiting tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ACTIVE (or STALLED) → WAITING; already WAITING: unchanged; closed runs: 409 run_closed. Only the run's agent.
create or replace function app_tools.runs_set_waiting(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
begin
  if v_run.status <> 'WAITING' then
    v_run := app_hidden.run_set_status(v_run, 'WAITING', args->>'reason');
  end if;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_set_waiting(args jsonb) to svc_visitor;
comment on function app_tools.runs_set_waiting(args jsonb) is 'runs.setWaiting: Mark a run WAITING (blocked on someone else); already waiting: unchanged. Only a key linked to the run''s agent (403 otherwise).';
