-- The actionRequests.results tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- per option count and firstVoteAt, total, the callers vote, the winner once closed (and the current leader).
create or replace function app_tools.action_requests_results(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id');
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  return jsonb_build_object(
    'id', v_req.id,
    'options', (select coalesce(jsonb_agg(jsonb_build_object('optionKey', t.option_key, 'label', t.label, 'count', t.votes,
                                                             'firstVoteAt', t.first_vote_at) order by t.ord), '[]')
                from app_hidden.poll_tally(v_req.id, v_req.options) t),
    'total', (select count(*) from app_public.action_request_votes v where v.request_id = v_req.id),
    'myVote', (select v.option_key from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = app_hidden.current_user_id()),
    'winningOptionKey', v_req.winning_option_key,
    'leadingOptionKey', app_hidden.poll_winner(v_req.id, v_req.options),
    'votingClosedAt', v_req.voting_closed_at);
end
$$;
comment on function app_tools.action_requests_results(args jsonb) is 'actionRequests.results: A poll''s results: per option {optionKey, label, count, firstVoteAt}, total, myVote, winningOptionKey (named by closeVoting; null when the poll was closed with its request instead), leadingOptionKey (by the same rule) and votingClosedAt.';
grant execute on function app_tools.action_requests_results(args jsonb) to svc_visitor;
