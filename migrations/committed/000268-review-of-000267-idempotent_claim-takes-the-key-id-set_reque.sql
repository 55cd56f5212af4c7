--! Previous: sha1:18629ecd454eb9ec1f88d2d32b634c47ea480ae3
--! Hash: sha1:38e9c743fef35e125092678d778be63b5bcb3d9b
--! Message: Review of 000267: idempotent_claim takes the key id set_request_context returns; a key's identity is never edited

--! split: 1-current.sql
-- Review of 000267: idempotent_claim takes the key id set_request_context returns in the same statement (a real
-- dependency, not the planner's join order); a key's identity columns cannot be updated (a call runs as the row says
-- while API processes and streams keep the row they authenticated; keys are rotated, never edited).
drop function if exists app_hidden.set_request_context(uuid);
drop function if exists app_hidden.idempotent_claim(text, text, text);
--! Included core/caller.sql
-- Who is calling: the request context (transaction-local svc.* settings) and the checks built on it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.caller_may_moderate()
 returns boolean
 language sql
 stable
as $$
  -- Roles, not scopes (spec 2.8): keys are FULL by default, so a scope test would make every member a moderator.
  select app_hidden.current_agent_id() is null
     and exists (select 1 from app_public.memberships m
                 where m.workspace_id = app_hidden.current_workspace_id()
                   and m.user_id = app_hidden.current_user_id()
                   and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.caller_may_moderate() is 'True for a key acting as a person (no linked agent) whose user is workspace OWNER or ADMIN (a membership role; the ADMIN scope alone does not moderate). Used to override authorship (comments.update/delete) and another user''s claim (issues.release).';
grant execute on function app_hidden.caller_may_moderate() to svc_visitor;

create or replace function app_hidden.caller_role()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select m.role
  from app_private.api_keys k
  join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_role() is 'Workspace role (OWNER, ADMIN, MEMBER) of the calling key''s own user; NULL for plugin keys. Used by policies on admin-managed tables.';
grant execute on function app_hidden.caller_role() to svc_visitor;

create or replace function app_hidden.caller_json()
 returns jsonb
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Who the calling key acts as, and within what: its own row (kind, plugin) and the request context (the rest).
  select jsonb_build_object(
    'keyId', k.id, 'kind', case when k.plugin_id is not null then 'PLUGIN' else k.kind end, 'pluginId', k.plugin_id,
    'userId', app_hidden.current_user_id(), 'agentId', app_hidden.current_agent_id(), 'role', app_hidden.caller_role(),
    'scopes', to_jsonb(app_hidden.current_scopes()),
    'projectIds', to_jsonb(app_hidden.narrowed_project_ids()), 'labelIds', to_jsonb(app_hidden.narrowed_label_ids()),
    'initiativeIds', to_jsonb(app_hidden.narrowed_initiative_ids()))
  from app_private.api_keys k
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_json() is 'The calling key as workspace.get''s caller: keyId, kind (PERSONAL, SESSION, AGENT, or PLUGIN for a plugin''s key), pluginId, userId, agentId, role, scopes and its narrowing (projectIds, labelIds, initiativeIds; empty = none).';
grant execute on function app_hidden.caller_json() to svc_visitor;

create or replace function app_hidden.current_agent_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.agent_id', true), '')::uuid $$;
comment on function app_hidden.current_agent_id() is 'Agent linked to the calling key (linkedAgentId), if any.';
grant execute on function app_hidden.current_agent_id() to svc_visitor;

create or replace function app_hidden.current_key_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.key_id', true), '')::uuid $$;
comment on function app_hidden.current_key_id() is 'The calling API key.';
grant execute on function app_hidden.current_key_id() to svc_visitor;

create or replace function app_hidden.current_key_user_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is 'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';
grant execute on function app_hidden.current_key_user_id() to svc_visitor;

create or replace function app_hidden.current_scopes()
 returns text[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.scopes', true), '')::text[], '{}') $$;
comment on function app_hidden.current_scopes() is 'Scopes of the calling key; FULL holds every scope.';
grant execute on function app_hidden.current_scopes() to svc_visitor;

create or replace function app_hidden.current_user_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.user_id', true), '')::uuid $$;
comment on function app_hidden.current_user_id() is 'User owning the calling key (NULL for plugin keys with no user).';
grant execute on function app_hidden.current_user_id() to svc_visitor;

create or replace function app_hidden.current_workspace_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.workspace_id', true), '')::uuid $$;
comment on function app_hidden.current_workspace_id() is 'Workspace of the calling key (svc.workspace_id). NULL outside a request: every policy then denies.';
grant execute on function app_hidden.current_workspace_id() to svc_visitor;

create or replace function app_hidden.has_scope(p_scope text)
 returns boolean
 language sql
 stable parallel safe
as $$
    select p_scope = any(app_hidden.current_scopes()) or 'FULL' = any(app_hidden.current_scopes())
  $$;
comment on function app_hidden.has_scope(p_scope text) is 'True when the calling key holds the scope (or FULL).';
grant execute on function app_hidden.has_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.is_workspace_admin()
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_hidden.has_scope('ADMIN') and exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is 'True when the calling key holds ADMIN and its own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';
grant execute on function app_hidden.is_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_key_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';
grant execute on function app_hidden.require_key_user() to svc_visitor;

create or replace function app_hidden.require_scope(p_scope text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.has_scope(p_scope) then
    raise exception 'scope % required', p_scope using errcode = 'SVSCP', hint = p_scope;
  end if;
end
$$;
comment on function app_hidden.require_scope(p_scope text) is 'Raises SVSCP (HTTP 403 scope_required) unless the calling key holds the scope.';
grant execute on function app_hidden.require_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.require_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user' using errcode = 'SV403', detail = 'user_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_user() is 'The calling key''s user (personal records: notes, pins, time); 403 user_required for a key without one.';
grant execute on function app_hidden.require_user() to svc_visitor;

create or replace function app_hidden.hold_membership()
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_user uuid := app_hidden.require_user();
begin
  -- Live state only the person can end (a claim, a running timer, a watch) is made while holding their membership in
  -- share mode until commit: a removal of the member waits for the write (and then ends what it made), or the write
  -- waits for the removal and is refused as the revoked key's next call is. A removal raced such writes and left
  -- claims and timers behind that nobody but a moderator could end (definer: members may not lock memberships).
  perform from app_public.memberships m
  where m.workspace_id = app_hidden.current_workspace_id() and m.user_id = v_user
  for share;
  if not found then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.hold_membership() is 'The calling key''s user, their membership held in share mode until commit (401 revoked once they are no longer a member): issues.claim, time.start, issues.watch and the in-app key procedures take it, so a member''s removal and their own writes take turns.';
grant execute on function app_hidden.hold_membership() to svc_visitor;

create or replace function app_hidden.require_user_or_agent()
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is null and app_hidden.current_user_id() is null then
    raise exception 'This key acts for no user or agent' using errcode = 'SV403', detail = 'user_required';
  end if;
end
$$;
comment on function app_hidden.require_user_or_agent() is 'Watching: the calling key acts for an agent or a user; 403 user_required for a key with neither (a plugin''s).';
grant execute on function app_hidden.require_user_or_agent() to svc_visitor;

create or replace function app_hidden.require_workspace_admin()
 returns void
 language sql
 stable
as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';
grant execute on function app_hidden.require_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_unnarrowed(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  -- What rules the whole workspace (webhooks, the workflow, its settings, agents and their runtimes, members): a key
  -- narrowed to some projects, labels or initiatives may not change it, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception '%; that needs a key without project, label or initiative narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_unnarrowed(p_what text) is 'Raises 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing.';
grant execute on function app_hidden.require_unnarrowed(p_what text) to svc_visitor;

create or replace function app_hidden.require_unnarrowed_admin(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  perform app_hidden.require_unnarrowed(p_what);
end
$$;
comment on function app_hidden.require_unnarrowed_admin(p_what text) is 'Raises 403 admin_required / scope_required as require_workspace_admin, and 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing. For what rules the whole workspace: webhooks, statuses, settings.';
grant execute on function app_hidden.require_unnarrowed_admin(p_what text) to svc_visitor;

create or replace function app_hidden.require_workspace_admin_key()
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';
grant execute on function app_hidden.require_workspace_admin_key() to svc_visitor;

create or replace function app_hidden.set_request_context(p_key_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_key app_private.api_keys;
begin
  -- The API authenticates from a short-lived cache; this read in the call's own statement makes revocation and expiry
  -- exact (a revoked key fails on its very next call), and the call runs as the key's row says now: its workspace,
  -- user, agent, scopes and narrowing are taken from here, never from the API.
  select * into v_key from app_private.api_keys where id = p_key_id;
  if v_key.id is null then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  elsif v_key.linked_agent_id is not null
        and exists (select 1 from app_public.agents a where a.id = v_key.linked_agent_id and a.archived_at is not null) then
    -- An archived agent acts no more, through any tool, until an admin restores it (its keys stay).
    raise exception 'This key''s agent is archived; it acts again once an admin restores the agent'
      using errcode = 'SV403', detail = 'agent_archived';
  end if;
  perform
    set_config('svc.workspace_id', v_key.workspace_id::text, true),
    set_config('svc.user_id', coalesce(v_key.user_id::text, ''), true),
    set_config('svc.key_id', v_key.id::text, true),
    set_config('svc.agent_id', coalesce(v_key.linked_agent_id::text, ''), true),
    set_config('svc.scopes', v_key.scopes::text, true),
    set_config('svc.project_ids', v_key.project_ids::text, true),
    set_config('svc.label_ids', v_key.label_ids::text, true),
    set_config('svc.initiative_ids', v_key.initiative_ids::text, true);
  -- Returned so that what must run after it in the same statement can take it as an argument (idempotent_claim):
  -- a real dependency, not the planner's choice of join order.
  return v_key.id;
end
$$;
comment on function app_hidden.set_request_context(p_key_id uuid) is 'Reads the calling key''s row: 401 invalid/revoked/expired unless it is live, 403 agent_archived when its agent is archived; then writes the caller identity (workspace, user, key, agent, scopes, narrowing, all from that row) into transaction-local settings and returns the key''s id. The API calls it in the same statement as the tool function.';
grant execute on function app_hidden.set_request_context(p_key_id uuid) to svc_visitor;

create or replace function app_hidden.require_live_key()
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Volatile: it reads the key as committed now, not as the call's statement found it (set_request_context's check).
  perform app_private.current_caller();
end
$$;
comment on function app_hidden.require_live_key() is 'Raises 401 revoked/expired/invalid unless the calling key is live as committed now: for a write that waited on a lock a revocation may have held (agents.heartbeat).';
grant execute on function app_hidden.require_live_key() to svc_visitor;

create or replace function app_private.current_caller()
 returns app_private.caller
 language plpgsql
 stable
as $$
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
comment on function app_private.current_caller() is 'The calling key (svc.key_id), re-read and re-checked (401 when revoked/expired/foreign), with its own user''s workspace role.';

create or replace function app_private.require_admin(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_caller.role is null or p_caller.role not in ('OWNER', 'ADMIN') then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
  if not ('ADMIN' = any(p_caller.scopes) or 'FULL' = any(p_caller.scopes)) then
    raise exception 'scope ADMIN required' using errcode = 'SVSCP', hint = 'ADMIN';
  end if;
end
$$;
comment on function app_private.require_admin(p_caller app_private.caller) is 'Workspace administration: the key''s user is OWNER or ADMIN (else 403 admin_required) and the key holds ADMIN (else 403 scope_required).';
--! EndIncluded core/caller.sql
--! Included core/idempotency.sql
-- Idempotency keys of write calls (REST `Idempotency-Key`, JSON-RPC `_meta.idempotencyKey`): the table is in the
-- migrations. Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.idempotent_calls;
create policy owner_all on app_private.idempotent_calls to current_user using (true) with check (true);
comment on policy owner_all on app_private.idempotent_calls is
  'Only the schema owner (app_hidden.idempotent_claim / _remember, security definers) reads and writes them.';

create or replace function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text)
 returns text
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_tool text;
  v_hash text;
  v_response text;
  v_claimed boolean;
begin
  -- p_key_id is set_request_context's answer: taking it makes the statement run that first (idempotent_claim reads
  -- the workspace it set).
  if p_key_id is null or p_key_id is distinct from app_hidden.current_key_id() then
    raise exception 'idempotent_claim runs after set_request_context, with the key it returned';
  end if;
  -- The key's claim on this idempotency key, in the call's own transaction. A call with the same key in flight holds
  -- the row: this waits for it, and then sees its answer (DO UPDATE reads the latest version, whatever the
  -- statement's snapshot), or, when it failed and rolled back, claims the key itself.
  insert into app_private.idempotent_calls as c (workspace_id, key_id, idempotency_key, tool, request_hash)
  values (app_hidden.current_workspace_id(), p_key_id, p_idempotency_key, p_tool, p_request_hash)
  on conflict (key_id, idempotency_key) do update set key_id = c.key_id
  returning c.tool, c.request_hash, c.response, (c.xmax = 0) into v_tool, v_hash, v_response, v_claimed;
  if v_claimed then
    return null;  -- a new key: the call runs, and idempotent_remember keeps its answer
  end if;
  if v_tool <> p_tool or v_hash <> p_request_hash then
    raise exception 'This idempotency key was used for another request in the last 24 hours (%): use a new key for a new request', v_tool
      using errcode = 'SV422', detail = 'idempotency_key_reused', column = 'idempotencyKey';
  end if;
  return v_response;
end
$$;
comment on function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text) is 'Claims an idempotency key of the calling API key (p_key_id: what set_request_context returned in the same statement) for one write call: NULL when the call is to run (new key, or the earlier call with it failed), else the answer the earlier call gave; 422 idempotency_key_reused when the key came with another tool or other arguments. Waits for a call with the same key in flight.';
grant execute on function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text) to svc_visitor;

create or replace function app_hidden.idempotent_remember(p_idempotency_key text, p_response text)
 returns text
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  update app_private.idempotent_calls set response = p_response
  where key_id = app_hidden.current_key_id() and idempotency_key = p_idempotency_key;
  return p_response;
end
$$;
comment on function app_hidden.idempotent_remember(p_idempotency_key text, p_response text) is 'Keeps the answer of a write call made with an idempotency key (in its transaction: kept only if it commits) and returns it.';
grant execute on function app_hidden.idempotent_remember(p_idempotency_key text, p_response text) to svc_visitor;

create or replace function app_private.purge_idempotent_calls()
 returns integer
 language sql
as $$
  with gone as (delete from app_private.idempotent_calls where created_at < now() - interval '24 hours' returning 1)
  select count(*)::int from gone
$$;
comment on function app_private.purge_idempotent_calls() is 'Forgets idempotency keys older than 24 hours (the worker''s sweep, every minute); returns how many.';
--! EndIncluded core/idempotency.sql
--! Included auth/triggers.sql
-- Triggers of the auth tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_api_keys__notify_revoked()
 returns trigger
 language plpgsql
as $$
begin
  perform pg_notify('svc_keys', case when tg_op = 'DELETE' then old.id else new.id end::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked or deleted key at once, and to end its streams.';

drop trigger if exists _900_notify_revoked on app_private.api_keys;
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__notify_revoked();
-- A key deleted with its workspace or its user (a stream opened with it stayed open).
drop trigger if exists _900_notify_deleted on app_private.api_keys;
create trigger _900_notify_deleted after delete on app_private.api_keys for each row execute function app_private.tg_api_keys__notify_revoked();

create or replace function app_private.tg_api_keys__identity_fixed()
 returns trigger
 language plpgsql
as $$
begin
  -- A call runs as its key's row says (set_request_context), while each API process and its open streams keep the
  -- row they authenticated: were the row's identity to change, they would disagree until the cache or stream ended.
  -- Keys are rotated instead (spec 5.8): issue a new one, revoke the old.
  raise exception 'A key''s workspace, owner, agent, plugin, kind, scopes, narrowing and hash never change: issue a new key and revoke this one'
    using errcode = 'SV409', detail = 'key_identity_fixed';
end
$$;
comment on function app_private.tg_api_keys__identity_fixed() is 'BEFORE UPDATE on api_keys changing what a call runs as (workspace, user, plugin, kind, agent, scopes, narrowing, token hash): refused; a key is rotated, never edited.';

drop trigger if exists _100_identity_fixed on app_private.api_keys;
create trigger _100_identity_fixed before update on app_private.api_keys for each row
  when ((old.workspace_id, old.user_id, old.plugin_id, old.kind, old.linked_agent_id, old.scopes, old.project_ids, old.label_ids,
         old.initiative_ids, old.token_hash)
        is distinct from (new.workspace_id, new.user_id, new.plugin_id, new.kind, new.linked_agent_id, new.scopes, new.project_ids,
         new.label_ids, new.initiative_ids, new.token_hash))
  execute function app_private.tg_api_keys__identity_fixed();

create or replace function app_private.tg_api_keys__agent_offline()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- An agent whose last live key is revoked can no longer heartbeat, claim or report: it is OFFLINE now (reason
  -- keys_revoked), so the dispatcher stops handing it work; it stayed ONLINE, queued work and all, until the
  -- presence sweep 30 minutes later. Its row is locked first: two of its keys revoked at once then see each other's
  -- revocation (the check below runs after the lock, on what committed), and the last of them finds none left.
  perform 1 from app_public.agents a
  where a.id = new.linked_agent_id and a.status <> 'OFFLINE' and a.archived_at is null
  for update;
  if found and not app_private.agent_has_live_key(new.linked_agent_id) then
    perform set_config('svc.agent_status_reason', 'keys_revoked', true);
    update app_public.agents set status = 'OFFLINE' where id = new.linked_agent_id;
    perform set_config('svc.agent_status_reason', '', true);
  end if;
  return null;
end
$$;
comment on function app_private.tg_api_keys__agent_offline() is 'An agent''s last live key revoked (accessRevoke, svc admin revoke-key, the person who issued it removed): the agent goes OFFLINE at once (AGENT_STATUS_CHANGED, reason keys_revoked), so the dispatcher skips it. A new key and a heartbeat bring it back.';

drop trigger if exists _850_agent_offline on app_private.api_keys;
create trigger _850_agent_offline after update of revoked_at on app_private.api_keys for each row
  when (new.revoked_at is not null and old.revoked_at is null and new.linked_agent_id is not null)
  execute function app_private.tg_api_keys__agent_offline();

create or replace function app_private.tg_api_keys__events()
 returns trigger
 language plpgsql
as $$
begin
  -- Who holds access is the workspace's audit trail: issuing and revoking a key are state changes like any other.
  -- Never the token or its hash; the prefix is what lists show.
  perform app_private.record_event(new.workspace_id, case when tg_op = 'INSERT' then 'API_KEY_CREATED' else 'API_KEY_REVOKED' end,
    'api-key', new.id, jsonb_build_object('keyId', new.id, 'kind', new.kind, 'prefix', new.prefix, 'userId', new.user_id,
      'linkedAgentId', new.linked_agent_id, 'pluginId', new.plugin_id, 'expiresAt', new.expires_at, 'revokedAt', new.revoked_at));
  return null;
end
$$;
comment on function app_private.tg_api_keys__events() is 'API_KEY_CREATED when a key is issued (any path: access.*, plugins, the CLI, a new workspace''s owner key) and API_KEY_REVOKED when it is revoked (accessRevoke, svc admin revoke-key, a member removed); subject api-key, payload without secrets.';

drop trigger if exists _800_events_created on app_private.api_keys;
create trigger _800_events_created after insert on app_private.api_keys for each row execute function app_private.tg_api_keys__events();
drop trigger if exists _800_events_revoked on app_private.api_keys;
create trigger _800_events_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__events();

create or replace function app_private.tg_plugins__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  -- What a plugin's keys may be given and which skills skills.invoke may call are the workspace's to follow like its
  -- webhooks and dispatch rules (the event audit's last configuration without a trace).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['name', 'manifest.scopes:scopes', 'manifest.skills:skills', 'approved_at']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  perform app_private.record_event(new.workspace_id, case tg_op when 'INSERT' then 'PLUGIN_CREATED' else 'PLUGIN_UPDATED' end,
    'plugin', new.id,
    jsonb_build_object('pluginId', new.id, 'name', new.name, 'scopes', coalesce(new.manifest->'scopes', '[]'),
      'skills', coalesce((select jsonb_agg(s->'name') from jsonb_array_elements(coalesce(new.manifest->'skills', '[]')) s), '[]'),
      'approvedAt', new.approved_at)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_plugins__events() is 'AFTER INSERT/UPDATE on plugins: PLUGIN_CREATED, PLUGIN_UPDATED (changes: name, scopes, skills, approvedAt; nothing changed, no event). Subject plugin; payload pluginId, name, scopes, skills (their names), approvedAt.';

drop trigger if exists _800_events on app_private.plugins;
create trigger _800_events after insert or update on app_private.plugins for each row execute function app_private.tg_plugins__events();
--! EndIncluded auth/triggers.sql
--! Included attachments/jobs.sql
-- attachments: what the Graphile Worker jobs of attachments call (owner connections).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- p_flags added (migration 000092): link titles are flagged as their workspace's outbound work.
drop function if exists app_private.attachments_enqueue(text, json, timestamp with time zone);
create or replace function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone default now(), p_flags text[] default null)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job(p_task, p_payload, run_at := p_run_at, max_attempts := 3, flags := p_flags);
  end if;
end
$$;
comment on function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone, p_flags text[]) is 'Enqueues an attachments job (svc_attachment_upload_expire, svc_attachment_link_title; the latter flagged as its workspace''s outbound work, app_private.outbound_flags) in the caller''s transaction. Security definer: the request role has no access to the queue.';

create or replace function app_private.attachment_upload_expire(p_upload_id uuid)
 returns text
 language sql
as $$
  delete from app_public.attachment_uploads u where u.id = p_upload_id and u.expires_at <= now()
  returning u.storage_key
$$;
comment on function app_private.attachment_upload_expire(p_upload_id uuid) is 'Job svc_attachment_upload_expire: removes an upload that was never finalized and returns its object key (the job deletes the blob); null when it was finalized or has not expired.';

create or replace function app_private.attachment_upload_open(p_storage_key text)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.attachment_uploads u where u.storage_key = p_storage_key and u.expires_at > now())
$$;
comment on function app_private.attachment_upload_open(p_storage_key text) is 'The embedded blob store''s PUT (owner connection): whether the object key still belongs to an upload in progress. A finalized (the row is gone), deleted or expired upload takes no more bytes through its link.';

create or replace function app_private.blob_link_key_live(p_key_id uuid, p_workspace_id uuid)
 returns boolean
 language sql
 stable
as $$
  -- What set_request_context checks of a key at each call (here also: the key of this workspace): not revoked, not
  -- expired, and its agent (if any) not archived.
  select exists (select 1 from app_private.api_keys k
                 where k.id = p_key_id and k.workspace_id = p_workspace_id and k.revoked_at is null
                   and (k.expires_at is null or k.expires_at > now())
                   and not exists (select 1 from app_public.agents a where a.id = k.linked_agent_id and a.archived_at is not null))
$$;
comment on function app_private.blob_link_key_live(p_key_id uuid, p_workspace_id uuid) is 'The embedded blob store''s GET and PUT (owner connection): whether the key that made a signed link still acts in the link''s workspace (not revoked, not expired, agent not archived). A link ends with its key.';

create or replace function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text)
 returns void
 language sql
as $$
  update app_public.attachments a set link_title = left(p_title, 500),
    -- The hostname stood in for the name too (attachLink without linkTitle); a given linkTitle names it from the start.
    filename = case when a.filename = app_hidden.url_hostname(a.external_url) then left(p_title, 255) else a.filename end
  where a.id = p_attachment_id and a.kind = 'LINK' and p_title is not null and p_title <> ''
$$;
comment on function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text) is 'Job svc_attachment_link_title: stores the scraped page title (at most 500 characters) of a LINK attachment, and as its filename where the hostname stood in (ISSUE_UPDATED/INITIATIVE_UPDATED/CYCLE_UPDATED by trigger).';
--! EndIncluded attachments/jobs.sql
