--! Previous: sha1:5fc0aeefa909b41257cc1b90aca67a9eead5be9d
--! Hash: sha1:379ea191df8d68788f4b8cc1c18e8a328ad964d8
--! Message: Review: lock order of runs.complete, requester only dismisses, agents managed by people, canvas removal names neighbours, gating by newest run

--! split: 1-current.sql
-- From a review of the session's change:
-- * runs.complete locks the issue before the run (as the issue tools do) and gates and marks the locked checklist.
-- * actionRequests.transition: the requester may only dismiss its request; polls closed before 000074 get
--   votingClosedAt = when they were closed; results says a poll closed with its request has no winner.
-- * Agents are managed (create, update, archive, delete) with a person's key only.
-- * canvas.removeNode's event names the issues of the cards the removed one was connected to.
-- * Run-mode gating follows the agent's newest open run on the issue.
--! Included runs/tools/complete.sql
-- The runs.complete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- closes an open run as COMPLETED after the gates of its mode; completionMeta keeps the contract version and
-- what the agent reported. Only the run's agent. AGENT_RUN_STATUS_CHANGED.
create or replace function app_tools.runs_complete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_issue app_public.issues;
  v_field text;
  v_missing text[];
  v_unknown bigint;
begin
  -- The issue is locked before the run, as the issue tools lock them (issue_for_write, then its runs on assign or
  -- delete), and its checklist is gated and marked done from that one locked row.
  select i.* into v_issue from app_public.issues i where i.id = (app_hidden.find_run(args->>'runId')).issue_id for update;
  v_run := app_hidden.run_for_agent_change(args->>'runId', true);
  -- A produced artifact is an attachment of the run's issue (a file or a link), named by its id: what the context
  -- bundle shows under artifacts. Any other string was taken as given, another workspace's id included.
  select min(a.n) - 1 into v_unknown
  from jsonb_array_elements_text(coalesce(args->'producedArtifactIds', '[]')) with ordinality a(ref, n)
  where not case when a.ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                 then exists (select 1 from app_public.attachments x where x.id = a.ref::uuid
                              and x.workspace_id = v_issue.workspace_id and x.target_type = 'issue' and x.target_id = v_issue.id)
                 else false end;
  if v_unknown is not null then
    perform app_hidden.raise_invalid('producedArtifactIds.' || v_unknown,
      'not an attachment of this issue: attach the artifact to the issue first (attachments.*), then name its id');
  end if;
  case v_run.engagement_mode
    when 'EXECUTE' then
      if v_issue.artifact_required and coalesce(jsonb_array_length(args->'producedArtifactIds'), 0) = 0 then
        perform app_hidden.raise_invalid('producedArtifactIds', 'this issue requires an artifact: give at least one produced artifact id');
      end if;
      -- Every checklist item must be reported done: [{id | label, done: true}] in verificationResult. An entry
      -- with an id matches the item with that id; one without an id matches by label (exact, after trimming).
      select array_agg(coalesce(c->>'id', c->>'label') order by n) into v_missing
      from jsonb_array_elements(v_issue.verification_checklist) with ordinality as x(c, n)
      where not exists (
        select 1 from jsonb_array_elements(coalesce(args->'verificationResult', '[]')) v
        where coalesce(case when v->>'id' is not null then v->>'id' = c->>'id'
                            else btrim(v->>'label', E' \t\r\n') = btrim(c->>'label', E' \t\r\n') end, false)
          and coalesce((v->>'done')::boolean, false));
      if v_missing is not null then
        perform app_hidden.raise_invalid('verificationResult',
          'every verificationChecklist item must be reported done; missing: ' || array_to_string(v_missing, ', '));
      end if;
      -- Reported done, so done on the issue too (ISSUE_UPDATED, changes verificationChecklist): the checklist people
      -- read said "not done" after the run that did it.
      update app_public.issues set verification_checklist =
        (select jsonb_agg(c || '{"done": true}' order by n) from jsonb_array_elements(verification_checklist) with ordinality x(c, n))
      where id = v_issue.id
        and exists (select 1 from jsonb_array_elements(verification_checklist) c where not coalesce((c->>'done')::boolean, false));
    when 'RESEARCH' then
      if args->>'confidence' is null then
        perform app_hidden.raise_invalid('confidence', 'a RESEARCH run completes with a confidence (LOW, MEDIUM, HIGH)');
      end if;
    when 'REVIEW' then
      if args->>'verdict' is null then
        perform app_hidden.raise_invalid('verdict', 'a REVIEW run completes with a verdict (APPROVE or REQUEST_CHANGES)');
      end if;
    when 'DISCUSS' then
      foreach v_field in array array['producedArtifactIds', 'verificationResult', 'followUps', 'confidence', 'verdict'] loop
        if args ? v_field then
          perform app_hidden.raise_invalid(v_field, 'a DISCUSS run completes with a summary only');
        end if;
      end loop;
  end case;
  update app_public.agent_runs set completion_meta = jsonb_strip_nulls(jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(), 'summary', args->>'summary',
    'producedArtifactIds', args->'producedArtifactIds', 'verificationResult', args->'verificationResult',
    'followUps', args->'followUps', 'confidence', args->'confidence', 'verdict', args->'verdict',
    'completedAt', now()))
  where id = v_run.id;
  v_run := app_hidden.run_set_status(v_run, 'COMPLETED', 'completed');
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_complete(args jsonb) to svc_visitor;
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict; DISCUSS takes a summary only. An EXECUTE completion marks the issue''s checklist items done (ISSUE_UPDATED). completionMeta keeps what was reported and the run contract version. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/complete.sql
--! Included actionRequests/tools/transition.sql
-- The actionRequests.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a request along its machine (409 for an illegal move).
create or replace function app_tools.action_requests_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
begin
  -- Who may decide it (as accept/decline) moves it anywhere; its requester only withdraws it (DISMISSED), or it
  -- would resolve its own request (a planner its plan's approval). An agent in a gated run on its issue may not,
  -- as it may not accept it.
  if not (app_hidden.action_request_may_decide(v_req)
          or (args->>'status' = 'DISMISSED' and app_hidden.action_request_caller_is_requester(v_req))) then
    raise exception 'Only the assignee, a watcher of its issue or a workspace OWNER/ADMIN may move this request (its requester may dismiss it)'
      using errcode = 'SV403', detail = 'not_allowed';
  end if;
  if v_req.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v_req.issue_id);
  end if;
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, args->>'status'));
end
$$;
comment on function app_tools.action_requests_transition(args jsonb) is 'actionRequests.transition: Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Who: whoever may accept or decline it; its requester may only dismiss it (403 not_allowed otherwise; 403 run_mode_gated for an agent in a RESEARCH, REVIEW or DISCUSS run on its issue). Closed requests do not move (409); closing a poll closes its voting.';
grant execute on function app_tools.action_requests_transition(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/transition.sql
--! Included actionRequests/tools/results.sql
-- The actionRequests.results tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- per option count and firstVoteAt, total, the callers vote, the winner once closed (and the current leader).
create or replace function app_tools.action_requests_results(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id');
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  return jsonb_build_object(
    'id', v_req.id,
    'options', (select coalesce(jsonb_agg(jsonb_build_object('optionKey', t.option_key, 'label', t.label, 'count', t.votes,
                                                             'firstVoteAt', t.first_vote_at) order by t.ord), '[]')
                from app_hidden.poll_tally(v_req.id, v_req.options) t),
    'total', (select count(*) from app_public.action_request_votes v where v.request_id = v_req.id),
    'myVote', (select v.option_key from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = app_hidden.current_user_id()),
    'winningOptionKey', v_req.winning_option_key,
    'leadingOptionKey', app_hidden.poll_winner(v_req.id, v_req.options),
    'votingClosedAt', v_req.voting_closed_at);
end
$$;
comment on function app_tools.action_requests_results(args jsonb) is 'actionRequests.results: A poll''s results: per option {optionKey, label, count, firstVoteAt}, total, myVote, winningOptionKey (named by closeVoting; null when the poll was closed with its request instead), leadingOptionKey (by the same rule) and votingClosedAt.';
grant execute on function app_tools.action_requests_results(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/results.sql
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
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent); else 403 admin_required.';
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
  values (p_workspace_id, p_profile_key, p_name, coalesce(p_capabilities, '{}'), coalesce(p_provider, 'CUSTOM'),
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
    perform app_hidden.raise_not_found('Event');
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
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

create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid)
 returns text
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
  end if;
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update set secret = excluded.secret, rotated_at = now();
  return v_secret;
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns it (shown once).';

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
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher) and sets it OFFLINE.';

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
    perform app_hidden.raise_not_found('Event');
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included canvas/canvas.sql
-- canvas: finders, shapes and limits of the canvas tools.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A card is shown when the caller sees it (RLS: an issue card follows its issue's narrowing) and, for an issue
-- card, the issue is not deleted (a restored issue's card comes back). Hidden cards are left out with their edges.
-- The one definition of the rule: canvas_node_shown, canvas_shown_node_ids (canvas.get, canvas_json) apply it.
create or replace function app_hidden.canvas_shows_node(n app_public.canvas_nodes)
 returns boolean
 language sql
 stable
as $$
  -- No FROM: inlined into the callers' queries. The row itself was read under RLS, so only the issue is left.
  select n.issue_id is null
         or exists (select 1 from app_public.issues i where i.id = n.issue_id and i.deleted_at is null)
$$;
comment on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) is 'Whether a card the caller read (RLS) is shown: a text card, or an issue card whose issue the caller sees and is not deleted.';
grant execute on function app_hidden.canvas_shows_node(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_node_shown(p_node_id uuid)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.canvas_nodes n where n.id = p_node_id and app_hidden.canvas_shows_node(n))
$$;
comment on function app_hidden.canvas_node_shown(p_node_id uuid) is 'Whether the caller is shown this card (canvas_shows_node): it sees the card (RLS) and, for an issue card, the issue is not deleted.';
grant execute on function app_hidden.canvas_node_shown(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shown_node_ids(p_canvas_id uuid)
 returns uuid[]
 language sql
 stable
as $$
  select coalesce(array_agg(n.id), '{}') from app_public.canvas_nodes n
  where n.workspace_id = app_hidden.current_workspace_id() and n.canvas_id = p_canvas_id
    and app_hidden.canvas_shows_node(n)
$$;
comment on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) is 'The ids of the cards of a canvas the caller is shown (canvas_shows_node).';
grant execute on function app_hidden.canvas_shown_node_ids(p_canvas_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer)
 returns record
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every card and edge, hidden ones included: limits must not depend on what the calling key sees.
  select (select count(*)::int from app_public.canvas_nodes n
          where n.canvas_id = p_canvas_id and n.workspace_id = app_hidden.current_workspace_id()),
         (select count(*)::int from app_public.canvas_edges e
          where e.canvas_id = p_canvas_id and e.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) is 'How many cards and edges a canvas of the caller''s workspace holds, those the key cannot see included (for the limits and narrowed deletes; counts only).';
grant execute on function app_hidden.canvas_size(p_canvas_id uuid, OUT node_count integer, OUT edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_node_edge_ids(p_node_id uuid)
 returns uuid[]
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Every edge of the card, those to cards the key cannot see included: canvas.removeNode names all the edges its
  -- card takes along (the foreign keys remove them whatever the key sees). Edge ids only: they name no issue.
  select coalesce(array_agg(e.id order by e.id), '{}') from app_public.canvas_edges e
  where e.workspace_id = app_hidden.current_workspace_id() and (e.from_node_id = p_node_id or e.to_node_id = p_node_id)
$$;
comment on function app_hidden.canvas_node_edge_ids(p_node_id uuid) is 'The ids of every edge from or to a card of the caller''s workspace, edges to cards the key cannot see included (for canvas.removeNode''s removedEdgeIds; ids only).';
grant execute on function app_hidden.canvas_node_edge_ids(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid)
 returns uuid[]
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- The issues of every card connected to this one, hidden ones included: a removal's event names them, so a key
  -- that cannot see one of them does not learn, from removedEdgeIds, that the card was connected to it.
  select coalesce(array_agg(distinct n.issue_id) filter (where n.issue_id is not null), '{}')
  from app_public.canvas_edges e
  join app_public.canvas_nodes n on n.id = case when e.from_node_id = p_node_id then e.to_node_id else e.from_node_id end
  where e.workspace_id = app_hidden.current_workspace_id() and (e.from_node_id = p_node_id or e.to_node_id = p_node_id)
$$;
comment on function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid) is 'The issue ids of the cards connected to a card of the caller''s workspace, cards the key cannot see included (for the issueIds of canvas.removeNode''s event; read by the events policy, never shown to a key that cannot see them).';
grant execute on function app_hidden.canvas_node_neighbour_issue_ids(p_node_id uuid) to svc_visitor;

create or replace function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', c.id, 'name', c.name, 'description', c.description,
                            'archived', c.archived_at is not null, 'archivedAt', c.archived_at,
                            'nodeCount', p_node_count, 'edgeCount', p_edge_count,
                            'createdByUserId', c.created_by_user_id, 'createdByAgentId', c.created_by_agent_id,
                            'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) is 'Canvas {id, name, description, archived, archivedAt, nodeCount, edgeCount, createdByUserId, createdByAgentId, createdAt, updatedAt} with the given counts.';
grant execute on function app_hidden.canvas_shape(c app_public.canvases, p_node_count integer, p_edge_count integer) to svc_visitor;

create or replace function app_hidden.canvas_json(c app_public.canvases)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_ids uuid[] := app_hidden.canvas_shown_node_ids(c.id);
begin
  return app_hidden.canvas_shape(c, cardinality(v_ids),
    (select count(*)::int from app_public.canvas_edges e
     where e.workspace_id = c.workspace_id and e.canvas_id = c.id and e.from_node_id in (select unnest(v_ids)) and e.to_node_id in (select unnest(v_ids))));
end
$$;
comment on function app_hidden.canvas_json(c app_public.canvases) is 'Canvas shape whose nodeCount and edgeCount are what the caller is shown (as canvas.get).';
grant execute on function app_hidden.canvas_json(c app_public.canvases) to svc_visitor;

create or replace function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- No FROM: inlined into canvas.get's query, which joins the issue and its status.
  select jsonb_build_object('id', n.id, 'canvasId', n.canvas_id, 'kind', n.kind, 'issueId', n.issue_id,
    'issue', case when i.id is not null then jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title, 'priority', i.priority,
                                                                  'status', jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)) end,
    'text', n.text, 'x', n.x, 'y', n.y, 'width', n.width, 'height', n.height, 'color', n.color,
    'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) is 'Canvas node {id, canvasId, kind, issueId, issue {id, key, title, priority, status} (issue cards), text, x, y, width, height, color, createdAt, updatedAt} from the rows the caller joined.';
grant execute on function app_hidden.canvas_node_json(n app_public.canvas_nodes, i app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.canvas_node_view(n app_public.canvas_nodes)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.canvas_node_json(n, i, s)
  from (select 1) one
  left join app_public.issues i on i.id = n.issue_id
  left join app_public.statuses s on s.id = i.status_id
$$;
comment on function app_hidden.canvas_node_view(n app_public.canvas_nodes) is 'One canvas node''s shape (canvas_node_json), its issue and status read as the caller.';
grant execute on function app_hidden.canvas_node_view(n app_public.canvas_nodes) to svc_visitor;

create or replace function app_hidden.canvas_edge_json(e app_public.canvas_edges)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', e.id, 'canvasId', e.canvas_id, 'fromNodeId', e.from_node_id, 'toNodeId', e.to_node_id,
                            'label', e.label, 'createdAt', e.created_at)
$$;
comment on function app_hidden.canvas_edge_json(e app_public.canvas_edges) is 'Canvas edge {id, canvasId, fromNodeId, toNodeId, label, createdAt}.';
grant execute on function app_hidden.canvas_edge_json(e app_public.canvas_edges) to svc_visitor;

create or replace function app_hidden.find_canvas(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select c from app_public.canvases c
     where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
    'Canvas', p_field);
end
$$;
comment on function app_hidden.find_canvas(p_id text, p_field text) is 'A canvas of the caller''s workspace by id, else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_locked(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  -- Locked until commit, and read after the lock is granted: a write computed from this row (canvas.update's
  -- patch, canvas.delete's check) sees every change committed before it and none can slip in after it.
  select * into v_canvas from app_public.canvases c
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()
  for update;
  if v_canvas.id is null then
    raise exception 'Canvas not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_locked(p_id text, p_field text) is 'A canvas of the caller''s workspace, locked until commit (its current row), else 404 naming the field (id unless named).';
grant execute on function app_hidden.find_canvas_locked(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_for_change(p_id text, p_field text default 'id'::text)
 returns app_public.canvases
 language plpgsql
as $$
declare v_canvas app_public.canvases := app_hidden.find_canvas_locked(p_id, p_field);
begin
  -- Locked: card and edge writes of one canvas take turns, so the limits (and duplicate checks) hold under
  -- concurrent calls.
  if v_canvas.archived_at is not null then
    raise exception 'Canvas "%" is archived; unarchive it (canvas.update archived false) to change its cards and edges', v_canvas.name
      using errcode = 'SV409', detail = 'canvas_archived';
  end if;
  return v_canvas;
end
$$;
comment on function app_hidden.find_canvas_for_change(p_id text, p_field text) is 'A canvas of the caller''s workspace whose cards or edges are about to change, locked until commit (find_canvas_locked); 404 naming the field, 409 canvas_archived for an archived one.';
grant execute on function app_hidden.find_canvas_for_change(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_node(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_nodes
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select n from app_public.canvas_nodes n
     where n.id = v_id and n.workspace_id = app_hidden.current_workspace_id() and app_hidden.canvas_node_shown(n.id)),
    'Canvas node', p_field);
end
$$;
comment on function app_hidden.find_canvas_node(p_id text, p_field text) is 'A card the caller is shown (canvas_node_shown), else 404 naming the field: a card of an issue the key cannot see, or of a deleted issue, reads as missing.';
grant execute on function app_hidden.find_canvas_node(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_canvas_edge(p_id text, p_field text default 'id'::text)
 returns app_public.canvas_edges
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(p_id, p_field);
begin
  return app_hidden.found(
    (select e from app_public.canvas_edges e
     where e.id = v_id and e.workspace_id = app_hidden.current_workspace_id()
       and app_hidden.canvas_node_shown(e.from_node_id) and app_hidden.canvas_node_shown(e.to_node_id)),
    'Canvas edge', p_field);
end
$$;
comment on function app_hidden.find_canvas_edge(p_id text, p_field text) is 'An edge whose two cards the caller is shown, else 404 naming the field.';
grant execute on function app_hidden.find_canvas_edge(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text)
 returns void
 language plpgsql
as $$
declare v_size record;
begin
  select * into v_size from app_hidden.canvas_size(p_canvas_id);
  -- Limits keep canvas.get one bounded answer (500 cards, 1,000 edges).
  if p_what = 'node' and v_size.node_count >= 500 then
    raise exception 'A canvas holds at most 500 nodes and this one is full; remove nodes or start another canvas'
      using errcode = 'SV409', detail = 'canvas_node_limit';
  elsif p_what = 'edge' and v_size.edge_count >= 1000 then
    raise exception 'A canvas holds at most 1000 edges and this one is full; disconnect edges or start another canvas'
      using errcode = 'SV409', detail = 'canvas_edge_limit';
  end if;
end
$$;
comment on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) is 'Raises 409 canvas_node_limit (500 cards) or canvas_edge_limit (1,000 edges) when the canvas has no room for one more node or edge (p_what).';
grant execute on function app_hidden.canvas_require_room(p_canvas_id uuid, p_what text) to svc_visitor;

drop function if exists app_hidden.canvas_changed(uuid, jsonb);  -- now with the cards' issues (issueIds)

create or replace function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[])
 returns void
 language plpgsql
as $$
begin
  -- A card or edge change is a change of the canvas: it stamps updatedAt and writes CANVAS_UPDATED. The event names
  -- the issues of the cards it touches (issueIds; [] for text cards), so the events policy shows it to a narrowed
  -- key only when that key sees them all (event_subject_visible), as RLS shows it those cards.
  update app_public.canvases set updated_at = now() where id = p_canvas_id;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', p_canvas_id,
    jsonb_build_object('canvasId', p_canvas_id) || p_payload || jsonb_build_object('issueIds', to_jsonb(array_remove(p_issue_ids, null))));
