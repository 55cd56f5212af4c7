--! Previous: sha1:78d3612dd90f0fa8d520929aab69456102163a85
--! Hash: sha1:83901726b84711c961be7904a8b51ea0354d51b6
--! Message: GraphQL: every column, argument and mutation result described

--! split: 1-current.sql
-- GraphQL: every column described

-- Function comments: @arg/@result lines describe the GraphQL arguments and mutation results (src/graphql/descriptions.ts).
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
--! EndIncluded agents/agents.sql
--! Included analytics/dashboards.sql
-- The in-app dashboards of spec 4.14 (GraphQL only, never MCP): agent operations (pipeline, timeline, uptime,
-- webhookHealth) and dispatch analytics (summary, timeseries). Each runs as the caller, so row-level security
-- bounds what it counts (a narrowed key counts only the issues and events it may see).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dashboard_window(p_since_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_since_hours < 1 or p_since_hours > 720 then
    perform app_hidden.raise_invalid('sinceHours', 'from 1 to 720 hours (30 days)');
  end if;
  return now() - make_interval(hours => coalesce(p_since_hours, 24));
end
$$;
comment on function app_hidden.dashboard_window(p_since_hours integer) is 'The start of a dashboard''s window, sinceHours ago (1 to 720, null = 24; 400 sinceHours otherwise).';
grant execute on function app_hidden.dashboard_window(p_since_hours integer) to svc_visitor;

create or replace function app_public.agents_pipeline(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  -- The window first, as a statement: inside the query it was reached only through a finished run, so a sinceHours
  -- out of range was answered when no agent had one.
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- The dispatch view's figures (agents.workload: the queued pool, each live agent's load and open runs, counted as
  -- the dispatcher counts them), with the runs each agent finished in the window.
  return (
  with w as (select v_since as since, app_tools.agents_workload('{}') as load)
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', w.load->'pool'->'queued',
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
        'agentId', a->'id', 'profileKey', a->'profileKey', 'name', a->'name', 'status', a->'status',
        'lastHeartbeatAt', a->'lastHeartbeatAt', 'maxConcurrent', a->'maxConcurrent', 'assignedOpen', a->'openAssigned',
        'runs', (a->'runs') || (
          select jsonb_build_object('completed', count(*) filter (where r.status = 'COMPLETED'),
                                    'abandoned', count(*) filter (where r.status = 'ABANDONED'))
          from app_public.agent_runs r
          where r.agent_id = (a->>'id')::uuid and r.status in ('COMPLETED', 'ABANDONED') and r.finished_at >= w.since))
        order by x.n)
      from jsonb_array_elements(w.load->'agents') with ordinality x(a, n)), '[]'))
  from w);
end
$$;
comment on function app_public.agents_pipeline(since_hours integer) is '@arg sinceHours How far back completed and abandoned runs count, in hours: 1 to 720 (default 24).
Agent operations dashboard: each live agent''s status, open assigned issues and runs (active, waiting, stalled now; completed and abandoned in the last sinceHours, default 24), and the queued issues nobody holds. In-app only (spec 4.14).';
grant execute on function app_public.agents_pipeline(since_hours integer) to svc_visitor;

create or replace function app_public.agent_timeline(agent_id uuid, since_hours integer default 24, max_items integer default 200)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  if max_items < 1 or max_items > 1000 then
    perform app_hidden.raise_invalid('maxItems', 'from 1 to 1000');
  end if;
  if not exists (select 1 from app_public.agents a where a.id = agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- What happened to and by the agent, newest first: assignments, its runs' moves, presence, watchdog alerts, kicks,
  -- and what it wrote (events whose actor is the agent).
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'items', coalesce((
    select jsonb_agg(jsonb_build_object('id', e.id, 'kind', e.kind, 'at', e.created_at, 'subjectType', e.subject_type,
                                        'subjectId', e.subject_id, 'payload', e.payload,
                                        -- The issue it is about, by key, when the caller sees it: a line a person can act on.
                                        'issueId', i.id, 'issueKey', i.key, 'issueTitle', i.title) order by e.seq desc)
    from (select e.* from app_public.activity_events e
          where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= v_since
            and (e.actor_agent_id = agent_id
                 or (e.subject_type = 'agent' and e.subject_id = agent_id)
                 or (e.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_KICKED', 'AGENT_NOACK', 'ISSUE_STALLED')
                     and (e.payload->>'agentId' = agent_id::text or e.payload->>'to' = agent_id::text or e.payload->>'from' = agent_id::text))
                 or (e.kind = 'ISSUE_UPDATED' and e.payload->>'unassignedAgentId' = agent_id::text))
          order by e.seq desc limit coalesce(max_items, 200)) e
    left join app_public.issues i
      on i.id = coalesce(case when e.subject_type = 'issue' then e.subject_id end, (e.payload->>'issueId')::uuid)), '[]'));
end
$$;
comment on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) is '@arg agentId The agent.
@arg sinceHours How far back, in hours: 1 to 720 (default 24).
@arg maxItems At most this many events, 1 to 1000 (default 200).
Agent operations dashboard: the events of one agent in the last sinceHours (default 24), newest first, at most maxItems (default 200, max 1000), each with the key and title of the issue it is about when the key sees it: its assignments (to and from it, unassignment included), its runs'' moves, presence changes, watchdog alerts and kicks, and what it did. In-app only (spec 4.14).';
grant execute on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) to svc_visitor;

create or replace function app_public.agent_uptime(agent_id uuid, since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_agent app_public.agents;
  v_first text;
  v_spans jsonb;
begin
  select * into v_agent from app_public.agents a where a.id = agent_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- Time before the agent existed is no time OFFLINE.
  v_since := greatest(v_since, v_agent.created_at);
  -- The status at the window's start: the last change before it, else the first change's `from` inside it, else the
  -- status now (nothing changed in the window).
  select e.payload->>'to' into v_first from app_public.activity_events e
  where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at < v_since
  order by e.seq desc limit 1;
  if v_first is null then
    select e.payload->>'from' into v_first from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
    order by e.seq limit 1;
  end if;
  -- Seconds in each status: each change closes the span of the status before it; the last runs until now.
  with changes as (
    select v_since as at, coalesce(v_first, v_agent.status) as status
    union all
    select e.created_at, e.payload->>'to' from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
  ), spans as (
    select status, extract(epoch from coalesce(lead(at) over (order by at), now()) - at) as seconds from changes
  )
  select jsonb_object_agg(status, round(total)) into v_spans
  from (select status, sum(seconds) as total from spans group by status) t;
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'windowStart', v_since, 'status', v_agent.status,
    'secondsByStatus', coalesce(v_spans, '{}'),
    'changes', (select count(*) from app_public.activity_events e where e.workspace_id = v_agent.workspace_id
                and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since),
    -- Up = ONLINE or BUSY.
    'uptimeRatio', round(((coalesce((v_spans->>'ONLINE')::numeric, 0) + coalesce((v_spans->>'BUSY')::numeric, 0))
                          / greatest(1, extract(epoch from now() - v_since)))::numeric, 4));
end
$$;
comment on function app_public.agent_uptime(agent_id uuid, since_hours integer) is '@arg agentId The agent.
@arg sinceHours The window, in hours back from now: 1 to 720 (default 24).
Agent operations dashboard: seconds one agent spent ONLINE, BUSY and OFFLINE in the last sinceHours (default 24), from its AGENT_STATUS_CHANGED events, the number of changes, and uptimeRatio (ONLINE or BUSY over the window, which starts at the agent''s creation when that is later: windowStart). In-app only (spec 4.14).';
grant execute on function app_public.agent_uptime(agent_id uuid, since_hours integer) to svc_visitor;

create or replace function app_public.webhook_health(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- Webhooks are an admin's, and a narrowed key reads none (their attempts may echo any issue's event): the check
  -- of every webhook procedure and tool (the ADMIN scope included, which this one missed).
  perform app_hidden.require_webhook_admin();
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'webhooks', coalesce((
    select jsonb_agg(jsonb_build_object(
      'webhookId', w.id, 'url', w.url, 'active', w.active, 'deactivatedReason', w.deactivated_reason,
      'pending', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'delivered', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.delivered_at >= v_since),
      'attempts', a.attempts, 'failedAttempts', a.failed,
      'successRate', case when a.attempts > 0 then round((a.attempts - a.failed)::numeric / a.attempts, 4) end,
      'p95DurationMs', a.p95,
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.webhook_id = w.id),
      'lastError', (select coalesce(x.error, 'HTTP ' || x.status_code) from app_public.webhook_delivery_attempts x
                    join app_public.webhook_deliveries d on d.id = x.delivery_id
                    where d.webhook_id = w.id and (x.status_code is null or x.status_code not between 200 and 299)
                    order by x.started_at desc limit 1))
      order by w.created_at, w.id)
    from app_public.webhooks w
    left join lateral (
      select count(*) as attempts,
             count(*) filter (where x.status_code is null or x.status_code not between 200 and 299) as failed,
             percentile_disc(0.95) within group (order by x.duration_ms) as p95
      from app_public.webhook_delivery_attempts x join app_public.webhook_deliveries d on d.id = x.delivery_id
      where d.webhook_id = w.id and x.started_at >= v_since) a on true), '[]'));
end
$$;
comment on function app_public.webhook_health(since_hours integer) is '@arg sinceHours How far back deliveries, attempts and failures count, in hours: 1 to 720 (default 24).
Agent operations dashboard (OWNER/ADMIN, no narrowing): each webhook''s deliveries pending and dead-lettered now, delivered, attempted and failed in the last sinceHours (default 24), success rate, p95 attempt duration, the last delivery and the last failure. In-app only (spec 4.14).';
grant execute on function app_public.webhook_health(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_summary(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_since timestamptz;
begin
  -- First, as a statement of its own: inside the query (a column of the window's CTE) it ran only when some row
  -- read that CTE's column, so a workspace with no assignment answered a key without the scope.
  perform app_hidden.require_scope('READ_ANALYTICS');
  -- The window too (a sinceHours out of range is a 400 whatever the query reads).
  v_since := app_hidden.dashboard_window(since_hours);
  return (
  with w as (select v_since as since),
  assigned as (
    select e.* from app_public.activity_events e, w
    where e.workspace_id = app_hidden.current_workspace_id() and e.kind = 'AGENT_ASSIGNED' and e.created_at >= w.since
  ),
  -- Queue to assignment: each automatic assignment against the latest ISSUE_QUEUED of its issue before it.
  waits as (
    select extract(epoch from a.created_at - q.created_at) as seconds
    from assigned a
    cross join lateral (select e.created_at from app_public.activity_events e
                        where e.workspace_id = a.workspace_id and e.subject_type = 'issue' and e.subject_id = a.subject_id
                          and e.kind = 'ISSUE_QUEUED' and e.seq < a.seq
                        order by e.seq desc limit 1) q
    where (a.payload->>'auto')::boolean
  )
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.deleted_at is null and i.queued and i.assigned_agent_id is null
                           and s.category not in ('DONE', 'CANCELED')),
    'assignments', (select count(*) from assigned),
    'automatic', (select count(*) from assigned where (payload->>'auto')::boolean),
    'manual', (select count(*) from assigned where not coalesce((payload->>'auto')::boolean, false)),
    'byReason', coalesce((select jsonb_object_agg(reason, n) from (
                  -- A rule's fallback names its rule id (spec 6.4): counted as one reason, whichever rule.
                  select coalesce(regexp_replace(payload->>'reason', '^rule:[^:]+:', 'rule:'), 'none') as reason, count(*) as n
                  from assigned group by 1) r), '{}'),
    'byMode', coalesce((select jsonb_object_agg(mode, n) from (
                  select payload->'dispatch'->>'mode' as mode, count(*) as n from assigned
                  where payload->'dispatch'->>'mode' is not null group by 1) m), '{}'),
    'byAgent', coalesce((select jsonb_agg(jsonb_build_object('agentId', x.agent_id, 'profileKey', ag.profile_key, 'assignments', x.n)
                                          order by x.n desc, ag.profile_key)
                  from (select payload->>'agentId' as agent_id, count(*) as n from assigned group by 1) x
                  left join app_public.agents ag on ag.id::text = x.agent_id), '[]'),
    'queueToAssignSeconds', (select jsonb_build_object(
                  'count', count(*),
                  'p50', round(percentile_cont(0.5) within group (order by seconds)::numeric, 1),
                  'p90', round(percentile_cont(0.9) within group (order by seconds)::numeric, 1),
                  'max', round(max(seconds)::numeric, 1)) from waits),
    'watchdogs', (select jsonb_build_object(
                  'agentNoAck', count(*) filter (where e.kind = 'AGENT_NOACK'),
                  'issueStalled', count(*) filter (where e.kind = 'ISSUE_STALLED'),
                  'slaBreach', count(*) filter (where e.kind = 'ISSUE_SLA_BREACH'))
                  from app_public.activity_events e, w
                  where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= w.since
                    and e.kind in ('AGENT_NOACK', 'ISSUE_STALLED', 'ISSUE_SLA_BREACH'))));
end
$$;
comment on function app_public.dispatch_summary(since_hours integer) is '@arg sinceHours How far back, in hours: 1 to 720 (default 24).
Dispatch analytics (READ_ANALYTICS): assignments in the last sinceHours (default 24), automatic and manual, by reason, by dispatch mode and by agent; the queue-to-assignment wait of automatic ones (p50, p90, max seconds); watchdog alerts (AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH); queued issues nobody holds now. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_summary(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_timeseries(since_hours integer default 24, bucket_minutes integer default 60)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_window_start timestamptz := v_since;
  v_step interval;
begin
  perform app_hidden.require_scope('READ_ANALYTICS');
  if bucket_minutes < 5 or bucket_minutes > 1440 or coalesce(since_hours, 24) * 60 / coalesce(bucket_minutes, 60) > 500 then
    perform app_hidden.raise_invalid('bucketMinutes', 'from 5 to 1440 minutes, and at most 500 buckets in the window');
  end if;
  v_step := make_interval(mins => coalesce(bucket_minutes, 60));
  -- Buckets on the clock (an hour's bucket starts on the hour), the first one holding the window's start.
  v_since := date_bin(v_step, v_since, timestamptz '2000-01-01 00:00:00+00');
  -- Buckets aligned to the window's start, oldest first, empty ones included (a chart needs every point).
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'bucketMinutes', coalesce(bucket_minutes, 60), 'buckets', (
    select jsonb_agg(jsonb_build_object('start', v_since + v_step * b.n, 'queued', coalesce(c.queued, 0),
                                        'assigned', coalesce(c.assigned, 0), 'automatic', coalesce(c.automatic, 0),
                                        'noAck', coalesce(c.no_ack, 0), 'stalled', coalesce(c.stalled, 0)) order by b.n)
    from generate_series(0, ceil(extract(epoch from now() - v_since) / extract(epoch from v_step))::int - 1) b(n)
    -- Each event counted into its bucket by arithmetic, in one pass over the window (a range join per bucket took
    -- 4 s for 500 buckets over 100,000 events).
    left join (
      select floor(extract(epoch from e.created_at - v_since) / extract(epoch from v_step))::int as n,
             count(*) filter (where e.kind = 'ISSUE_QUEUED') as queued,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED') as assigned,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED' and (e.payload->>'auto')::boolean) as automatic,
             count(*) filter (where e.kind = 'AGENT_NOACK') as no_ack,
             count(*) filter (where e.kind = 'ISSUE_STALLED') as stalled
      from app_public.activity_events e
      where e.workspace_id = app_hidden.current_workspace_id()
        -- The window itself, not its first bucket's start: with sinceHours 1 an event 105 minutes old was counted.
        and e.kind in ('ISSUE_QUEUED', 'AGENT_ASSIGNED', 'AGENT_NOACK', 'ISSUE_STALLED') and e.created_at >= v_window_start
      group by 1) c on c.n = b.n));
end
$$;
comment on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) is '@arg sinceHours How far back, in hours: 1 to 720 (default 24).
@arg bucketMinutes Minutes per bucket, 5 to 1440 (default 60), at most 500 buckets in the window.
Dispatch analytics (READ_ANALYTICS): per bucket of bucketMinutes (default 60, 5 to 1440, at most 500 buckets; buckets start on the clock, the first holding the window''s start; only events inside the window count) over the last sinceHours (default 24), oldest first, empty buckets included: issues queued, assignments (and the automatic ones), AGENT_NOACK and ISSUE_STALLED alerts. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) to svc_visitor;
--! EndIncluded analytics/dashboards.sql
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
  v_admin boolean := coalesce(v_caller.role in ('OWNER', 'ADMIN'), false)
                     and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes)) and app_hidden.key_unnarrowed();
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
--! Included auth/plugins.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.require_plugin_manager(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A person manages plugins: an agent's key (made for an OWNER, holding ADMIN) created a plugin and issued itself its
  -- key, which has no agent, and acted as a person with it (a worker approved its own plan's review gate). Agent keys
  -- mint no keys by accessCreate for the same reason.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agent keys do not manage plugins or issue their keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_private.require_admin(p_caller);
end
$$;
comment on function app_private.require_plugin_manager(p_caller app_private.caller) is 'Plugin management (pluginsCreate, pluginsSetSkills, pluginIssueApiKey): a person''s key (403 user_key_required for an agent''s) of a workspace OWNER/ADMIN holding ADMIN (require_admin).';

create or replace function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
  v_allowed text[];
  v_extra text[];
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  perform app_private.require_plugin_manager(v_caller);
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
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  -- Null-safe: a null in a manifest (stored before create_plugin refused them) made `s <> all(...)` null for every
  -- scope, so nothing was "extra" and any scope, ADMIN or FULL, passed.
  v_allowed := array(select x from jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')) x where x is not null);
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where not s = any(v_allowed));
    if cardinality(v_extra) > 0 then
      perform app_hidden.raise_invalid('scopes', format(
        'scopes must be a subset of the plugin''s manifest.scopes (%s); not allowed: %s',
        array_to_string(v_allowed, ', '), array_to_string(v_extra, ', ')));
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, p_scopes);
  -- Same rules as access.create: narrowing can only shrink, and a key never outlives its creator's.
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
    raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
end
$$;
comment on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s.';
grant execute on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.plugins()
 returns setof app_public.plugin_info
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.plugin_info(p) from app_private.plugins p
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c)
  order by p.created_at, p.id
