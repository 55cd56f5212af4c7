-- Per-key rate limits shared by every API process (issue 9): one counter row per (key, surface),
-- fixed one-minute windows aligned to the clock, bumped by ONE upsert per HTTP request (a JSON-RPC batch
-- adds its number of calls). UNLOGGED: counters are worth nothing after a crash, and skipping the WAL
-- keeps the upsert cheap. Re-runnable while current.

drop function if exists app_hidden.rate_limit_take(uuid, uuid, text, int, int);
drop table if exists app_private.rate_limit_counters;

create unlogged table app_private.rate_limit_counters (
  key_id uuid not null,
  surface text not null check (surface in ('rpc', 'rest')),
  workspace_id uuid not null,
  window_start timestamptz not null,
  calls int not null check (calls >= 0),
  primary key (key_id, surface)
);
comment on table app_private.rate_limit_counters is
  'Calls per API key and surface (rpc = JSON-RPC, rest = REST aliases and GraphQL) in the current one-minute window; shared by all API processes. Unlogged: lost on a crash, which only resets the limits.';

alter table app_private.rate_limit_counters enable row level security;
alter table app_private.rate_limit_counters force row level security;
create policy owner_all on app_private.rate_limit_counters to current_user using (true) with check (true);
comment on policy owner_all on app_private.rate_limit_counters is
  'Only the schema owner (app_hidden.rate_limit_take, a security definer) reads and writes counters.';

create function app_hidden.rate_limit_take(p_key_id uuid, p_workspace_id uuid, p_surface text, p_calls int, p_limit int)
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
revoke all on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) from public;
grant execute on function app_hidden.rate_limit_take(uuid, uuid, text, int, int) to svc_visitor;
