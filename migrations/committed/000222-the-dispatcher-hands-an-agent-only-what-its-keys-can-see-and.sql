--! Previous: sha1:86fa56e7a30f8b7469d1264bc0740b4c1422f359
--! Hash: sha1:4f36a155fb0847a72b1939c186c25d3cc5f190fa
--! Message: The dispatcher hands an agent only what its keys can see and never gives back what it gave up; a resumed plan re-dispatches its READY steps

--! split: 1-current.sql
-- From a probe of a team's agent fleet at work:
-- * The dispatcher gives an agent only issues one of its keys can see (a project-narrowed agent was handed another
--   project's issue it could neither read nor work, and it held the agent's one slot); assigning, handing off or
--   accepting an assignment to such an agent is 409 agent_cannot_see_issue, and so is a chat about such an issue
--   (the agent's webhook was sent the messages of a thread it could not read).
-- * An agent that unassigns itself gives the issue back: the dispatcher does not hand it to that agent again while
--   it stays queued (it did, 17 times in 10 s).
-- * A blocked plan that runs again dispatches its READY steps to their workers again.
-- * agents.heartbeat says that presence expires.
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
  -- An agent acts through its keys: it sees an issue when one of its live keys does (spec 5.6), or when it has no live
  -- key at all (one driven only by its dispatch webhook, whose payload is all it gets).
  with live as (
    select k.project_ids, k.label_ids from app_private.api_keys k
    where k.linked_agent_id = p_agent_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > now()))
  select not exists (select 1 from live)
      or exists (select 1 from live
                 where (cardinality(live.project_ids) = 0 and cardinality(live.label_ids) = 0)
                    or p_issue.project_id = any(live.project_ids)
                    or p_issue.label_ids && live.label_ids)
$$;
comment on function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues) is 'Whether the agent can read the issue through one of its live keys (their project or label narrowing), or has no live key. The dispatcher gives an agent only what it can see; assigning or chatting about an issue it cannot see is refused.';
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
--! Included issues/tools/assign.sql
-- The issues.assign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- assigns an agent (agentId or profileKey; archived → 400 agent_archived). ISSUE_ASSIGNED + AGENT_ASSIGNED
-- (reason manual, auto false); opens an ACTIVE run (mode, default EXECUTE) and abandons the previous agent's
-- open run. Run-mode gated.
create or replace function app_tools.issues_assign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_field text := case when args ? 'agentId' then 'agentId' else 'profileKey' end;
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', v_field, args->>'profileKey');
  v_open app_public.agent_runs;
begin
  -- Same agent with an open run: nothing to do, unless another mode is asked for (the open run keeps its mode, so
  -- a silent success would leave the caller believing the agent now researches). Same agent without one: a fresh
  -- run (re-engagement).
  v_open := app_hidden.agent_open_run(v_issue.id, v_agent.id);
  if v_issue.assigned_agent_id = v_agent.id and v_open.id is not null then
    if args->>'mode' is not null and args->>'mode' <> v_open.engagement_mode then
      raise exception 'Agent % already has an open % run on this issue: it ends with runs.complete (or runs.cancel), then assign the agent in % mode',
        v_agent.profile_key, v_open.engagement_mode, args->>'mode' using errcode = 'SV409', detail = 'run_open';
    end if;
  else
    perform app_hidden.require_agent_sees_issue(v_agent, v_issue, v_field);
    perform app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'manual');
  end if;
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true)
    || jsonb_build_object('currentRun', (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
end
$$;
comment on function app_tools.issues_assign(args jsonb) is 'issues.assign: Assign an agent (agentId or profileKey) to an issue. Opens an ACTIVE run for it (mode, default EXECUTE) and abandons the previous agent''s open run; writes ISSUE_ASSIGNED and AGENT_ASSIGNED. Archived agents: 400; an agent none of whose keys can see the issue (their project or label narrowing): 409 agent_cannot_see_issue.';
grant execute on function app_tools.issues_assign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/assign.sql
--! Included issues/tools/reassign.sql
-- The issues.reassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one transaction: HANDOFF comment "Handoff → @<profileKey>: <rationale>", the swap, ISSUE_ASSIGNED and
-- AGENT_ASSIGNED {reason handoff, rationale, commentId}; new ACTIVE run, previous open run abandoned. 400 for
-- an archived or the same agent, or a rationale under 10 characters. Run-mode gated.
create or replace function app_tools.issues_reassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_agent app_public.agents := app_hidden.find_live_agent(null, 'toProfileKey', args->>'toProfileKey');
  v_rationale text := btrim(args->>'rationale');
  v_comment_id uuid;
  v_run_id uuid;
begin
  if v_issue.assigned_agent_id = v_agent.id then
    raise exception 'The issue is already assigned to %', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'same_agent';
  end if;
  perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'toProfileKey');
  if length(coalesce(v_rationale, '')) < 10 then
    perform app_hidden.raise_invalid('rationale', 'rationale must be at least 10 characters');
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, format('Handoff → @%s: %s', v_agent.profile_key, v_rationale), 'HANDOFF',
          app_hidden.current_user_id(), app_hidden.current_agent_id(),
          (select r.id from app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id()) r))
  returning id into v_comment_id;
  v_run_id := app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'handoff', v_rationale, v_comment_id);
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true) || jsonb_build_object(
    'handoffCommentId', v_comment_id,
    'currentRun', (select app_hidden.run_json(r) from app_public.agent_runs r where r.id = v_run_id));
end
$$;
comment on function app_tools.issues_reassign(args jsonb) is 'issues.reassign: Hand an issue off to another agent in one step: posts the comment "Handoff → @<profileKey>: <rationale>", swaps the assignee, opens the new agent''s run and writes AGENT_ASSIGNED (reason handoff). 400 for an archived or the same agent; 409 agent_cannot_see_issue for one none of whose keys can see the issue; rationale at least 10 characters.';
grant execute on function app_tools.issues_reassign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/reassign.sql
--! Included issues/tools/unassign.sql
-- The issues.unassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes the issue from its agent: the agent's open runs on it end (ABANDONED, reason unassigned) and assignedAgentId
-- is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue is back in the dispatcher's pool. Not assigned:
-- no change. Run-mode gated, as assignment is.
create or replace function app_tools.issues_unassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.assigned_agent_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  perform app_hidden.end_agent_runs_on_issue(v_issue, v_issue.assigned_agent_id, 'unassigned');
  if app_hidden.current_agent_id() = v_issue.assigned_agent_id then
    -- The agent gives the issue back: the dispatcher handed it straight back to it, 17 times in 10 s (fleet probe).
    update app_public.agent_runs r set completion_meta = coalesce(r.completion_meta, '{}') || jsonb_build_object('returnedAt', now())
    where r.workspace_id = v_issue.workspace_id and r.issue_id = v_issue.id and r.agent_id = v_issue.assigned_agent_id
      and r.status = 'ABANDONED' and r.finished_at = now();
  end if;
  update app_public.issues set assigned_agent_id = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives the issue back: while it stays queued the dispatcher hands it to other agents, not to this one again (its ended runs say returnedAt in completionMeta; a person may still assign it). Not assigned: unchanged. Returns the full issue.';
--! EndIncluded issues/tools/unassign.sql
--! Included actionRequests/machine.sql
-- actionRequests: the request machine, who may decide, creating a request and its bound dispatch.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_action_request(p_id text, p_field text default 'id'::text, p_lock boolean default false)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests;
begin
  select * into v from app_public.action_requests
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Action request not found' using errcode = 'SV404', column = p_field;
  end if;
  if p_lock then
    select * into v from app_public.action_requests where id = v.id for update;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) is 'An action request the key can see (a request on an issue follows its narrowing), locked FOR UPDATE on request; else 404.';
grant execute on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) to svc_visitor;

