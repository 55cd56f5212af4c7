-- The comments.upsertStatus tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the calling agent's one rolling STATUS comment for its open run on the issue: created once
-- (COMMENT_CREATED), then replaced in place (COMMENT_UPDATED only when the body changes; no revisions kept).
-- 403 agent_key_required without a linked agent, 409 no_open_run without an open run. Allowed in every run
-- mode.
create or replace function app_tools.comments_upsert_status(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_created boolean := false;
begin
  if v_agent is null then
    raise exception 'comments.upsertStatus needs a key linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
  if v_run.id is null then
    raise exception 'The calling agent has no open run on this issue' using errcode = 'SV409', detail = 'no_open_run';
  end if;
  update app_public.agent_runs set last_event_at = now() where id = v_run.id;
  select * into v_comment from app_public.comments c
  where c.run_id = v_run.id and c.kind = 'STATUS' and c.deleted_at is null
  for update;
  if v_comment.id is null then
    insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
    values (v_issue.workspace_id, v_issue.id, args->>'body', 'STATUS', args->>'confidence',
            app_hidden.current_user_id(), v_agent, v_run.id)
    returning * into v_comment;
    v_created := true;
  elsif v_comment.body is distinct from args->>'body'
        or (args ? 'confidence' and v_comment.confidence is distinct from args->>'confidence') then
    update app_public.comments
    set body = args->>'body', edited_at = now(),
        confidence = case when args ? 'confidence' then args->>'confidence' else confidence end
    where id = v_comment.id
    returning * into v_comment;
  end if;
  return app_hidden.comment_json(v_comment) || jsonb_build_object('created', v_created);
end
$$;
comment on function app_tools.comments_upsert_status(args jsonb) is 'comments.upsertStatus: Set the calling agent''s rolling STATUS comment for its open run on an issue: created the first time, replaced in place afterwards (same body: no change). Needs an agent-linked key and an open run (assignment opens one).';
grant execute on function app_tools.comments_upsert_status(args jsonb) to svc_visitor;