$$;
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes and manifest.skills).';
grant execute on function app_hidden.plugins() to svc_visitor;

create or replace function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_plugin_manager(v_caller);
  perform app_hidden.require_unnarrowed('A plugin serves the whole workspace');
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes, p_skills));
end
$$;
comment on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes and manifest.skills.';
grant execute on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) to svc_visitor;

create or replace function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
begin
  perform app_private.require_plugin_manager(v_caller);
  perform app_hidden.require_unnarrowed('A plugin''s skills serve the whole workspace');
  update app_private.plugins set manifest = manifest || jsonb_build_object('skills', app_private.plugin_skills(p_skills))
  where id = p_plugin_id and workspace_id = v_caller.workspace_id
  returning * into v_plugin;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  return app_private.plugin_info(v_plugin);
end
$$;
comment on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) is 'OWNER/ADMIN: replaces a plugin''s manifest.skills (what skills.invoke may call).';
grant execute on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) to svc_visitor;

create or replace function app_private.plugin_skills(p_skills jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_skill jsonb;
  v_n int := 0;
  v_names text[] := '{}';
  v_out jsonb := '[]';
  v_name text;
  v_extra text;
begin
  if p_skills is null or p_skills = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_skills) <> 'array' then
    perform app_hidden.raise_invalid('skills', 'must be a list of {name, description?, inputSchema?}');
  end if;
  if jsonb_array_length(p_skills) > 50 then
    perform app_hidden.raise_invalid('skills', 'at most 50 skills');
  end if;
  for v_skill in select x from jsonb_array_elements(p_skills) x loop
    if jsonb_typeof(v_skill) <> 'object' then
      perform app_hidden.raise_invalid(format('skills.%s', v_n), 'must be an object {name, description?, inputSchema?}');
    end if;
    select k into v_extra from jsonb_object_keys(v_skill) k where k not in ('name', 'description', 'inputSchema') limit 1;
    if v_extra is not null then
      perform app_hidden.raise_invalid(format('skills.%s.%s', v_n, v_extra), 'unknown field (a skill has name, description and inputSchema)');
    end if;
    v_name := v_skill->>'name';
    if jsonb_typeof(v_skill->'name') is distinct from 'string' or v_name !~ '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter');
    end if;
    if v_name = any(v_names) then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), format('%s is named twice', v_name));
    end if;
    if v_skill ? 'description' and (jsonb_typeof(v_skill->'description') <> 'string' or length(v_skill->>'description') > 2000) then
      perform app_hidden.raise_invalid(format('skills.%s.description', v_n), 'must be text of at most 2000 characters');
    end if;
    if v_skill ? 'inputSchema' and (jsonb_typeof(v_skill->'inputSchema') <> 'object' or length((v_skill->'inputSchema')::text) > 16384) then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n), 'must be a JSON Schema object of at most 16 KB');
    end if;
    -- The service checks input against the schema in its own process: a regular expression there (pattern,
    -- patternProperties) could backtrack for minutes on a crafted input and stall every workspace's requests.
    if v_skill ? 'inputSchema' and jsonb_path_exists(v_skill->'inputSchema',
         'lax $.** ? (@.type() == "object") ? (@.pattern.type() == "string" || exists(@.patternProperties))') then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n),
        'must not use pattern or patternProperties (regular expressions are not evaluated here; check such input in the plugin)');
    end if;
    v_names := v_names || v_name;
    v_out := v_out || jsonb_build_array(jsonb_build_object('name', v_name, 'description', v_skill->>'description',
                                                           'inputSchema', v_skill->'inputSchema'));
    v_n := v_n + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_private.plugin_skills(p_skills jsonb) is 'A plugin manifest''s skills as stored ([{name, description, inputSchema}], null = none), or a 400 naming skills.<n>.<field>.';

create or replace function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb default null)
 returns app_private.plugins
 language plpgsql
as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  p_name := app_hidden.one_line(p_name, 'name', 200);
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, p_name,
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n))),
            'skills', app_private.plugin_skills(p_skills)), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb) is 'Records an approved plugin with manifest.scopes and manifest.skills.';

create or replace function app_private.plugin_info(p app_private.plugins)
 returns app_public.plugin_info
 language sql
 stable
as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at, coalesce(p.manifest->'skills', '[]'))::app_public.plugin_info
$$;
comment on function app_private.plugin_info(p app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval, manifest.skills.';

create or replace function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], expires_in_days integer default NULL::integer, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  return app_hidden.plugin_issue_api_key(plugin_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) is '@arg pluginId The approved plugin to issue the key under.
@arg scopes What the key may do: within the plugin''s manifest.scopes (else 400 naming the extra ones) and the calling key''s scopes.
@arg projectIds Narrows the key to issues and projects of these projects (with labelIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg labelIds Narrows the key to issues carrying one of these labels (with projectIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg initiativeIds Narrows the key to these initiatives, within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg expiresInDays Days until the key expires, 1 to 3650; omitted = no expiry. Never later than the calling key''s own expiry.
@arg name A label for the key in key lists, one line of up to 200 characters.
@result The new plugin key, with its rawKey: the secret, shown only here.
plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';
grant execute on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) to svc_visitor;

create or replace function app_public.plugins()
 returns setof app_public.plugin_info
 language sql
 stable
as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes and manifest.skills), oldest first.';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb default null)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[], skills) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) is '@arg name The plugin''s name, one line of 1 to 200 characters.
@arg scopes manifest.scopes: the most a key issued under the plugin may hold (at least one).
@arg skills manifest.skills, at most 50 [{name, description?, inputSchema?}]: name 1 to 64 letters, digits, . _ - starting with a letter; inputSchema a JSON Schema object of at most 16 KB. Omitted = none.
@result The plugin record, approved.
OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it and whose manifest.skills ([{name, description?, inputSchema?}]) are what skills.invoke may call.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) to svc_visitor;

create or replace function app_public.plugins_set_skills(plugin_id uuid, skills jsonb)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_set_skills(plugin_id, skills) $$;
comment on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) is '@arg pluginId The plugin to change.
@arg skills The new manifest.skills, replacing them all ([] removes them), in the form pluginsCreate takes.
@result The plugin record with its new skills.
OWNER/ADMIN: replaces a plugin''s manifest.skills ([{name, description?, inputSchema?}]; [] removes them all).';
grant execute on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skills_list(args jsonb)
 returns jsonb
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pluginId', p.id, 'plugin', p.name, 'name', x.s->>'name',
                                               'description', x.s->>'description', 'inputSchema', x.s->'inputSchema')
                            order by p.created_at, p.id, x.n), '[]')
  from app_private.plugins p
  cross join lateral jsonb_array_elements(coalesce(p.manifest->'skills', '[]')) with ordinality as x(s, n)
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c) and p.approved_at is not null
    and (args->>'pluginId' is null or p.id = app_hidden.parse_uuid(args->>'pluginId', 'pluginId'))
    and (args->>'skill' is null or x.s->>'name' = args->>'skill')
$$;
comment on function app_hidden.plugin_skills_list(args jsonb) is 'Skills of the approved plugins of the caller''s workspace ([{pluginId, plugin, name, description, inputSchema}]), optionally of one plugin (pluginId) and one skill (skill).';
grant execute on function app_hidden.plugin_skills_list(args jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skill(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_found jsonb := app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId', 'skill', args->>'skill'))->0;
begin
  if v_found is null then
    if not exists (select 1 from app_hidden.plugins() p where p.id = (args->>'pluginId')::uuid) then
      raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
    end if;
    raise exception 'Skill not found: the plugin''s manifest.skills does not name it' using errcode = 'SV404', column = 'skill';
  end if;
  return v_found;
end
$$;
comment on function app_hidden.plugin_skill(args jsonb) is 'The skill {pluginId, skill} of an approved plugin of the caller''s workspace (as plugin_skills_list shows it), or 404 on pluginId (no such plugin here) or on skill.';
grant execute on function app_hidden.plugin_skill(args jsonb) to svc_visitor;

create or replace function app_hidden.current_plugin_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select c.plugin_id from app_private.current_caller() c $$;
comment on function app_hidden.current_plugin_id() is 'The plugin the calling key was issued under (null for workspace keys).';
grant execute on function app_hidden.current_plugin_id() to svc_visitor;
--! EndIncluded auth/plugins.sql
--! Included chat/chat.sql
-- chat: shapes, the addressee check, posting messages and the in-app procedures (open a thread, post as a person).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.chat_thread_json(t app_public.chat_threads)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', t.id, 'agentId', t.agent_id,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = t.agent_id),
    'createdByUserId', t.created_by_user_id,
    'createdBy', app_hidden.user_ref_json(t.created_by_user_id),
    'title', t.title, 'issueId', t.issue_id,
    'lastMessageAt', (select max(m.created_at) from app_public.chat_messages m
                      where m.workspace_id = t.workspace_id and m.thread_id = t.id),
    'createdAt', t.created_at, 'updatedAt', t.updated_at)
$$;
comment on function app_hidden.chat_thread_json(t app_public.chat_threads) is 'ChatThread: the addressee agent {id, profileKey, name}, who opened it, title, issueId, lastMessageAt.';
grant execute on function app_hidden.chat_thread_json(t app_public.chat_threads) to svc_visitor;

create or replace function app_hidden.chat_message_json(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', m.id, 'threadId', m.thread_id, 'role', m.role, 'body', m.body,
    -- The issue of a person's context only if the caller may see it (a narrowed agent key may not); its route then
    -- goes too, as it names the issue (/issue/ENG-2).
    'contextSnapshot', case when m.context_snapshot->>'issueId' is not null
                             and app_hidden.visible_issue_id((m.context_snapshot->>'issueId')::uuid) is null
                            then m.context_snapshot || '{"issueId": null, "route": null}'
                            else m.context_snapshot end,
    'sourceRunId', m.source_run_id, 'createdAt', m.created_at, 'finalizedDraftId', m.finalized_draft_id,
    'authorUserId', m.author_user_id, 'authorAgentId', m.author_agent_id)
$$;
comment on function app_hidden.chat_message_json(m app_public.chat_messages) is 'ChatMessage (spec 2.12): id, threadId, role, body, contextSnapshot (its issueId and route null when the caller cannot see that issue), sourceRunId, createdAt, finalizedDraftId (+ author ids).';
grant execute on function app_hidden.chat_message_json(m app_public.chat_messages) to svc_visitor;

-- GraphQL reads the context through the shape's rule, never the raw column (a narrowed key read a hidden issue's id there).
comment on column app_public.chat_messages.context_snapshot is E'@behavior -*\nUSER messages: where the person was ({route, issueId}); read by agent.context.bundle (linkedIssues). GraphQL: ChatMessage.contextSnapshot (app_public.chat_messages_context_snapshot).';
comment on column app_public.chat_messages.seq is 'Insertion order (messages of one transaction share created_at), from the workspace''s own sequence (app_private.tg_chat_messages__seq).';

create or replace function app_public.chat_messages_context_snapshot(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.chat_message_json(m)->'contextSnapshot' $$;
comment on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) is 'USER messages: where the person was ({route, issueId}); issueId and route are null when the key cannot see that issue.';
grant execute on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) to svc_visitor;

create or replace function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text)
 returns bigint
 language plpgsql
 stable
as $$
declare v_seq bigint;
begin
  select m.seq into v_seq from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, p_field) and m.workspace_id = p_thread.workspace_id
    and m.thread_id = p_thread.id;
  if v_seq is null then
    raise exception '% must be the id of a message of this thread', p_field using errcode = 'SV400', column = p_field;
  end if;
  return v_seq;
end
$$;
comment on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) is 'The position (seq) of a message of the thread, for paging from it (chat.getThread before, chat.listMessages cursor); 400 naming the field otherwise.';
grant execute on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) to svc_visitor;

create or replace function app_hidden.chat_thread_issue_visible(p_issue_id uuid)
 returns boolean
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The issues policy's own rule (unrestricted key, or the issue passes the narrowing), asked as the owner so
  -- that definer functions and policies get the same answer; and the issue is not deleted (a deleted issue's
  -- threads are 404, as its requests). plpgsql: its query is planned once per session.
  return p_issue_id is null or exists (
    select 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
      and (app_hidden.issues_unrestricted() or app_hidden.issue_passes_narrowing(i.id, i.project_id)));
