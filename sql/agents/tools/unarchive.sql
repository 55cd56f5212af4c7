-- The agents.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- admin: app_public.agents_unarchive (AGENT_UPDATED).
create or replace function app_tools.agents_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  return app_hidden.agent_json(app_public.agents_unarchive(app_hidden.parse_uuid(args->>'id', 'id')));
end
$$;
comment on function app_tools.agents_unarchive(args jsonb) is 'agents.unarchive: OWNER/ADMIN: restore an archived agent.';
grant execute on function app_tools.agents_unarchive(args jsonb) to svc_visitor;
