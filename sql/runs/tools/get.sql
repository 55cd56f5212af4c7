-- The runs.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one run the key can see (its issue visible).
create or replace function app_tools.runs_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.run_json(app_hidden.find_run(args->>'id', 'id'));
end
$$;
comment on function app_tools.runs_get(args jsonb) is 'runs.get: One run by id.';
grant execute on function app_tools.runs_get(args jsonb) to svc_visitor;