create or replace function app_hidden.action_request_move(p_request app_public.action_requests, p_to text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v app_public.action_requests;
  v_closing boolean := p_to in ('RESOLVED', 'DISMISSED', 'REJECTED', 'SUPERSEDED');
begin
  perform app_hidden.assert_move('action-request', 'Action request', p_request.status, p_to);
  update app_public.action_requests
  set status = p_to,
      resolved_at = case when v_closing then now() end,
      resolved_by_user_id = case when v_closing then app_hidden.current_user_id() end,
      resolved_by_agent_id = case when v_closing then app_hidden.current_agent_id() end,
      -- A poll closed undecided takes no more votes (vote refuses closed requests): its voting is closed with it,
      -- without a winner (closeVoting names one).
      voting_closed_at = case when v_closing and options is not null then coalesce(voting_closed_at, now()) else voting_closed_at end
  where id = p_request.id
  returning * into v;  -- ISSUE_UPDATED (action-request, change status) by trigger
  return v;
end
$$;
comment on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) is 'The request machine (shared decisions): OPEN → RESOLVED | DISMISSED | SNOOZED | REJECTED | SUPERSEDED, SNOOZED → OPEN or any of those; closed states are terminal (409 illegal_transition). Closing a poll closes its voting (votingClosedAt; no winner unless closeVoting ran).';
grant execute on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) to svc_visitor;

create or replace function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v app_public.action_requests;
begin
  for v in select * from app_public.action_requests r
           where r.workspace_id = app_hidden.current_workspace_id()
             and r.source_type = p_source_type and r.source_id = p_source_id and r.status in ('OPEN', 'SNOOZED')
           for update loop
    perform app_hidden.action_request_move(v, 'SUPERSEDED');
  end loop;
end
$$;
comment on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) is 'SUPERSEDEs the open requests raised for a source (a plan''s earlier approval requests once it is activated, canceled or asked again). As the owner: those of a deleted issue, hidden from keys, are superseded too (they would come back open with the issue).';
grant execute on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_may_decide(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- Every branch is coalesced to a boolean: a key without an agent (or a plugin key without a user) compares as
  -- NULL, and NULL here would make `if not ...` pass the caller through.
  select coalesce(p_request.assigned_agent_id is not null
                  and p_request.assigned_agent_id is not distinct from app_hidden.current_agent_id(), false)
      or coalesce(p_request.assigned_user_id is not null and app_hidden.current_agent_id() is null
                  and p_request.assigned_user_id is not distinct from app_hidden.current_user_id(), false)
      or coalesce(p_request.issue_id is not null and exists (
            select 1 from app_public.issue_watchers w
            where w.issue_id = p_request.issue_id
              and case when app_hidden.current_agent_id() is not null then w.agent_id = app_hidden.current_agent_id()
                       else w.user_id = app_hidden.current_user_id() end), false)
      -- OWNER/ADMIN is the membership role (spec 2.8) of a person: a key with no linked agent whose own user has
      -- that role. The ADMIN scope alone does not make a MEMBER (or an agent) an OWNER/ADMIN.
      or coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
$$;
comment on function app_hidden.action_request_may_decide(p_request app_public.action_requests) is 'accept/decline gate (spec 3.6, 4.11): the assignee (the assigned agent''s own key, or the assigned user''s key acting as a person), a watcher of the request''s issue (as the key watches: agent or user), or a person (key with no linked agent) whose workspace role is OWNER or ADMIN. The ADMIN scope alone grants nothing here. Never NULL.';
grant execute on function app_hidden.action_request_may_decide(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- `is not distinct from`: a key without an agent (or without a user) must compare false, not NULL
  -- (`if not NULL` would let it through).
  -- A requester gone (an agent archived, a person no longer a member) counts as none: a moderator closes the poll,
  -- which nobody else could.
  -- An agent's request also names the user whose key the agent used: the agent is the requester, and once it is
  -- archived the request is a moderator's (that user's own key got it instead).
  select coalesce(case
    when p_request.requested_by_agent_id is not null then
      case when exists (select 1 from app_public.agents a where a.id = p_request.requested_by_agent_id and a.archived_at is null)
           then p_request.requested_by_agent_id is not distinct from app_hidden.current_agent_id()
           else app_hidden.caller_may_moderate() end
    when p_request.requested_by_user_id is not null then
      case when exists (select 1 from app_public.memberships m
                        where m.workspace_id = p_request.workspace_id and m.user_id = p_request.requested_by_user_id)
           then app_hidden.current_agent_id() is null and p_request.requested_by_user_id is not distinct from app_hidden.current_user_id()
           else app_hidden.caller_may_moderate() end
    else app_hidden.caller_may_moderate() end, false)
$$;
comment on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) is 'Whether the calling key speaks for the requester: the requesting agent''s own key, or the requesting person''s key acting as a person (no linked agent); a request without a requester (raised by the system), or whose requester is gone (agent archived, person no longer a member), counts as a workspace OWNER/ADMIN person''s. Never NULL. closeVoting and update use it.';
grant execute on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_self_decision(p_request app_public.action_requests)
 returns text
 language sql
 stable
as $$
  -- Nobody decides what they asked for, even as its assignee or a watcher of its issue (a planner would approve its
  -- own plan, a worker accept the move it asked someone to make): the requester only withdraws it. A workspace
  -- OWNER/ADMIN person may, as they may make the change directly. Nor is a plan's approval decided from inside the
  -- plan (its planner re-pointed its request at a worker).
  select case
    when (p_request.requested_by_agent_id is not null or p_request.requested_by_user_id is not null)
         and app_hidden.action_request_caller_is_requester(p_request)
         and not coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
      then 'own_request'
    when p_request.source_type = 'execution-plan' and app_hidden.caller_works_in_plan(p_request.source_id)
      then 'own_plan' end
$$;
comment on function app_hidden.action_request_self_decision(p_request app_public.action_requests) is 'Why the calling key may not decide this request though it may otherwise: own_request (it asked for it and is not a workspace OWNER/ADMIN person; it may withdraw it) or own_plan (an agent working in the plan a plan approval is about); NULL when neither.';
grant execute on function app_hidden.action_request_self_decision(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_source_visible(p_type text, p_id uuid)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Under the caller's policies: a record of another workspace, or one the key's narrowing hides, is not there.
  -- One statement per type (plpgsql, plans kept): a CASE over seven EXISTS would plan all seven, policies included.
  case p_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_id and i.deleted_at is null);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_id);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_id);
    when 'action-request' then return exists (select 1 from app_public.action_requests a where a.id = p_id);
    else return true;
  end case;
