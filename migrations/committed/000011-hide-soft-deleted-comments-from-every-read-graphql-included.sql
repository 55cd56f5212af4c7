--! Previous: sha1:324cc028e3044a67c45d14aa3c0aaad812f208d3
--! Hash: sha1:17827d37001b3cc7b958b44787047a8f79a2b386
--! Message: hide soft-deleted comments from every read, GraphQL included

--! split: 1-current.sql
-- Enter migration here

--! split: 54-hide-deleted-comments.sql
-- Soft-deleted comments stay in the table for audit but no key can read them, GraphQL included (the MCP
-- tools already filtered them). The soft delete itself must still see the row it hides (PostgreSQL checks
-- the updated row against the SELECT policy), so comments.delete opens that view for its one statement.
drop policy if exists select_on_visible_issues on app_public.comments;
create policy select_on_visible_issues on app_public.comments for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and (deleted_at is null or current_setting('svc.include_deleted_comments', true) = 'on')
         and ((select app_hidden.issues_unrestricted())
              or exists (select 1 from app_public.issues i where i.id = comments.issue_id)));
comment on policy select_on_visible_issues on app_public.comments is
  'Live comments on issues the caller can see (issue narrowing applies). Soft-deleted comments are kept for audit and hidden from every key; only comments.delete sees one, while deleting it.';

create or replace function app_tools.comments_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
begin
  perform set_config('svc.include_deleted_comments', 'on', true);
  update app_public.comments set deleted_at = now() where id = v_comment.id;
  perform set_config('svc.include_deleted_comments', '', true);
  return jsonb_build_object('ok', true, 'id', v_comment.id, 'deleted', true);
end
$$;
comment on function app_tools.comments_delete(jsonb) is
  'comments.delete: soft delete (row kept for audit; hidden from every read); COMMENT_UPDATED {deleted: true}. Same authorization as update.';
