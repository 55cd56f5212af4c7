-- The reviewGates.resolve tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- APPROVE continues the loop, REJECT abandons the goal; a person (or an ADMIN key) decides, never an agent key alone.
create or replace function app_tools.review_gates_resolve(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_gate app_public.review_gates;
begin
  -- Before the gate is looked up: the key's kind decides, whatever the id (tools/list leaves the tool out for it).
  perform app_hidden.gate_assert_may_decide(null);
  v_gate := app_hidden.find_gate(args->>'id');
  perform app_hidden.gate_assert_may_decide(v_gate.plan_id);
  v_gate := app_hidden.gate_resolve(v_gate, args->>'decision', args->>'note');
  return app_hidden.gate_json(v_gate) || jsonb_build_object(
    'planStatus', (select p.status from app_public.execution_plans p where p.id = v_gate.plan_id),
    'goalStatus', (select g.status from app_public.goals g join app_public.execution_plans p on p.goal_id = g.id where p.id = v_gate.plan_id));
end
$$;
comment on function app_tools.review_gates_resolve(args jsonb) is 'reviewGates.resolve: Resolve a pending gate: APPROVE continues (a held step is ready again with fresh retries, a held plan runs again), REJECT abandons the goal. Decided by a person; an agent key needs the ADMIN scope and must not work in the plan (its planner, a worker or judge of one of its steps: 403 own_plan).';
grant execute on function app_tools.review_gates_resolve(args jsonb) to svc_visitor;
