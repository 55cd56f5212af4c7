-- The issues.assigned tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- issues assigned to an agent (agentId, profileKey, or the key's linked agent; 400 without any), open ones
-- unless includeClosed; paged like issues.list.
create or replace function app_tools.issues_assigned(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents;
  v_page jsonb;
begin
  if args->>'agentId' is not null or args->>'profileKey' is not null then
    v_agent := app_hidden.find_agent(args->>'agentId', args->>'profileKey',
                                     case when args ? 'agentId' then 'agentId' else 'profileKey' end);
  elsif app_hidden.current_agent_id() is not null then
    v_agent := app_hidden.find_agent(app_hidden.current_agent_id()::text, null, 'agentId');
  else
    perform app_hidden.raise_invalid('agentId', 'pass agentId or profileKey, or call with a key linked to an agent');
  end if;
  -- Without includeClosed: open issues, and closed ones where the agent's run is still open (it moved the issue to
  -- done without runs.complete): else that run was nowhere an agent looks.
  v_page := app_tools.issues_list(jsonb_build_object(
    'assignedAgentId', v_agent.id, 'limit', coalesce((args->>'limit')::int, 50), 'cursor', args->>'cursor')
    || case when coalesce((args->>'includeClosed')::boolean, false) then '{}'::jsonb
            else jsonb_build_object('openOrRunOf', v_agent.id) end);
  -- Each issue with the agent's open run there (the newest), what runs.* and comments.upsertStatus report on.
  return v_page || jsonb_build_object('items', coalesce((
    select jsonb_agg(x.item || jsonb_build_object('openRunId', (app_hidden.agent_open_run((x.item->>'id')::uuid, v_agent.id)).id)
                     order by x.n)
    from jsonb_array_elements(v_page->'items') with ordinality x(item, n)), '[]'));
end
$$;
comment on function app_tools.issues_assigned(args jsonb) is 'issues.assigned: Issues assigned to an agent (agentId or profileKey; neither: the key''s own agent, 400 if none): open ones and closed ones with its run still open (includeClosed: all), each with openRunId (its open run or null). Paged like issues.list.';
grant execute on function app_tools.issues_assigned(args jsonb) to svc_visitor;
