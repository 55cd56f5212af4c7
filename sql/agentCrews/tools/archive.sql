-- The agentCrews.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (ADMIN), idempotent; archived crews keep their goals but get no new ones or members.
create or replace function app_tools.agent_crews_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  if v_crew.archived_at is null then
    update app_public.agent_crews set archived_at = now() where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_archive(args jsonb) is 'agentCrews.archive: Archive a crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; soft, idempotent). Its goals keep it; it takes no new goals or members.';
grant execute on function app_tools.agent_crews_archive(args jsonb) to svc_visitor;
