--! Previous: sha1:3a109ce1a0068688b4a217cd204a08fa4f4eabc4
--! Hash: sha1:1909ceb65f692b5517659db002b0a15152babcca
--! Message: From probes of side channels and races: narrowed search, link events, owners, new users, parents, user createdAt, webhook 404 fields

--! split: 1-current.sql
-- From outside probes of tenancy side channels and races:
-- - A search by a narrowed key ranked and counted the workspace's hidden issues (issue_search_matches is security
--   definer): the narrowing now applies inside it.
-- - A link's ISSUE_UPDATED names the other end (relatedIssueId), and a narrowed key reads it only when it sees
--   that end too (it learned of links to issues it cannot see). Existing link events get it from their pair.
-- - Two owners demoting or removing each other at once left a workspace without an OWNER: the owners' memberships
--   are locked first. Two workspaces adding the same new person at once: one got 409.
-- - A sub-issue created or moved under a parent being deleted kept pointing at it: the parent is locked in share
--   mode and must be live (trigger _060_live_parent).
-- - User.createdAt leaves GraphQL (when a person signed up anywhere is not a workspace's to read).
-- - 404s of webhooks (and accessCreate's linkedAgentId) name their field.
drop function if exists app_hidden.raise_not_found(text);
drop function if exists app_hidden.webhook_in_workspace(uuid);
drop function if exists app_hidden.webhook_delete(uuid);
drop function if exists app_hidden.webhook_test(uuid);
drop function if exists app_hidden.webhook_rotate_secret(uuid, integer);
drop function if exists app_hidden.webhook_update(uuid, text, text[], boolean, text);
--! Included core/errors.sql
-- Raising the service's own SQLSTATEs (SV400, SV404 ...), mapped to HTTP in src/errors.ts.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The finder every find_<entity> uses: it looks its row up (by id parsed with parse_uuid, so a malformed id
-- is a 400 on the field) and hands it here; nothing found, or nothing visible under RLS, reads the same.
create or replace function app_hidden.found(p_row anyelement, p_what text, p_field text default 'id'::text)
 returns anyelement
 language plpgsql
 stable
as $$
begin
  if p_row is null then
    raise exception '% not found', p_what using errcode = 'SV404', column = p_field;
  end if;
  return p_row;
end
$$;
comment on function app_hidden.found(p_row anyelement, p_what text, p_field text) is 'A looked-up row, or 404 "<what> not found" naming the field when there is none (a missing row and one RLS hides read the same).';
grant execute on function app_hidden.found(p_row anyelement, p_what text, p_field text) to svc_visitor;

create or replace function app_hidden.raise_invalid(p_field text, p_message text)
 returns void
 language plpgsql
as $$
begin
  raise exception '%', p_message using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.raise_invalid(p_field text, p_message text) is 'Raises SV400 for one input field (HTTP 400 with issues = {field: message}).';
grant execute on function app_hidden.raise_invalid(p_field text, p_message text) to svc_visitor;

create or replace function app_hidden.raise_not_found(p_what text, p_field text)
 returns void
 language plpgsql
as $$
begin
  if p_field is null then
    raise exception '% not found', p_what using errcode = 'SV404';
  end if;
  raise exception '% not found', p_what using errcode = 'SV404', column = p_field;
end
$$;
comment on function app_hidden.raise_not_found(p_what text, p_field text) is 'Raises SV404 "<what> not found" (HTTP 404) naming the input field (null: none, for a caller with no input of its own, such as the worker).';
grant execute on function app_hidden.raise_not_found(p_what text, p_field text) to svc_visitor;
--! EndIncluded core/errors.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
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

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
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

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
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
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent that no issue or comment refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

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
  -- As a webhook's rotation: the old secret signs beside the new one for the grace (0: stops at once).
  insert into app_private.agent_webhook_secrets as s (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update
  set previous_secret = case when v_until is not null then s.secret end, previous_secret_expires_at = v_until,
      secret = excluded.secret, rotated_at = now()
  returning previous_secret_expires_at into v_until;
  return jsonb_build_object('secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns {secret (shown once), previousSecretValidUntil}: the old one also signs until then (null: it stopped at once, or there was none).';

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
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
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
comment on function app_public.agents_archive(agent_id uuid) is 'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is 'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is 'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
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
--! EndIncluded agents/agents.sql
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
    perform app_hidden.require_unnarrowed('A key acting as an agent is workspace administration');
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
    perform app_hidden.raise_not_found('Workspace', null);
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
    perform app_hidden.raise_not_found('Workspace', null);
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
--! Included runtimes/runtimes.sql
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
--! EndIncluded runtimes/runtimes.sql
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_webhook_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  -- A webhook receives every event of the workspace (or every event of its kinds).
  perform app_hidden.require_unnarrowed_admin('Webhooks deliver the whole workspace''s events');
end
$$;
comment on function app_hidden.require_webhook_admin() is 'Every in-app webhook procedure and webhooks.* tool starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), and a key without narrowing (403 narrowing).';
grant execute on function app_hidden.require_webhook_admin() to svc_visitor;

create or replace function app_private.lock_webhook_registrations(p_workspace_id uuid)
 returns void
 language sql
as $$
  -- One registration change at a time per workspace: each records a WEBHOOK_* event that is delivered to the
  -- workspace's other webhooks, so two deletes at once each waited for the other's webhook (deadlock, then 409).
  select pg_advisory_xact_lock(hashtextextended('svc.webhooks:' || p_workspace_id::text, 0))
$$;
comment on function app_private.lock_webhook_registrations(p_workspace_id uuid) is 'Serialises the webhook registration changes of a workspace for the transaction (advisory lock, reentrant).';

create or replace function app_hidden.require_webhook_admin_for_change()
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.require_webhook_admin();
  perform app_private.lock_webhook_registrations(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.require_webhook_admin_for_change() is 'require_webhook_admin, then serialises the workspace''s webhook registration changes for the transaction (advisory lock).';
grant execute on function app_hidden.require_webhook_admin_for_change() to svc_visitor;

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (webhookId and active only).';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id, p_field));
end
$$;
comment on function app_hidden.webhook_delete(p_webhook_id uuid, p_field text) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_DELETED.';
grant execute on function app_hidden.webhook_delete(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  if p_webhook_id is not null then
    perform app_hidden.webhook_in_workspace(p_webhook_id);
  end if;
  return app_private.webhook_deliveries_list(app_hidden.current_workspace_id(), p_webhook_id, p_status, p_limit, p_before);
end
$$;
comment on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'In-app: deliveries of the calling workspace (OWNER/ADMIN).';
grant execute on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) to svc_visitor;

create or replace function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', d.id, 'eventId', d.event_id,
    'eventKind', (select e.kind from app_public.activity_events e where e.id = d.event_id),
    'webhookId', d.webhook_id, 'agentId', d.agent_id, 'channel', d.channel, 'status', d.status,
    'attemptCount', d.attempt_count, 'totalAttempts', d.total_attempts,
    'nextAttemptAt', case when d.status = 'PENDING' then d.next_attempt_at end,
    'lastStatusCode', d.last_status_code, 'lastError', d.last_error,
    'deliveredAt', d.delivered_at, 'deadLetteredAt', d.dead_lettered_at, 'createdAt', d.created_at,
    'attempts', coalesce((select jsonb_agg(jsonb_build_object('attempt', a.attempt_number, 'url', a.url,
        'startedAt', a.started_at, 'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error,
        'responseBody', a.response_body) order by a.attempt_number)
      from app_public.webhook_delivery_attempts a where a.workspace_id = d.workspace_id and a.delivery_id = d.id), '[]'))
$$;
comment on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) is 'Delivery shape with every attempt (status, duration, truncated response).';
grant execute on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) to svc_visitor;

create or replace function app_hidden.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery', 'deliveryId');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';
grant execute on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_event_payload(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  -- Every key of the workspace reads WEBHOOK_* events, and only admins may read webhooks: no URL, host, event
  -- filter or secret here (webhooks.get shows them to an admin).
  select jsonb_build_object('webhookId', w.id, 'active', w.active)
$$;
comment on function app_hidden.webhook_event_payload(w app_public.webhooks) is 'Payload of the WEBHOOK_* events: webhookId and active only. Every key of the workspace reads these events; the URL, host, event filter and secret stay with admins (webhooks.get).';
grant execute on function app_hidden.webhook_event_payload(w app_public.webhooks) to svc_visitor;

create or replace function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns uuid
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  if not exists (select 1 from app_public.webhooks where id = p_webhook_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Webhook', p_field);
  end if;
  return p_webhook_id;
end
$$;
comment on function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text) is 'The webhook id when it belongs to the calling workspace, else 404.';
grant execute on function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_json(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events), 'active', w.active,
    'description', w.description, 'deactivatedAt', w.deactivated_at, 'deactivatedReason', w.deactivated_reason,
    'createdAt', w.created_at, 'updatedAt', w.updated_at)
$$;
comment on function app_hidden.webhook_json(w app_public.webhooks) is 'Webhook shape (never the secret).';
grant execute on function app_hidden.webhook_json(w app_public.webhooks) to svc_visitor;

drop function if exists app_hidden.webhook_rotate_secret(uuid);
create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id, p_field), p_keep_previous_hours);
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer, p_field text) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once; the old one signs beside it for p_keep_previous_hours. Records WEBHOOK_UPDATED (changes secret, previousSecretValidUntil; never a secret).';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_test(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_test(app_hidden.webhook_in_workspace(p_webhook_id, p_field));
end
$$;
comment on function app_hidden.webhook_test(p_webhook_id uuid, p_field text) is 'In-app: queue a WEBHOOK_TESTED delivery to one webhook of the calling workspace now (OWNER/ADMIN); 409 webhook_inactive for an inactive one.';
grant execute on function app_hidden.webhook_test(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id, p_field), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text, p_field text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';
grant execute on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text, p_field text) to svc_visitor;

