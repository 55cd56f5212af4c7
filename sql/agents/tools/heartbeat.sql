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
  -- The key again, now that the agent's row is ours: a heartbeat that waited on it while the agent's last key was
  -- revoked (which sets it OFFLINE) brought it back ONLINE with no key to act, until the presence sweep.
  perform app_hidden.require_live_key();
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the calling key''s agent: sets status (default ONLINE) and lastHeartbeatAt; runtimeId attaches it to a runtime (archived: 409). AGENT_STATUS_CHANGED when the status changes. No heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work; silent offlineReclaimMinutes more → its runs end, its issues are unassigned (not if it sent OFFLINE). Presence only: runs stay ACTIVE by status lines, comments, usage. Keys without a live agent: 403.';
