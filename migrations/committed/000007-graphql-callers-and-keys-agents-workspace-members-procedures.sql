--! Previous: sha1:c61e7d71b3f74324b2ea941e560d5324e42d05e6
--! Hash: sha1:69f7c7b296b75053033e97283169f3c844a381c2
--! Message: GraphQL callers and keys, agents/workspace/members procedures, dispatch rules, in-app records

--! split: 1-current.sql
-- Enter migration here

--! split: 60-callers-and-keys.sql
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

--! split: 61-agents-workspace-members.sql
-- In-app procedures, part 2: agents (create, update, archive, delete), workspace settings, members.
-- All are workspace administration: the key's own user is OWNER or ADMIN and the key holds ADMIN.
-- Events come from the existing triggers: AGENT_CREATED / AGENT_UPDATED / AGENT_DELETED on agents,
-- MEMBERSHIP_CREATED / _ROLE_CHANGED / _REMOVED on memberships.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_hidden.agents_create',
             'app_hidden.agents_delete',
             'app_hidden.agents_set_archived',
             'app_hidden.agents_update',
             'app_hidden.members_add',
             'app_hidden.members_remove',
             'app_hidden.members_set_role',
             'app_hidden.workspace_update_settings',
             'app_private.check_membership_change',
             'app_private.delete_agent',
             'app_private.find_agent',
             'app_private.find_membership',
             'app_private.remove_member',
             'app_private.set_agent_archived',
             'app_private.set_member_role',
             'app_private.update_agent',
             'app_private.update_workspace_settings',
             'app_public.agents_archive',
             'app_public.agents_create',
             'app_public.agents_delete',
             'app_public.agents_unarchive',
             'app_public.agents_update',
             'app_public.current_workspace',
             'app_public.members_add',
             'app_public.members_remove',
             'app_public.members_set_role',
             'app_public.viewer',
             'app_public.viewer_role',
             'app_public.workspace_update_settings'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
drop type if exists app_public.membership_role cascade;

create type app_public.membership_role as enum ('OWNER', 'ADMIN', 'MEMBER');
comment on type app_public.membership_role is 'A member''s role: OWNER and ADMIN administer the workspace; MEMBER works in it.';

------------------------------------------------------------------------------------------
-- Who am I: the starting points of an in-app client.
------------------------------------------------------------------------------------------

create function app_public.current_workspace() returns app_public.workspaces
language sql stable as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';

create function app_public.viewer() returns app_public.users
language sql stable as $$
  select u.* from app_public.users u where u.id = app_hidden.current_user_id()
$$;
comment on function app_public.viewer() is 'The person the key making this request acts as (for a plugin key: the first member).';

create function app_public.viewer_role() returns app_public.membership_role
language sql stable as $$ select app_hidden.caller_role()::app_public.membership_role $$;
comment on function app_public.viewer_role() is
  'Role of the key''s own user in this workspace (null for plugin keys). OWNER and ADMIN may use the administrative mutations.';

------------------------------------------------------------------------------------------
-- Agents
------------------------------------------------------------------------------------------