create or replace function app_hidden.webhooks_list()
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  return app_private.webhooks_list(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.webhooks_list() is 'In-app: the calling workspace''s webhooks with health counts (OWNER/ADMIN).';
grant execute on function app_hidden.webhooks_list() to svc_visitor;

create or replace function app_private.check_webhook_input(p_url text, p_events text[])
 returns text[]
 language plpgsql
 immutable
as $$
declare v_bad text;
begin
  if p_url is not null and (p_url !~ '^https?://[^\s/?#@]+' or length(p_url) > 2048) then
    perform app_hidden.raise_invalid('url', 'url must be an http(s) URL without credentials, at most 2048 characters');
  end if;
  if p_events is null then
    return null;
  end if;
  -- As webhooks.create's input allows (GraphQL and the CLI reach here without it: 5,000 entries were taken).
  if cardinality(p_events) > 100 then
    perform app_hidden.raise_invalid('events', 'at most 100 event kinds');
  end if;
  select e into v_bad from unnest(p_events) e where e is null or not (e = any(app_hidden.event_kinds())) limit 1;
  if found then
    perform app_hidden.raise_invalid('events', format('unknown event kind %s', coalesce(v_bad, 'null')));
  end if;
  return array(select distinct e from unnest(p_events) e order by e);
end
$$;
comment on function app_private.check_webhook_input(p_url text, p_events text[]) is 'Validates a webhook URL and event filter (at most 100 known kinds; 400 naming the field); returns the events de-duplicated and sorted.';

create or replace function app_private.outbound_flags(p_workspace_id uuid)
 returns text[]
 language sql
 immutable
 set search_path to 'pg_catalog'
as $$
  select array['svc_outbound:' || p_workspace_id]
$$;
comment on function app_private.outbound_flags(p_workspace_id uuid) is 'The Graphile Worker flags of a workspace''s outbound job (a webhook or agent delivery, a link title). A worker runs at most half its slots of one workspace''s outbound jobs: while it does, it fetches none flagged so (forbiddenFlags, src/outbound/tenant-share.ts), however many of the workspace''s targets hang.';

create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone default NULL::timestamp with time zone)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries d where d.id = p_delivery_id;
  -- A delivery gone with its webhook (a deferred job putting itself back) has nothing left to send; its null
  -- workspace would make a null flag, which add_job refuses (22023), failing the job ten times over.
  if v_delivery.id is not null and to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      flags := app_private.outbound_flags(v_delivery.workspace_id),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace',
      -- An agent's dispatch (its assignment, a chat message) goes before the workspace's webhook deliveries: behind
      -- a dozen webhooks to hosts that never answer, each holding a slot of its share for the whole deadline, an
      -- agent waited 20 to 40 s for its work.
      priority := case when v_delivery.agent_id is not null then -1 else 0 end);
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone) is 'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>, flagged as its workspace''s outbound work (outbound_flags); an agent''s dispatch delivery at priority -1 (before webhook deliveries); nothing for a delivery that no longer exists. Runs in the caller''s transaction.';

create or replace function app_private.new_webhook_secret()
 returns text
 language sql
as $$
  -- 32 bytes from two v4 UUIDs (pg_strong_random; 244 random bits), base64: the Standard Webhooks format.
  select 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
$$;
comment on function app_private.new_webhook_secret() is 'A fresh signing secret, whsec_<base64 of 32 bytes> (Standard Webhooks).';

create or replace function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := coalesce(app_private.check_webhook_input(p_url, coalesce(p_events, '{}')), '{}');
  v_webhook app_public.webhooks;
  v_secret text := app_private.new_webhook_secret();
begin
  if p_url is null then
    perform app_hidden.raise_invalid('url', 'url is required');
  end if;
  -- At most 50 per workspace (every event becomes a delivery to each of them), counted under the lock that
  -- serialises registration changes (require_webhook_admin_for_change takes it too; it is reentrant).
  perform app_private.lock_webhook_registrations(p_workspace_id);
  if (select count(*) from app_public.webhooks w where w.workspace_id = p_workspace_id) >= 50 then
    raise exception 'A workspace has at most 50 webhooks; delete one first' using errcode = 'SV409', detail = 'webhook_limit';
  end if;
  insert into app_public.webhooks (workspace_id, url, events, description)
  values (p_workspace_id, p_url, v_events, p_description)
  returning * into v_webhook;
  insert into app_private.webhook_secrets (webhook_id, workspace_id, secret) values (v_webhook.id, p_workspace_id, v_secret);
  -- The workspace's other webhooks receive it; this one hears nothing about itself (the outbox trigger).
  perform app_private.record_event(p_workspace_id, 'WEBHOOK_CREATED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return app_hidden.webhook_json(v_webhook) || jsonb_build_object('secret', v_secret);
end
$$;
comment on function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[], p_description text) is 'Registers a webhook (at most 50 per workspace: 409 webhook_limit) and records WEBHOOK_CREATED; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_webhook app_public.webhooks;
begin
  perform app_private.lock_webhook_registrations((select w.workspace_id from app_public.webhooks w where w.id = p_webhook_id));
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_DELETED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(p_webhook_id uuid) is 'Deletes a webhook with its secret, deliveries and attempts (queued jobs find nothing and stop) and records WEBHOOK_DELETED.';

create or replace function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := least(greatest(coalesce(p_limit, 50), 1), 200);
  v_before app_public.webhook_deliveries;
