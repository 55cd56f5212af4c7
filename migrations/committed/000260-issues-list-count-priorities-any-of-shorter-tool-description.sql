--! Previous: sha1:827b9983fa7647fc6e04dde4e522050d3e7cad6c
--! Hash: sha1:2d93b3aa1afb92a512e861fc7233f69a841e9fd6
--! Message: issues.list/count priorities (any of); shorter tool descriptions for the MCP list budgets

--! split: 1-current.sql
-- issues.list and issues.count take priorities, a list of them (any of: "URGENT or HIGH" in one call); the tool
-- descriptions that made room for it in the MCP lists' budgets.
--! Included issues/filters.sql
-- issues: the filters of issues.list, shared with issues.count.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issues_filter(args jsonb, out from_sql text, out where_sql text, out search tsquery)
 returns record
 language plpgsql
 stable
as $$
declare
  v_status text := args->>'status';
  v_status_ids uuid[];
  v_named record;
begin
  -- The caller executes `from <from_sql> where <where_sql>` with $1 = the workspace id, $2 = search and $3 = the
  -- search window's floor from a cursor (issue_search_matches; null on a first page or a count). Every
  -- value is written in as a constant (format %L): the query is planned per call, so each filter gets its own
  -- index. Paging (cursor, limit) is the caller's.
  from_sql := 'app_public.issues i';
  where_sql := 'i.workspace_id = $1 and i.deleted_at is null';
  if args->>'query' is not null then
    -- Full-text search (issues_search_gin). The matches come from a definer function (the index is unusable
    -- under RLS, see issue_search_matches); joined back to issues, the policies apply. m.rank is the match's.
    search := app_hidden.search_tsquery(args->>'query');
    from_sql := 'app_hidden.issue_search_matches($2, p_floor => $3) m join app_public.issues i on i.id = m.id';
  end if;
  if args->>'statusId' is not null then
    if v_status is not null then
      -- Both, naming different statuses, listed nothing; naming the same one, one is enough.
      perform app_hidden.raise_invalid('status', 'give status or statusId, not both');
    end if;
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
  -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
  -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_status_ids := array[v_status::uuid];
    else
      v_named := app_hidden.statuses_named(v_status);
      v_status_ids := v_named.ids;
      -- A category no status has lists nothing; a word that is neither a name nor a category is refused.
      if cardinality(v_status_ids) = 0 and not v_named.by_category then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        perform app_hidden.raise_no_status_named(v_status, 'status');
      end if;
    end if;
    where_sql := where_sql || case cardinality(v_status_ids)
      when 0 then ' and false'
      when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
      else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
  end if;
  if args->>'open' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                          else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
  end if;
  if args->>'priority' is not null then
    where_sql := where_sql || format(' and i.priority = %L', args->>'priority');
  end if;
  if jsonb_typeof(args->'priorities') = 'array' then
    -- Any of several ("URGENT or HIGH"): the API has checked each is a priority.
    where_sql := where_sql || format(' and i.priority = any(%L::text[])', array(select jsonb_array_elements_text(args->'priorities')));
  end if;
  if args ? 'projectId' then
    where_sql := where_sql || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    where_sql := where_sql || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    where_sql := where_sql || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    -- A parent the key cannot see reads as none (the issue shape says parentId null), in the filter too: else
    -- `parentId: null` would leave out the children of hidden issues, and the count tell that such parents exist.
    where_sql := where_sql || case
      when args->>'parentId' is not null then format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id)
      when app_hidden.issues_unrestricted() then ' and i.parent_id is null'
      else ' and app_hidden.visible_issue_id(i.parent_id) is null' end;
  end if;
  if args ? 'claimedById' then
    where_sql := where_sql || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    where_sql := where_sql || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                     app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    where_sql := where_sql || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;
