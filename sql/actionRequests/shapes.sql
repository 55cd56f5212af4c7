-- actionRequests: JSON shapes and poll arithmetic (spec 2.13, 4.11).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop function if exists app_hidden.with_visible_duplicate(jsonb);  -- now app_hidden.with_visible_issue (issues/shapes.sql)

-- GraphQL reads payload and dispatchResult through with_visible_issue, never the raw columns (a narrowed key read
-- the id of a hidden duplicate there).
comment on column app_public.action_requests.payload is E'@behavior -*\nThe bound dispatch''s arguments (by kind). GraphQL: ActionRequest.payload (app_public.action_requests_payload).';
comment on column app_public.action_requests.dispatch_result is E'@behavior -*\nWhat accept did (the bound dispatch''s result), kept for audit. GraphQL: ActionRequest.dispatchResult.';

comment on column app_public.action_requests.source_id is E'@behavior -*\nWhat the request came from (sourceType). GraphQL: ActionRequest.sourceId (app_public.action_requests_source_id).';

create or replace function app_public.action_requests_source_id(r app_public.action_requests)
 returns uuid
 language sql
 stable
as $$ select case when r.source_type = 'issue' then app_hidden.visible_issue_id(r.source_id) else r.source_id end $$;
comment on function app_public.action_requests_source_id(r app_public.action_requests) is 'What the request came from (sourceType); an issue the key cannot see is null.';
grant execute on function app_public.action_requests_source_id(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_payload(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_payload(r app_public.action_requests) is 'The bound dispatch''s arguments (by kind); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_payload(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_dispatch_result(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId') $$;
comment on function app_public.action_requests_dispatch_result(r app_public.action_requests) is 'What accept did (the bound dispatch''s result); a duplicate the key cannot see is null.';
grant execute on function app_public.action_requests_dispatch_result(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_json(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'title', r.title, 'body', r.body, 'severity', r.severity, 'kind', r.kind,
    -- The issue a CLOSE_AS_DUPLICATE names only if the caller may see it (as in its dispatch result).
    'payload', app_hidden.with_visible_issue(r.payload, 'duplicateOfIssueId'),
    'assignedUserId', r.assigned_user_id, 'assignedAgentId', r.assigned_agent_id, 'issueId', r.issue_id,
    'commentId', r.comment_id, 'dueAt', r.due_at, 'sourceType', r.source_type, 'sourceId', app_public.action_requests_source_id(r),
    'status', r.status, 'options', coalesce(r.options, '[]'::jsonb), 'isPoll', r.options is not null,
    'votingClosedAt', r.voting_closed_at, 'winningOptionKey', r.winning_option_key,
    'requestedByUserId', r.requested_by_user_id, 'requestedByAgentId', r.requested_by_agent_id,
    'resolvedAt', r.resolved_at, 'resolvedByUserId', r.resolved_by_user_id, 'resolvedByAgentId', r.resolved_by_agent_id,
    'dispatchResult', app_hidden.with_visible_issue(r.dispatch_result, 'duplicateOfIssueId'), 'createdAt', r.created_at, 'updatedAt', r.updated_at)
$$;
comment on function app_hidden.action_request_json(r app_public.action_requests) is 'ActionRequest (spec 2.13) with isPoll, requester, resolution and the result of its bound dispatch.';
grant execute on function app_hidden.action_request_json(r app_public.action_requests) to svc_visitor;

create or replace function app_hidden.poll_tally(p_request_id uuid, p_options jsonb)
 returns table(option_key text, label text, ord bigint, votes bigint, first_vote_at timestamp with time zone)
 language sql
 stable
as $$
  select o.opt->>'key', o.opt->>'label', o.ord,
         (select count(*) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key'),
         (select min(v.voted_at) from app_public.action_request_votes v where v.request_id = p_request_id and v.option_key = o.opt->>'key')
  from jsonb_array_elements(coalesce(p_options, '[]')) with ordinality o(opt, ord)
$$;
comment on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) is 'Per option of a poll: its votes and the time of its earliest current vote, in options[] order.';
grant execute on function app_hidden.poll_tally(p_request_id uuid, p_options jsonb) to svc_visitor;

create or replace function app_hidden.poll_winner(p_request_id uuid, p_options jsonb)
 returns text
 language sql
 stable
as $$
  select t.option_key from app_hidden.poll_tally(p_request_id, p_options) t
  order by t.votes desc, t.first_vote_at asc nulls last, t.ord asc
  limit 1
$$;
comment on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) is 'The winner of a poll (spec 4.11): most votes; ties go to the option voted for first; with no votes at all, the first option.';
grant execute on function app_hidden.poll_winner(p_request_id uuid, p_options jsonb) to svc_visitor;

create or replace function app_public.action_requests_viewer_may_decide(r app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- A closed request has nothing left to decide (accept and decline answer 409): no buttons for it.
  select r.status in ('OPEN', 'SNOOZED') and app_hidden.action_request_may_decide(r) and app_hidden.action_request_self_decision(r) is null
$$;
comment on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) is 'Whether the calling key may accept or decline this request now: it is open (OPEN or SNOOZED) and the key is its assignee, a watcher of its issue, or a person whose workspace role is OWNER or ADMIN, and not its requester unless such a person (the gate accept and decline apply). A board shows its buttons by it.';
grant execute on function app_public.action_requests_viewer_may_decide(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_vote_counts(r app_public.action_requests)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_object_agg(t.option_key, t.votes), '{}') from app_hidden.poll_tally(r.id, r.options) t
$$;
comment on function app_public.action_requests_vote_counts(r app_public.action_requests) is 'A poll''s votes per option key ({} for a request without options), counted in the database: a board shows them whatever the number of voters.';
grant execute on function app_public.action_requests_vote_counts(r app_public.action_requests) to svc_visitor;

create or replace function app_public.action_requests_viewer_vote(r app_public.action_requests)
 returns text
 language sql
 stable
as $$
  select v.option_key from app_public.action_request_votes v
  where v.request_id = r.id and v.user_id = app_hidden.current_user_id()
$$;
comment on function app_public.action_requests_viewer_vote(r app_public.action_requests) is 'The option key the calling key''s user voted for on this poll, or null.';
grant execute on function app_public.action_requests_viewer_vote(r app_public.action_requests) to svc_visitor;