begin
  if p_status is not null and p_status not in ('PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED') then
    perform app_hidden.raise_invalid('status', 'status must be PENDING, DELIVERED, DEAD_LETTER or CANCELED');
  end if;
  if p_before is not null then
    select * into v_before from app_public.webhook_deliveries where id = p_before and workspace_id = p_workspace_id;
  end if;
  -- The cursor is the last delivery's id itself (prefix null).
  return app_hidden.page_json(array(
    select (app_hidden.webhook_delivery_json(d), d.id::text, null)::app_hidden.page_row
    from app_public.webhook_deliveries d
    where d.workspace_id = p_workspace_id
      and (p_webhook_id is null or d.webhook_id = p_webhook_id)
      and (p_status is null or d.status = p_status)
      and (v_before.id is null or (d.created_at, d.id) < (v_before.created_at, v_before.id))
    order by d.created_at desc, d.id desc limit v_limit + 1), v_limit, null);
end
$$;
comment on function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'Deliveries of a workspace, newest first, optionally of one webhook or status, with their attempts; page with p_before = nextCursor.';

create or replace function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean default false)
 returns jsonb
 language plpgsql
as $$
declare
  v_requeued int := 0;
  v_next_lease timestamptz;
  v_id uuid;
  v_run_at timestamptz;
begin
  if to_regnamespace('graphile_worker') is null then
    return jsonb_build_object('requeued', 0);
  end if;
  -- PENDING deliveries that no live job will pick up: their lease expired (the worker died
  -- mid-attempt) or they have no waiting job (never enqueued, or its job is stuck on a dead worker).
  for v_id, v_run_at in
    select d.id, greatest(d.next_attempt_at, now()) from app_public.webhook_deliveries d
    where d.status = 'PENDING' and (d.locked_until is null or d.locked_until < now())
      -- only overdue ones: a backlog that workers are still working through costs nothing here
      and d.next_attempt_at < now() - make_interval(secs => p_stale_ms / 1000.0)
      and not exists (
        select 1 from graphile_worker.jobs j
        where j.key = 'svc_webhook:' || d.id and j.attempts < j.max_attempts
          and (j.locked_at is null or j.locked_at > now() - make_interval(secs => p_stale_ms / 1000.0)))
  loop
    perform app_private.enqueue_delivery_job(v_id, v_run_at);
    v_requeued := v_requeued + 1;
  end loop;
  -- At start-up, come back when the leases of deliveries that were in flight expire.
  if p_follow_up then
    select min(locked_until) into v_next_lease from app_public.webhook_deliveries
    where status = 'PENDING' and locked_until >= now();
    if v_next_lease is not null then
      perform graphile_worker.add_job('svc_webhooks_sweep', '{}'::json, run_at := v_next_lease + interval '100 milliseconds',
        job_key := 'svc_webhooks_sweep:follow-up', job_key_mode := 'replace');
    end if;
  end if;
  return jsonb_build_object('requeued', v_requeued, 'nextLeaseExpiry', v_next_lease);
end
$$;
comment on function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean) is 'Recovery: re-queues PENDING deliveries whose lease expired or whose job is missing or stuck (older than p_stale_ms). With p_follow_up (worker start-up) it also schedules itself for when the current leases expire.';

create or replace function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer)
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_url text;
  v_secret text;
  v_previous text;
  v_active boolean;
  v_interrupted_at timestamptz;
begin
  select * into v_delivery from app_public.webhook_deliveries
  where id = p_delivery_id and status = 'PENDING'
    and (locked_until is null or locked_until < clock_timestamp())
    and next_attempt_at <= clock_timestamp() + interval '50 milliseconds'
  for update;
  if v_delivery.id is not null then
    -- Every recorded outcome clears the lease: one left behind is an attempt whose worker stopped mid-way (kill -9).
    -- It was sent, maybe received: it counts, so the receiver sees the next one as a retry (x-svc-attempt).
    v_interrupted_at := v_delivery.locked_until;
    update app_public.webhook_deliveries
    set locked_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0),
        attempt_count = attempt_count + (v_interrupted_at is not null)::int,
        total_attempts = total_attempts + (v_interrupted_at is not null)::int,
        last_error = case when v_interrupted_at is not null then 'the worker stopped during the attempt' else last_error end
    where id = v_delivery.id
    returning * into v_delivery;
  end if;
  if v_delivery.id is null then
    -- Delivered, dead, leased by a live worker, or not due yet (a sweep ran early): make sure a
    -- not-yet-due delivery still has its job, then let this one go.
    select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id;
    if v_delivery.status = 'PENDING' and (v_delivery.locked_until is null or v_delivery.locked_until < clock_timestamp()) then
      perform app_private.enqueue_delivery_job(v_delivery.id, v_delivery.next_attempt_at);
    end if;
    return null;
  end if;

  -- The previous secret, while a rotation's grace lasts, signs beside the current one.
  if v_delivery.webhook_id is not null then
    select w.url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end, w.active
      into v_url, v_secret, v_previous, v_active
    from app_public.webhooks w join app_private.webhook_secrets s on s.webhook_id = w.id
    where w.id = v_delivery.webhook_id;
  else
    select a.webhook_url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end,
           a.webhook_url is not null and a.archived_at is null
      into v_url, v_secret, v_previous, v_active
    from app_public.agents a join app_private.agent_webhook_secrets s on s.agent_id = a.id
    where a.id = v_delivery.agent_id;
  end if;
  if v_interrupted_at is not null then
    insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at, duration_ms, error)
    values (v_delivery.workspace_id, v_delivery.id, v_delivery.total_attempts, coalesce(v_url, ''),
            v_interrupted_at - make_interval(secs => p_lease_ms / 1000.0), p_lease_ms,
            'no outcome recorded: the worker stopped during this attempt (its lease expired)');
  end if;
  if not coalesce(v_active, false) then
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      last_error = coalesce(last_error, 'target inactive or removed')
    where id = v_delivery.id;
    return null;
  end if;

  return jsonb_build_object(
    'deliveryId', v_delivery.id, 'workspaceId', v_delivery.workspace_id, 'eventId', v_delivery.event_id, 'channel', v_delivery.channel,
    'attempt', v_delivery.total_attempts + 1, 'url', v_url, 'secret', v_secret, 'previousSecret', v_previous,
    'kind', (select e.kind from app_public.activity_events e where e.id = v_delivery.event_id),
    'body', (select app_hidden.event_json(e, false)::text from app_public.activity_events e where e.id = v_delivery.event_id));