end
$$;
comment on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) is 'The filters of issues.list and issues.count (query, status as id, category or name, statusId, open, priority, projectId, assignedAgentId, cycleId, parentId, claimedById with null = none, labelIds any of, queued) as the FROM and WHERE of a query over live issues i of the workspace ($1), with the search tsquery ($2, matches m with m.rank) when query is given; 400 naming the field for a bad value. Paging is the caller''s.';
grant execute on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) to svc_visitor;
--! EndIncluded issues/filters.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text;
  v_items json[];
  v_keys text[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text;
  v_rank text := 'null::real';
  v_floor int;
  v_tag text;
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session (force_generic_plan: left to choose, the plan cache re-planned it in every call for a workspace
    -- of 100,000 issues, where a generic LIMIT looks costlier than a custom plan: 2.7 ms a call instead of
    -- 1.7), reading the (workspace_id, number) index from the cursor down. Filtered calls EXECUTE their
    -- query, planned per call whatever this setting says.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode_int(args->>'cursor', 'issues');
    end if;
    select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number desc),
           array_agg((t.i).number::text order by (t.i).number desc)
    into v_items, v_keys
    from (select i from app_public.issues i
          where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
          order by i.number desc limit v_limit + 1) t
    left join app_public.statuses s on s.id = (t.i).status_id
    left join app_public.projects p on p.id = (t.i).project_id
    left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  else
    -- Filters (shared with issues.count): the query is built for them (planned per call, so each filter
    -- gets its own index).
    select f.from_sql, f.where_sql, f.search into v_from, v_where, v_query from app_hidden.issues_filter(args) f;
    if v_query is not null then
      -- Full-text search: ranked, paged by (rank, number) from the cursor on.
      -- The cursor is rank:number:floor:tag: floor keeps the ranked window of the first page (issue_search_matches),
      -- tag ties it to this query (another search's cursor started part-way through this one's results).
      v_tag := left(md5(v_query::text), 8);
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := format('t.rank::text || '':'' || (t.i).number::text || '':'' || t.floor::text || '':'' || %L', v_tag);
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]::int::text, v_after[4], v_after[5]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is null
           or v_after[4] is distinct from v_tag or v_after[5] is not null or v_after[1]::real = 'NaN'::real then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
        v_floor := v_after[3]::int;
      end if;
      if app_hidden.issues_unrestricted() or not (args ? 'parentId' and args->>'parentId' is null) then
        -- The matches function pages itself, the other filters applied as it reads (no join of every match: a
        -- narrowed key's board search took 8 s at 20,000 issues), and the page is read by a static query, planned
        -- once per session (planning the built query cost ~5 ms of every search). It applies the key's narrowing
        -- itself; only `parentId: null` for a narrowed key, which asks the caller's visibility of the parent, is left
        -- to the joined path below.
        select array_agg(app_hidden.issue_lean_json(i, s, p, a) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text || ':' || m.floor::text || ':' || v_tag order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1, v_floor,
               case when args - 'limit' - 'cursor' - 'query' <> '{}'::jsonb then v_where end) m
        join app_public.issues i on i.id = m.id
        left join app_public.statuses s on s.id = i.status_id
        left join app_public.projects p on p.id = i.project_id
        left join app_public.agents a on a.id = i.assigned_agent_id;
        return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issues-search');
      elsif v_after is not null then
        v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode_int(args->>'cursor', 'issues'));
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by %s), array_agg(%s order by %s)
       from (select i, %s as rank, %s as floor from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id',
      v_outer_order, v_sort, v_outer_order, v_rank, case when v_query is null then 'null::int' else 'm.floor' end,
      v_from, v_where, v_order, v_limit + 1)
    into v_items, v_keys
    using app_hidden.current_workspace_id(), v_query, v_floor;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search of title and description (every word, the last as a prefix), best match first (title before description). Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, priorities (any of), projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any of), queued (stays after assignment: the dispatch pool is queued true, assignedAgentId null, open true).';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included agents/tools/heartbeat.sql
