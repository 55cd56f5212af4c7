--! Previous: sha1:32783e64c850ca88b46404e7bb31ed770da3625c
--! Hash: sha1:58880bed53667bd1306c227527a49fdc504efc04
--! Message: issues.unassign; requesters get no decide buttons

--! split: 1-current.sql
-- viewerMayDecide is false for the requester of a request (it may not decide it: 403 own_request), so the board offers
-- it no Accept/Decline buttons; one function says who that is (action_request_is_own).
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

create or replace function app_hidden.action_request_is_own(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  select (p_request.requested_by_agent_id is not null or p_request.requested_by_user_id is not null)
     and app_hidden.action_request_caller_is_requester(p_request)
     and not coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
$$;
comment on function app_hidden.action_request_is_own(p_request app_public.action_requests) is 'Whether the calling key asked for this request (its requesting agent, or its requesting person acting as a person) and is not a workspace OWNER/ADMIN person: it may withdraw the request but not decide it (403 own_request). Never NULL.';
grant execute on function app_hidden.action_request_is_own(p_request app_public.action_requests) to svc_visitor;

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
begin
  -- Who decides (accept, decline, transition): action_request_may_decide, and the requester where p_requester_may.
  if not (app_hidden.action_request_may_decide(p_request)
          or (coalesce(p_requester_may, false) and app_hidden.action_request_caller_is_requester(p_request))) then
    raise exception '%', p_refusal using errcode = 'SV403', detail = 'not_allowed';
  end if;
  -- Nobody decides what they asked for, even as its assignee or a watcher of its issue (a planner would approve its
  -- own plan, a worker accept the move it asked someone to make): the requester only withdraws it. A workspace
  -- OWNER/ADMIN person may, as they may make the change directly.
  if not coalesce(p_requester_may, false) and app_hidden.action_request_is_own(p_request) then
    raise exception 'The requester of this request may not decide it; it may withdraw it (actionRequests.transition DISMISSED)'
      using errcode = 'SV403', detail = 'own_request';
  end if;
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if p_request.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(p_request.issue_id);
  end if;
end
$$;
comment on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) is 'The gate of accept, decline and transition: 403 not_allowed (message p_refusal) unless the caller may decide the request (action_request_may_decide) or, with p_requester_may, is its requester; 403 own_request for its requester deciding it (unless p_requester_may, or an OWNER/ADMIN person); 403 run_mode_gated for an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue.';
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
--! Included actionRequests/shapes.sql
-- actionRequests: JSON shapes and poll arithmetic (spec 2.13, 4.11).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop function if exists app_hidden.with_visible_duplicate(jsonb);  -- now app_hidden.with_visible_issue (issues/shapes.sql)

-- GraphQL reads payload and dispatchResult through with_visible_issue, never the raw columns (a narrowed key read
-- the id of a hidden duplicate there).
comment on column app_public.action_requests.payload is E'@behavior -*\nThe bound dispatch''s arguments (by kind). GraphQL: ActionRequest.payload (app_public.action_requests_payload).';
comment on column app_public.action_requests.dispatch_result is E'@behavior -*\nWhat accept did (the bound dispatch''s result), kept for audit. GraphQL: ActionRequest.dispatchResult.';

comment on column app_public.action_requests.source_id is E'@behavior -*\nWhat the request came from (sourceType). GraphQL: ActionRequest.sourceId (app_public.action_requests_source_id).';

create or replace function app_public.action_requests_source_id(r app_public.action_requests)
 returns uuid
 language sql
 stable
