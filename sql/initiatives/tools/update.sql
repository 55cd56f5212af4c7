-- The initiatives.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description; INITIATIVE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.initiatives_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if (coalesce(args->>'name', v_initiative.name), case when args ? 'description' then args->>'description' else v_initiative.description end)
     is distinct from (v_initiative.name, v_initiative.description) then
    update app_public.initiatives
    set name = coalesce(args->>'name', name),
        description = case when args ? 'description' then args->>'description' else description end
    where id = v_initiative.id
    returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_update(args jsonb) is 'initiatives.update: Change an initiative''s name or description (null clears). Only the fields given change.';
grant execute on function app_tools.initiatives_update(args jsonb) to svc_visitor;