end
$$;
comment on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) is 'Whether the calling key may see a chat thread tied to this issue (null: a thread without issue, always): threads follow their issue''s narrowing, and a deleted issue''s threads are not there (policy select_as_participant, chat_thread_for_agent).';
grant execute on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.chat_thread_for_agent(p_thread_id text)
 returns app_public.chat_threads
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_thread app_public.chat_threads;
begin
  select * into v_thread from app_public.chat_threads t
  where t.id = app_hidden.parse_uuid(p_thread_id, 'threadId') and t.workspace_id = app_hidden.current_workspace_id();
  -- A thread about an issue outside the key's narrowing is not there for it (as the threads policy says; found
  -- here as the owner, so the same rule is asked explicitly).
  if v_thread.id is null or not app_hidden.chat_thread_issue_visible(v_thread.issue_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if v_thread.agent_id <> v_agent.id then
    raise exception 'This thread is addressed to another agent' using errcode = 'SV403', detail = 'not_addressee';
  end if;
  return v_thread;
end
$$;
comment on function app_hidden.chat_thread_for_agent(p_thread_id text) is 'Addressee gating of the chat tools: the thread (of the caller''s workspace, else 404) must be addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee).';
grant execute on function app_hidden.chat_thread_for_agent(p_thread_id text) to svc_visitor;

create or replace function app_hidden.chat_message_for_agent(p_message_id text)
 returns app_public.chat_messages
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_message app_public.chat_messages;
begin
  perform app_hidden.require_own_agent();  -- a key without an agent hears that first, as in the other chat tools
  -- Found as the owner (RLS would hide another agent's thread as a 404), then gated as chat.getThread gates its
  -- thread: 404 outside the workspace, 403 not_addressee inside it.
  select * into v_message from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, 'id') and m.workspace_id = app_hidden.current_workspace_id();
  if v_message.id is null then
    raise exception 'Message not found' using errcode = 'SV404', column = 'id';
  end if;
  perform app_hidden.chat_thread_for_agent(v_message.thread_id::text);
  return v_message;
end
$$;
comment on function app_hidden.chat_message_for_agent(p_message_id text) is 'Addressee gating of chat.getMessage: the message (of the caller''s workspace, else 404 on id) must be in a thread addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee, as chat_thread_for_agent).';
grant execute on function app_hidden.chat_message_for_agent(p_message_id text) to svc_visitor;

create or replace function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_message app_public.chat_messages;
begin
  if p_source_run_id is not null then
    v_run := app_hidden.find_run(p_source_run_id, 'sourceRunId');
    if v_run.agent_id <> t.agent_id then
      perform app_hidden.raise_invalid('sourceRunId', 'sourceRunId must be a run of this agent');
    end if;
    update app_public.agent_runs set last_event_at = now()
    where id = v_run.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id)
  values (t.workspace_id, t.id, 'AGENT', p_body, v_run.id, app_hidden.current_user_id(), t.agent_id, p_draft_id)
  returning * into v_message;
  perform app_hidden.record_event('CHAT_MESSAGE_POSTED', 'chat-thread', t.id, jsonb_strip_nulls(jsonb_build_object(
    'threadId', t.id, 'messageId', v_message.id, 'agentId', t.agent_id, 'openedByUserId', t.created_by_user_id,
    'role', 'AGENT', 'body', v_message.body, 'sourceRunId', v_message.source_run_id, 'draftId', p_draft_id)));
  return v_message;
end
$$;
comment on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) is 'Persists an AGENT reply in a thread (sourceRunId must be the agent''s run) and writes CHAT_MESSAGE_POSTED (chat-thread: threadId, messageId, agentId, role, body, sourceRunId?, draftId?). Agent replies are not dispatched.';
grant execute on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) to svc_visitor;

create or replace function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb)
 returns void
 language sql
as $$
  select null::void from app_hidden.publish_ephemeral_event('CHAT_MESSAGE_POSTED', 'chat-thread-stream', t.id,
    jsonb_build_object('threadId', t.id, 'agentId', t.agent_id) || p_payload)
$$;
comment on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) is 'Publishes a draft phase (started, delta, finalized) as CHAT_MESSAGE_POSTED on chat-thread-stream: realtime channel only, never stored.';
grant execute on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.check_chat_text(p_text text, p_field text)
 returns void
 language plpgsql
 immutable
as $$
begin
  -- Blank as the tools' zod check (\S) sees it: every Unicode space, not only ASCII ones (GraphQL's chatPostMessage
  -- stored "\n\t", a no-break space or an ideographic space as a message and dispatched it).
  if p_text is null or p_text !~ '[^[:space:]\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  end if;
  if length(p_text) > 100000 then
    perform app_hidden.raise_invalid(p_field, 'must be at most 100000 characters');
  end if;
end
$$;
comment on function app_hidden.check_chat_text(p_text text, p_field text) is 'A chat message''s text: not blank, at most 100,000 characters (the table''s check), else 400 on p_field (body; message for chatOpenThread).';
grant execute on function app_hidden.check_chat_text(p_text text, p_field text) to svc_visitor;

create or replace function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb)
 returns app_public.chat_messages
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
  v_context jsonb;
  v_event uuid;
begin
  select * into v_thread from app_public.chat_threads where id = p_thread_id and workspace_id = p_workspace_id;
  if v_thread.id is null then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  perform app_hidden.check_chat_text(p_body, 'body');
  -- An archived agent reads nothing (its keys are refused): a message to it would wait in a queue no one serves.
  -- Under FOR SHARE, so an archive committing meanwhile is waited for and seen (400 agent_archived).
  perform app_hidden.lock_live_agent(v_thread.agent_id);
  v_context := jsonb_build_object('route', app_hidden.one_line(p_context->>'route', 'route', 500),
                                  'issueId', coalesce(p_context->>'issueId', v_thread.issue_id::text));
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, context_snapshot, author_user_id)
  values (p_workspace_id, v_thread.id, 'USER', p_body, v_context, p_user_id)
  returning * into v_message;
  v_event := app_private.record_event(p_workspace_id, 'CHAT_MESSAGE_POSTED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'messageId', v_message.id, 'agentId', v_thread.agent_id,
    'openedByUserId', v_thread.created_by_user_id, 'role', 'USER', 'body', v_message.body, 'context', v_context));
  -- Only USER messages reach the agent's dispatch channel (spec 6.3).
  perform app_private.enqueue_agent_dispatch(v_event, v_thread.agent_id);
  return v_message;
end
$$;
comment on function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb) is 'Persists a USER message (contextSnapshot {route, issueId}; 400 agent_archived when the thread''s agent is archived), writes CHAT_MESSAGE_POSTED (chat-thread, with context) and queues that event to the addressee''s dispatch channel agent:dispatch:<agentId>.';

create or replace function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text default NULL::text, p_issue_id uuid default NULL::uuid, p_message text default NULL::text, p_route text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'agentId', detail = 'agent_archived';
  end if;
  if not exists (select 1 from app_public.memberships m where m.workspace_id = p_workspace_id and m.user_id = p_user_id) then
    raise exception 'Not a member of this workspace' using errcode = 'SV400', column = 'user';
  end if;
  -- route is the first message's context; checked as there even when no message comes (else bad input passed silently).
  perform app_hidden.one_line(p_route, 'route', 500);
  if p_message is not null then
    perform app_hidden.check_chat_text(p_message, 'message');
  end if;
  insert into app_public.chat_threads (workspace_id, agent_id, created_by_user_id, title, issue_id)
  values (p_workspace_id, v_agent.id, p_user_id, app_hidden.one_line(nullif(btrim(p_title), ''), 'title', 200), p_issue_id)
  returning * into v_thread;
  -- Ours (the spec has no kind for it): a thread opened without a message was a state change no one heard of.
  perform app_private.record_event(p_workspace_id, 'CHAT_THREAD_OPENED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'agentId', v_thread.agent_id, 'openedByUserId', p_user_id, 'title', v_thread.title,
    'issueId', v_thread.issue_id));
  if p_message is not null then
    v_message := app_private.chat_post_user_message(p_workspace_id, v_thread.id, p_user_id, p_message,
      jsonb_build_object('route', p_route, 'issueId', p_issue_id));
  end if;
  return jsonb_build_object('thread', jsonb_build_object('id', v_thread.id, 'agentId', v_thread.agent_id),
    'message', case when v_message.id is not null then jsonb_build_object('id', v_message.id) end);
end
$$;
comment on function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'Opens a new thread addressed to an agent (not archived) for a member (CHAT_THREAD_OPENED), optionally with a first USER message. Returns {thread: {id, agentId}, message: {id} | null}. svc admin open-chat and the in-app procedures call it.';

create or replace function app_private.chat_person_caller()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents reply with the chat tools; people post USER messages' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  if v_caller.user_id is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_hidden.require_scope('WRITE_COMMENTS');
  return v_caller;
end
$$;
comment on function app_private.chat_person_caller() is 'The in-app chat procedures act for a person: a key with its own user, no linked agent (403 person_key_required) and WRITE_COMMENTS.';

create or replace function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_open_thread(v_caller.workspace_id, p_agent_id, v_caller.user_id, p_title, p_issue_id,
                                       p_message, p_route)->'thread'->>'id')::uuid;
end
$$;
comment on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'A person opens a thread with an agent of their workspace (app_private.chat_open_thread); returns the thread id.';
grant execute on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) to svc_visitor;

create or replace function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_post_user_message(v_caller.workspace_id, p_thread_id, v_caller.user_id, p_body,
    jsonb_build_object('route', p_route, 'issueId', p_issue_id))).id;
end
$$;
comment on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) is 'A person posts a USER message (app_private.chat_post_user_message); the caller checked that the thread is theirs to see.';
grant execute on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) to svc_visitor;

create or replace function app_public.chat_open_thread(agent_id uuid, message text default NULL::text, title text default NULL::text, issue_id uuid default NULL::uuid, route text default NULL::text)
 returns app_public.chat_threads
 language plpgsql
as $$
declare
  v_issue uuid;
  v_thread uuid;
begin
  if chat_open_thread.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_open_thread.issue_id::text, 'issueId')).id;  -- visible to this key, else 404
  end if;
  v_thread := app_hidden.chat_open_thread(chat_open_thread.agent_id, chat_open_thread.title, v_issue,
                                          chat_open_thread.message, chat_open_thread.route);
  return (select t from app_public.chat_threads t where t.id = v_thread);
end
$$;
comment on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) is '@arg agentId The agent to talk to (not archived).
@arg message A first USER message, dispatched to the agent; 1 to 100,000 characters; omitted = none.
@arg title A title for the thread, one line of up to 200 characters.
@arg issueId An issue the thread is about (visible to the key): kept on the thread and as the first message''s context.
@arg route Where in the app the person is, one line of up to 500 characters: the first message''s context.
@result The new thread.
Opens a chat thread addressed to an agent, optionally with a first USER message (which is dispatched to the agent). issueId (visible to the key) and route are the context of the message. Needs a person''s key with WRITE_COMMENTS. Emits CHAT_MESSAGE_POSTED for the message.';
grant execute on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) to svc_visitor;

create or replace function app_public.chat_post_message(thread_id uuid, body text, route text default NULL::text, issue_id uuid default NULL::uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_issue uuid;
  v_message uuid;
begin
  if not exists (select 1 from app_public.chat_threads t where t.id = chat_post_message.thread_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if chat_post_message.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_post_message.issue_id::text, 'issueId')).id;
  end if;
  v_message := app_hidden.chat_post_user_message(chat_post_message.thread_id, chat_post_message.body,
                                                 chat_post_message.route, v_issue);
  return (select m from app_public.chat_messages m where m.id = v_message);
end
$$;
comment on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) is '@arg threadId The thread to post in: one you opened (a workspace admin: any).
@arg body The message, 1 to 100,000 characters.
@arg route Where in the app you are, one line of up to 500 characters, kept as the message''s context.
@arg issueId An issue the message is about (visible to the key), kept as its context; omitted = the thread''s issue.
@result The new USER message.
Posts a USER message in a thread the caller opened (or, for workspace admins, any thread); it is dispatched to the addressee agent (agent:dispatch:<agentId>). route and issueId are stored as the message''s context. Emits CHAT_MESSAGE_POSTED.';
grant execute on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) to svc_visitor;
--! EndIncluded chat/chat.sql
--! Included dispatch/rules.sql
-- dispatch: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
 returns void
 language plpgsql
 stable
as $$
declare v_archived boolean;
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null then
    select a.archived_at is not null into v_archived from app_public.agents a
    where a.id = p_target_agent_id and a.workspace_id = p_workspace_id;
    if v_archived is null then
      raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
    end if;
    -- As every other way of pointing work at an agent: a rule whose target is archived would route to no one.
    if v_archived then
      raise exception 'The agent is archived' using errcode = 'SV400', column = 'targetAgentId', detail = 'agent_archived';
    end if;
  end if;
  if p_label_id is not null and not exists (
       select 1 from app_public.labels where id = p_label_id and workspace_id = p_workspace_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (
       select 1 from app_public.projects where id = p_project_id and workspace_id = p_workspace_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) is 'The priority must be one of the issue priorities; the agent, label and project a rule names must be in the workspace and visible to the caller (for a key, RLS adds its narrowing), else 404 naming the field; the agent must not be archived (400 agent_archived).';
grant execute on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) to svc_visitor;

