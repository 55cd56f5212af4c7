-- The cycles.plan tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- bulk add/remove issues for the upcoming cycle (or cycleId), all or nothing; added/removed list the issues
-- that actually moved (one ISSUE_UPDATED each, by trigger).
create or replace function app_tools.cycles_plan(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_add uuid[] := app_hidden.resolve_issue_list(args->'add', 'add', true);
  v_remove uuid[] := app_hidden.resolve_issue_list(args->'remove', 'remove', true);
  v_added jsonb;
  v_removed jsonb;
begin
  if args->>'cycleId' is not null then
    v_cycle := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  else
    v_cycle := app_hidden.upcoming_cycle();
    if v_cycle.id is null then
      raise exception 'There is no upcoming (PLANNED) cycle; create one with cycles.create or pass cycleId'
        using errcode = 'SV409', detail = 'no_upcoming_cycle';
    end if;
  end if;
  perform app_hidden.require_open_cycle(v_cycle);
  if cardinality(v_add) + cardinality(v_remove) = 0 then
    raise exception 'give issues to add or remove' using errcode = 'SV400', column = 'add';
  end if;
  if v_add && v_remove then
    raise exception 'an issue cannot be both added and removed' using errcode = 'SV400', column = 'remove';
  end if;
  with moved as (
    update app_public.issues set cycle_id = v_cycle.id
    where id = any(v_add) and cycle_id is distinct from v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_added from moved;
  with moved as (
    update app_public.issues set cycle_id = null
    where id = any(v_remove) and cycle_id = v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_removed from moved;
  return jsonb_build_object('cycle', app_hidden.cycle_json(v_cycle, true), 'added', v_added, 'removed', v_removed);
end
$$;
comment on function app_tools.cycles_plan(args jsonb) is 'cycles.plan: Plan the upcoming sprint in one call: add and/or remove issues (ids or keys, up to 100 each). Targets the earliest PLANNED cycle unless cycleId is given (a PLANNED or ACTIVE one). All or nothing. Returns the cycle with its first 100 issues and the ids that actually moved.';
grant execute on function app_tools.cycles_plan(args jsonb) to svc_visitor;