-- The agents.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one UPDATE sets status (default ONLINE) and lastHeartbeatAt (and attaches runtimeId); the trigger writes
-- AGENT_STATUS_CHANGED only when the status changed. Keys without an agent, archived or foreign agents: 403.
create or replace function app_tools.agents_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_runtime app_public.runtimes;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
    -- Moving the agent onto another runtime is a runtime change (the agent serves the whole workspace): a narrowed
    -- key attached its agent to a shared runtime and then rewrote that runtime's info as "its own".
    if v_runtime.id is distinct from v_agent.runtime_id then
      perform app_hidden.require_unnarrowed('Attaching the agent to another runtime changes what serves the whole workspace');
    end if;
  end if;
  update app_public.agents a
  set status = coalesce(args->>'status', 'ONLINE'), last_heartbeat_at = now(),
      runtime_id = coalesce(v_runtime.id, a.runtime_id)
  where a.id = v_agent.id
  returning * into v_agent;
  -- The key again, now that the agent's row is ours: a heartbeat that waited on it while the agent's last key was
  -- revoked (which sets it OFFLINE) brought it back ONLINE with no key to act, until the presence sweep.
  perform app_hidden.require_live_key();
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt; runtimeId attaches it to a runtime (not an archived one: 409). AGENT_STATUS_CHANGED when the status changes. No heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work. Presence only: it does not keep a run from STALLED (status lines, comments and usage do). Keys without a live agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
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
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends, case when args ? 'endsOn' then 'endsOn' else 'startsOn' end);
  if coalesce((args->>'activate')::boolean, false) then
    if (app_hidden.current_cycle()).id is not null then
      raise exception 'Another cycle is active: a cycle is activated early only while none runs (the running one ends on its endsOn)' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  perform app_hidden.check_one_active_cycle(null, v_starts, v_ends, v_status);
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. ACTIVE while its dates include today, COMPLETED once past, PLANNED before; activate: true makes a future one current now when no other is (meanwhile no other cycle may span today: 409 active_cycle_exists). Needs a key without narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
--! Included cycles/tools/rollover.sql
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
--! EndIncluded cycles/tools/rollover.sql
--! Included executionPlans/tools/transitionStep.sql
-- The executionPlans.transitionStep tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a step of a RUNNING plan: DONE cascades readiness (and completes the plan), REVIEW dispatches the judge when the plan auto-judges, BLOCKED opens a gate.
create or replace function app_tools.execution_plans_transition_step(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_to text := args->>'status';
  v_ready uuid[] := '{}';
  v_judge uuid;
  v_gate app_public.review_gates;
  v_held app_public.review_gates;
  v_source_run uuid := app_hidden.parse_uuid(args->>'sourceRunId', 'sourceRunId');
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; its steps move only while it runs', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A pending gate holds the step: a person decides it (reviewGates.resolve); only canceling the step (which
  -- cancels the gate) goes around it.
  if v_to <> 'CANCELED' and exists (select 1 from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING') then
    raise exception 'A review gate holds this step: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
  end if;
  -- A step in REVIEW waits for its verdict, and a plan that judges its steps judges every one: no agent but its judge
  -- passes it (DONE); its worker moves it to REVIEW. The worker passing its own work (REVIEW → READY → DONE went around
  -- the review) or a fellow worker's is 403; a person still may. Nor does a worker cancel its own step.
  if app_hidden.current_agent_id() is not null and app_hidden.current_agent_id() is distinct from v_step.judge_agent_id then
    if v_to = 'DONE' and (v_step.status = 'REVIEW' or app_hidden.plan_auto_judges(v_plan)) then
      perform app_hidden.step_refuse_non_judge(v_step);
    end if;
    -- Otherwise an agent working in the plan moves its own steps, or any as its planner.
    perform app_hidden.plan_assert_own_step(v_plan, v_step);
  end if;
  if v_to = 'CANCELED' then
    perform app_hidden.plan_assert_may_end(v_plan, v_step);
  end if;
  if v_source_run is not null then
    -- The run the move comes from: one of this step's runs.
    if not exists (select 1 from app_public.agent_runs r where r.id = v_source_run and r.step_id = v_step.id) then
      raise exception 'Run not found among this step''s runs' using errcode = 'SV404', column = 'sourceRunId';
    end if;
    update app_public.execution_steps set source_run_id = v_source_run
    where id = v_step.id returning * into v_step;
  end if;
  if v_to = 'READY' then
    if v_step.status = 'READY' then
      perform app_hidden.assert_move('step', 'Step', v_step.status, v_to);
    end if;
    v_step := app_hidden.step_make_ready(v_step);
  elsif v_to = 'BLOCKED' then
    v_gate := app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" is blocked', v_step.title),
                                    jsonb_build_object('note', args->>'note'));
  else
    v_step := app_hidden.step_move(v_step, v_to);
    if v_to = 'REVIEW' and app_hidden.plan_auto_judges(v_plan) then
      v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position,
                                             (select g.issue_id from app_public.goals g where g.id = v_plan.goal_id));
      if v_judge is not null then
        perform app_hidden.step_dispatch_judge(v_step, v_judge);
      end if;
    elsif v_to in ('DONE', 'CANCELED') then
      if v_to = 'CANCELED' then
        for v_held in select * from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING' loop
          perform app_hidden.gate_move(v_held, 'CANCELED', 'the step was canceled');
        end loop;
      end if;
      v_ready := app_hidden.plan_cascade(v_plan.id);
    end if;
  end if;
  select * into v_step from app_public.execution_steps where id = v_step.id;
  select * into v_plan from app_public.execution_plans where id = v_plan.id;
  return jsonb_build_object('step', app_hidden.step_json(v_step), 'planStatus', v_plan.status,
    'goalStatus', (select g.status from app_public.goals g where g.id = v_plan.goal_id),
    'readyStepIds', to_jsonb(v_ready), 'judgeAgentId', v_judge, 'gateId', v_gate.id);