create function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) returns app_public.agents
language plpgsql stable as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(uuid, uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create function app_private.update_agent(
  p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text,
  p_runtime_mode text, p_max_concurrent int, p_webhook_url text, p_clear_webhook_url boolean default false
) returns app_public.agents
language plpgsql volatile as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  update app_public.agents a set
    name = coalesce(p_name, a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(p_capabilities, a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(uuid, uuid, text, text, text[], text, text, int, text, boolean) is
  'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) returns app_public.agents
language plpgsql volatile as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(uuid, uuid, boolean) is
  'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent.';

create function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) returns app_public.agents
language plpgsql volatile as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;
  exception when foreign_key_violation then
    raise exception 'Agent % still has issues or comments; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(uuid, uuid) is
  'Deletes an agent that no issue or comment refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

create function app_hidden.agents_create(
  p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text,
  p_max_concurrent int, p_webhook_url text
) returns app_public.agents
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(text, text, text[], text, text, int, text) is 'OWNER/ADMIN: app_private.create_agent in the caller''s workspace.';

create function app_hidden.agents_update(
  p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text,
  p_max_concurrent int, p_webhook_url text, p_clear_webhook_url boolean
) returns app_public.agents
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(uuid, text, text, text[], text, text, int, text, boolean) is 'OWNER/ADMIN: app_private.update_agent in the caller''s workspace.';

create function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) returns app_public.agents
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(uuid, boolean) is 'OWNER/ADMIN: archive or restore an agent of the caller''s workspace.';

create function app_hidden.agents_delete(p_agent_id uuid) returns app_public.agents
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(uuid) is 'OWNER/ADMIN: delete an agent of the caller''s workspace.';

create function app_public.agents_create(
  profile_key text,
  name text,
  capabilities text[] default '{}',
  provider text default 'CUSTOM',
  runtime_mode text default 'PERSISTENT',
  max_concurrent int default 1,
  webhook_url text default null
) returns app_public.agents
language sql volatile as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(text, text, text[], text, text, int, text) is
  'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';

create function app_public.agents_update(
  agent_id uuid,
  name text default null,
  profile_key text default null,
  capabilities text[] default null,
  provider text default null,
  runtime_mode text default null,
  max_concurrent int default null,
  webhook_url text default null,
  clear_webhook_url boolean default false
) returns app_public.agents
language sql volatile as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(uuid, text, text, text[], text, text, int, text, boolean) is
  'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';

create function app_public.agents_archive(agent_id uuid) returns app_public.agents
language sql volatile as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(uuid) is
  'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';

create function app_public.agents_unarchive(agent_id uuid) returns app_public.agents
language sql volatile as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';

create function app_public.agents_delete(agent_id uuid) returns app_public.agents
language sql volatile as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(uuid) is
  'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';

------------------------------------------------------------------------------------------
-- Workspace settings
------------------------------------------------------------------------------------------

create function app_private.update_workspace_settings(
  p_workspace_id uuid, p_name text, p_cycle_length_days int, p_cycle_cooldown_days int, p_time_tracking_enabled boolean,
  p_attachment_quota_mb int, p_required_ack_seconds int, p_auto_dispatch boolean, p_auto_dispatch_mode text,
  p_assignment_sla_minutes int, p_agent_run_stale_minutes int
) returns app_public.workspaces
language plpgsql volatile as $$
declare v_ws app_public.workspaces;
begin
  update app_public.workspaces w set
    name = coalesce(p_name, w.name),
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
comment on function app_private.update_workspace_settings(uuid, text, int, int, boolean, int, int, boolean, text, int, int) is
  'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create function app_hidden.workspace_update_settings(
  p_name text, p_cycle_length_days int, p_cycle_cooldown_days int, p_time_tracking_enabled boolean,
  p_attachment_quota_mb int, p_required_ack_seconds int, p_auto_dispatch boolean, p_auto_dispatch_mode text,
  p_assignment_sla_minutes int, p_agent_run_stale_minutes int
) returns app_public.workspaces
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(text, int, int, boolean, int, int, boolean, text, int, int) is
  'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';

create function app_public.workspace_update_settings(
  name text default null,
  cycle_length_days int default null,
  cycle_cooldown_days int default null,
  time_tracking_enabled boolean default null,
  attachment_quota_mb int default null,
  required_ack_seconds int default null,
  auto_dispatch boolean default null,
  auto_dispatch_mode text default null,
  assignment_sla_minutes int default null,
  agent_run_stale_minutes int default null
) returns app_public.workspaces
language sql volatile as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes)
$$;
comment on function app_public.workspace_update_settings(text, int, int, boolean, int, int, boolean, text, int, int) is
  'OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';

------------------------------------------------------------------------------------------
-- Members. Only an OWNER grants OWNER or changes/removes an OWNER; the last OWNER stays.
-- Email invites are disabled (spec 4.14): adding a member adds (or creates) the user directly.
------------------------------------------------------------------------------------------

create function app_private.find_membership(p_workspace_id uuid, p_user_id uuid) returns app_public.memberships
language plpgsql stable as $$
declare v_m app_public.memberships;
begin
  select * into v_m from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if v_m.id is null then
    raise exception 'Member not found' using errcode = 'SV404', column = 'userId';
  end if;
  return v_m;
end
$$;
comment on function app_private.find_membership(uuid, uuid) is 'The membership of this user in this workspace, else 404.';

create function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text) returns app_public.memberships
language plpgsql volatile as $$
declare v_m app_public.memberships := app_private.find_membership(p_workspace_id, p_user_id);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  if v_m.role = 'OWNER' and p_role <> 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner';
  end if;
  update app_public.memberships set role = p_role where id = v_m.id returning * into v_m;
  return v_m;
