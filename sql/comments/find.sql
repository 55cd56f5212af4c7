-- comments: the read finder.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_comment(p_id text, p_field text default 'id'::text)
 returns app_public.comments
 language plpgsql
 stable
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id();
  return app_hidden.found(v_comment, 'Comment', p_field);
end
$$;
comment on function app_hidden.find_comment(p_id text, p_field text) is 'A live comment on a live issue the key can see (RLS follows the issue), else 404 "Comment not found" naming the field.';
grant execute on function app_hidden.find_comment(p_id text, p_field text) to svc_visitor;
