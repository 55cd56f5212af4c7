--! Previous: sha1:92b0c61175fc781ff983bb99487ae13f70e29393
--! Hash: sha1:19abebaf3452ec5c3eb12450ba63789c8c9117e3
--! Message: Narrowed keys: no runtime takeover, no agent keys, no settings over GraphQL; hidden projectId null in payloads

--! split: 1-current.sql
-- A re-probe of today's narrowing fixes: a project-narrowed key could take over a runtime (runtimes.register with its
-- runtimeId, runtimes.configure), mint a key acting as any agent (and move that agent with it), and change the
-- workspace's settings over GraphQL (MCP refused it); an issue created in a hidden project and moved into view named
-- that project in its ISSUE_CREATED. Each needs an unnarrowed key now (403 narrowing); a hidden projectId reads null.
--! Included runtimes/tools/configure.sql
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
  if not app_hidden.key_unnarrowed() then
    raise exception 'A runtime serves the whole workspace; that needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
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
--! EndIncluded runtimes/tools/configure.sql
--! Included runtimes/tools/register.sql
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
  if not app_hidden.key_unnarrowed() then
    raise exception 'A runtime serves the whole workspace; that needs a key without project, label or initiative narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
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
--! EndIncluded runtimes/tools/register.sql
--! Included auth/keys.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
  v_scopes text[] := coalesce(p_scopes, v_caller.scopes);
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  if v_caller.user_id is null then
    raise exception 'Plugin keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  -- An agent's key cannot shed its agent identity (and its run-mode gating) by minting a user key.
  if exists (select 1 from app_private.api_keys k where k.id = v_caller.key_id and k.linked_agent_id is not null) then
    raise exception 'Agent keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  if v_kind = 'AGENT' or p_linked_agent_id is not null then
    -- A key that acts as an agent is workspace administration; with an unnarrowed key, as managing agents is (a
    -- narrowed key minted one for any agent and moved that agent onto another runtime with it).
    perform app_private.require_admin(v_caller);
    if not app_hidden.key_unnarrowed() then
      raise exception 'A key acting as an agent is made with a key without project, label or initiative narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it.
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  -- A key never outlives the key that created it.
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  -- A person's own keys are bounded: each key has its own rate limit and event-stream places, which unbounded keys
  -- would make meaningless (an outside probe minted 200 in one GraphQL request). Counted one mint at a time.
  if p_linked_agent_id is null then
    perform pg_advisory_xact_lock(hashtextextended('svc.keys:' || v_caller.workspace_id || ':' || v_caller.user_id, 0));
    if (select count(*) from app_private.api_keys k
        where k.workspace_id = v_caller.workspace_id and k.user_id = v_caller.user_id and k.linked_agent_id is null
          and k.plugin_id is null and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) >= 50 then
      raise exception 'You hold 50 live keys in this workspace, the most one person may; revoke one first'
        using errcode = 'SV409', detail = 'too_many_keys';
    end if;
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;
comment on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'Issues a key owned by the caller''s user: kind inferred (AGENT with a linked agent, else PERSONAL); AGENT keys need OWNER/ADMIN; scopes default to and must stay within the caller''s; narrowing inherited or narrower; never outlives the caller''s key; at most 50 live keys of one person (not linked to an agent) per workspace (409 too_many_keys).';
grant execute on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.access_keys()
 returns setof app_public.api_key
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with c as (select * from app_private.current_caller())
  select app_private.api_key_info(k, c.key_id)
  from app_private.api_keys k, c
  where k.workspace_id = c.workspace_id
    and (k.id = c.key_id
         or (c.user_id is not null and k.user_id = c.user_id)
         or (c.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(c.scopes) or 'FULL' = any(c.scopes))))
  order by k.created_at desc, k.id
$$;
comment on function app_hidden.access_keys() is 'Keys the caller may see: its user''s own keys (and itself); every key of the workspace for OWNER/ADMIN with the ADMIN scope.';
grant execute on function app_hidden.access_keys() to svc_visitor;

