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
--! include core/rate_limits.sql
