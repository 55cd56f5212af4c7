-- The relations.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the workspace's relations as stored (one row per fact: BLOCKS, DUPLICATES, RELATES_TO), oldest first,
-- keyset-paged; only links whose both issues are live and visible to the key (RLS: narrowing). kind filters
-- the stored kind (BLOCKED_BY: the stored BLOCKS); issueId keeps the links of one issue (either end; 404 when the key cannot see it).
create or replace function app_tools.relations_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'relations');
begin
  return app_hidden.page_json(array(
    select (jsonb_build_object(
              'id', r.id, 'kind', r.kind, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
              'fromIssue', app_hidden.issue_ref_json(f, fs), 'toIssue', app_hidden.issue_ref_json(t, ts),
              'createdAt', r.created_at),
            app_hidden.ts_key(r.created_at), r.id)::app_hidden.page_row
    from app_public.issue_relations r
    -- Joined as the caller: both ends must pass the issues' policies (narrowing) and be live.
    join app_public.issues f on f.id = r.from_issue_id and f.deleted_at is null
    join app_public.issues t on t.id = r.to_issue_id and t.deleted_at is null
    left join app_public.statuses fs on fs.id = f.status_id
    left join app_public.statuses ts on ts.id = t.status_id
    where r.workspace_id = app_hidden.current_workspace_id()
      -- A block is stored one way (BLOCKS): BLOCKED_BY asks for the same links.
      and (args->>'kind' is null or r.kind = case args->>'kind' when 'BLOCKED_BY' then 'BLOCKS' else args->>'kind' end)
      and (v_issue is null or r.from_issue_id = v_issue or r.to_issue_id = v_issue)
      and (v_after.sort_id is null or (r.created_at, r.id) > (v_after.sort_key, v_after.sort_id))
    order by r.created_at, r.id limit v_limit + 1), v_limit, 'relations');
end
$$;
grant execute on function app_tools.relations_list(args jsonb) to svc_visitor;
comment on function app_tools.relations_list(args jsonb) is 'relations.list: Relations of the workspace as stored (fromIssue BLOCKS, DUPLICATES or RELATES_TO toIssue; BLOCKED_BY is stored reversed), oldest first, paged. Only links between issues this key can see. Filters: kind (BLOCKED_BY finds the same stored BLOCKS links), issueId (either end).';