end
$$;
comment on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[]) is 'After a card or edge change: stamps the canvas''s updatedAt and records CANVAS_UPDATED {canvasId, change, ...payload, issueIds} (issueIds: the issues of the cards touched, nulls of text cards left out).';
grant execute on function app_hidden.canvas_changed(p_canvas_id uuid, p_payload jsonb, p_issue_ids uuid[]) to svc_visitor;
--! EndIncluded canvas/canvas.sql
--! Included canvas/tools/removeNode.sql
-- The canvas.removeNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a card the caller is shown and its edges from a live canvas (an issue card's issue stays).
-- CANVAS_UPDATED {change: 'node_removed', nodeId, kind, removedEdgeIds, issueIds}: every edge that went, those to
-- cards the key cannot see included, in the event and in the answer alike; the event's issueIds name the issues of
-- the connected cards too, so keys that cannot see them do not read it.
create or replace function app_tools.canvas_remove_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_edge_ids uuid[];
  v_issue_ids uuid[];
begin
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  -- Collected through the definer (RLS hides edges to cards the key cannot see); the canvas lock keeps the set
  -- until the foreign keys remove those edges with the card.
  v_edge_ids := app_hidden.canvas_node_edge_ids(v_node.id);
  -- The event names the card's issue and those of the cards it was connected to: its removedEdgeIds tell of those
  -- connections, so only keys that see all those issues read it.
  v_issue_ids := array[v_node.issue_id] || app_hidden.canvas_node_neighbour_issue_ids(v_node.id);
  delete from app_public.canvas_nodes where id = v_node.id;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_removed', 'nodeId', v_node.id, 'kind', v_node.kind, 'removedEdgeIds', to_jsonb(v_edge_ids)), v_issue_ids);
  return jsonb_build_object('id', v_node.id, 'canvasId', v_node.canvas_id, 'removed', true, 'removedEdgeIds', to_jsonb(v_edge_ids));
end
$$;
comment on function app_tools.canvas_remove_node(args jsonb) is 'canvas.removeNode: Remove a card and its edges from its canvas (an issue card''s issue stays).';
grant execute on function app_tools.canvas_remove_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/removeNode.sql
--! Included canvas/tools/connect.sql
-- The canvas.connect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a directed edge between two cards of a live canvas that the caller is shown; no self-loop (400), the same
-- directed edge once (409 edge_exists), at most 1,000 per canvas (409 canvas_edge_limit).
-- CANVAS_UPDATED {change: 'edge_added', edgeId, fromNodeId, toNodeId, issueIds} (canvas_changed).
create or replace function app_tools.canvas_connect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_for_change(args->>'canvasId', 'canvasId');
  v_from app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'fromNodeId', 'fromNodeId');
  v_to app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'toNodeId', 'toNodeId');
  v_edge app_public.canvas_edges;
