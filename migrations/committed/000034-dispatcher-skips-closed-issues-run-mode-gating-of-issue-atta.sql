--! Previous: sha1:d2ce7907ce21336b8ce3c293133b490e8013e5ab
--! Hash: sha1:b2b1c31b6120b3ccaf7d71fb72ac0c759c95b560
--! Message: dispatcher skips closed issues; run-mode gating of issue attachments and request decisions

--! split: 1-current.sql
-- From an outside probe of the agent loop: the dispatcher hands out no closed (DONE/CANCELED) queued issue; run-mode
-- gating (spec 3.2) covers attachments on the issue and deciding (accept/decline) an action request on it.
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
  -- Closed issues stay queued (queued is only cleared by assignment) but are no work to hand out.
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

  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id;
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
      resolved_by_agent_id = case when v_closing then app_hidden.current_agent_id() end
  where id = p_request.id
  returning * into v;  -- ISSUE_UPDATED (action-request, change status) by trigger
  return v;
end
$$;
comment on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) is 'The request machine (shared decisions): OPEN → RESOLVED | DISMISSED | SNOOZED | REJECTED | SUPERSEDED, SNOOZED → OPEN or any of those; closed states are terminal (409 illegal_transition).';
grant execute on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) to svc_visitor;

create or replace function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid)
 returns void
 language plpgsql
as $$
declare v app_public.action_requests;
begin
  for v in select * from app_public.action_requests r
           where r.source_type = p_source_type and r.source_id = p_source_id and r.status in ('OPEN', 'SNOOZED')
           for update loop
    perform app_hidden.action_request_move(v, 'SUPERSEDED');
  end loop;
end
$$;
comment on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) is 'SUPERSEDEs the open requests raised for a source (a plan''s earlier approval requests once it is activated, canceled or asked again).';
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
begin
  if v_kind <> 'FREE_FORM' and p_issue_id is null then
    perform app_hidden.raise_invalid(p_field || 'issueId', format('a %s request acts on an issue: give issueId', v_kind));
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
    perform app_hidden.find_agent(v_payload->>'agentId', null, p_field || 'payload.agentId');
  elsif v_kind = 'CLOSE_AS_DUPLICATE' then
    if (app_hidden.find_issue(v_payload->>'duplicateOfIssueId', p_field || 'payload.duplicateOfIssueId')).id = p_issue_id then
      perform app_hidden.raise_invalid(p_field || 'payload.duplicateOfIssueId', 'an issue cannot duplicate itself');
    end if;
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
    v_agent := (app_hidden.find_agent(args->>'assignedAgentId', null, p_field || 'assignedAgentId')).id;
  end if;
  if args->'options' is not null and jsonb_typeof(args->'options') = 'array' then
    select array_agg(o->>'key') into v_keys from jsonb_array_elements(args->'options') o;
    if cardinality(v_keys) <> (select count(distinct k) from unnest(v_keys) k) then
      perform app_hidden.raise_invalid(p_field || 'options', 'option keys must be unique');
    end if;
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
      return jsonb_build_object('action', 'activate_plan', 'planId', v_plan.id,
                                'readyStepIds', to_jsonb(app_hidden.plan_activate(v_plan)));
    end if;
    return jsonb_build_object('action', 'none');
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
    v_agent := app_hidden.find_agent(v_payload->>'agentId', null, 'payload.agentId');
    if v_agent.archived_at is not null then
      raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'payload.agentId', detail = 'agent_archived';
    end if;
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
comment on function app_hidden.action_request_dispatch(p_request app_public.action_requests) is 'The bound dispatch run by accept, through the same SQL and gates as the direct tools (issue_for_write: visibility, lock, run-mode gating; update_issue, set_issue_labels, assign_issue_agent, relations.add): TRANSITION {statusId}, SET_LABELS {add, remove}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId? (default the first CANCELED status)}; FREE_FORM with sourceType execution-plan activates the plan.';
grant execute on function app_hidden.action_request_dispatch(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_for_decision(p_id text, p_verb text)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests := app_hidden.find_action_request(p_id, 'id', true);
begin
  if v.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v.status, p_verb using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not app_hidden.action_request_may_decide(v) then
    raise exception 'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decide this request'
      using errcode = 'SV403', detail = 'not_allowed';
  end if;
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if v.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v.issue_id);
  end if;
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise), decidable by the caller (403 not_allowed otherwise) and not by an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue (403 run_mode_gated).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
--! Included attachments/tools/attachLink.sql
-- The attachments.attachLink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a LINK attachment (mimeType text/url, size 0). Without linkTitle the insert trigger puts the hostname
-- in and enqueues the job that fetches the page title.
create or replace function app_tools.attachments_attach_link(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_url text := args->>'externalUrl';
  v_host text := app_hidden.url_hostname(v_url);
  v_title text := nullif(btrim(args->>'linkTitle'), '');
  v_row app_public.attachments;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if v_url !~* '^https?://' or v_host is null or v_host = '' then
    perform app_hidden.raise_invalid('externalUrl', 'must be an http:// or https:// URL');
  end if;
  insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, link_title, filename,
                                      mime_type, size_bytes, created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), 'LINK', args->>'targetType', v_target.target_id, v_url,
          v_title, coalesce(v_title, v_host), 'text/url', 0,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_row;
  return app_hidden.attachment_json(v_row) || jsonb_build_object('titlePending', v_title is null);
