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
