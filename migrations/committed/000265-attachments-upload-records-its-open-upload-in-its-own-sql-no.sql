--! Previous: sha1:62e98bab8957fa39f4ea7cf75d2e35aed9962fcd
--! Hash: sha1:89848c12eb333625b47c8d0b7735eee4a2cbfb1e
--! Message: attachments.upload records its open upload in its own SQL: no upload URL signed for nothing

--! split: 1-current.sql
-- attachments.upload records its open upload in SQL of its own (no upload URL signed and thrown away).
--! Included attachments/tools/upload.sql
-- The attachments.upload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The SQL half: records the open upload exactly as attachments.initUpload does (target, run-mode gating, 25 MB,
-- quota). The Node half writes the bytes through the blob store and finalizes; no upload URL is signed for it.
create or replace function app_tools.attachments_upload(args jsonb)
 returns jsonb
 language sql
as $$
  select app_tools.attachments_init_upload(args)
$$;
grant execute on function app_tools.attachments_upload(args jsonb) to svc_visitor;
comment on function app_tools.attachments_upload(args jsonb) is 'attachments.upload: Attach a small file sent as base64 in the call (at most 1,000,000 bytes), for clients that cannot PUT to a URL (an MCP-only agent): initUpload and finalize in one. Larger: attachments.initUpload.';
--! EndIncluded attachments/tools/upload.sql
