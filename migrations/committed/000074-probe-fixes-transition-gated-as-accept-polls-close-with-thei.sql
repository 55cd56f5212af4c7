--! Previous: sha1:3ee0dd31b5556cfbfc0913435291ce45fbcae1f4
--! Hash: sha1:6c998d666d04eb56578aab36a1a6c929d207b4cd
--! Message: Probe fixes: transition gated as accept, polls close with their request, gating while STALLED, step_done contract version, deleted issues' runs, webhookUrl to admins' own keys

--! split: 1-current.sql
-- From two outside probes (the agent half against the spec, a new user's walkthrough):
-- * actionRequests.transition: only who may accept or decline the request, or its requester; run-mode gated as accept.
-- * Closing a poll (accept, decline, transition, supersede) closes its voting.
-- * Run-mode gating holds while the run is STALLED (it is still the issue's open run).
-- * A run completed for its agent (a plan step accepted) keeps the run contract version in completionMeta.
-- * A deleted issue's runs are 404 to runs.get and gone from runs.list, as its comments and events.
-- * An agent's webhookUrl: a person's admin key, the agent's own keys and the operator; not other agents' keys.
-- * issues.list says how to list the dispatch pool (queued stays after assignment).
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
    perform app_hidden.find_agent(v_payload->>'agentId', null, p_field || 'payload.agentId');
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
    v_agent := (app_hidden.find_agent(args->>'assignedAgentId', null, p_field || 'assignedAgentId')).id;
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
      return jsonb_build_object('action', 'activate_plan', 'planId', v_plan.id,
                                'readyStepIds', to_jsonb(app_hidden.plan_activate(v_plan)));
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
  -- Who may decide it (as accept/decline) or its requester (withdrawing what they asked); an agent in a gated run
  -- on its issue may not, as it may not accept it.
  if not (app_hidden.action_request_may_decide(v_req) or app_hidden.action_request_caller_is_requester(v_req)) then
    raise exception 'Only the assignee, a watcher of its issue, the requester or a workspace OWNER/ADMIN may move this request'
      using errcode = 'SV403', detail = 'not_allowed';
  end if;
  if v_req.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v_req.issue_id);
  end if;
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, args->>'status'));
end
$$;
comment on function app_tools.action_requests_transition(args jsonb) is 'actionRequests.transition: Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Who: whoever may accept or decline it, or its requester (403 not_allowed otherwise; 403 run_mode_gated for an agent in a RESEARCH, REVIEW or DISCUSS run on its issue). Closed requests do not move (409); closing a poll closes its voting.';
grant execute on function app_tools.action_requests_transition(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/transition.sql
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
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an open (ACTIVE, WAITING or STALLED) run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
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
--! Included runs/runs.sql
-- runs: the run contract, run changes by the run's agent, and the stale-run sweep.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.run_contract_version()
 returns text
 language sql
 immutable parallel safe
as $$ select '2026-11-01'::text $$;
comment on function app_hidden.run_contract_version() is 'Version of the run contract (completion gates, runProtocol). Stored in completionMeta.contractVersion by runs.complete and shown in agent.context.bundle runProtocol.';
grant execute on function app_hidden.run_contract_version() to svc_visitor;

create or replace function app_hidden.find_run(p_run_id text, p_field text default 'runId'::text)
 returns app_public.agent_runs
 language plpgsql
 stable
as $$
declare v_run app_public.agent_runs;
begin
  -- A deleted issue's runs are gone with it (404, as its comments and events), until it is restored.
  select r.* into v_run from app_public.agent_runs r
  join app_public.issues i on i.id = r.issue_id and i.deleted_at is null
  where r.id = app_hidden.parse_uuid(p_run_id, p_field) and r.workspace_id = app_hidden.current_workspace_id();
  if v_run.id is null then
    raise exception 'Run not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_run;
end
$$;
comment on function app_hidden.find_run(p_run_id text, p_field text) is 'A run the caller can see (its issue is visible to the key and not deleted); 404 naming the field otherwise.';
grant execute on function app_hidden.find_run(p_run_id text, p_field text) to svc_visitor;

create or replace function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(p_run_id);
begin
  if app_hidden.current_agent_id() is distinct from v_run.agent_id then
    raise exception 'Only a key linked to the run''s agent may change this run' using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if p_open_only and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  return v_run;
end
$$;
comment on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) is 'A visible run locked FOR UPDATE, after checking that the calling key is linked to the run''s agent (403 not_run_agent) and, with p_open_only, that it is not COMPLETED or ABANDONED (409 run_closed). The entry of recordUsage, complete, setWaiting and resumeWork.';
grant execute on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) to svc_visitor;

