-- The actionRequests.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one request the key can see (a request on an issue follows its narrowing; one assigned to the key's agent
-- or user is visible to it), as actionRequests.list shows it.
create or replace function app_tools.action_requests_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.action_request_json(app_hidden.find_action_request(args->>'id'));
end
$$;
grant execute on function app_tools.action_requests_get(args jsonb) to svc_visitor;
comment on function app_tools.action_requests_get(args jsonb) is 'actionRequests.get: One action request by id, as actionRequests.list shows it.';
