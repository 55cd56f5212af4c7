-- The actionRequests.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a request along its machine (409 for an illegal move).
create or replace function app_tools.action_requests_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.action_request_json(app_hidden.action_request_move(app_hidden.find_action_request(args->>'id', 'id', true), args->>'status'));
end
$$;
comment on function app_tools.action_requests_transition(args jsonb) is 'actionRequests.transition: Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Closed requests do not move (409).';
grant execute on function app_tools.action_requests_transition(args jsonb) to svc_visitor;
