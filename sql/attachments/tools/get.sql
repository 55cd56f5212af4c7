-- The attachments.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one attachment the key can see (RLS follows its target).
create or replace function app_tools.attachments_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.attachment_json(app_hidden.attachment_visible(args->>'id'));
end
$$;
comment on function app_tools.attachments_get(args jsonb) is 'attachments.get: One attachment by id (metadata; fetch bytes with getDownloadUrl).';
grant execute on function app_tools.attachments_get(args jsonb) to svc_visitor;
