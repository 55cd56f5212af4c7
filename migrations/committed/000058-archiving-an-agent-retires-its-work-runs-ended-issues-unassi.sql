--! Previous: sha1:d7a27adeb5a777e5847dac44a17ed15e7047b999
--! Hash: sha1:14a0fdbb3b4f2ff5348625c908de91d7e6d03a64
--! Message: Archiving an agent retires its work (runs ended, issues unassigned, OFFLINE); produced artifacts are attachments of the run's issue; a completed plan ends its open step runs

--! split: 1-current.sql
-- Probe findings: archiving an agent retires its work; produced artifacts are attachments of the run's issue;
-- a completed plan ends its open step runs.
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  select case when app_hidden.current_workspace_id() is null or app_hidden.is_workspace_admin() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s key and the operator (it may carry a token).';
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
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s key (it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN: app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN: delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN: archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN: app_private.update_agent in the caller''s workspace.';
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

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_ASSIGNED by trigger; queued ones go back to
    -- the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
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
  v_run app_public.agent_runs := app_hidden.run_for_agent_change(args->>'runId', true);
  v_issue app_public.issues;
  v_field text;
  v_missing text[];
  v_unknown bigint;
begin
  select * into v_issue from app_public.issues where id = v_run.issue_id;
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
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict; DISCUSS takes a summary only. completionMeta keeps what was reported and the run contract version. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/complete.sql
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
  if v.id is null then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see (through its plan and goal), else 404 naming the field.';
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
  with members as (
    select m.agent_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role)
  select agent_id from members where i = coalesce(p_seed, 0) % n
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...), spread over the members by p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  v_agent := coalesce(p_step.assigned_agent_id,
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position));
  v_step := app_hidden.step_move(p_step, 'READY');
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step. A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id)
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
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE): its agent (assigned, else the crew member in its role, default WORKER) gets a run on the goal''s issue (reused on retry) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

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
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0-1}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
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
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.workspace_id = p_plan.workspace_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
    and r.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id);
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
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
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
      v_agent := (app_hidden.crew_agent(v_step->>'assignedAgentId', format('%s.%s.assignedAgentId', p_field, v_i))).id;
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
    v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
    perform app_hidden.plan_cascade(v_plan.id);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
