-- The comments.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 comments.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- COMMENT_CREATED per comment.
create or replace function app_tools.comments_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return jsonb_build_object('items', app_hidden.each_item(args->'items', 'app_tools.comments_create(jsonb)'));
end
$$;
comment on function app_tools.comments_create_many(args jsonb) is 'comments.createMany: Post up to 100 comments in one call, all or nothing (each item as comments.create, without actionRequest); a failing item names its field as items.N.field.';
grant execute on function app_tools.comments_create_many(args jsonb) to svc_visitor;