end
$$;
comment on function app_private.set_member_role(uuid, uuid, text) is
  'Changes a member''s role (MEMBERSHIP_ROLE_CHANGED by trigger when it changes); the last OWNER cannot be demoted (409 last_owner).';

create function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) returns app_public.memberships
language plpgsql volatile as $$
declare v_m app_public.memberships := app_private.find_membership(p_workspace_id, p_user_id);
begin
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner';
  end if;
  -- A former member's keys for this workspace stop working at once.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and user_id = p_user_id and revoked_at is null;
  delete from app_public.memberships where id = v_m.id;
  return v_m;
end
$$;
comment on function app_private.remove_member(uuid, uuid) is
  'Removes a member (MEMBERSHIP_REMOVED by trigger) and revokes their keys in the workspace; the last OWNER stays (409 last_owner).';

create function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text) returns void
language plpgsql stable as $$
begin
  perform app_private.require_admin(p_caller);
  if (p_old_role = 'OWNER' or p_new_role = 'OWNER') and p_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
end
$$;
comment on function app_private.check_membership_change(app_private.caller, text, text) is
  'OWNER/ADMIN may manage members; only an OWNER may touch the OWNER role (403 owner_required).';

create function app_hidden.members_add(p_email text, p_role text) returns app_public.memberships
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_result jsonb;
begin
  perform app_private.check_membership_change(v_caller, null, p_role);
  if exists (select 1 from app_public.memberships m join app_public.users u on u.id = m.user_id
             where m.workspace_id = v_caller.workspace_id and lower(u.email) = lower(p_email)) then
    raise exception '% is already a member (change the role with membersSetRole)', p_email
      using errcode = 'SV409', detail = 'already_member';
  end if;
  v_result := app_private.add_member(v_caller.workspace_id, p_email, p_role);
  return app_private.find_membership(v_caller.workspace_id, (v_result->'user'->>'id')::uuid);
end
$$;
comment on function app_hidden.members_add(text, text) is 'OWNER/ADMIN: app_private.add_member (the `svc admin add-member` function) for a new member; 409 already_member otherwise.';

create function app_hidden.members_set_role(p_user_id uuid, p_role text) returns app_public.memberships
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, p_role);
  return app_private.set_member_role(v_caller.workspace_id, p_user_id, p_role);
end
$$;
comment on function app_hidden.members_set_role(uuid, text) is 'OWNER/ADMIN: app_private.set_member_role in the caller''s workspace.';

create function app_hidden.members_remove(p_user_id uuid) returns app_public.memberships
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, null);
  return app_private.remove_member(v_caller.workspace_id, p_user_id);
end
$$;
comment on function app_hidden.members_remove(uuid) is 'OWNER/ADMIN: app_private.remove_member in the caller''s workspace.';

create function app_public.members_add(email text, role app_public.membership_role default 'MEMBER') returns app_public.memberships
language sql volatile as $$ select app_hidden.members_add(email, role::text) $$;
comment on function app_public.members_add(text, app_public.membership_role) is
  'OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';

create function app_public.members_set_role(user_id uuid, role app_public.membership_role) returns app_public.memberships
language sql volatile as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(uuid, app_public.membership_role) is
  'OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';

create function app_public.members_remove(user_id uuid) returns app_public.memberships
language sql volatile as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(uuid) is
  'OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';

grant execute on function
  app_public.current_workspace(),
  app_public.viewer(),
  app_public.viewer_role(),
  app_hidden.agents_create(text, text, text[], text, text, int, text),
  app_hidden.agents_update(uuid, text, text, text[], text, text, int, text, boolean),
  app_hidden.agents_set_archived(uuid, boolean),
  app_hidden.agents_delete(uuid),
  app_hidden.workspace_update_settings(text, int, int, boolean, int, int, boolean, text, int, int),
  app_hidden.members_add(text, text),
  app_hidden.members_set_role(uuid, text),
  app_hidden.members_remove(uuid),
  app_public.agents_create(text, text, text[], text, text, int, text),
  app_public.agents_update(uuid, text, text, text[], text, text, int, text, boolean),
  app_public.agents_archive(uuid),
  app_public.agents_unarchive(uuid),
  app_public.agents_delete(uuid),
  app_public.workspace_update_settings(text, int, int, boolean, int, int, boolean, text, int, int),
  app_public.members_add(text, app_public.membership_role),
  app_public.members_set_role(uuid, app_public.membership_role),
  app_public.members_remove(uuid)
