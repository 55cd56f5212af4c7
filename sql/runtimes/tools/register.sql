-- The runtimes.register tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- creates a runtime (never de-duplicated), or restores and updates the one named by runtimeId; owner = the
-- key's user (NULL for AGENT keys); info sanitized; secret kept as a hash. RUNTIME_REGISTERED.
create or replace function app_tools.runtimes_register(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes;
  v_providers text[] := (select coalesce(array_agg(p), '{}') from jsonb_array_elements_text(args->'providersAvailable') p);
  v_restored boolean := false;
begin
  -- Registering (or taking over, by runtimeId) a runtime is the workspace's: a narrowed key renamed and re-pointed one.
  perform app_hidden.require_unnarrowed('A runtime serves the whole workspace');
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_runtime(args->>'runtimeId');
    -- restored: it was archived (a live one named again is re-registered, not restored).
    v_restored := v_runtime.archived_at is not null;
    update app_public.runtimes r set
      name = args->>'name', kind = args->>'kind', endpoint = args->>'endpoint', providers_available = v_providers,
      info = r.info || app_hidden.runtime_info_sanitize(args->'info'), archived_at = null, heartbeat_at = now()
    where r.id = v_runtime.id
    returning * into v_runtime;
  else
    insert into app_public.runtimes (workspace_id, name, kind, endpoint, providers_available, info, owner_id)
    values (app_hidden.current_workspace_id(), args->>'name', args->>'kind', args->>'endpoint', v_providers,
            app_hidden.runtime_info_sanitize(args->'info'),
            case when app_hidden.current_agent_id() is null then app_hidden.current_key_user_id() end)
    returning * into v_runtime;
  end if;
  if args->>'secret' is not null then
    perform app_hidden.runtime_set_secret(v_runtime.id, args->>'secret');
  end if;
  perform app_hidden.record_event('RUNTIME_REGISTERED', 'runtime', v_runtime.id, jsonb_build_object(
    'runtimeId', v_runtime.id, 'name', v_runtime.name, 'kind', v_runtime.kind, 'restored', v_restored));
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_register(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_register(args jsonb) is 'runtimes.register: Register a runtime (a machine or service running agents). Not de-duplicated: each call creates one, unless runtimeId names an existing (possibly archived) runtime, which is restored and updated. ownerId is the key''s user (null for AGENT keys); a secret is stored only as a hash (hasSecret). Emits RUNTIME_REGISTERED.';
