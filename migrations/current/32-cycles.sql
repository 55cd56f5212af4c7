-- cycles.* (spec 4.4, shown as Sprints). Scopes READ_ISSUES / WRITE_ISSUES (docs/decisions.md).
-- current = the ACTIVE cycle (at most one per workspace); upcoming = the earliest PLANNED one.
-- Moving an issue in or out of a cycle writes ISSUE_UPDATED (changes cycleId) through the issues trigger;
-- cycle rows write CYCLE_CREATED / CYCLE_UPDATED (30-planning-foundation.sql).

create or replace function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean default false) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', c.id, 'number', c.number, 'name', c.name, 'startsOn', c.starts_on, 'endsOn', c.ends_on, 'status', c.status,
    'issueCount', n.total, 'openIssueCount', n.open, 'doneIssueCount', n.done,
    'createdAt', c.created_at, 'updatedAt', c.updated_at)
  || case when p_with_issues then jsonb_build_object('issues', coalesce(
       (select jsonb_agg(app_hidden.issue_json(i) order by i.number)
        from app_public.issues i where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null), '[]'))
     else '{}'::jsonb end
  from (select count(*) as total,
               count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
               count(*) filter (where s.category = 'DONE') as done
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null) n
$$;
comment on function app_hidden.cycle_json(app_public.cycles, boolean) is
  'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the issues themselves (lean).';

create or replace function app_hidden.find_cycle(p_id text, p_field text default 'id') returns app_public.cycles
language plpgsql stable as $$
declare v_cycle app_public.cycles;
begin
  select * into v_cycle from app_public.cycles
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v_cycle.id is null then
    raise exception 'Cycle not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_cycle;
end
$$;
comment on function app_hidden.find_cycle(text, text) is 'A cycle of the caller''s workspace, else 404 Cycle not found.';

create or replace function app_hidden.upcoming_cycle() returns app_public.cycles
language sql stable as $$
  select * from app_public.cycles
  where workspace_id = app_hidden.current_workspace_id() and status = 'PLANNED'
  order by starts_on, number limit 1
$$;
comment on function app_hidden.upcoming_cycle() is 'The upcoming cycle: the earliest PLANNED one (NULL row when none).';

create or replace function app_hidden.require_open_cycle(p_cycle app_public.cycles) returns void
language plpgsql stable as $$
begin
  if p_cycle.status in ('COMPLETED', 'CANCELED') then
    raise exception 'Cycle % is %; issues can be planned only into PLANNED or ACTIVE cycles', p_cycle.name, lower(p_cycle.status)
      using errcode = 'SV409', detail = 'cycle_closed';
  end if;
end
$$;
comment on function app_hidden.require_open_cycle(app_public.cycles) is 'Issues may be added only to PLANNED or ACTIVE cycles: 409 cycle_closed otherwise.';

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) returns void
language plpgsql stable as $$
declare v_other app_public.cycles;
begin
  if p_ends < p_starts then
    raise exception 'endsOn must be on or after startsOn' using errcode = 'SV400', column = 'endsOn';
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
comment on function app_hidden.check_cycle_dates(uuid, date, date) is
  'Cycle dates: endsOn >= startsOn (400) and no overlap with another non-canceled cycle (409 cycle_overlap).';

create or replace function app_hidden.lock_cycles() returns app_public.workspaces
language sql volatile as $$
  select pg_advisory_xact_lock(hashtextextended('svc.cycles:' || app_hidden.current_workspace_id()::text, 0));
  select * from app_public.workspaces where id = app_hidden.current_workspace_id();
$$;
comment on function app_hidden.lock_cycles() is
  'Serialises cycle scheduling within a workspace (numbers, dates, rollover) for the transaction; returns the workspace settings.';

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text)
returns app_public.cycles
language plpgsql volatile as $$
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
comment on function app_hidden.insert_cycle(app_public.workspaces, text, date, date, text) is
  'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';

