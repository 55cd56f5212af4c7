-- The initiatives.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes initiatives.archive; idempotent; INITIATIVE_UPDATED (archived false) by trigger.
create or replace function app_tools.initiatives_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if v_initiative.archived_at is not null then
    update app_public.initiatives set archived_at = null where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_unarchive(args jsonb) is 'initiatives.unarchive: Restore an archived initiative. Idempotent.';
grant execute on function app_tools.initiatives_unarchive(args jsonb) to svc_visitor;