create or replace function app_hidden.access_revoke(p_key_id uuid)
 returns app_public.api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_key app_private.api_keys;
  -- A narrowed key is no workspace admin here: it could revoke its owner's full key (a leaked narrowed key locking
  -- its owner out).
  v_admin boolean := v_caller.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes))
                     and app_hidden.key_unnarrowed();
  v_beyond text[];
begin
  select * into v_key from app_private.api_keys k
  where k.id = p_key_id and k.workspace_id = v_caller.workspace_id;
  if v_key.id is null
     or not (v_key.id = v_caller.key_id
             or (v_caller.user_id is not null and v_key.user_id = v_caller.user_id)
             or v_admin) then
    raise exception 'API key not found' using errcode = 'SV404', column = 'keyId';
  end if;
  -- Another of your own keys: only one that does not exceed this key, by the rule access.create applies to a
  -- new key (scopes, narrowing), so a leaked read-only or narrowed key cannot lock its owner out.
  -- A key may always revoke itself; workspace admins (OWNER/ADMIN with the ADMIN scope) any key.
  if v_key.id <> v_caller.key_id and not v_admin then
    v_beyond := app_private.scopes_not_held(v_caller, v_key.scopes);
    if cardinality(v_beyond) > 0 then
      raise exception 'A key cannot revoke a key with scopes it does not hold: %', array_to_string(v_beyond, ', ')
        using errcode = 'SV403', detail = 'scope_escalation';
    end if;
    if not app_private.narrowing_within(v_caller, v_key.project_ids, v_key.label_ids, v_key.initiative_ids) then
      raise exception 'A narrowed key can only revoke keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  -- The update fires the svc_keys NOTIFY; every API process drops its cached copy.
  v_key := app_private.revoke_api_key(v_key.id);
  return app_private.api_key_info(v_key, v_caller.key_id);
end
$$;
comment on function app_hidden.access_revoke(p_key_id uuid) is 'Revokes the calling key itself, or another of its user''s keys that does not exceed it (scopes held, narrowing within, as for access.create: else 403 scope_escalation / narrowing); OWNER/ADMIN with the ADMIN scope and an unnarrowed key: any key of the workspace. Permanent; the key fails with 401 revoked on its next call.';
grant execute on function app_hidden.access_revoke(p_key_id uuid) to svc_visitor;

drop function if exists app_hidden.authenticate(bytea);  -- its row gained agent_archived (000083), workspace_admin (000095)
create or replace function app_hidden.authenticate(p_token_hash bytea)
 returns table(key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone, revoked_at timestamp with time zone, acting_user_id uuid, agent_archived boolean, workspace_admin boolean)
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.id, k.workspace_id, k.user_id, k.kind, k.linked_agent_id, k.scopes,
         k.project_ids, k.label_ids, k.initiative_ids, k.expires_at, k.revoked_at,
         -- plugin keys with no user act as the first workspace member (spec 4.2 issues.create)
         coalesce(k.user_id, (select m.user_id from app_public.memberships m
                              where m.workspace_id = k.workspace_id order by m.created_at, m.id limit 1)),
         -- tools/list leaves out what only a live agent may call (agents.me, heartbeats, chat, run reports)
         (select a.archived_at is not null from app_public.agents a where a.id = k.linked_agent_id),
         -- and what only a workspace OWNER/ADMIN may call (settings, the workflow, webhooks)
         exists (select 1 from app_public.memberships m
                 where m.workspace_id = k.workspace_id and m.user_id = k.user_id and m.role in ('OWNER', 'ADMIN'))
  from app_private.api_keys k
  where k.token_hash = p_token_hash
$$;
comment on function app_hidden.authenticate(p_token_hash bytea) is 'Looks a key up by the SHA-256 of its token, with whether its linked agent is archived and whether its own user is OWNER or ADMIN of the workspace. Returns no row for an unknown hash; the API decides invalid / revoked / expired in that order.';
grant execute on function app_hidden.authenticate(p_token_hash bytea) to svc_visitor;

