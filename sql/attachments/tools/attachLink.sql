-- The attachments.attachLink tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a LINK attachment (mimeType text/url, size 0). Without linkTitle the insert trigger puts the hostname
-- in and enqueues the job that fetches the page title.
create or replace function app_tools.attachments_attach_link(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_target record := app_hidden.attachment_target_for_write(args->>'targetType', args->>'targetId');
  v_url text := args->>'externalUrl';
  v_host text := app_hidden.url_hostname(v_url);
  v_title text := nullif(btrim(args->>'linkTitle'), '');
  v_row app_public.attachments;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if v_url !~* '^https?://' or v_host is null or v_host = '' then
    perform app_hidden.raise_invalid('externalUrl', 'must be an http:// or https:// URL');
  end if;
  insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, link_title, filename,
                                      mime_type, size_bytes, created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), 'LINK', args->>'targetType', v_target.target_id, v_url,
          v_title, coalesce(v_title, v_host), 'text/url', 0,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_row;
  return app_hidden.attachment_json(v_row) || jsonb_build_object('titlePending', v_title is null);
end
$$;
grant execute on function app_tools.attachments_attach_link(args jsonb) to svc_visitor;
comment on function app_tools.attachments_attach_link(args jsonb) is 'attachments.attachLink: Attach a link (kind LINK, mimeType text/url, size 0) to an issue, comment, cycle or initiative. Without linkTitle the hostname stands in until a background job has fetched the page title (5 s, redirects followed, 64 KB read).';
