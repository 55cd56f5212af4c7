--! Previous: sha1:e0e6cbedd9df2241f68f7684120b89b51fb1ac82
--! Hash: sha1:c998069d910049bb538cf1ee87bbd98d466fc2c2
--! Message: From outside probes: SESSION keys at most 168 h on every path; key lists without repeats; parentId null filter reads the hidden-parent mask; comment events follow their issue; SSE resume from an event the key no longer sees

--! split: 1-current.sql
-- From two outside probes (operator and gate; events). A SESSION key lives at most 168 hours on every path, and a
-- key's scopes and narrowing lists are stored without repeats. issues.list/count {parentId: null} reads a parent
-- hidden from a narrowed key as none (the shape's mask), so it no longer tells that such parents exist. A comment's
-- events follow its issue, so a narrowed key keeps a deleted comment's events (live, replay, events.recent); an SSE
-- resume starts from any event of the workspace, so an event the key no longer sees is not a reset.
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.array_distinct(p_values anyarray)
 returns anyarray
 language sql
 immutable parallel safe
as $$
  select coalesce(array_agg(v order by n), p_values[0:-1])
  from (select v, min(n) as n from unnest(p_values) with ordinality u(v, n) group by v) d
$$;
comment on function app_hidden.array_distinct(p_values anyarray) is 'The array without repeats, each value where it first stood (NULL stays NULL; empty stays empty).';
grant execute on function app_hidden.array_distinct(p_values anyarray) to svc_visitor;

create or replace function app_hidden.parse_uuid(p_value text, p_field text)
 returns uuid
 language plpgsql
 immutable
as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(p_value text, p_field text) is 'UUID from tool input, or a 400 naming the field.';
grant execute on function app_hidden.parse_uuid(p_value text, p_field text) to svc_visitor;

create or replace function app_hidden.tg__set_updated_at()
 returns trigger
 language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at.';
grant execute on function app_hidden.tg__set_updated_at() to svc_visitor;

create or replace function app_hidden.ts_key(p_ts timestamp with time zone)
 returns text
 language sql
 stable parallel safe
as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(p_ts timestamp with time zone) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';
grant execute on function app_hidden.ts_key(p_ts timestamp with time zone) to svc_visitor;

create or replace function app_hidden.user_today(p_timezone text)
 returns date
 language plpgsql
 stable
as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(p_timezone text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';
grant execute on function app_hidden.user_today(p_timezone text) to svc_visitor;

create or replace function app_hidden.utc_today()
 returns date
 language sql
 stable parallel safe
as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';
grant execute on function app_hidden.utc_today() to svc_visitor;

create or replace function app_hidden.uuid_array(p_value jsonb, p_field text)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- plpgsql: a `language sql` function with a FROM clause is never inlined and was planned again in every
  -- statement that called it (0.15 ms, for every issues.create).
  if p_value is null then
    return '{}';
  end if;
  return (select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
          from jsonb_array_elements_text(p_value) e);
end
$$;
comment on function app_hidden.uuid_array(p_value jsonb, p_field text) is 'uuid[] from a JSON array of strings.';
grant execute on function app_hidden.uuid_array(p_value jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.user_ref_json(p_user_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
  from app_public.users u where u.id = p_user_id
$$;
comment on function app_hidden.user_ref_json(p_user_id uuid) is 'A user as {id, name (email when unnamed), email}; NULL for no user.';
grant execute on function app_hidden.user_ref_json(p_user_id uuid) to svc_visitor;
--! EndIncluded core/util.sql
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
    -- A key that acts as an agent is workspace administration.
    perform app_private.require_admin(v_caller);
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
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;
comment on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'Issues a key owned by the caller''s user: kind inferred (AGENT with a linked agent, else PERSONAL); AGENT keys need OWNER/ADMIN; scopes default to and must stay within the caller''s; narrowing inherited or narrower; never outlives the caller''s key.';
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
  v_admin boolean := v_caller.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes));
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
comment on function app_hidden.access_revoke(p_key_id uuid) is 'Revokes the calling key itself, or another of its user''s keys that does not exceed it (scopes held, narrowing within, as for access.create: else 403 scope_escalation / narrowing); OWNER/ADMIN with the ADMIN scope: any key of the workspace. Permanent; the key fails with 401 revoked on its next call.';
grant execute on function app_hidden.access_revoke(p_key_id uuid) to svc_visitor;

create or replace function app_hidden.authenticate(p_token_hash bytea)
 returns table(key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone, revoked_at timestamp with time zone, acting_user_id uuid)
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.id, k.workspace_id, k.user_id, k.kind, k.linked_agent_id, k.scopes,
         k.project_ids, k.label_ids, k.initiative_ids, k.expires_at, k.revoked_at,
         -- plugin keys with no user act as the first workspace member (spec 4.2 issues.create)
         coalesce(k.user_id, (select m.user_id from app_public.memberships m
                              where m.workspace_id = k.workspace_id order by m.created_at, m.id limit 1))
  from app_private.api_keys k
  where k.token_hash = p_token_hash
$$;
comment on function app_hidden.authenticate(p_token_hash bytea) is 'Looks a key up by the SHA-256 of its token. Returns no row for an unknown hash; the API decides invalid / revoked / expired in that order.';
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
  if v_kind = 'PERSONAL' and p_linked_agent_id is not null then
    perform app_hidden.raise_invalid('linkedAgentId', 'a PERSONAL key has no linked agent');
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
  values (p_workspace_id, p_user_id, p_plugin_id, v_kind, p_linked_agent_id, p_name, app_hidden.array_distinct(p_scopes),
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
  if kind = 'SESSION' and expires_in_days is null then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key needs an expiry (or use accessCreateSession)');
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
--! Included issues/filters.sql
-- issues: the filters of issues.list, shared with issues.count.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issues_filter(args jsonb, out from_sql text, out where_sql text, out search tsquery)
 returns record
 language plpgsql
 stable
as $$
declare
  v_status text := args->>'status';
  v_status_ids uuid[];
begin
  -- The caller executes `from <from_sql> where <where_sql>` with $1 = the workspace id and $2 = search. Every
  -- value is written in as a constant (format %L): the query is planned per call, so each filter gets its own
  -- index. Paging (cursor, limit) is the caller's.
  from_sql := 'app_public.issues i';
  where_sql := 'i.workspace_id = $1 and i.deleted_at is null';
  if args->>'query' is not null then
    -- Full-text search (issues_search_gin). The matches come from a definer function (the index is unusable
    -- under RLS, see issue_search_matches); joined back to issues, the policies apply. m.rank is the match's.
    search := app_hidden.search_tsquery(args->>'query');
    from_sql := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
  end if;
  if args->>'statusId' is not null then
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
  -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
  -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_status_ids := array[v_status::uuid];
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
    else
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
      if cardinality(v_status_ids) = 0 then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        raise exception 'No status has this id, category or name' using errcode = 'SV400', column = 'status';
      end if;
    end if;
    where_sql := where_sql || case cardinality(v_status_ids)
      when 0 then ' and false'
      when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
      else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
  end if;
  if args->>'open' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                          else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
  end if;
  if args->>'priority' is not null then
    where_sql := where_sql || format(' and i.priority = %L', args->>'priority');
  end if;
  if args ? 'projectId' then
    where_sql := where_sql || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    where_sql := where_sql || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    where_sql := where_sql || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    -- A parent the key cannot see reads as none (the issue shape says parentId null), in the filter too: else
    -- `parentId: null` would leave out the children of hidden issues, and the count tell that such parents exist.
    where_sql := where_sql || case
      when args->>'parentId' is not null then format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id)
      when app_hidden.issues_unrestricted() then ' and i.parent_id is null'
      else ' and app_hidden.visible_issue_id(i.parent_id) is null' end;
  end if;
  if args ? 'claimedById' then
    where_sql := where_sql || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    where_sql := where_sql || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                     app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    where_sql := where_sql || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;
end
$$;
comment on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) is 'The filters of issues.list and issues.count (query, status as id, category or name, statusId, open, priority, projectId, assignedAgentId, cycleId, parentId, claimedById with null = none, labelIds any of, queued) as the FROM and WHERE of a query over live issues i of the workspace ($1), with the search tsquery ($2, matches m with m.rank) when query is given; 400 naming the field for a bad value. Paging is the caller''s.';
grant execute on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) to svc_visitor;
--! EndIncluded issues/filters.sql
--! Included events/visibility.sql
-- Which events a narrowed key sees, as the select_in_workspace policy of activity_events asks it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.key_unnarrowed()
 returns boolean
 language sql
 stable parallel safe
