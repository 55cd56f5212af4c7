--! Previous: sha1:d64d1dbed718edba30ad9322af6a037328d14eb4
--! Hash: sha1:16b96b2eb30d4822b89c33057fbb5af28948c017
--! Message: A cool-off one worker process starts holds in every other (app_private.outbound_cool_offs)

--! split: 1-current.sql
-- A target that timed out cools off for every worker process, not only the one that waited for it (two-process
-- probe: with two workers a hanging webhook endpoint was waited on once per process, and the cool-off README
-- promises held in one). Unlogged: a cool-off is worth nothing after a crash.
drop table if exists app_private.outbound_cool_offs;
create unlogged table app_private.outbound_cool_offs (
  target text primary key,
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  until timestamptz not null
);
comment on table app_private.outbound_cool_offs is 'Outbound targets (a webhook''s or agent''s delivery channel with the URL''s origin, or a workspace''s link fetches) that timed out, and until when they cool off; the workspace is the tenant whose channel or links it is; shared by every worker process. Unlogged: lost on a crash, which only ends the cool-offs.';
alter table app_private.outbound_cool_offs enable row level security;
alter table app_private.outbound_cool_offs force row level security;
--! Included core/outbound.sql
-- Outbound targets that timed out, shared by every worker process (the table is in the migrations;
-- src/outbound/slow-targets.ts keeps each process's own copy and the probing).
-- Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.outbound_cool_offs;
create policy owner_all on app_private.outbound_cool_offs to current_user using (true) with check (true);
comment on policy owner_all on app_private.outbound_cool_offs is
  'Only the schema owner (the worker, through the functions below) reads and writes cool-offs.';

create or replace function app_private.outbound_cool_off_until(p_target text)
 returns timestamptz
 language sql
 stable
as $$
  select c.until from app_private.outbound_cool_offs c where c.target = p_target and c.until > now()
$$;
comment on function app_private.outbound_cool_off_until(p_target text) is 'Until when a worker process cooled the target off (it timed out there), or NULL: another process fails its requests at once until then instead of waiting out the deadline again.';

drop function if exists app_private.outbound_cool_off_set(text, timestamptz);
create or replace function app_private.outbound_cool_off_set(p_workspace_id uuid, p_target text, p_until timestamptz)
 returns void
 language plpgsql
 volatile
as $$
begin
  if p_until is null then
    -- An answer: the target is well again, for every process.
    delete from app_private.outbound_cool_offs where target = p_target;
    return;
  end if;
  insert into app_private.outbound_cool_offs (target, workspace_id, until) values (p_target, p_workspace_id, p_until)
  on conflict (target) do update set until = greatest(app_private.outbound_cool_offs.until, excluded.until);
  -- Timeouts are rare: each one clears what has long cooled down, so the table holds only live targets.
  delete from app_private.outbound_cool_offs where until < now() - interval '1 hour';
end
$$;
comment on function app_private.outbound_cool_off_set(p_workspace_id uuid, p_target text, p_until timestamptz) is 'A target of the workspace timed out: cools it off until p_until for every worker process (the later of two); NULL clears it (it answered).';
--! EndIncluded core/outbound.sql
