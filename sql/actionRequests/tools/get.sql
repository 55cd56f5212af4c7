-- The actionRequests.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one action request with its options and tally.
create or replace function app_tools.action_requests_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.action_request_json(app_hidden.find_action_request(args->>'id'));
end
$$;
comment on function app_tools.action_requests_get(args jsonb) is 'actionRequests.get: One action request by id, with its options and state.';
grant execute on function app_tools.action_requests_get(args jsonb) to svc_visitor;