end
$$;
grant execute on function app_tools.attachments_attach_link(args jsonb) to svc_visitor;
comment on function app_tools.attachments_attach_link(args jsonb) is 'attachments.attachLink: Attach a link (kind LINK, mimeType text/url, size 0) to an issue, comment, cycle or initiative. Without linkTitle the hostname stands in until a background job has fetched the page title (5 s, redirects followed, 64 KB read).';
--! EndIncluded attachments/tools/attachLink.sql
--! Included attachments/tools/initUpload.sql
-- The attachments.initUpload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- Checks the target, the 25 MB per-file limit and the workspace quota (finalized files plus open uploads),
-- records the upload (its trigger schedules the job that removes it if it is never finalized). The Node half signs
-- the PUT URL for the returned key.
create or replace function app_tools.attachments_init_upload(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_size bigint := (args->>'sizeBytes')::bigint;
  v_quota bigint;
  v_used bigint;
  v_id uuid := gen_random_uuid();
  v_expires timestamptz := now() + make_interval(secs => coalesce((args->>'expiresInSeconds')::int, 900));
  v_key text;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if v_size is null or v_size < 1 or v_size > 26214400 then
    perform app_hidden.raise_invalid('sizeBytes', 'must be 1 to 26214400 bytes (25 MB per file)');
  end if;
  select w.attachment_quota_mb::bigint * 1048576 into v_quota from app_public.workspaces w where w.id = v_ws;
  v_used := app_hidden.attachment_bytes_used(v_ws);
  if v_used + v_size > v_quota then
    raise exception 'Attachment quota exceeded: % of % MB used, this file needs % bytes', round(v_used / 1048576.0, 1), v_quota / 1048576, v_size
      using errcode = 'SV422', detail = 'quota_exceeded';
  end if;
  v_key := v_ws || '/' || v_id;
  insert into app_public.attachment_uploads (id, workspace_id, storage_key, target_type, target_id, filename, mime_type,
                                             size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  values (v_id, v_ws, v_key, args->>'targetType', v_target.target_id, args->>'filename', lower(args->>'mimeType'), v_size,
          app_hidden.current_user_id(), app_hidden.current_agent_id(), v_expires);
  return jsonb_build_object('key', v_key, 'uploadId', v_id, 'expiresAt', v_expires, 'sizeBytes', v_size,
    'mimeType', lower(args->>'mimeType'), 'filename', args->>'filename',
    'targetType', args->>'targetType', 'targetId', v_target.target_id);
end
$$;
grant execute on function app_tools.attachments_init_upload(args jsonb) to svc_visitor;
comment on function app_tools.attachments_init_upload(args jsonb) is 'attachments.initUpload: Start a file upload to an issue, comment, cycle or initiative: returns {uploadUrl, key}. PUT the bytes to uploadUrl (e.g. curl -T file "<uploadUrl>") before expiresAt, then call attachments.finalize with the key. 25 MB per file; the workspace quota (attachmentQuotaMb) counts finalized files and open uploads.';
--! EndIncluded attachments/tools/initUpload.sql
--! Included attachments/tools/delete.sql
-- The attachments.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a visible attachment (its target's event by trigger); returns it with its object key so the
-- Node half deletes the blob after the commit.
create or replace function app_tools.attachments_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.attachments := app_hidden.attachment_visible(args->>'id');
begin
  if v_row.target_type = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_row.target_id);
  end if;
  delete from app_public.attachments a where a.id = v_row.id;
  return app_hidden.attachment_blob_ref(v_row) || jsonb_build_object('deleted', true);
end
$$;
grant execute on function app_tools.attachments_delete(args jsonb) to svc_visitor;
comment on function app_tools.attachments_delete(args jsonb) is 'attachments.delete: Delete an attachment: its row, and for a file its blob in the object store.';
--! EndIncluded attachments/tools/delete.sql
