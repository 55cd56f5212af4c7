-- In-app procedures, part 1: who is calling (for OWNER/ADMIN checks), API keys and plugin keys.
--
-- Layers (the same for every in-app procedure in 60-79):
--   app_public.<ns>_<op>(...)     thin SQL, security invoker: the GraphQL mutation/query (GraphQL reads
--                                 the comment as its description);
--   app_hidden.<ns>_<op>(...)     the checked logic: caller, role, scope, narrowing; security definer
--                                 only where it must reach app_private or rows the request role cannot write;
--   app_private.<op>(...)         the operation itself, trusted, workspace passed in: what `svc admin` calls.
-- Re-runnable while current: everything is dropped first.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_hidden.access_create_key',
             'app_hidden.access_keys',
             'app_hidden.access_revoke',
             'app_hidden.caller_role',
             'app_hidden.plugin_issue_api_key',
             'app_hidden.plugins',
             'app_hidden.plugins_create',
             'app_private.api_key_info',
             'app_private.create_plugin',
             'app_private.current_caller',
             'app_private.generate_api_token',
             'app_private.issue_api_key',
             'app_private.plugin_info',
             'app_private.require_admin',
             'app_private.require_scopes_within',
             'app_public.access_create',
             'app_public.access_create_personal',
             'app_public.access_create_session',
             'app_public.access_keys',
             'app_public.access_revoke',
             'app_public.plugin_issue_api_key',
             'app_public.plugins',
             'app_public.plugins_create'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
-- Dropping the types drops every function that takes or returns them.
drop type if exists app_private.caller cascade;
drop type if exists app_public.issued_api_key cascade;
drop type if exists app_public.api_key cascade;
drop type if exists app_public.plugin_info cascade;
drop type if exists app_public.api_key_scope cascade;
drop type if exists app_public.api_key_kind cascade;

------------------------------------------------------------------------------------------
-- Enums for the GraphQL surface (the tables keep text + check constraints).
------------------------------------------------------------------------------------------

create type app_public.api_key_kind as enum ('AGENT', 'PERSONAL', 'SESSION');
comment on type app_public.api_key_kind is
  'AGENT (linked to an agent), PERSONAL (a person''s long-lived key) or SESSION (short-lived, always expires). Wire format and checks are the same for all kinds.';

create type app_public.api_key_scope as enum ('READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'WRITE_PROJECTS',
  'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'WRITE_USERS', 'READ_ANALYTICS', 'SUBSCRIBE_EVENTS',
  'INVOKE_SKILLS', 'ADMIN', 'FULL');
comment on type app_public.api_key_scope is 'What a key may do (spec part 5). FULL holds every scope.';

create type app_public.issued_api_key as (
  id uuid,
  raw_key text,
  prefix text,
  kind app_public.api_key_kind,
  scopes app_public.api_key_scope[],
  project_ids uuid[],
  label_ids uuid[],
  initiative_ids uuid[],
  linked_agent_id uuid,
  plugin_id uuid,
  name text,
  expires_at timestamptz,
  created_at timestamptz
);
comment on type app_public.issued_api_key is
  'A key just issued. rawKey is shown this once and never again: only its SHA-256 is stored.';
comment on column app_public.issued_api_key.raw_key is 'The secret token (svc_sk_…). Store it now; it cannot be shown again.';
comment on column app_public.issued_api_key.prefix is 'First 14 characters of the token, shown in key lists.';
comment on column app_public.issued_api_key.project_ids is 'Narrowing: only issues/projects in these projects (with labelIds: either matches). Empty = unrestricted.';
comment on column app_public.issued_api_key.label_ids is 'Narrowing: only issues carrying one of these labels. Empty = unrestricted.';
comment on column app_public.issued_api_key.initiative_ids is 'Narrowing: only these initiatives. Empty = unrestricted.';
comment on column app_public.issued_api_key.plugin_id is 'The plugin record this key was issued under (plugin keys only).';

