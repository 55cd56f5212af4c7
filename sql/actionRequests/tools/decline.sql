-- The actionRequests.decline tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rejects without dispatching; same permission gate as accept.
create or replace function app_tools.action_requests_decline(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.action_request_for_decision(args->>'id', 'declined');
begin
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, 'REJECTED'));
end
$$;
comment on function app_tools.action_requests_decline(args jsonb) is 'actionRequests.decline: Decline a request: REJECTED, nothing dispatched. Same permission as accept.';
grant execute on function app_tools.action_requests_decline(args jsonb) to svc_visitor;
