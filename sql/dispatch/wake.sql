-- What wakes the dispatcher (decisions.md "Dispatch"): an issue becomes queued and unassigned, an agent
-- turns ONLINE (or comes back, or may take more), an agent's load drops, the workspace or its rules change.
-- Triggers only queue the workspace's dispatcher job (app_private.wake_dispatcher); the worker acts.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issues__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Newly dispatchable: queued, unassigned, restored, or its status moved (a reopened issue is work again).
  if new.queued and new.assigned_agent_id is null and new.deleted_at is null
     and (tg_op = 'INSERT' or not old.queued or old.assigned_agent_id is not null or old.deleted_at is not null
          or new.status_id <> old.status_id) then
    perform app_private.wake_dispatcher(new.workspace_id);
  elsif tg_op = 'UPDATE' and old.assigned_agent_id is not null
     and (new.assigned_agent_id is distinct from old.assigned_agent_id or new.status_id <> old.status_id
          or (new.deleted_at is not null and old.deleted_at is null)) then
    perform app_private.wake_dispatcher(new.workspace_id);  -- the agent's load may have dropped
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__wake_dispatcher() is 'AFTER INSERT/UPDATE on issues: wakes the dispatcher when an issue becomes queued and unassigned (queued, unassigned, restored, or its status moved: reopened), or when its agent''s load may drop (unassigned, status moved, deleted).';

drop trigger if exists _850_wake_dispatcher on app_public.issues;
create trigger _850_wake_dispatcher after insert or update of queued, assigned_agent_id, status_id, deleted_at on app_public.issues for each row execute function app_private.tg_issues__wake_dispatcher();

create or replace function app_private.tg_agents__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.archived_at is null and new.status <> 'OFFLINE'
     and (old.status = 'OFFLINE' or old.archived_at is not null or new.max_concurrent is distinct from old.max_concurrent) then
    perform app_private.wake_dispatcher(new.workspace_id);
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__wake_dispatcher() is 'AFTER UPDATE on agents: wakes the dispatcher when an agent comes ONLINE (or BUSY) from OFFLINE, is unarchived, or its maxConcurrent changes.';

drop trigger if exists _850_wake_dispatcher on app_public.agents;
create trigger _850_wake_dispatcher after update of status, archived_at, max_concurrent on app_public.agents for each row execute function app_private.tg_agents__wake_dispatcher();

create or replace function app_private.tg_workspaces__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.wake_dispatcher(new.id);
  return null;
end
$$;
comment on function app_private.tg_workspaces__wake_dispatcher() is 'AFTER UPDATE OF auto_dispatch, auto_dispatch_mode on workspaces: turning dispatch on (or changing its mode) dispatches what is already queued.';

drop trigger if exists _850_wake_dispatcher on app_public.workspaces;
create trigger _850_wake_dispatcher after update of auto_dispatch, auto_dispatch_mode on app_public.workspaces for each row execute function app_private.tg_workspaces__wake_dispatcher();

create or replace function app_private.tg_dispatch_rules__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.wake_dispatcher(new.workspace_id);
  return null;
end
$$;
comment on function app_private.tg_dispatch_rules__wake_dispatcher() is 'AFTER INSERT/UPDATE on dispatch_rules: a new or changed rule may route what is queued.';

drop trigger if exists _850_wake_dispatcher on app_public.dispatch_rules;
create trigger _850_wake_dispatcher after insert or update on app_public.dispatch_rules for each row execute function app_private.tg_dispatch_rules__wake_dispatcher();

create or replace function app_private.tg_activity_events__agent_dispatch()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_agent uuid;
begin
  -- Events addressed to an agent also go to its dispatch channel (agent:dispatch:<id>): its webhookUrl
  -- when it has one; every agent sees them on SSE regardless.
  if new.kind = 'AGENT_ASSIGNED' and new.payload ? 'to' then
    perform app_private.enqueue_agent_dispatch(new.id, (new.payload->>'to')::uuid);
  elsif new.kind = 'AGENT_RUN_STATUS_CHANGED' and new.payload->>'to' = 'ABANDONED'
        and new.actor_agent_id is distinct from (new.payload->>'agentId')::uuid then
    -- Its run was ended by someone else (unassigned, handed to another agent, canceled by a person, its plan
    -- canceled): an agent driven by its webhook learnt it only from its next call's 409 (fleet probe).
    perform app_private.enqueue_agent_dispatch(new.id, (new.payload->>'agentId')::uuid);
  elsif new.kind = 'ISSUE_STATUS_CHANGED' then
    -- Its issue closed (DONE or CANCELED) by someone else while it holds it: the run stays open for the agent to end,
    -- and a webhook-driven agent would not know (fleet probe).
    select i.assigned_agent_id into v_agent from app_public.issues i
    join app_public.statuses s on s.id = i.status_id and s.category in ('DONE', 'CANCELED')
    where i.id = new.subject_id;
    if v_agent is not null and v_agent is distinct from new.actor_agent_id then
      perform app_private.enqueue_agent_dispatch(new.id, v_agent);
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__agent_dispatch() is 'AFTER INSERT on activity_events: AGENT_ASSIGNED (manual, handoff or dispatcher) is delivered to the assigned agent''s dispatch channel, AGENT_RUN_STATUS_CHANGED to ABANDONED by anyone but the run''s agent to that agent''s, and ISSUE_STATUS_CHANGED into DONE or CANCELED by anyone but the assigned agent to the assigned agent''s.';

drop trigger if exists _510_agent_dispatch on app_public.activity_events;
create trigger _510_agent_dispatch after insert on app_public.activity_events for each row when (new.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED', 'ISSUE_STATUS_CHANGED')) execute function app_private.tg_activity_events__agent_dispatch();

create or replace function app_private.tg_api_keys__wake_dispatcher()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A new key may let its agent see queued issues it could not (app_hidden.agent_sees_issue).
  perform app_private.wake_dispatcher(new.workspace_id);
  return null;
end
$$;
comment on function app_private.tg_api_keys__wake_dispatcher() is 'AFTER INSERT of an agent''s key: wakes the dispatcher, as the key may let the agent see queued issues it could not.';

drop trigger if exists _850_wake_dispatcher on app_private.api_keys;
create trigger _850_wake_dispatcher after insert on app_private.api_keys for each row when (new.linked_agent_id is not null) execute function app_private.tg_api_keys__wake_dispatcher();