create or replace function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid)
 returns app_public.api_key
 language sql
 stable
as $$
  select row(k.id, k.name, k.kind::app_public.api_key_kind, k.prefix, k.scopes::app_public.api_key_scope[],
             k.project_ids, k.label_ids, k.initiative_ids, k.user_id, k.linked_agent_id, k.plugin_id,
             k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.id = p_current_key_id)::app_public.api_key
$$;
comment on function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid) is 'A key row as lists show it (no hash).';

create or replace function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare
  v_key app_private.api_keys;
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
begin
  if p_user_id is not null and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id) then
    perform app_hidden.raise_invalid('user', 'user is not a member of this workspace');
  end if;
  if v_kind = 'AGENT' and p_linked_agent_id is null then
    perform app_hidden.raise_invalid('linkedAgentId', 'an AGENT key needs a linked agent');
  end if;
  if v_kind in ('PERSONAL', 'SESSION') and p_linked_agent_id is not null then
    perform app_hidden.raise_invalid('linkedAgentId', format('a %s key has no linked agent (an AGENT key acts as one)', v_kind));
  end if;
  if v_kind = 'SESSION' and p_expires_at is null then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key needs an expiry');
  end if;
  -- Spec 8: a session lives 1 to 168 hours, whichever path issues it (access.createSession, access.create, the CLI).
  -- A minute of slack for the clock between computing the expiry and this check.
  if v_kind = 'SESSION' and p_expires_at > now() + interval '168 hours 1 minute' then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key expires within 168 hours; use a PERSONAL key to keep access longer');
  end if;
  if p_linked_agent_id is not null and not exists (
    select 1 from app_public.agents where id = p_linked_agent_id and workspace_id = p_workspace_id) then
    perform app_hidden.raise_not_found('Agent');
  end if;
  if exists (select 1 from unnest(p_project_ids) pid
             where not exists (select 1 from app_public.projects p where p.id = pid and p.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('projectIds', 'unknown project in this workspace');
  end if;
  if exists (select 1 from unnest(p_label_ids) lid
             where not exists (select 1 from app_public.labels l where l.id = lid and l.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('labelIds', 'unknown label in this workspace');
  end if;
  if exists (select 1 from unnest(p_initiative_ids) iid
             where not exists (select 1 from app_public.initiatives i where i.id = iid and i.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('initiativeIds', 'unknown initiative in this workspace');
  end if;
  insert into app_private.api_keys (workspace_id, user_id, plugin_id, kind, linked_agent_id, name, scopes,
                                    project_ids, label_ids, initiative_ids, expires_at, token_hash, prefix)
  -- A value given twice is stored once (`--scopes READ_ISSUES,READ_ISSUES`), in the order first given.
  values (p_workspace_id, p_user_id, p_plugin_id, v_kind, p_linked_agent_id, app_hidden.one_line(p_name, 'name', 200), app_hidden.array_distinct(p_scopes),
          app_hidden.array_distinct(coalesce(p_project_ids, '{}')), app_hidden.array_distinct(coalesce(p_label_ids, '{}')),
          app_hidden.array_distinct(coalesce(p_initiative_ids, '{}')),
          p_expires_at, p_token_hash, p_prefix)
  returning * into v_key;
  return v_key;
end
$$;
comment on function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text, p_plugin_id uuid) is 'Stores a new key (hash and display prefix only; the token is generated by the caller and shown once). Kind is inferred: AGENT with a linked agent, else PERSONAL.';

create or replace function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea)
 returns record
 language plpgsql
as $$
begin
  raw_key := 'svc_sk_' || rtrim(translate(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64'), '+/', '-_'), '=');
  prefix := left(raw_key, 14);
  token_hash := sha256(convert_to(raw_key, 'UTF8'));
end
$$;
comment on function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea) is 'A fresh token svc_sk_<43 base64url chars>, its 14-character display prefix and its SHA-256 (the only part stored).';

create or replace function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_public.issued_api_key
 language plpgsql
as $$
declare
  v_token record := app_private.generate_api_token();
  v_key app_private.api_keys;
  v_out app_public.issued_api_key;
begin
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  if exists (select 1 from unnest(p_scopes) s where s not in (select unnest(enum_range(null::app_public.api_key_scope))::text)) then
    perform app_hidden.raise_invalid('scopes', 'unknown scope');
  end if;
  if p_expires_at is not null and p_expires_at <= now() then
    perform app_hidden.raise_invalid('expiresAt', 'must be in the future');
  end if;
  v_key := app_private.create_api_key(p_workspace_id, p_user_id, p_kind, p_linked_agent_id,
    p_scopes, p_project_ids, p_label_ids, p_initiative_ids,
    p_expires_at, v_token.token_hash, v_token.prefix, p_name, p_plugin_id);
  v_out := row(v_key.id, v_token.raw_key, v_key.prefix, v_key.kind::app_public.api_key_kind,
    v_key.scopes::app_public.api_key_scope[], v_key.project_ids, v_key.label_ids, v_key.initiative_ids,
    v_key.linked_agent_id, v_key.plugin_id, v_key.name, v_key.expires_at, v_key.created_at);
  return v_out;
end
$$;
comment on function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text, p_plugin_id uuid) is 'Generates a token and stores the key (app_private.create_api_key). The one path for `svc admin create-key`, `create-workspace` and every in-app key procedure.';

create or replace function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[])
 returns text[]
 language sql
 stable
as $$
  select case when 'FULL' = any(p_caller.scopes) then '{}'::text[]
              else array(select s from unnest(p_scopes) s where s <> all(p_caller.scopes)) end
$$;
comment on function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[]) is 'The scopes of p_scopes the calling key does not hold (none when it holds FULL): the comparison behind "a key never exceeds its creator" (require_scopes_within) and access.revoke.';

create or replace function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns boolean
 language sql
 stable
as $$
  select (cardinality(p_caller.project_ids) = 0 and cardinality(p_caller.label_ids) = 0
          or ((cardinality(p_project_ids) > 0 or cardinality(p_label_ids) > 0)
              and p_project_ids <@ p_caller.project_ids and p_label_ids <@ p_caller.label_ids))
     and (cardinality(p_caller.initiative_ids) = 0
          or (cardinality(p_initiative_ids) > 0 and p_initiative_ids <@ p_caller.initiative_ids))
$$;
comment on function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Whether a key narrowed to these projects/labels/initiatives (empty = unrestricted) sees no more than the calling key: a project/label-narrowed caller needs a narrowed key within its projects and labels, an initiative-narrowed one a key within its initiatives. Used by access.create, pluginIssueApiKey (after inheriting the caller''s narrowing) and access.revoke.';

create or replace function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[])
 returns void
 language plpgsql
 stable
as $$
declare v_extra text[] := app_private.scopes_not_held(p_caller, p_scopes);
begin
  if cardinality(v_extra) > 0 then
    raise exception 'A key cannot grant scopes it does not hold: %', array_to_string(v_extra, ', ')
      using errcode = 'SV403', detail = 'scope_escalation';
  end if;
end
$$;
comment on function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[]) is 'No escalation: a new key''s scopes must be held by the key creating it (FULL holds all). 403 scope_escalation otherwise.';

