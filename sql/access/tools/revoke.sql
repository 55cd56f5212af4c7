-- The access.revoke tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- app_public.access_revoke: your own key, or (OWNER/ADMIN) any key of the workspace; permanent.
create or replace function app_tools.access_revoke(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.api_key_json(app_public.access_revoke(app_hidden.parse_uuid(args->>'keyId', 'keyId')));
end
$$;
comment on function app_tools.access_revoke(args jsonb) is 'access.revoke: Revoke a key: your own, or (OWNER/ADMIN) any key of the workspace. Permanent.';
grant execute on function app_tools.access_revoke(args jsonb) to svc_visitor;
