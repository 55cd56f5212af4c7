--! Previous: sha1:2ec1d81becd8d75ebb6f4a4b7f7e39d907f9d771
--! Hash: sha1:63c9e0dec8305e2007361bc7ccf1c7f155e8eeac
--! Message: Conformance fixes from outside probes of spec 4.2-4.15

--! split: 1-current.sql
-- From outside probes of spec 4.2-4.15:
-- * comments.create with an actionRequest needs WRITE_ISSUES (a WRITE_COMMENTS-only key made a card that closed an issue);
-- * a narrowed key changes the info of its own agent's runtime only (runtimes.reportInfo, runtimes.heartbeat with info);
-- * a narrowed key creating an action request without an issue is told 403 narrowing (it was a bare forbidden);
-- * the run-mode refusal names the gated issue;
-- * repohost.sync of a resource whose mapping is inactive is 422 mapping_inactive (it answered nothing to sync).
--! Included comments/tools/create.sql
-- The comments.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a comment on a visible issue; author = the key's user, authoringAgent = its linked agent (whose open run it
-- is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode. With actionRequest,
-- its recommendation card (a poll when it has options) is created in the same transaction (sourceType comment).
create or replace function app_tools.comments_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_request app_public.action_requests;
begin
  -- A recommendation card changes the issue once accepted: it needs what actionRequests.create needs (spec 4.11), not
  -- only WRITE_COMMENTS.
  if jsonb_typeof(args->'actionRequest') = 'object' then
    perform app_hidden.require_scope('WRITE_ISSUES');
  end if;
  if v_agent is not null then
    select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
    if v_run.id is not null then
      update app_public.agent_runs set last_event_at = now() where id = v_run.id;
    end if;
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, args->>'body', 'COMMENT', args->>'confidence',
          app_hidden.current_user_id(), v_agent, v_run.id)
  returning * into v_comment;
  if args->'actionRequest' is not null and jsonb_typeof(args->'actionRequest') = 'object' then
    v_request := app_hidden.action_request_insert(
      (args->'actionRequest') || jsonb_build_object('sourceType', 'comment', 'sourceId', v_comment.id),
      v_issue.id, v_comment.id, 'actionRequest.');
    return app_hidden.comment_json(v_comment) || jsonb_build_object('actionRequest', app_hidden.action_request_json(v_request));
  end if;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(args jsonb) is 'comments.create: Post a comment on an issue (markdown). The author is the key''s user; an agent-linked key is recorded as authoringAgent. Allowed in every run mode. With actionRequest, its recommendation card (a poll when it has options; fields as actionRequests.create) is created on the issue in the same transaction.';
