-- The actionRequests.closeVoting tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- requester only; sets winningOptionKey (most votes, then earliest first vote, then first option); the request stays open. ISSUE_UPDATED (action-request).
create or replace function app_tools.action_requests_close_voting(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_total bigint;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  if not app_hidden.action_request_caller_is_requester(v_req) then
    raise exception 'Only the requester may close voting' using errcode = 'SV403', detail = 'not_requester';
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is already closed' using errcode = 'SV409', detail = 'voting_closed';
  end if;
  v_total := (select count(*) from app_public.action_request_votes v where v.request_id = v_req.id);
  update app_public.action_requests set voting_closed_at = now(),
    winning_option_key = case when v_total > 0 then app_hidden.poll_winner(v_req.id, v_req.options) else v_req.options->0->>'key' end
  where id = v_req.id returning * into v_req;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'close_voting', 'winningOptionKey', case when v_total > 0 then v_req.winning_option_key end,
    'total', v_total, 'issueId', v_req.issue_id));
  return jsonb_build_object('id', v_req.id, 'winningOptionKey', v_req.winning_option_key, 'total', v_total,
                            'votingClosedAt', v_req.voting_closed_at, 'status', v_req.status);
end
$$;
comment on function app_tools.action_requests_close_voting(args jsonb) is 'actionRequests.closeVoting: Close a poll (the requester only): the winner has the most votes, ties go to the option voted for first, no votes at all to the first option. The request itself stays open. Writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_close_voting(args jsonb) to svc_visitor;
