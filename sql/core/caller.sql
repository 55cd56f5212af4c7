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
