-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the current cycle (current_cycle: dates include
-- today; unless it began today), or else from the last ended cycle not rolled over yet, to the next cycle (the earliest
-- non-canceled one not ended that starts after the source, created from cycleLengthDays/cycleCooldownDays when none). Cycles keep following the calendar:
-- nothing is activated or completed early; only an ended source cycle gets its stored COMPLETED (= rolled over).
-- Repeating it the same day moves what is still unfinished and changes nothing else. Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_from app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  -- Where the issues come from: the current cycle, unless it began today (nothing ran in it yet: a rollover on a
  -- sprint's first day is about the one that just ended, and a repeat of a late rollover must not empty the sprint
  -- it started), else the latest one that ran to its end without a rollover.
  v_from := app_hidden.current_cycle();
  if v_from.id is null or v_from.starts_on = app_hidden.utc_today() then
    select * into v_from from app_public.cycles
    where workspace_id = v_ws.id and status not in ('CANCELED', 'COMPLETED') and ends_on < app_hidden.utc_today()
    order by ends_on desc limit 1;
  end if;
  -- Where they go: the earliest non-canceled cycle that has not ended and starts after the source ends (for an ended
  -- source, the running one included).
  select * into v_next from app_public.cycles c
  where c.workspace_id = v_ws.id and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today()
    and (case when v_from.id is null then c.starts_on >= app_hidden.utc_today()
              else c.id <> v_from.id and c.starts_on > v_from.ends_on end)
  order by c.starts_on, c.number limit 1;
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_from.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_from.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    -- An ended cycle is COMPLETED on the calendar already; the stored value records that it was rolled over.
    if v_from.ends_on < app_hidden.utc_today() and v_from.status <> 'COMPLETED' then
      update app_public.cycles set status = 'COMPLETED' where id = v_from.id returning * into v_from;
    end if;
  end if;
  return jsonb_build_object(
    'completed', case when v_from.id is null or v_from.ends_on >= app_hidden.utc_today() then null else app_hidden.cycle_json(v_from) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: Move the unfinished issues (not Done/Canceled) of the current sprint (the cycle whose dates include today; when none runs, or it began today, the last one that ended without a rollover) to the next cycle (the earliest not ended that starts after it, the running one for an ended sprint; created from the workspace cycle length and cooldown when none exists). It never changes which sprint is current (cycles are ACTIVE while their dates include today, COMPLETED once ended). Returns completed (the cycle the issues left if it has ended, else null), current (where they went), movedIssueIds, createdNext. Again the same day: moves only what is still unfinished. Needs a key without narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