begin
  -- A card of another canvas reads as missing on this one.
  if v_from.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'fromNodeId';
  elsif v_to.canvas_id <> v_canvas.id then
    raise exception 'Canvas node not found on this canvas' using errcode = 'SV404', column = 'toNodeId';
  elsif v_from.id = v_to.id then
    perform app_hidden.raise_invalid('toNodeId', 'a node cannot be connected to itself');
  end if;
  if exists (select 1 from app_public.canvas_edges e
             where e.workspace_id = v_canvas.workspace_id and e.canvas_id = v_canvas.id and e.from_node_id = v_from.id and e.to_node_id = v_to.id) then
    raise exception 'These nodes are already connected in this direction' using errcode = 'SV409', detail = 'edge_exists';
  end if;
  perform app_hidden.canvas_require_room(v_canvas.id, 'edge');
  insert into app_public.canvas_edges (workspace_id, canvas_id, from_node_id, to_node_id, label)
  values (v_canvas.workspace_id, v_canvas.id, v_from.id, v_to.id, nullif(args->>'label', ''))
  returning * into v_edge;
  perform app_hidden.canvas_changed(v_canvas.id, jsonb_build_object(
    'change', 'edge_added', 'edgeId', v_edge.id, 'fromNodeId', v_from.id, 'toNodeId', v_to.id), array[v_from.issue_id, v_to.issue_id]);
  return app_hidden.canvas_edge_json(v_edge);