end
$$;
comment on function app_hidden.action_request_source_visible(p_type text, p_id uuid) is 'Whether an action request''s source of a kind the service keeps (issue, comment, goal, execution-plan, execution-step, agent-run, action-request) is a record the caller can see; any other sourceType is the caller''s own label (true).';
grant execute on function app_hidden.action_request_source_visible(p_type text, p_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text default ''::text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_kind text := coalesce(args->>'kind', 'FREE_FORM');
  v_payload jsonb := coalesce(args->'payload', '{}');
  v_user uuid;
  v_agent uuid;
  v_req app_public.action_requests;
  v_keys text[];
  v_duplicate uuid;
begin
  if v_kind <> 'FREE_FORM' and p_issue_id is null then
    perform app_hidden.raise_invalid(p_field || 'issueId', format('a %s request acts on an issue: give issueId', v_kind));
  end if;
  -- Said plainly before the insert policy refuses it as a bare 403 forbidden.
  if p_issue_id is null then
    perform app_hidden.require_unnarrowed('A request without an issue is the whole workspace''s; give issueId of an issue this key sees');
  end if;
  if v_kind = 'TRANSITION' then
    if not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  elsif v_kind = 'SET_LABELS' then
    if (select count(*) from app_public.labels l where l.workspace_id = v_ws and l.id = any(
          app_hidden.uuid_array(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]'), p_field || 'payload')))
       <> (select count(distinct e) from jsonb_array_elements_text(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]')) e) then
      raise exception 'Label not found' using errcode = 'SV404', column = p_field || 'payload';
    end if;
  elsif v_kind = 'ASSIGN_AGENT' then
    perform app_hidden.find_live_agent(v_payload->>'agentId', p_field || 'payload.agentId');
  elsif v_kind = 'CLOSE_AS_DUPLICATE' then
    v_duplicate := (app_hidden.find_issue(v_payload->>'duplicateOfIssueId', p_field || 'payload.duplicateOfIssueId')).id;
    if v_duplicate = p_issue_id then
      perform app_hidden.raise_invalid(p_field || 'payload.duplicateOfIssueId', 'an issue cannot duplicate itself');
    end if;
    -- Stored as the issue's id, however it was named: readers show it through with_visible_issue.
    v_payload := jsonb_set(v_payload, '{duplicateOfIssueId}', to_jsonb(v_duplicate));
    if v_payload->>'statusId' is not null and not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  end if;
  if args->>'assignedUserId' is not null then
    select m.user_id into v_user from app_public.memberships m
    where m.workspace_id = v_ws and m.user_id = app_hidden.parse_uuid(args->>'assignedUserId', p_field || 'assignedUserId');
    if v_user is null then
      raise exception 'User not found in this workspace' using errcode = 'SV404', column = p_field || 'assignedUserId';
    end if;
  end if;
  if args->>'assignedAgentId' is not null then
    v_agent := (app_hidden.find_live_agent(args->>'assignedAgentId', p_field || 'assignedAgentId')).id;
  end if;
  if args->'options' is not null and jsonb_typeof(args->'options') = 'array' then
    select array_agg(o->>'key') into v_keys from jsonb_array_elements(args->'options') o;
    if cardinality(v_keys) <> (select count(distinct k) from unnest(v_keys) k) then
      perform app_hidden.raise_invalid(p_field || 'options', 'option keys must be unique');
    end if;
  end if;
  -- A source of a kind this service keeps must be one the key can see (404 otherwise, as for every id); other
  -- sourceTypes are the caller's own labels and their sourceId is kept as given.
  if args->>'sourceId' is not null and not app_hidden.action_request_source_visible(
       args->>'sourceType', app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId')) then
    raise exception 'Source not found' using errcode = 'SV404', column = p_field || 'sourceId';
  end if;
  insert into app_public.action_requests (workspace_id, title, body, severity, kind, payload, assigned_user_id, assigned_agent_id,
                                          issue_id, comment_id, due_at, source_type, source_id, options,
                                          requested_by_user_id, requested_by_agent_id)
  values (v_ws, args->>'title', args->>'body', coalesce(args->>'severity', 'INFO'), v_kind, v_payload, v_user, v_agent,
          p_issue_id, p_comment_id, (args->>'dueAt')::timestamptz, args->>'sourceType',
          app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId'),
          case when jsonb_typeof(args->'options') = 'array' then args->'options' end,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_req;  -- ISSUE_UPDATED (action-request, change created) by trigger
  return v_req;
end
$$;
comment on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) is 'Creates an action request (actionRequests.create, comments.create''s actionRequest bundle): checks the bound dispatch''s payload refers to real statuses, labels, agents and issues, the assignee is a member or agent, option keys are unique. The caller is the requester.';
grant execute on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.action_request_dispatch(p_request app_public.action_requests)
 returns jsonb
 language plpgsql
as $$
declare
  v_payload jsonb := p_request.payload;
  v_issue app_public.issues;
  v_agent app_public.agents;
  v_dup app_public.issues;
  v_remove uuid[];
  v_status uuid;
  v_plan app_public.execution_plans;
begin
  if p_request.kind = 'FREE_FORM' then
    if p_request.source_type = 'execution-plan' and p_request.source_id is not null then
      v_plan := app_hidden.find_plan(p_request.source_id::text, 'id');
      -- Only the plan's own approval request (plans.requestApproval) starts it: any card may name a plan as its
      -- source, and accepting one titled "FYI" must not set workers going.
      if v_plan.approval_request_id = p_request.id then
        return jsonb_build_object('action', 'activate_plan', 'planId', v_plan.id,
                                  'readyStepIds', to_jsonb(app_hidden.plan_activate(v_plan)));
      end if;
    end if;
    return jsonb_build_object('action', 'none');
  end if;
  if p_request.kind = 'CLOSE_AS_DUPLICATE' then
    -- relations.add below takes this lock; taken after the issue's row lock it could deadlock with a concurrent
    -- relations.add that holds it and waits on that row (its foreign-key check).
    perform app_hidden.lock_directed_relations('DUPLICATES');
  end if;
  -- The same entry as the direct issue tools: visibility, row lock and run-mode gating.
  v_issue := app_hidden.issue_for_write(p_request.issue_id::text, 'issueId');
  -- What the payload names and was deleted since is a 404 on the payload's own field, as for CLOSE_AS_DUPLICATE's
  -- issue and ASSIGN_AGENT's agent (the direct tools below would name their own inputs, statusId and labelIds,
  -- which accept does not take).
  if p_request.kind in ('TRANSITION', 'CLOSE_AS_DUPLICATE') and v_payload->>'statusId' is not null
     and not exists (select 1 from app_public.statuses s
                     where s.workspace_id = v_issue.workspace_id and s.id = (v_payload->>'statusId')::uuid) then
    raise exception 'Status not found' using errcode = 'SV404', column = 'payload.statusId';
  elsif p_request.kind = 'SET_LABELS' and exists (
          select 1 from jsonb_array_elements_text(coalesce(v_payload->'add', '[]')) x(id)
          where not exists (select 1 from app_public.labels l where l.workspace_id = v_issue.workspace_id and l.id = x.id::uuid)) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'payload.add';
  end if;
  if p_request.kind = 'TRANSITION' then
    v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_payload->>'statusId'));
    return jsonb_build_object('action', 'transition', 'issueId', v_issue.id, 'statusId', v_issue.status_id);
  elsif p_request.kind = 'SET_LABELS' then
    perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(v_payload->'add', 'payload.add'), null);
    v_remove := app_hidden.uuid_array(v_payload->'remove', 'payload.remove');
    delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'set_labels', 'issueId', v_issue.id,
      'labelIds', to_jsonb(v_issue.label_ids));
  elsif p_request.kind = 'ASSIGN_AGENT' then
    v_agent := app_hidden.find_live_agent(v_payload->>'agentId', 'payload.agentId');
    if not (v_issue.assigned_agent_id is not distinct from v_agent.id and exists (
          select 1 from app_public.agent_runs r where r.issue_id = v_issue.id and r.agent_id = v_agent.id
            and r.status in ('ACTIVE', 'WAITING', 'STALLED'))) then
      perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'payload.agentId');
      perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', 'manual');
    end if;
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'assign_agent', 'issueId', v_issue.id, 'agentId', v_agent.id);
  elsif p_request.kind = 'CLOSE_AS_DUPLICATE' then
    v_dup := app_hidden.find_issue(v_payload->>'duplicateOfIssueId', 'payload.duplicateOfIssueId');
    perform app_tools.relations_add(jsonb_build_object('fromIssueId', v_issue.id, 'toIssueId', v_dup.id, 'kind', 'DUPLICATES'));
    v_status := coalesce((v_payload->>'statusId')::uuid, (
      select s.id from app_public.statuses s where s.workspace_id = v_issue.workspace_id and s.category = 'CANCELED'
      order by s.position limit 1));
    if v_status is not null then
      v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status));
    end if;
    return jsonb_build_object('action', 'close_as_duplicate', 'issueId', v_issue.id, 'duplicateOfIssueId', v_dup.id,
                              'statusId', v_issue.status_id);
  end if;
  return jsonb_build_object('action', 'none');
end
$$;
comment on function app_hidden.action_request_dispatch(p_request app_public.action_requests) is 'The bound dispatch run by accept, through the same SQL and gates as the direct tools (issue_for_write: visibility, lock, run-mode gating; update_issue, set_issue_labels, assign_issue_agent, relations.add): TRANSITION {statusId}, SET_LABELS {add, remove}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId? (default the first CANCELED status)}; FREE_FORM: a plan''s own approval request (plans.requestApproval, execution_plans.approval_request_id) activates the plan; any other does nothing. A status or label (to add) of the payload deleted since is a 404 naming payload.statusId / payload.add; an archived agent is 400 agent_archived on payload.agentId, as issues.assign answers.';
grant execute on function app_hidden.action_request_dispatch(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text)
 returns void
 language plpgsql
 stable
