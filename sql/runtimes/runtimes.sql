-- runtimes: shapes and helpers (spec 2.10).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.runtime_info_sanitize(p_info jsonb)
 returns jsonb
 language sql
 immutable
as $$
  select coalesce(jsonb_object_agg(e.key, left(e.value #>> '{}', 500)), '{}')
  from jsonb_each(case when jsonb_typeof(p_info) = 'object' then p_info else '{}' end) e
  where e.key = any (array['runtimeVersion', 'bridgeVersion', 'codexVersion', 'containerImage', 'hostname', 'os',
                           'arch', 'workspaceRoot'])
    and jsonb_typeof(e.value) in ('string', 'number', 'boolean')
$$;
comment on function app_hidden.runtime_info_sanitize(p_info jsonb) is 'The whitelist of runtime info: runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot (as strings, at most 500 characters); every other key is dropped.';
grant execute on function app_hidden.runtime_info_sanitize(p_info jsonb) to svc_visitor;

create or replace function app_hidden.runtime_has_secret(p_runtime_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_private.runtime_secrets s
                 where s.runtime_id = p_runtime_id and s.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.runtime_has_secret(p_runtime_id uuid) is 'True when a runtime of the caller''s workspace has a shared secret (its hash is in app_private).';
grant execute on function app_hidden.runtime_has_secret(p_runtime_id uuid) to svc_visitor;

create or replace function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_workspace uuid;
begin
  select r.workspace_id into v_workspace from app_public.runtimes r
  where r.id = p_runtime_id and r.workspace_id = app_hidden.current_workspace_id();
  if v_workspace is null then
    perform app_hidden.raise_not_found('Runtime', null);
  end if;
  insert into app_private.runtime_secrets (runtime_id, workspace_id, secret_hash)
  values (p_runtime_id, v_workspace, sha256(convert_to(p_secret, 'utf8')))
  on conflict (runtime_id) do update set secret_hash = excluded.secret_hash, created_at = now();
end
$$;
comment on function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text) is 'Stores the SHA-256 of a runtime''s shared secret (the plaintext is never kept).';
grant execute on function app_hidden.runtime_set_secret(p_runtime_id uuid, p_secret text) to svc_visitor;

create or replace function app_hidden.find_runtime(p_id text, p_field text default 'runtimeId'::text)
 returns app_public.runtimes
 language plpgsql
 stable
as $$
declare v_runtime app_public.runtimes;
begin
  select * into v_runtime from app_public.runtimes
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_runtime.id is null then
    raise exception 'Runtime not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_runtime;
end
$$;
comment on function app_hidden.find_runtime(p_id text, p_field text) is 'A runtime of the caller''s workspace (archived ones included); 404 naming the field otherwise.';
grant execute on function app_hidden.find_runtime(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_runtime(p_id text, p_field text default 'runtimeId'::text)
 returns app_public.runtimes
 language plpgsql
 stable
as $$
declare v_runtime app_public.runtimes := app_hidden.find_runtime(p_id, p_field);
begin
  -- Archived: retired by an operator. Agents do not attach to it and it takes no heartbeat or settings until
  -- runtimes.register {runtimeId} restores it (the one way back, spec 4.9).
  if v_runtime.archived_at is not null then
    raise exception 'Runtime is archived; runtimes.register {runtimeId} restores it'
      using errcode = 'SV409', detail = 'runtime_archived', column = p_field;
  end if;
  return v_runtime;
end
$$;
comment on function app_hidden.find_live_runtime(p_id text, p_field text) is 'find_runtime, and 409 runtime_archived for an archived one: what attaches agents or changes a runtime (agents.heartbeat, runtimes.heartbeat, configure, reportInfo) needs it live.';
grant execute on function app_hidden.find_live_runtime(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.runtime_assert_may_report(p_runtime app_public.runtimes)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A narrowed key reports only about its own agent's runtime: it rewrote the info (workspaceRoot included) of a
  -- runtime every agent uses, as it may not configure one.
  if not app_hidden.key_unnarrowed() and p_runtime.id is distinct from
     (select a.runtime_id from app_public.agents a where a.id = app_hidden.current_agent_id()) then
    perform app_hidden.require_unnarrowed('A runtime serves the whole workspace; a narrowed key reports only about its own agent''s runtime');
  end if;
end
$$;
comment on function app_hidden.runtime_assert_may_report(p_runtime app_public.runtimes) is 'Before a runtime''s info changes (runtimes.reportInfo, runtimes.heartbeat with info): a narrowed key may change only its own agent''s runtime (403 narrowing otherwise).';
grant execute on function app_hidden.runtime_assert_may_report(p_runtime app_public.runtimes) to svc_visitor;

create or replace function app_hidden.runtime_json(r app_public.runtimes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'name', r.name, 'kind', r.kind, 'endpoint', r.endpoint,
    'providersAvailable', to_jsonb(r.providers_available), 'info', r.info, 'config', r.config,
    'ownerId', r.owner_id,
    'owner', app_hidden.user_ref_json(r.owner_id),
    'heartbeatAt', r.heartbeat_at, 'hasSecret', app_hidden.runtime_has_secret(r.id),
    '_count', jsonb_build_object('agents', (select count(*) from app_public.agents a
                                            where a.workspace_id = r.workspace_id and a.runtime_id = r.id
                                              and a.archived_at is null)),
    'archivedAt', r.archived_at, 'archived', r.archived_at is not null,
    'createdAt', r.created_at, 'updatedAt', r.updated_at)
$$;
comment on function app_hidden.runtime_json(r app_public.runtimes) is 'Runtime (spec 2.10): owner summary, _count.agents (not archived), secrets only as hasSecret.';
grant execute on function app_hidden.runtime_json(r app_public.runtimes) to svc_visitor;

create or replace function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb)
 returns void
 language plpgsql
 stable
as $$
declare
  v_allowed text[] := array['localWorkspaceTools', 'toolCapabilities', 'workspaceRoot', 'modeToolPolicyEnforced'];
  v_key text;
begin
  if jsonb_typeof(p_config) is distinct from 'object' then
    perform app_hidden.raise_invalid('config', 'config must be an object');
  end if;
  -- The CODEX adapter also takes sandbox and approval settings.
  if 'CODEX' = any (r.providers_available) then
    v_allowed := v_allowed || array['sandbox', 'approval'];
  end if;
  for v_key in select jsonb_object_keys(p_config) loop
    if not v_key = any (v_allowed) then
      perform app_hidden.raise_invalid('config.' || v_key, format('unknown adapter setting %s; this runtime accepts %s', v_key, array_to_string(v_allowed, ', ')));
    end if;
  end loop;
end
$$;
comment on function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb) is 'Adapter settings whitelist: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Anything else is a 400 on config.<key>.';
grant execute on function app_hidden.runtime_config_check(r app_public.runtimes, p_config jsonb) to svc_visitor;