as $$
  select cardinality(app_hidden.narrowed_project_ids()) = 0
     and cardinality(app_hidden.narrowed_label_ids()) = 0
     and cardinality(app_hidden.narrowed_initiative_ids()) = 0
$$;
comment on function app_hidden.key_unnarrowed() is 'True when the calling key has no project, label or initiative narrowing: it sees every event of its workspace. The events policy asks this once per statement before any per-row check.';
grant execute on function app_hidden.key_unnarrowed() to svc_visitor;

drop function if exists app_hidden.event_subject_visible(text, uuid);  -- now with the payload (canvas issueIds)

-- plpgsql, not an inline CASE in the policy: its queries are planned once per session and only run for
-- narrowed keys, where the inline form made every events query plan ~300 sub-plans (issue 16).
create or replace function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns boolean
 language plpgsql
 stable
as $$
begin
  if p_subject_type = 'project' then
    return cardinality(app_hidden.narrowed_project_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_project_ids());
  elsif p_subject_type = 'initiative' then
    return cardinality(app_hidden.narrowed_initiative_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_initiative_ids());
  elsif p_subject_type not in ('issue', 'comment', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
        or app_hidden.issues_unrestricted() then
    return true;
  elsif p_subject_type = 'canvas' then
    -- The canvas itself is the workspace's (created, renamed, deleted); a card or edge change names the issues of
    -- its cards (issueIds, canvas_changed) and is shown only when the key sees them all, as RLS shows it the cards.
    -- Card events written before issueIds existed (migration 000072) name none, so they are not shown.
    return p_payload->>'change' is null or p_payload->>'change' = 'canvas_updated'
        or (jsonb_typeof(p_payload->'issueIds') = 'array'
            and not exists (select 1 from jsonb_array_elements_text(p_payload->'issueIds') x(id)
                            where not exists (select 1 from app_public.issues i where i.id = x.id::uuid)));
  end if;
  -- Subjects that follow their issue: read as the caller, so their own policies (narrowing included) decide.
  -- One statement per subject type: only the one that runs is started (a single CASE over seven EXISTS
  -- started all seven, policies included, in every call).
  case p_subject_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_subject_id);
    -- A comment's events follow its issue (payload issueId), not the comment row: the comments policy hides a
    -- deleted comment, which would take its creation and its deletion out of the stream, the replay and a resume.
    when 'comment' then return exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    else return exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id);
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds); other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Runs as the caller: the threads policy decides (the addressee agent's keys, the person who opened it,
  -- workspace admins; a thread tied to an issue only for keys that may see it). The issue a person's message
  -- was about is in the payload, so it must be visible too.
  return exists (select 1 from app_public.chat_threads t where t.id = p_thread_id)
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) is 'Whether the caller sees a chat-thread event: the caller sees the thread (chat_threads policy: participants and admins, the thread issue''s narrowing) and the issue of the message''s context, if any.';
grant execute on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) to svc_visitor;
--! EndIncluded events/visibility.sql
--! Included events/stream.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.stream_backlog(p_after bigint, p_cap integer)
 returns integer
 language sql
 stable