as $$
declare v_self text;
begin
  -- Who decides (accept, decline, transition): action_request_may_decide, and the requester where p_requester_may.
  if not (app_hidden.action_request_may_decide(p_request)
          or (coalesce(p_requester_may, false) and app_hidden.action_request_caller_is_requester(p_request))) then
    raise exception '%', p_refusal using errcode = 'SV403', detail = 'not_allowed';
  end if;
  -- Withdrawing (p_requester_may) is the requester's own right; deciding is not (action_request_self_decision).
  v_self := case when not coalesce(p_requester_may, false) then app_hidden.action_request_self_decision(p_request) end;
  if v_self = 'own_request' then
    raise exception 'The requester of this request may not decide it; it may withdraw it (actionRequests.transition DISMISSED)'
      using errcode = 'SV403', detail = 'own_request';
  elsif v_self = 'own_plan' then
    raise exception 'An agent working in this plan does not decide its approval: a person (or another agent) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if p_request.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(p_request.issue_id);
  end if;
end
$$;
comment on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) is 'The gate of accept, decline and transition: 403 not_allowed (message p_refusal) unless the caller may decide the request (action_request_may_decide) or, with p_requester_may, is its requester; 403 own_request for its requester deciding it (unless p_requester_may, or an OWNER/ADMIN person); 403 own_plan for an agent working in the plan a plan approval is about; 403 run_mode_gated for an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue.';
grant execute on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) to svc_visitor;

create or replace function app_hidden.action_request_for_decision(p_id text, p_verb text)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests := app_hidden.find_action_request(p_id, 'id', true);
begin
  if v.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v.status, p_verb using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  perform app_hidden.action_request_assert_may_act(v, false,
    'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decide this request');
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise), decidable by the caller (403 not_allowed otherwise) and not by an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue (403 run_mode_gated).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
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
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'agentId', detail = 'agent_archived';
  end if;
  if not exists (select 1 from app_public.memberships m where m.workspace_id = p_workspace_id and m.user_id = p_user_id) then
    raise exception 'Not a member of this workspace' using errcode = 'SV400', column = 'user';
  end if;
  -- A thread about an issue the agent cannot see: it would be sent the messages (its webhook) and could neither read
  -- the thread nor answer (fleet probe).
  select * into v_issue from app_public.issues i where i.workspace_id = p_workspace_id and i.id = p_issue_id;
  if v_issue.id is not null then
    perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'issueId');
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
--! Included dispatch/dispatcher.sql
-- The dispatcher: gives queued, unassigned issues to eligible agents (decisions.md "Dispatch").
-- Runs in the worker (owner role) one assignment per transaction; decisions in one workspace are
-- serialized by an advisory lock, so concurrent workers never assign an issue twice or overfill an agent.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], out agent_id uuid, out method text, out reason text)
 returns record
 language plpgsql
 stable
as $$
declare
  v_labels text[];
  v_best int := 0;
  v_matches int;
  v_agent app_public.agents;
begin
  if cardinality(p_eligible) = 0 then
    return;
  end if;
  if p_mode = 'PRIORITY_MATCH' then
    foreach v_agent in array p_eligible loop
      if exists (select 1 from unnest(v_agent.capabilities) c where upper(c) = p_issue.priority) then
        agent_id := v_agent.id;
        method := 'priority-match';
        reason := 'priority-match:' || lower(p_issue.priority);
        return;
      end if;
    end loop;
  elsif p_mode = 'CAPABILITY_MATCH' then
    select coalesce(array_agg(lower(l.name)), '{}') into v_labels
    from app_public.labels l where l.id = any(p_issue.label_ids);
    foreach v_agent in array p_eligible loop
      select count(distinct lower(c)) into v_matches from unnest(v_agent.capabilities) c where lower(c) = any(v_labels);
      if v_matches > v_best then  -- strictly more: ties keep the least recently dispatched
        v_best := v_matches;
        agent_id := v_agent.id;
      end if;
    end loop;
    if agent_id is not null then
      method := 'capability-match';
      reason := format('capability-match:%s/%s', v_best, cardinality(v_labels));
      return;
    end if;
  end if;
  -- ROUND_ROBIN, and the fallback of the matching modes when nothing matches.
  agent_id := p_eligible[1].id;
  method := 'round-robin';
  reason := 'round-robin';
end
$$;
comment on function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], OUT agent_id uuid, OUT method text, OUT reason text) is 'The mode''s choice among eligible agents (given least recently dispatched first): PRIORITY_MATCH = capabilities include the priority name; CAPABILITY_MATCH = most overlap of issue label names and capabilities; both fall back to round-robin.';