-- The one place a rule is added: the in-app procedure and the operator's CLI both come here.
create or replace function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.dispatch_rules_check_refs(p_workspace_id, p_target_agent_id, p_label_id, p_project_id, p_priority);
  -- Two concurrent adds must not take the same position.
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch_rules:' || p_workspace_id::text, 0));
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = p_workspace_id;
  if p_at_position is not null and p_at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = p_workspace_id and r.position >= coalesce(p_at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (p_workspace_id, coalesce(p_at_position, v_count), app_hidden.one_line(p_name, 'name', 200), p_priority, p_label_id, p_project_id,
          p_target_agent_id, coalesce(p_enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) is 'Adds a dispatch rule to the workspace at p_at_position (0 = first; null = last), moving later rules down; checks what the rule names (dispatch_rules_check_refs).';
grant execute on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_create(target_agent_id uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, at_position integer default NULL::integer, enabled boolean default true)
 returns app_public.dispatch_rules
 language plpgsql
as $$
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  return app_hidden.dispatch_rules_insert(app_hidden.current_workspace_id(), target_agent_id, priority, label_id,
                                          project_id, name, at_position, enabled);
end
$$;
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is '@arg targetAgentId The agent matching issues go to (not archived).
@arg priority Condition: the issue has this priority (NONE, LOW, MEDIUM, HIGH, URGENT); omitted = any.
@arg labelId Condition: the issue carries this label; omitted = any.
@arg projectId Condition: the issue is in this project; omitted = any.
@arg name A label for the rule, one line of up to 200 characters.
@arg atPosition Where to insert it, 0 (tried first) to the number of rules; omitted = last.
@arg enabled False keeps the rule but skips it (default true).
@result The new rule.
OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
grant execute on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_delete(rule_id uuid)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(rule_id uuid) is '@arg ruleId The rule to delete.
@result The deleted rule, as it was.
OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
grant execute on function app_public.dispatch_rules_delete(rule_id uuid) to svc_visitor;

create or replace function app_public.dispatch_rules_reorder(rule_ids uuid[])
 returns setof app_public.dispatch_rules
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
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
comment on function app_public.dispatch_rules_reorder(rule_ids uuid[]) is '@arg ruleIds Every rule of the workspace exactly once, in the order they are to be tried.
@result The workspace''s rules in their new order.
OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';
grant execute on function app_public.dispatch_rules_reorder(rule_ids uuid[]) to svc_visitor;

create or replace function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid default NULL::uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, enabled boolean default NULL::boolean, clear text[] default '{}'::text[])
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(app_hidden.current_workspace_id(), target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(app_hidden.one_line(dispatch_rules_update.name, 'name', 200), r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) is '@arg ruleId The rule to change.
@arg targetAgentId New target agent (not archived); omitted = unchanged.
@arg priority New priority condition (NONE, LOW, MEDIUM, HIGH, URGENT); omitted = unchanged.
@arg labelId New label condition; omitted = unchanged.
@arg projectId New project condition; omitted = unchanged.
@arg name New label for the rule; omitted = unchanged.
@arg enabled False skips the rule, true uses it again; omitted = unchanged.
@arg clear What to remove from the rule: any of priority, labelId, projectId, name.
@result The rule as changed.
OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';
grant execute on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) to svc_visitor;

create or replace function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text default NULL::text, p_label_id uuid default NULL::uuid, p_project_id uuid default NULL::uuid, p_name text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules := app_hidden.dispatch_rules_insert(
  p_workspace_id, p_target_agent_id, p_priority, p_label_id, p_project_id, p_name, null, true);
begin
  return jsonb_build_object('id', v_rule.id, 'position', v_rule.position, 'name', v_rule.name,
    'targetAgentId', v_rule.target_agent_id, 'priority', v_rule.priority, 'labelId', v_rule.label_id,
    'projectId', v_rule.project_id, 'enabled', v_rule.enabled, 'createdAt', v_rule.created_at);
end
$$;
comment on function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text) is 'Operator (svc admin create-dispatch-rule): appends a dispatch rule at the end of the workspace''s order; the agent, label and project must belong to that workspace (404 naming the field).';
--! EndIncluded dispatch/rules.sql
--! Included notes/notes.sql
-- notes: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_note(p_id text)
 returns app_public.notes
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  -- manage_own_notes hides every other user's note: theirs and unknown ids read the same.
  return app_hidden.found((select n from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id')), 'Note');
end
$$;
comment on function app_hidden.find_note(p_id text) is 'One of the caller''s own notes, else 404 "Note not found" (another user''s note included).';
grant execute on function app_hidden.find_note(p_id text) to svc_visitor;

create or replace function app_hidden.note_for_write(p_id text)
 returns app_public.notes
 language plpgsql
as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_user();
  -- Locked until commit and read once the lock is granted: two edits of one note each write their own fields over
  -- the other's (not over the row both read first), an edit sees an archive that committed while it waited, and
  -- concurrent archives stamp one archivedAt.
  select * into v_note from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id') for no key update;
  return app_hidden.found(v_note, 'Note');
end
$$;
comment on function app_hidden.note_for_write(p_id text) is 'One of the caller''s own notes, locked until commit (its current row), else 404 "Note not found" (another user''s note included). The entry point of every note change.';
grant execute on function app_hidden.note_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.note_json(n app_public.notes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', n.id, 'title', n.title, 'body', n.body, 'pinned', n.pinned, 'kind', n.kind,
                            'journalDate', n.journal_date, 'archived', n.archived_at is not null, 'archivedAt', n.archived_at,
                            'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.note_json(n app_public.notes) is 'Note (spec 2.14): id, title, body, pinned, kind, journalDate, archived state.';
grant execute on function app_hidden.note_json(n app_public.notes) to svc_visitor;

create or replace function app_public.notes_restore(note_id uuid)
 returns app_public.notes
 language plpgsql
as $$
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
comment on function app_public.notes_restore(note_id uuid) is '@arg noteId One of your archived notes (another person''s note is Note not found).
@result The note, restored (as it was when it was not archived).
Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';
grant execute on function app_public.notes_restore(note_id uuid) to svc_visitor;
--! EndIncluded notes/notes.sql
--! Included pins/pins.sql
-- pins: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.pins_json()
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('issueId', i.id, 'position', p.position, 'pinnedAt', p.created_at,
                                               'issue', app_hidden.issue_json(i))
                            order by p.position, p.created_at, p.id), '[]')
  from app_public.pins p
  join app_public.issues i on i.id = p.target_id and i.deleted_at is null
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
    and p.target_type = 'ISSUE'
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see).';
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
--! Included repohost/mappings.sql
-- repohost: mappings (resolution, in-app procedures, operator command) and resources (snapshot, rules).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.repo_check_status_rules(p_rules jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare v_key text; v_value jsonb;
begin
  if p_rules is null then return null; end if;
  if jsonb_typeof(p_rules) <> 'object' then
    perform app_hidden.raise_invalid('statusRules', 'must be an object such as {"closed":"DONE","merged":"DONE"}');
  end if;
  for v_key, v_value in select * from jsonb_each(p_rules) loop
    if v_key not in ('open', 'closed', 'merged') then
      perform app_hidden.raise_invalid('statusRules', format('unknown external state %s (open, closed, merged)', v_key));
    end if;
    if v_value <> 'null'::jsonb and (jsonb_typeof(v_value) <> 'string'
        or v_value #>> '{}' not in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED')) then
      perform app_hidden.raise_invalid('statusRules', format('%s must map to a status category (BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE, CANCELED)', v_key));
    end if;
  end loop;
  return jsonb_strip_nulls(p_rules);
end
$$;
comment on function app_hidden.repo_check_status_rules(p_rules jsonb) is 'Validates status rules: keys open/closed/merged, values status categories (400 statusRules otherwise); null stays null (no change).';
grant execute on function app_hidden.repo_check_status_rules(p_rules jsonb) to svc_visitor;

create or replace function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if p_token_env is not null and p_token_env !~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$' then
    perform app_hidden.raise_invalid('tokenEnv', 'must be an environment variable name');
  end if;
  if p_api_url is not null and p_api_url !~ '^https?://[^\s]+$' then
    perform app_hidden.raise_invalid('apiUrl', 'must be an http(s) URL');
  end if;
end
$$;
comment on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) is 'Validates a mapping''s tokenEnv (an environment variable name) and apiUrl (http or https), 400 naming the field.';
grant execute on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) to svc_visitor;

create or replace function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if coalesce(p_repo_full_name, '') !~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' then
    perform app_hidden.raise_invalid(p_field, 'must be owner/name');
  end if;
end
$$;
comment on function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text) is 'A repository''s owner/name, else 400 on p_field (the caller''s name for it: repo for svc admin, repoFullName in GraphQL).';
grant execute on function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text) to svc_visitor;

create or replace function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text default NULL::text, p_api_url text default NULL::text, p_status_rules jsonb default NULL::jsonb, p_sync_title boolean default false)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.check_repo_full_name(p_repo_full_name, 'repo');
  perform app_hidden.repo_check_host_settings(p_token_env, p_api_url);
  if exists (select 1 from app_public.connection_mappings m where m.workspace_id = p_workspace_id and m.kind = 'repo'
             and lower(m.repo_full_name) = lower(p_repo_full_name)) then
    raise exception 'Repository % is already mapped in this workspace', p_repo_full_name using errcode = 'SV409', detail = 'mapping_exists';
  end if;
  insert into app_public.connection_mappings (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title)
  values (p_workspace_id, 'repo', 'github', p_repo_full_name, p_token_env, rtrim(p_api_url, '/'),
          coalesce(app_hidden.repo_check_status_rules(p_status_rules), '{"closed":"DONE","merged":"DONE"}'), coalesce(p_sync_title, false))
  returning * into v_row;
  return app_hidden.repo_mapping_json(v_row);
end
$$;
comment on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) is 'Maps a repository (kind repo) for the repohost tools; default status rules close linked issues when the external issue closes or the PR merges ({"closed":"DONE","merged":"DONE"}). 409 mapping_exists for a repository already mapped. Used by `svc admin create-repo-mapping` (as owner) and repoMappingsCreate (as the caller, under RLS: OWNER/ADMIN only).';
grant execute on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) to svc_visitor;

create or replace function app_hidden.repo_refuse_token_env(p_given boolean)
 returns void
 language plpgsql
 stable
as $$
begin
  -- tokenEnv names a variable of the server's own environment: a workspace admin naming one had the service send its
  -- value (PATH, a cloud secret, another workspace's token) to an apiUrl of their choosing. The operator grants a
  -- token (svc admin create-repo-mapping --token-env); in-app a mapping is anonymous, or keeps the operator's.
  if p_given then
    raise exception 'tokenEnv names a variable of the server''s environment: only the operator sets it (svc admin create-repo-mapping --token-env)'
      using errcode = 'SV403', detail = 'operator_only', column = 'tokenEnv';
  end if;
end
$$;
comment on function app_hidden.repo_refuse_token_env(p_given boolean) is 'In-app repository mappings: 403 operator_only when tokenEnv is given (the server''s environment is the operator''s).';
grant execute on function app_hidden.repo_refuse_token_env(p_given boolean) to svc_visitor;

create or replace function app_public.repo_mappings_create(repo_full_name text, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v jsonb;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.check_repo_full_name(repo_full_name, 'repoFullName');
  perform app_hidden.repo_refuse_token_env(token_env is not null);
  v := app_hidden.repo_mapping_insert(app_hidden.current_workspace_id(), repo_full_name, token_env, api_url, status_rules, sync_title);
  return (select m from app_public.connection_mappings m where m.id = (v->>'id')::uuid);
end
$$;
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is '@arg repoFullName The repository, owner/name (409 mapping_exists when already mapped).
@arg tokenEnv The operator''s alone: given here it is 403 operator_only (svc admin create-repo-mapping --token-env names the server''s environment variable); omitted = anonymous access.
@arg apiUrl API base URL for GitHub Enterprise, http(s), checked before saving; omitted = https://api.github.com.
@arg statusRules External state (open, closed, merged) to status category, applied to linked issues by repohost.sync; omitted = {"closed":"DONE","merged":"DONE"}.
@arg syncTitle True: repohost.sync copies the external title onto issues linked as SOURCE (default false).
@result The new mapping.
OWNER/ADMIN: maps a repository (owner/name) for the repohost tools, anonymously (tokenEnv, the server''s environment variable holding an API token, is the operator''s: svc admin create-repo-mapping --token-env; given here it is 403 operator_only); apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
grant execute on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) to svc_visitor;

create or replace function app_public.repo_mappings_update(mapping_id uuid, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default NULL::boolean, active boolean default NULL::boolean, clear_token_env boolean default false, clear_api_url boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.repo_check_host_settings(token_env, api_url);
  perform app_hidden.repo_refuse_token_env(token_env is not null);
  select * into v_row from app_public.connection_mappings m where m.id = mapping_id for update;
  if v_row.token_env is not null and (api_url is not null or clear_api_url) and not clear_token_env then
    -- The operator's token goes wherever apiUrl points: moving it would send the token to a host of the admin's choosing.
    raise exception 'This mapping sends the token the operator gave it ($%) to its apiUrl; its apiUrl changes only together with clearTokenEnv: true', v_row.token_env
      using errcode = 'SV403', detail = 'operator_only', column = 'apiUrl';
  end if;
  update app_public.connection_mappings m set
    token_env = case when clear_token_env then null else coalesce(repo_mappings_update.token_env, m.token_env) end,
    api_url = case when clear_api_url then null else coalesce(rtrim(repo_mappings_update.api_url, '/'), m.api_url) end,
    status_rules = coalesce(app_hidden.repo_check_status_rules(repo_mappings_update.status_rules), m.status_rules),
    sync_title = coalesce(repo_mappings_update.sync_title, m.sync_title),
    active = coalesce(repo_mappings_update.active, m.active)
  where m.id = mapping_id
  returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is '@arg mappingId The mapping to change.
@arg tokenEnv The operator''s alone: given here it is 403 operator_only.
@arg apiUrl New API base URL, checked before saving; omitted = unchanged. A mapping holding the operator''s token keeps its apiUrl unless clearTokenEnv drops the token in the same call (403 operator_only).
@arg statusRules New status rules, replacing the old ones; omitted = unchanged.
@arg syncTitle Whether repohost.sync copies external titles; omitted = unchanged.
@arg active False pauses the repohost tools for the repository, true resumes them; omitted = unchanged.
@arg clearTokenEnv True removes tokenEnv (anonymous access from then on).
@arg clearApiUrl True removes apiUrl (back to https://api.github.com); as apiUrl for a mapping holding the operator''s token.
@result The mapping as changed.
OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository. tokenEnv is the operator''s (403 operator_only); clearTokenEnv drops the operator''s token, and a mapping that has one keeps its apiUrl unless the token is dropped in the same call (403 operator_only).';
grant execute on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) to svc_visitor;

create or replace function app_public.repo_mappings_delete(mapping_id uuid)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  delete from app_public.connection_mappings m where m.id = mapping_id returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_delete(mapping_id uuid) is '@arg mappingId The mapping to remove.
@result The removed mapping, as it was.
OWNER/ADMIN: removes a repository mapping; links and snapshots stay (without a mapping they can no longer be synced).';
grant execute on function app_public.repo_mappings_delete(mapping_id uuid) to svc_visitor;

create or replace function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text default 'repoFullName'::text)
 returns app_public.connection_mappings
 language plpgsql
 stable
as $$
declare v_row app_public.connection_mappings;
begin
  if p_mapping_id is not null then
    select * into v_row from app_public.connection_mappings m where m.id = app_hidden.parse_uuid(p_mapping_id, 'mappingId');
    if v_row.id is null then
      raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
    end if;
    if p_repo_full_name is not null and lower(p_repo_full_name) <> lower(v_row.repo_full_name) then
      perform app_hidden.raise_invalid('repoFullName', format('mapping %s is for %s', v_row.id, v_row.repo_full_name));
    end if;
  elsif p_repo_full_name is not null then
    select * into v_row from app_public.connection_mappings m
    where m.workspace_id = app_hidden.current_workspace_id() and m.kind = 'repo' and lower(m.repo_full_name) = lower(p_repo_full_name);
    if v_row.id is null then
      raise exception 'No repository mapping for % in this workspace (svc admin create-repo-mapping)', p_repo_full_name
        using errcode = 'SV404', column = p_field, detail = 'no_repo_mapping';
    end if;
  else
    perform app_hidden.raise_invalid('repoFullName', 'give mappingId or repoFullName');
  end if;
  if not v_row.active then
    raise exception 'The mapping for % is inactive', v_row.repo_full_name using errcode = 'SV422', detail = 'mapping_inactive';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) is 'The workspace''s active repo mapping by id or by repository full name (case-insensitive); 404 (no_repo_mapping) or 422 mapping_inactive otherwise.';
grant execute on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) to svc_visitor;

create or replace function app_hidden.repo_web_hosts(m app_public.connection_mappings)
 returns text[]
 language sql
 immutable
as $$
  -- GitHub's URLs, and those of the host the mapping's apiUrl names (GitHub Enterprise: https://ghe.example.com/api/v3).
  select array_remove(array['github.com', 'www.github.com', lower(app_hidden.url_hostname(m.api_url))], null)
$$;
comment on function app_hidden.repo_web_hosts(m app_public.connection_mappings) is 'The hosts whose issue and pull request URLs a repository mapping reads: github.com, and the host of the mapping''s apiUrl when it has one.';
grant execute on function app_hidden.repo_web_hosts(m app_public.connection_mappings) to svc_visitor;

create or replace function app_hidden.repohost_prepare(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_parsed jsonb;
  v_mapping app_public.connection_mappings;
  v_items jsonb;
  v_inactive text;
begin
  if args ? 'url' then
    -- repohost.link: the issue the link goes on first, so an issue the key cannot see is a 404 before any call to the host.
    if args ? 'issueId' then
      perform app_hidden.find_issue(args->>'issueId', 'issueId');
    end if;
    v_parsed := app_hidden.repo_parse_url(args->>'url');
    v_mapping := app_hidden.repo_mapping_resolve(null, v_parsed->>'repoFullName', 'url');
    -- The URL must be on the mapping's host: a gitlab.com or look-alike URL with the same owner/repo path would
    -- otherwise link (and let sync rules act on) a different item of the mapped repository.
    if split_part(v_parsed->>'host', ':', 1) <> all(app_hidden.repo_web_hosts(v_mapping)) then
      perform app_hidden.raise_invalid('url', format('this URL is on %s; the mapping of %s reads %s', v_parsed->>'host',
        v_mapping.repo_full_name, array_to_string(app_hidden.repo_web_hosts(v_mapping), ', ')));
    end if;
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (v_parsed->>'number')::int));
  elsif args ? 'resourceId' or args ? 'issueId' then
    select coalesce(jsonb_agg(jsonb_build_object('mapping', app_hidden.repo_mapping_json(m), 'repoFullName', r.repo_full_name,
             'number', r.number, 'resourceId', r.id, 'active', m.active) order by r.repo_full_name, r.number), '[]')
    into v_items
    from app_public.external_resources r
    join app_public.connection_mappings m on m.workspace_id = r.workspace_id and m.kind = 'repo'
      and lower(m.repo_full_name) = lower(r.repo_full_name)
    where (args->>'resourceId' is null or r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId'))
      and (args->>'issueId' is null or exists (select 1 from app_public.external_links l
             where l.resource_id = r.id and l.issue_id = (app_hidden.find_issue(args->>'issueId', 'issueId')).id));
    -- A resource whose mapping is switched off is said so, as link and importIssue say it (sync skipped it and
    -- answered as if there were nothing to refresh).
    select x->>'repoFullName' into v_inactive from jsonb_array_elements(v_items) x where not (x->>'active')::boolean limit 1;
    if v_inactive is not null then
      raise exception 'The mapping for % is inactive', v_inactive using errcode = 'SV422', detail = 'mapping_inactive';
    end if;
  else
    v_mapping := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (args->>'number')::int));
  end if;
  return jsonb_build_object('items', v_items);