end
$$;
comment on function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer) is 'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body, attempt number) and whose it is (workspaceId: the worker spreads slow targets'' retries per workspace). A lease left by a worker that stopped mid-attempt is recorded as an attempt with no outcome. NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_hook app_public.webhooks;
  v_code int := (p_attempt->>'statusCode')::int;
  v_error text := left(p_attempt->>'error', 1000);
  v_next timestamptz;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null or v_delivery.status <> 'PENDING' then
    return jsonb_build_object('status', coalesce(v_delivery.status, 'GONE'));
  end if;
  insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at,
                                                    duration_ms, status_code, error, response_body)
  values (v_delivery.workspace_id, v_delivery.id, v_delivery.total_attempts + 1, p_attempt->>'url',
          (p_attempt->>'startedAt')::timestamptz, (p_attempt->>'durationMs')::int, v_code, v_error,
          left(p_attempt->>'responseBody', 2048));

  if v_code between 200 and 299 then
    update app_public.webhook_deliveries set status = 'DELIVERED', delivered_at = now(), locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code, last_error = null
    where id = v_delivery.id;
    return jsonb_build_object('status', 'DELIVERED');
  end if;

  if v_code = 410 and v_delivery.webhook_id is not null then
    -- The receiver says the endpoint is gone for good: stop sending to it.
    update app_public.webhooks set active = false, deactivated_at = now(), deactivated_reason = 'endpoint answered 410 Gone'
    where id = v_delivery.webhook_id and active
    returning * into v_hook;
    -- A state change, as an admin switching it off is: WEBHOOK_UPDATED (the system acting, no actor).
    if v_hook.id is not null then
      perform app_private.record_event(v_hook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_hook.id,
        app_hidden.webhook_event_payload(v_hook) || jsonb_build_object('changes', jsonb_build_array('active'),
                                                                       'deactivatedReason', v_hook.deactivated_reason));
    end if;
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = 'endpoint answered 410 Gone; webhook deactivated'
    where id = v_delivery.id;
    return jsonb_build_object('status', 'CANCELED', 'deactivated', true);
  end if;

  if v_delivery.attempt_count + 1 <= coalesce(cardinality(p_backoff_seconds), 0) then
    v_next := clock_timestamp() + make_interval(secs => p_backoff_seconds[v_delivery.attempt_count + 1]);
    update app_public.webhook_deliveries set next_attempt_at = v_next, locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = coalesce(v_error, format('HTTP %s', v_code))
    where id = v_delivery.id;
    perform app_private.enqueue_delivery_job(v_delivery.id, v_next);
    return jsonb_build_object('status', 'PENDING', 'nextAttemptAt', v_next);
  end if;

  update app_public.webhook_deliveries set status = 'DEAD_LETTER', dead_lettered_at = now(), locked_until = null,
    attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
    last_error = coalesce(v_error, format('HTTP %s', v_code))
  where id = v_delivery.id;
  return jsonb_build_object('status', 'DEAD_LETTER');
end
$$;
comment on function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[]) is 'Worker: records one attempt and moves the delivery on: 2xx DELIVERED; 410 deactivates the webhook (CANCELED); otherwise the next retry after p_backoff_seconds[n], or DEAD_LETTER when the schedule is spent.';

create or replace function app_private.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null then
    perform app_hidden.raise_not_found('Delivery', null);
  end if;
  if v_delivery.status not in ('DEAD_LETTER', 'CANCELED') then
    raise exception 'Only DEAD_LETTER or CANCELED deliveries can be retried (this one is %)', v_delivery.status
      using errcode = 'SV409', detail = 'not_dead_letter';
  end if;
  if v_delivery.webhook_id is not null and not exists (
    select 1 from app_public.webhooks w where w.id = v_delivery.webhook_id and w.active) then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  update app_public.webhook_deliveries set status = 'PENDING', attempt_count = 0, next_attempt_at = now(),
    locked_until = null, dead_lettered_at = null
  where id = p_delivery_id
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_delivery_retry(p_delivery_id uuid) is 'Puts a DEAD_LETTER (or CANCELED) delivery back in the queue with a fresh retry schedule; same event, same webhook-id.';

drop function if exists app_private.webhook_rotate_secret(uuid);
create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  -- The old secret keeps signing beside the new one (webhook-signature carries both) until the receiver has the new
  -- one: a rotation no longer breaks a live integration. 0 ends it at once (a leaked secret).
  update app_private.webhook_secrets
  set previous_secret = case when v_until is not null then secret end, previous_secret_expires_at = v_until,
      secret = v_secret, rotated_at = now()
  where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  perform app_private.record_event(w.workspace_id, 'WEBHOOK_UPDATED', 'webhook', w.id, app_hidden.webhook_event_payload(w)
    || jsonb_build_object('changes', jsonb_build_array('secret'), 'previousSecretValidUntil', v_until))
  from app_public.webhooks w where w.id = p_webhook_id;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'Replaces a webhook''s signing secret and returns the new one (shown once); the old one also signs deliveries for p_keep_previous_hours (0: stops at once; previousSecretValidUntil says until when). Records WEBHOOK_UPDATED (changes secret; never a secret).';

drop function if exists app_private.check_keep_previous_hours(integer);
create or replace function app_private.previous_secret_until(p_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_hours is null or p_hours < 0 or p_hours > 168 then
    perform app_hidden.raise_invalid('keepPreviousHours', 'keepPreviousHours must be from 0 (the old secret stops at once) to 168 (a week)');
  end if;
  return case when p_hours > 0 then now() + make_interval(hours => p_hours) end;
end
$$;
comment on function app_private.previous_secret_until(p_hours integer) is 'A rotation''s grace for the old secret (webhooks and agent dispatch): until when it still signs, null for 0 hours (it stops at once); 0 to 168, else 400 on keepPreviousHours.';

create or replace function app_private.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_webhook app_public.webhooks;
  v_event uuid;
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_webhook from app_public.webhooks where id = p_webhook_id;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  if not v_webhook.active then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  -- A stored event (the audit trail says who tested which webhook; deliveries need one), which the outbox
  -- trigger fans out to no webhook: only this one gets it, whatever its event filter.
  v_event := app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_TESTED', 'webhook', v_webhook.id,
    app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('test', true));
  insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
  values (v_webhook.workspace_id, v_event, v_webhook.id, 'webhook:' || v_webhook.id)
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_test(p_webhook_id uuid) is 'Records WEBHOOK_TESTED about a webhook and queues its delivery to that webhook only (signed and retried like any delivery); 409 webhook_inactive.';

create or replace function app_private.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := app_private.check_webhook_input(p_url, p_events);
  v_old app_public.webhooks;
  v_webhook app_public.webhooks;
  v_changes text[] := '{}';
begin
  select * into v_old from app_public.webhooks where id = p_webhook_id for update;
  if v_old.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  -- A change that changes nothing writes nothing (updatedAt moved, with no event).
  update app_public.webhooks set
    url = coalesce(p_url, url),
    events = coalesce(v_events, events),
    description = coalesce(p_description, description),
    active = coalesce(p_active, active),
    deactivated_at = case when p_active then null when p_active = false and active then now() else deactivated_at end,
    deactivated_reason = case when p_active then null when p_active = false and active then 'deactivated by an admin' else deactivated_reason end
  where id = p_webhook_id
    and (coalesce(p_url, url) is distinct from url or coalesce(v_events, events) is distinct from events
         or coalesce(p_description, description) is distinct from description or coalesce(p_active, active) is distinct from active)
  returning * into v_webhook;
  if v_webhook.id is null then
    return app_hidden.webhook_json(v_old);
  end if;
  if v_webhook.url is distinct from v_old.url then v_changes := array_append(v_changes, 'url'); end if;
  if v_webhook.events is distinct from v_old.events then v_changes := array_append(v_changes, 'events'); end if;
  if v_webhook.active is distinct from v_old.active then v_changes := array_append(v_changes, 'active'); end if;
  if v_webhook.description is distinct from v_old.description then v_changes := array_append(v_changes, 'description'); end if;
  -- A change that changes nothing records nothing. The event names what changed, never the values.
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_webhook.id,
      app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return app_hidden.webhook_json(v_webhook);
end
$$;
comment on function app_private.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook are canceled when their turn comes. Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';

create or replace function app_private.webhooks_list(p_workspace_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.webhook_json(w) || jsonb_build_object(
      'pending', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id))
    order by w.created_at, w.id), '[]')
  from app_public.webhooks w where w.workspace_id = p_workspace_id
$$;
comment on function app_private.webhooks_list(p_workspace_id uuid) is 'The workspace''s webhooks with pending and dead-letter counts (no secrets).';

