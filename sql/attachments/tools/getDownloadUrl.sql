-- The attachments.getDownloadUrl tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the visible attachment and its object key; the Node half presigns the GET (LINK rows: their URL).
create or replace function app_tools.attachments_get_download_url(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.attachment_blob_ref(app_hidden.attachment_visible(args->>'id'))
$$;
grant execute on function app_tools.attachments_get_download_url(args jsonb) to svc_visitor;
comment on function app_tools.attachments_get_download_url(args jsonb) is 'attachments.getDownloadUrl: A presigned GET URL for a file attachment (valid expiresInSeconds, default 900, and never past the calling key''s own expiry; the built-in store''s link also stops when the key is revoked); for a LINK, its externalUrl.';
