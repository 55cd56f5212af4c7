--! Previous: sha1:a3cf1da13f79e79b27e17ff527b110f341e3dd26
--! Hash: sha1:31038d0ee10b33842fff699efb33e49194613956
--! Message: A cycle shows its first 100 issues

--! split: 1-current.sql
-- A cycle's issues in cycles.get / current / plan: the first 100 by number (issueCount says how many; issues.list
-- {cycleId} pages). A big-workspace probe: a sprint rollover had grown to 5,392 issues answered 4.5 MB in 0.7–1.1 s.
--! Included cycles/cycles.sql
-- cycles: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text default 'endsOn'::text)
 returns void
 language plpgsql
 stable
as $$
declare v_other app_public.cycles;
begin
  -- Dates the tools take back (YYYY-MM-DD): a default computed after a cycle ending in 9999 would not be.
  -- p_ends_field: what set the end (endsOn when given; else startsOn, from which the end was computed or kept): the
  -- refusal names a field the caller sent.
  if p_starts > date '9999-12-31' or p_ends > date '9999-12-31' then
    raise exception 'Cycle dates end at 9999-12-31 (the next cycle would fall after it)'
      using errcode = 'SV400', column = case when p_starts > date '9999-12-31' then 'startsOn' else p_ends_field end;
  end if;
  if p_ends < p_starts then
    raise exception 'endsOn must be on or after startsOn' using errcode = 'SV400', column = p_ends_field;
  end if;
  select * into v_other from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.id is distinct from p_cycle_id
    and daterange(c.starts_on, c.ends_on, '[]') && daterange(p_starts, p_ends, '[]')
  order by c.starts_on limit 1;
  if v_other.id is not null then
    raise exception 'The dates overlap % (% to %)', v_other.name, v_other.starts_on, v_other.ends_on
      using errcode = 'SV409', detail = 'cycle_overlap';
  end if;
end
$$;
comment on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text) is 'Cycle dates: none after 9999-12-31 and endsOn >= startsOn (400 naming p_ends_field, the input that set the end), and no overlap with another non-canceled cycle (409 cycle_overlap).';
grant execute on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text) to svc_visitor;

create or replace function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text)
 returns void
 language plpgsql
 stable
as $$
declare
  v_other app_public.cycles;
begin
  -- Dates never overlap, so two cycles can be ACTIVE at once only through an early activation: a cycle stored
  -- ACTIVE before its dates is current from now until it ends, and any other cycle whose dates come before its
  -- start (and have not ended) is ACTIVE by the calendar in that time.
  if p_status = 'ACTIVE' and p_starts > app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today() and c.starts_on < p_starts
    order by c.starts_on limit 1;
  elsif p_ends >= app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status = 'ACTIVE' and c.starts_on > app_hidden.utc_today() and p_starts < c.starts_on
    limit 1;
  end if;
  if v_other.id is not null then
    raise exception 'Cycle % (% to %) and this one would both be ACTIVE before %: one cycle is current at a time',
      v_other.name, v_other.starts_on, v_other.ends_on, greatest(v_other.starts_on, p_starts)
      using errcode = 'SV409', detail = 'active_cycle_exists';
  end if;
end
$$;
comment on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) is 'At most one ACTIVE cycle at any time: a cycle activated early (stored ACTIVE, starting later) is current until it ends, so no other cycle may run by the calendar before its start (409 active_cycle_exists), whichever of the two is written (p_cycle_id re-dated, or new). Call under lock_cycles().';
grant execute on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.cycle_status(c app_public.cycles)
 returns text
 language sql
 stable parallel safe
as $$
  select case
    when c.status = 'CANCELED' then 'CANCELED'
    when c.ends_on < app_hidden.utc_today() then 'COMPLETED'
    when c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE' then 'ACTIVE'
    else 'PLANNED' end
$$;
comment on function app_hidden.cycle_status(c app_public.cycles) is 'A cycle''s status on the calendar (decisions.md "Cycle status"): CANCELED stays; otherwise ended (endsOn before today, UTC) is COMPLETED, started (dates include today) or activated early by cycles.create activate: true (stored ACTIVE) is ACTIVE, else PLANNED. A stored COMPLETED only records that an ended cycle was rolled over; it never ends a cycle early.';
grant execute on function app_hidden.cycle_status(c app_public.cycles) to svc_visitor;

create or replace function app_public.cycles_current_status(c app_public.cycles)
 returns text
 language sql
 stable
as $$ select app_hidden.cycle_status(c) $$;
comment on function app_public.cycles_current_status(c app_public.cycles) is 'The status on the calendar: a cycle whose dates include today is ACTIVE, one whose end has passed COMPLETED, a later one PLANNED (status holds only what was set: PLANNED, ACTIVE by cycles.create activate: true, COMPLETED once an ended cycle was rolled over, CANCELED).';
grant execute on function app_public.cycles_current_status(c app_public.cycles) to svc_visitor;

