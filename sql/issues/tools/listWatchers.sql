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
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'watchers');
begin
  return app_hidden.page_json(array(
    select (app_hidden.watcher_json(w), app_hidden.ts_key(w.created_at), w.id)::app_hidden.page_row
    from app_public.issue_watchers w
    where w.issue_id = v_issue.id
      and (v_after.sort_id is null or (w.created_at, w.id) > (v_after.sort_key, v_after.sort_id))
    order by w.created_at, w.id limit v_limit + 1), v_limit, 'watchers');
end
$$;
comment on function app_tools.issues_list_watchers(args jsonb) is 'issues.listWatchers: Who watches an issue: users ({id, name, email}) and agents ({id, profileKey, name}), oldest first, paged.';
grant execute on function app_tools.issues_list_watchers(args jsonb) to svc_visitor;
