-- The runtimes.configure tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges (default) or replaces the adapter config; unknown adapter keys are a 400. RUNTIME_UPDATED on a change.
create or replace function app_tools.runtimes_configure(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes := app_hidden.find_live_runtime(args->>'runtimeId');
  v_config jsonb;
begin
  perform app_hidden.runtime_config_check(v_runtime, args->'config');
  v_config := case when coalesce((args->>'merge')::boolean, true) then v_runtime.config || (args->'config')
                   else args->'config' end;
  if v_config is distinct from v_runtime.config then
    update app_public.runtimes set config = v_config where id = v_runtime.id returning * into v_runtime;
    perform app_hidden.record_event('RUNTIME_UPDATED', 'runtime', v_runtime.id, jsonb_build_object(
      'runtimeId', v_runtime.id, 'changes', jsonb_build_array('config')));
  end if;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_configure(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_configure(args jsonb) is 'runtimes.configure: Set adapter configuration of a runtime: merged into the current config (merge true, default) or replacing it. Accepted keys: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Unknown keys and values of the wrong type are a 400 naming config.<key>; an archived runtime is 409 runtime_archived. Emits RUNTIME_UPDATED when the config changes.';
