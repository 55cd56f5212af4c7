-- The agents.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- agents of the workspace by profileKey; archived ones only with includeArchived; runtimeId filters.
create or replace function app_tools.agents_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  -- A runtime this workspace does not have is 404, as every list's filter by id (not an empty list).
  v_runtime uuid := case when args->>'runtimeId' is not null then (app_hidden.find_runtime(args->>'runtimeId', 'runtimeId')).id end;
begin
  return (select coalesce(jsonb_agg(app_hidden.agent_json(a) order by a.profile_key), '[]')
          from app_public.agents a
          where a.workspace_id = app_hidden.current_workspace_id()
            and (coalesce((args->>'includeArchived')::boolean, false) or a.archived_at is null)
            and (v_runtime is null or a.runtime_id = v_runtime));
end
$$;
grant execute on function app_tools.agents_list(args jsonb) to svc_visitor;
comment on function app_tools.agents_list(args jsonb) is 'agents.list: Agents of the workspace by profileKey: id, profileKey, name, status, runtimeMode, provider, capabilities, archivedAt, runtime {id, name, kind}. Archived agents only with includeArchived; runtimeId keeps the agents of one runtime.';
