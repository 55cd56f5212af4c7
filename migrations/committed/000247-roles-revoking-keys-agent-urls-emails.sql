--! Previous: sha1:a37e2026d075be0977ca501300279d1b692a070d
--! Hash: sha1:3d14cb946738658bc056ca2731a230518eb9c912
--! Message: Roles: revoking keys, agent URLs, emails

--! split: 1-current.sql
-- From a probe of people's roles against the in-app procedures:
-- * accessRevoke: only an OWNER revokes an OWNER's keys (an ADMIN could lock every OWNER out, though refused their
--   demotion); an agent's key revokes only its agent's keys (one made for an admin revoked an OWNER's keys, one made
--   for a member its person's own).
-- * An agent's webhookUrl is shown to an admin's unnarrowed key only (a narrowed one reads no webhook either).
-- * An email's domain has no empty label (owner@a.test. made a second person beside owner@a.test).
-- * pinsAdd with a key that has no user says user_required (it said forbidden).
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
  -- A key minted while its person is being removed: the removal (which deletes the membership, then revokes what the
  -- person's keys are by then) and this take turns; without it, 6 of 17 session keys minted during a removal outlived it.
  perform app_hidden.hold_membership();
  -- An agent's key cannot shed its agent identity (and its run-mode gating) by minting a user key.
  if exists (select 1 from app_private.api_keys k where k.id = v_caller.key_id and k.linked_agent_id is not null) then
    raise exception 'Agent keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  if v_kind = 'AGENT' or p_linked_agent_id is not null then
    -- A key that acts as an agent is workspace administration; with an unnarrowed key, as managing agents is (a
    -- narrowed key minted one for any agent and moved that agent onto another runtime with it).
    perform app_private.require_admin(v_caller);
    perform app_hidden.require_unnarrowed('A key acting as an agent is workspace administration');
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it. An inherited
  -- narrowing naming a record deleted since is 409 narrowing_stale (never dropped: what is left could be empty,
  -- which means unrestricted).
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
    perform app_private.require_narrowing_current(v_caller.workspace_id, v_projects, v_labels, '{}');
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
    perform app_private.require_narrowing_current(v_caller.workspace_id, '{}', '{}', v_initiatives);
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
         -- As for accessRevoke, a narrowed key is no workspace admin here (a project-narrowed OWNER key listed every
         -- key of the workspace, with each one's narrowing).
         or (c.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(c.scopes) or 'FULL' = any(c.scopes)) and app_hidden.key_unnarrowed()))
  order by k.created_at desc, k.id
$$;
comment on function app_hidden.access_keys() is 'Keys the caller may see: its user''s own keys (and itself); every key of the workspace for OWNER/ADMIN with the ADMIN scope and no narrowing.';
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
  -- A key with no user (a plugin's) has no role: null here made every check below pass (a plugin key holding ADMIN
  -- revoked the owner's keys).
  -- An agent's key is no person (it may not act as one: mint keys, sign people out): it revokes itself and its
  -- agent's other keys only (an agent key made for an admin revoked an OWNER's keys; one made for a member, its
  -- person's own).
  v_agent uuid := app_hidden.current_agent_id();
  v_admin boolean := coalesce(v_caller.role in ('OWNER', 'ADMIN'), false) and v_agent is null
                     and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes)) and app_hidden.key_unnarrowed();
  v_beyond text[];