create or replace function app_private.revoke_api_key(p_key_id uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare v_key app_private.api_keys;
begin
  update app_private.api_keys set revoked_at = coalesce(revoked_at, now()) where id = p_key_id returning * into v_key;
  if v_key.id is null then
    perform app_hidden.raise_not_found('API key');
  end if;
  return v_key;
end
$$;
comment on function app_private.revoke_api_key(p_key_id uuid) is 'Revokes a key permanently (revocation cannot be undone).';

create or replace function app_private.touch_api_keys(p_key_ids uuid[])
 returns void
 language sql
as $$
  update app_private.api_keys set last_used_at = now() where id = any(p_key_ids)
$$;
comment on function app_private.touch_api_keys(p_key_ids uuid[]) is 'Best-effort lastUsedAt bump, batched by the API (not one write per call).';

create or replace function app_public.access_create(kind app_public.api_key_kind default NULL::app_public.api_key_kind, linked_agent_id uuid default NULL::uuid, expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  if array_position(scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  if kind = 'SESSION' and expires_in_days is null then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key needs an expiry (or use accessCreateSession)');
  end if;
  -- Said here on the field this caller gave (create_api_key checks every path, naming ttlHours).
  if kind = 'SESSION' and expires_in_days > 7 then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key expires within 7 days (168 hours); use a PERSONAL key to keep access longer');
  end if;
  return app_hidden.access_create_key(kind::text, linked_agent_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.create: issues a key owned by you. kind is inferred when omitted: AGENT when linkedAgentId is given (needs OWNER/ADMIN), else PERSONAL. scopes default to your key''s scopes and cannot exceed them; expiresInDays 1-3650 (none = no expiry, but never later than your own key''s). The rawKey is returned once.';
grant execute on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_personal(expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language sql
as $$
  select app_public.access_create('PERSONAL', null, expires_in_days, scopes, project_ids, label_ids, initiative_ids, name)
$$;
comment on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.createPersonal: a PERSONAL key owned by you, with no agent link. The rawKey is returned once.';
grant execute on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_session(ttl_hours integer default 24, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if coalesce(ttl_hours, 24) not between 1 and 168 then
    perform app_hidden.raise_invalid('ttlHours', 'must be 1 to 168');
  end if;
  return app_hidden.access_create_key('SESSION', null, null, null, null, null,
    now() + make_interval(hours => coalesce(ttl_hours, 24)), name);
end
$$;
comment on function app_public.access_create_session(ttl_hours integer, name text) is 'access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (1-168, default 24). The rawKey is returned once.';
grant execute on function app_public.access_create_session(ttl_hours integer, name text) to svc_visitor;

create or replace function app_public.access_keys()
 returns setof app_public.api_key
 language sql
 stable
as $$ select * from app_hidden.access_keys() $$;
comment on function app_public.access_keys() is 'API keys you may see, newest first: your own; every key of the workspace for OWNER/ADMIN. Display prefix and metadata only.';
grant execute on function app_public.access_keys() to svc_visitor;

create or replace function app_public.access_revoke(key_id uuid)
 returns app_public.api_key
 language sql
as $$ select app_hidden.access_revoke(key_id) $$;
comment on function app_public.access_revoke(key_id uuid) is 'Revokes a key: the calling key itself, another of your keys whose scopes this key holds and whose narrowing is within this key''s (403 scope_escalation / narrowing otherwise), or (OWNER/ADMIN) any key of the workspace. Permanent: its next call fails with 401 revoked.';
grant execute on function app_public.access_revoke(key_id uuid) to svc_visitor;
--! EndIncluded auth/keys.sql
--! Included workspace/workspace.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.workspace_json(w app_public.workspaces)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'slug', w.slug, 'key', w.key, 'name', w.name,
    'cycleLengthDays', w.cycle_length_days, 'cycleCooldownDays', w.cycle_cooldown_days,
    'timeTrackingEnabled', w.time_tracking_enabled, 'attachmentQuotaMb', w.attachment_quota_mb,
    'requiredAckSeconds', w.required_ack_seconds, 'autoDispatch', w.auto_dispatch,
    'autoDispatchMode', w.auto_dispatch_mode, 'assignmentSlaMinutes', w.assignment_sla_minutes,
    'agentRunStaleMinutes', w.agent_run_stale_minutes)
$$;
comment on function app_hidden.workspace_json(w app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';
grant execute on function app_hidden.workspace_json(w app_public.workspaces) to svc_visitor;

create or replace function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  -- As workspace.updateSettings over MCP: settings rule the whole workspace (GraphQL let a narrowed key set them).
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';
grant execute on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) to svc_visitor;

create or replace function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  v_slug text := trim(both '-' from regexp_replace(lower(p_name), '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409';
  end if;
  if v_slug = '' then v_slug := lower(p_key); end if;
  v_slug := left(v_slug, 50);
  if exists (select 1 from app_public.workspaces where slug = v_slug) then
    v_slug := v_slug || '-' || lower(p_key);
  end if;
  insert into app_public.workspaces (name, key, slug) values (p_name, p_key, v_slug) returning * into v_ws;
  v_user := app_private.ensure_user(p_owner_email);
  insert into app_public.memberships (workspace_id, user_id, role) values (v_ws.id, v_user.id, 'OWNER');
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'owner', jsonb_build_object('id', v_user.id, 'email', v_user.email));
end
$$;
comment on function app_private.create_workspace(p_name text, p_key text, p_owner_email text) is 'Creates a workspace (statuses seeded by trigger) and makes the owner email its OWNER. The operator CLI then issues the owner''s key.';

create or replace function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
as $$
declare v_ws app_public.workspaces;
begin
  update app_public.workspaces w set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), w.name),
    cycle_length_days = coalesce(p_cycle_length_days, w.cycle_length_days),
    cycle_cooldown_days = coalesce(p_cycle_cooldown_days, w.cycle_cooldown_days),
    time_tracking_enabled = coalesce(p_time_tracking_enabled, w.time_tracking_enabled),
    attachment_quota_mb = coalesce(p_attachment_quota_mb, w.attachment_quota_mb),
    required_ack_seconds = coalesce(p_required_ack_seconds, w.required_ack_seconds),
    auto_dispatch = coalesce(p_auto_dispatch, w.auto_dispatch),
    auto_dispatch_mode = coalesce(p_auto_dispatch_mode, w.auto_dispatch_mode),
    assignment_sla_minutes = coalesce(p_assignment_sla_minutes, w.assignment_sla_minutes),
    agent_run_stale_minutes = coalesce(p_agent_run_stale_minutes, w.agent_run_stale_minutes)
  where w.id = p_workspace_id
  returning * into v_ws;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace');
  end if;
  return v_ws;
end
$$;
comment on function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create or replace function app_private.workspace_by_key(p_key text)
 returns app_public.workspaces
 language plpgsql
 stable
as $$
declare v_ws app_public.workspaces;
begin
  select * into v_ws from app_public.workspaces where key = upper(p_key) or slug = lower(p_key) or id::text = p_key;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace');
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by key, slug or id (operator CLI).';

create or replace function app_public.current_workspace()
 returns app_public.workspaces
 language sql
 stable
as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';
grant execute on function app_public.current_workspace() to svc_visitor;

create or replace function app_public.workspace_update_settings(name text default NULL::text, cycle_length_days integer default NULL::integer, cycle_cooldown_days integer default NULL::integer, time_tracking_enabled boolean default NULL::boolean, attachment_quota_mb integer default NULL::integer, required_ack_seconds integer default NULL::integer, auto_dispatch boolean default NULL::boolean, auto_dispatch_mode text default NULL::text, assignment_sla_minutes integer default NULL::integer, agent_run_stale_minutes integer default NULL::integer)
 returns app_public.workspaces
 language sql
as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes)
$$;
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) is 'OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) to svc_visitor;
--! EndIncluded workspace/workspace.sql
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.project_event_payload(p_payload jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- An initiative-narrowed key sees every project's events, but not the id of an initiative outside its
  -- narrowing (as project_json hides it).
  if p_payload->>'initiativeId' is null or cardinality(app_hidden.narrowed_initiative_ids()) = 0
     or (p_payload->>'initiativeId')::uuid = any(app_hidden.narrowed_initiative_ids()) then
    return p_payload;
  end if;
  return p_payload || '{"initiativeId": null}';
end
$$;
comment on function app_hidden.project_event_payload(p_payload jsonb) is 'A PROJECT_* event payload as the caller may read it: initiativeId null when the key''s initiative narrowing leaves that initiative out.';
grant execute on function app_hidden.project_event_payload(p_payload jsonb) to svc_visitor;

-- GraphQL reads the payload as the tools show it, never the raw column (an initiative-narrowed key read a hidden
-- initiative's id in PROJECT_* payloads there).
comment on column app_public.activity_events.payload is E'@behavior -*\nThe event''s details (spec 6.4). GraphQL: ActivityEvent.payload (app_public.activity_events_payload).';

create or replace function app_hidden.narrowed_issue_payload(p_payload jsonb)
 returns jsonb
 language sql
 stable
as $$
  -- For a narrowed key: before only when the key could see the issue there (an issue coming into its view named
  -- where it came from), and a projectId it cannot see as null (an issue created in a hidden project and moved
  -- into view: its ISSUE_CREATED named that project). Read under the key's RLS.
  select (case when p_payload ? 'before'
                    and not app_hidden.scope_passes_narrowing((p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds')
               then p_payload - 'before' else p_payload end)
         || case when p_payload->>'projectId' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      and not exists (select 1 from app_public.projects p where p.id = (p_payload->>'projectId')::uuid)
                 then jsonb_build_object('projectId', null) else '{}' end
$$;
comment on function app_hidden.narrowed_issue_payload(p_payload jsonb) is 'An event payload as a narrowed key reads it: before only for a key that could see the issue there; a projectId of a project the key cannot see is null.';
grant execute on function app_hidden.narrowed_issue_payload(p_payload jsonb) to svc_visitor;

create or replace function app_public.activity_events_payload(e app_public.activity_events)
 returns jsonb
 language sql
 stable
as $$
  select case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload)
              -- An issue coming INTO a narrowed key's view from where it may not look: its before names that place
              -- (a hidden project's id). before is for a key that saw the issue there, to hear of it leaving.
              when not (e.payload ? 'before' or e.payload ? 'projectId') or app_hidden.key_unnarrowed() then e.payload
              else app_hidden.narrowed_issue_payload(e.payload) end
$$;
comment on function app_public.activity_events_payload(e app_public.activity_events) is 'The event''s details (spec 6.4) as the key may read them (a PROJECT_* initiativeId outside its initiative narrowing is null; for a narrowed key, narrowed_issue_payload: before only where it could see the issue, a hidden projectId null).';
grant execute on function app_public.activity_events_payload(e app_public.activity_events) to svc_visitor;

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns json
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  -- json (text), not jsonb: events.recent joins its page as text (twice the pages per second).
  select case when p_with_actor then json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', app_public.activity_events_payload(e),
    'createdAt', e.created_at, 'actor', coalesce(
       case when a.id is not null then json_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
  else json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', app_public.activity_events_payload(e),
    'createdAt', e.created_at) end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape (json) from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)::jsonb
$$;

comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_UPDATED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED',
    'INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'CYCLE_CREATED', 'CYCLE_UPDATED', 'GOAL_UPDATED',
    'CYCLE_DELETED', 'ISSUE_RESTORED', 'STATUS_CREATED', 'STATUS_UPDATED', 'STATUS_DELETED',
    'WEBHOOK_CREATED', 'WEBHOOK_UPDATED', 'WEBHOOK_DELETED', 'WEBHOOK_TESTED', 'CANVAS_CREATED', 'CANVAS_UPDATED', 'CANVAS_DELETED',
    'WORKSPACE_UPDATED', 'LABEL_CREATED', 'LABEL_UPDATED', 'LABEL_DELETED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration, initiatives, cycles, statuses, webhooks, canvases); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    -- A second change in the transaction keeps the first's before (the issue's scope before the transaction).
    set payload = e.payload || case when e.payload ? 'before' then coalesce(p_extra, '{}') - 'before' else coalesce(p_extra, '{}') end
                  || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included (its before stays the first one''s).';
--! EndIncluded events/record.sql
