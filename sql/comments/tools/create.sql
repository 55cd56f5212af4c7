-- The comments.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a comment on a visible issue; author = the key's user, authoringAgent = its linked agent (whose open run it
-- is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode. With actionRequest,
-- its recommendation card (a poll when it has options) is created in the same transaction (sourceType comment).
create or replace function app_tools.comments_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_request app_public.action_requests;
begin
  -- A recommendation card changes the issue once accepted: it needs what actionRequests.create needs (spec 4.11), not
  -- only WRITE_COMMENTS.
  if jsonb_typeof(args->'actionRequest') = 'object' then
    perform app_hidden.require_scope('WRITE_ISSUES');
  end if;
  if v_agent is not null then
    select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
    if v_run.id is not null then
      update app_public.agent_runs set last_event_at = now() where id = v_run.id;
    end if;
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, args->>'body', 'COMMENT', args->>'confidence',
          app_hidden.current_user_id(), v_agent, v_run.id)
  returning * into v_comment;
  if args->'actionRequest' is not null and jsonb_typeof(args->'actionRequest') = 'object' then
    v_request := app_hidden.action_request_insert(
      (args->'actionRequest') || jsonb_build_object('sourceType', 'comment', 'sourceId', v_comment.id),
      v_issue.id, v_comment.id, 'actionRequest.');
    return app_hidden.comment_json(v_comment) || jsonb_build_object('actionRequest', app_hidden.action_request_json(v_request));
  end if;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(args jsonb) is 'comments.create: Post a comment on an issue (markdown). The author is the key''s user; an agent-linked key is recorded as authoringAgent. Allowed in every run mode. With actionRequest (which needs WRITE_ISSUES too), its recommendation card (a poll when it has options; fields as actionRequests.create) is created on the issue in the same transaction.';
grant execute on function app_tools.comments_create(args jsonb) to svc_visitor;
