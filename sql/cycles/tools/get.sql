-- The cycles.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one cycle with its issues (those the key can see).
create or replace function app_tools.cycles_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.cycle_json(app_hidden.find_cycle(args->>'id'), true) $$;
comment on function app_tools.cycles_get(args jsonb) is 'cycles.get: One cycle (sprint) by id, with its first 100 issues by number (issueCount says how many; issues.list {cycleId} pages through all).';
grant execute on function app_tools.cycles_get(args jsonb) to svc_visitor;
