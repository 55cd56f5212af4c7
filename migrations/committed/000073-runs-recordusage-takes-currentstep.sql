--! Previous: sha1:99f1f52045670ce7df399c324d9c6c81a742aed2
--! Hash: sha1:3ee0dd31b5556cfbfc0913435291ce45fbcae1f4
--! Message: runs.recordUsage takes currentStep

--! split: 1-current.sql
-- runs.recordUsage takes currentStep: what an open run is doing now (runs outside plans had no way to say it).
--! Included runs/tools/recordUsage.sql
-- The runs.recordUsage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cumulative usage: each given field replaces the stored one (idempotent); costUsd kept verbatim. Only the
-- run's agent. Telemetry: no event.
create or replace function app_tools.runs_record_usage(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', false);
begin
  -- Late usage of a closed run is accepted; a step is what an open run is doing now.
  if args ? 'currentStep' and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %; only an open run has a current step', lower(v_run.status)
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
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_record_usage(args jsonb) to svc_visitor;
comment on function app_tools.runs_record_usage(args jsonb) is 'runs.recordUsage: Report cumulative usage of a run: each given value replaces the stored one (idempotent; send totals, not increments). costUsd is stored verbatim. currentStep (one line; null clears) says what the run is doing now, for people watching; only while the run is open (409 run_closed). Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/recordUsage.sql