create type app_public.api_key as (
  id uuid,
  name text,
  kind app_public.api_key_kind,
  prefix text,
  scopes app_public.api_key_scope[],
  project_ids uuid[],
  label_ids uuid[],
  initiative_ids uuid[],
  user_id uuid,
  linked_agent_id uuid,
  plugin_id uuid,
  created_at timestamptz,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  is_current boolean
);
comment on type app_public.api_key is 'An API key as lists show it: display prefix and metadata. Never the token or its hash.';
comment on column app_public.api_key.user_id is 'The person who owns the key (null for plugin keys).';
comment on column app_public.api_key.last_used_at is 'Last authenticated call, best-effort (recorded in batches).';
comment on column app_public.api_key.is_current is 'True for the key making this request.';

create type app_public.plugin_info as (
  id uuid,
  name text,
  scopes app_public.api_key_scope[],
  approved_at timestamptz,
  created_at timestamptz
);
comment on type app_public.plugin_info is 'A plugin record. Only manifest.scopes is shown: keys issued under the plugin may hold a subset of them.';
comment on column app_public.plugin_info.scopes is 'manifest.scopes: the most a key issued under this plugin may hold.';

------------------------------------------------------------------------------------------
-- The caller, read from the key row itself (not only from settings): the key's own user decides
-- OWNER/ADMIN. A plugin key has no user of its own (it acts as the first member for authorship),
-- so it is never a workspace OWNER or ADMIN here.
------------------------------------------------------------------------------------------

create type app_private.caller as (
  key_id uuid,
  workspace_id uuid,
  user_id uuid,
  role text,
  kind text,
  plugin_id uuid,
  scopes text[],
  project_ids uuid[],
  label_ids uuid[],
  initiative_ids uuid[],
  expires_at timestamptz
);
comment on type app_private.caller is 'The calling key as the in-app procedures see it: its own user and that user''s role in the key''s workspace.';

create function app_private.current_caller() returns app_private.caller
language plpgsql stable as $$
declare
  v_key app_private.api_keys;
  v_caller app_private.caller;
begin
  select * into v_key from app_private.api_keys where id = app_hidden.current_key_id();
  if v_key.id is null or v_key.workspace_id is distinct from app_hidden.current_workspace_id() then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  v_caller.key_id := v_key.id;
  v_caller.workspace_id := v_key.workspace_id;
  v_caller.user_id := v_key.user_id;
  v_caller.kind := v_key.kind;
  v_caller.plugin_id := v_key.plugin_id;
  v_caller.scopes := v_key.scopes;
  v_caller.project_ids := v_key.project_ids;
  v_caller.label_ids := v_key.label_ids;
  v_caller.initiative_ids := v_key.initiative_ids;
  v_caller.expires_at := v_key.expires_at;
  v_caller.role := (select m.role from app_public.memberships m
                    where m.workspace_id = v_key.workspace_id and m.user_id = v_key.user_id);
  return v_caller;
end
$$;
comment on function app_private.current_caller() is
  'The calling key (svc.key_id), re-read and re-checked (401 when revoked/expired/foreign), with its own user''s workspace role.';

create function app_private.require_admin(p_caller app_private.caller) returns void
language plpgsql stable as $$
begin
  if p_caller.role is null or p_caller.role not in ('OWNER', 'ADMIN') then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
  if not ('ADMIN' = any(p_caller.scopes) or 'FULL' = any(p_caller.scopes)) then
    raise exception 'scope ADMIN required' using errcode = 'SVSCP', hint = 'ADMIN';
  end if;
end
$$;
comment on function app_private.require_admin(app_private.caller) is
  'Workspace administration: the key''s user is OWNER or ADMIN (else 403 admin_required) and the key holds ADMIN (else 403 scope_required).';

create function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[]) returns void
language plpgsql stable as $$
declare v_extra text[];
begin
  if 'FULL' = any(p_caller.scopes) then
    return;
  end if;
  v_extra := array(select s from unnest(p_scopes) s where s <> all(p_caller.scopes));
  if cardinality(v_extra) > 0 then
    raise exception 'A key cannot grant scopes it does not hold: %', array_to_string(v_extra, ', ')
      using errcode = 'SV403', detail = 'scope_escalation';
  end if;
end
$$;
comment on function app_private.require_scopes_within(app_private.caller, text[]) is
  'No escalation: a new key''s scopes must be held by the key creating it (FULL holds all). 403 scope_escalation otherwise.';

