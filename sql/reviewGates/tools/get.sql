-- The reviewGates.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one review gate (its plan's goal visible to the key).
create or replace function app_tools.review_gates_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.gate_json(app_hidden.find_gate(args->>'id'));
end
$$;
comment on function app_tools.review_gates_get(args jsonb) is 'reviewGates.get: One review gate by id.';
grant execute on function app_tools.review_gates_get(args jsonb) to svc_visitor;
