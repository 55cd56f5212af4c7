-- The comments.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft delete (row kept for audit; hidden from every read); COMMENT_UPDATED {deleted: true}. Same
-- authorization as update.
create or replace function app_tools.comments_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
begin
  perform set_config('svc.include_deleted_comments', 'on', true);
  update app_public.comments set deleted_at = now() where id = v_comment.id;
  perform set_config('svc.include_deleted_comments', '', true);
  return jsonb_build_object('ok', true, 'id', v_comment.id, 'deleted', true);
end
$$;
comment on function app_tools.comments_delete(args jsonb) is 'comments.delete: Delete a comment (soft: hidden from lists and issue bundles, kept for audit). Same permission as comments.update.';
grant execute on function app_tools.comments_delete(args jsonb) to svc_visitor;