begin
  select * into v_key from app_private.api_keys k
  where k.id = p_key_id and k.workspace_id = v_caller.workspace_id;
  -- Each test is true or false, never null (a null linked agent or user made the whole test null, which let any key
  -- through: a person's key revoked a plugin's key, an agent key its person's).
  if v_key.id is null
     or not (v_key.id = v_caller.key_id
             or (v_agent is not null and v_key.linked_agent_id is not distinct from v_agent)
             or (v_agent is null and v_caller.user_id is not null and v_key.user_id is not distinct from v_caller.user_id)
             or v_admin) then
    raise exception 'API key not found' using errcode = 'SV404', column = 'keyId';
  end if;
  -- Only an OWNER removes an OWNER, and only an OWNER signs one out: an ADMIN could revoke every OWNER's keys and
  -- lock them out, though refused their demotion (owner_required).
  if v_key.user_id is distinct from v_caller.user_id and v_caller.role is distinct from 'OWNER'
     and exists (select 1 from app_public.memberships m
                 where m.workspace_id = v_key.workspace_id and m.user_id = v_key.user_id and m.role = 'OWNER') then
    raise exception 'Only an OWNER revokes an OWNER''s keys' using errcode = 'SV403', detail = 'owner_required', column = 'keyId';
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
comment on function app_hidden.access_revoke(p_key_id uuid) is 'Revokes the calling key itself, or another of its user''s keys that does not exceed it (scopes held, narrowing within, as for access.create: else 403 scope_escalation / narrowing); an agent''s key, only its agent''s keys; OWNER/ADMIN with the ADMIN scope and an unnarrowed person''s key: any key of the workspace, but an OWNER''s only by an OWNER (403 owner_required). Permanent; the key fails with 401 revoked on its next call.';
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
    perform app_hidden.raise_not_found('Agent', 'linkedAgentId');
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

create or replace function app_private.require_narrowing_current(p_workspace_id uuid, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns void
 language plpgsql
 stable
as $$
declare v_gone text;
begin
  -- A narrowing a new key inherits from the key creating it must name records that still exist: create_api_key
  -- would answer 400 "unknown label" on a labelIds the caller never gave, and dropping the missing ones is no way
  -- out (a narrowing left empty means unrestricted).
  v_gone := case
    when exists (select 1 from unnest(p_label_ids) x(id) where not exists (
                   select 1 from app_public.labels l where l.id = x.id and l.workspace_id = p_workspace_id)) then 'label'
    when exists (select 1 from unnest(p_project_ids) x(id) where not exists (
                   select 1 from app_public.projects p where p.id = x.id and p.workspace_id = p_workspace_id)) then 'project'
    when exists (select 1 from unnest(p_initiative_ids) x(id) where not exists (
                   select 1 from app_public.initiatives i where i.id = x.id and i.workspace_id = p_workspace_id)) then 'initiative'
  end;
  if v_gone is not null then
    raise exception 'This key''s own narrowing names a % that no longer exists, so it cannot pass its narrowing on to a new key; use a fresh key (or name projectIds, labelIds or initiativeIds within its narrowing that still exist)', v_gone
      using errcode = 'SV409', detail = 'narrowing_stale';
  end if;
end
$$;
comment on function app_private.require_narrowing_current(p_workspace_id uuid, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'The narrowing a new key inherits from its creator (access.create, accessCreateSession, pluginIssueApiKey) names only projects, labels and initiatives that still exist; else 409 narrowing_stale naming the kind (the key cannot pass it on: a fresh key, or a narrowing given explicitly, is the way out).';

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
    perform app_hidden.raise_not_found('API key', null);
  end if;
  return v_key;
end
$$;
comment on function app_private.revoke_api_key(p_key_id uuid) is 'Revokes a key permanently (revocation cannot be undone).';

create or replace function app_private.touch_api_keys(p_key_ids uuid[], p_used_at timestamptz[])
 returns void
 language sql
as $$
  -- The time of the use, not of this batched write (which came up to 15 s later, after a revocation too: a key
  -- read as used after it was revoked). Never earlier than what another process wrote.
  update app_private.api_keys k set last_used_at = greatest(k.last_used_at, u.used_at)
  from unnest(p_key_ids, p_used_at) as u(id, used_at)
  where k.id = u.id
$$;
comment on function app_private.touch_api_keys(p_key_ids uuid[], p_used_at timestamptz[]) is 'Best-effort lastUsedAt, batched by the API (not one write per call): each key''s time of last use.';

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
comment on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is '@arg kind AGENT, PERSONAL or SESSION; omitted: AGENT when linkedAgentId is given, else PERSONAL (a SESSION key needs expiresInDays, at most 7).
@arg linkedAgentId The agent an AGENT key acts as (needs OWNER/ADMIN and a key without narrowing); omitted for PERSONAL and SESSION keys.
@arg expiresInDays Days until the key expires, 1 to 3650; omitted = no expiry. Never later than the calling key''s own expiry.
@arg scopes What the key may do; omitted = the calling key''s scopes, which it may not exceed (403 scope_escalation).
@arg projectIds Narrows the key to issues and projects of these projects (with labelIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg labelIds Narrows the key to issues carrying one of these labels (with projectIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg initiativeIds Narrows the key to these initiatives, within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg name A label for the key in key lists, one line of up to 200 characters.
@result The new key, with its rawKey: the secret, shown only here.
access.create: issues a key owned by you. kind is inferred when omitted: AGENT when linkedAgentId is given (needs OWNER/ADMIN), else PERSONAL. scopes default to your key''s scopes and cannot exceed them; expiresInDays 1-3650 (none = no expiry, but never later than your own key''s). The rawKey is returned once.';
grant execute on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_personal(expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language sql
as $$
  select app_public.access_create('PERSONAL', null, expires_in_days, scopes, project_ids, label_ids, initiative_ids, name)
$$;
comment on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is '@arg expiresInDays Days until the key expires, 1 to 3650; omitted = no expiry. Never later than the calling key''s own expiry.
@arg scopes What the key may do; omitted = the calling key''s scopes, which it may not exceed (403 scope_escalation).
@arg projectIds Narrows the key to issues and projects of these projects (with labelIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg labelIds Narrows the key to issues carrying one of these labels (with projectIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg initiativeIds Narrows the key to these initiatives, within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg name A label for the key in key lists, one line of up to 200 characters.
@result The new PERSONAL key, with its rawKey: the secret, shown only here.
access.createPersonal: a PERSONAL key owned by you, with no agent link. The rawKey is returned once.';
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
comment on function app_public.access_create_session(ttl_hours integer, name text) is '@arg ttlHours Hours until the key expires, 1 to 168 (default 24); never later than the calling key''s own expiry.
@arg name A label for the key in key lists, one line of up to 200 characters.
@result The new SESSION key, with its rawKey: the secret, shown only here.
access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (1-168, default 24). The rawKey is returned once.';
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
comment on function app_public.access_revoke(key_id uuid) is '@arg keyId The key to revoke: its rowId from accessKeys (viewerKeyId for the calling key itself).
@result The revoked key (revokedAt set).
Revokes a key: the calling key itself, another of your keys whose scopes this key holds and whose narrowing is within this key''s (403 scope_escalation / narrowing otherwise), or (OWNER/ADMIN) any key of the workspace. Permanent: its next call fails with 401 revoked.';
grant execute on function app_public.access_revoke(key_id uuid) to svc_visitor;
--! EndIncluded auth/keys.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token), nor a narrowed one (an agent serves the whole workspace, and a narrowed key reads
  -- no webhook either); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin() and app_hidden.key_unnarrowed())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own unnarrowed key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
grant execute on function app_public.agents_webhook_url(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    -- The dispatch URL may carry a token: workspace admins only (as runtimes' endpoints), and the operator (svc
    -- admin, no caller).
    'maxConcurrent', a.max_concurrent, 'webhookUrl', app_public.agents_webhook_url(a),
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s own key, the agent''s own keys and the operator (agents_webhook_url; it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.require_agent_manager()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  -- Agents serve the whole workspace: their dispatches and webhook carry any issue's events, so a key narrowed to
  -- some projects could point an agent's webhookUrl at itself and receive what it may not see.
  perform app_hidden.require_unnarrowed('Agents work on the whole workspace');
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent; else 403 admin_required) with an unnarrowed key (else 403 narrowing).';
grant execute on function app_hidden.require_agent_manager() to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN acting as a person (require_agent_manager): delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.update_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
begin
  if p_agent_id is not null then
    return app_hidden.found((select a from app_public.agents a
                             where a.id = app_hidden.parse_uuid(p_agent_id, p_field) and a.workspace_id = app_hidden.current_workspace_id()),
                            'Agent', p_field);
  end if;
  return app_hidden.found((select a from app_public.agents a
                           where a.profile_key = lower(p_profile_key) and a.workspace_id = app_hidden.current_workspace_id()),
                          'Agent', p_field);
end
$$;
comment on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';
grant execute on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text default null)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v app_public.agents := app_hidden.find_agent(p_agent_id, p_profile_key, p_field);
begin
  if v.archived_at is not null then
    raise exception 'Agent % is archived', v.profile_key using errcode = 'SV400', column = p_field, detail = 'agent_archived';
  end if;
  return v;
end
$$;
comment on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) is 'An agent of the caller''s workspace that is not archived, by id (else by profileKey, as find_agent): for what puts an agent to work (issues.assign/reassign, an action request''s assignee or bound assignment, a crew, planner, judge or step). 404 unknown, 400 agent_archived, both naming the field.';
grant execute on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) to svc_visitor;

create or replace function app_hidden.check_profile_key(p_profile_key text)
 returns void
 language plpgsql
 immutable
as $$
begin
  -- Said in words before the table's check refuses it ("profileKey is not an allowed value" told no one what is).
  if p_profile_key !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' then
    perform app_hidden.raise_invalid('profileKey', 'must be 1 to 64 of a-z, 0-9, _ . - (lowercase, starting with a letter or digit; e.g. triage)');
  end if;
end
$$;
comment on function app_hidden.check_profile_key(p_profile_key text) is 'A 400 on profileKey unless it is 1 to 64 of a-z, 0-9, _ . - starting with a letter or digit (agents_profile_key_check, said in words). NULL passes.';
grant execute on function app_hidden.check_profile_key(p_profile_key text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  perform app_hidden.check_profile_key(p_profile_key);
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, app_hidden.one_line(p_name, 'name', 200),
          coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'Creates an agent (AGENT_CREATED by trigger).';

create or replace function app_private.agent_holders(p_workspace_id uuid, p_agent_id uuid)
 returns text[]
 language sql
 stable
as $$
  -- Every kind of record that names the agent and would block or go with its deletion (runs and chat threads would
  -- cascade away: the record of its work, kept by archiving instead), by the name agentsDelete's 409 uses.
  select array_remove(array[
    case when exists (select 1 from app_public.issues i where i.workspace_id = p_workspace_id
                      and (i.assigned_agent_id = p_agent_id or i.created_by_agent_id = p_agent_id)) then 'issues' end,
    case when exists (select 1 from app_public.comments c where c.workspace_id = p_workspace_id
                      and c.authoring_agent_id = p_agent_id) then 'comments' end,
    case when exists (select 1 from app_public.agent_runs r where r.workspace_id = p_workspace_id
                      and r.agent_id = p_agent_id) then 'runs' end,
    case when exists (select 1 from app_public.chat_threads t where t.workspace_id = p_workspace_id
                      and t.agent_id = p_agent_id) then 'chat threads' end,
    case when exists (select 1 from app_public.action_requests a where a.workspace_id = p_workspace_id
                      and p_agent_id in (a.assigned_agent_id, a.requested_by_agent_id, a.resolved_by_agent_id)) then 'action requests' end,
    case when exists (select 1 from app_public.goals g where g.workspace_id = p_workspace_id
                      and g.created_by_agent_id = p_agent_id) then 'goals' end,
    case when exists (select 1 from app_public.execution_plans p where p.workspace_id = p_workspace_id
                      and p.planner_agent_id = p_agent_id) then 'execution plans' end,
    case when exists (select 1 from app_public.execution_steps s where s.workspace_id = p_workspace_id
                      and p_agent_id in (s.assigned_agent_id, s.judge_agent_id)) then 'plan steps' end,
    case when exists (select 1 from app_public.review_gates g where g.workspace_id = p_workspace_id
                      and g.opened_by_agent_id = p_agent_id) then 'review gates' end], null)
$$;
comment on function app_private.agent_holders(p_workspace_id uuid, p_agent_id uuid) is 'What still names an agent and keeps it from being deleted (issues, comments, runs, chat threads, action requests, goals, execution plans, plan steps, review gates): the kinds agentsDelete''s 409 agent_in_use names. Empty: nothing does.';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_holders text[] := app_private.agent_holders(p_workspace_id, v_agent.id);
  v_table text;
begin
  -- The 409 names what holds the agent (it said "issues or comments" whatever did, an action request's assignee
  -- included). Its runs and chat threads would go with it (they cascade): the record of its work is kept, as for
  -- issues and comments, by archiving instead.
  if cardinality(v_holders) > 0 then
    raise exception 'Agent % still has %; archive it instead', v_agent.profile_key, array_to_string(v_holders, ', ')
      using errcode = 'SV409', detail = 'agent_in_use';
  end if;
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;  -- AGENT_DELETED, and the members' pins of it go (trigger)
  exception when foreign_key_violation then
    -- A reference written since the check above (or of a kind it does not know): named by its table.
    get stacked diagnostics v_table = table_name;
    raise exception 'Agent % is still referenced (%); archive it instead', v_agent.profile_key, replace(v_table, '_', ' ')
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent nothing names (409 agent_in_use otherwise, naming the kinds that do: issues, comments, runs, chat threads, action requests, goals, execution plans, plan steps, review gates; archive it instead). Its keys are revoked; AGENT_DELETED by trigger, which also removes every member''s pins of it.';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event app_public.activity_events;
  v_agent app_public.agents;
  v_delivery uuid;
begin
  select * into v_event from app_public.activity_events where id = p_event_id;
  if v_event.id is null then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  if v_agent.webhook_url is null or v_agent.archived_at is not null then
    return null; -- no endpoint: the agent sees the event on SSE only
  end if;
  -- A secret exists before the first delivery; the operator reads it with rotate-agent-secret.
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret)
  values (v_agent.id, v_agent.workspace_id, app_private.new_webhook_secret())
  on conflict (agent_id) do nothing;
  insert into app_public.webhook_deliveries (workspace_id, event_id, agent_id, channel)
  values (v_event.workspace_id, v_event.id, v_agent.id, 'agent:dispatch:' || v_agent.id)
  on conflict (agent_id, event_id) do nothing
  returning id into v_delivery;
  if v_delivery is not null then
    perform app_private.enqueue_delivery_job(v_delivery);
  end if;
  return v_delivery;
end
$$;
comment on function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) is 'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

create or replace function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create or replace function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (archive, restore) sees
  -- every change committed before it. FOR NO KEY UPDATE, the lock the agent's own UPDATE takes: runs opened and
  -- issues assigned to it meanwhile (KEY SHARE through their foreign keys) do not wait for it. Lock order: an
  -- archive takes the agent's issues first (as every issue write does), then this.
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id for no key update;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, locked until commit (its current row), else 404 (as find_agent).';

drop function if exists app_private.rotate_agent_webhook_secret(uuid);
-- Its answer was the secret alone (text) until migration 000125: dropped so the jsonb one can replace it.
drop function if exists app_private.rotate_agent_webhook_secret(uuid, integer);
create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  -- A secret replaced is a state change, as a webhook's rotation (WEBHOOK_UPDATED) is: AGENT_UPDATED, never the secret.
  -- The first one (create-agent, or before the first delivery) is part of the agent's making.
  if exists (select 1 from app_private.agent_webhook_secrets where agent_id = v_agent.id) then
    perform app_private.record_event(v_agent.workspace_id, 'AGENT_UPDATED', 'agent', v_agent.id, jsonb_build_object(
      'agentId', v_agent.id, 'profileKey', v_agent.profile_key, 'changes', jsonb_build_array('webhookSecret'),
      'previousSecretValidUntil', v_until));
  end if;
  -- As a webhook's rotation: the old secret signs beside the new one for the grace (0: stops at once).
  insert into app_private.agent_webhook_secrets as s (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update
  set previous_secret = case when v_until is not null then s.secret end, previous_secret_expires_at = v_until,
      secret = excluded.secret, rotated_at = now()
  returning previous_secret_expires_at into v_until;
  return jsonb_build_object('secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer) is 'Sets a new signing secret for an agent''s dispatch deliveries (a secret replaced writes AGENT_UPDATED changes [webhookSecret], never the secret) and returns {secret (shown once), previousSecretValidUntil}: the old one also signs until then (null: it stopped at once, or there was none).';

create or replace function app_hidden.lock_live_agent(p_agent_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- FOR SHARE waits for an archive in progress (its row lock is taken after the agent's issues', the order of every
  -- issue write), then sees whether it committed. As the owner: the agents policy lets keys lock only their own agent.
  if (select a.archived_at from app_public.agents a
      where a.id = p_agent_id and a.workspace_id = coalesce(app_hidden.current_workspace_id(), a.workspace_id) for share) is not null then
    raise exception 'The agent is archived' using errcode = 'SV400', detail = 'agent_archived';
  end if;
end
$$;
comment on function app_hidden.lock_live_agent(p_agent_id uuid) is 'Before an assignment: locks the agent FOR SHARE (waiting for an archive in progress) and raises 400 agent_archived if it is archived.';
grant execute on function app_hidden.lock_live_agent(p_agent_id uuid) to svc_visitor;

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  if p_archived then
    -- The lock order of every issue write: its issue first, then the runs and the agent (assign_issue_agent). An
    -- issue assigned meanwhile is found by the statements below (each sees what committed before it).
    perform 1 from app_public.issues i
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
    order by i.id for update;
  end if;
  -- Decided again on the locked row: a concurrent archive (or restore) may have committed since the read above, and
  -- writing over it restamped archivedAt with an AGENT_UPDATED saying "restored" (archived: false).
  v_agent := app_private.agent_for_write(p_workspace_id, p_agent_id);
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform set_config('svc.run_end_reason', 'agent_archived', true);
    update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_workspace_id and agent_id = v_agent.id and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'));
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    -- Its plan steps pass to a live crew member. Their events are the workspace's (svc admin sets none).
    perform set_config('svc.workspace_id', p_workspace_id::text, true);
    perform app_private.steps_pass_over_archived_agent(p_workspace_id, v_agent.id);
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher), passes its plan steps to a live crew member and sets it OFFLINE.';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. SKIP LOCKED: an
  -- agent being assigned or heartbeating right now is left for the next sweep.
  perform set_config('svc.agent_status_reason', 'heartbeat_timeout', true);
  for v_agent in
    select a.* from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    where a.status <> 'OFFLINE' and a.archived_at is null
      and coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', v_agent.id, 'agentId', v_agent.id,
      'workspaceId', v_agent.workspace_id, 'lastHeartbeatAt', v_agent.last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if coalesce(p_clear_webhook_url, false) and p_webhook_url is not null then
    perform app_hidden.raise_invalid('clearWebhookUrl', 'either webhookUrl or clearWebhookUrl, not both');
  end if;
  perform app_hidden.check_profile_key(p_profile_key);
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
  end if;
  update app_public.agents a set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create or replace function app_public.agents_archive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(agent_id uuid) is '@arg agentId The agent to archive.
@result The agent, archived (archivedAt set).
OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is '@arg profileKey The agent''s unique handle: 1 to 64 of a-z, 0-9, _ . - starting with a letter or digit (409 when taken).
@arg name Display name, one line of 1 to 200 characters.
@arg capabilities Tags the dispatcher matches against priority names (PRIORITY_MATCH) and label names (CAPABILITY_MATCH); at most 50 of up to 100 characters (default none).
@arg provider The agent client: CUSTOM (default), CLAUDE, CODEX or HERMES.
@arg runtimeMode PERSISTENT (default) or EPHEMERAL.
@arg maxConcurrent Open assigned issues the dispatcher may give the agent at once; 0 = unlimited (default 1).
@arg webhookUrl Where the agent''s dispatch deliveries are POSTed: an http(s) URL, checked before saving; omitted = none.
@result The new agent.
OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is '@arg agentId The agent to delete; refused (409 agent_in_use) while anything refers to it.
@result The deleted agent, as it was.
OWNER/ADMIN: deletes an agent nothing refers to (otherwise 409 agent_in_use naming what does, such as issues, comments, runs, chat threads or action requests: archive it instead). Its keys are revoked and every member''s pins of it go. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is '@arg agentId The archived agent to restore.
@result The agent, restored (archivedAt null).
OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is '@arg agentId The agent to change.
@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg profileKey New handle (409 when taken); omitted = unchanged.
@arg capabilities Replaces the capability tags; omitted = unchanged.
@arg provider CUSTOM, CLAUDE, CODEX or HERMES; omitted = unchanged.
@arg runtimeMode PERSISTENT or EPHEMERAL; omitted = unchanged.
@arg maxConcurrent Open assigned issues at once, 0 = unlimited; omitted = unchanged.
@arg webhookUrl New dispatch URL, checked before saving; omitted = unchanged.
@arg clearWebhookUrl True removes the dispatch URL (not together with webhookUrl).
@result The agent as changed.
OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
grant execute on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.require_own_agent()
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.require_own_agent() is 'The agent linked to the calling key; 403 agent_key_required (no linked agent), agent_forbidden (another workspace) or agent_archived.';
grant execute on function app_hidden.require_own_agent() to svc_visitor;

create or replace function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if p_agent_id is null then
    return null;  -- nobody to deliver to (e.g. a step with no agent yet)
  end if;
  if not exists (select 1 from app_public.activity_events e
                 where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- An agent acts through its keys: it sees an issue when one of its live keys does (spec 5.6). One never given a key
  -- is driven only by its dispatch webhook, whose payload is all it gets: not limited. One whose keys are all revoked or
  -- expired sees nothing (its narrowed key revoked, it counted as keyless and so unlimited, re-test).
  with keys as (
    select k.project_ids, k.label_ids, k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) as live
    from app_private.api_keys k where k.linked_agent_id = p_agent_id)
  select not exists (select 1 from keys)
      or exists (select 1 from keys
                 where keys.live
                   and ((cardinality(keys.project_ids) = 0 and cardinality(keys.label_ids) = 0)
                        or p_issue.project_id = any(keys.project_ids)
                        or p_issue.label_ids && keys.label_ids))
$$;
comment on function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues) is 'Whether the agent can read the issue through one of its live keys (their project or label narrowing), or was never given a key (driven by its dispatch webhook only); one whose keys are all revoked or expired sees none. The dispatcher gives an agent only what it can see; assigning or chatting about an issue it cannot see is refused.';
grant execute on function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues) to svc_visitor;

create or replace function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.agent_sees_issue(p_agent.id, p_issue) then
    -- Assigned, it got the dispatch and could neither read nor work the issue, and held a slot (fleet probe).
    raise exception 'Agent % cannot see %: its keys are narrowed to other projects or labels', p_agent.profile_key, p_issue.key
      using errcode = 'SV409', detail = 'agent_cannot_see_issue', column = p_field;
  end if;
end
$$;
comment on function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text) is '409 agent_cannot_see_issue (naming p_field) unless the agent can see the issue (agent_sees_issue).';
grant execute on function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included workspace/members.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.members_add(p_email text, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.begin_membership_change(null, p_role);
  v_result jsonb;
begin
  -- Decided after the lock: two adds of one new email both answered 200, the second changing the first's role unchecked.
  if exists (select 1 from app_public.memberships m join app_public.users u on u.id = m.user_id
             where m.workspace_id = v_caller.workspace_id and lower(u.email) = lower(p_email)) then
    raise exception '% is already a member (change the role with membersSetRole)', p_email
      using errcode = 'SV409', detail = 'already_member';
  end if;
  v_result := app_private.add_member(v_caller.workspace_id, p_email, p_role);
  return app_private.find_membership(v_caller.workspace_id, (v_result->'user'->>'id')::uuid);
end
$$;
comment on function app_hidden.members_add(p_email text, p_role text) is 'OWNER/ADMIN: app_private.add_member (the `svc admin add-member` function) for a new member; 409 already_member otherwise.';
grant execute on function app_hidden.members_add(p_email text, p_role text) to svc_visitor;

create or replace function app_hidden.members_remove(p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, null);
begin
  return app_private.remove_member(v_caller.workspace_id, p_user_id);
end
$$;
comment on function app_hidden.members_remove(p_user_id uuid) is 'OWNER/ADMIN: app_private.remove_member in the caller''s workspace.';
grant execute on function app_hidden.members_remove(p_user_id uuid) to svc_visitor;

create or replace function app_hidden.members_set_role(p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, p_role);
begin
  return app_private.set_member_role(v_caller.workspace_id, p_user_id, p_role);
end
$$;
comment on function app_hidden.members_set_role(p_user_id uuid, p_role text) is 'OWNER/ADMIN: app_private.set_member_role in the caller''s workspace.';
grant execute on function app_hidden.members_set_role(p_user_id uuid, p_role text) to svc_visitor;

create or replace function app_private.add_member(p_workspace_id uuid, p_email text, p_role text)
 returns jsonb
 language plpgsql
as $$
declare
  v_user app_public.users := app_private.ensure_user(p_email);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  insert into app_public.memberships (workspace_id, user_id, role) values (p_workspace_id, v_user.id, p_role)
  on conflict (workspace_id, user_id) do nothing;
  if not found then
    -- Already a member: a role change, with set_member_role's guard (the last OWNER is not demoted).
    perform app_private.set_member_role(p_workspace_id, v_user.id, p_role);
  end if;
  delete from app_public.former_members where workspace_id = p_workspace_id and user_id = v_user.id;
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.begin_membership_change(p_user_id uuid, p_new_role text)
 returns app_private.caller
 language plpgsql
as $$
declare
  v_caller app_private.caller;
  v_old_role text;
begin
  -- Membership changes of a workspace take turns (lock_owners), and the caller's right is judged after the lock on
  -- the member's role as it is now: an ADMIN removed an OWNER promoted a moment before, having read the role before
  -- the promotion committed.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  perform app_private.require_admin(v_caller);
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if p_user_id is not null then
    v_old_role := (app_private.find_membership(v_caller.workspace_id, p_user_id)).role;
  end if;
  if (v_old_role = 'OWNER' or p_new_role = 'OWNER') and v_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
  return v_caller;
end
$$;
comment on function app_private.begin_membership_change(p_user_id uuid, p_new_role text) is 'The prologue of members_add/remove/set_role: takes the workspace''s turn for membership changes (lock_owners), then checks the caller may make this one (OWNER/ADMIN with an unnarrowed key, 403 narrowing; only an OWNER touches the OWNER role, 403 owner_required; 404 userId for a user who is not a member). Returns the caller.';

create or replace function app_private.ensure_user(p_email text)
 returns app_public.users
 language plpgsql
as $$
declare v_user app_public.users;
begin
  -- The domain's labels: none empty (owner@a.test. made a second person beside owner@a.test).
  if p_email !~ '^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*$' then
    perform app_hidden.raise_invalid('email', 'not an email address');
  end if;
  select * into v_user from app_public.users where lower(email) = lower(p_email);
  if v_user.id is null then
    -- Two workspaces adding the same new person at once: the second insert waits for the first and does nothing,
    -- and the next statement reads the row it made (a unique violation was a 409 to one of them).
    insert into app_public.users (email, name) values (p_email, split_part(p_email, '@', 1))
    on conflict do nothing returning * into v_user;
    if v_user.id is null then
      select * into v_user from app_public.users where lower(email) = lower(p_email);
    end if;
  end if;
  return v_user;
end
$$;
-- Users are people across workspaces: when one signed up is not a workspace's to read (an admin adding an email
-- learned whether, and since when, it had an account elsewhere).
comment on column app_public.users.created_at is E'@behavior -*\nWhen the person first joined any workspace (not in GraphQL: it would tell one workspace about others).';

comment on function app_private.ensure_user(p_email text) is 'The user with this email (case-insensitive), created if new.';

create or replace function app_private.find_membership(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 stable
as $$
declare v_m app_public.memberships;
begin
  select * into v_m from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if v_m.id is null then
    raise exception 'Member not found' using errcode = 'SV404', column = 'userId';
  end if;
  return v_m;
end
$$;
comment on function app_private.find_membership(p_workspace_id uuid, p_user_id uuid) is 'The membership of this user in this workspace, else 404.';

create or replace function app_private.lock_owners(p_workspace_id uuid)
 returns void
 language plpgsql
as $$
begin
  -- Two owners demoting or removing each other at once each saw the other still OWNER and both passed the
  -- last-OWNER check. Locked first, the second change waits for the first and then reads what it left.
  perform from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' order by id for update;
end
$$;
comment on function app_private.lock_owners(p_workspace_id uuid) is 'Locks the workspace''s OWNER memberships for the transaction (a workspace always has one): membership changes (members_add/remove/set_role, remove_member, set_member_role) run one after the other, each deciding on what the one before left.';

create or replace function app_private.remove_member(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
as $$
declare
  v_m app_public.memberships;
  v_req app_public.action_requests;
begin
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner', column = 'userId';
  end if;
  -- The membership goes first: its delete waits for their claims, timers, watches and keys being written (they hold it
  -- in share mode: hold_membership), and each statement below then sees what those wrote.
  delete from app_public.memberships where id = v_m.id;
  -- A former member's keys for this workspace stop working at once, and so do the plugin keys they issued (those act
  -- for no user, and nothing else would end them).
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and (user_id = p_user_id or issued_by_user_id = p_user_id) and revoked_at is null;
  -- What only they could end ends with them: their claims (released, ISSUE_UPDATED each; others waited for them to
  -- expire and could not release them), their running timer (stopped, as time.stop; time entries write no event) and
  -- their watches. Requests assigned to them go back to no one (ISSUE_UPDATED each, as actionRequests.update), where
  -- a moderator can re-point them: a request could not be assigned to a non-member.
  update app_public.issues set claimed_by_id = null, claim_expires_at = null
  where workspace_id = p_workspace_id and claimed_by_id = p_user_id;
  perform app_private.stop_running_timers(p_workspace_id, p_user_id => p_user_id);
  delete from app_public.issue_watchers where workspace_id = p_workspace_id and user_id = p_user_id;
  for v_req in update app_public.action_requests set assigned_user_id = null
               where workspace_id = p_workspace_id and assigned_user_id = p_user_id returning * loop
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
      'actionRequestId', v_req.id, 'issueId', v_req.issue_id, 'change', 'updated', 'changes', jsonb_build_array('assignedUserId'),
      'assignedUserId', null, 'assignedAgentId', v_req.assigned_agent_id, 'reason', 'member_removed'));
  end loop;
  -- The webhooks they registered stop (an admin may turn them back on): a person who left kept receiving the
  -- workspace's events, titles and all, at an address of their choosing, with no key at all.
  perform app_private.webhook_deactivate(w.id, 'its creator left the workspace')
  from app_public.webhooks w where w.workspace_id = p_workspace_id and w.created_by_user_id = p_user_id and w.active;
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace (the plugin keys they issued too), releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, stops the webhooks they registered, and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

create or replace function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships;
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and p_role <> 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner', column = 'role';
  end if;
  update app_public.memberships set role = p_role where id = v_m.id returning * into v_m;
  return v_m;
end
$$;
comment on function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text) is 'Changes a member''s role (MEMBERSHIP_ROLE_CHANGED by trigger when it changes); the last OWNER cannot be demoted (409 last_owner).';