create function app_hidden.caller_role() returns text
language sql stable security definer set search_path = pg_catalog as $$
  select m.role
  from app_private.api_keys k
  join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_role() is
  'Workspace role (OWNER, ADMIN, MEMBER) of the calling key''s own user; NULL for plugin keys. Used by policies on admin-managed tables.';

------------------------------------------------------------------------------------------
-- Issuing keys. The token is generated here, in SQL, for the operator CLI and the in-app procedures
-- alike: 'svc_sk_' + base64url(32 bytes); the bytes are SHA-256 over two v4 UUIDs from
-- gen_random_uuid() (pg_strong_random, 244 random bits), so no extension is needed. Only the
-- SHA-256 of the token is stored; the token leaves in the return value once.
------------------------------------------------------------------------------------------

create function app_private.generate_api_token(out raw_key text, out prefix text, out token_hash bytea)
language plpgsql volatile as $$
begin
  raw_key := 'svc_sk_' || rtrim(translate(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64'), '+/', '-_'), '=');
  prefix := left(raw_key, 14);
  token_hash := sha256(convert_to(raw_key, 'UTF8'));
end
$$;
comment on function app_private.generate_api_token() is
  'A fresh token svc_sk_<43 base64url chars>, its 14-character display prefix and its SHA-256 (the only part stored).';

create function app_private.issue_api_key(
  p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[],
  p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamptz,
  p_name text default null, p_plugin_id uuid default null
) returns app_public.issued_api_key
language plpgsql volatile as $$
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
comment on function app_private.issue_api_key(uuid, uuid, text, uuid, text[], uuid[], uuid[], uuid[], timestamptz, text, uuid) is
  'Generates a token and stores the key (app_private.create_api_key). The one path for `svc admin create-key`, `create-workspace` and every in-app key procedure.';

create function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid) returns app_public.api_key
language sql stable as $$
  select row(k.id, k.name, k.kind::app_public.api_key_kind, k.prefix, k.scopes::app_public.api_key_scope[],
             k.project_ids, k.label_ids, k.initiative_ids, k.user_id, k.linked_agent_id, k.plugin_id,
             k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.id = p_current_key_id)::app_public.api_key
$$;
comment on function app_private.api_key_info(app_private.api_keys, uuid) is 'A key row as lists show it (no hash).';

-- The checked logic behind access.create / createPersonal / createSession.
create function app_hidden.access_create_key(
  p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[],
  p_initiative_ids uuid[], p_expires_at timestamptz, p_name text
) returns app_public.issued_api_key
language plpgsql volatile security definer set search_path = pg_catalog as $$
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
  if v_kind = 'AGENT' then
    -- A key that acts as an agent is workspace administration.
    perform app_private.require_admin(v_caller);
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it.
  if cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0 then
    if cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
      v_projects := v_caller.project_ids;
      v_labels := v_caller.label_ids;
    elsif not (v_projects <@ v_caller.project_ids and v_labels <@ v_caller.label_ids) then
      raise exception 'A narrowed key can only create keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 then
    if cardinality(v_initiatives) = 0 then
      v_initiatives := v_caller.initiative_ids;
    elsif not v_initiatives <@ v_caller.initiative_ids then
      raise exception 'A narrowed key can only create keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  -- A key never outlives the key that created it.
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;
comment on function app_hidden.access_create_key(text, uuid, text[], uuid[], uuid[], uuid[], timestamptz, text) is
  'Issues a key owned by the caller''s user: kind inferred (AGENT with a linked agent, else PERSONAL); AGENT keys need OWNER/ADMIN; scopes default to and must stay within the caller''s; narrowing inherited or narrower; never outlives the caller''s key.';

create function app_hidden.access_keys() returns setof app_public.api_key
language sql stable security definer set search_path = pg_catalog as $$
  with c as (select * from app_private.current_caller())
  select app_private.api_key_info(k, c.key_id)
  from app_private.api_keys k, c
  where k.workspace_id = c.workspace_id
    and (k.id = c.key_id
         or (c.user_id is not null and k.user_id = c.user_id)
         or (c.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(c.scopes) or 'FULL' = any(c.scopes))))
  order by k.created_at desc, k.id