create or replace function app_private.dispatch_next(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_issue app_public.issues;
  v_eligible app_public.agents[];
  v_seeing app_public.agents[] := '{}';
  v_rule app_public.dispatch_rules;
  v_agent app_public.agents;
  v_pick record;
  v_reason text;
  v_dispatch jsonb;
begin
  -- One dispatcher decision at a time per workspace (all workers, all processes).
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch:' || p_workspace_id::text, 0));
  select * into v_ws from app_public.workspaces where id = p_workspace_id;
  -- The dispatcher acts inside the workspace (as the system: no user, key or agent), so the shared
  -- assignment code records its events there.
  perform set_config('svc.workspace_id', p_workspace_id::text, true);
  if v_ws.id is null or not v_ws.auto_dispatch or v_ws.auto_dispatch_mode = 'MANUAL_ONLY' then
    return null;
  end if;
  -- Eligible: not archived, not OFFLINE, load (assigned issues neither DONE nor CANCELED) under
  -- maxConcurrent (0 = unlimited); least recently dispatched first, the round-robin order.
  v_eligible := array(
    select a from app_public.agents a
    where a.workspace_id = p_workspace_id and a.archived_at is null and a.status <> 'OFFLINE'
      and (a.max_concurrent = 0 or a.max_concurrent > (
        select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = p_workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')))
    order by a.last_dispatched_at nulls first, a.created_at, a.id);
  if cardinality(v_eligible) = 0 then
    return null;
  end if;
  -- Most urgent first, then the longest waiting: the first issue an eligible agent can see (an agent whose keys are
  -- narrowed is given only issues it can read; one no free agent sees waits without holding up those behind it).
  -- Assigned and closed issues stay queued (only issues.queue/update {queued: false} clears it) but are no work to hand out.
  for v_issue in
    select i.* from app_public.issues i
    where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
      and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED')
    order by i.priority_rank, i.queued_at, i.created_at, i.id
    limit 200
    for update
  loop
    v_seeing := array(
      select a from unnest(v_eligible) a
      where app_hidden.agent_sees_issue(a.id, v_issue)
        -- Nor to an agent that gave it back (issues.unassign with its own key) since it was last queued.
        and not exists (select 1 from app_public.agent_runs r
                        where r.workspace_id = p_workspace_id and r.issue_id = v_issue.id and r.agent_id = a.id
                          and r.completion_meta ? 'returnedAt' and r.finished_at >= v_issue.queued_at));
    exit when cardinality(v_seeing) > 0;
  end loop;
  if cardinality(v_seeing) = 0 then
    return null;
  end if;
  v_eligible := v_seeing;

  -- Rules first: the first enabled rule whose set conditions all match.
  select r.* into v_rule from app_public.dispatch_rules r
  where r.workspace_id = p_workspace_id and r.enabled
    and (r.priority is null or r.priority = v_issue.priority)
    and (r.project_id is null or r.project_id = v_issue.project_id)
    and (r.label_id is null or r.label_id = any(v_issue.label_ids))
  order by r.position
  limit 1;
  if v_rule.id is not null then
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_rule.target_agent_id;
  end if;
  if v_agent.id is not null then
    v_reason := 'rule:' || v_rule.id;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode, 'candidates', jsonb_build_array(v_agent.id),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  else
    v_pick := app_private.dispatch_pick(v_issue, v_ws.auto_dispatch_mode, v_eligible);
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_pick.agent_id;
    v_reason := case when v_rule.id is null then v_pick.reason
                     else format('rule:%s:target-ineligible,%s pick', v_rule.id, v_pick.method) end;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode,
      'candidates', (select jsonb_agg(a.id) from unnest(v_eligible) a),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  end if;

  -- Archived since the candidates were read: nothing now (archiving wakes the dispatcher, which picks again).
  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id and archived_at is null;
  if not found then
    return null;
  end if;
  perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', v_reason, null, null, v_dispatch);
  return jsonb_build_object('issueId', v_issue.id, 'agentId', v_agent.id, 'reason', v_reason);
end
$$;
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned open (not DONE/CANCELED) issue that an eligible agent can see (agent_sees_issue) goes, among those agents, to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

create or replace function app_private.wake_dispatcher(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if exists (select 1 from app_public.workspaces w
             where w.id = p_workspace_id and w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY') then
    -- A job per wake, without a job key: a keyed job that a worker locks between this add_job and our
    -- commit would swallow the wake and run before it can see this change. Each job dispatches until
    -- nothing is left; jobs of one workspace serialize on dispatch_next's advisory lock.
    perform graphile_worker.add_job('svc_dispatch', json_build_object('workspaceId', p_workspace_id));
  end if;
end
$$;
comment on function app_private.wake_dispatcher(p_workspace_id uuid) is 'Queues a dispatcher job for a workspace with autoDispatch on, in the caller''s transaction: it runs once the change that woke it is committed, so no wake is lost.';

create or replace function app_private.dispatch_sweep()
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_workspace_id uuid;
  v_woken integer := 0;
begin
  if to_regnamespace('graphile_worker') is null then
    return 0;
  end if;
  -- The dispatcher runs only when woken. A job that a killed worker held stays locked (Graphile Worker frees it
  -- after hours), and no change wakes another while an ONLINE agent waits with free slots: the queue stood still.
  -- Every minute (and at worker start) a workspace with work to hand out and a live agent, and no job waiting to
  -- run, is woken; a job that finds nothing to do ends at once.
  for v_workspace_id in
    select w.id from app_public.workspaces w
    where w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY'
      and exists (select 1 from app_public.agents a
                  where a.workspace_id = w.id and a.archived_at is null and a.status <> 'OFFLINE')
      and exists (select 1 from app_public.issues i
                  where i.workspace_id = w.id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
                    and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED'))
      -- (the public jobs view leaves the payload out: the private table, as the migration of graphile-worker pins it)
      and not exists (select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
                      where t.identifier = 'svc_dispatch' and j.locked_at is null
                        and j.payload->>'workspaceId' = w.id::text)
  loop
    perform app_private.wake_dispatcher(v_workspace_id);
    v_woken := v_woken + 1;
  end loop;
  return v_woken;
end
$$;
comment on function app_private.dispatch_sweep() is 'Wakes the dispatcher of every workspace with autoDispatch on, queued unassigned open issues and an agent not OFFLINE, unless a dispatcher job of it is waiting to run: the recovery for a job a killed worker held. Returns how many were woken; the worker calls it at start and every minute (svc_watchdog_sweep).';
--! EndIncluded dispatch/dispatcher.sql
--! Included orchestration/loop.sql
-- orchestration: the loop. Finding and locking records, making steps READY (run + dispatch), judging,
-- cascading readiness, completing plans and goals, opening gates. Called by the goals/plans/executionPlans/
-- reviewGates tools and by accepting a plan's approval request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_goal(p_id text, p_field text default 'id'::text)
 returns app_public.goals
 language plpgsql
 stable
as $$
declare v app_public.goals;
begin
  select * into v from app_public.goals
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Goal not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_goal(p_id text, p_field text) is 'A goal the key can see (a goal tied to an issue follows that issue''s narrowing), else 404 naming the field.';
grant execute on function app_hidden.find_goal(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_plan(p_id text, p_field text default 'id'::text)
 returns app_public.execution_plans
 language plpgsql
 stable
as $$
declare v app_public.execution_plans;
begin
  select * into v from app_public.execution_plans
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Plan not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plan(p_id text, p_field text) is 'An execution plan the key can see (through its goal), else 404 naming the field.';
grant execute on function app_hidden.find_plan(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_step(p_id text, p_field text default 'stepId'::text)
 returns app_public.execution_steps
 language plpgsql
 stable
as $$
declare v app_public.execution_steps;
begin
  select * into v from app_public.execution_steps
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  -- Its plan too: the steps policy asks an unnarrowed key nothing per row, and the plan of a goal tied to a deleted
  -- issue is not there (plans policy), so neither is its step.
  if v.id is null or not exists (select 1 from app_public.execution_plans p where p.id = v.plan_id) then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see, of a plan it can see (through its goal: none of a goal tied to a deleted issue), else 404 naming the field.';
grant execute on function app_hidden.find_step(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.lock_plan(p_plan_id uuid)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  -- Lock order everywhere: goal, then plan. Steps are only changed with their plan locked.
  perform 1 from app_public.goals g where g.id = (select p.goal_id from app_public.execution_plans p where p.id = p_plan_id) for update;
  select * into v from app_public.execution_plans where id = p_plan_id for update;
  return v;
end
$$;
comment on function app_hidden.lock_plan(p_plan_id uuid) is 'Locks a plan''s goal and then the plan (FOR UPDATE) and returns the fresh plan: loop mutations of one goal serialize here.';
grant execute on function app_hidden.lock_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0)
 returns uuid
 language sql
 stable
as $$
  -- The member with the least open work (runs on issues, and plan steps given to it, which have a run only when their
  -- goal has an issue), then the next from p_seed round the members: two root steps at positions 0 and 2 went to the
  -- first of two workers by position alone while the other sat idle.
  with members as (
    select m.agent_id, a.workspace_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role)
  select m.agent_id from members m
  order by (select count(*) from app_public.agent_runs r
            where r.workspace_id = m.workspace_id and r.agent_id = m.agent_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
              and r.step_id is null)
           + (select count(*) from app_public.execution_steps st
              where st.workspace_id = m.workspace_id and st.assigned_agent_id = m.agent_id and st.status in ('READY', 'RUNNING', 'REVIEW')),
           (m.i - coalesce(p_seed, 0) % m.n + m.n) % m.n
  limit 1
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...): the one with the least open work (open runs not of a step, and READY, RUNNING or REVIEW steps given to it), ties spread over the members from p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
begin
  return app_hidden.step_dispatch_work(app_hidden.step_move(p_step, 'READY'));
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE) and is given to its worker (step_dispatch_work).';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_work(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps := p_step;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  -- An agent archived since it was given the step is passed over (it can no longer act): the step goes to a live
  -- crew member in its role, else it is READY with no worker and no run.
  v_agent := coalesce((select a.id from app_public.agents a where a.id = p_step.assigned_agent_id and a.archived_at is null),
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position));
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step, whose title is the
  -- run's currentStep (what the board and agents.workload show it working on). A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    -- Read, not locked: the run's own tools lock it and then this plan (budget trigger), so locking it under the
    -- plan's lock could deadlock; a retry's step has the same title.
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id, current_step)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id, v_step.title)
      returning id into v_run;
    end if;
  end if;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'work', 'planId', v_plan.id, 'goalId', v_goal.id, 'stepId', v_step.id, 'title', v_step.title,
    'body', v_step.body, 'expectedOutput', v_step.expected_output, 'verification', v_step.verification,
    'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id), 'assignedAgentId', v_agent,
    'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count, 'runId', v_run, 'issueId', v_goal.issue_id));
  perform app_hidden.dispatch_to_agent(v_event, v_agent);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) is 'Gives a READY step to its worker: its agent (assigned and not archived, else the crew member in its role, default WORKER; none: no worker) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid)
 returns void
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  -- The steps an archived agent was working on (READY or RUNNING, in a running plan) go to a live crew member in
  -- their role, as a step becoming READY does; a RUNNING one is READY again (its run ended with the archive), so the
  -- new worker starts it. They stayed READY with the archived agent, which nothing would ever move.
  for v_step in
    select s.* from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
    where s.workspace_id = p_workspace_id and s.assigned_agent_id = p_agent_id and s.status in ('READY', 'RUNNING')
      and p.status = 'RUNNING'
    order by p.id, s.position, s.id
    for update of s
  loop
    if v_step.status = 'RUNNING' then
      perform app_hidden.step_make_ready(v_step);
    else
      perform app_hidden.step_dispatch_work(v_step);
    end if;
  end loop;
end
$$;
comment on function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid) is 'On archiving an agent: its READY and RUNNING steps of running plans go to a live crew member in their role (READY, EXECUTION_STEP_READY dispatched), or stay READY with no worker when the crew has none.';

create or replace function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_step app_public.execution_steps;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  update app_public.execution_steps set judge_agent_id = p_judge where id = p_step.id returning * into v_step;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'judge', 'judgeAgentId', p_judge, 'planId', v_plan.id, 'goalId', v_plan.goal_id, 'stepId', v_step.id,
    'title', v_step.title, 'body', v_step.body, 'expectedOutput', v_step.expected_output,
    'verification', v_step.verification, 'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id),
    'assignedAgentId', v_step.assigned_agent_id, 'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count,
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0 to 100 (optional)}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

