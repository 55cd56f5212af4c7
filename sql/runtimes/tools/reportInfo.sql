-- The runtimes.reportInfo tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges the sanitized info into the runtime (default: the calling agent's runtime). Telemetry: no event.
create or replace function app_tools.runtimes_report_info(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes;
  v_runtime_id uuid;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
  else
    if app_hidden.current_agent_id() is null then
      raise exception 'Give runtimeId, or call with a key linked to an agent' using errcode = 'SV400', column = 'runtimeId';
    end if;
    select a.runtime_id into v_runtime_id from app_public.agents a where a.id = app_hidden.current_agent_id();
    if v_runtime_id is null then
      raise exception 'The calling agent is not attached to a runtime (agents.heartbeat {runtimeId})'
        using errcode = 'SV409', detail = 'no_runtime';
    end if;
    v_runtime := app_hidden.find_live_runtime(v_runtime_id::text);
  end if;
  perform app_hidden.runtime_assert_may_report(v_runtime);
  update app_public.runtimes r set info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_report_info(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_report_info(args jsonb) is 'runtimes.reportInfo: Report runtime metadata; only the whitelisted keys (runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot) are stored, merged. Without runtimeId: the runtime of the calling key''s agent.';