create or replace function app_public.webhook_deliveries_retry(delivery_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delivery_retry(delivery_id) $$;
comment on function app_public.webhook_deliveries_retry(delivery_id uuid) is 'OWNER/ADMIN: puts a dead-lettered delivery back in the queue (same event, same webhook-id).';
grant execute on function app_public.webhook_deliveries_retry(delivery_id uuid) to svc_visitor;

create or replace function app_public.webhooks_create(url text, events text[] default '{}'::text[], description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_create(url, events, description) $$;
comment on function app_public.webhooks_create(url text, events text[], description text) is 'OWNER/ADMIN: registers a webhook for the given event kinds (empty = all). Returns {id, url, events, active, secret}; the secret is shown only here.';
grant execute on function app_public.webhooks_create(url text, events text[], description text) to svc_visitor;

create or replace function app_public.webhooks_delete(webhook_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delete(webhook_id) $$;
comment on function app_public.webhooks_delete(webhook_id uuid) is 'OWNER/ADMIN: deletes a webhook and its pending deliveries.';
grant execute on function app_public.webhooks_delete(webhook_id uuid) to svc_visitor;

create or replace function app_public.webhooks_overview()
 returns jsonb
 language sql
 stable
as $$ select app_hidden.webhooks_list() $$;
comment on function app_public.webhooks_overview() is 'OWNER/ADMIN: the workspace''s webhooks with delivery health counts.';
grant execute on function app_public.webhooks_overview() to svc_visitor;

drop function if exists app_public.webhooks_rotate_secret(uuid);
create or replace function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer default 24)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_rotate_secret(webhook_id, coalesce(keep_previous_hours, 24)) $$;
comment on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) is 'OWNER/ADMIN: replaces the signing secret and returns the new one (shown once); the old one also signs deliveries for keepPreviousHours (default 24, 0 to 168; 0 stops it at once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is 'OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
--! Included webhooks/tools/delete.sql
-- The webhooks.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: deletes a webhook with its secret and deliveries (app_hidden.webhook_delete,
-- WEBHOOK_DELETED).
create or replace function app_tools.webhooks_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_delete(app_hidden.parse_uuid(args->>'id', 'id'), 'id');
end
$$;
comment on function app_tools.webhooks_delete(args jsonb) is 'webhooks.delete: OWNER/ADMIN, unnarrowed key: delete a webhook and its deliveries.';
grant execute on function app_tools.webhooks_delete(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/delete.sql
--! Included webhooks/tools/rotateSecret.sql
-- The webhooks.rotateSecret tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: a new signing secret, returned this once; the old one signs beside it for
-- keepPreviousHours (default 24; 0 stops it at once) (app_hidden.webhook_rotate_secret; WEBHOOK_UPDATED, never a secret).
create or replace function app_tools.webhooks_rotate_secret(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_rotate_secret(app_hidden.parse_uuid(args->>'id', 'id'), coalesce((args->>'keepPreviousHours')::int, 24), 'id');
end
$$;
comment on function app_tools.webhooks_rotate_secret(args jsonb) is 'webhooks.rotateSecret: OWNER/ADMIN, unnarrowed key: new signing secret, shown only in this answer. The old one keeps signing beside it (webhook-signature carries both) for keepPreviousHours, default 24, so receivers can switch without losing deliveries; 0 stops it at once (a leaked secret).';
grant execute on function app_tools.webhooks_rotate_secret(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/rotateSecret.sql
--! Included webhooks/tools/test.sql
-- The webhooks.test tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: records WEBHOOK_TESTED and queues its delivery to this webhook only
-- (app_hidden.webhook_test); returns the delivery as webhooks.listDeliveries shows it.
create or replace function app_tools.webhooks_test(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_test(app_hidden.parse_uuid(args->>'id', 'id'), 'id');
end
$$;
comment on function app_tools.webhooks_test(args jsonb) is 'webhooks.test: OWNER/ADMIN, unnarrowed key: send a signed WEBHOOK_TESTED delivery to this webhook now, whatever its filter (see webhooks.listDeliveries).';
grant execute on function app_tools.webhooks_test(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/test.sql
--! Included webhooks/tools/update.sql
-- The webhooks.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN, key without narrowing: changes the fields given through the in-app procedure
-- (app_hidden.webhook_update: checks, WEBHOOK_UPDATED naming the changed fields). Never a secret.
create or replace function app_tools.webhooks_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.webhook_update(app_hidden.parse_uuid(args->>'id', 'id'), args->>'url',
    case when args ? 'events' then array(select jsonb_array_elements_text(args->'events')) end,
    (args->>'active')::boolean, args->>'description', 'id');
end
$$;
comment on function app_tools.webhooks_update(args jsonb) is 'webhooks.update: OWNER/ADMIN, unnarrowed key: change url, events, active (false pauses deliveries) or description of a webhook.';
grant execute on function app_tools.webhooks_update(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/update.sql
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
comment on function app_hidden.members_add(p_email text, p_role text) is 'OWNER/ADMIN: app_private.add_member (the `svc admin add-member` function) for a new member; 409 already_member otherwise.';
grant execute on function app_hidden.members_add(p_email text, p_role text) to svc_visitor;

create or replace function app_hidden.members_remove(p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, null);
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
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, p_role);
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
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_private.require_admin(p_caller);
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if (p_old_role = 'OWNER' or p_new_role = 'OWNER') and p_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
end
$$;
comment on function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text) is 'OWNER/ADMIN may manage members with an unnarrowed key (403 narrowing); only an OWNER may touch the OWNER role (403 owner_required).';

create or replace function app_private.ensure_user(p_email text)
 returns app_public.users
 language plpgsql
as $$
declare v_user app_public.users;
begin
  if p_email !~ '^[^@\s]+@[^@\s]+$' then
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
comment on function app_private.lock_owners(p_workspace_id uuid) is 'Locks the workspace''s OWNER memberships for the transaction: changes that could leave it without an OWNER (remove_member, set_member_role) run one after the other.';

create or replace function app_private.remove_member(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships;
begin
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
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
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger) and revokes their keys in the workspace; the last OWNER stays (409 last_owner).';

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
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner';
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
comment on function app_public.members_add(email text, role app_public.membership_role) is 'OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';
grant execute on function app_public.members_add(email text, role app_public.membership_role) to svc_visitor;

create or replace function app_public.members_remove(user_id uuid)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(user_id uuid) is 'OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';
grant execute on function app_public.members_remove(user_id uuid) to svc_visitor;

create or replace function app_public.members_set_role(user_id uuid, role app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(user_id uuid, role app_public.membership_role) is 'OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';
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
--! Included issues/triggers.sql
-- Triggers of the issues tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if exists (select 1 from app_public.issues i where i.id = v_row.issue_id and i.created_at = now()) then
    return null;  -- labels set while the issue is created belong to its ISSUE_CREATED
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue (not in the transaction that creates it).';

create or replace function app_private.tg_issue_labels__label_ids()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_issue_ids uuid[] := array(select distinct c.issue_id from changed c);
begin
  -- Lock the issues first, read their labels after (a new statement, so a new snapshot): a transaction
  -- changing the same issue's labels at the same time has committed by then, and neither loses the other's.
  perform from app_public.issues i where i.id = any(v_issue_ids) order by i.id for no key update;
  update app_public.issues i
  set label_ids = coalesce((select array_agg(il.label_id order by il.created_at, il.label_id)
                            from app_public.issue_labels il where il.issue_id = i.id), '{}')
  where i.id = any(v_issue_ids);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__label_ids() is 'AFTER INSERT/DELETE statement on issue_labels (transition table `changed`): copies each changed issue''s label ids, oldest first, into issues.label_ids, which the issue shapes read.';

create or replace function app_private.issue_number_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
as $$ select 'app_private.issue_numbers_' || pg_catalog.replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.issue_number_sequence(p_workspace_id uuid) is 'The qualified name of a workspace''s issue number sequence (created with the workspace). No SET clause, so it is inlined.';

create or replace function app_private.tg_issues__assign_number()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sequence, not a counter row: a row would stay locked until commit (its WAL flush included), so the
  -- creates of one workspace would queue one behind the other. The price: a create that fails after this
  -- point leaves a gap in the numbers (docs/decisions.md).
  new.number := nextval(app_private.issue_number_sequence(new.workspace_id)::regclass);
  new.key := (select w.key from app_public.workspaces w where w.id = new.workspace_id) || '-' || new.number;
  return new;
end
$$;
comment on function app_private.tg_issues__assign_number() is 'BEFORE INSERT on issues: the next number of the workspace''s sequence and the key <WS>-<n>.';

create or replace function app_private.tg_issues__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
  v_before jsonb := '{}';
  v_event uuid;
begin
  if tg_op = 'INSERT' then
    v_event := app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    -- A plugin's key acts for no one: the issue is the first member's (_210_plugin_creator, spec 4.2), and so is
    -- the event's actor, as the issue row says.
    if app_hidden.current_user_id() is null and app_hidden.current_agent_id() is null and app_hidden.current_key_id() is not null then
      update app_public.activity_events set actor_user_id = new.created_by_user_id where id = v_event;
    end if;
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
    return null;
  end if;
  if new.deleted_at is null and old.deleted_at is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_RESTORED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key, 'deletedAt', old.deleted_at));
    return null;
  end if;
  if new.status_id is distinct from old.status_id then
    perform app_private.record_event(new.workspace_id, 'ISSUE_STATUS_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.status_id, 'to', new.status_id));
  end if;
  if new.priority is distinct from old.priority then
    perform app_private.record_event(new.workspace_id, 'ISSUE_PRIORITY_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.priority, 'to', new.priority));
  end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_ASSIGNED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'agentId', new.assigned_agent_id,
                         'from', old.assigned_agent_id, 'to', new.assigned_agent_id));
  end if;
  if new.queued and not old.queued then
    perform app_private.record_event(new.workspace_id, 'ISSUE_QUEUED', 'issue', new.id,
      jsonb_build_object('issueId', new.id));
  end if;
  if new.title is distinct from old.title then v_changed := array_append(v_changed, 'title'); end if;
  if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
  if new.project_id is distinct from old.project_id then v_changed := array_append(v_changed, 'projectId'); end if;
  if new.parent_id is distinct from old.parent_id then
    v_changed := array_append(v_changed, 'parentId');
    -- A sub-issue given a parent (or cleared) after its parent's deletion is not reattached by a restore.
    delete from app_private.issue_detachments d where d.child_id = new.id;
  end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := array_append(v_changed, 'cycleId'); end if;
  if new.due_date is distinct from old.due_date then v_changed := array_append(v_changed, 'dueDate'); end if;
  if new.estimate is distinct from old.estimate then v_changed := array_append(v_changed, 'estimate'); end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := array_append(v_changed, 'slaMinutes'); end if;
  if new.expected_output is distinct from old.expected_output then v_changed := array_append(v_changed, 'expectedOutput'); end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := array_append(v_changed, 'verificationChecklist'); end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := array_append(v_changed, 'artifactRequired'); end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById');
  elsif new.claim_expires_at is distinct from old.claim_expires_at then v_changed := array_append(v_changed, 'claimExpiresAt'); -- extended
  end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  -- Where the issue was before a move of project, labels or cycle (not while it is created): a key narrowed to that
  -- scope sees this one event of the issue leaving its view (event_subject_visible), so a live board drops the card;
  -- an MCP subscription to the cycle or project it left hears of it.
  if (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids
      or new.cycle_id is distinct from old.cycle_id)
     and new.created_at <> now() then
    if new.label_ids is distinct from old.label_ids then v_changed := array_append(v_changed, 'labelIds'); end if;
    v_before := jsonb_build_object('before', jsonb_build_object('projectId', old.project_id, 'labelIds', to_jsonb(old.label_ids),
                                                              'cycleId', old.cycle_id));
  end if;
  -- Whom the issue was taken from (issues.unassign, an archived agent's issues): the agent's timeline shows it.
  if new.assigned_agent_id is null and old.assigned_agent_id is not null then
    v_before := coalesce(v_before, '{}') || jsonb_build_object('unassignedAgentId', old.assigned_agent_id);
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed, v_before);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields, with before {projectId, labelIds, cycleId} when the project, labels or cycle moved and unassignedAgentId when the issue was taken from its agent. A change that changes nothing writes nothing.';

create or replace function app_private.tg_issues__detach_children()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_children uuid[];
begin
  -- Every live child, also those the deleting key cannot see (narrowing): a deleted issue is 404 everywhere,
  -- so nothing may keep pointing at it. Each child writes ISSUE_UPDATED (changes parentId) through _800_events,
  -- whose own bookkeeping runs at the end of this statement (it forgets older detachments of the child).
  with detached as (
    update app_public.issues c set parent_id = null
    where c.workspace_id = new.workspace_id and c.parent_id = new.id and c.deleted_at is null
    returning c.id)
  select array_agg(id) into v_children from detached;
  -- Remembered privately (never in an event: a key may see the child but not the parent), for issues.restore.
  insert into app_private.issue_detachments (workspace_id, parent_id, child_id)
  select new.workspace_id, new.id, child from unnest(v_children) child
  on conflict do nothing;
  return null;
end
$$;
comment on function app_private.tg_issues__detach_children() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: its live sub-issues (all of them, whatever the key''s narrowing) become top-level (parentId null), each with the ISSUE_UPDATED (changes parentId) an update of parentId writes, and app_private.issue_detachments remembers them for issues.restore.';

create or replace function app_private.tg_issues__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A deleted issue is 404 everywhere and its time leaves the lists and sums; a timer left running on it would
  -- still show it (time.running) and keep counting. It stops now, whoever's it is.
  perform app_private.stop_running_timers(new.workspace_id, new.id);
  return null;
end
$$;
comment on function app_private.tg_issues__stop_timers() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: every timer running on it stops (durationMin = elapsed minutes, as time.stop).';

create or replace function app_private.tg_issues__restore_links()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The restored issue may not point at a parent deleted meanwhile (a deleted issue is 404 everywhere).
  update app_public.issues i set parent_id = null
  where i.id = new.id and exists (select 1 from app_public.issues p where p.id = new.parent_id and p.deleted_at is not null);
  -- The sub-issues its deletion detached (app_private.issue_detachments) come back, all of them as the deletion
  -- took all of them, unless they moved since: deleted, or their parentId changed after the detachment (that
  -- forgot the detachment, tg_issues__events); and never into a cycle. Each writes ISSUE_UPDATED (changes
  -- parentId) through _800_events.
  update app_public.issues c set parent_id = new.id
  from app_private.issue_detachments d
  where d.parent_id = new.id and c.id = d.child_id and c.workspace_id = new.workspace_id
    and c.parent_id is null and c.deleted_at is null
    and not app_hidden.issue_has_ancestor(new.id, c.id);
  delete from app_private.issue_detachments d where d.parent_id = new.id;
  return null;
end
$$;
comment on function app_private.tg_issues__restore_links() is 'AFTER UPDATE OF deleted_at on issues, when a deleted issue is restored (issues.restore): a parent deleted meanwhile is cleared, and the sub-issues its deletion detached (app_private.issue_detachments) that are still live, top-level and untouched since are reattached, whatever the key''s narrowing (as the deletion detached them), never into a cycle; each with the ISSUE_UPDATED (changes parentId) an update of parentId writes.';

create or replace function app_private.tg_issues__plugin_creator()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.created_by_user_id is null and new.created_by_agent_id is null then
    new.created_by_user_id := (select m.user_id from app_public.memberships m
                               where m.workspace_id = new.workspace_id order by m.created_at, m.id limit 1);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__plugin_creator() is 'BEFORE INSERT on issues: an issue created by a key with neither user nor agent (a plugin key) is attributed to the first workspace member (spec 4.2).';

create or replace function app_private.tg_issues__status_timestamps()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_category text;
begin
  if tg_op = 'UPDATE' and new.status_id is not distinct from old.status_id then
    return new;
  end if;
  select s.category into v_category from app_public.statuses s where s.id = new.status_id;
  if v_category in ('IN_PROGRESS', 'IN_REVIEW', 'DONE') and new.started_at is null then
    new.started_at := now();
  end if;
  if v_category in ('DONE', 'CANCELED') then
    new.completed_at := coalesce(new.completed_at, now());
  else
    new.completed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__status_timestamps() is 'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt is set on DONE/CANCELED and cleared when the issue is reopened.';

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

create or replace function app_private.tg_issues__run_mode_gate()
 returns trigger
 language plpgsql
as $$
begin
  -- Run-mode gating at the row, whatever wrote it: tools check the issue they name, but a workspace-wide write (a
  -- status deleted with its issues moved, labels merged or deleted, a parent deleted or restored) changed an issue
  -- an agent only researched, reviewed or discussed. The fields are those that write an event.
  if app_hidden.current_agent_id() is not null
     and (new.status_id, new.priority, new.title, new.description, new.project_id, new.parent_id, new.cycle_id, new.label_ids,
          new.assigned_agent_id, new.queued, new.claimed_by_id, new.deleted_at, new.due_date, new.estimate, new.sla_minutes,
          new.expected_output, new.verification_checklist, new.artifact_required)
     is distinct from
         (old.status_id, old.priority, old.title, old.description, old.project_id, old.parent_id, old.cycle_id, old.label_ids,
          old.assigned_agent_id, old.queued, old.claimed_by_id, old.deleted_at, old.due_date, old.estimate, old.sla_minutes,
          old.expected_output, old.verification_checklist, old.artifact_required) then
    perform app_hidden.assert_run_mode_allows_mutation(new.id);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__run_mode_gate() is 'BEFORE UPDATE on issues: 403 run_mode_gated when the calling agent has an open RESEARCH/REVIEW/DISCUSS run on the issue and the update changes a field that writes an event, whatever tool or trigger made it (statuses.delete moving issues, labels merged or deleted, a parent deleted or restored, cycles deleted or rolled over).';

create or replace function app_private.tg_issues__live_parent()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'UPDATE' and new.parent_id is not distinct from old.parent_id then
    return new;
  end if;
  -- The tools checked the parent live, but a delete committing meanwhile detached the children it saw, not this
  -- one. Held in share mode until commit: a delete of the parent waits for this write (then detaches the child
  -- too), or this write waits for the delete and finds the parent gone.
  perform from app_public.issues p where p.id = new.parent_id and p.deleted_at is null for share;
  if not found then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'parentId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__live_parent() is 'BEFORE INSERT or UPDATE OF parent_id on issues, with a parent: locks the parent (share) and 404 on parentId when it is deleted, so no live sub-issue points at a deleted issue whatever commits first.';

drop trigger if exists _060_live_parent on app_public.issues;
create trigger _060_live_parent before insert or update of parent_id on app_public.issues for each row
  when (new.parent_id is not null) execute function app_private.tg_issues__live_parent();

drop trigger if exists _050_run_mode_gate on app_public.issues;
create trigger _050_run_mode_gate before update on app_public.issues for each row execute function app_private.tg_issues__run_mode_gate();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _150_status_timestamps on app_public.issues;
create trigger _150_status_timestamps before insert or update of status_id on app_public.issues for each row execute function app_private.tg_issues__status_timestamps();

drop trigger if exists _200_assign_number on app_public.issues;
create trigger _200_assign_number before insert on app_public.issues for each row execute function app_private.tg_issues__assign_number();

drop trigger if exists _210_plugin_creator on app_public.issues;
create trigger _210_plugin_creator before insert on app_public.issues for each row execute function app_private.tg_issues__plugin_creator();

drop trigger if exists _810_detach_children on app_public.issues;
create trigger _810_detach_children after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__detach_children();

drop trigger if exists _812_stop_timers on app_public.issues;
create trigger _812_stop_timers after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__stop_timers();

drop trigger if exists _811_restore_links on app_public.issues;
create trigger _811_restore_links after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is not null and new.deleted_at is null) execute function app_private.tg_issues__restore_links();

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
--! Included issues/search.sql
-- Full-text search over issues (issues.list query, GraphQL searchIssues).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.search_tsquery(p_query text, p_field text default 'query'::text)
 returns tsquery
 language plpgsql
 immutable
as $$
declare
  v_words text[];
begin
  -- Only the words (letters and digits) reach to_tsquery: no operator, quote or backslash of the input can.
  v_words := array(select lower(m[1]) from regexp_matches(coalesce(p_query, ''), '([[:alnum:]]+)', 'g') m limit 32);
  if cardinality(v_words) = 0 then
    raise exception 'query has no words to search for' using errcode = 'SV400', column = p_field;
  end if;
  -- Every word must match; the last one as a prefix (people search while they type).
  return to_tsquery('simple', array_to_string(v_words, ' & ') || ':*');
end
$$;
comment on function app_hidden.search_tsquery(p_query text, p_field text) is 'The tsquery of a search box: its words (letters and digits, at most 32) ANDed, the last one as a prefix; 400 on the field when it has none.';
grant execute on function app_hidden.search_tsquery(p_query text, p_field text) to svc_visitor;

create or replace function app_hidden.search_tag(p_workspace_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select pg_catalog.left(p_workspace_id::text, 8) $$;
comment on function app_hidden.search_tag(p_workspace_id uuid) is 'The tag a workspace''s search lexemes are keyed with (the first 8 characters of its id): search_document and search_keyed_query.';
grant execute on function app_hidden.search_tag(p_workspace_id uuid) to svc_visitor;

drop function if exists app_hidden.search_document_long(uuid, text, text);  -- folded into search_document

create or replace function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text)
 returns tsvector
 language plpgsql
 immutable parallel safe
as $$
declare
  v tsvector := pg_catalog.setweight(pg_catalog.to_tsvector('simple'::regconfig, coalesce(p_title, '')), 'A')
                || pg_catalog.setweight(pg_catalog.to_tsvector('simple'::regconfig, coalesce(p_description, '')), 'B');
begin
  -- The title (weight A) and description (weight B) under the simple configuration, each lexeme keyed with the
  -- workspace's tag (search_tag), positions and weights kept for ranking. Keyed, the GIN index's entries are per
  -- workspace: a search reads its own workspace's posting lists only, where a plain document made a prefix match
  -- gather the matching issues of every workspace first (a 2,000-issue workspace took 6 ms for "flaky timeo" in a
  -- database of 200,000 issues, 0.1 ms keyed). Tags of two workspaces may collide: searches also filter on
  -- workspace_id, so a collision costs time, never a wrong row.
  -- plpgsql, not sql: the generated column calls it once per written row, and a `language sql` function there is
  -- planned again in every statement (an insert took 105 µs with it, 41 with this, 39 with the plain document).
  -- The issues.search column is generated from this function: changing what it returns needs the column computed again.
  if pg_catalog.octet_length(coalesce(p_title, '')) + pg_catalog.octet_length(coalesce(p_description, '')) > 2000 then
    -- Long text may hold a lexeme near the 2 kB limit, which the tag would push over it: left out.
    v := pg_catalog.ts_delete(v, array(select u.lexeme from pg_catalog.unnest(v) u where pg_catalog.octet_length(u.lexeme) > 2000));
  end if;
  -- The tag goes in through the text form ('lexeme':1A,4B ...; a lexeme never holds a space).
  return pg_catalog.replace(' ' || v::text, ' ''', ' ''' || app_hidden.search_tag(p_workspace_id))::tsvector;
end
$$;
comment on function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text) is 'The search document of an issue (the generated column issues.search): title (A) and description (B) lexemes with positions and weights, each keyed with the workspace''s tag so the GIN index is per workspace. Match it with search_keyed_query.';
grant execute on function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text) to svc_visitor;

create or replace function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery)
 returns tsquery
 language sql
 immutable parallel safe
 set search_path to 'pg_catalog'
