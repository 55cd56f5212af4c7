-- The runtimes.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one runtime (archived included); never its secret.
create or replace function app_tools.runtimes_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.runtime_json(app_hidden.find_runtime(args->>'id', 'id'));
end
$$;
comment on function app_tools.runtimes_get(args jsonb) is 'runtimes.get: One runtime by id (archived too); never its secret.';
grant execute on function app_tools.runtimes_get(args jsonb) to svc_visitor;