end
$$;
comment on function app_tools.canvas_connect(args jsonb) is 'canvas.connect: Draw an edge fromNodeId → toNodeId, two cards of canvasId, with an optional label. No self-loops; the same directed edge once (409 edge_exists). At most 1,000 edges per canvas (409 canvas_edge_limit).';
grant execute on function app_tools.canvas_connect(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/connect.sql
--! Included canvas/tools/disconnect.sql
-- The canvas.disconnect tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes an edge whose two cards the caller is shown, from a live canvas.
-- CANVAS_UPDATED {change: 'edge_removed', edgeId, fromNodeId, toNodeId, issueIds} (canvas_changed).
create or replace function app_tools.canvas_disconnect(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_edge app_public.canvas_edges := app_hidden.find_canvas_edge(args->>'id');
begin
  perform app_hidden.find_canvas_for_change(v_edge.canvas_id::text, 'id');
  v_edge := app_hidden.find_canvas_edge(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  delete from app_public.canvas_edges where id = v_edge.id;
  perform app_hidden.canvas_changed(v_edge.canvas_id, jsonb_build_object(
    'change', 'edge_removed', 'edgeId', v_edge.id, 'fromNodeId', v_edge.from_node_id, 'toNodeId', v_edge.to_node_id),
    -- Read as the caller: the edge was visible, so both its cards are.
    array(select n.issue_id from app_public.canvas_nodes n where n.id in (v_edge.from_node_id, v_edge.to_node_id)));
  return jsonb_build_object('id', v_edge.id, 'canvasId', v_edge.canvas_id, 'removed', true);
end
$$;
comment on function app_tools.canvas_disconnect(args jsonb) is 'canvas.disconnect: Remove an edge by its id.';
grant execute on function app_tools.canvas_disconnect(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/disconnect.sql
--! Included canvas/tools/updateNode.sql
-- The canvas.updateNode tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves, resizes, recolors (color null clears) a card the caller is shown, or edits a text card's text; only the
-- fields given change. CANVAS_UPDATED {change: 'node_updated', nodeId, changes, issueIds} when something did.
create or replace function app_tools.canvas_update_node(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_node app_public.canvas_nodes := app_hidden.find_canvas_node(args->>'id');
  v_new app_public.canvas_nodes;
  v_changes text[] := '{}';
begin
  if args->>'text' is not null and v_node.kind <> 'text' then
    perform app_hidden.raise_invalid('text', 'only text nodes carry text');
  end if;
  perform app_hidden.find_canvas_for_change(v_node.canvas_id::text, 'id');
  v_node := app_hidden.find_canvas_node(args->>'id');  -- again under the canvas lock: a concurrent removal is a 404
  v_new := v_node;
  v_new.x := coalesce((args->>'x')::double precision, v_node.x);
  v_new.y := coalesce((args->>'y')::double precision, v_node.y);
  v_new.width := coalesce((args->>'width')::double precision, v_node.width);
  v_new.height := coalesce((args->>'height')::double precision, v_node.height);
  v_new.text := coalesce(args->>'text', v_node.text);
  v_new.color := case when args ? 'color' then lower(args->>'color') else v_node.color end;
  if v_new.x is distinct from v_node.x then v_changes := array_append(v_changes, 'x'); end if;
  if v_new.y is distinct from v_node.y then v_changes := array_append(v_changes, 'y'); end if;
  if v_new.width is distinct from v_node.width then v_changes := array_append(v_changes, 'width'); end if;
  if v_new.height is distinct from v_node.height then v_changes := array_append(v_changes, 'height'); end if;
  if v_new.text is distinct from v_node.text then v_changes := array_append(v_changes, 'text'); end if;
  if v_new.color is distinct from v_node.color then v_changes := array_append(v_changes, 'color'); end if;
  if cardinality(v_changes) = 0 then
    return app_hidden.canvas_node_view(v_node);
  end if;
  update app_public.canvas_nodes
  set x = v_new.x, y = v_new.y, width = v_new.width, height = v_new.height, text = v_new.text, color = v_new.color
  where id = v_node.id
  returning * into v_node;
  perform app_hidden.canvas_changed(v_node.canvas_id, jsonb_build_object(
    'change', 'node_updated', 'nodeId', v_node.id, 'changes', to_jsonb(v_changes)), array[v_node.issue_id]);
  return app_hidden.canvas_node_view(v_node);
end
$$;
comment on function app_tools.canvas_update_node(args jsonb) is 'canvas.updateNode: Move, resize or recolor a card (color null clears), or edit a text card''s text. Only the fields given change.';
grant execute on function app_tools.canvas_update_node(args jsonb) to svc_visitor;
--! EndIncluded canvas/tools/updateNode.sql
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    -- A STALLED run is still the issue's open run (the agent may resume it): an agent that went quiet is not let off.
    and r.status in ('ACTIVE', 'WAITING', 'STALLED')
  order by r.started_at desc
  limit 1;
  -- The agent's newest open run decides: an old gated run left open does not block a newer EXECUTE run.
  if v_mode in ('RESEARCH', 'REVIEW', 'DISCUSS') then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent''s newest open (ACTIVE, WAITING or STALLED) run on the issue is in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The agent may be being archived right now (issues.assign, reassign and the dispatcher read it unlocked).
  perform app_hidden.lock_live_agent(p_agent.id);
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, reason reassigned) by trigger _810_run_abandoned.
    perform set_config('svc.run_end_reason', 'reassigned', true);
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run (AGENT_RUN_STATUS_CHANGED by trigger, reason reassigned), swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    -- Still live once locked: a concurrent delete may have got there first (then 404, as by id).
    select * into v_issue from app_public.issues where id = v_issue.id and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.label_id_list(p_json jsonb)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- A label listed twice is the label once, where it was first listed (it was a 409 on create). plpgsql: a SQL
  -- function with a sublink is not inlined and would be planned again in every create and update.
  return array(select u.id from unnest(app_hidden.uuid_array(p_json, 'labelIds')) with ordinality u(id, n)
               group by u.id order by min(u.n));
end
$$;
comment on function app_hidden.label_id_list(p_json jsonb) is 'The labelIds of an issues.create or issues.update input as uuid[] (400 on labelIds for a malformed one), each label once, in the order first given.';
grant execute on function app_hidden.label_id_list(p_json jsonb) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_cycle app_public.cycles;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.* into v_cycle from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v_cycle.id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
      -- As cycles.addIssue: only into a PLANNED or ACTIVE cycle (staying in the same cycle changes nothing).
      if v_cycle.id is distinct from p_issue.cycle_id then
        perform app_hidden.require_open_cycle(v_cycle);
      end if;
      v.cycle_id := v_cycle.id;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.label_id_list(args->'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;

-- issues.create's checks, apart from the insert: issues.createMany runs them for every item before any item
-- takes a number.
create or replace function app_hidden.issue_create_refs(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.label_id_list(args->'labelIds');
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
  end if;

  if cardinality(v_label_ids) > 0
     and (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- A narrowed key creates only inside its narrowing (spec 5.6, as issue_passes_narrowing for the new row):
  -- checked here, before the insert takes a number, rather than left to the insert policy.
  if not app_hidden.issues_unrestricted()
     and not (coalesce(v_project_id = any(app_hidden.narrowed_project_ids()), false)
              or v_label_ids && app_hidden.narrowed_label_ids()) then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;

  return jsonb_build_object('statusId', v_status_id, 'projectId', v_project_id, 'parentId', v_parent.id);
end
$$;
comment on function app_hidden.issue_create_refs(args jsonb) is 'issues.create''s checks without the insert: the status (default unless statusId), project, parent and labels, resolved as {statusId, projectId, parentId}; 404 naming the field otherwise; 403 narrowing when a narrowed key would create outside its narrowing.';
grant execute on function app_hidden.issue_create_refs(args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
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
  -- Most urgent first, then the longest waiting.
  -- Assigned and closed issues stay queued (only issues.queue/update {queued: false} clears it) but are no work to hand out.
  select i.* into v_issue from app_public.issues i
  where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
    and (select s.category from app_public.statuses s where s.id = i.status_id) not in ('DONE', 'CANCELED')
  order by array_position(array['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'], i.priority), i.created_at, i.id
  limit 1
  for update;
  if v_issue.id is null then
    return null;
  end if;

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
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned open (not DONE/CANCELED) issue goes to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

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
--! EndIncluded dispatch/dispatcher.sql
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
  elsif p_subject_type not in ('issue', 'comment', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
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
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_subject_id);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_subject_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    else return exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id);
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds); other subjects always.';
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
update app_public.action_requests set voting_closed_at = resolved_at
where options is not null and voting_closed_at is null and resolved_at is not null
  and status in ('RESOLVED', 'DISMISSED', 'REJECTED', 'SUPERSEDED');
