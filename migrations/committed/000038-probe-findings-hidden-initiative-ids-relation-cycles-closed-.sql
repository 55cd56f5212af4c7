--! Previous: sha1:d64d33f239f88188d1a276e541389b210e2abaf6
--! Hash: sha1:430707141e99cecf9ad041d55c21b18df097eb3f
--! Message: probe findings: hidden initiative ids, relation cycles, closed and doubly active cycles, bulk item messages

--! split: 1-current.sql
-- Probe findings: a project's initiativeId is null when the key cannot see the initiative (as its
-- initiative object already was); relations.add refuses a link that closes a longer cycle of BLOCKS or
-- DUPLICATES (409 relation_cycle); an ended or canceled cycle keeps its dates (409 cycle_closed) and no cycle
-- may span today beside one activated early (409 active_cycle_exists); a bulk item's 404 or 409 names the item
-- in its message.
--! Included projects/projects.sql
-- projects: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_project_initiative_reachable(p_project app_public.projects)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_project.initiative_id is not null
     and not exists (select 1 from app_public.initiatives i where i.id = p_project.initiative_id) then
    raise exception 'The project belongs to an initiative outside this key''s narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) is 'Before moving a project between initiatives: an initiative-narrowed key may not take a project out of an initiative it cannot see (403 narrowing).';
grant execute on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) to svc_visitor;

create or replace function app_hidden.find_project(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select p from app_public.projects p
                           where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()),
                          'Project', p_field);
end
$$;
comment on function app_hidden.find_project(p_id text, p_field text) is 'A project the key can see (archived included), else 404 Project not found.';
grant execute on function app_hidden.find_project(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_json(p app_public.projects)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', p.id, 'name', p.name, 'description', p.description,
    -- Under RLS: an initiative-narrowed key does not learn the id of an initiative outside its narrowing.
    'initiativeId', (select i.id from app_public.initiatives i where i.id = p.initiative_id),
    'initiative', (select jsonb_build_object('id', i.id, 'name', i.name)
                   from app_public.initiatives i where i.id = p.initiative_id),
    'archived', p.archived_at is not null, 'archivedAt', p.archived_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at)
$$;
comment on function app_hidden.project_json(p app_public.projects) is 'Project (spec 2.7): name, description, initiativeId and initiative {id, name} (both null when the key cannot see the initiative), archived state.';
grant execute on function app_hidden.project_json(p app_public.projects) to svc_visitor;
--! EndIncluded projects/projects.sql
--! Included relations/relations.sql
-- relations: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', (select app_hidden.issue_ref_json(i) from app_public.issues i
              where i.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) is 'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end.';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid)
 returns boolean
 language sql
 stable
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a chain may pass through issues the caller's narrowing hides, and it still makes a cycle.
  -- Links of deleted issues are left out (they are gone everywhere else too).
  with recursive reach(issue_id) as (
    select p_from
    union
    select r.to_issue_id
    from reach join app_public.issue_relations r
      on r.from_issue_id = reach.issue_id and r.workspace_id = app_hidden.current_workspace_id() and r.kind = p_kind
    join app_public.issues i on i.id = r.to_issue_id and i.deleted_at is null)
  select exists (select 1 from reach where issue_id = p_to)
$$;
comment on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) is 'Whether a chain of p_kind links (BLOCKS or DUPLICATES) leads from p_from to p_to in the caller''s workspace, through any issue (definer: narrowing does not break a cycle). relations.add refuses the link that would close one.';
grant execute on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) to svc_visitor;
--! EndIncluded relations/relations.sql
--! Included relations/tools/add.sql
-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409, as is one
-- closing a longer cycle of them.
create or replace function app_tools.relations_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;
  -- One decision at a time: two concurrent calls linking A→B and B→A would each see no reverse link and both
  -- insert. Directed kinds are serialized per workspace (a cycle can close through any pair), RELATES_TO per pair.
  perform pg_advisory_xact_lock(hashtextextended(case when v_s_kind = 'RELATES_TO'
    then 'svc.relation:' || least(v_s_from, v_s_to)::text || greatest(v_s_from, v_s_to)::text
    else 'svc.relation:' || v_s_kind || ':' || v_from.workspace_id::text end, 0));

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and app_hidden.relation_path_exists(v_s_kind, v_s_to, v_s_from) then
    -- A longer cycle (A BLOCKS B BLOCKS C, then C BLOCKS A) would leave every issue on it waiting on itself.
    raise exception '% % % would close a cycle: a chain of % links already leads from % back to %',
      (select key from app_public.issues where id = v_s_from), v_s_kind, (select key from app_public.issues where id = v_s_to),
      v_s_kind, (select key from app_public.issues where id = v_s_to), (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'relation_cycle';
  end if;

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId; one that already exists comes back with created false. No self-links, and no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists or relation_cycle).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
--! Included cycles/cycles.sql
-- cycles: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date)
 returns void
 language plpgsql
 stable