end
$$;
comment on function app_hidden.repohost_prepare(args jsonb) is 'Read-only, as the caller: what the repohost tools must read from the host (mapping with apiUrl/tokenEnv, repository, number) for a url, a mappingId/repoFullName + number, or the resources behind a resourceId/issueId. The tool''s own function re-checks everything when it records.';
grant execute on function app_hidden.repohost_prepare(args jsonb) to svc_visitor;

create or replace function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb)
 returns app_public.external_resources
 language plpgsql
as $$
declare v_row app_public.external_resources;
begin
  if p_fetched is null or lower(p_fetched->>'repoFullName') <> lower(p_mapping.repo_full_name) then
    raise exception 'host answer missing for %', p_mapping.repo_full_name using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  insert into app_public.external_resources as r (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at)
  values (p_mapping.workspace_id, p_mapping.id, p_mapping.provider, p_mapping.repo_full_name, p_fetched->>'type',
          (p_fetched->>'number')::int, p_fetched->>'url', p_fetched->>'title', p_fetched->>'state',
          coalesce(p_fetched->'snapshot', '{}'), now())
  on conflict (workspace_id, lower(repo_full_name), number) do update
    set mapping_id = excluded.mapping_id, type = excluded.type, url = excluded.url, title = excluded.title,
        state = excluded.state, snapshot = excluded.snapshot, synced_at = excluded.synced_at
  returning * into v_row;
  return v_row;
end
$$;
comment on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) is 'Stores (or refreshes) the snapshot of an external issue/PR as just read from the host.';
grant execute on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) to svc_visitor;

create or replace function app_hidden.repo_apply_rules(p_resource app_public.external_resources)
 returns jsonb
 language plpgsql
as $$
declare
  v_mapping app_public.connection_mappings;
  v_link record;
  v_issue app_public.issues;
  v_category text;
  v_status_id uuid;
  v_patch jsonb;
  v_applied jsonb := '[]';
begin
  select * into v_mapping from app_public.connection_mappings m where m.id = p_resource.mapping_id;
  if v_mapping.id is null then return v_applied; end if;
  v_category := v_mapping.status_rules->>p_resource.state;
  for v_link in
    select l.issue_id, l.kind from app_public.external_links l
    join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
    where l.resource_id = p_resource.id and l.kind in ('SOURCE', 'IMPLEMENTS') order by i.number
  loop
    v_patch := '{}';
    select * into v_issue from app_public.issues i where i.id = v_link.issue_id;
    if v_category is not null and (select s.category from app_public.statuses s where s.id = v_issue.status_id) <> v_category then
      select s.id into v_status_id from app_public.statuses s
      where s.workspace_id = v_issue.workspace_id and s.category = v_category order by s.position, s.id limit 1;
      if v_status_id is not null then v_patch := v_patch || jsonb_build_object('statusId', v_status_id); end if;
    end if;
    if v_mapping.sync_title and v_link.kind = 'SOURCE' and p_resource.title is not null and p_resource.title <> v_issue.title then
      v_patch := v_patch || jsonb_build_object('title', left(p_resource.title, 500));
    end if;
    if v_patch <> '{}' then
      v_issue := app_hidden.update_issue(app_hidden.issue_for_write(v_issue.id::text), v_patch);
      v_applied := v_applied || jsonb_build_object('issueId', v_issue.id, 'key', v_issue.key,
        'changes', (select jsonb_agg(k) from jsonb_object_keys(v_patch) k));
    end if;
  end loop;
  return v_applied;
end
$$;
comment on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) is 'Applies the mapping''s rules to the live issues linked to a resource: status rules (external state → first status of that category) on SOURCE and IMPLEMENTS links, the external title on SOURCE links when syncTitle. Each change is an ordinary issue update (its events by trigger). Returns [{issueId, key, changes}].';
grant execute on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) to svc_visitor;

