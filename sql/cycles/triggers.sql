-- Triggers of the cycles tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_cycles__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'CYCLE_DELETED', 'cycle', old.id,
      jsonb_build_object('cycleId', old.id, 'number', old.number, 'name', old.name, 'startsOn', old.starts_on,
                         'endsOn', old.ends_on, 'status', app_hidden.cycle_status(old)));
    -- Pins are personal rows of every member: nothing may keep pointing at the cycle.
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'CYCLE' and p.target_id = old.id;
    return null;
  end if;
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CYCLE_CREATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'startsOn', new.starts_on,
                         'endsOn', new.ends_on, 'status', app_hidden.cycle_status(new)));
    return null;
  end if;
  v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'starts_on', 'ends_on']);
  -- status as cycles.get shows it (the calendar's); the stored COMPLETED rollover writes on an ended cycle only says
  -- it was rolled over (it was COMPLETED on the calendar already).
  if app_hidden.cycle_status(new) is distinct from app_hidden.cycle_status(old) then v_changed := array_append(v_changed, 'status'); end if;
  if new.status = 'COMPLETED' and old.status is distinct from 'COMPLETED' then v_changed := array_append(v_changed, 'rolledOver'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'CYCLE_UPDATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'changes', to_jsonb(v_changed),
                         -- On the calendar, as cycles.get shows it (the stored PLANNED of a running sprint misled).
                         'status', app_hidden.cycle_status(new), 'previousStatus', app_hidden.cycle_status(old)));
  end if;
  return null;
end
$$;
comment on function app_private.tg_cycles__events() is 'CYCLE_CREATED (status: on the calendar, as cycles.get shows it); CYCLE_UPDATED on rename, re-dating and status moves (status and previousStatus: on the calendar after and before, as cycles.get shows them; changes names status when that moved, rolledOver when rollover finished an ended cycle); CYCLE_DELETED (status: on the calendar when deleted), and the members'' pins of a deleted cycle go. Kinds beyond spec 6.1, see docs/decisions.md.';

drop trigger if exists _100_updated_at on app_public.cycles;
create trigger _100_updated_at before update on app_public.cycles for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.cycles;
create trigger _800_events after insert or update or delete on app_public.cycles for each row execute function app_private.tg_cycles__events();
