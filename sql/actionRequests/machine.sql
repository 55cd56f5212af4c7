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
