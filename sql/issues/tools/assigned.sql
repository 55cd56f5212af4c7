-- The issues.assigned tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- issues assigned to an agent (agentId, profileKey, or the key's linked agent; 400 without any), open ones
-- unless includeClosed; paged like issues.list.
create or replace function app_tools.issues_assigned(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents;
begin
  if args->>'agentId' is not null or args->>'profileKey' is not null then
    v_agent := app_hidden.find_agent(args->>'agentId', args->>'profileKey',
                                     case when args ? 'agentId' then 'agentId' else 'profileKey' end);
  elsif app_hidden.current_agent_id() is not null then
    v_agent := app_hidden.find_agent(app_hidden.current_agent_id()::text, null, 'agentId');
  else
    perform app_hidden.raise_invalid('agentId', 'pass agentId or profileKey, or call with a key linked to an agent');
  end if;
  return app_tools.issues_list(jsonb_build_object(
    'assignedAgentId', v_agent.id, 'limit', coalesce((args->>'limit')::int, 50), 'cursor', args->>'cursor')
    || case when coalesce((args->>'includeClosed')::boolean, false) then '{}'::jsonb else '{"open": true}'::jsonb end);
end
$$;
comment on function app_tools.issues_assigned(args jsonb) is 'issues.assigned: Issues assigned to an agent: agentId or profileKey, or nothing for the key''s own linked agent (400 when the key has none). Open issues only unless includeClosed. Paged like issues.list.';
grant execute on function app_tools.issues_assigned(args jsonb) to svc_visitor;