grant execute on function app_tools.comments_create(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/create.sql
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
    perform app_hidden.raise_not_found('Runtime');
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
--! Included runtimes/tools/reportInfo.sql
-- The runtimes.reportInfo tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- merges the sanitized info into the runtime (default: the calling agent's runtime). Telemetry: no event.
create or replace function app_tools.runtimes_report_info(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_runtime app_public.runtimes;
  v_runtime_id uuid;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
  else
    if app_hidden.current_agent_id() is null then
      raise exception 'Give runtimeId, or call with a key linked to an agent' using errcode = 'SV400', column = 'runtimeId';
    end if;
    select a.runtime_id into v_runtime_id from app_public.agents a where a.id = app_hidden.current_agent_id();
    if v_runtime_id is null then
      raise exception 'The calling agent is not attached to a runtime (agents.heartbeat {runtimeId})'
        using errcode = 'SV409', detail = 'no_runtime';
    end if;
    v_runtime := app_hidden.find_live_runtime(v_runtime_id::text);
  end if;
  perform app_hidden.runtime_assert_may_report(v_runtime);
  update app_public.runtimes r set info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_report_info(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_report_info(args jsonb) is 'runtimes.reportInfo: Report runtime metadata; only the whitelisted keys (runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot) are stored, merged. Without runtimeId: the runtime of the calling key''s agent.';
--! EndIncluded runtimes/tools/reportInfo.sql
--! Included runtimes/tools/heartbeat.sql
-- The runtimes.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- bumps heartbeatAt (and merges sanitized info). Telemetry: no event.
create or replace function app_tools.runtimes_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_runtime app_public.runtimes := app_hidden.find_live_runtime(args->>'runtimeId');
begin
  if args->'info' is not null then
    perform app_hidden.runtime_assert_may_report(v_runtime);
  end if;
  update app_public.runtimes r
  set heartbeat_at = now(), info = r.info || app_hidden.runtime_info_sanitize(args->'info')
  where r.id = v_runtime.id
  returning * into v_runtime;
  return app_hidden.runtime_json(v_runtime);
end
$$;
grant execute on function app_tools.runtimes_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.runtimes_heartbeat(args jsonb) is 'runtimes.heartbeat: Bump heartbeatAt of a runtime (info, if given, is merged after the whitelist). An archived runtime: 409 runtime_archived (runtimes.register {runtimeId} restores it).';
--! EndIncluded runtimes/tools/heartbeat.sql
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
  select coalesce(case
    when p_request.requested_by_agent_id is not null then p_request.requested_by_agent_id is not distinct from app_hidden.current_agent_id()
    when p_request.requested_by_user_id is not null then app_hidden.current_agent_id() is null
                                                          and p_request.requested_by_user_id is not distinct from app_hidden.current_user_id()
    else app_hidden.caller_may_moderate() end, false)
$$;
comment on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) is 'Whether the calling key speaks for the requester: the requesting agent''s own key, or the requesting person''s key acting as a person (no linked agent); a request without a requester (raised by the system) counts as a workspace OWNER/ADMIN person''s. Never NULL. closeVoting and update use it.';
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
comment on function app_hidden.action_request_dispatch(p_request app_public.action_requests) is 'The bound dispatch run by accept, through the same SQL and gates as the direct tools (issue_for_write: visibility, lock, run-mode gating; update_issue, set_issue_labels, assign_issue_agent, relations.add): TRANSITION {statusId}, SET_LABELS {add, remove}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId? (default the first CANCELED status)}; FREE_FORM: a plan''s own approval request (plans.requestApproval, execution_plans.approval_request_id) activates the plan; any other does nothing.';
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
  -- Any open gated run of the agent on the issue gates it (spec 3.2), also when a newer EXECUTE run is open beside
  -- it (a plan step's run on the goal's issue): otherwise an agent told only to research could give itself a step
  -- and change the issue through that.
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    -- A STALLED run is still the issue's open run (the agent may resume it): an agent that went quiet is not let off.
    and r.status in ('ACTIVE', 'WAITING', 'STALLED')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    -- Named: the issue gated may not be the one the call named (a link, a parent, a shared external resource).
    raise exception 'Your % run on % may not change it: comment, upsert a status, set the run waiting or complete it instead',
      v_mode, (select i.key from app_public.issues i where i.id = p_issue_id)
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has any open (ACTIVE, WAITING or STALLED) run on the issue in RESEARCH, REVIEW or DISCUSS mode, whatever other runs it has open there. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = p_agent_id
    and status in ('ACTIVE', 'WAITING', 'STALLED');
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) is 'An agent''s open runs on an issue end (ABANDONED; AGENT_RUN_STATUS_CHANGED with p_reason by trigger): the issue was handed to another agent (reassigned) or taken from it (unassigned).';
grant execute on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) to svc_visitor;

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
    perform app_hidden.end_agent_runs_on_issue(p_issue, v_from, 'reassigned');
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

create or replace function app_hidden.lock_issues_in_order(p_items jsonb, p_field text)
 returns void
 language sql
as $$
  -- Bulk calls lock their issues in one order (by id) before the first item: two calls naming the same issues in
  -- different orders each locked one and waited for the other's (a deadlock, 1 s, then 409 after the retries).
  -- Refs that name no live visible issue lock nothing here; their item answers 404 as before.
  with refs as (
    select e->>p_field as ref, e->>p_field ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' as is_id
    from jsonb_array_elements(p_items) e)
  select 1 from app_public.issues i
  where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
    and (i.id = any (array(select ref::uuid from refs where is_id))
         or i.key = any (array(select upper(ref) from refs where not is_id)))
  order by i.id
  for update of i
$$;
comment on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) is 'Locks (FOR UPDATE, by id) the live visible issues a bulk call''s items name in p_field (id or key), before the items run: concurrent bulk calls over the same issues wait for each other instead of deadlocking.';
grant execute on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) to svc_visitor;

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
  -- A chain the walk could not finish (1,000 levels) counts as one: refusing is safe, assuming no cycle is not.
  select exists (select 1 from up where id = p_ancestor_id or (depth = 1000 and id is not null))
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only), or when that chain is deeper than 1,000 (not walked further). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean. Callers hold app_hidden.lock_issue_parents.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.lock_issue_parents()
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.parents:' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_issue_parents() is 'Serializes parent changes of the caller''s workspace for the transaction, so two concurrent ones cannot close a cycle between them (each checks a chain the other is changing). Take it before any issue row lock: issues.update, updateMany and restore take it first when they may set a parent.';
grant execute on function app_hidden.lock_issue_parents() to svc_visitor;

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
    if args->>'parentId' is not null then
      -- Held already when the tool took it before the issue's row lock (as it should); taken here otherwise.
      perform app_hidden.lock_issue_parents();
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle), or its chain of parents is over 1,000 deep');
      end if;
    end if;
    if v_parent.id is distinct from v.parent_id then
      -- A sub-issue that moves changes the tree of the parent it leaves and of the one it joins: run-mode gated on both.
      if v.parent_id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v.parent_id);
      end if;
      if v_parent.id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
      end if;
    end if;
    v.parent_id := v_parent.id;
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
    -- A new sub-issue changes its parent's tree: not by an agent whose run there only researches, reviews or discusses.
    perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
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

create or replace function app_public.repo_mappings_create(repo_full_name text, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v jsonb;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.check_repo_full_name(repo_full_name, 'repoFullName');
  v := app_hidden.repo_mapping_insert(app_hidden.current_workspace_id(), repo_full_name, token_env, api_url, status_rules, sync_title);
  return (select m from app_public.connection_mappings m where m.id = (v->>'id')::uuid);
end
$$;
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is 'OWNER/ADMIN: maps a repository (owner/name) for the repohost tools. tokenEnv names the environment variable holding the API token; apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
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
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is 'OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository.';
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
comment on function app_public.repo_mappings_delete(mapping_id uuid) is 'OWNER/ADMIN: removes a repository mapping; links and snapshots stay (without a mapping they can no longer be synced).';
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
