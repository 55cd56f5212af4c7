-- The initiatives.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; INITIATIVE_UPDATED (archived true) by trigger. Its projects stay linked.
create or replace function app_tools.initiatives_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if v_initiative.archived_at is null then
    update app_public.initiatives set archived_at = now() where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_archive(args jsonb) is 'initiatives.archive: Archive an initiative (soft; its projects stay linked). Idempotent.';
grant execute on function app_tools.initiatives_archive(args jsonb) to svc_visitor;