to svc_visitor;

--! split: 62-dispatch-rules.sql
-- Dispatch rules (spec 4.14, in-app only; decisions.md "Dispatch"): an ordered list per workspace.
-- A rule's conditions (priority, labelId, projectId) must all match when set; the first matching rule
-- names the target agent. Stored now; the dispatcher reads them later. OWNER/ADMIN manage them.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_hidden.dispatch_rules_check_refs',
             'app_hidden.require_workspace_admin_key',
             'app_public.dispatch_rules_create',
             'app_public.dispatch_rules_delete',
             'app_public.dispatch_rules_reorder',
             'app_public.dispatch_rules_update'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
drop table if exists app_public.dispatch_rules cascade;

create function app_hidden.require_workspace_admin_key() returns void
language plpgsql stable security definer set search_path = pg_catalog as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is
  'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';

create table app_public.dispatch_rules (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  position int not null check (position >= 0),
  name text check (length(name) between 1 and 200),
  priority text check (priority in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  label_id uuid,
  project_id uuid,
  target_agent_id uuid not null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  -- Deferred, so a reorder can swap positions inside one statement.
  unique (workspace_id, position) deferrable initially deferred,
  foreign key (workspace_id, label_id) references app_public.labels (workspace_id, id) on delete cascade,
  foreign key (workspace_id, project_id) references app_public.projects (workspace_id, id) on delete cascade,
  foreign key (workspace_id, target_agent_id) references app_public.agents (workspace_id, id) on delete cascade
);
create index dispatch_rules_label_idx on app_public.dispatch_rules (workspace_id, label_id) where label_id is not null;
create index dispatch_rules_project_idx on app_public.dispatch_rules (workspace_id, project_id) where project_id is not null;
create index dispatch_rules_agent_idx on app_public.dispatch_rules (workspace_id, target_agent_id);
comment on table app_public.dispatch_rules is
  'Routing rules for auto-dispatch, tried in position order before the workspace''s dispatch mode: every condition that is set (priority, label, project) must match; the first matching rule names the target agent. A rule disappears with its label, project or agent.';
comment on column app_public.dispatch_rules.position is 'Order in which rules are tried (0 first).';
comment on column app_public.dispatch_rules.priority is 'Condition: the issue has this priority (unset = any).';
comment on column app_public.dispatch_rules.label_id is 'Condition: the issue carries this label (unset = any).';
comment on column app_public.dispatch_rules.project_id is 'Condition: the issue is in this project (unset = any).';
comment on column app_public.dispatch_rules.target_agent_id is 'The agent a matching issue goes to (when it is eligible; else the mode picks, reason rule:<id>:target-ineligible).';
comment on column app_public.dispatch_rules.enabled is 'Disabled rules are kept but skipped.';
create trigger _100_updated_at before update on app_public.dispatch_rules
  for each row execute function app_hidden.tg__set_updated_at();

alter table app_public.dispatch_rules enable row level security;
alter table app_public.dispatch_rules force row level security;
create policy select_in_workspace on app_public.dispatch_rules for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.dispatch_rules is 'Dispatch rules of the caller''s workspace.';
create policy manage_as_admin on app_public.dispatch_rules for all to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.caller_role()) in ('OWNER', 'ADMIN'))
  with check (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.caller_role()) in ('OWNER', 'ADMIN'));
comment on policy manage_as_admin on app_public.dispatch_rules is 'Only a key whose own user is OWNER or ADMIN changes dispatch rules.';
create policy owner_all on app_public.dispatch_rules to current_user using (true) with check (true);
comment on policy owner_all on app_public.dispatch_rules is 'The schema owner (operator, dispatcher) works on every row.';
grant select, delete, insert (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled),
  update (position, name, priority, label_id, project_id, target_agent_id, enabled)
  on app_public.dispatch_rules to svc_visitor;

