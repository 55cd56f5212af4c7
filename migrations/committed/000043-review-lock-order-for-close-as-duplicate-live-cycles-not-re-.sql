--! Previous: sha1:7c4a08bd4f4c07e1bba6b96b1a53b31e832bedc6
--! Hash: sha1:553f4801b2559058ab3fdcdf2518715507eed20f
--! Message: review: lock order for close-as-duplicate, live cycles not re-dated into the past, hidden initiative ids in project events and filters

--! split: 1-current.sql
-- From a review of this session's change:
-- - accepting a close-as-duplicate request takes the workspace's DUPLICATES lock before the issue's row lock, as
--   relations.add does (the other order could deadlock with a concurrent relations.add);
-- - a live cycle cannot be re-dated to end before today (it could never be re-dated back);
-- - an initiative-narrowed key reads initiativeId null in PROJECT_* events of a hidden initiative, and
--   projects.list {initiativeId} of an initiative it cannot see is 404.
--! Included relations/relations.sql
-- relations: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', (select app_hidden.issue_ref_json(i) from app_public.issues i
              where i.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) is 'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end.';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid)
 returns boolean
 language sql
 stable
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a chain may pass through issues the caller's narrowing hides, and it still makes a cycle.
  -- Links of deleted issues are left out (they are gone everywhere else too).
  with recursive reach(issue_id) as (
    select p_from
    union
    select r.to_issue_id
    from reach join app_public.issue_relations r
      on r.from_issue_id = reach.issue_id and r.workspace_id = app_hidden.current_workspace_id() and r.kind = p_kind
    join app_public.issues i on i.id = r.to_issue_id and i.deleted_at is null)
  select exists (select 1 from reach where issue_id = p_to)
$$;
comment on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) is 'Whether a chain of p_kind links (BLOCKS or DUPLICATES) leads from p_from to p_to in the caller''s workspace, through any issue (definer: narrowing does not break a cycle). relations.add refuses the link that would close one.';
grant execute on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) to svc_visitor;

