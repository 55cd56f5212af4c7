-- The issues.updateMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 patches ({id, ...issues.update fields}) in one transaction, all or nothing; errors name
-- items.N.field. One event per issue per kind.
create or replace function app_tools.issues_update_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  if jsonb_path_exists(args, '$.items[*].parentId ? (@ != null)') then
    perform app_hidden.lock_issue_parents();  -- before any issue's row lock
  end if;
  perform app_hidden.lock_issues_in_order(args->'items', 'id');
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_hidden.update_many_item(jsonb, jsonb)'));
end
$$;
comment on function app_tools.issues_update_many(args jsonb) is 'issues.updateMany: Apply up to 100 issues.update patches ({id, ...fields}) in one call, all or nothing. A failing item fails the whole call and names its field as items.N.field. Returns the lean issues.';
grant execute on function app_tools.issues_update_many(args jsonb) to svc_visitor;