create function app_hidden.dispatch_rules_check_refs(p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
returns void
language plpgsql stable as $$
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null and not exists (select 1 from app_public.agents where id = p_target_agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
  end if;
  if p_label_id is not null and not exists (select 1 from app_public.labels where id = p_label_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (select 1 from app_public.projects where id = p_project_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text) is
  'The priority must be one of the issue priorities; the agent, label and project a rule names must be visible to the caller (RLS: its workspace, its narrowing), else 404 naming the field.';

create function app_public.dispatch_rules_create(
  target_agent_id uuid,
  priority text default null,
  label_id uuid default null,
  project_id uuid default null,
  name text default null,
  at_position int default null,
  enabled boolean default true
) returns app_public.dispatch_rules
language plpgsql volatile as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = v_ws;
  if at_position is not null and at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = v_ws and r.position >= coalesce(at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (v_ws, coalesce(at_position, v_count), dispatch_rules_create.name, dispatch_rules_create.priority,
          dispatch_rules_create.label_id, dispatch_rules_create.project_id, dispatch_rules_create.target_agent_id,
          coalesce(dispatch_rules_create.enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_create(uuid, text, uuid, uuid, text, int, boolean) is
  'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';

create function app_public.dispatch_rules_update(
  rule_id uuid,
  target_agent_id uuid default null,
  priority text default null,
  label_id uuid default null,
  project_id uuid default null,
  name text default null,
  enabled boolean default null,
  clear text[] default '{}'
) returns app_public.dispatch_rules
language plpgsql volatile as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(dispatch_rules_update.name, r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(uuid, uuid, text, uuid, uuid, text, boolean, text[]) is
  'OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';

create function app_public.dispatch_rules_reorder(rule_ids uuid[]) returns setof app_public.dispatch_rules
language plpgsql volatile as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  if rule_ids is null
     or cardinality(rule_ids) <> (select count(distinct x) from unnest(rule_ids) x)
     or (select array_agg(r.id order by r.id) from app_public.dispatch_rules r where r.workspace_id = v_ws)
        is distinct from (select array_agg(x order by x) from unnest(rule_ids) x) then
    perform app_hidden.raise_invalid('ruleIds', 'must list every dispatch rule of the workspace exactly once');
  end if;
  update app_public.dispatch_rules r set position = o.n - 1
  from unnest(rule_ids) with ordinality as o(id, n)
  where r.id = o.id and r.position <> o.n - 1;
  return query select * from app_public.dispatch_rules r where r.workspace_id = v_ws order by r.position;
end
$$;
comment on function app_public.dispatch_rules_reorder(uuid[]) is
  'OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';

create function app_public.dispatch_rules_delete(rule_id uuid) returns app_public.dispatch_rules
language plpgsql volatile as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';

grant execute on function
  app_hidden.require_workspace_admin_key(),
  app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text),
  app_public.dispatch_rules_create(uuid, text, uuid, uuid, text, int, boolean),
  app_public.dispatch_rules_update(uuid, uuid, text, uuid, uuid, text, boolean, text[]),
  app_public.dispatch_rules_reorder(uuid[]),
  app_public.dispatch_rules_delete(uuid)
to svc_visitor;

--! split: 63-in-app-records.sql
-- In-app procedures, part 3 (spec 4.14): comment revision history, note restore, polymorphic pins.
-- These run as the request role: RLS on comments, notes and pins is the check.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_public.comments_revision_history',
             'app_public.notes_restore',
             'app_public.pins_add',
             'app_public.pins_agent',
             'app_public.pins_cycle',
             'app_public.pins_initiative',
             'app_public.pins_project',
             'app_public.pins_remove',
             'app_public.pins_reorder'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
drop type if exists app_public.comment_revision cascade;
drop type if exists app_public.pin_target_type cascade;

------------------------------------------------------------------------------------------
-- Comment revision history
------------------------------------------------------------------------------------------

create type app_public.comment_revision as (
  revision int,
  body text,
  edited_at timestamptz
);
comment on type app_public.comment_revision is 'A previous body of a comment, replaced at editedAt.';
comment on column app_public.comment_revision.revision is 'Order of the revision, 1 = the oldest kept (at most 20 are kept).';
comment on column app_public.comment_revision.edited_at is 'When this body was replaced by the next one.';

create function app_public.comments_revision_history(c app_public.comments) returns setof app_public.comment_revision
language sql stable as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(app_public.comments) is
  'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';

------------------------------------------------------------------------------------------
-- Note restore: archived notes come back only through the in-app interface (spec 3.5).
------------------------------------------------------------------------------------------

create function app_public.notes_restore(note_id uuid) returns app_public.notes
language plpgsql volatile as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  update app_public.notes n set archived_at = null
  where n.id = note_id and n.archived_at is not null
  returning * into v_note;
  if v_note.id is null then
    select * into v_note from app_public.notes n where n.id = note_id;  -- not archived: nothing to do
  end if;
  if v_note.id is null then
    raise exception 'Note not found' using errcode = 'SV404', column = 'noteId';
  end if;
  return v_note;
end
$$;
comment on function app_public.notes_restore(uuid) is
  'Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';

------------------------------------------------------------------------------------------
-- Polymorphic pins: PROJECT, INITIATIVE, SAVED_VIEW, CYCLE, AGENT (issue pins are MCP pins.*).
------------------------------------------------------------------------------------------

create type app_public.pin_target_type as enum ('PROJECT', 'INITIATIVE', 'SAVED_VIEW', 'CYCLE', 'AGENT');
comment on type app_public.pin_target_type is 'What an in-app pin points at. Issue pins are managed by the MCP pins tools.';

create function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position int default null)
returns app_public.pins
language plpgsql volatile as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if target_id is null then
    perform app_hidden.raise_invalid('targetId', 'required');
  end if;
  -- The target must be visible to the caller (RLS: workspace and narrowing). Saved views have no
  -- table yet, so their ids are taken as given.
  if (target_type = 'PROJECT' and not exists (select 1 from app_public.projects p where p.id = target_id))
     or (target_type = 'INITIATIVE' and not exists (select 1 from app_public.initiatives i where i.id = target_id))
     or (target_type = 'CYCLE' and not exists (select 1 from app_public.cycles c where c.id = target_id))
     or (target_type = 'AGENT' and not exists (select 1 from app_public.agents a where a.id = target_id)) then
    raise exception '% not found', initcap(target_type::text) using errcode = 'SV404', column = 'targetId';
  end if;
  select * into v_pin from app_public.pins p
  where p.workspace_id = v_ws and p.user_id = v_user and p.target_type = pins_add.target_type::text and p.target_id = pins_add.target_id;
  if v_pin.id is not null then
    return v_pin;  -- already pinned
  end if;
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(app_public.pin_target_type, uuid, int) is
  'Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition is given.';

create function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) returns app_public.pins
language plpgsql volatile as $$
declare v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  delete from app_public.pins p
  where p.target_type = pins_remove.target_type::text and p.target_id = pins_remove.target_id
    and p.user_id = app_hidden.current_user_id()
  returning * into v_pin;
  if v_pin.id is null then
    raise exception 'Pin not found' using errcode = 'SV404', column = 'targetId';
  end if;
  return v_pin;
end
$$;
comment on function app_public.pins_remove(app_public.pin_target_type, uuid) is 'Unpins an item of yours.';

create function app_public.pins_reorder(pin_ids uuid[]) returns setof app_public.pins
language plpgsql volatile as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  update app_public.pins p set position = o.n - 1
  from unnest(pin_ids) with ordinality as o(id, n)
  where p.id = o.id;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(uuid[]) is 'Orders your pins: pinIds first to last (pins not listed keep their positions).';

create function app_public.pins_project(p app_public.pins) returns app_public.projects
language sql stable as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(app_public.pins) is 'The pinned project (PROJECT pins).';
create function app_public.pins_initiative(p app_public.pins) returns app_public.initiatives
language sql stable as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
create function app_public.pins_cycle(p app_public.pins) returns app_public.cycles
language sql stable as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(app_public.pins) is 'The pinned cycle (CYCLE pins).';
create function app_public.pins_agent(p app_public.pins) returns app_public.agents
language sql stable as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(app_public.pins) is 'The pinned agent (AGENT pins).';

grant execute on function
  app_public.comments_revision_history(app_public.comments),
  app_public.notes_restore(uuid),
  app_public.pins_add(app_public.pin_target_type, uuid, int),
  app_public.pins_remove(app_public.pin_target_type, uuid),
  app_public.pins_reorder(uuid[]),
  app_public.pins_project(app_public.pins),
  app_public.pins_initiative(app_public.pins),
  app_public.pins_cycle(app_public.pins),
  app_public.pins_agent(app_public.pins)
to svc_visitor;