as $$ select case when r.source_type = 'issue' then app_hidden.visible_issue_id(r.source_id) else r.source_id end $$;
comment on function app_public.action_requests_source_id(r app_public.action_requests) is 'What the request came from (sourceType); an issue the key cannot see is null.';
grant execute on function app_public.action_requests_source_id(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_payload(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_payload(r app_public.action_requests) is 'The bound dispatch''s arguments (by kind); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_payload(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_dispatch_result(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_dispatch_result(r app_public.action_requests) is 'What accept did (the bound dispatch''s result); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_dispatch_result(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_json(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'title', r.title, 'body', r.body, 'severity', r.severity, 'kind', r.kind,
    -- The issue a CLOSE_AS_DUPLICATE names only if the caller may see it (as in its dispatch result).
    'payload', app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId'),
    'assignedUserId', r.assigned_user_id, 'assignedAgentId', r.assigned_agent_id, 'issueId', r.issue_id,
    'commentId', r.comment_id, 'dueAt', r.due_at, 'sourceType', r.source_type, 'sourceId', app_public.action_requests_source_id(r),
    'status', r.status, 'options', coalesce(r.options, '[]'::jsonb), 'isPoll', r.options is not null,
    'votingClosedAt', r.voting_closed_at, 'winningOptionKey', r.winning_option_key,
    'requestedByUserId', r.requested_by_user_id, 'requestedByAgentId', r.requested_by_agent_id,
    'resolvedAt', r.resolved_at, 'resolvedByUserId', r.resolved_by_user_id, 'resolvedByAgentId', r.resolved_by_agent_id,
    'dispatchResult', app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId'), 'createdAt', r.created_at, 'updatedAt', r.updated_at)
$$;
comment on function app_hidden.action_request_json(r app_public.action_requests) is 'ActionRequest (spec 2.13) with isPoll, requester, resolution and the result of its bound dispatch.';
grant execute on function app_hidden.action_request_json(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.poll_tally(p_request_id uuid, p_options jsonb)
 returns table(option_key text, label text, ord bigint, votes bigint, first_vote_at timestamp with time zone)
 language sql
 stable
as $$
  select o.opt->>'key', o.opt->>'label', o.ord,
         (select count(*) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key'),
         (select min(v.voted_at) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key')
  from jsonb_array_elements(coalesce(p_options, '[]')) with ordinality o(opt, ord)
$$;
comment on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) is 'Per option of a poll: its votes and the time of its earliest current vote, in options[] order.';
grant execute on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) to svc_visitor;

create or replace function app_hidden.poll_winner(p_request_id uuid, p_options jsonb)
 returns text
 language sql
 stable
as $$
  select t.option_key from app_hidden.poll_tally(p_request_id, p_options) t
  order by t.votes desc, t.first_vote_at asc nulls last, t.ord asc
  limit 1
$$;
comment on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) is 'The winner of a poll (spec 4.11): most votes; ties go to the option voted for first; with no votes at all, the first option.';
grant execute on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) to svc_visitor;

create or replace function app_public.action_requests_viewer_may_decide(r app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- A closed request has nothing left to decide (accept and decline answer 409): no buttons for it.
  select r.status in ('OPEN', 'SNOOZED') and app_hidden.action_request_may_decide(r) and not app_hidden.action_request_is_own(r)
$$;
comment on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) is 'Whether the calling key may accept or decline this request now: it is open (OPEN or SNOOZED) and the key is its assignee, a watcher of its issue, or a person whose workspace role is OWNER or ADMIN, and not its requester unless such a person (the gate accept and decline apply). A board shows its buttons by it.';
grant execute on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_vote_counts(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_object_agg(t.option_key, t.votes), '{}') from app_hidden.poll_tally(r.id, r.options) t
$$;
comment on function app_public.action_requests_vote_counts(r app_public.action_requests) is 'A poll''s votes per option key ({} for a request without options), counted in the database: a board shows them whatever the number of voters.';
grant execute on function app_public.action_requests_vote_counts(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_viewer_vote(r app_public.action_requests)
 returns text
 language sql
 stable
as $$
  select v.option_key from app_public.action_request_votes v
  where v.request_id = r.id and v.user_id = app_hidden.current_user_id()
$$;
comment on function app_public.action_requests_viewer_vote(r app_public.action_requests) is 'The option key the calling key''s user voted for on this poll, or null.';
grant execute on function app_public.action_requests_viewer_vote(r app_public.action_requests) to svc_visitor;
--! EndIncluded actionRequests/shapes.sql

-- issues.unassign: take an issue from its agent (its open runs end, reason unassigned). There was no way to.
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
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, reason unassigned) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', 'unassigned', true);
  update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where workspace_id = v_issue.workspace_id and issue_id = v_issue.id and agent_id = v_issue.assigned_agent_id
    and status in ('ACTIVE', 'WAITING', 'STALLED');
  perform set_config('svc.run_end_reason', '', true);
  update app_public.issues set assigned_agent_id = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. Not assigned: unchanged. Returns the full issue.';
--! EndIncluded issues/tools/unassign.sql