as $$
  select count(*)::int from (select 1 from app_public.activity_events e
                             where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
                             limit p_cap) t
$$;
comment on function app_hidden.stream_backlog(p_after bigint, p_cap integer) is 'SSE resume: how many visible events follow a position, counting at most p_cap (the replay bound).';
grant execute on function app_hidden.stream_backlog(p_after bigint, p_cap integer) to svc_visitor;

create or replace function app_hidden.stream_events(p_ids uuid[])
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', e.stream_pos, 'event', app_hidden.event_json(e, false))
                            order by e.stream_pos), '[]')
  from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id() and e.id = any(p_ids) and e.stream_pos is not null
$$;
comment on function app_hidden.stream_events(p_ids uuid[]) is 'SSE live path: the given events that the caller may see, as [{pos, event}] in stream order.';
grant execute on function app_hidden.stream_events(p_ids uuid[]) to svc_visitor;

create or replace function app_hidden.stream_events_after(p_after bigint, p_limit integer)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pos', t.stream_pos, 'event', app_hidden.event_json(t, false))
                            order by t.stream_pos), '[]')
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id() and e.stream_pos > p_after
        order by e.stream_pos limit p_limit) t
$$;
comment on function app_hidden.stream_events_after(p_after bigint, p_limit integer) is 'SSE resume: up to p_limit events after a stream position that the caller may see, oldest first.';
grant execute on function app_hidden.stream_events_after(p_after bigint, p_limit integer) to svc_visitor;

create or replace function app_hidden.stream_head()
 returns bigint
 language sql
 stable
as $$
  select coalesce(max(e.stream_pos), 0) from app_public.activity_events e
  where e.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.stream_head() is 'SSE: the highest stream position in the caller''s workspace (a new subscriber''s starting point).';
