-- The actionRequests.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- creates a request (options[] makes it a poll); the caller is the requester. ISSUE_UPDATED (action-request) by trigger.
create or replace function app_tools.action_requests_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue uuid;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return app_hidden.action_request_json(app_hidden.action_request_insert(args, v_issue, null));
end
$$;
comment on function app_tools.action_requests_create(args jsonb) is 'actionRequests.create: Ask a person or agent to decide: a recommendation card whose kind binds what accept runs (TRANSITION {statusId}, SET_LABELS {add?, remove?}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId?}, or FREE_FORM). options[] (2-20 {key, label, description?}) make it a poll. The caller is the requester.';
grant execute on function app_tools.action_requests_create(args jsonb) to svc_visitor;
