-- The cycles.current tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the ACTIVE cycle with its issues, or null.
create or replace function app_tools.cycles_current(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.cycle_json(c, true) from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status = 'ACTIVE'
$$;
comment on function app_tools.cycles_current(args jsonb) is 'cycles.current: The current sprint: the ACTIVE cycle with its issues, or null when none is active.';
grant execute on function app_tools.cycles_current(args jsonb) to svc_visitor;