create or replace function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'from', p_from,
    'to', r.status, 'engagementMode', r.engagement_mode, 'reason', p_reason)
$$;
comment on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) is 'Payload of AGENT_RUN_STATUS_CHANGED: runId, agentId, issueId, from, to, engagementMode, reason.';
grant execute on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_from text := r.status;
begin
  if p_to = 'ABANDONED' then  -- its event is written by trigger _810_run_abandoned (every path to ABANDONED)
    perform set_config('svc.run_end_reason', coalesce(p_reason, ''), true);
  end if;
  update app_public.agent_runs
  set status = p_to, last_event_at = now(),
      finished_at = case when p_to in ('COMPLETED', 'ABANDONED') then now() end,
      -- Every completed run keeps the run contract version (spec 2.11), those completed for the agent too (a plan
      -- step accepted: reason step_done); runs.complete has written its own completionMeta already.
      completion_meta = case when p_to = 'COMPLETED' and completion_meta is null
                             then jsonb_build_object('contractVersion', app_hidden.run_contract_version(), 'completedAt', now(), 'reason', p_reason)
                             else completion_meta end
  where id = r.id
  returning * into r;
  if p_to = 'ABANDONED' then
    perform set_config('svc.run_end_reason', '', true);
  else
    perform app_hidden.record_event('AGENT_RUN_STATUS_CHANGED', 'issue', r.issue_id,
      app_hidden.run_status_payload(r, v_from, p_reason));
  end if;
  return r;
end
$$;
comment on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) is 'Moves a run to another status (finishedAt on COMPLETED/ABANDONED, lastEventAt bumped; a COMPLETED run without completionMeta gets {contractVersion, completedAt, reason}) and writes AGENT_RUN_STATUS_CHANGED (subject: the run''s issue; for ABANDONED trigger _810_run_abandoned writes it with p_reason).';
grant execute on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_list_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.run_json(r) || jsonb_build_object(
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                        'workspace', jsonb_build_object('key', w.key))
              from app_public.issues i join app_public.workspaces w on w.id = i.workspace_id
              where i.id = r.issue_id))
$$;
comment on function app_hidden.run_list_json(r app_public.agent_runs) is 'A runs.list row (spec 4.9): the run''s scalars, agent {id, profileKey, name} and issue {id, key, number, title, workspace {key}}.';
grant execute on function app_hidden.run_list_json(r app_public.agent_runs) to svc_visitor;

create or replace function app_hidden.run_protocol(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(),
    'runId', r.id,
    'engagementMode', coalesce(r.engagement_mode, 'EXECUTE'),
    'modeInstruction', case coalesce(r.engagement_mode, 'EXECUTE')
      when 'EXECUTE' then 'Do the work. Before runs.complete: attach at least one produced artifact when artifactRequired, and report every verificationChecklist item done in verificationResult.'
      when 'RESEARCH' then 'Investigate and report; do not change the issue (update, transition, assign, labels are rejected). Complete with a summary and a confidence (LOW, MEDIUM, HIGH).'
      when 'REVIEW' then 'Review the work and do not change the issue. Complete with a summary and a verdict: APPROVE or REQUEST_CHANGES.'
      when 'DISCUSS' then 'Reply only (comments, chat); do not change the issue. Complete with a summary and nothing else.'
    end,
    'protocolInstruction', 'Keep one rolling status line with comments.upsertStatus; report cumulative token usage with runs.recordUsage; '
      || 'call runs.setWaiting while blocked on someone and runs.resumeWork when you continue; finish with runs.complete {runId, summary, ...}. '
      || 'A run quiet for ' || coalesce((select w.agent_run_stale_minutes from app_public.workspaces w where w.id = r.workspace_id), 30)
      || ' minutes is marked STALLED.',
    'mayMutateIssue', r.id is null or (r.engagement_mode = 'EXECUTE' and r.status in ('ACTIVE', 'WAITING', 'STALLED')))