as $$
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
comment on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) is 'Cycle dates: endsOn >= startsOn (400) and no overlap with another non-canceled cycle (409 cycle_overlap).';
grant execute on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) to svc_visitor;

create or replace function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date)
 returns void
 language plpgsql
 stable
as $$
declare
  v_other app_public.cycles;
begin
  -- Dates never overlap, so two cycles can be ACTIVE at once only through an early activation: a cycle whose
  -- dates include today beside one activated early (stored ACTIVE, starting later).
  if p_starts <= app_hidden.utc_today() and p_ends >= app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status = 'ACTIVE' and c.starts_on > app_hidden.utc_today()
    limit 1;
    if v_other.id is not null then
      raise exception 'Cycle % was activated early and is the current cycle: no other cycle may span today while it runs', v_other.name
        using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
  end if;
end
$$;
comment on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date) is 'At most one ACTIVE cycle: a cycle (new, or p_cycle_id re-dated) whose dates include today is refused while another was activated early (409 active_cycle_exists). Call under lock_cycles().';
grant execute on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date) to svc_visitor;

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
comment on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) is 'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the issues themselves (lean).';
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

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date)
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
comment on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date) is 'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';
grant execute on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date) to svc_visitor;

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
--! Included cycles/tools/create.sql
-- The cycles.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays /
-- cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.
create or replace function app_tools.cycles_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
    if (app_hidden.current_cycle()).id is not null then
      raise exception 'Another cycle is active: a cycle is activated early only while none runs (the running one ends on its endsOn)' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  perform app_hidden.check_one_active_cycle(null, v_starts, v_ends);
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. A cycle is ACTIVE while its dates include today, COMPLETED once they have passed, PLANNED before; activate: true makes a future one current now when no other is. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
--! Included cycles/tools/update.sql
-- The cycles.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, startsOn, endsOn (no overlaps; an ended or canceled cycle keeps its dates, 409 cycle_closed); CYCLE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.cycles_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
    -- An ended or canceled cycle is history: re-dated, it would come back as PLANNED or ACTIVE with its old issues.
    if app_hidden.cycle_status(v_cycle) in ('COMPLETED', 'CANCELED') then
      raise exception 'Cycle % is %: its dates can no longer change (create a new cycle)', v_cycle.name, lower(app_hidden.cycle_status(v_cycle))
        using errcode = 'SV409', detail = 'cycle_closed';
    end if;
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends);
    perform app_hidden.check_one_active_cycle(v_cycle.id, v_starts, v_ends);
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
comment on function app_tools.cycles_update(args jsonb) is 'cycles.update: Rename or re-date a cycle (name, startsOn, endsOn; no overlaps; an ended or canceled cycle keeps its dates). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_update(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/update.sql
--! Included core/bulk.sql
-- Bulk tools (issues.createMany, issues.updateMany): one item after another, all or nothing.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- A bulk tool is `return jsonb_build_object('items', app_hidden.each_item(args->'items', '<fn>(jsonb)'))`,
-- where <fn>(item jsonb) (or <fn>(item jsonb, done jsonb), done = the results so far) handles one item
-- exactly as the single tool does. A business error (SV…) of item N is re-raised naming its field
-- items.N.<field>; any error rolls the whole call back.
create or replace function app_hidden.each_item(p_items jsonb, p_fn regprocedure)
 returns jsonb
 language plpgsql
as $$
declare
  v_call text := format('select %s($1%s)', p_fn::oid::regproc,
                        case when (select p.pronargs from pg_proc p where p.oid = p_fn) = 2 then ', $2' else '' end);
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_result jsonb;
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(p_items) e loop
    begin
      execute v_call into v_result using v_item, v_out;
      v_out := v_out || jsonb_build_array(v_result);
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        -- A 400 names the item in its issues map (the column); any other status only in its message.
        raise exception using errcode = v_state,
          message = case when v_state = 'SV400' then v_msg else format('items.%s: %s', v_index, v_msg) end,
          detail = coalesce(v_detail, ''),
          hint = coalesce(v_hint, ''),
          column = 'items.' || v_index || case when coalesce(v_col, '') <> '' then '.' || v_col else '' end;
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) is 'Bulk tools: p_fn(item[, results so far]) for each item in order, results as a JSON array; a business error (SV…) of item N is re-raised naming its field items.N.<field> (and, when not a 400, starting its message with items.N:), and the whole call rolls back.';
grant execute on function app_hidden.each_item(p_items jsonb, p_fn regprocedure) to svc_visitor;
--! EndIncluded core/bulk.sql
