-- The agents.me tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the agent linked to the calling key; 403 for keys without one, archived or cross-tenant agents.
create or replace function app_tools.agents_me(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.agent_json(app_hidden.require_own_agent()) $$;
comment on function app_tools.agents_me(args jsonb) is 'agents.me: The agent linked to the calling key (provider, runtimeMode, status, capabilities). Keys without a linked agent, or linked to an archived agent, get 403.';
grant execute on function app_tools.agents_me(args jsonb) to svc_visitor;
