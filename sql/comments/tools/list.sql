-- The comments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before =
-- the nextCursor of the previous page.
create or replace function app_tools.comments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before record := app_hidden.keyset_decode_ts(args->>'before', 'comments', 'before');
begin
  -- The page first (index order, limit), then its authors by join and an inlined shaper: no per-row
  -- function call.
  return app_hidden.page_json(array(
    select (app_hidden.comment_shape(t.c, u, a), app_hidden.ts_key((t.c).created_at), (t.c).id)::app_hidden.page_row
    from (select c from app_public.comments c
          where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
            and (v_before.sort_id is null or (c.created_at, c.id) < (v_before.sort_key, v_before.sort_id))
          order by c.created_at desc, c.id desc limit v_limit + 1) t
    left join app_public.users u on u.id = (t.c).author_user_id
    left join app_public.agents a on a.id = (t.c).authoring_agent_id
    order by (t.c).created_at desc, (t.c).id desc), v_limit, 'comments');
end
$$;
comment on function app_tools.comments_list(args jsonb) is 'comments.list: Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.';
grant execute on function app_tools.comments_list(args jsonb) to svc_visitor;
