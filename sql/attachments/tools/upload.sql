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