create or replace function app_hidden.current_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.ends_on >= app_hidden.utc_today() and (c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE')
  order by c.starts_on <= app_hidden.utc_today() desc, c.starts_on, c.number limit 1
$$;
comment on function app_hidden.current_cycle() is 'The current cycle: the one whose dates include today, else one activated early by cycles.create activate: true (NULL row when none). Rollover never changes it.';
grant execute on function app_hidden.current_cycle() to svc_visitor;

create or replace function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', c.id, 'number', c.number, 'name', c.name, 'startsOn', c.starts_on, 'endsOn', c.ends_on, 'status', app_hidden.cycle_status(c),
    'issueCount', n.total, 'openIssueCount', n.open, 'doneIssueCount', n.done,
    'createdAt', c.created_at, 'updatedAt', c.updated_at)
  -- At most the first 100 (by number): a sprint that rollover had grown to 5,392 issues answered 4.5 MB in 0.7–1.1 s.
  -- issueCount says how many there are; issues.list {cycleId} pages through them all.
  || case when p_with_issues then jsonb_build_object('issues', coalesce(
       (select jsonb_agg(app_hidden.issue_lean_json(t.i, s, p, a)::jsonb order by (t.i).number)
        from (select i from app_public.issues i
              where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null
              order by i.number limit 100) t
        left join app_public.statuses s on s.id = (t.i).status_id
        left join app_public.projects p on p.id = (t.i).project_id
        left join app_public.agents a on a.id = (t.i).assigned_agent_id), '[]'))
     else '{}'::jsonb end
  from (select count(*) as total,
               count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
               count(*) filter (where s.category = 'DONE') as done
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null) n
$$;
comment on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) is 'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the first 100 issues by number (lean; issueCount says how many there are).';
grant execute on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) to svc_visitor;

create or replace function app_hidden.find_cycle(p_id text, p_field text default 'id'::text)
 returns app_public.cycles
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select c from app_public.cycles c
                           where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
                          'Cycle', p_field);
end
$$;
comment on function app_hidden.find_cycle(p_id text, p_field text) is 'A cycle of the caller''s workspace, else 404 Cycle not found.';
grant execute on function app_hidden.find_cycle(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text)
 returns app_public.cycles
 language plpgsql
as $$
declare
  v_number int;
  v_cycle app_public.cycles;
begin
  select coalesce(max(number), 0) + 1 into v_number from app_public.cycles where workspace_id = p_ws.id;
  insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on, status)
  values (p_ws.id, v_number, coalesce(p_name, 'Sprint ' || v_number), p_starts,
          coalesce(p_ends, p_starts + p_ws.cycle_length_days - 1), p_status)
  returning * into v_cycle;
  return v_cycle;
end
$$;
comment on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) is 'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';
grant execute on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.lock_cycles()
 returns app_public.workspaces
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.cycles:' || app_hidden.current_workspace_id()::text, 0));
  select * from app_public.workspaces where id = app_hidden.current_workspace_id();
$$;
comment on function app_hidden.lock_cycles() is 'Serialises cycle scheduling within a workspace (numbers, dates, rollover) for the transaction; returns the workspace settings.';
grant execute on function app_hidden.lock_cycles() to svc_visitor;

create or replace function app_hidden.next_cycle_start(p_ws app_public.workspaces)
 returns date
 language sql
 stable
as $$
  select greatest(app_hidden.utc_today(),
                  coalesce((select max(c.ends_on) + 1 + p_ws.cycle_cooldown_days
                            from app_public.cycles c where c.workspace_id = p_ws.id and c.status <> 'CANCELED'),
                           app_hidden.utc_today()))
$$;
comment on function app_hidden.next_cycle_start(p_ws app_public.workspaces) is 'Where the next cycle starts by default: after the last non-canceled cycle plus cycleCooldownDays, never before today (UTC).';
grant execute on function app_hidden.next_cycle_start(p_ws app_public.workspaces) to svc_visitor;

create or replace function app_hidden.require_open_cycle(p_cycle app_public.cycles)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.cycle_status(p_cycle) in ('COMPLETED', 'CANCELED') then
    raise exception 'Cycle % is %; issues can be planned only into PLANNED or ACTIVE cycles', p_cycle.name, lower(app_hidden.cycle_status(p_cycle))
      using errcode = 'SV409', detail = 'cycle_closed';
  end if;
end
$$;
comment on function app_hidden.require_open_cycle(p_cycle app_public.cycles) is 'Issues may be added only to PLANNED or ACTIVE cycles: 409 cycle_closed otherwise.';
grant execute on function app_hidden.require_open_cycle(p_cycle app_public.cycles) to svc_visitor;

create or replace function app_hidden.upcoming_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles
  where workspace_id = app_hidden.current_workspace_id() and status = 'PLANNED' and starts_on > app_hidden.utc_today()
  order by starts_on, number limit 1
$$;
comment on function app_hidden.upcoming_cycle() is 'The upcoming cycle: the earliest PLANNED one (not started yet; NULL row when none).';
grant execute on function app_hidden.upcoming_cycle() to svc_visitor;
--! EndIncluded cycles/cycles.sql
--! Included cycles/tools/get.sql
-- The cycles.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one cycle with its issues (those the key can see).
create or replace function app_tools.cycles_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.cycle_json(app_hidden.find_cycle(args->>'id'), true) $$;
comment on function app_tools.cycles_get(args jsonb) is 'cycles.get: One cycle (sprint) by id, with its first 100 issues by number (issueCount says how many; issues.list {cycleId} pages through all).';
grant execute on function app_tools.cycles_get(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/get.sql
--! Included cycles/tools/current.sql
-- The cycles.current tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the current cycle (dates include today, or activated early) with its issues, or null.
create or replace function app_tools.cycles_current(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.cycle_json(c, true) from app_hidden.current_cycle() c where c.id is not null
$$;
comment on function app_tools.cycles_current(args jsonb) is 'cycles.current: The current sprint: the cycle whose dates include today (or one activated early), with its first 100 issues by number (issueCount says how many); null when there is none.';
grant execute on function app_tools.cycles_current(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/current.sql
--! Included cycles/tools/plan.sql
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
--! EndIncluded cycles/tools/plan.sql