create or replace function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  -- SKIP LOCKED: a run being reported on right now (its tool locked it, and its budget trigger then waits for this
  -- plan's lock) is left to its agent rather than deadlocking; the stale sweep catches it if nobody closes it.
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.id in (select o.id from app_public.agent_runs o
                 where o.workspace_id = p_plan.workspace_id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
                   and o.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id)
                 for update skip locked);
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) is 'Ends the open runs of a plan attempt''s steps (ABANDONED, reason plan_canceled or plan_completed), when the attempt is canceled or completes.';
grant execute on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_cascade(p_plan_id uuid)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_ready uuid[] := '{}';
begin
  select * into v_plan from app_public.execution_plans where id = p_plan_id;
  if v_plan.status <> 'RUNNING' then
    return v_ready;
  end if;
  for v_step in
    select s.* from app_public.execution_steps s
    where s.plan_id = p_plan_id and s.status = 'TODO' and app_hidden.step_dependencies_done(s)
    order by s.position
  loop
    perform app_hidden.step_make_ready(v_step);
    v_ready := v_ready || v_step.id;
  end loop;
  -- Every step DONE (canceled ones skipped, at least one DONE): the plan completes and its goal is achieved.
  if exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status = 'DONE')
     and not exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status not in ('DONE', 'CANCELED')) then
    v_plan := app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(p_plan_id);
    -- Step runs their agents left open would otherwise stay ACTIVE on a finished plan, and stall.
    perform app_hidden.plan_end_step_runs(v_plan, 'plan_completed');
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED (open step runs end, reason plan_completed) and its goal ACHIEVED. Returns the ids made READY.';
grant execute on function app_hidden.plan_cascade(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_resume(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  perform app_hidden.plan_move(p_plan, 'RUNNING');
  -- Steps READY when the plan was blocked are given to their workers again: their moves were refused meanwhile
  -- (409 plan_not_running), and nothing told them the plan runs again (a READY step sat with nobody on it, fleet probe).
  for v_step in
    select s.* from app_public.execution_steps s where s.plan_id = p_plan.id and s.status = 'READY' order by s.position
  loop
    perform app_hidden.step_dispatch_work(v_step);
  end loop;
  return app_hidden.plan_cascade(p_plan.id);
end
$$;
comment on function app_hidden.plan_resume(p_plan app_public.execution_plans) is 'A BLOCKED plan runs again (reviewGates.resolve, executionPlans.transition RUNNING): RUNNING (EXECUTION_PLAN_STATUS_CHANGED), its READY steps are dispatched to their workers again (EXECUTION_STEP_READY), and the readiness cascade runs. Returns the ids the cascade made READY.';
grant execute on function app_hidden.plan_resume(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_activate(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_plan.id);
  v_goal app_public.goals;
begin
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  -- Spec 3.8: only DRAFT or APPROVED. A BLOCKED plan runs again through its gate (reviewGates.resolve) or
  -- executionPlans.transition RUNNING, which refuse while a gate holds it.
  if v_plan.status not in ('DRAFT', 'APPROVED') then
    raise exception 'Plan is %; plans.activate runs a DRAFT or APPROVED plan%', v_plan.status,
      case when v_plan.status = 'BLOCKED' then ' (a blocked plan runs again when its review gate is resolved)' else '' end
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if v_goal.status not in ('PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; its plan cannot run', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
  if v_goal.status = 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'ACTIVE');
  end if;
  -- Activating answers the plan's open approval requests (one being accepted is already RESOLVED).
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return app_hidden.plan_cascade(v_plan.id);
end
$$;
comment on function app_hidden.plan_activate(p_plan app_public.execution_plans) is 'plans.activate (also run by accepting the plan''s approval request): the active DRAFT/APPROVED attempt with steps becomes RUNNING, its goal ACTIVE (startedAt), root steps READY and dispatched. Other open approval requests of the plan are SUPERSEDED. Returns the ids made READY.';
grant execute on function app_hidden.plan_activate(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.gates_cancel(p_plan_id uuid)
 returns void
 language plpgsql
as $$
declare v_gate app_public.review_gates;
begin
  for v_gate in select * from app_public.review_gates g where g.plan_id = p_plan_id and g.status = 'PENDING' loop
    perform app_hidden.gate_move(v_gate, 'CANCELED', 'the plan ended');
  end loop;
end
$$;
comment on function app_hidden.gates_cancel(p_plan_id uuid) is 'CANCELs the PENDING review gates of a plan that ended.';
grant execute on function app_hidden.gates_cancel(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.caller_works_in_plan(p_plan_id uuid)
 returns boolean
 language sql
 stable
as $$
  select app_hidden.current_agent_id() is not null and (
    exists (select 1 from app_public.execution_plans p where p.id = p_plan_id and p.planner_agent_id = app_hidden.current_agent_id())
    or exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id
               and app_hidden.current_agent_id() in (s.assigned_agent_id, s.judge_agent_id)))
$$;
comment on function app_hidden.caller_works_in_plan(p_plan_id uuid) is 'Whether the calling key is an agent working in the plan: its planner, or a worker or judge of one of its steps. Such an agent neither resolves the plan''s gates nor decides its approval (403 own_plan). Never NULL.';
grant execute on function app_hidden.caller_works_in_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.gate_assert_may_decide(p_plan_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  -- Not by an agent of the plan the gate holds (its planner, or a worker or judge of one of its steps), ADMIN or not:
  -- the worker whose spending stopped the plan approved its own budget.
  if app_hidden.caller_works_in_plan(p_plan_id) then
    raise exception 'An agent working in this plan does not decide its review gates: a person (or another ADMIN-scoped key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.gate_assert_may_decide(p_plan_id uuid) is 'Before a pending review gate of the plan is decided, by reviewGates.resolve or by ending what it holds (canceling its step or plan, abandoning the goal, planning again): a person, or an ADMIN-scoped agent key that does not work in the plan (403 person_required / own_plan otherwise).';
grant execute on function app_hidden.gate_assert_may_decide(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A worker or judge does not end the work it is judged on: canceling a failing step (or the plan, or the goal)
  -- completed the plan and achieved the goal around the judge's verdict. The planner, a person or an agent outside
  -- the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id then
    if p_step.id is not null and app_hidden.current_agent_id() = p_step.assigned_agent_id then
      raise exception 'A worker does not cancel its own step: its planner or a person does' using errcode = 'SV403', detail = 'own_step';
    end if;
    raise exception 'An agent working in this plan (a worker or judge) does not cancel its steps or end it: its planner or a person does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Ending what a pending gate holds cancels the gate: as deciding it.
  if exists (select 1 from app_public.review_gates g where g.plan_id = p_plan.id and g.status = 'PENDING'
             and (p_step.id is null or g.step_id = p_step.id)) then
    perform app_hidden.gate_assert_may_decide(p_plan.id);
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before a tool ends work in a live plan (cancels p_step, or with no step cancels or completes the plan, abandons its goal or plans the goal again): an agent working in the plan must be its planner (403 own_step for a worker canceling its own step, own_plan for the others); where a pending review gate holds what ends, the caller must also be one who may decide it (gate_assert_may_decide).';
grant execute on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A step is its worker's: an agent working in the plan moves or holds (reviewGates.open, the plan to BLOCKED) its
  -- own step, and the plan or another's step only as the planner. A fellow worker moved another's step to BLOCKED or
  -- RUNNING under it, or held it or the whole plan behind a gate only a person could clear. A person or an agent
  -- outside the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id
     and (p_step.id is null or app_hidden.current_agent_id() is distinct from p_step.assigned_agent_id) then
    raise exception 'An agent working in this plan acts only on its own step: the planner or a person moves or holds the plan or another''s step'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before an agent moves a step (executionPlans.transitionStep, where the step''s judge is let through by its caller) or holds work behind a gate (reviewGates.open, executionPlans.transition to BLOCKED; no step = the plan): an agent working in the plan acts on its own step, and on the plan or another''s step only as its planner (403 own_plan).';
grant execute on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Called where only the step's judge (or a person) may pass it: its worker is told own_step, any other agent not_judge.
  if app_hidden.current_agent_id() = p_step.assigned_agent_id then
    raise exception 'The step''s worker does not pass its own work: it moves the step to REVIEW; its judge (plans.recordVerdict) or a person passes it'
      using errcode = 'SV403', detail = 'own_step';
  end if;
  raise exception 'Only the step''s judge (plans.judge dispatched it) or a person passes this step or records its verdict'
    using errcode = 'SV403', detail = 'not_judge';
end
$$;
comment on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) is 'Raises 403 for an agent that is not the step''s judge passing it (plans.recordVerdict, executionPlans.transitionStep to DONE): own_step for its worker, not_judge for any other agent. The callers decide when it applies.';
grant execute on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans)
 returns void
 language plpgsql
 stable
as $$
declare v_request app_public.action_requests;
begin
  -- A plan that asked for approval is approved or run by someone who may decide its request (that gate, own_request
  -- included), whatever became of the request: its planner approving or activating it anyway made approval advisory,
  -- and so did declining it, withdrawing it or superseding it (addSteps) before activating.
  -- (Only where it would be approved or run: another plan's move is the machine's 409.)
  select * into v_request from app_public.action_requests ar
  where ar.id = p_plan.approval_request_id and ar.status <> 'RESOLVED' and p_plan.status in ('DRAFT', 'APPROVED');
  if v_request.id is not null then
    perform app_hidden.action_request_assert_may_act(v_request, false,
      format('This plan asked for approval (action request %s, %s): it runs once a request for it is accepted, or by one who may decide it',
             v_request.id, v_request.status));
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) is 'Before a plan is APPROVED or RUNNING by a tool: once it asked for approval and its request was not accepted (open, declined, withdrawn, superseded), only a key that may decide that request (403 not_allowed / own_request otherwise).';
grant execute on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_cancel(p_plan app_public.execution_plans)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_step app_public.execution_steps;
begin
  v_plan := app_hidden.plan_move(p_plan, 'CANCELED');
  for v_step in select * from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED') order by s.position loop
    perform app_hidden.step_move(v_step, 'CANCELED');
  end loop;
  perform app_hidden.gates_cancel(v_plan.id);
  perform app_hidden.plan_end_step_runs(v_plan, 'plan_canceled');
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return v_plan;
end
$$;
comment on function app_hidden.plan_cancel(p_plan app_public.execution_plans) is 'Cancels a live plan attempt: plan CANCELED, its unfinished steps CANCELED, pending gates CANCELED, open step runs ABANDONED, open approval requests SUPERSEDED.';
grant execute on function app_hidden.plan_cancel(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text)
 returns app_public.goals
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
begin
  select * into v_plan from app_public.execution_plans p where p.goal_id = p_goal.id and p.is_active_attempt for update;
  v_goal := app_hidden.goal_move(p_goal, 'ABANDONED', p_reason);
  if v_plan.id is not null and v_plan.status not in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_cancel(v_plan);
  end if;
  return v_goal;
end
$$;
comment on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) is 'goals.abandon (and rejecting a review gate): the goal becomes ABANDONED (terminal) and its live active plan attempt is canceled.';
grant execute on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_goal app_public.goals;
  v_prior app_public.execution_plans;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_goal from app_public.goals where id = p_goal.id for update;
  if v_goal.status not in ('OPEN', 'PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; it cannot be planned again', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  select * into v_prior from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt for update;
  if v_prior.id is not null then
    update app_public.execution_plans set is_active_attempt = false where id = v_prior.id returning * into v_prior;
    if v_prior.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_assert_may_end(v_prior);
      perform app_hidden.plan_cancel(v_prior);
    end if;
  end if;
  insert into app_public.execution_plans (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  values (v_goal.workspace_id, v_goal.id,
          coalesce((select max(p.attempt) from app_public.execution_plans p where p.goal_id = v_goal.id), 0) + 1,
          p_planner, p_context_set_id, p_auto_judge, coalesce(p_max_step_retries, 2))
  returning * into v_plan;
  if v_goal.status <> 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'PLANNING');  -- GOAL_STATUS_CHANGED (and the planner's dispatch) by trigger
  else
    -- Already planning: the new attempt is still announced (and dispatched to its planner).
    v_event := app_hidden.record_event('GOAL_STATUS_CHANGED', 'goal', v_goal.id,
      app_hidden.goal_status_payload(v_goal, 'PLANNING', 'PLANNING'));
    perform app_hidden.dispatch_to_agent(v_event, p_planner);
  end if;
  return v_plan;
end
$$;
comment on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) is 'A new DRAFT plan attempt for a live goal (plans.decompose, executionPlans.create): the previous attempt flips isActiveAttempt false (canceled if live), the goal moves to PLANNING; GOAL_STATUS_CHANGED carries planId and plannerAgentId and is dispatched to the planner.';
grant execute on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) to svc_visitor;

create or replace function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('goalId', p_goal.id, 'from', p_from, 'to', p_to, 'planId', p.id,
                            'plannerAgentId', p.planner_agent_id, 'issueId', p_goal.issue_id, 'title', p_goal.title)
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal.id and p.is_active_attempt
$$;
comment on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) is 'GOAL_STATUS_CHANGED payload (spec 6.4: from, to, planId = the active attempt) plus goalId, plannerAgentId, issueId, title.';
grant execute on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text default 'steps'::text)
 returns uuid[]
 language plpgsql
