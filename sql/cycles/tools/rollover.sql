-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the current cycle (cycle_status) to the upcoming one
-- (created from cycleLengthDays/cycleCooldownDays when none), completes the current and activates the next.
-- Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_current app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  -- The cycle to finish: the current one, else the latest one that ran to its end without a rollover
  -- (its unfinished issues move on too).
  v_current := app_hidden.current_cycle();
  if v_current.id is null then
    select * into v_current from app_public.cycles
    where workspace_id = v_ws.id and status not in ('CANCELED', 'COMPLETED') and ends_on < app_hidden.utc_today()
    order by ends_on desc limit 1;
  end if;
  v_next := app_hidden.upcoming_cycle();
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_current.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_current.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    update app_public.cycles set status = 'COMPLETED' where id = v_current.id returning * into v_current;
  end if;
  update app_public.cycles set status = 'ACTIVE' where id = v_next.id returning * into v_next;
  return jsonb_build_object(
    'completed', case when v_current.id is null then null else app_hidden.cycle_json(v_current) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: End the current sprint (or the last one that ended without a rollover): move its unfinished issues (status not Done/Canceled) to the next cycle (the earliest PLANNED one, created from the workspace cycle length and cooldown when none exists), mark the current COMPLETED and the next ACTIVE. With no active cycle it just activates the next. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
