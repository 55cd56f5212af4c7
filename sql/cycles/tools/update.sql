-- The cycles.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, startsOn, endsOn (no overlaps; an ended or canceled cycle keeps its dates, 409 cycle_closed; a live one
-- cannot be made to end before today, 400 endsOn); CYCLE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.cycles_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    -- An ended or canceled cycle is history: re-dated, it would come back as PLANNED or ACTIVE with its old issues.
    if app_hidden.cycle_status(v_cycle) in ('COMPLETED', 'CANCELED') then
      raise exception 'Cycle % is %: its dates can no longer change (create a new cycle)', v_cycle.name, lower(app_hidden.cycle_status(v_cycle))
        using errcode = 'SV409', detail = 'cycle_closed';
    end if;
    -- Nor does a live one become history by a date change: it could not be re-dated back (above), and its
    -- unfinished issues would stay in it without a rollover. A past cycle is made with cycles.create.
    if v_ends < app_hidden.utc_today() then
      raise exception 'endsOn % is before today: the cycle would end at once, and an ended cycle keeps its dates', v_ends
        using errcode = 'SV400', column = 'endsOn';
    end if;
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends, case when args ? 'endsOn' then 'endsOn' else 'startsOn' end);
    perform app_hidden.check_one_active_cycle(v_cycle.id, v_starts, v_ends, v_cycle.status);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(args jsonb) is 'cycles.update: Rename or re-date a cycle (name, startsOn, endsOn; no overlaps; an ended or canceled cycle keeps its dates, and a live one cannot be made to end before today). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_update(args jsonb) to svc_visitor;
