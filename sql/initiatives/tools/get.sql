-- The initiatives.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one initiative with its linked projects (those the key can see).
create or replace function app_tools.initiatives_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.initiative_json(app_hidden.find_initiative(args->>'id'), true)
$$;
comment on function app_tools.initiatives_get(args jsonb) is 'initiatives.get: One initiative by id, with the projects linked to it.';
grant execute on function app_tools.initiatives_get(args jsonb) to svc_visitor;