create or replace function app_public.members_add(email text, role app_public.membership_role default 'MEMBER'::app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_add(email, role::text) $$;
comment on function app_public.members_add(email text, role app_public.membership_role) is '@arg email The person''s email address; the user is created if new (no invitation is sent).
@arg role OWNER, ADMIN or MEMBER (default); only an OWNER may add an OWNER.
@result The new membership.
OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';
grant execute on function app_public.members_add(email text, role app_public.membership_role) to svc_visitor;

create or replace function app_public.members_remove(user_id uuid)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(user_id uuid) is '@arg userId The member to remove.
@result The removed membership, as it was.
OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';
grant execute on function app_public.members_remove(user_id uuid) to svc_visitor;

create or replace function app_public.members_set_role(user_id uuid, role app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(user_id uuid, role app_public.membership_role) is '@arg userId The member.
@arg role The new role; only an OWNER may grant or take away OWNER, and the last OWNER stays one.
@result The membership with its new role.
OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';
grant execute on function app_public.members_set_role(user_id uuid, role app_public.membership_role) to svc_visitor;

create or replace function app_public.viewer()
 returns app_public.users
 language sql
 stable
as $$
  select u.* from app_public.users u where u.id = app_hidden.current_user_id()
$$;
comment on function app_public.viewer() is 'The person the key making this request acts as (for a plugin key: the first member).';
grant execute on function app_public.viewer() to svc_visitor;

create or replace function app_public.viewer_role()
 returns app_public.membership_role
 language sql
 stable
as $$ select app_hidden.caller_role()::app_public.membership_role $$;
comment on function app_public.viewer_role() is 'Role of the key''s own user in this workspace (null for plugin keys). OWNER and ADMIN may use the administrative mutations.';
grant execute on function app_public.viewer_role() to svc_visitor;

create or replace function app_public.viewer_scopes()
 returns text[]
 language sql
 stable
as $$ select app_hidden.current_scopes() $$;
comment on function app_public.viewer_scopes() is 'Scopes of the key making this request (FULL holds every scope): a client shows only the controls the key may use.';
grant execute on function app_public.viewer_scopes() to svc_visitor;

create or replace function app_public.viewer_project_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_project_ids() $$;
comment on function app_public.viewer_project_ids() is 'Projects the key making this request is narrowed to (empty: not narrowed by project): a client files new issues where the key may (an issue outside them is refused).';
grant execute on function app_public.viewer_project_ids() to svc_visitor;

create or replace function app_public.viewer_label_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_label_ids() $$;
comment on function app_public.viewer_label_ids() is 'Labels the key making this request is narrowed to (empty: not narrowed by label): a client files new issues where the key may.';
grant execute on function app_public.viewer_label_ids() to svc_visitor;

create or replace function app_hidden.current_key_kind()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select k.kind from app_private.api_keys k where k.id = app_hidden.current_key_id() $$;
comment on function app_hidden.current_key_kind() is 'Kind of the calling key (AGENT, PERSONAL, SESSION, PLUGIN), read as the owner (keys are private).';
grant execute on function app_hidden.current_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_kind()
 returns text
 language sql
 stable
as $$ select app_hidden.current_key_kind() $$;
comment on function app_public.viewer_key_kind() is 'Kind of the key making this request (AGENT, PERSONAL, SESSION, PLUGIN): the web board refuses agent keys, which would act as the agent.';
grant execute on function app_public.viewer_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_id()
 returns uuid
 language sql
 stable
as $$ select app_hidden.current_key_id() $$;
comment on function app_public.viewer_key_id() is 'Id of the key making this request: the web board signs out by revoking it (accessRevoke) when it is a SESSION key.';
grant execute on function app_public.viewer_key_id() to svc_visitor;
--! EndIncluded workspace/members.sql
--! Included pins/pins.sql
-- pins: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.pins_json()
 returns jsonb
 language sql
 stable
as $$
  -- position counts the pins this key sees (0, 1, …): a pin hidden from a narrowed key, or of a deleted issue, leaves
  -- no gap that says one sits in front.
  select coalesce(jsonb_agg(jsonb_build_object('issueId', v.id, 'position', v.n - 1, 'pinnedAt', v.pinned_at,
                                               'issue', app_hidden.issue_json(v.i))
                            order by v.n), '[]')
  from (select i.id, i, p.created_at as pinned_at, row_number() over (order by p.position, p.created_at, p.id) as n
        from app_public.pins p
        join app_public.issues i on i.id = p.target_id and i.deleted_at is null
        where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
          and p.target_type = 'ISSUE') v
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see), position counted among them.';
grant execute on function app_hidden.pins_json() to svc_visitor;

create or replace function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer default NULL::integer)
 returns app_public.pins
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
  v_count integer;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  -- Pins are a person's: a key with no user is told so (the insert's policy said only "forbidden").
  perform app_hidden.require_user();
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
  -- Positions stay 0..n-1 (as dispatch rules'): atPosition 0 is first, n (or none) last; later pins move down. Any
  -- other value was stored as given (-3, or 2^31-1, after which appending overflowed the integer).
  v_count := (select count(*) from app_public.pins p where p.workspace_id = v_ws and p.user_id = v_user);
  if at_position is not null and (at_position < 0 or at_position > v_count) then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  if at_position is not null then
    update app_public.pins p set position = p.position + 1
    where p.workspace_id = v_ws and p.user_id = v_user and p.position >= at_position;
  end if;
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) is '@arg targetType PROJECT, INITIATIVE, SAVED_VIEW, CYCLE or AGENT (issues are pinned with the MCP pins.* tools).
@arg targetId The id of the record to pin, visible to the key (a saved view''s id is taken as given).
@arg atPosition Where to put it, 0 (first) to the number of your pins; omitted = last.
@result The pin (the existing one when the item was pinned already).
Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition (0 = first, 0 to the number of pins) is given, later pins moving down.';
grant execute on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) to svc_visitor;