as $$
  -- Every lexeme of the query keyed with the workspace's tag, as search_document keys the documents.
  select regexp_replace(p_query::text, '''((?:[^'']|'''')*)''', '''' || app_hidden.search_tag(p_workspace_id) || '\1''', 'g')::tsquery
$$;
comment on function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery) is 'A search tsquery with its lexemes keyed with the workspace''s tag, to match (and rank) search_document.';
grant execute on function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery) to svc_visitor;

create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer)
 returns table(id uuid, number integer, rank real)
 language plpgsql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
 set plan_cache_mode to 'force_custom_plan'
as $$
declare
  -- Only the newest v_ranked matches are ranked (ts_rank reads each match's document); older ones follow,
  -- newest first, with rank -1.
  v_ranked constant int := 200;
  v_ws uuid := app_hidden.current_workspace_id();
  v_keyed tsquery := app_hidden.search_keyed_query(v_ws, p_query);
  -- Security definer reads past RLS, so the key's narrowing is applied here: the newest matches ranked, and
  -- where the ranking stops, are those of issues the key sees (ranking hidden ones let it count them by word).
  v_unrestricted boolean := app_hidden.issues_unrestricted();
  v_limit int := coalesce(p_limit, 2147483647);
  v_boundary int;
  v_n int := 0;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through (workspace_id, number) when many issues match (it stops after
    -- v_ranked), through issues_search_gin (the workspace's keyed lexemes) when few do (custom plan per call:
    -- the planner sees the query).
    select coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.number), '{}'),
           coalesce(array_agg(pg_catalog.ts_rank(c.search, v_keyed)), '{}')
    into v_ids, v_numbers, v_ranks
    from (select i.id, i.number, i.search from app_public.issues i
          where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) v_keyed
            and (v_unrestricted or app_hidden.issue_passes_narrowing(i.id, i.project_id))
          order by i.number desc limit v_ranked) c;
    if pg_catalog.cardinality(v_ids) = v_ranked then
      v_boundary := v_numbers[v_ranked];
    end if;
    return query
      select c.id, c.number, c.rank from rows from (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_numbers), pg_catalog.unnest(v_ranks)) as c(id, number, rank)
      where p_after_rank is null or (c.rank, c.number) < (p_after_rank, p_after_number)
      order by c.rank desc, c.number desc
      limit v_limit;
    get diagnostics v_n = row_count;
    if v_boundary is null or v_n >= v_limit then
      return;
    end if;
    p_after_number := v_boundary;
  end if;
  return query
    select i.id, i.number, (-1)::real from app_public.issues i
    where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) v_keyed
      and (v_unrestricted or app_hidden.issue_passes_narrowing(i.id, i.project_id))
      and i.number < p_after_number
    order by i.number desc
    limit v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) is 'The caller''s workspace''s issues matching p_query that the key sees (its narrowing applied here: security definer): the newest 200 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues, the newest 1,000 12 ms, the newest 500 4.1 ms, the newest 200 2.1 ms: the search''s p99 under load follows its cost). After the (rank, number) of a cursor, at most p_limit (null = all). Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) to svc_visitor;

