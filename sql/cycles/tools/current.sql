-- The cycles.current tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the current cycle (dates include today, or activated early) with its issues, or null.
create or replace function app_tools.cycles_current(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.cycle_json(c, true) from app_hidden.current_cycle() c where c.id is not null
$$;
comment on function app_tools.cycles_current(args jsonb) is 'cycles.current: The current sprint: the cycle whose dates include today (or one activated early), with its first 100 issues by number (issueCount says how many); null when there is none.';
grant execute on function app_tools.cycles_current(args jsonb) to svc_visitor;
