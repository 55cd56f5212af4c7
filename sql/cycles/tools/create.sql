-- The cycles.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays /
-- cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.
create or replace function app_tools.cycles_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends, case when args ? 'endsOn' then 'endsOn' else 'startsOn' end);
  if coalesce((args->>'activate')::boolean, false) then
    if (app_hidden.current_cycle()).id is not null then
      raise exception 'Another cycle is active: a cycle is activated early only while none runs (the running one ends on its endsOn)' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  perform app_hidden.check_one_active_cycle(null, v_starts, v_ends, v_status);
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. ACTIVE while its dates include today, COMPLETED once past, PLANNED before; activate: true makes a future one current now when no other is (meanwhile no other cycle may span today: 409 active_cycle_exists). Needs a key without narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
