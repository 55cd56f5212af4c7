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

create or replace function app_private.tg_comments__drop_attachments()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_key text;
begin
  -- A deleted comment is not restored, and no tool reaches its files: they stayed on disk for good, outside the quota
  -- (a workspace could loop upload-then-delete past it). They go with the comment (each removal is its issue's
  -- ISSUE_UPDATED, by the attachments' trigger); the blobs are deleted by a job once this commits.
  for v_key in
    delete from app_public.attachments a
    where a.workspace_id = new.workspace_id and a.target_type = 'comment' and a.target_id = new.id
    returning a.storage_key
  loop
    if v_key is not null then
      perform app_private.attachments_enqueue('svc_attachment_blob_delete', json_build_object('storageKey', v_key));
    end if;
  end loop;
  return null;
end
$$;
comment on function app_private.tg_comments__drop_attachments() is 'A comment soft-deleted: its attachments are deleted (ISSUE_UPDATED attachmentChange removed, by trigger) and their blobs queued for deletion (svc_attachment_blob_delete).';

drop trigger if exists _810_drop_attachments on app_public.comments;
create trigger _810_drop_attachments after update of deleted_at on app_public.comments
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function app_private.tg_comments__drop_attachments();
