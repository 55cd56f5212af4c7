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
  v_before text;
  v_rows jsonb;
  v_count int;
  v_last text;
begin
  if args->>'before' is not null then
    v_before := app_hidden.cursor_decode(args->>'before', 'comments');
    if v_before !~ '^[^|]+\|[0-9a-f-]{36}$' then
      perform app_hidden.raise_invalid('before', 'cursor is not one this list returned');
    end if;
  end if;
  -- The page first (index order, limit), then its authors by join: no per-row function call. The cursor
  -- is the page's last row, taken in the same pass.
  select coalesce(jsonb_agg(app_hidden.comment_shape(t.c, u, a) order by (t.c).created_at desc, (t.c).id desc), '[]'),
         count(*),
         (array_agg(to_char((t.c).created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || (t.c).id
                    order by (t.c).created_at desc, (t.c).id desc))[v_limit]
  into v_rows, v_count, v_last
  from (select c from app_public.comments c
        where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
          and (v_before is null or (c.created_at, c.id) < (split_part(v_before, '|', 1)::timestamptz, split_part(v_before, '|', 2)::uuid))
        order by c.created_at desc, c.id desc limit v_limit + 1) t
  left join app_public.users u on u.id = (t.c).author_user_id
  left join app_public.agents a on a.id = (t.c).authoring_agent_id;
  if v_count > v_limit then
    return jsonb_build_object('items', v_rows - v_limit,  -- without the look-ahead row
                              'nextCursor', app_hidden.cursor_encode('comments:' || v_last));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.comments_list(args jsonb) is 'comments.list: Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.';
grant execute on function app_tools.comments_list(args jsonb) to svc_visitor;
