-- Triggers of the attachments tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_attachments__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.attachments := case when tg_op = 'DELETE' then old else new end;
  v_extra jsonb := jsonb_build_object('attachmentId', v_row.id, 'attachmentChange',
    case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'updated' end);
  v_issue_id uuid;
begin
  if tg_op = 'UPDATE' and new.link_title is not distinct from old.link_title then
    return null;
  end if;
  if v_row.target_type = 'issue' then
    v_issue_id := v_row.target_id;
  elsif v_row.target_type = 'comment' then
    select c.issue_id into v_issue_id from app_public.comments c where c.id = v_row.target_id;
    v_extra := v_extra || jsonb_build_object('commentId', v_row.target_id);
  end if;
  if v_issue_id is not null then
    perform app_private.record_issue_updated(v_row.workspace_id, v_issue_id, array['attachments'], v_extra);
  elsif v_row.target_type = 'initiative' then
    perform app_private.record_event(v_row.workspace_id, 'INITIATIVE_UPDATED', 'initiative', i.id,
      jsonb_build_object('initiativeId', i.id, 'name', i.name, 'changes', jsonb_build_array('attachments'),
                         'archived', i.archived_at is not null) || v_extra)
    from app_public.initiatives i where i.id = v_row.target_id;
  elsif v_row.target_type = 'cycle' then
    perform app_private.record_event(v_row.workspace_id, 'CYCLE_UPDATED', 'cycle', c.id,
      jsonb_build_object('cycleId', c.id, 'number', c.number, 'name', c.name, 'changes', jsonb_build_array('attachments'),
                         -- The status cycles.get shows (the calendar's), as every CYCLE_UPDATED carries.
                         'status', app_hidden.cycle_status(c), 'previousStatus', app_hidden.cycle_status(c)) || v_extra)
    from app_public.cycles c where c.id = v_row.target_id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_attachments__events() is 'An attachment added, removed or given its scraped title is a change of its target: ISSUE_UPDATED (changes attachments) of the issue (also for comment attachments), INITIATIVE_UPDATED or CYCLE_UPDATED; payload attachmentId and attachmentChange added/removed/updated.';

drop trigger if exists _800_events on app_public.attachments;
create trigger _800_events after insert or delete or update of link_title on app_public.attachments for each row execute function app_private.tg_attachments__events();

create or replace function app_private.tg_attachments__link_title()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.kind = 'LINK' and new.link_title is null then
    new.link_title := app_hidden.url_hostname(new.external_url);
    perform app_private.attachments_enqueue('svc_attachment_link_title', json_build_object('attachmentId', new.id),
      p_flags := app_private.outbound_flags(new.workspace_id));
  end if;
  return new;
end
$$;
comment on function app_private.tg_attachments__link_title() is 'A LINK attachment without a title gets its URL''s hostname now and a svc_attachment_link_title job that replaces it with the page title.';

drop trigger if exists _200_link_title on app_public.attachments;
create trigger _200_link_title before insert on app_public.attachments for each row execute function app_private.tg_attachments__link_title();

create or replace function app_private.tg_attachment_uploads__expiry_job()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.attachments_enqueue('svc_attachment_upload_expire', json_build_object('uploadId', new.id),
                                          new.expires_at + interval '1 minute');
  return null;
end
$$;
comment on function app_private.tg_attachment_uploads__expiry_job() is 'Schedules svc_attachment_upload_expire a minute after the upload URL expires: an upload never finalized loses its row and its blob.';

drop trigger if exists _900_expiry_job on app_public.attachment_uploads;
create trigger _900_expiry_job after insert on app_public.attachment_uploads for each row execute function app_private.tg_attachment_uploads__expiry_job();
