-- The initiatives.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new initiative; INITIATIVE_CREATED by trigger. Initiative-narrowed keys: 403 narrowing.
create or replace function app_tools.initiatives_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives;
begin
  if cardinality(app_hidden.narrowed_initiative_ids()) > 0 then
    raise exception 'An initiative-narrowed key cannot create initiatives' using errcode = 'SV403', detail = 'narrowing';
  end if;
  insert into app_public.initiatives (workspace_id, name, description)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description')
  returning * into v_initiative;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_create(args jsonb) is 'initiatives.create: Create an initiative (name, optional description). Link projects to it with initiatives.linkProject.';
grant execute on function app_tools.initiatives_create(args jsonb) to svc_visitor;