create or replace function app_public.search_issues(query text)
 returns setof app_public.issues
 language sql
 stable
as $$
  select i.* from app_hidden.issue_search_matches(app_hidden.search_tsquery(query)) m
  join app_public.issues i on i.id = m.id
  order by m.rank desc, m.number desc
$$;
comment on function app_public.search_issues(query text) is 'Issues whose title or description match the words of query (the last word as a prefix), best match first (title matches weigh more), then newest. Only issues the key may see.';
grant execute on function app_public.search_issues(query text) to svc_visitor;
--! EndIncluded issues/search.sql
--! Included relations/triggers.sql
-- Triggers of the relations tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_relations__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_relations := case when tg_op = 'DELETE' then old else new end;
  v_change text := case tg_op when 'INSERT' then 'added' else 'removed' end;
begin
  -- Which link, to which issue, and what became of it, as attachments say theirs. A narrowed key reads the event
  -- only when it sees both issues (event_subject_visible), as relations.listForIssue lists only those links.
  perform app_private.record_issue_updated(v_row.workspace_id, i, array['relations'],
    jsonb_build_object('relationId', v_row.id, 'relationKind', app_hidden.relation_kind_seen(v_row, i), 'relationChange', v_change,
                       'relatedIssueId', case when i = v_row.from_issue_id then v_row.to_issue_id else v_row.from_issue_id end))
  from unnest(array[v_row.from_issue_id, v_row.to_issue_id]) i;
  return null;
