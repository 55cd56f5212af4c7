-- The agents.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.agents_archive (AGENT_DELETED archived true).
create or replace function app_tools.agents_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.agent_json(app_public.agents_archive(app_hidden.parse_uuid(args->>'id', 'id')));
end
$$;
comment on function app_tools.agents_archive(args jsonb) is 'agents.archive: OWNER/ADMIN: archive an agent (no new assignments or dispatch; history stays).';
grant execute on function app_tools.agents_archive(args jsonb) to svc_visitor;
