-- The actionRequests.accept tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- runs the bound dispatch (same SQL, authorization and run-mode gating as the direct tool) and resolves, in one transaction.
create or replace function app_tools.action_requests_accept(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.action_request_for_decision(args->>'id', 'accepted');
  v_result jsonb;
begin
  -- Resolved first, so activating a plan from its approval request supersedes only the other open requests.
  v_req := app_hidden.action_request_move(v_req, 'RESOLVED');
  v_result := app_hidden.action_request_dispatch(v_req);
  update app_public.action_requests set dispatch_result = v_result where id = v_req.id returning * into v_req;
  return app_hidden.action_request_json(v_req);
end
$$;
comment on function app_tools.action_requests_accept(args jsonb) is 'actionRequests.accept: Accept a request: runs its bound dispatch (transition, labels, agent assignment, close as duplicate; a plan approval activates the plan) in the same transaction, with the same authorization and run-mode gating as the direct tool, and resolves it. Only the assignee (the assigned user, or the assigned agent''s own key), a watcher of its issue, or a workspace OWNER/ADMIN acting as a person (403 not_allowed otherwise); never its requester, unless an OWNER/ADMIN person (403 own_request: it withdraws it with transition DISMISSED), nor an agent working in the plan a plan approval is about (403 own_plan).';
grant execute on function app_tools.action_requests_accept(args jsonb) to svc_visitor;