$$;
comment on function app_hidden.access_keys() is
  'Keys the caller may see: its user''s own keys (and itself); every key of the workspace for OWNER/ADMIN with the ADMIN scope.';

create function app_hidden.access_revoke(p_key_id uuid) returns app_public.api_key
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_key app_private.api_keys;
begin
  select * into v_key from app_private.api_keys k
  where k.id = p_key_id and k.workspace_id = v_caller.workspace_id;
  if v_key.id is null
     or not (v_key.id = v_caller.key_id
             or (v_caller.user_id is not null and v_key.user_id = v_caller.user_id)
             or (v_caller.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes)))) then
    raise exception 'API key not found' using errcode = 'SV404', column = 'keyId';
  end if;
  -- The update fires the svc_keys NOTIFY; every API process drops its cached copy.
  v_key := app_private.revoke_api_key(v_key.id);
  return app_private.api_key_info(v_key, v_caller.key_id);
end
$$;
comment on function app_hidden.access_revoke(uuid) is
  'Revokes one of the caller''s own keys (OWNER/ADMIN: any key of the workspace). Permanent; the key fails with 401 revoked on its next call.';

------------------------------------------------------------------------------------------
-- Plugins: a record with manifest.scopes; keys issued under it hold a subset.
------------------------------------------------------------------------------------------

create function app_private.plugin_info(p app_private.plugins) returns app_public.plugin_info
language sql stable as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at)::app_public.plugin_info
$$;
comment on function app_private.plugin_info(app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval.';

create function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[]) returns app_private.plugins
language plpgsql volatile as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null or length(trim(p_name)) not between 1 and 200 then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, trim(p_name),
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n)))), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(uuid, text, text[]) is 'Records an approved plugin with manifest.scopes.';

create function app_hidden.plugins_create(p_name text, p_scopes text[]) returns app_public.plugin_info
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes));
end
$$;
comment on function app_hidden.plugins_create(text, text[]) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes.';

create function app_hidden.plugins() returns setof app_public.plugin_info
language sql stable security definer set search_path = pg_catalog as $$
  select app_private.plugin_info(p) from app_private.plugins p
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c)
  order by p.created_at, p.id
$$;
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes only).';

create function app_hidden.plugin_issue_api_key(
  p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[],
  p_expires_at timestamptz, p_name text
) returns app_public.issued_api_key
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
  v_allowed text[];
  v_extra text[];
begin
  perform app_private.require_admin(v_caller);
  select * into v_plugin from app_private.plugins where id = p_plugin_id and workspace_id = v_caller.workspace_id;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  if v_plugin.approved_at is null then
    raise exception 'Plugin is not approved' using errcode = 'SV422', detail = 'plugin_not_approved';
  end if;
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  v_allowed := array(select jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')));
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where s <> all(v_allowed));
    if cardinality(v_extra) > 0 then
      perform app_hidden.raise_invalid('scopes', format(
        'scopes must be a subset of the plugin''s manifest.scopes (%s); not allowed: %s',
        array_to_string(v_allowed, ', '), array_to_string(v_extra, ', ')));
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, p_scopes);
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    coalesce(p_project_ids, '{}'), coalesce(p_label_ids, '{}'), coalesce(p_initiative_ids, '{}'),
    p_expires_at, p_name, v_plugin.id);
end
$$;
comment on function app_hidden.plugin_issue_api_key(uuid, text[], uuid[], uuid[], uuid[], timestamptz, text) is
  'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s.';

------------------------------------------------------------------------------------------
-- The GraphQL surface (thin, invoker).
------------------------------------------------------------------------------------------

