-- Per-key rate limits shared by every API process (the counters table is in the migrations).
-- Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.rate_limit_counters;
create policy owner_all on app_private.rate_limit_counters to current_user using (true) with check (true);
comment on policy owner_all on app_private.rate_limit_counters is
  'Only the schema owner (app_hidden.rate_limit_take, a security definer) reads and writes counters.';

create or replace function app_hidden.rate_limit_take(p_key_id uuid, p_workspace_id uuid, p_surface text, p_calls int, p_limit int)
returns int
language sql volatile security definer set search_path = pg_catalog as $$
  insert into app_private.rate_limit_counters as c (key_id, surface, workspace_id, window_start, calls)
  values (p_key_id, p_surface, p_workspace_id, date_trunc('minute', now()), p_calls)
  on conflict (key_id, surface) do update
    set calls = case when c.window_start = excluded.window_start then c.calls + excluded.calls else excluded.calls end,
        window_start = excluded.window_start
  returning case when c.calls > p_limit
    then greatest(1, ceil(extract(epoch from (c.window_start + interval '1 minute' - clock_timestamp()))))::int
    else 0 end
$$;
comment on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) is
  'Counts p_calls calls of a key on a surface in the current minute (one upsert). Returns 0 when the key is within p_limit, else the seconds until the window ends (Retry-After). Refused calls count too.';
grant execute on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) to svc_visitor;
