-- The issues.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- ISSUE_CREATED per issue.
create or replace function app_tools.issues_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  -- Every item is checked before any takes a number: a failing item leaves no gap in the numbers.
  perform app_hidden.each_item(args->'items', 'app_hidden.issue_create_refs(jsonb)');
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_tools.issues_create(jsonb)'));
end
$$;
comment on function app_tools.issues_create_many(args jsonb) is 'issues.createMany: Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.';
grant execute on function app_tools.issues_create_many(args jsonb) to svc_visitor;
