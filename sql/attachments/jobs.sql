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

create or replace function app_private.blob_link_key_live(p_key_id uuid, p_workspace_id uuid)
 returns boolean
 language sql
 stable
as $$
  -- What set_request_context checks of a key at each call (here also: the key of this workspace): not revoked, not
  -- expired, and its agent (if any) not archived.
  select exists (select 1 from app_private.api_keys k
                 where k.id = p_key_id and k.workspace_id = p_workspace_id and k.revoked_at is null
                   and (k.expires_at is null or k.expires_at > now())
                   and not exists (select 1 from app_public.agents a where a.id = k.linked_agent_id and a.archived_at is not null))
$$;
comment on function app_private.blob_link_key_live(p_key_id uuid, p_workspace_id uuid) is 'The embedded blob store''s GET and PUT (owner connection): whether the key that made a signed link still acts in the link''s workspace (not revoked, not expired, agent not archived). A link ends with its key.';

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