as $$
declare
  v_n int := jsonb_array_length(coalesce(p_steps, '[]'));
  v_base int;
  v_ids uuid[] := '{}';
  v_indeg int[];
  v_queue int[] := '{}';
  v_seen int := 0;
  v_i int;
  v_j int;
  v_d int;
  v_step jsonb;
  v_agent uuid;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm). An index listed
  -- twice is one dependency (counted twice, the step never reached in-degree 0 and was called a cycle).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select distinct (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
      if v_d < 0 or v_d >= v_n then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), format('index %s is not a step of this batch (0..%s)', v_d, v_n - 1));
      elsif v_d = v_i then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), 'a step cannot depend on itself');
      end if;
      v_indeg[v_i + 1] := v_indeg[v_i + 1] + 1;
    end loop;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    if v_indeg[v_i + 1] = 0 then v_queue := v_queue || v_i; end if;
  end loop;
  while cardinality(v_queue) > 0 loop
    v_i := v_queue[1];
    v_queue := v_queue[2:];
    v_seen := v_seen + 1;
    for v_j in 0 .. v_n - 1 loop
      if exists (select 1 from jsonb_array_elements_text(coalesce(p_steps->v_j->'dependsOnStepIndexes', '[]')) e where e::int = v_i) then
        v_indeg[v_j + 1] := v_indeg[v_j + 1] - 1;
        if v_indeg[v_j + 1] = 0 then v_queue := v_queue || v_j; end if;
      end if;
    end loop;
  end loop;
  if v_seen < v_n then
    -- Named as the other errors are: 0-based batch positions, the field of the first step in the cycle.
    perform app_hidden.raise_invalid(
      format('%s.%s.dependsOnStepIndexes', p_field, (select min(i) - 1 from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)),
      format('the dependencies make a cycle (steps %s)', (select string_agg((i - 1)::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_agent := (app_hidden.find_live_agent(v_step->>'assignedAgentId', format('%s.%s.assignedAgentId', p_field, v_i))).id;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  -- The plan an approver was asked about has changed: its open approval request is SUPERSEDED (ask again).
  if v_n > 0 then
    perform app_hidden.action_requests_supersede('execution-plan', p_plan.id);
  end if;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. assignedAgentId must be a live agent (400 agent_archived). Steps start TODO; an open approval request of the plan is SUPERSEDED (what it asked about changed).';
grant execute on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  insert into app_public.review_gates (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  values (p_plan.workspace_id, p_plan.id, p_step_id, p_reason, p_title, coalesce(p_details, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v;  -- REVIEW_GATE_OPENED by trigger
  return v;
end
$$;
comment on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) is 'Opens a PENDING review gate on a plan (and step): STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME or MANUAL.';
grant execute on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  perform app_hidden.step_move(p_step, 'BLOCKED');
  return app_hidden.open_gate(v_plan, p_step.id, p_reason, p_title, p_details);
end
$$;
comment on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) is 'A step becomes BLOCKED and a review gate opens on it (approve: the step is ready again with fresh retries; reject: the goal is abandoned).';
grant execute on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_gate.plan_id);
  v_gate app_public.review_gates;
  v_step app_public.execution_steps;
  v_goal app_public.goals;
begin
  select * into v_gate from app_public.review_gates where id = p_gate.id for update;
  if p_decision = 'REJECT' then
    v_gate := app_hidden.gate_move(v_gate, 'REJECTED', p_note);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_goal.status not in ('ACHIEVED', 'ABANDONED') then
      perform app_hidden.goal_abandon(v_goal, coalesce(p_note, 'review gate rejected'));
    elsif v_plan.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_plan);
    end if;
    return v_gate;
  end if;
  v_gate := app_hidden.gate_move(v_gate, 'APPROVED', p_note);
  if v_gate.step_id is not null then
    -- The held step continues with fresh retries: READY when its dependencies are DONE, else back to TODO.
    select * into v_step from app_public.execution_steps where id = v_gate.step_id;
    if v_step.status = 'BLOCKED' then
      update app_public.execution_steps set retry_count = 0 where id = v_step.id returning * into v_step;
      if v_plan.status = 'RUNNING' and app_hidden.step_dependencies_done(v_step) then
        perform app_hidden.step_make_ready(v_step);
      else
        perform app_hidden.step_move(v_step, 'TODO');
      end if;
    end if;
  elsif v_plan.status = 'BLOCKED' and not exists (
      select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
    perform app_hidden.plan_resume(v_plan);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
--! Included executionPlans/tools/transition.sql
-- The executionPlans.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a plan along its machine: APPROVED, RUNNING (= plans.activate), BLOCKED, COMPLETED (all steps done), CANCELED.
create or replace function app_tools.execution_plans_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.find_plan(args->>'id');
  v_to text := args->>'status';
  v_goal app_public.goals;
begin
  v_plan := app_hidden.lock_plan(v_plan.id);
  if v_to in ('APPROVED', 'RUNNING') then
    perform app_hidden.plan_assert_may_approve(v_plan);
  end if;
  if v_to = 'BLOCKED' then
    perform app_hidden.plan_assert_own_step(v_plan);
  end if;
  if v_to in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_assert_may_end(v_plan);
  end if;
  if v_to = 'RUNNING' and v_plan.status in ('DRAFT', 'APPROVED') then
    perform app_hidden.plan_activate(v_plan);
  elsif v_to = 'RUNNING' then
    if exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
      raise exception 'A review gate holds this plan: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
    end if;
    perform app_hidden.plan_resume(v_plan);
  elsif v_to = 'COMPLETED' then
    -- A move the machine refuses (a DRAFT or APPROVED plan) is said as such first, not as steps still open.
    perform app_hidden.assert_move('plan', 'Plan', v_plan.status, 'COMPLETED');
    -- As the automatic completion (plan_cascade): every step DONE or CANCELED, and at least one DONE. A plan whose
    -- steps were all canceled did nothing, and completing it would achieve its goal; cancel the plan instead.
    if exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED')) then
      raise exception 'Every step must be DONE or CANCELED first: % still open',
        (select count(*) from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED'))
        using errcode = 'SV409', detail = 'steps_not_done';
    elsif not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id and s.status = 'DONE') then
      raise exception 'No step is DONE: a plan whose steps were all canceled did nothing and cannot complete (cancel it instead)'
        using errcode = 'SV409', detail = 'steps_not_done';
    end if;
    perform app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(v_plan.id);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  elsif v_to = 'CANCELED' then
    perform app_hidden.plan_cancel(v_plan);
  elsif v_to = 'APPROVED' and not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    -- An approved plan takes no more steps and an empty one cannot run: it would be stuck.
    raise exception 'The plan has no steps: add them with plans.addSteps before approving it' using errcode = 'SV409', detail = 'plan_empty';
  else
    perform app_hidden.plan_move(v_plan, v_to);
  end if;
  return app_hidden.plan_json((select p from app_public.execution_plans p where p.id = v_plan.id), true);
end
$$;
comment on function app_tools.execution_plans_transition(args jsonb) is 'executionPlans.transition: Move a plan: APPROVED (it has steps), RUNNING (as plans.activate; from BLOCKED only when no review gate holds it), BLOCKED, COMPLETED (every step DONE or CANCELED, at least one DONE), CANCELED (unfinished steps, gates and step runs end). APPROVED and RUNNING of a plan awaiting approval need a key that may accept the request (403). COMPLETED and CANCELED are for a person, the planner of the plan or an agent outside the plan (403 own_plan), and while a review gate is pending only for one who may decide it (403 person_required / own_plan). Illegal moves are 409.';
grant execute on function app_tools.execution_plans_transition(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transition.sql
--! Included agents/tools/heartbeat.sql
-- The agents.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one UPDATE sets status (default ONLINE) and lastHeartbeatAt (and attaches runtimeId); the trigger writes
-- AGENT_STATUS_CHANGED only when the status changed. Keys without an agent, archived or foreign agents: 403.
create or replace function app_tools.agents_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_runtime app_public.runtimes;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
    -- Moving the agent onto another runtime is a runtime change (the agent serves the whole workspace): a narrowed
    -- key attached its agent to a shared runtime and then rewrote that runtime's info as "its own".
    if v_runtime.id is distinct from v_agent.runtime_id then
      perform app_hidden.require_unnarrowed('Attaching the agent to another runtime changes what serves the whole workspace');
    end if;
  end if;
  update app_public.agents a
  set status = coalesce(args->>'status', 'ONLINE'), last_heartbeat_at = now(),
      runtime_id = coalesce(v_runtime.id, a.runtime_id)
  where a.id = v_agent.id
  returning * into v_agent;
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt in one update; runtimeId attaches the agent to a runtime (not an archived one: 409 runtime_archived). AGENT_STATUS_CHANGED only when the status changes. Presence expires: an agent with no heartbeat for the workspace''s agentRunStaleMinutes (workspace.get) goes OFFLINE and gets no dispatched work until it beats again. Keys without an agent, or linked to an archived agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