$$;
comment on function app_hidden.run_protocol(r app_public.agent_runs) is 'runProtocol of agent.context.bundle: contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue (false in RESEARCH, REVIEW and DISCUSS runs and once a run is closed).';
grant execute on function app_hidden.run_protocol(r app_public.agent_runs) to svc_visitor;

create or replace function app_private.sweep_stale_runs(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_run app_public.agent_runs;
  v_fired jsonb := '[]';
begin
  for v_run in
    select r.* from app_public.agent_runs r join app_public.workspaces w on w.id = r.workspace_id
    where r.status = 'ACTIVE' and r.last_event_at < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by r.workspace_id, r.last_event_at
    for update of r skip locked
  loop
    update app_public.agent_runs set status = 'STALLED' where id = v_run.id;
    perform app_private.record_event(v_run.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', v_run.issue_id,
      jsonb_build_object('runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id, 'from', 'ACTIVE',
        'to', 'STALLED', 'engagementMode', v_run.engagement_mode, 'reason', 'stale',
        'quietMinutes', floor(extract(epoch from p_now - v_run.last_event_at) / 60)::int));
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_RUN_STALLED', 'subjectId', v_run.id,
      'issueId', v_run.issue_id, 'agentId', v_run.agent_id, 'workspaceId', v_run.workspace_id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.sweep_stale_runs(p_now timestamp with time zone) is 'Stale-run sweep (decisions: Runs): ACTIVE runs whose lastEventAt is older than the workspace''s agentRunStaleMinutes at p_now become STALLED, each with AGENT_RUN_STATUS_CHANGED (reason stale). Returns [{kind: AGENT_RUN_STALLED, subjectId: runId, issueId, agentId, workspaceId}]. Run every minute by the worker (cron svc_watchdog_sweep, with the watchdogs) and by svc admin sweep.';
--! EndIncluded runs/runs.sql
--! Included runs/tools/list.sql
-- The runs.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- runs on issues the key can see, newest first by startedAt; filters agentId, issueId, status; {items, nextCursor}.
create or replace function app_tools.runs_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid;
  v_agent uuid := app_hidden.parse_uuid(args->>'agentId', 'agentId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  if args->>'before' is not null then
    select k.sort_key, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode_ts(args->>'before', 'runs', 'before') k;
  end if;
  with page as (
    select r from app_public.agent_runs r
    where r.workspace_id = app_hidden.current_workspace_id()
      and (v_agent is null or r.agent_id = v_agent)
      and (v_issue is null or r.issue_id = v_issue)
      and (args->>'status' is null or r.status = args->>'status')
      and (v_after_ts is null or (r.started_at, r.id) < (v_after_ts, v_after_id))
      and exists (select 1 from app_public.issues i where i.id = r.issue_id and i.deleted_at is null)  -- as find_run
    order by r.started_at desc, r.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.run_list_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('runs', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
grant execute on function app_tools.runs_list(args jsonb) to svc_visitor;
comment on function app_tools.runs_list(args jsonb) is 'runs.list: Agent runs on issues the key can see, newest first by startedAt: status, currentStep, timestamps, token usage, costUsd, issue {id, key, number, title, workspace {key}}, agent {id, profileKey}. Page with before = nextCursor.';
--! EndIncluded runs/tools/list.sql
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
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text;
  v_items json[];
  v_keys text[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text;
  v_rank text := 'null::real';
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session (force_generic_plan: left to choose, the plan cache re-planned it in every call for a workspace
    -- of 100,000 issues, where a generic LIMIT looks costlier than a custom plan: 2.7 ms a call instead of
    -- 1.7), reading the (workspace_id, number) index from the cursor down. Filtered calls EXECUTE their
    -- query, planned per call whatever this setting says.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode_int(args->>'cursor', 'issues');
    end if;
    select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number desc),
           array_agg((t.i).number::text order by (t.i).number desc)
    into v_items, v_keys
    from (select i from app_public.issues i
          where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
          order by i.number desc limit v_limit + 1) t
    left join app_public.statuses s on s.id = (t.i).status_id
    left join app_public.projects p on p.id = (t.i).project_id
    left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  else
    -- Filters (shared with issues.count): the query is built for them (planned per call, so each filter
    -- gets its own index).
    select f.from_sql, f.where_sql, f.search into v_from, v_where, v_query from app_hidden.issues_filter(args) f;
    if v_query is not null then
      -- Full-text search: ranked, paged by (rank, number) from the cursor on.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        select array_agg(app_hidden.issue_lean_json(i, s, p, a) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
        join app_public.issues i on i.id = m.id
        left join app_public.statuses s on s.id = i.status_id
        left join app_public.projects p on p.id = i.project_id
        left join app_public.agents a on a.id = i.assigned_agent_id;
        return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issues-search');
      elsif v_after is not null then
        v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode_int(args->>'cursor', 'issues'));
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by %s), array_agg(%s order by %s)
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id',
      v_outer_order, v_sort, v_outer_order, v_rank, v_from, v_where, v_order, v_limit + 1)
    into v_items, v_keys
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued (the flag stays after assignment: the dispatch pool is queued true, assignedAgentId null, open true).';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included actionRequests/tools/vote.sql
-- The actionRequests.vote tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- records or overwrites the callers vote; ISSUE_UPDATED (action-request) with optionKey, previousOptionKey, changed.
create or replace function app_tools.action_requests_vote(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_user uuid := app_hidden.require_user();
  v_prev text;
  v_id uuid;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  -- A poll decided (accepted, declined, dismissed, ...) takes no more votes: its outcome would no longer follow them.
  -- Said first: closing the request also closed its voting, and its status says why.
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'This poll is %: voting is over', v_req.status using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is closed' using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if not exists (select 1 from jsonb_array_elements(v_req.options) o where o->>'key' = args->>'optionKey') then
    perform app_hidden.raise_invalid('optionKey', format('unknown option %s (options: %s)', args->>'optionKey',
      (select string_agg(o->>'key', ', ') from jsonb_array_elements(v_req.options) o)));
  end if;
  select v.option_key into v_prev from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  insert into app_public.action_request_votes (workspace_id, request_id, user_id, option_key)
  values (v_req.workspace_id, v_req.id, v_user, args->>'optionKey')
  on conflict (request_id, user_id) do update
    set option_key = excluded.option_key, voted_at = now()
    where action_request_votes.option_key is distinct from excluded.option_key
  returning id into v_id;
  if v_id is null then
    select v.id into v_id from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  end if;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'vote', 'optionKey', args->>'optionKey', 'previousOptionKey', v_prev,
    'changed', v_prev is distinct from args->>'optionKey', 'issueId', v_req.issue_id));
  return jsonb_build_object('id', v_id, 'actionRequestId', v_req.id, 'optionKey', args->>'optionKey',
                            'previousOptionKey', v_prev, 'changed', v_prev is distinct from args->>'optionKey');
end
$$;
comment on function app_tools.action_requests_vote(args jsonb) is 'actionRequests.vote: Vote on a poll: one vote per user, re-voting overwrites until voting is closed (then 400). Returns {id, optionKey, changed}; writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_vote(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/vote.sql
