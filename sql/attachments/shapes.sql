-- attachments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_json(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'kind', a.kind, 'targetType', a.target_type, 'targetId', a.target_id,
    'externalUrl', a.external_url, 'linkTitle', a.link_title, 'filename', a.filename, 'mimeType', a.mime_type,
    'size', a.size_bytes, 'sizeBytes', a.size_bytes, 'createdAt', a.created_at)
$$;
comment on function app_hidden.attachment_json(a app_public.attachments) is 'Attachment (spec 2.6).';
grant execute on function app_hidden.attachment_json(a app_public.attachments) to svc_visitor;
