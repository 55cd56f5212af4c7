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
