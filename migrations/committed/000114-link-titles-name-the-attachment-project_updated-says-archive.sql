--! Previous: sha1:e0ba8958843958b52b63a414cb057679b89a4473
--! Hash: sha1:983352ef4a3af9b08fb0060115b8f2f59d271655
--! Message: Link titles name the attachment; PROJECT_UPDATED says archived

--! split: 1-current.sql
-- A link attachment's fetched page title becomes its filename too where the hostname stood in (a given linkTitle
-- named it from the start; a fetched one left the hostname as its name).
--! Included attachments/jobs.sql
-- attachments: what the Graphile Worker jobs of attachments call (owner connections).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- p_flags added (migration 000092): link titles are flagged as their workspace's outbound work.
drop function if exists app_private.attachments_enqueue(text, json, timestamp with time zone);
create or replace function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone default now(), p_flags text[] default null)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job(p_task, p_payload, run_at := p_run_at, max_attempts := 3, flags := p_flags);
  end if;
end
$$;
comment on function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone, p_flags text[]) is 'Enqueues an attachments job (svc_attachment_upload_expire, svc_attachment_link_title; the latter flagged as its workspace''s outbound work, app_private.outbound_flags) in the caller''s transaction. Security definer: the request role has no access to the queue.';

create or replace function app_private.attachment_upload_expire(p_upload_id uuid)
 returns text
 language sql
as $$
  delete from app_public.attachment_uploads u where u.id = p_upload_id and u.expires_at <= now()
  returning u.storage_key
$$;
comment on function app_private.attachment_upload_expire(p_upload_id uuid) is 'Job svc_attachment_upload_expire: removes an upload that was never finalized and returns its object key (the job deletes the blob); null when it was finalized or has not expired.';

create or replace function app_private.attachment_upload_open(p_storage_key text)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.attachment_uploads u where u.storage_key = p_storage_key and u.expires_at > now())
$$;
comment on function app_private.attachment_upload_open(p_storage_key text) is 'The embedded blob store''s PUT (owner connection): whether the object key still belongs to an upload in progress. A finalized (the row is gone), deleted or expired upload takes no more bytes through its link.';

create or replace function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text)
 returns void
 language sql
as $$
  update app_public.attachments a set link_title = left(p_title, 500),
    -- The hostname stood in for the name too (attachLink without linkTitle); a given linkTitle names it from the start.
    filename = case when a.filename = app_hidden.url_hostname(a.external_url) then left(p_title, 255) else a.filename end
  where a.id = p_attachment_id and a.kind = 'LINK' and p_title is not null and p_title <> ''
$$;
comment on function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text) is 'Job svc_attachment_link_title: stores the scraped page title (at most 500 characters) of a LINK attachment, and as its filename where the hostname stood in (ISSUE_UPDATED/INITIATIVE_UPDATED/CYCLE_UPDATED by trigger).';
--! EndIncluded attachments/jobs.sql
-- PROJECT_UPDATED names an archive or restore `archived` in changes, as INITIATIVE_UPDATED does (it said archivedAt).
--! Included projects/triggers.sql
-- Triggers of the projects tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_projects__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'PROJECT_CREATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id));
  elsif (new.name, new.description, new.initiative_id, new.archived_at)
        is distinct from (old.name, old.description, old.initiative_id, old.archived_at) then
    -- changes names the fields that moved, as the other *_UPDATED events do (archived: archived or restored, as INITIATIVE_UPDATED says).
    perform app_private.record_event(new.workspace_id, 'PROJECT_UPDATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id,
                         'archived', new.archived_at is not null,
                         'changes', to_jsonb(array_remove(array[
                           case when new.name is distinct from old.name then 'name' end,
                           case when new.description is distinct from old.description then 'description' end,
                           case when new.initiative_id is distinct from old.initiative_id then 'initiativeId' end,
                           case when new.archived_at is distinct from old.archived_at then 'archived' end], null))));
  end if;
  return null;
end
$$;
comment on function app_private.tg_projects__events() is 'PROJECT_CREATED; PROJECT_UPDATED on edit, initiative link/unlink or archive, naming the changed fields (changes).';

drop trigger if exists _100_updated_at on app_public.projects;
create trigger _100_updated_at before update on app_public.projects for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.projects;
create trigger _800_events after insert or update on app_public.projects for each row execute function app_private.tg_projects__events();
--! EndIncluded projects/triggers.sql
