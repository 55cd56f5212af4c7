-- Triggers of the agents tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_agents__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'AGENT_CREATED', 'agent', new.id,
      jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'name', new.name));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'AGENT_DELETED', 'agent', old.id,
      jsonb_build_object('agentId', old.id, 'profileKey', old.profile_key, 'deleted', true));
    -- Pins are personal rows of every member: nothing may keep pointing at the agent (as for a deleted cycle).
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'AGENT' and p.target_id = old.id;
  else
    if new.status is distinct from old.status then
      perform app_private.record_event(new.workspace_id, 'AGENT_STATUS_CHANGED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'from', old.status, 'to', new.status)
        -- Why, when the writer says (svc.agent_status_reason: heartbeat_timeout from the presence sweep, keys_revoked
        -- when its last key went).
        || case when current_setting('svc.agent_status_reason', true) <> ''
                then jsonb_build_object('reason', current_setting('svc.agent_status_reason', true)) else '{}' end);
    end if;
    if new.archived_at is not null and old.archived_at is null then
      perform app_private.record_event(new.workspace_id, 'AGENT_DELETED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'archived', true));
    else
      -- Which fields changed, by their API names (never the values: a webhookUrl may carry a token), as every other
      -- *_UPDATED says; a restore is `archived` (it said only agentId and profileKey).
      v_changes := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'profile_key', 'runtime_mode',
        'provider', 'capabilities', 'max_concurrent', 'webhook_url', 'runtime_id', 'archived_at:archived']);
      if cardinality(v_changes) > 0 then
        perform app_private.record_event(new.workspace_id, 'AGENT_UPDATED', 'agent', new.id,
          jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'changes', to_jsonb(v_changes))
          || case when 'archived' = any(v_changes) then jsonb_build_object('archived', false) else '{}' end);
      end if;
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__events() is 'AGENT_CREATED, AGENT_UPDATED {agentId, profileKey, changes (API names), archived: false on a restore}, AGENT_DELETED (archive or delete; a delete also removes the members'' pins of the agent), AGENT_STATUS_CHANGED {agentId, from, to, reason?} (only on an actual change; reason heartbeat_timeout from the presence sweep, keys_revoked when its last live key is revoked).';

drop trigger if exists _100_updated_at on app_public.agents;
create trigger _100_updated_at before update on app_public.agents for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.agents;
create trigger _800_events after insert or delete or update on app_public.agents for each row execute function app_private.tg_agents__events();

create or replace function app_private.tg_agents__notify_keys()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform pg_notify('svc_keys', k.id::text) from app_private.api_keys k
  where k.linked_agent_id = new.id and k.revoked_at is null;
  return null;
end
$$;
comment on function app_private.tg_agents__notify_keys() is 'An agent archived or restored: tells every API process to drop its cached copies of the agent''s keys (an archived agent''s key is refused at once, its streams end; a restored one works at once).';

drop trigger if exists _900_notify_keys on app_public.agents;
create trigger _900_notify_keys after update of archived_at on app_public.agents
  for each row when (new.archived_at is distinct from old.archived_at)
  execute function app_private.tg_agents__notify_keys();

create or replace function app_private.tg_agent_runs__abandoned()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, old.status,
      coalesce(nullif(current_setting('svc.run_end_reason', true), ''), 'abandoned')));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__abandoned() is 'AGENT_RUN_STATUS_CHANGED for every move of a run into ABANDONED, whoever makes it (reassignment, a canceled plan attempt, issues.delete, an operator), with the payload of the other run moves (runId, agentId, issueId, from, to, engagementMode, reason). The reason is the transaction-local svc.run_end_reason the writer sets around its update (reassigned, plan_canceled), else abandoned.';

drop trigger if exists _810_run_abandoned on app_public.agent_runs;
create trigger _810_run_abandoned after update of status on app_public.agent_runs
  for each row when (new.status = 'ABANDONED' and old.status is distinct from 'ABANDONED')
  execute function app_private.tg_agent_runs__abandoned();

create or replace function app_private.tg_agent_runs__stalled_activity()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sign of life of a STALLED run (usage, a status line, a chat reply) is its agent at work again: back to ACTIVE,
  -- as runs.resumeWork does, so the board and the watchdogs stop calling it stalled while it reports. Before the
  -- row is written, so the report's own answer and AGENT_RUN_UPDATED say ACTIVE (after it, they said STALLED
  -- behind an AGENT_RUN_STATUS_CHANGED to ACTIVE).
  new.status := 'ACTIVE';
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, 'STALLED', 'activity'));
  return new;
end
$$;
comment on function app_private.tg_agent_runs__stalled_activity() is 'A STALLED run whose lastEventAt moves (its agent reported) goes back to ACTIVE in the same write, with AGENT_RUN_STATUS_CHANGED reason activity; it stayed STALLED until runs.resumeWork.';

drop trigger if exists _820_run_stalled_activity on app_public.agent_runs;
drop trigger if exists _120_run_stalled_activity on app_public.agent_runs;
create trigger _120_run_stalled_activity before update of last_event_at on app_public.agent_runs
  for each row when (old.status = 'STALLED' and new.status = 'STALLED' and new.last_event_at > old.last_event_at)
  execute function app_private.tg_agent_runs__stalled_activity();
