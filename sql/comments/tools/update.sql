-- The comments.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- new body (and confidence); the previous body goes to revisions {body, editedAt} (at most 20, oldest
-- dropped); editedAt set; COMMENT_UPDATED by trigger. Author, OWNER/ADMIN person key or ADMIN key only.
create or replace function app_tools.comments_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
  v_body text := args->>'body';
  v_confidence text := case when args ? 'confidence' then args->>'confidence' else v_comment.confidence end;
begin
  if v_body = v_comment.body and v_confidence is not distinct from v_comment.confidence then
    return app_hidden.comment_json(v_comment);  -- nothing changed: no revision, no event
  end if;
  update app_public.comments c
  set body = v_body, confidence = v_confidence, edited_at = now(),
      revisions = case when v_body = v_comment.body then c.revisions else
        (select coalesce(jsonb_agg(e order by n), '[]') from (
           select e, n from jsonb_array_elements(c.revisions || jsonb_build_array(
             jsonb_build_object('body', v_comment.body, 'editedAt', now()))) with ordinality as t(e, n)
           order by n desc limit 20) s) end
  where c.id = v_comment.id
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_update(args jsonb) is 'comments.update: Edit a comment: its author, a workspace OWNER/ADMIN, or an ADMIN key. The previous body is kept in its revision history (last 20); editedAt is set.';
grant execute on function app_tools.comments_update(args jsonb) to svc_visitor;
