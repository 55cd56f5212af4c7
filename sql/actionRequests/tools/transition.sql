-- The actionRequests.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a request along its machine (409 for an illegal move).
create or replace function app_tools.action_requests_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
begin
  -- Who may decide it (as accept/decline) moves it anywhere; its requester only withdraws it (DISMISSED), or it
  -- would resolve its own request (a planner its plan's approval).
  perform app_hidden.action_request_assert_may_act(v_req, args->>'status' = 'DISMISSED',
    'Only the assignee, a watcher of its issue or a workspace OWNER/ADMIN may move this request (its requester may dismiss it)');
  return app_hidden.action_request_json(app_hidden.action_request_move(v_req, args->>'status'));
end
$$;
comment on function app_tools.action_requests_transition(args jsonb) is 'actionRequests.transition: Move an open request to RESOLVED, DISMISSED, SNOOZED or REJECTED (a SNOOZED one also back to OPEN) without running its dispatch. Who: whoever may accept or decline it; its requester may only dismiss it (403 own_request), unless an OWNER/ADMIN person (403 not_allowed otherwise; 403 run_mode_gated for an agent in a RESEARCH, REVIEW or DISCUSS run on its issue). Closed requests do not move (409); closing a poll closes its voting.';
grant execute on function app_tools.action_requests_transition(args jsonb) to svc_visitor;
