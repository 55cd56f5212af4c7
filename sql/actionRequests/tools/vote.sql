-- The actionRequests.vote tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- records or overwrites the callers vote; ISSUE_UPDATED (action-request) with optionKey, previousOptionKey, changed.
create or replace function app_tools.action_requests_vote(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_user uuid := app_hidden.require_user();
  v_prev text;
  v_id uuid;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  -- A poll decided (accepted, declined, dismissed, ...) takes no more votes: its outcome would no longer follow them.
  -- Said first: closing the request also closed its voting, and its status says why.
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'This poll is %: voting is over', v_req.status using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is closed' using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if not exists (select 1 from jsonb_array_elements(v_req.options) o where o->>'key' = args->>'optionKey') then
    perform app_hidden.raise_invalid('optionKey', format('unknown option %s (options: %s)', args->>'optionKey',
      (select string_agg(o->>'key', ', ') from jsonb_array_elements(v_req.options) o)));
  end if;
  select v.option_key into v_prev from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  insert into app_public.action_request_votes (workspace_id, request_id, user_id, option_key)
  values (v_req.workspace_id, v_req.id, v_user, args->>'optionKey')
  on conflict (request_id, user_id) do update
    set option_key = excluded.option_key, voted_at = now()
    where action_request_votes.option_key is distinct from excluded.option_key
  returning id into v_id;
  if v_id is null then
    select v.id into v_id from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  end if;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'vote', 'optionKey', args->>'optionKey', 'previousOptionKey', v_prev,
    'changed', v_prev is distinct from args->>'optionKey', 'issueId', v_req.issue_id));
  -- id is the request's, as the input's and closeVoting's (spec 4.11); the vote's own id is voteId.
  return jsonb_build_object('id', v_req.id, 'optionKey', args->>'optionKey',
                            'previousOptionKey', v_prev, 'changed', v_prev is distinct from args->>'optionKey', 'voteId', v_id);
end
$$;
comment on function app_tools.action_requests_vote(args jsonb) is 'actionRequests.vote: Vote on a poll: one vote per user, re-voting overwrites until voting is closed (then 400). Returns {id (the request''s), optionKey, changed, previousOptionKey, voteId}; writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_vote(args jsonb) to svc_visitor;
