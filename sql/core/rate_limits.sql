-- Per-key rate limits shared by every API process (the counters table is in the migrations).
-- Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.rate_limit_counters;
create policy owner_all on app_private.rate_limit_counters to current_user using (true) with check (true);
comment on policy owner_all on app_private.rate_limit_counters is
  'Only the schema owner (app_hidden.rate_limit_take, a security definer) reads and writes counters.';

-- Replaced by rate_limit_reserve (migration 000054): an API process reserves calls ahead instead of one upsert per call.
drop function if exists app_hidden.rate_limit_take(uuid, uuid, text, int, int);

create or replace function app_hidden.rate_limit_reserve(p_key_id uuid, p_workspace_id uuid, p_surface text, p_calls int, p_limit int,
  out granted int, out retry_after int)
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_window timestamptz := date_trunc('minute', now());
  v_before int;
begin
  -- The key's count in this window, its row locked (concurrent reservations of one key take turns here).
  insert into app_private.rate_limit_counters as c (key_id, surface, workspace_id, window_start, calls)
  values (p_key_id, p_surface, p_workspace_id, v_window, 0)
  on conflict (key_id, surface) do update
    -- A reservation whose clock is still in the previous minute (it waited for the row) counts in the newer one.
    set calls = case when c.window_start >= excluded.window_start then c.calls else 0 end,
        window_start = greatest(c.window_start, excluded.window_start)
  returning c.calls into v_before;
  if v_before + p_calls > p_limit then
    -- Over the limit: refused, and counted (a refused call still counts).
    granted := 0;
    retry_after := greatest(1, ceil(extract(epoch from (v_window + interval '1 minute' - clock_timestamp()))))::int;
  else
    -- The calls asked for, plus an eighth of what is left (at most 63) for the process to spend without asking:
    -- near the limit the extra is 0, so the last calls of a minute are counted one by one, across processes too.
    granted := p_calls + least(63, (p_limit - v_before - p_calls) / 8);
    retry_after := 0;
  end if;
  update app_private.rate_limit_counters set calls = v_before + greatest(granted, p_calls)
  where key_id = p_key_id and surface = p_surface;
end
$$;
comment on function app_hidden.rate_limit_reserve(uuid, uuid, text, int, int) is
  'Counts p_calls calls of a key on a surface in the current minute and reserves more for the calling API process: granted = p_calls plus an eighth of what is left of p_limit (at most 63, 0 near the limit), retry_after = 0. Over p_limit: granted = 0, the calls still count, retry_after = seconds until the window ends (Retry-After).';
grant execute on function app_hidden.rate_limit_reserve(uuid, uuid, text, int, int) to svc_visitor;
