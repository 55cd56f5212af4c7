-- The attachments.getInline tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the visible attachment and its object key (same checks as getDownloadUrl); the Node half applies the
-- mime allowlist and maxBytes and reads the bytes.
create or replace function app_tools.attachments_get_inline(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.attachment_blob_ref(app_hidden.attachment_visible(args->>'id'))
$$;
grant execute on function app_tools.attachments_get_inline(args jsonb) to svc_visitor;
comment on function app_tools.attachments_get_inline(args jsonb) is 'attachments.getInline: A file attachment''s bytes as base64, for files up to maxBytes (default 1,000,000; at most 25 MB) of an allowed type (image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain, text/markdown). Other types and larger files: use attachments.getDownloadUrl.';
