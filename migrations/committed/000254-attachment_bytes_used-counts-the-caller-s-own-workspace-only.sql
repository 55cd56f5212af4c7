--! Previous: sha1:86990a466513de091de5d2b02db9fda7f2c87ce1
--! Hash: sha1:d233bfb6390057b4105b98c2ac76e51f55b381a3
--! Message: attachment_bytes_used counts the caller's own workspace only

--! split: 1-current.sql
-- attachment_bytes_used counts the caller's own workspace (it took any workspace's id: a definer svc_visitor could
-- point at another tenant; only initUpload called it, with its own).
--! Included attachments/attachments.sql
-- attachments: helper functions (targets, quota, the row behind a tool call).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
 stable
as $$
begin
  if p_type is null or p_type not in ('issue', 'initiative', 'cycle', 'comment') then
    perform app_hidden.raise_invalid('targetType', 'must be issue, initiative, cycle or comment');
  end if;
  if p_type = 'issue' then
    target_id := (app_hidden.find_issue(p_id, 'targetId')).id;
    issue_id := target_id;
  elsif p_type = 'comment' then
    select c.id, c.issue_id into target_id, issue_id from app_public.comments c
    where c.id = app_hidden.parse_uuid(p_id, 'targetId') and c.deleted_at is null
      and exists (select 1 from app_public.issues i where i.id = c.issue_id and i.deleted_at is null);
  elsif p_type = 'initiative' then
    select i.id into target_id from app_public.initiatives i where i.id = app_hidden.parse_uuid(p_id, 'targetId');
  else
    select c.id into target_id from app_public.cycles c where c.id = app_hidden.parse_uuid(p_id, 'targetId');
  end if;
  if target_id is null then
    raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
  end if;
end
$$;
comment on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'The issue (id or key), comment, initiative or cycle an attachment goes on, as the caller sees it (RLS: narrowing of the issue behind an issue or comment, initiative narrowing); 404 targetId otherwise. issue_id is the issue behind an issue or comment target.';
grant execute on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
as $$
begin
  select t.target_id, t.issue_id into target_id, issue_id from app_hidden.attachment_target(p_type, p_id) t;
  -- cycles.delete refuses a cycle with attachments while it holds the cycle's row lock. This key-share lock
  -- serialises the two: the delete waits for this attachment (and then sees it: 409), or this waits for the
  -- delete (and then finds the cycle gone: 404). No attachment is left on a deleted cycle.
  if p_type = 'cycle' then
    perform 1 from app_public.cycles c where c.id = target_id for key share;
    if not found then
      raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
    end if;
  end if;
end
$$;
comment on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'attachment_target for the tools that attach (attachLink, finalize): a cycle target is also locked FOR KEY SHARE, so cycles.delete and the attaching serialise.';
grant execute on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_visible(p_id text)
 returns app_public.attachments
 language plpgsql
 stable
as $$
declare v_row app_public.attachments;
begin
  select * into v_row from app_public.attachments a where a.id = app_hidden.parse_uuid(p_id, 'id');
  -- Deleted issues are 404 everywhere: so are the attachments on them, on their comments, and on deleted comments.
  if v_row.id is null
     or (v_row.target_type = 'issue'
         and not exists (select 1 from app_public.issues i where i.id = v_row.target_id and i.deleted_at is null))
     or (v_row.target_type = 'comment'
         and not exists (select 1 from app_public.comments c join app_public.issues i on i.id = c.issue_id
                         where c.id = v_row.target_id and c.deleted_at is null and i.deleted_at is null)) then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.attachment_visible(p_id text) is 'An attachment the caller can see (RLS follows the target it is attached to) whose issue or comment target is not soft-deleted (nor the comment''s issue), else 404: the finder of attachments.get, getInline, getDownloadUrl and delete.';
grant execute on function app_hidden.attachment_visible(p_id text) to svc_visitor;

-- (Before migration 000254 it took the workspace as an argument: a definer any caller could point at another tenant.)
drop function if exists app_hidden.attachment_bytes_used(uuid);
create or replace function app_hidden.attachment_bytes_used()
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- A deleted comment's files are deleted with it (tg_comments__drop_attachments); a deleted issue's count (issues.restore
  -- brings them back).
  select coalesce((select sum(a.size_bytes) from app_public.attachments a
                   where a.workspace_id = app_hidden.current_workspace_id() and a.kind = 'FILE'), 0)
       + coalesce((select sum(u.size_bytes) from app_public.attachment_uploads u
                   where u.workspace_id = app_hidden.current_workspace_id() and u.expires_at > now()), 0)
