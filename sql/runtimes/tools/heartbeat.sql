-- The runtimes.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- bumps heartbeatAt (and merges sanitized info). Telemetry: no event.
create or replace function app_tools.runtimes_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_runtime app_public.runtimes := app_hidden.find_live_runtime(args->>'runtimeId');
begin
  if args->'info' is not null then
    perform app_hidden.runtime_assert_may_report(v_runtime);
  end if;
  update app_public.runtimes r
  set heartbeat_at = now(), info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_heartbeat(args jsonb) is 'runtimes.heartbeat: Bump heartbeatAt of a runtime (info, if given, is merged after the whitelist). An archived runtime: 409 runtime_archived (runtimes.register {runtimeId} restores it).';
