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