create function app_public.access_create(
  kind app_public.api_key_kind default null,
  linked_agent_id uuid default null,
  expires_in_days int default null,
  scopes app_public.api_key_scope[] default null,
  project_ids uuid[] default null,
  label_ids uuid[] default null,
  initiative_ids uuid[] default null,
  name text default null
) returns app_public.issued_api_key
language plpgsql volatile as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  if kind = 'SESSION' and expires_in_days is null then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key needs an expiry (or use accessCreateSession)');
  end if;
  return app_hidden.access_create_key(kind::text, linked_agent_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.access_create(app_public.api_key_kind, uuid, int, app_public.api_key_scope[], uuid[], uuid[], uuid[], text) is
  E'access.create: issues a key owned by you. kind is inferred when omitted: AGENT when linkedAgentId is given (needs OWNER/ADMIN), else PERSONAL. scopes default to your key''s scopes and cannot exceed them; expiresInDays 1-3650 (none = no expiry, but never later than your own key''s). The rawKey is returned once.';

create function app_public.access_create_personal(
  expires_in_days int default null,
  scopes app_public.api_key_scope[] default null,
  project_ids uuid[] default null,
  label_ids uuid[] default null,
  initiative_ids uuid[] default null,
  name text default null
) returns app_public.issued_api_key
language sql volatile as $$
  select app_public.access_create('PERSONAL', null, expires_in_days, scopes, project_ids, label_ids, initiative_ids, name)
$$;
comment on function app_public.access_create_personal(int, app_public.api_key_scope[], uuid[], uuid[], uuid[], text) is
  'access.createPersonal: a PERSONAL key owned by you, with no agent link. The rawKey is returned once.';

create function app_public.access_create_session(ttl_hours int default 24, name text default null) returns app_public.issued_api_key
language plpgsql volatile as $$
begin
  if coalesce(ttl_hours, 24) not between 1 and 168 then
    perform app_hidden.raise_invalid('ttlHours', 'must be 1 to 168');
  end if;
  return app_hidden.access_create_key('SESSION', null, null, null, null, null,
    now() + make_interval(hours => coalesce(ttl_hours, 24)), name);
end
$$;
comment on function app_public.access_create_session(int, text) is
  'access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (1-168, default 24). The rawKey is returned once.';

create function app_public.access_revoke(key_id uuid) returns app_public.api_key
language sql volatile as $$ select app_hidden.access_revoke(key_id) $$;
comment on function app_public.access_revoke(uuid) is
  'Revokes a key: your own, or (OWNER/ADMIN) any key of the workspace. Permanent: its next call fails with 401 revoked.';

create function app_public.access_keys() returns setof app_public.api_key
language sql stable as $$ select * from app_hidden.access_keys() $$;
comment on function app_public.access_keys() is
  'API keys you may see, newest first: your own; every key of the workspace for OWNER/ADMIN. Display prefix and metadata only.';

create function app_public.plugins_create(name text, scopes app_public.api_key_scope[]) returns app_public.plugin_info
language sql volatile as $$ select app_hidden.plugins_create(name, scopes::text[]) $$;
comment on function app_public.plugins_create(text, app_public.api_key_scope[]) is
  'OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it.';

create function app_public.plugins() returns setof app_public.plugin_info
language sql stable as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes only).';

create function app_public.plugin_issue_api_key(
  plugin_id uuid,
  scopes app_public.api_key_scope[],
  project_ids uuid[] default null,
  label_ids uuid[] default null,
  initiative_ids uuid[] default null,
  expires_in_days int default null,
  name text default null
) returns app_public.issued_api_key
language plpgsql volatile as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  return app_hidden.plugin_issue_api_key(plugin_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.plugin_issue_api_key(uuid, app_public.api_key_scope[], uuid[], uuid[], uuid[], int, text) is
  'plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';

grant execute on function
  app_hidden.caller_role(),
  app_hidden.access_create_key(text, uuid, text[], uuid[], uuid[], uuid[], timestamptz, text),
  app_hidden.access_keys(),
  app_hidden.access_revoke(uuid),
  app_hidden.plugins_create(text, text[]),
  app_hidden.plugins(),
  app_hidden.plugin_issue_api_key(uuid, text[], uuid[], uuid[], uuid[], timestamptz, text),
  app_public.access_create(app_public.api_key_kind, uuid, int, app_public.api_key_scope[], uuid[], uuid[], uuid[], text),
  app_public.access_create_personal(int, app_public.api_key_scope[], uuid[], uuid[], uuid[], text),
  app_public.access_create_session(int, text),
  app_public.access_revoke(uuid),
  app_public.access_keys(),
  app_public.plugins_create(text, app_public.api_key_scope[]),
  app_public.plugins(),
  app_public.plugin_issue_api_key(uuid, app_public.api_key_scope[], uuid[], uuid[], uuid[], int, text)
to svc_visitor;