grant execute on function app_hidden.stream_head() to svc_visitor;

create or replace function app_hidden.stream_position(p_event_id uuid, p_max_age interval)
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Any event of the caller's workspace, seen by this key now or not: the key was sent this id, and what it may
  -- no longer see (an issue that left its narrowing) must not turn a resume into a reset with events lost. The
  -- replay from there is read as the caller (stream_events_after), so nothing hidden is sent; a position says
  -- nothing of its event. An event not positioned yet (committed moments ago; app_private.sequence_events)
  -- resumes from the head: it and whatever follows it arrive live.
  select coalesce(e.stream_pos, app_hidden.stream_head()) from app_public.activity_events e
  where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()
    and e.created_at > now() - p_max_age
$$;
comment on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) is 'SSE resume: stream position of a Last-Event-ID of the caller''s workspace (visible to the key now or not) that is younger than p_max_age (the head if it has none yet); NULL otherwise.';
grant execute on function app_hidden.stream_position(p_event_id uuid, p_max_age interval) to svc_visitor;

create or replace function app_private.sequence_events(p_limit integer)
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  r record;
  v_count integer := 0;
begin
  -- One sequencer at a time in the database, whichever process calls: positions are handed out only here,
  -- in transactions that follow one another, so every snapshot sees a prefix of each workspace's positions
  -- and a reader resuming after position P can never miss an event that gets a lower one later. Writers
  -- take no lock and send no NOTIFY (whose database-wide lock is held through every commit's WAL flush).
  if not pg_try_advisory_xact_lock(1398161490, 0) then
    return 0;
  end if;
  for r in
    update app_public.activity_events e set stream_pos = p.pos
    from (select t.id, nextval('app_private.activity_event_stream_pos') as pos
          from (select u.id from app_public.activity_events u where u.stream_pos is null order by u.seq limit p_limit) t) p
    where e.id = p.id and e.stream_pos is null
    returning e.id, e.seq, e.stream_pos, e.workspace_id
  loop
    perform pg_notify('svc_events', json_build_object(
      'id', r.id, 'seq', r.seq, 'pos', r.stream_pos, 'workspaceId', r.workspace_id)::text);
    v_count := v_count + 1;
  end loop;
  return v_count;
end
$$;
comment on function app_private.sequence_events(p_limit integer) is 'Gives committed events without a stream position one (oldest first, at most p_limit) and NOTIFYs svc_events {id, seq, pos, workspaceId} for each; returns how many. Called in a loop by every process''s Notifier; one runs at a time.';
--! EndIncluded events/stream.sql
--! Included issues/tools/history.sql
-- The issues.history tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the activity of one issue (id or key, narrowing as issues.get): its own events (subjectType issue: status,
-- assignment, runs, ...) and those of its comments, deleted comments included; newest first, paged by seq;
-- the shape of events.recent.
create or replace function app_tools.issues_history(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before bigint := coalesce(app_hidden.cursor_decode_bigint(args->>'cursor', 'issue-history'), 9223372036854775807);
  v_comment_ids uuid[];
  v_items json[];
  v_keys text[];
begin
  -- A deleted comment's events (its creation, its deletion) stay part of the issue's history. The comments
  -- policy hides deleted comments, so the read of the ids sees them for this statement only (as comments.delete does).
  perform set_config('svc.include_deleted_comments', 'on', true);
  v_comment_ids := array(select c.id from app_public.comments c
                         where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id);
  -- Two index reads (activity_events_subject_idx), each at most a page, merged newest first.
  select array_agg(app_hidden.event_shape(t.e, a, u, true) order by (t.e).seq desc),
         array_agg((t.e).seq::text order by (t.e).seq desc)
  into v_items, v_keys
  from (select x.e from (
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'issue' and e.subject_id = v_issue.id
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)
          union all
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'comment' and e.subject_id = any(v_comment_ids)
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)) x
        order by (x.e).seq desc limit v_limit + 1) t
  left join app_public.agents a on a.id = (t.e).actor_agent_id
  left join app_public.users u on u.id = (t.e).actor_user_id;
  perform set_config('svc.include_deleted_comments', '', true);
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issue-history');
end
$$;
grant execute on function app_tools.issues_history(args jsonb) to svc_visitor;
comment on function app_tools.issues_history(args jsonb) is 'issues.history: An issue''s events and its comments'', newest first, paged, as events.recent.';
--! EndIncluded issues/tools/history.sql