create or replace function app_hidden.repo_resource_imported(p_resource_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_public.external_links l join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
                 where l.resource_id = p_resource_id and l.kind = 'SOURCE'
                   and l.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.repo_resource_imported(p_resource_id uuid) is 'Whether an external resource was imported into a live issue of the caller''s workspace, including issues outside the key''s narrowing (so importIssue never makes a duplicate). Security definer: a yes/no, never the issue.';
grant execute on function app_hidden.repo_resource_imported(p_resource_id uuid) to svc_visitor;
--! EndIncluded repohost/mappings.sql
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
    -- Not a delivery of this workspace (any other id, or one deleted with its webhook since): said, not the first page
    -- again as if no cursor had been given.
    if v_before.id is null then
      perform app_hidden.raise_invalid('cursor', 'cursor is not one this list returned (or its delivery is gone): start again without one');
    end if;
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
comment on function app_public.webhook_deliveries_retry(delivery_id uuid) is '@arg deliveryId A DEAD_LETTER or CANCELED delivery whose target is active (409 otherwise).
@result The delivery, PENDING again, as JSON: {id, eventId, eventKind, webhookId, agentId, channel, status, attemptCount, totalAttempts, nextAttemptAt, lastStatusCode, lastError, deliveredAt, deadLetteredAt, createdAt, attempts}.
OWNER/ADMIN: puts a dead-lettered delivery back in the queue (same event, same webhook-id).';
grant execute on function app_public.webhook_deliveries_retry(delivery_id uuid) to svc_visitor;

create or replace function app_public.webhooks_create(url text, events text[] default '{}'::text[], description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_create(url, events, description) $$;
comment on function app_public.webhooks_create(url text, events text[], description text) is '@arg url Where deliveries go: an http(s) URL without credentials, at most 2,048 characters, checked (DNS included) before saving.
@arg events Event kinds to deliver, at most 100; omitted or empty = every kind.
@arg description A note about the webhook, at most 500 characters.
@result The webhook as JSON, {id, url, events, active, description, deactivatedAt, deactivatedReason, createdAt, updatedAt, secret}: the signing secret is shown only here.
OWNER/ADMIN: registers a webhook for the given event kinds (empty = all). Returns {id, url, events, active, secret}; the secret is shown only here.';
grant execute on function app_public.webhooks_create(url text, events text[], description text) to svc_visitor;

create or replace function app_public.webhooks_delete(webhook_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delete(webhook_id) $$;
comment on function app_public.webhooks_delete(webhook_id uuid) is '@arg webhookId The webhook to delete.
@result {id, deleted: true} as JSON.
OWNER/ADMIN: deletes a webhook and its pending deliveries.';
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
comment on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) is '@arg webhookId The webhook whose signing secret to replace.
@arg keepPreviousHours Hours the old secret keeps signing beside the new one, 0 (it stops at once) to 168; default 24.
@result {id, secret, previousSecretValidUntil} as JSON: the new secret is shown only here.
OWNER/ADMIN: replaces the signing secret and returns the new one (shown once); the old one also signs deliveries for keepPreviousHours (default 24, 0 to 168; 0 stops it at once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is '@arg webhookId The webhook to change.
@arg url New URL, checked before saving; omitted = unchanged.
@arg events New event filter (empty = every kind); omitted = unchanged.
@arg active False stops deliveries (pending ones are canceled), true resumes them; omitted = unchanged.
@arg description New note; omitted = unchanged.
@result The webhook as JSON, without its secret: {id, url, events, active, description, deactivatedAt, deactivatedReason, createdAt, updatedAt}.
OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
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
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner';
  end if;
  -- A former member's keys for this workspace stop working at once.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and user_id = p_user_id and revoked_at is null;
  -- The membership goes first: its delete waits for their claims, timers and watches being written (they hold it in
  -- share mode, hold_membership), and each statement below then sees what those wrote.
  delete from app_public.memberships where id = v_m.id;
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
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace, releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

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
  -- One value may be one workspace's key and another's slug (key ACME, and the slug acme of workspace ENG named
  -- Acme), or a slug spelled as another's id: an id wins, then a key, then a slug. The first row found decided, so
  -- `--workspace ACME` acted on ENG, and which one changed as rows were updated.
  select * into v_ws from app_public.workspaces
  where key = upper(p_key) or slug = lower(p_key) or id::text = lower(p_key)
  order by id::text = lower(p_key) desc, key = upper(p_key) desc
  limit 1;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by id, key or slug (operator CLI), in that order of preference when one value names several.';

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
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) is '@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg cycleLengthDays Default length of new cycles in days, 1 to 365; omitted = unchanged.
@arg cycleCooldownDays Days left free between cycles, 0 to 365; omitted = unchanged.
@arg timeTrackingEnabled Whether the time.* tools work; omitted = unchanged.
@arg attachmentQuotaMb Attachment storage in MB, 0 or more; omitted = unchanged.
@arg requiredAckSeconds Seconds an assigned agent has to answer (a comment, a status move or a run report) before AGENT_NOACK fires, 0 = off; omitted = unchanged.
@arg autoDispatch Whether the dispatcher hands queued issues to agents; omitted = unchanged.
@arg autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; omitted = unchanged.
@arg assignmentSlaMinutes Minutes an assigned open issue may go without activity before ISSUE_STALLED fires, 0 = off; omitted = unchanged.
@arg agentRunStaleMinutes Minutes without a sign of life before a run is STALLED and an agent OFFLINE, at least 1; omitted = unchanged.
@result The workspace with its settings as changed.
OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) to svc_visitor;
--! EndIncluded workspace/workspace.sql

-- action_requests
comment on column app_public.action_requests.id is 'UUID of the action request, as the MCP tools name it (id is the GraphQL node id).';
comment on column app_public.action_requests.workspace_id is 'The workspace the request belongs to (the calling key''s: no other is visible).';
comment on column app_public.action_requests.title is 'What is to be decided, 1 to 500 characters.';
comment on column app_public.action_requests.body is 'Details of the request, at most 100,000 characters; null = none.';
comment on column app_public.action_requests.severity is 'How prominently to show it: INFO (default), SUCCESS, WARNING, ERROR or CRITICAL.';
comment on column app_public.action_requests.kind is 'What accepting runs: FREE_FORM nothing (a plan''s approval request activates the plan), TRANSITION moves the issue to payload.statusId, SET_LABELS adds and removes its labels, ASSIGN_AGENT assigns payload.agentId, CLOSE_AS_DUPLICATE closes it as a duplicate of payload.duplicateOfIssueId.';
comment on column app_public.action_requests.assigned_user_id is 'The member asked to decide, or null; cleared when that member leaves the workspace.';
comment on column app_public.action_requests.assigned_agent_id is 'The agent asked to decide (its own keys may accept or decline), or null.';
comment on column app_public.action_requests.issue_id is 'The issue the request is about, or null; a request on an issue is visible to a narrowed key only with its issue.';
comment on column app_public.action_requests.comment_id is 'The comment the request was posted with (comments.create with actionRequest); null otherwise.';
comment on column app_public.action_requests.due_at is 'When a decision is wanted by; null = no date. Informational: nothing happens when it passes.';
comment on column app_public.action_requests.source_type is 'What kind of record the request came from (sourceId): issue, comment, goal, execution-plan, execution-step, agent-run or action-request, which must exist; any other value is the requester''s own label. Null = none.';
comment on column app_public.action_requests.status is 'OPEN or SNOOZED (set aside; may reopen) while undecided; RESOLVED (accepted or resolved), DISMISSED, REJECTED (declined) or SUPERSEDED (a newer request replaced it) are final.';
comment on column app_public.action_requests.voting_closed_at is 'Polls: when voting closed (closeVoting, or the request being closed); null while votes are taken, and for a request without options.';
comment on column app_public.action_requests.winning_option_key is 'Polls: the option closeVoting named the winner (most votes; a tie goes to the option voted for first, no votes to the first option); null otherwise.';
comment on column app_public.action_requests.requested_by_user_id is 'The person whose key created the request (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.action_requests.requested_by_agent_id is 'The agent whose key created the request; null when no agent''s key did.';
comment on column app_public.action_requests.resolved_at is 'When the request reached a final status (RESOLVED, DISMISSED, REJECTED or SUPERSEDED); null while OPEN or SNOOZED.';
comment on column app_public.action_requests.resolved_by_user_id is 'The person whose key gave the request its final status (for an agent''s key, the key''s owner); null while undecided or when no person''s key did.';
comment on column app_public.action_requests.resolved_by_agent_id is 'The agent whose key gave the request its final status; null while undecided or when no agent''s key did.';
comment on column app_public.action_requests.created_at is 'When the request was created.';
comment on column app_public.action_requests.updated_at is 'When the request last changed.';

-- action_request_votes
comment on column app_public.action_request_votes.id is 'UUID of the vote.';
comment on column app_public.action_request_votes.workspace_id is 'The workspace the vote belongs to (the calling key''s: no other is visible).';
comment on column app_public.action_request_votes.request_id is 'The poll (action request) voted on.';
comment on column app_public.action_request_votes.user_id is 'The member who voted; one vote per member per poll.';
comment on column app_public.action_request_votes.option_key is 'The option voted for (a key of the request''s options); voting again replaces it until voting closes.';
comment on column app_public.action_request_votes.voted_at is 'When the current choice was made (voting again moves it).';

-- activity_events
comment on column app_public.activity_events.id is 'UUID of the event, as the event stream and webhook deliveries name it.';
comment on column app_public.activity_events.workspace_id is 'The workspace the event belongs to (the calling key''s: no other is visible).';
comment on column app_public.activity_events.kind is 'What happened: an event kind such as ISSUE_CREATED, ISSUE_STATUS_CHANGED or AGENT_ASSIGNED, as the event stream and webhooks carry it.';
comment on column app_public.activity_events.subject_type is 'The kind of record the event is about, lowercase and hyphenated: issue, comment, project, agent, agent-run, membership, goal, execution-step, action-request, webhook, …';
comment on column app_public.activity_events.subject_id is 'The id of the record the event is about (subjectType says which kind).';
comment on column app_public.activity_events.actor_user_id is 'The person whose key made the change (for an agent''s key, the key''s owner); null when the service acted on its own (sweeps, the dispatcher) or a plugin key did (an issue a plugin creates is credited to the first member).';
comment on column app_public.activity_events.actor_agent_id is 'The agent whose key made the change; null when no agent''s key did.';
comment on column app_public.activity_events.created_at is 'When the event was recorded (the time of the transaction that made the change).';

-- agents
comment on column app_public.agents.id is 'UUID of the agent, as the MCP tools name it (id is the GraphQL node id).';
comment on column app_public.agents.workspace_id is 'The workspace the agent belongs to (the calling key''s: no other is visible).';
comment on column app_public.agents.profile_key is 'The agent''s handle, unique in the workspace: 1 to 64 of a-z, 0-9, _ . - (starting with a letter or digit); used to assign and hand off work.';
comment on column app_public.agents.name is 'Display name, 1 to 200 characters.';
comment on column app_public.agents.status is 'Presence: ONLINE, BUSY or OFFLINE, as its agents.heartbeat last said; the dispatcher skips OFFLINE agents, and one silent for the workspace''s agentRunStaleMinutes goes OFFLINE.';
comment on column app_public.agents.capabilities is 'Tags the dispatcher matches: PRIORITY_MATCH against the issue''s priority name, CAPABILITY_MATCH against its label names (case-insensitive); at most 50.';
comment on column app_public.agents.provider is 'The agent client it runs on: CUSTOM (default), CLAUDE, CODEX or HERMES.';
comment on column app_public.agents.runtime_mode is 'PERSISTENT (a long-running agent, the default) or EPHEMERAL (a single-session one); informational, the service treats both alike.';
comment on column app_public.agents.last_heartbeat_at is 'When the agent last sent agents.heartbeat; null = never.';
comment on column app_public.agents.last_dispatched_at is 'When the dispatcher last gave the agent an issue (round-robin picks the least recent first); null = never.';
comment on column app_public.agents.archived_at is 'When the agent was archived; null = live. An archived agent gets no work and its keys are refused (403 agent_archived) until it is unarchived.';
comment on column app_public.agents.created_at is 'When the agent was created.';
comment on column app_public.agents.updated_at is 'When the agent last changed (heartbeats included).';

-- agent_crews
comment on column app_public.agent_crews.id is 'UUID of the crew, as the MCP tools name it (id is the GraphQL node id).';
comment on column app_public.agent_crews.workspace_id is 'The workspace the crew belongs to (the calling key''s: no other is visible).';
comment on column app_public.agent_crews.name is 'Display name, 1 to 200 characters.';
comment on column app_public.agent_crews.description is 'What the crew is for, at most 5,000 characters; null = none.';
comment on column app_public.agent_crews.max_parallel is 'Steps the crew should run at once, 0 (no limit) to 100, default 1: recorded for planners; the loop does not enforce it.';
comment on column app_public.agent_crews.archived_at is 'When the crew was archived; null = live. An archived crew takes no new goals or members; its goals keep it.';
comment on column app_public.agent_crews.created_at is 'When the crew was created.';
comment on column app_public.agent_crews.updated_at is 'When the crew last changed.';

-- agent_crew_members
comment on column app_public.agent_crew_members.id is 'UUID of the membership, as agentCrews.removeMember and setMemberRole name it.';
comment on column app_public.agent_crew_members.workspace_id is 'The workspace the membership belongs to (the calling key''s: no other is visible).';
comment on column app_public.agent_crew_members.crew_id is 'The crew.';
comment on column app_public.agent_crew_members.agent_id is 'The agent, a member of the crew once.';
comment on column app_public.agent_crew_members.role is 'PLANNER (decomposes goals into plans), WORKER (runs steps), REVIEWER (judges steps), OBSERVER or OPERATOR_PROXY.';
comment on column app_public.agent_crew_members.created_at is 'When the agent joined the crew.';

-- agent_runs
comment on column app_public.agent_runs.id is 'UUID of the run, as the runs.* tools name it (id is the GraphQL node id).';
comment on column app_public.agent_runs.workspace_id is 'The workspace the run belongs to (the calling key''s: no other is visible).';
comment on column app_public.agent_runs.agent_id is 'The agent working.';
comment on column app_public.agent_runs.issue_id is 'The issue worked on.';
comment on column app_public.agent_runs.status is 'ACTIVE, WAITING (blocked on someone else), STALLED (quiet for the workspace''s agentRunStaleMinutes; its next sign of life makes it ACTIVE again), or closed: COMPLETED (runs.complete) or ABANDONED (unassigned, reassigned, canceled, the issue deleted or the agent archived).';
comment on column app_public.agent_runs.engagement_mode is 'EXECUTE (do the work, the default), RESEARCH, REVIEW or DISCUSS; in the last three the agent may comment but not change the issue.';
comment on column app_public.agent_runs.current_step is 'What the run is doing now, one line for people watching: set by runs.recordUsage (a plan step''s run starts with the step''s title); null = not said.';
comment on column app_public.agent_runs.started_at is 'When the run was opened (the assignment).';
comment on column app_public.agent_runs.finished_at is 'When the run was COMPLETED or ABANDONED; null while open.';
comment on column app_public.agent_runs.last_event_at is 'The run''s last sign of life (a report, a status change, a comment or chat reply of its agent); the stale-run sweep counts from it.';
comment on column app_public.agent_runs.tokens_in is 'Input tokens used so far, as the agent last reported them (runs.recordUsage sends totals).';
comment on column app_public.agent_runs.tokens_out is 'Output tokens used so far, as the agent last reported them.';
comment on column app_public.agent_runs.tokens_cached is 'Cached input tokens so far, as the agent last reported them.';
comment on column app_public.agent_runs.cost_usd is 'Cost in US dollars so far, exactly as the agent last reported it (a decimal string in GraphQL).';
comment on column app_public.agent_runs.control_state is 'Reserved for a runtime''s control state (spec 2.11); nothing sets it yet, so it is null.';
comment on column app_public.agent_runs.completion_meta is 'COMPLETED runs: what runs.complete reported (summary, producedArtifactIds, verificationResult, followUps, confidence, verdict) and the run contract version (contractVersion, completedAt); a canceled run keeps cancelReason; null otherwise.';

-- api_key (the rows of accessKeys and accessRevoke)
comment on column app_public.api_key.id is 'UUID of the key (give it to accessRevoke); never the secret.';
comment on column app_public.api_key.name is 'The label given when the key was issued; null = none.';
comment on column app_public.api_key.kind is 'AGENT (acts as its linked agent), PERSONAL or SESSION (short-lived); plugin keys are PERSONAL with a pluginId.';
comment on column app_public.api_key.prefix is 'First 14 characters of the token, shown in key lists to tell keys apart.';
comment on column app_public.api_key.scopes is 'What the key may do; FULL holds every scope.';
comment on column app_public.api_key.project_ids is 'Narrowing: only issues and projects of these projects (with labelIds: either matches). Empty = unrestricted.';
comment on column app_public.api_key.label_ids is 'Narrowing: only issues carrying one of these labels (with projectIds: either matches). Empty = unrestricted.';
comment on column app_public.api_key.initiative_ids is 'Narrowing: only these initiatives. Empty = unrestricted.';
comment on column app_public.api_key.linked_agent_id is 'AGENT keys: the agent the key acts as; null otherwise.';
comment on column app_public.api_key.plugin_id is 'Plugin keys: the plugin record the key was issued under; null otherwise.';
comment on column app_public.api_key.created_at is 'When the key was issued.';
comment on column app_public.api_key.expires_at is 'After this, calls with the key fail with 401 expired; null = no expiry.';
comment on column app_public.api_key.revoked_at is 'When the key was revoked (calls then fail with 401 revoked; permanent); null = not revoked.';

-- attachments
comment on column app_public.attachments.id is 'UUID of the attachment, as the attachments.* tools name it (id is the GraphQL node id).';
comment on column app_public.attachments.workspace_id is 'The workspace the attachment belongs to (the calling key''s: no other is visible).';
comment on column app_public.attachments.kind is 'FILE (an uploaded blob: attachments.initUpload, then finalize) or LINK (a URL: attachments.attachLink).';
comment on column app_public.attachments.target_type is 'What it is attached to: issue, initiative, cycle or comment.';
comment on column app_public.attachments.target_id is 'The id of the record it is attached to (targetType says which kind).';
comment on column app_public.attachments.filename is 'FILE: the file name given at upload. LINK: the link''s title, or its hostname until a title is known.';
comment on column app_public.attachments.mime_type is 'FILE: the media type declared at upload (lowercase). LINK: text/url.';
comment on column app_public.attachments.size_bytes is 'FILE: size in bytes (a string in GraphQL). LINK: 0.';
comment on column app_public.attachments.external_url is 'LINK: the http(s) URL; null for a FILE.';
comment on column app_public.attachments.link_title is 'LINK: the title given, else the URL''s hostname until a background job replaces it with the page''s title; null for a FILE.';
comment on column app_public.attachments.created_by_user_id is 'The person whose key attached it (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.attachments.created_by_agent_id is 'The agent whose key attached it; null when no agent''s key did.';
comment on column app_public.attachments.created_at is 'When it was attached.';

-- canvases
comment on column app_public.canvases.id is 'UUID of the canvas, as the canvas.* tools name it (id is the GraphQL node id).';
comment on column app_public.canvases.workspace_id is 'The workspace the canvas belongs to (the calling key''s: no other is visible).';
comment on column app_public.canvases.name is 'Display name, 1 to 200 characters.';
comment on column app_public.canvases.description is 'What the canvas is for, at most 10,000 characters; null = none.';
comment on column app_public.canvases.created_by_user_id is 'The person whose key created it (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.canvases.created_by_agent_id is 'The agent whose key created it; null when no agent''s key did.';
comment on column app_public.canvases.created_at is 'When the canvas was created.';
comment on column app_public.canvases.updated_at is 'When the canvas, or any of its cards or edges, last changed.';

-- canvas_nodes
comment on column app_public.canvas_nodes.id is 'UUID of the card, as the canvas.* tools name it (id is the GraphQL node id).';
comment on column app_public.canvas_nodes.workspace_id is 'The workspace the card belongs to (the calling key''s: no other is visible).';
comment on column app_public.canvas_nodes.canvas_id is 'The canvas the card is on.';
comment on column app_public.canvas_nodes.kind is 'issue (a card showing issueId) or text (a card showing text).';
comment on column app_public.canvas_nodes.text is 'Text cards: the text, 1 to 10,000 characters; null for an issue card.';
comment on column app_public.canvas_nodes.x is 'Horizontal position of the card on the canvas, -1,000,000 to 1,000,000.';
comment on column app_public.canvas_nodes.y is 'Vertical position of the card on the canvas, -1,000,000 to 1,000,000.';
comment on column app_public.canvas_nodes.width is 'Width of the card, 1 to 10,000 (default 240).';
comment on column app_public.canvas_nodes.height is 'Height of the card, 1 to 10,000 (default 120).';
comment on column app_public.canvas_nodes.color is 'Card color as #rrggbb (lowercase); null = the client''s default.';
comment on column app_public.canvas_nodes.created_at is 'When the card was added.';
comment on column app_public.canvas_nodes.updated_at is 'When the card was last moved, resized, recolored or edited.';

-- canvas_edges
comment on column app_public.canvas_edges.id is 'UUID of the edge, as the canvas.* tools name it (id is the GraphQL node id).';
comment on column app_public.canvas_edges.workspace_id is 'The workspace the edge belongs to (the calling key''s: no other is visible).';
comment on column app_public.canvas_edges.canvas_id is 'The canvas the edge is on.';
comment on column app_public.canvas_edges.from_node_id is 'The card the arrow starts at.';
comment on column app_public.canvas_edges.to_node_id is 'The card the arrow points to (never the card it starts at).';
comment on column app_public.canvas_edges.label is 'Text on the arrow, at most 200 characters; null = none.';
comment on column app_public.canvas_edges.created_at is 'When the edge was drawn.';

-- chat_threads
comment on column app_public.chat_threads.id is 'UUID of the thread, as the chat tools name it (id is the GraphQL node id).';
comment on column app_public.chat_threads.workspace_id is 'The workspace the thread belongs to (the calling key''s: no other is visible).';
comment on column app_public.chat_threads.agent_id is 'The agent the thread is addressed to; only its keys reply.';
comment on column app_public.chat_threads.created_by_user_id is 'The person who opened the thread.';
comment on column app_public.chat_threads.title is 'Title given when the thread was opened, at most 200 characters; null = none.';
comment on column app_public.chat_threads.created_at is 'When the thread was opened.';
comment on column app_public.chat_threads.updated_at is 'When the thread row last changed; new messages do not move it (nothing changes a thread after it is opened today).';

-- chat_messages
comment on column app_public.chat_messages.id is 'UUID of the message, as the chat tools name it (id is the GraphQL node id).';
comment on column app_public.chat_messages.workspace_id is 'The workspace the message belongs to (the calling key''s: no other is visible).';
comment on column app_public.chat_messages.thread_id is 'The thread the message is in.';
comment on column app_public.chat_messages.role is 'USER (a person wrote it; it is dispatched to the agent) or AGENT (the thread''s agent replied).';
comment on column app_public.chat_messages.body is 'The message text, 1 to 100,000 characters.';
comment on column app_public.chat_messages.author_user_id is 'USER messages: the person who wrote it. AGENT messages: the owner of the agent''s key that posted it.';
comment on column app_public.chat_messages.author_agent_id is 'AGENT messages: the thread''s agent; null for USER messages.';
comment on column app_public.chat_messages.source_run_id is 'AGENT messages: the agent''s run the reply came from, when it said so; null otherwise.';
comment on column app_public.chat_messages.created_at is 'When the message was posted (messages of one transaction share it; seq orders them).';

-- comments
comment on column app_public.comments.id is 'UUID of the comment, as the comments.* tools name it (id is the GraphQL node id).';
comment on column app_public.comments.workspace_id is 'The workspace the comment belongs to (the calling key''s: no other is visible).';
comment on column app_public.comments.issue_id is 'The issue commented on.';
comment on column app_public.comments.body is 'The current text, 1 to 100,000 characters (earlier ones: revisionHistory).';
comment on column app_public.comments.author_user_id is 'The person whose key wrote it (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.comments.authoring_agent_id is 'The agent whose key wrote it; null when a person''s or a plugin''s key did.';
comment on column app_public.comments.run_id is 'The authoring agent''s open run on the issue when it was written; null otherwise.';
comment on column app_public.comments.edited_at is 'When the body was last changed (comments.update); null = never edited.';
comment on column app_public.comments.deleted_at is 'When the comment was deleted (soft: kept for audit, left out of lists); null = live.';
comment on column app_public.comments.created_at is 'When the comment was posted.';
comment on column app_public.comments.updated_at is 'When the comment last changed (an edit or its deletion).';

-- comment_revision (Comment.revisionHistory)
comment on column app_public.comment_revision.body is 'The comment''s text in this revision, as it was before the edit that replaced it.';

-- connection_mappings
comment on column app_public.connection_mappings.id is 'UUID of the mapping, as repoMappingsUpdate and the repohost tools name it (id is the GraphQL node id).';
comment on column app_public.connection_mappings.workspace_id is 'The workspace the mapping belongs to (the calling key''s: no other is visible).';
comment on column app_public.connection_mappings.kind is 'Always repo: a mapping to a code repository.';
comment on column app_public.connection_mappings.provider is 'The repository host; always github (GitHub or GitHub Enterprise).';
comment on column app_public.connection_mappings.active is 'False pauses the repohost tools for this repository (422 mapping_inactive) without removing it.';
comment on column app_public.connection_mappings.created_at is 'When the repository was mapped.';
comment on column app_public.connection_mappings.updated_at is 'When the mapping last changed.';

-- cycles
comment on column app_public.cycles.id is 'UUID of the cycle (sprint), as the cycles.* tools name it (id is the GraphQL node id).';
comment on column app_public.cycles.workspace_id is 'The workspace the cycle belongs to (the calling key''s: no other is visible).';
comment on column app_public.cycles.number is 'The cycle''s number in the workspace, in order of creation.';
comment on column app_public.cycles.name is 'Display name, 1 to 200 characters (default "Sprint <number>").';
comment on column app_public.cycles.starts_on is 'First day of the cycle (a date, UTC).';
comment on column app_public.cycles.ends_on is 'Last day of the cycle (a date, UTC; never before startsOn).';
comment on column app_public.cycles.status is 'The status as set: PLANNED, ACTIVE (cycles.create with activate), COMPLETED (after a rollover) or CANCELED; currentStatus gives it by the calendar.';
comment on column app_public.cycles.created_at is 'When the cycle was created.';
comment on column app_public.cycles.updated_at is 'When the cycle last changed.';

-- dispatch_rules
comment on column app_public.dispatch_rules.id is 'UUID of the rule, as dispatchRulesUpdate, Reorder and Delete name it (id is the GraphQL node id).';
comment on column app_public.dispatch_rules.workspace_id is 'The workspace the rule belongs to (the calling key''s: no other is visible).';
comment on column app_public.dispatch_rules.name is 'A label for the rule, 1 to 200 characters; null = none.';
comment on column app_public.dispatch_rules.created_at is 'When the rule was added.';
comment on column app_public.dispatch_rules.updated_at is 'When the rule last changed (a move in the order included).';

-- execution_plans
comment on column app_public.execution_plans.id is 'UUID of the plan, as the plans.* and executionPlans.* tools name it (id is the GraphQL node id).';
comment on column app_public.execution_plans.workspace_id is 'The workspace the plan belongs to (the calling key''s: no other is visible).';
comment on column app_public.execution_plans.goal_id is 'The goal this plan is an attempt at.';
comment on column app_public.execution_plans.attempt is 'Which attempt at the goal this is, from 1.';
comment on column app_public.execution_plans.status is 'DRAFT (steps being added), APPROVED, RUNNING, BLOCKED (held, by a review gate or by hand), or final: COMPLETED or CANCELED.';
comment on column app_public.execution_plans.is_active_attempt is 'True for the goal''s current attempt; a new decompose turns the earlier ones false.';
comment on column app_public.execution_plans.planner_agent_id is 'The agent dispatched to plan it (plannerAgentId, else the crew''s PLANNER, else the calling agent); null = none.';
comment on column app_public.execution_plans.context_set_id is 'An opaque label of the context agents should load, passed to them with each step''s dispatch (a step''s own wins); null = none.';
comment on column app_public.execution_plans.auto_judge is 'Whether a step moved to REVIEW gets a judge dispatched automatically; null = yes when the goal''s crew has a REVIEWER.';
comment on column app_public.execution_plans.max_step_retries is 'FAIL verdicts a step may get before it is BLOCKED, 0 to 20 (default 2).';
comment on column app_public.execution_plans.approval_request_id is 'The action request asking to approve the plan (plans.requestApproval); accepting it activates the plan. Null = none asked.';
comment on column app_public.execution_plans.started_at is 'When the plan first started RUNNING; null before.';
comment on column app_public.execution_plans.finished_at is 'When the plan was COMPLETED or CANCELED; null before.';
comment on column app_public.execution_plans.created_at is 'When the plan attempt was created.';
comment on column app_public.execution_plans.updated_at is 'When the plan last changed.';

-- execution_steps
comment on column app_public.execution_steps.id is 'UUID of the step, as the plans.* and executionPlans.* tools name it (id is the GraphQL node id).';
comment on column app_public.execution_steps.workspace_id is 'The workspace the step belongs to (the calling key''s: no other is visible).';
comment on column app_public.execution_steps.plan_id is 'The plan the step belongs to.';
comment on column app_public.execution_steps.position is 'Order of the step in its plan, from 0; unique within the plan.';
comment on column app_public.execution_steps.title is 'What the step is, 1 to 500 characters.';
comment on column app_public.execution_steps.body is 'Instructions for the agent doing it; null = none.';
comment on column app_public.execution_steps.expected_output is 'What the step should produce; null = not said.';
comment on column app_public.execution_steps.verification is 'Checks the result must pass, [{label, done}] (empty = none).';
comment on column app_public.execution_steps.depends_on_step_ids is 'Steps of the same plan that must be DONE before this one becomes READY (empty = a root step).';
comment on column app_public.execution_steps.assigned_agent_id is 'The agent that runs the step: the one named when it was added, else (once READY) the crew member in its assignedRole; null = none yet.';
comment on column app_public.execution_steps.assigned_role is 'The crew role whose member runs the step when no live agent is named (PLANNER, WORKER, REVIEWER, OBSERVER, OPERATOR_PROXY); null = WORKER.';
comment on column app_public.execution_steps.status is 'TODO (waiting on dependencies), READY (dispatched), RUNNING, REVIEW (awaiting a verdict), DONE, BLOCKED (a review gate holds it) or CANCELED.';
comment on column app_public.execution_steps.retry_count is 'FAIL verdicts that sent the step back to READY so far.';
comment on column app_public.execution_steps.last_feedback is 'The feedback of the last FAIL verdict, given to the agent on its retry; null = none.';
comment on column app_public.execution_steps.judge_agent_id is 'The agent dispatched to judge the step (plans.judge, or auto-judging); null = none.';
comment on column app_public.execution_steps.judge_verdict is 'The last verdict: {verdict PASS | FAIL, feedback, score, judgedByAgentId, judgedAt}; null = not judged.';
comment on column app_public.execution_steps.source_run_id is 'The run a move of the step was last reported from (executionPlans.transitionStep sourceRunId, one of the step''s runs); null = none.';
comment on column app_public.execution_steps.context_set_id is 'An opaque label of the context the agent should load, passed with the step''s dispatch; null = the plan''s.';
comment on column app_public.execution_steps.created_at is 'When the step was added.';
comment on column app_public.execution_steps.updated_at is 'When the step last changed.';

-- external_links
comment on column app_public.external_links.id is 'UUID of the link, as the repohost tools name it (id is the GraphQL node id).';
comment on column app_public.external_links.workspace_id is 'The workspace the link belongs to (the calling key''s: no other is visible).';
comment on column app_public.external_links.issue_id is 'The issue linked.';
comment on column app_public.external_links.resource_id is 'The external issue or pull request (its local snapshot) linked to.';
comment on column app_public.external_links.kind is 'SOURCE (the issue was imported from it), IMPLEMENTS, REVIEWS or RELATES_TO; repohost.sync applies status rules to SOURCE and IMPLEMENTS links.';
comment on column app_public.external_links.created_by_user_id is 'The person whose key made the link (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.external_links.created_by_agent_id is 'The agent whose key made the link; null when no agent''s key did.';
comment on column app_public.external_links.created_at is 'When the link was made.';

-- external_resources
comment on column app_public.external_resources.id is 'UUID of the snapshot, as the repohost tools name it (id is the GraphQL node id).';
comment on column app_public.external_resources.workspace_id is 'The workspace the snapshot belongs to (the calling key''s: no other is visible).';
comment on column app_public.external_resources.mapping_id is 'The repository mapping it was last read through; null once that mapping is deleted (it can then no longer be synced).';
comment on column app_public.external_resources.provider is 'The repository host; always github.';
comment on column app_public.external_resources.repo_full_name is 'The repository, owner/name.';
comment on column app_public.external_resources.type is 'issue or pull_request.';
comment on column app_public.external_resources.number is 'Its number in the repository.';
comment on column app_public.external_resources.url is 'Its web address on the host.';
comment on column app_public.external_resources.title is 'Its title as last read; null if the host gave none.';
comment on column app_public.external_resources.state is 'open, closed or merged, as last read from the host; null if the host gave none.';
comment on column app_public.external_resources.synced_at is 'When it was last read from the host (import, link or repohost.sync).';
comment on column app_public.external_resources.created_at is 'When it was first read.';

-- goals
comment on column app_public.goals.id is 'UUID of the goal, as the goals.* and plans.* tools name it (id is the GraphQL node id).';
comment on column app_public.goals.workspace_id is 'The workspace the goal belongs to (the calling key''s: no other is visible).';
comment on column app_public.goals.title is 'The outcome wanted, 1 to 500 characters.';
comment on column app_public.goals.description is 'More about the goal, at most 100,000 characters; null = none.';
comment on column app_public.goals.issue_id is 'The issue the goal serves: its steps'' runs are opened on it, and the goal follows its visibility; null = none.';
comment on column app_public.goals.crew_id is 'The crew that pursues the goal (planner, workers, reviewer); null = none.';
comment on column app_public.goals.status is 'OPEN, PLANNING (a plan is being drafted), ACTIVE (a plan runs), or final: ACHIEVED (every step of the active plan DONE) or ABANDONED.';
comment on column app_public.goals.max_total_cost_usd is 'Cost cap in US dollars over the runs of all its plans'' steps: crossing it blocks the running plan behind a review gate. Null = no cap.';
comment on column app_public.goals.max_wall_time_minutes is 'Time cap in minutes from when the goal became ACTIVE: passing it blocks the running plan behind a review gate. Null = no cap.';
comment on column app_public.goals.started_at is 'When the goal first became ACTIVE (a plan ran); null before.';
comment on column app_public.goals.finished_at is 'When the goal was ACHIEVED or ABANDONED; null before.';
comment on column app_public.goals.abandon_reason is 'Why it was abandoned (goals.abandon reason, or a rejected review gate); null otherwise.';
comment on column app_public.goals.archived_at is 'When the goal was archived (goals.list then leaves it out unless includeArchived); null = not archived. No tool archives goals yet.';
comment on column app_public.goals.created_by_user_id is 'The person whose key created it (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.goals.created_by_agent_id is 'The agent whose key created it; null when no agent''s key did.';
comment on column app_public.goals.created_at is 'When the goal was created.';
comment on column app_public.goals.updated_at is 'When the goal last changed.';

-- initiatives
comment on column app_public.initiatives.id is 'UUID of the initiative, as the initiatives.* tools name it (id is the GraphQL node id).';
comment on column app_public.initiatives.workspace_id is 'The workspace the initiative belongs to (the calling key''s: no other is visible).';
comment on column app_public.initiatives.name is 'Display name, 1 to 200 characters.';
comment on column app_public.initiatives.description is 'What the initiative is about, at most 100,000 characters; null = none.';
comment on column app_public.initiatives.archived_at is 'When the initiative was archived (soft); null = live.';
comment on column app_public.initiatives.created_at is 'When the initiative was created.';
comment on column app_public.initiatives.updated_at is 'When the initiative last changed.';

-- issues
comment on column app_public.issues.id is 'UUID of the issue, as the MCP tools name it (they also take its key; id is the GraphQL node id).';
comment on column app_public.issues.workspace_id is 'The workspace the issue belongs to (the calling key''s: no other is visible).';
comment on column app_public.issues.number is 'The issue''s number in the workspace, from 1.';
comment on column app_public.issues.key is 'Human-readable handle, <workspace key>-<number> (ENG-12); the MCP tools take it in place of the issue''s id.';
comment on column app_public.issues.title is 'One line, 1 to 500 characters.';
comment on column app_public.issues.description is 'The issue''s text, at most 100,000 characters; null = none.';
comment on column app_public.issues.priority is 'NONE (default), LOW, MEDIUM, HIGH or URGENT; priorityRank orders them by urgency.';
comment on column app_public.issues.status_id is 'The issue''s workflow status (its category decides whether it is open, started or done).';
comment on column app_public.issues.project_id is 'The project the issue is in; null = none.';
comment on column app_public.issues.assigned_agent_id is 'The agent assigned to the issue; null = none (before the first assignment, or after unassign).';
comment on column app_public.issues.claim_expires_at is 'When claimedById''s claim lapses (another person may then claim or release it); null = not claimed.';
comment on column app_public.issues.due_date is 'The day the issue is due (a date); null = none.';
comment on column app_public.issues.estimate is 'Size estimate, 0 to 10,000, in a unit the team chooses (the service defines none); a decimal string in GraphQL. Null = none.';
comment on column app_public.issues.sla_minutes is 'Minutes a queued issue may stay open, counted from when it was last queued; past it ISSUE_SLA_BREACH fires. Null = no SLA.';
comment on column app_public.issues.expected_output is 'What finishing the issue should produce, told to the agent that works on it; null = not said.';
comment on column app_public.issues.artifact_required is 'When true, an EXECUTE run completes only with at least one produced artifact (an attachment).';
comment on column app_public.issues.started_at is 'When the issue first reached an IN_PROGRESS, IN_REVIEW or DONE status; null before.';
comment on column app_public.issues.completed_at is 'When the issue reached a DONE or CANCELED status; null while open (cleared when reopened).';
comment on column app_public.issues.deleted_at is 'When the issue was deleted (soft: hidden from reads, restorable with issues.restore); null = live.';
comment on column app_public.issues.created_by_user_id is 'The person whose key created it (for an agent''s key, the key''s owner; for a plugin key, the first member).';
comment on column app_public.issues.created_by_agent_id is 'The agent whose key created it; null when no agent''s key did.';
comment on column app_public.issues.created_at is 'When the issue was created.';
comment on column app_public.issues.updated_at is 'When the issue last changed.';

-- issue_labels
comment on column app_public.issue_labels.workspace_id is 'The workspace the label assignment belongs to (the calling key''s: no other is visible).';
comment on column app_public.issue_labels.issue_id is 'The issue labeled.';
comment on column app_public.issue_labels.label_id is 'The label on it.';
comment on column app_public.issue_labels.created_at is 'When the label was put on the issue.';

-- issue_relations
comment on column app_public.issue_relations.id is 'UUID of the relation, as relations.remove names it (id is the GraphQL node id).';
comment on column app_public.issue_relations.workspace_id is 'The workspace the relation belongs to (the calling key''s: no other is visible).';
comment on column app_public.issue_relations.from_issue_id is 'The issue the link reads from: fromIssue kind toIssue (ENG-4 BLOCKS ENG-5).';
comment on column app_public.issue_relations.to_issue_id is 'The issue the link points to.';
comment on column app_public.issue_relations.kind is 'BLOCKS, DUPLICATES or RELATES_TO (symmetric, stored once); a BLOCKED_BY link is stored as the reverse BLOCKS.';
comment on column app_public.issue_relations.created_by_user_id is 'The person whose key made the link (for an agent''s key, the key''s owner); null for a plugin key.';
comment on column app_public.issue_relations.created_by_agent_id is 'The agent whose key made the link; null when no agent''s key did.';
comment on column app_public.issue_relations.created_at is 'When the link was made.';

-- issue_watchers
comment on column app_public.issue_watchers.id is 'UUID of the watch.';
comment on column app_public.issue_watchers.workspace_id is 'The workspace the watch belongs to (the calling key''s: no other is visible).';
comment on column app_public.issue_watchers.issue_id is 'The issue watched.';
comment on column app_public.issue_watchers.user_id is 'The person watching (a person''s key); null when an agent watches.';
comment on column app_public.issue_watchers.agent_id is 'The agent watching (an agent''s key); null when a person watches.';
comment on column app_public.issue_watchers.created_at is 'When the watch began.';

-- issued_api_key (the result of accessCreate, accessCreatePersonal, accessCreateSession, pluginIssueApiKey)
comment on column app_public.issued_api_key.id is 'UUID of the new key (give it to accessRevoke).';
comment on column app_public.issued_api_key.kind is 'AGENT (acts as its linked agent), PERSONAL or SESSION; plugin keys are PERSONAL with a pluginId.';
comment on column app_public.issued_api_key.scopes is 'What the key may do; FULL holds every scope.';
comment on column app_public.issued_api_key.linked_agent_id is 'AGENT keys: the agent the key acts as; null otherwise.';
comment on column app_public.issued_api_key.name is 'The label given; null = none.';
comment on column app_public.issued_api_key.expires_at is 'After this, calls with the key fail with 401 expired; null = no expiry.';
comment on column app_public.issued_api_key.created_at is 'When the key was issued.';

-- labels
comment on column app_public.labels.id is 'UUID of the label, as the MCP tools name it (id is the GraphQL node id).';
comment on column app_public.labels.workspace_id is 'The workspace the label belongs to (the calling key''s: no other is visible).';
comment on column app_public.labels.name is 'The label''s name, 1 to 100 characters, unique in the workspace regardless of case.';
comment on column app_public.labels.color is 'Color as #RRGGBB (default #64748b).';
comment on column app_public.labels.description is 'What the label means, at most 1,000 characters; null = none.';
comment on column app_public.labels.created_at is 'When the label was created.';
comment on column app_public.labels.updated_at is 'When the label last changed.';

-- memberships
comment on column app_public.memberships.id is 'UUID of the membership.';
comment on column app_public.memberships.workspace_id is 'The workspace (the calling key''s: no other is visible).';
comment on column app_public.memberships.user_id is 'The member.';
comment on column app_public.memberships.role is 'OWNER, ADMIN or MEMBER: OWNER and ADMIN may use the administrative mutations; only an OWNER may grant or take away OWNER.';
comment on column app_public.memberships.created_at is 'When the person joined the workspace.';

-- notes
comment on column app_public.notes.id is 'UUID of the note, as the notes.* tools name it (id is the GraphQL node id).';
comment on column app_public.notes.workspace_id is 'The workspace the note belongs to (the calling key''s: no other is visible).';
comment on column app_public.notes.user_id is 'The note''s owner, the only one who sees it.';
comment on column app_public.notes.kind is 'NOTE (default) or JOURNAL (one day''s journal entry, journalDate).';
comment on column app_public.notes.title is 'Title, at most 500 characters; null = none.';
comment on column app_public.notes.body is 'The note''s Markdown text, at most 200,000 characters (an empty string when there is none).';
comment on column app_public.notes.pinned is 'Whether the owner pinned the note.';
comment on column app_public.notes.journal_date is 'JOURNAL notes: the day the entry is for; null for a NOTE.';
comment on column app_public.notes.archived_at is 'When the note was archived (notes.archive; notesRestore undoes it); null = live.';
comment on column app_public.notes.created_at is 'When the note was created.';
comment on column app_public.notes.updated_at is 'When the note last changed.';

-- notification_preferences
comment on column app_public.notification_preferences.id is 'UUID of the preference.';
comment on column app_public.notification_preferences.user_id is 'The person the preference is for (only they see it).';
comment on column app_public.notification_preferences.event_kind is 'The event kind it is about, such as ISSUE_ASSIGNED.';
comment on column app_public.notification_preferences.enabled is 'Whether the person is notified of that event kind (with no row: yes).';
comment on column app_public.notification_preferences.created_at is 'When the preference was first set.';
comment on column app_public.notification_preferences.updated_at is 'When the preference last changed.';

-- pins
comment on column app_public.pins.id is 'UUID of the pin, as pinsReorder names it (id is the GraphQL node id).';
comment on column app_public.pins.workspace_id is 'The workspace the pin belongs to (the calling key''s: no other is visible).';
comment on column app_public.pins.user_id is 'The person who pinned it (a pin is theirs alone).';
comment on column app_public.pins.target_type is 'What is pinned: ISSUE (MCP pins.*), or PROJECT, INITIATIVE, SAVED_VIEW, CYCLE or AGENT (in-app pinsAdd).';
comment on column app_public.pins.target_id is 'The id of the pinned record (targetType says which kind).';
comment on column app_public.pins.position is 'Order among the person''s pins, 0 first.';
comment on column app_public.pins.created_at is 'When it was pinned.';

-- plugin_info (the rows of plugins, pluginsCreate, pluginsSetSkills)
comment on column app_public.plugin_info.id is 'UUID of the plugin record (pluginIssueApiKey and pluginsSetSkills take it).';
comment on column app_public.plugin_info.name is 'The plugin''s name, 1 to 200 characters.';
comment on column app_public.plugin_info.approved_at is 'When the plugin was approved; keys are issued only under an approved plugin (pluginsCreate approves it at once).';
comment on column app_public.plugin_info.created_at is 'When the plugin was recorded.';
comment on column app_public.plugin_info.skills is 'manifest.skills: what skills.invoke may call, [{name, description, inputSchema}] ([] = none).';

-- projects
comment on column app_public.projects.id is 'UUID of the project, as the MCP tools name it (id is the GraphQL node id).';
comment on column app_public.projects.workspace_id is 'The workspace the project belongs to (the calling key''s: no other is visible).';
comment on column app_public.projects.name is 'Display name, 1 to 200 characters.';
comment on column app_public.projects.description is 'What the project is about, at most 100,000 characters; null = none.';
comment on column app_public.projects.archived_at is 'When the project was archived (soft: new issues cannot use it; its issues keep it); null = live.';
comment on column app_public.projects.created_at is 'When the project was created.';
comment on column app_public.projects.updated_at is 'When the project last changed.';

-- review_gates
comment on column app_public.review_gates.id is 'UUID of the gate, as the reviewGates.* tools name it (id is the GraphQL node id).';
comment on column app_public.review_gates.workspace_id is 'The workspace the gate belongs to (the calling key''s: no other is visible).';
comment on column app_public.review_gates.plan_id is 'The plan the gate holds (or whose step it holds).';
comment on column app_public.review_gates.step_id is 'The step the gate holds (BLOCKED until resolved); null when it holds the whole plan.';
comment on column app_public.review_gates.reason is 'Why it opened: STEP_BLOCKED (a step failed review too often or was blocked), BUDGET_COST or BUDGET_WALL_TIME (the goal''s cap was crossed), MANUAL (reviewGates.open).';
comment on column app_public.review_gates.title is 'What is to be reviewed (given to reviewGates.open, or written by the loop).';
comment on column app_public.review_gates.details is 'Facts behind it, by reason: {feedback, retryCount}, {note}, or {totalCostUsd, maxTotalCostUsd, maxWallTimeMinutes, startedAt, runId}.';
comment on column app_public.review_gates.status is 'PENDING, or final: APPROVED (the step or plan continues), REJECTED (the goal is abandoned) or CANCELED (its plan ended first).';
comment on column app_public.review_gates.opened_by_user_id is 'The person whose key opened it, by hand or by a call that tripped it (for an agent''s key, the key''s owner); null when no person''s key did.';
comment on column app_public.review_gates.opened_by_agent_id is 'The agent whose key opened it; null when no agent''s key did.';
comment on column app_public.review_gates.resolved_by_user_id is 'The person whose key resolved or canceled it (for an agent''s key, the key''s owner); null while PENDING or when no person''s key did.';
comment on column app_public.review_gates.resolved_at is 'When it left PENDING; null while pending.';
comment on column app_public.review_gates.resolution_note is 'The note given when it was resolved; null = none.';
comment on column app_public.review_gates.created_at is 'When the gate opened.';
comment on column app_public.review_gates.updated_at is 'When the gate last changed.';

-- runtimes
comment on column app_public.runtimes.id is 'UUID of the runtime, as the runtimes.* tools name it (id is the GraphQL node id).';
comment on column app_public.runtimes.workspace_id is 'The workspace the runtime belongs to (the calling key''s: no other is visible).';
comment on column app_public.runtimes.name is 'Display name, 1 to 200 characters.';
comment on column app_public.runtimes.kind is 'LOCAL_DAEMON, REMOTE_HTTP or CLOUD.';
comment on column app_public.runtimes.providers_available is 'The agent clients it can run: CUSTOM, CLAUDE, CODEX, HERMES.';
comment on column app_public.runtimes.heartbeat_at is 'Its last runtimes.heartbeat (or re-registration); null = none yet.';
comment on column app_public.runtimes.archived_at is 'When the runtime was archived; null = live (no tool archives one today; runtimes.register with its runtimeId restores one).';
comment on column app_public.runtimes.created_at is 'When the runtime was registered.';
comment on column app_public.runtimes.updated_at is 'When the runtime last changed.';

-- statuses
comment on column app_public.statuses.id is 'UUID of the status (issues.transition takes it; id is the GraphQL node id).';
comment on column app_public.statuses.workspace_id is 'The workspace the status belongs to (the calling key''s: no other is visible).';
comment on column app_public.statuses.name is 'Display name, 1 to 100 characters, unique in the workspace regardless of case.';
comment on column app_public.statuses.category is 'What the status means to the service: BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE or CANCELED (DONE and CANCELED close an issue).';
comment on column app_public.statuses.color is 'Color as #RRGGBB (default #94a3b8).';
comment on column app_public.statuses.position is 'Order on the board, 0 first.';
comment on column app_public.statuses.is_default is 'The status a new issue gets when none is given; exactly one per workspace.';
comment on column app_public.statuses.created_at is 'When the status was created.';

-- time_entries
comment on column app_public.time_entries.id is 'UUID of the entry, as the time.* tools name it (id is the GraphQL node id).';
comment on column app_public.time_entries.workspace_id is 'The workspace the entry belongs to (the calling key''s: no other is visible).';
comment on column app_public.time_entries.user_id is 'The person whose time it is.';
comment on column app_public.time_entries.started_at is 'When the timer started, or the logged work began.';
comment on column app_public.time_entries.ended_at is 'When the work ended; null while the timer runs.';
comment on column app_public.time_entries.duration_min is 'Whole minutes spent; null while the timer runs.';
comment on column app_public.time_entries.note is 'What the time was spent on; null = none.';
comment on column app_public.time_entries.created_at is 'When the entry was created.';

-- users
comment on column app_public.users.id is 'UUID of the person (userId elsewhere).';
comment on column app_public.users.email is 'The person''s email address, unique regardless of case.';
comment on column app_public.users.name is 'Display name (the part of the email before @ when the person was added).';
comment on column app_public.users.image_url is 'Address of the person''s avatar image; null = none (the service sets none itself).';

-- webhooks
comment on column app_public.webhooks.id is 'UUID of the webhook, as webhooksUpdate, Delete and RotateSecret name it (id is the GraphQL node id).';
comment on column app_public.webhooks.workspace_id is 'The workspace the webhook belongs to (the calling key''s: no other is visible).';
comment on column app_public.webhooks.url is 'Where deliveries are POSTed: an http(s) URL without credentials, at most 2,048 characters.';
comment on column app_public.webhooks.description is 'A note about the webhook, at most 500 characters; null = none.';
comment on column app_public.webhooks.deactivated_at is 'When it was last made inactive (by an admin, or because the endpoint answered 410 Gone); null while active.';
comment on column app_public.webhooks.deactivated_reason is 'Why it was made inactive: deactivated by an admin, or endpoint answered 410 Gone; null while active.';
comment on column app_public.webhooks.created_at is 'When the webhook was registered.';
comment on column app_public.webhooks.updated_at is 'When the webhook last changed.';

-- webhook_deliveries
comment on column app_public.webhook_deliveries.id is 'UUID of the delivery (webhookDeliveriesRetry takes it; id is the GraphQL node id).';
comment on column app_public.webhook_deliveries.workspace_id is 'The workspace the delivery belongs to (the calling key''s: no other is visible).';
comment on column app_public.webhook_deliveries.event_id is 'The event delivered.';
comment on column app_public.webhook_deliveries.webhook_id is 'The webhook it goes to; null for an agent''s dispatch delivery.';
comment on column app_public.webhook_deliveries.agent_id is 'Agent dispatch deliveries: the agent whose webhookUrl it goes to; null for a webhook''s delivery.';
comment on column app_public.webhook_deliveries.status is 'PENDING (queued or retrying), DELIVERED (a 2xx answer), DEAD_LETTER (every retry failed; webhookDeliveriesRetry requeues it) or CANCELED (its target became inactive or gone).';
comment on column app_public.webhook_deliveries.next_attempt_at is 'PENDING: when the next attempt is due (retries after 5 s, 1 min, 10 min, 1 h, 6 h and 24 h).';
comment on column app_public.webhook_deliveries.total_attempts is 'Attempts made in all, across retry rounds.';
comment on column app_public.webhook_deliveries.last_status_code is 'HTTP status of the last answer; null when there was none (a network error or timeout) or no attempt yet.';
comment on column app_public.webhook_deliveries.last_error is 'What went wrong last (an HTTP status, a network error, a deactivated target); null after success or before any attempt.';
comment on column app_public.webhook_deliveries.delivered_at is 'When a 2xx answer came; null until delivered.';
comment on column app_public.webhook_deliveries.dead_lettered_at is 'When the retries ran out; null unless DEAD_LETTER.';
comment on column app_public.webhook_deliveries.created_at is 'When the delivery was queued (with its event).';
comment on column app_public.webhook_deliveries.updated_at is 'When the delivery last changed.';

-- webhook_delivery_attempts
comment on column app_public.webhook_delivery_attempts.id is 'UUID of the attempt.';
comment on column app_public.webhook_delivery_attempts.workspace_id is 'The workspace the attempt belongs to (the calling key''s: no other is visible).';
comment on column app_public.webhook_delivery_attempts.delivery_id is 'The delivery attempted.';
comment on column app_public.webhook_delivery_attempts.attempt_number is 'Which attempt of the delivery this was, from 1, across retry rounds.';
comment on column app_public.webhook_delivery_attempts.url is 'The URL POSTed to.';
comment on column app_public.webhook_delivery_attempts.started_at is 'When the request was sent.';
comment on column app_public.webhook_delivery_attempts.duration_ms is 'How long the attempt took, in milliseconds.';
comment on column app_public.webhook_delivery_attempts.status_code is 'The HTTP status answered; null when no answer came (see error).';
comment on column app_public.webhook_delivery_attempts.error is 'Why the attempt failed without an answer (network error, timeout, the worker stopping), at most 1,000 characters; null otherwise.';
comment on column app_public.webhook_delivery_attempts.response_body is 'The first 2,048 characters of the answer''s body; null = none.';
comment on column app_public.webhook_delivery_attempts.created_at is 'When the attempt was recorded.';

-- workspaces
comment on column app_public.workspaces.id is 'UUID of the workspace.';
comment on column app_public.workspaces.slug is 'URL-friendly name: 1 to 63 of a-z, 0-9 and -, starting with a letter or digit; unique.';
comment on column app_public.workspaces.name is 'Display name, 1 to 200 characters.';
comment on column app_public.workspaces.cycle_length_days is 'Default length of a new cycle in days, 1 to 365 (default 14).';
comment on column app_public.workspaces.cycle_cooldown_days is 'Days left free between cycles when the next one is scheduled, 0 to 365 (default 0).';
comment on column app_public.workspaces.time_tracking_enabled is 'Whether the time.* tools work; false makes them fail with 403 time_tracking_disabled.';
comment on column app_public.workspaces.attachment_quota_mb is 'Attachment storage of the workspace in MB (finalized files and open uploads), default 1,024; 0 allows no uploads.';
comment on column app_public.workspaces.auto_dispatch is 'Whether the dispatcher hands queued, unassigned issues to agents (default false).';
comment on column app_public.workspaces.auto_dispatch_mode is 'How the dispatcher picks an agent when no dispatch rule decides: ROUND_ROBIN (least recently dispatched), PRIORITY_MATCH (capabilities include the priority), CAPABILITY_MATCH (most labels among the capabilities); MANUAL_ONLY turns automatic dispatch off, rules included.';
comment on column app_public.workspaces.assignment_sla_minutes is 'Minutes an assigned open issue may go without activity (a status change, a comment or run report of its agent) before ISSUE_STALLED fires; 0 = off.';
comment on column app_public.workspaces.agent_run_stale_minutes is 'Minutes without a sign of life after which an ACTIVE run becomes STALLED and an ONLINE or BUSY agent OFFLINE (at least 1, default 30).';
comment on column app_public.workspaces.created_at is 'When the workspace was created.';
comment on column app_public.workspaces.updated_at is 'When the workspace last changed.';