create or replace function app_hidden.lock_directed_relations(p_kind text)
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.relation:' || p_kind || ':' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_directed_relations(p_kind text) is 'Serializes BLOCKS (or DUPLICATES) links of the caller''s workspace for the transaction, so two concurrent links cannot close a cycle between them. Take it before any issue row lock (relations.add does; accepting a close-as-duplicate request takes it first).';
grant execute on function app_hidden.lock_directed_relations(p_kind text) to svc_visitor;
--! EndIncluded relations/relations.sql
--! Included relations/tools/add.sql
-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409, as is one
-- closing a longer cycle of them.
create or replace function app_tools.relations_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;
  -- One decision at a time: two concurrent calls linking A→B and B→A would each see no reverse link and both
  -- insert. Directed kinds are serialized per workspace (a cycle can close through any pair), RELATES_TO per pair.
  if v_s_kind = 'RELATES_TO' then
    perform pg_advisory_xact_lock(hashtextextended('svc.relation:' || least(v_s_from, v_s_to)::text || greatest(v_s_from, v_s_to)::text, 0));
  else
    perform app_hidden.lock_directed_relations(v_s_kind);
  end if;

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and app_hidden.relation_path_exists(v_s_kind, v_s_to, v_s_from) then
    -- A longer cycle (A BLOCKS B BLOCKS C, then C BLOCKS A) would leave every issue on it waiting on itself.
    raise exception '% % % would close a cycle: a chain of % links already leads from % back to %',
      (select key from app_public.issues where id = v_s_from), v_s_kind, (select key from app_public.issues where id = v_s_to),
      v_s_kind, (select key from app_public.issues where id = v_s_to), (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'relation_cycle';
  end if;

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId; one that already exists comes back with created false. No self-links, and no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists or relation_cycle).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
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
--! Included cycles/tools/update.sql
-- The cycles.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, startsOn, endsOn (no overlaps; an ended or canceled cycle keeps its dates, 409 cycle_closed; a live one
-- cannot be made to end before today, 400 endsOn); CYCLE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.cycles_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    -- An ended or canceled cycle is history: re-dated, it would come back as PLANNED or ACTIVE with its old issues.
    if app_hidden.cycle_status(v_cycle) in ('COMPLETED', 'CANCELED') then
      raise exception 'Cycle % is %: its dates can no longer change (create a new cycle)', v_cycle.name, lower(app_hidden.cycle_status(v_cycle))
        using errcode = 'SV409', detail = 'cycle_closed';
    end if;
    -- Nor does a live one become history by a date change: it could not be re-dated back (above), and its
    -- unfinished issues would stay in it without a rollover. A past cycle is made with cycles.create.
    if v_ends < app_hidden.utc_today() then
      raise exception 'endsOn % is before today: the cycle would end at once, and an ended cycle keeps its dates', v_ends
        using errcode = 'SV400', column = 'endsOn';
    end if;
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends);
    perform app_hidden.check_one_active_cycle(v_cycle.id, v_starts, v_ends);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(args jsonb) is 'cycles.update: Rename or re-date a cycle (name, startsOn, endsOn; no overlaps; an ended or canceled cycle keeps its dates, and a live one cannot be made to end before today). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_update(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/update.sql
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.project_event_payload(p_payload jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- An initiative-narrowed key sees every project's events, but not the id of an initiative outside its
  -- narrowing (as project_json hides it).
  if p_payload->>'initiativeId' is null or cardinality(app_hidden.narrowed_initiative_ids()) = 0
     or (p_payload->>'initiativeId')::uuid = any(app_hidden.narrowed_initiative_ids()) then
    return p_payload;
  end if;
  return p_payload || '{"initiativeId": null}';
end
$$;
comment on function app_hidden.project_event_payload(p_payload jsonb) is 'A PROJECT_* event payload as the caller may read it: initiativeId null when the key''s initiative narrowing leaves that initiative out.';
grant execute on function app_hidden.project_event_payload(p_payload jsonb) to svc_visitor;

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns json
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  -- json (text), not jsonb: events.recent joins its page as text (twice the pages per second).
  select case when p_with_actor then json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload) else e.payload end,
    'createdAt', e.created_at, 'actor', coalesce(
       case when a.id is not null then json_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
  else json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', case when e.subject_type = 'project' then app_hidden.project_event_payload(e.payload) else e.payload end,
    'createdAt', e.created_at) end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape (json) from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)::jsonb
$$;
comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED',
    'INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'CYCLE_CREATED', 'CYCLE_UPDATED', 'GOAL_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration, initiatives, cycles); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included.';
--! EndIncluded events/record.sql
--! Included projects/tools/list.sql
-- The projects.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId
-- filter (null = without initiative; one the key cannot see is 404).
create or replace function app_tools.projects_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  -- An initiative the key cannot see is 404 here as everywhere (filtering by it would tell its projects).
  v_initiative uuid := case when args->>'initiativeId' is not null
                            then (app_hidden.find_initiative(args->>'initiativeId', 'initiativeId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'projects');
begin
  return app_hidden.page_json(array(
    select (app_hidden.project_json(p), app_hidden.ts_key(p.created_at), p.id)::app_hidden.page_row
    from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           or (v_initiative is null and p.initiative_id is null)
           or p.initiative_id = v_initiative)
      and (v_after.sort_id is null or (p.created_at, p.id) > (v_after.sort_key, v_after.sort_id))
    order by p.created_at, p.id limit v_limit + 1), v_limit, 'projects');
end
$$;
comment on function app_tools.projects_list(args jsonb) is 'projects.list: Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative; one the key cannot see is 404).';
grant execute on function app_tools.projects_list(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/list.sql
--! Included cycles/tools/create.sql
-- The cycles.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays /
-- cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.
create or replace function app_tools.cycles_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends);
  if coalesce((args->>'activate')::boolean, false) then
    if (app_hidden.current_cycle()).id is not null then
      raise exception 'Another cycle is active: a cycle is activated early only while none runs (the running one ends on its endsOn)' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  perform app_hidden.check_one_active_cycle(null, v_starts, v_ends);
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. A cycle is ACTIVE while its dates include today, COMPLETED once they have passed, PLANNED before; activate: true makes a future one current now when no other is; while it waits for its dates, no other cycle may span today (409 active_cycle_exists). Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