$$;
comment on function app_hidden.attachment_bytes_used() is 'Bytes of the caller''s workspace counted against attachmentQuotaMb: every FILE attachment plus uploads granted and not expired (whatever the caller''s narrowing lets it see). Security definer: the total, never the rows; the caller''s own workspace only.';
grant execute on function app_hidden.attachment_bytes_used() to svc_visitor;

create or replace function app_hidden.attachment_blob_ref(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('attachment', app_hidden.attachment_json(a), 'storageKey', a.storage_key)
$$;
comment on function app_hidden.attachment_blob_ref(a app_public.attachments) is 'What the Node half of getDownloadUrl/getInline/delete needs: the attachment and its object key (the key never leaves the service).';
grant execute on function app_hidden.attachment_blob_ref(a app_public.attachments) to svc_visitor;

create or replace function app_hidden.url_hostname(p_url text)
 returns text
 language sql
 immutable parallel safe
as $$
  -- A backslash ends the host as a slash does (WHATWG URL, as browsers read it): `https://evil.example\@github.com/`
  -- opens evil.example, and was named github.com.
  select lower(substring(p_url from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@\\]*@)?(\[[^\]]+\]|[^/?#:\\]+)'))
$$;
comment on function app_hidden.url_hostname(p_url text) is 'The host of an http(s) URL, lowercased (null when it is not one): the title a LINK attachment falls back to.';
grant execute on function app_hidden.url_hostname(p_url text) to svc_visitor;
--! EndIncluded attachments/attachments.sql
--! Included attachments/tools/initUpload.sql
-- The attachments.initUpload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- Checks the target, the 25 MB per-file limit and the workspace quota (finalized files plus open uploads),
-- records the upload (its trigger schedules the job that removes it if it is never finalized). The Node half signs
-- the PUT URL for the returned key.
create or replace function app_tools.attachments_init_upload(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_size bigint := (args->>'sizeBytes')::bigint;
  v_quota bigint;
  v_used bigint;
  v_id uuid := gen_random_uuid();
  v_expires timestamptz := now() + make_interval(secs => coalesce((args->>'expiresInSeconds')::int, 900));
  v_key text;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if v_size is null or v_size < 1 or v_size > 26214400 then
    perform app_hidden.raise_invalid('sizeBytes', 'must be 1 to 26214400 bytes (25 MB per file)');
  end if;
  -- One quota check at a time per workspace: ten parallel uploads each reading the usage before any inserted
  -- passed the quota together (an outside probe: 8 of 204,800 bytes into 1 MB).
  perform pg_advisory_xact_lock(hashtextextended('svc.attachment_quota:' || v_ws::text, 0));
  select w.attachment_quota_mb::bigint * 1048576 into v_quota from app_public.workspaces w where w.id = v_ws;
  v_used := app_hidden.attachment_bytes_used();
  if v_used + v_size > v_quota then
    raise exception 'Attachment quota exceeded: % of % MB used, this file needs % bytes', round(v_used / 1048576.0, 1), v_quota / 1048576, v_size
      using errcode = 'SV422', detail = 'quota_exceeded';
  end if;
  v_key := v_ws || '/' || v_id;
  insert into app_public.attachment_uploads (id, workspace_id, storage_key, target_type, target_id, filename, mime_type,
                                             size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  values (v_id, v_ws, v_key, args->>'targetType', v_target.target_id, args->>'filename', lower(args->>'mimeType'), v_size,
          app_hidden.current_user_id(), app_hidden.current_agent_id(), v_expires);
  return jsonb_build_object('key', v_key, 'uploadId', v_id, 'expiresAt', v_expires, 'sizeBytes', v_size,
    'mimeType', lower(args->>'mimeType'), 'filename', args->>'filename',
    'targetType', args->>'targetType', 'targetId', v_target.target_id);
end
$$;
grant execute on function app_tools.attachments_init_upload(args jsonb) to svc_visitor;
comment on function app_tools.attachments_init_upload(args jsonb) is 'attachments.initUpload: Start a file upload to an issue, comment, cycle or initiative: returns {uploadUrl, key}. PUT the bytes to uploadUrl (e.g. curl -T file "<uploadUrl>") before expiresAt, then call attachments.finalize with the key. 25 MB per file; the workspace quota (attachmentQuotaMb) counts finalized files and open uploads.';
--! EndIncluded attachments/tools/initUpload.sql
