-- The runs.resumeWork tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- WAITING (or STALLED) → ACTIVE; already ACTIVE: lastEventAt bumped; closed runs: 409 run_closed. Only the run's agent.
create or replace function app_tools.runs_resume_work(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
begin
  if v_run.status = 'ACTIVE' then
    update app_public.agent_runs set last_event_at = now() where id = v_run.id returning * into v_run;
  else
    v_run := app_hidden.run_set_status(v_run, 'ACTIVE', 'resumed');
  end if;
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_resume_work(args jsonb) to svc_visitor;
comment on function app_tools.runs_resume_work(args jsonb) is 'runs.resumeWork: Resume a WAITING (or STALLED) run: back to ACTIVE. Only a key linked to the run''s agent (403 otherwise).';
