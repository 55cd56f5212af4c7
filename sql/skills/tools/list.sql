-- The skills.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the skills the workspace's approved plugins declare (manifest.skills), optionally of one plugin.
create or replace function app_tools.skills_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- A plugin this workspace does not have is 404, as every list's filter by id (not an empty list); one not yet
  -- approved offers no skills.
  if args->>'pluginId' is not null then
    perform app_hidden.find_plugin(args->>'pluginId');
  end if;
  return app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId'));
end
$$;
grant execute on function app_tools.skills_list(args jsonb) to svc_visitor;
comment on function app_tools.skills_list(args jsonb) is 'skills.list: The skills the workspace''s plugins offer (their manifest.skills): plugin, name, description and the inputSchema skills.invoke checks input against.';
