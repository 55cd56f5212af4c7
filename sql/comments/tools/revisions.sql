-- The comments.revisions tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- previous bodies of a comment, oldest first (app_public.comments_revision_history).
create or replace function app_tools.comments_revisions(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_comment app_public.comments := app_hidden.find_comment(args->>'id');
begin
  return jsonb_build_object('id', v_comment.id, 'body', v_comment.body, 'editedAt', v_comment.edited_at,
    'revisions', coalesce((select jsonb_agg(jsonb_build_object('revision', r.revision, 'body', r.body, 'editedAt', r.edited_at) order by r.revision)
                           from app_public.comments_revision_history(v_comment) r), '[]'));
end
$$;
comment on function app_tools.comments_revisions(args jsonb) is 'comments.revisions: Revision history of a comment: previous bodies, oldest first (last 20 kept by comments.update).';
grant execute on function app_tools.comments_revisions(args jsonb) to svc_visitor;
