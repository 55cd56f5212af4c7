-- The access.listKeys tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- app_public.access_keys: your own keys; every key of the workspace for OWNER/ADMIN. Never a secret.
create or replace function app_tools.access_list_keys(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return jsonb_build_object('items', coalesce((select jsonb_agg(app_hidden.api_key_json(k))
    from app_public.access_keys() k
    where coalesce((args->>'includeRevoked')::boolean, false) or k.revoked_at is null), '[]'));
end
$$;
comment on function app_tools.access_list_keys(args jsonb) is 'access.listKeys: API keys, newest first: your own; every key of the workspace for OWNER/ADMIN. Prefix and metadata, never a secret.';
grant execute on function app_tools.access_list_keys(args jsonb) to svc_visitor;
