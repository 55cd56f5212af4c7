-- Triggers of the comments tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_comments__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'COMMENT_CREATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'kind', new.kind, 'authorUserId', new.author_user_id,
      'authoringAgentId', new.authoring_agent_id, 'confidence', new.confidence));
  elsif new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'COMMENT_UPDATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'deleted', true));
  elsif (new.body, new.confidence) is distinct from (old.body, old.confidence) then
    perform app_private.record_event(new.workspace_id, 'COMMENT_UPDATED', 'comment', new.id, jsonb_build_object(
      'commentId', new.id, 'issueId', new.issue_id, 'kind', new.kind, 'edited', true));
  end if;
  return null;
end
$$;
comment on function app_private.tg_comments__events() is 'COMMENT_CREATED; COMMENT_UPDATED on edit and on soft delete (payload.deleted).';

drop trigger if exists _100_updated_at on app_public.comments;
create trigger _100_updated_at before update on app_public.comments for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.comments;
create trigger _800_events after insert or update on app_public.comments for each row execute function app_private.tg_comments__events();
