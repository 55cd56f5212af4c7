-- The comments.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one live comment on an issue the key can see.
create or replace function app_tools.comments_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.comment_json(app_hidden.find_comment(args->>'id'));
end
$$;
comment on function app_tools.comments_get(args jsonb) is 'comments.get: One comment by id.';
grant execute on function app_tools.comments_get(args jsonb) to svc_visitor;