end
$$;
comment on function app_tools.execution_plans_transition_step(args jsonb) is 'executionPlans.transitionStep: Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew''s REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED (cancels its pending gate). A step a pending review gate holds moves only to CANCELED (409 gate_pending). sourceRunId must be one of the step''s runs (404). Where the plan judges its steps (or from REVIEW) only the step''s judge or a person moves it to DONE (403 own_step for its worker, not_judge for another agent); an agent in the plan moves only its own steps (as worker or judge), or any as the planner (403 own_plan); a step is canceled by a person, the planner or an agent outside the plan (403 own_step / own_plan), and one a pending gate holds only by one who may decide the gate (403 person_required / own_plan).';
grant execute on function app_tools.execution_plans_transition_step(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transitionStep.sql
--! Included relations/tools/add.sql
-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409, as is one
-- closing a longer cycle of them. Run-mode gated on both issues.
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
  -- A link changes both issues (ISSUE_UPDATED, changes relations, on each): run-mode gated on either.
  perform app_hidden.assert_run_mode_allows_mutation(v_from.id);
  perform app_hidden.assert_run_mode_allows_mutation(v_to.id);
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;
  -- One decision at a time: two concurrent calls linking A→B and B→A would each see no reverse link and both
  -- insert. Directed kinds are serialized per workspace (a cycle can close through any pair), RELATES_TO per pair.
  if v_s_kind = 'RELATES_TO' then
    perform pg_advisory_xact_lock(hashtextextended('svc.relation:' || least(v_s_from, v_s_to)::text || greatest(v_s_from, v_s_to)::text, 0));
  else
    perform app_hidden.lock_directed_relations(v_s_kind);
  end if;

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
  -- The counts below take turns per issue (in one order, so two links between the same issues cannot deadlock):
  -- concurrent adds to an issue at 490 links left it at 502.
  perform pg_advisory_xact_lock(hashtextextended('svc.relations-of:' || x::text, 0))
  from unnest(array[v_from.id, v_to.id]) x order by x;
  perform app_hidden.require_relation_room(v_from, 'fromIssueId');
  perform app_hidden.require_relation_room(v_to, 'toIssueId');

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId (created false when it existed already). No self-links, no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists / relation_cycle), at most 500 links per issue (409 too_many_relations).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
--! Included plans/tools/recordVerdict.sql
-- The plans.recordVerdict tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- PASS → DONE (cascade); FAIL → READY with feedback while retries remain, else BLOCKED with a review gate. EXECUTION_STEP_JUDGED.
create or replace function app_tools.plans_record_verdict(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_outcome text;
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_step.status <> 'REVIEW' then
    raise exception 'Step is %; only a step in REVIEW takes a verdict', v_step.status using errcode = 'SV409', detail = 'step_not_in_review';
  end if;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; verdicts wait until it runs again', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A review is its judge's: no other agent records it, the step's worker least (unless it is the judge the plan
  -- itself dispatched: a crew whose only REVIEWER is also the worker). A fellow worker passed another's step, and the
  -- planner every step of its plan. With no judge dispatched, an agent outside the plan may; a person always may.
  if app_hidden.current_agent_id() is not null
     and (app_hidden.current_agent_id() is distinct from v_step.judge_agent_id)
     and (v_step.judge_agent_id is not null or app_hidden.caller_works_in_plan(v_plan.id)) then
    perform app_hidden.step_refuse_non_judge(v_step);
  end if;
  v_outcome := case when args->>'verdict' = 'PASS' then 'DONE'
                    when v_step.retry_count < v_plan.max_step_retries then 'RETRY' else 'BLOCKED' end;
  update app_public.execution_steps
  set judge_verdict = jsonb_build_object('verdict', args->>'verdict', 'feedback', args->>'feedback', 'score', (args->>'score')::numeric,
                                         'judgedByAgentId', app_hidden.current_agent_id(), 'judgedAt', now()),
      last_feedback = case when args->>'verdict' = 'FAIL' then args->>'feedback' else last_feedback end,
      retry_count = case when v_outcome = 'RETRY' then retry_count + 1 else retry_count end
  where id = v_step.id returning * into v_step;
  perform app_hidden.record_event('EXECUTION_STEP_JUDGED', 'execution-step', v_step.id, jsonb_build_object(
    'planId', v_plan.id, 'stepId', v_step.id, 'verdict', args->>'verdict', 'feedback', args->>'feedback',
    'score', (args->>'score')::numeric, 'outcome', v_outcome, 'retryCount', v_step.retry_count,
    'judgedByAgentId', app_hidden.current_agent_id()));
  if v_outcome = 'DONE' then
    perform app_hidden.step_move(v_step, 'DONE');
    perform app_hidden.plan_cascade(v_plan.id);
  elsif v_outcome = 'RETRY' then
    perform app_hidden.step_make_ready(v_step);
  else
    perform app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" failed review %s times', v_step.title, v_step.retry_count + 1),
                                  jsonb_build_object('feedback', args->>'feedback', 'retryCount', v_step.retry_count));
  end if;
  return jsonb_build_object('outcome', v_outcome, 'retryCount', v_step.retry_count, 'stepId', v_step.id);
end
$$;
comment on function app_tools.plans_record_verdict(args jsonb) is 'plans.recordVerdict: Record the verdict on a step in REVIEW: PASS → DONE (dependants become READY; the last one completes the plan and its goal); FAIL → READY again with the feedback while retries remain (maxStepRetries, default 2), else BLOCKED with a review gate. Recorded by the judge of the step or a person: its worker gets 403 own_step (unless the plan made it the judge), any other agent 403 not_judge (with no judge dispatched, an agent outside the plan may). Writes EXECUTION_STEP_JUDGED.';
grant execute on function app_tools.plans_record_verdict(args jsonb) to svc_visitor;
--! EndIncluded plans/tools/recordVerdict.sql