create or replace function app_public.pins_agent(p app_public.pins)
 returns app_public.agents
 language sql
 stable
as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(p app_public.pins) is 'The pinned agent (AGENT pins).';
grant execute on function app_public.pins_agent(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_cycle(p app_public.pins)
 returns app_public.cycles
 language sql
 stable
as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(p app_public.pins) is 'The pinned cycle (CYCLE pins).';
grant execute on function app_public.pins_cycle(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_initiative(p app_public.pins)
 returns app_public.initiatives
 language sql
 stable
as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(p app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
grant execute on function app_public.pins_initiative(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_project(p app_public.pins)
 returns app_public.projects
 language sql
 stable
as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(p app_public.pins) is 'The pinned project (PROJECT pins).';
grant execute on function app_public.pins_project(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid)
 returns app_public.pins
 language plpgsql
as $$
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
comment on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) is '@arg targetType The kind of the pinned record.
@arg targetId The id of the pinned record.
@result The removed pin, as it was.
Unpins an item of yours.';
grant execute on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) to svc_visitor;

create or replace function app_public.pins_reorder(pin_ids uuid[])
 returns setof app_public.pins
 language plpgsql
as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  -- The listed pins first, in their order, then the others in theirs, numbered 0..n-1 (the others kept their
  -- numbers, so a partial list put two pins at 0).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by o.n nulls last, q.position, q.created_at, q.id) as n
        from app_public.pins q
        left join unnest(pin_ids) with ordinality as o(id, n) on o.id = q.id
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()) r
  where p.id = r.id and p.position is distinct from r.n - 1;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(pin_ids uuid[]) is '@arg pinIds Pins of yours, each once, to put first in this order; the others follow in their present order.
@result The pins listed, in their new order.
Orders your pins: pinIds first, in that order, then the pins not listed in their present order (positions 0..n-1).';
grant execute on function app_public.pins_reorder(pin_ids uuid[]) to svc_visitor;

create or replace function app_hidden.renumber_issue_pins(p_given uuid[])
 returns void
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a narrowed key's pins.set keeps the pins it cannot see, which its RLS hides from it; the caller's own
  -- issue pins become positions 0..n-1 again, the new list's order kept and the others where they stood (a kept pin
  -- before a listed one at the same place).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by q.position, q.target_id = any(p_given), q.created_at, q.id) as n
        from app_public.pins q
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()
          and q.target_type = 'ISSUE') r
  where p.id = r.id and p.position is distinct from r.n - 1
$$;
comment on function app_hidden.renumber_issue_pins(p_given uuid[]) is 'After pins.set: the caller''s issue pins numbered 0..n-1 (those it cannot see included), the listed ones (p_given) in their order, a kept one before a listed one at the same position.';
grant execute on function app_hidden.renumber_issue_pins(p_given uuid[]) to svc_visitor;
--! EndIncluded pins/pins.sql
