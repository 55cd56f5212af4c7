-- The agentCrews.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes agentCrews.archive (ADMIN; idempotent); CREW_UPDATED by trigger.
create or replace function app_tools.agent_crews_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  if v_crew.archived_at is not null then
    update app_public.agent_crews set archived_at = null where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_unarchive(args jsonb) is 'agentCrews.unarchive: Restore an archived crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; idempotent).';
grant execute on function app_tools.agent_crews_unarchive(args jsonb) to svc_visitor;