create or replace function app_hidden.next_cycle_start(p_ws app_public.workspaces) returns date
language sql stable as $$
  select greatest(app_hidden.utc_today(),
                  coalesce((select max(c.ends_on) + 1 + p_ws.cycle_cooldown_days
                            from app_public.cycles c where c.workspace_id = p_ws.id and c.status <> 'CANCELED'),
                           app_hidden.utc_today()))
$$;
comment on function app_hidden.next_cycle_start(app_public.workspaces) is
  'Where the next cycle starts by default: after the last non-canceled cycle plus cycleCooldownDays, never before today (UTC).';

-- Tools -----------------------------------------------------------------------------------------

create or replace function app_tools.cycles_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'cycles') k;
  end if;
  with page as (
    select c as r from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or c.status = args->>'status')
      and (v_after_date is null or (c.starts_on, c.id) < (v_after_date, v_after_id))
    order by c.starts_on desc, c.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).starts_on desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.cycle_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('cycles', to_char((r).starts_on, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.cycles_list(jsonb) is 'cycles.list: cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.';

create or replace function app_tools.cycles_get(args jsonb) returns jsonb
language sql stable as $$ select app_hidden.cycle_json(app_hidden.find_cycle(args->>'id'), true) $$;
comment on function app_tools.cycles_get(jsonb) is 'cycles.get: one cycle with its issues (those the key can see).';

create or replace function app_tools.cycles_current(args jsonb) returns jsonb
language sql stable as $$
  select app_hidden.cycle_json(c, true) from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status = 'ACTIVE'
$$;
comment on function app_tools.cycles_current(jsonb) is 'cycles.current: the ACTIVE cycle with its issues, or null.';

create or replace function app_tools.cycles_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends);
  if coalesce((args->>'activate')::boolean, false) then
    if exists (select 1 from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE') then
      raise exception 'Another cycle is active; finish it with cycles.rollover' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(jsonb) is
  'cycles.create: a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays / cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.';

create or replace function app_tools.cycles_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(jsonb) is 'cycles.update: name, startsOn, endsOn (no overlaps); CYCLE_UPDATED by trigger, none when nothing changes.';

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false) returns uuid[]
language plpgsql volatile as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(jsonb, text, boolean) is
  'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';

create or replace function app_tools.cycles_plan(args jsonb) returns jsonb
language plpgsql volatile as $$
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
comment on function app_tools.cycles_plan(jsonb) is
  'cycles.plan: bulk add/remove issues for the upcoming cycle (or cycleId), all or nothing; added/removed list the issues that actually moved (one ISSUE_UPDATED each, by trigger).';

create or replace function app_tools.cycles_add_issue(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  perform app_hidden.require_open_cycle(v_cycle);
  if v_issue.cycle_id is distinct from v_cycle.id then
    update app_public.issues set cycle_id = v_cycle.id where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_add_issue(jsonb) is
  'cycles.addIssue: puts an issue into a PLANNED or ACTIVE cycle (moving it from another); idempotent; ISSUE_UPDATED (cycleId) by trigger.';

create or replace function app_tools.cycles_remove_issue(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  if v_issue.cycle_id = v_cycle.id then
    update app_public.issues set cycle_id = null where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_remove_issue(jsonb) is
  'cycles.removeIssue: takes an issue out of the cycle; an issue not in it is left as is (idempotent); ISSUE_UPDATED (cycleId) by trigger.';

create or replace function app_tools.cycles_rollover(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_ws app_public.workspaces;
  v_current app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  select * into v_current from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE';
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
comment on function app_tools.cycles_rollover(jsonb) is
  'cycles.rollover: moves unfinished issues (status category not DONE/CANCELED) from the ACTIVE cycle to the upcoming one (created from cycleLengthDays/cycleCooldownDays when none), completes the current and activates the next. Needs an unnarrowed key.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