end
$$;
comment on function app_private.tg_issue_relations__events() is 'ISSUE_UPDATED (changes relations; relationId, relationKind as seen from that issue, relatedIssueId the other end, relationChange added/removed) on both issues when a relation is added or removed.';

drop trigger if exists _800_events on app_public.issue_relations;
create trigger _800_events after insert or delete on app_public.issue_relations for each row execute function app_private.tg_issue_relations__events();
--! EndIncluded relations/triggers.sql
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
  elsif p_subject_type = 'plugin' then
    -- A skill invoked about an issue (SKILL_INVOKED issueId) follows the issue; other plugin events are the workspace's.
    return p_payload->>'issueId' is null or app_hidden.issues_unrestricted()
        or exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
  elsif p_subject_type not in ('issue', 'comment', 'agent-run', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
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
    -- The event of an issue moving out of the key's view is shown too, by the scope it had (payload before).
    -- A link's event (payload relationId) needs the other end seen too (relatedIssueId; none in the events
    -- written before it was named, which are then not shown).
    when 'issue' then return (exists (select 1 from app_public.issues i where i.id = p_subject_id)
                              or (p_payload ? 'before' and app_hidden.scope_passes_narrowing(
                                    (p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds')))
                         and (not p_payload ? 'relationId'
                              or exists (select 1 from app_public.issues i where i.id = (p_payload->>'relatedIssueId')::uuid));
    -- A comment's events follow its issue (payload issueId), not the comment row: the comments policy hides a
    -- deleted comment, which would take its creation and its deletion out of the stream, the replay and a resume.
    when 'comment' then return exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_subject_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    -- A request on an issue follows the issue row (payload issueId), as comments do: the requests policy hides those
    -- of a deleted issue, which would take their events out of the stream, the replay and a resume for this key only.
    else return case when p_payload->>'issueId' is not null
                     then exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid)
                     else exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id) end;
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue, comment and agent-run events only of issues it can see (and the ISSUE_UPDATED of an issue leaving its view, by the payload''s before; a link''s ISSUE_UPDATED only when it sees the other end too, relatedIssueId), project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds), plugin events about an issue (skills.invoke issueId) only of issues it can see; other subjects always.';
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

-- Link events written before relatedIssueId: each has its pair on the other issue (same relationId and change).
update app_public.activity_events e
set payload = e.payload || jsonb_build_object('relatedIssueId', o.subject_id)
from app_public.activity_events o
where e.kind = 'ISSUE_UPDATED' and e.payload ? 'relationId' and not e.payload ? 'relatedIssueId'
  and o.workspace_id = e.workspace_id and o.kind = 'ISSUE_UPDATED' and o.subject_type = 'issue'
  and o.payload->>'relationId' = e.payload->>'relationId'
  and o.payload->>'relationChange' = e.payload->>'relationChange' and o.subject_id <> e.subject_id;
