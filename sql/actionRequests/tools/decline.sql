-- The actionRequests.decline tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rejects without dispatching; same permission gate as accept.
create or replace function app_tools.action_requests_decline(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
begin
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v_req.status, 'declined' using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not app_hidden.action_request_may_decide(v_req) then
    raise exception 'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decline this request'
      using errcode = 'SV403', detail = 'not_allowed';
  end if;
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, 'REJECTED'));
end
$$;
comment on function app_tools.action_requests_decline(args jsonb) is 'actionRequests.decline: Decline a request: REJECTED, nothing dispatched. Same permission as accept.';
grant execute on function app_tools.action_requests_decline(args jsonb) to svc_visitor;
