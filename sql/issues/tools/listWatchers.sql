-- The issues.listWatchers tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- watchers of an issue (user or agent identity), oldest first, paged.
create or replace function app_tools.issues_list_watchers(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'watchers');
  end if;
  select coalesce(jsonb_agg(app_hidden.watcher_json(w) order by w.created_at, w.id), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.issue_watchers w
        where w.issue_id = v_issue.id
          and (v_after is null or (w.created_at, w.id) > (split_part(v_after, '|', 1)::timestamptz, split_part(v_after, '|', 2)::uuid))
        order by w.created_at, w.id limit v_limit + 1) w;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('watchers:' ||
      (select to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || w.id
       from app_public.issue_watchers w where w.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list_watchers(args jsonb) is 'issues.listWatchers: Who watches an issue: users ({id, name, email}) and agents ({id, profileKey, name}), oldest first, paged.';
grant execute on function app_tools.issues_list_watchers(args jsonb) to svc_visitor;
