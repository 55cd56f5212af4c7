-- Comment tools (spec 4.3): create, update (revisions), delete (soft), list, upsertStatus.
-- COMMENT_CREATED / COMMENT_UPDATED come from app_private.tg_comments__events.

create or replace function app_hidden.comment_for_write(p_id text) returns app_public.comments
language plpgsql volatile as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, 'id') and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id()
  for update of c;
  if v_comment.id is null then
    raise exception 'Comment not found' using errcode = 'SV404', column = 'id';
  end if;
  -- The author is the agent when an agent wrote it, else the user; a key acts as its agent when it has one.
  if not coalesce(case when v_comment.authoring_agent_id is not null
                        then v_comment.authoring_agent_id = app_hidden.current_agent_id()
                        else app_hidden.current_agent_id() is null and v_comment.author_user_id = app_hidden.current_user_id() end, false)
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the author, a workspace OWNER/ADMIN or an ADMIN key may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(text) is
  'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), a person key of a workspace OWNER/ADMIN, or an ADMIN key (403 not_author otherwise).';

create or replace function app_tools.comments_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
begin
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
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(jsonb) is
  'comments.create: a comment on a visible issue; author = the key''s user, authoringAgent = its linked agent (whose open run it is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode.';

create or replace function app_tools.comments_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
  v_body text := args->>'body';
  v_confidence text := case when args ? 'confidence' then args->>'confidence' else v_comment.confidence end;
begin
  if v_body = v_comment.body and v_confidence is not distinct from v_comment.confidence then
    return app_hidden.comment_json(v_comment);  -- nothing changed: no revision, no event
  end if;
  update app_public.comments c
  set body = v_body, confidence = v_confidence, edited_at = now(),
      revisions = case when v_body = v_comment.body then c.revisions else
        (select coalesce(jsonb_agg(e order by n), '[]') from (
           select e, n from jsonb_array_elements(c.revisions || jsonb_build_array(
             jsonb_build_object('body', v_comment.body, 'editedAt', now()))) with ordinality as t(e, n)
           order by n desc limit 20) s) end
  where c.id = v_comment.id
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_update(jsonb) is
  'comments.update: new body (and confidence); the previous body goes to revisions {body, editedAt} (at most 20, oldest dropped); editedAt set; COMMENT_UPDATED by trigger. Author, OWNER/ADMIN person key or ADMIN key only.';

create or replace function app_tools.comments_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
begin
  update app_public.comments set deleted_at = now() where id = v_comment.id;
  return jsonb_build_object('ok', true, 'id', v_comment.id, 'deleted', true);
end
$$;
comment on function app_tools.comments_delete(jsonb) is
  'comments.delete: soft delete (row kept for audit; hidden from lists and issue bundles); COMMENT_UPDATED {deleted: true}. Same authorization as update.';

create or replace function app_tools.comments_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'before' is not null then
    v_before := app_hidden.cursor_decode(args->>'before', 'comments');
    if v_before !~ '^[^|]+\|[0-9a-f-]{36}$' then
      perform app_hidden.raise_invalid('before', 'cursor is not one this list returned');
    end if;
  end if;
  select coalesce(jsonb_agg(app_hidden.comment_json(c) order by c.created_at desc, c.id desc), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.comments c
        where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
          and (v_before is null or (c.created_at, c.id) < (split_part(v_before, '|', 1)::timestamptz, split_part(v_before, '|', 2)::uuid))
        order by c.created_at desc, c.id desc limit v_limit + 1) c;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('comments:' ||
      (select to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || c.id
       from app_public.comments c where c.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.comments_list(jsonb) is
  'comments.list: comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before = the nextCursor of the previous page.';

create or replace function app_tools.comments_upsert_status(args jsonb) returns jsonb
language plpgsql volatile as $$
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
comment on function app_tools.comments_upsert_status(jsonb) is
  'comments.upsertStatus: the calling agent''s one rolling STATUS comment for its open run on the issue: created once (COMMENT_CREATED), then replaced in place (COMMENT_UPDATED only when the body changes; no revisions kept). 403 agent_key_required without a linked agent, 409 no_open_run without an open run. Allowed in every run mode.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
