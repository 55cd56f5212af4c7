-- The runtimes.configure tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges (default) or replaces the adapter config; unknown adapter keys are a 400. RUNTIME_UPDATED on a change.
create or replace function app_tools.runtimes_configure(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes := app_hidden.find_live_runtime(args->>'runtimeId');
  v_merge boolean := coalesce((args->>'merge')::boolean, true);
  v_updated app_public.runtimes;
begin
  -- A runtime serves any agent of the workspace: a narrowed key changed the sandbox of every agent on it.
  perform app_hidden.require_unnarrowed('A runtime serves the whole workspace');
  perform app_hidden.runtime_config_check(v_runtime, args->'config');
  -- Merged in the UPDATE, from the row as it is when the lock is had: merged from the copy read above, two concurrent
  -- calls each kept only their own key, and one acknowledged change was lost.
  update app_public.runtimes r
  set config = case when v_merge then r.config || (args->'config') else args->'config' end
  where r.id = v_runtime.id
    and (case when v_merge then r.config || (args->'config') else args->'config' end) is distinct from r.config
  returning * into v_updated;
  if v_updated.id is not null then
    perform app_hidden.record_event('RUNTIME_UPDATED', 'runtime', v_updated.id, jsonb_build_object(
      'runtimeId', v_updated.id, 'changes', jsonb_build_array('config')));
    return app_hidden.runtime_json(v_updated);
  end if;
  return app_hidden.runtime_json(app_hidden.find_runtime(v_runtime.id::text));
end
$$;
grant execute on function app_tools.runtimes_configure(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_configure(args jsonb) is 'runtimes.configure: Set adapter configuration of a runtime: merged into the current config (merge true, default) or replacing it. Accepted keys: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Unknown keys and values of the wrong type are a 400 naming config.<key>; an archived runtime is 409 runtime_archived. Emits RUNTIME_UPDATED when the config changes.';
