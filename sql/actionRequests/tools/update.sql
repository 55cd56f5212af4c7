-- The actionRequests.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the requester (or, besides, a workspace OWNER/ADMIN acting as a person) amends an open or snoozed request:
-- title, body, severity, dueAt, assignedUserId, assignedAgentId (null clears the nullable ones). Its kind,
-- bound payload and poll options stay. ISSUE_UPDATED (action-request, change updated, changes) when something
-- changed. Closed requests: 409 request_closed.
create or replace function app_tools.action_requests_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_new app_public.action_requests := v_req;
  v_changes text[];
begin
  if not (app_hidden.action_request_caller_is_requester(v_req) or app_hidden.caller_may_moderate()) then
    raise exception 'Only the requester (or a workspace OWNER/ADMIN) may change this request'
      using errcode = 'SV403', detail = 'not_requester';
  end if;
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be changed', v_req.status using errcode = 'SV409', detail = 'request_closed';
  end if;
  if args ? 'title' then v_new.title := args->>'title'; end if;
  if args ? 'body' then v_new.body := args->>'body'; end if;
  if args ? 'severity' then v_new.severity := args->>'severity'; end if;
  if args ? 'dueAt' then v_new.due_at := (args->>'dueAt')::timestamptz; end if;
  if args ? 'assignedUserId' then
    v_new.assigned_user_id := null;
    if args->>'assignedUserId' is not null then
      select m.user_id into v_new.assigned_user_id from app_public.memberships m
      where m.workspace_id = v_req.workspace_id and m.user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId');
      if v_new.assigned_user_id is null then
        raise exception 'User not found in this workspace' using errcode = 'SV404', column = 'assignedUserId';
      end if;
    end if;
  end if;
  if args ? 'assignedAgentId' then
    v_new.assigned_agent_id := case when args->>'assignedAgentId' is not null
      then (app_hidden.find_live_agent(args->>'assignedAgentId', 'assignedAgentId')).id end;
  end if;
  v_changes := array_remove(array[
    case when v_new.title is distinct from v_req.title then 'title' end,
    case when v_new.body is distinct from v_req.body then 'body' end,
    case when v_new.severity is distinct from v_req.severity then 'severity' end,
    case when v_new.due_at is distinct from v_req.due_at then 'dueAt' end,
    case when v_new.assigned_user_id is distinct from v_req.assigned_user_id then 'assignedUserId' end,
    case when v_new.assigned_agent_id is distinct from v_req.assigned_agent_id then 'assignedAgentId' end], null);
  if cardinality(v_changes) = 0 then
    return app_hidden.action_request_json(v_req);
  end if;
  update app_public.action_requests
  set title = v_new.title, body = v_new.body, severity = v_new.severity, due_at = v_new.due_at,
      assigned_user_id = v_new.assigned_user_id, assigned_agent_id = v_new.assigned_agent_id
  where id = v_req.id
  returning * into v_new;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_new.id, jsonb_build_object(
    'actionRequestId', v_new.id, 'issueId', v_new.issue_id, 'change', 'updated', 'changes', to_jsonb(v_changes),
    'assignedUserId', v_new.assigned_user_id, 'assignedAgentId', v_new.assigned_agent_id));
  return app_hidden.action_request_json(v_new);
end
$$;
grant execute on function app_tools.action_requests_update(args jsonb) to svc_visitor;
comment on function app_tools.action_requests_update(args jsonb) is 'actionRequests.update: The requester (or a workspace OWNER/ADMIN person) amends an open or snoozed request: title, body, severity, dueAt, assignee (null clears). Kind, payload and options stay. Closed: 409. To withdraw it, transition it to DISMISSED.';
