--! Previous: sha1:704397ae1c2e836237f151357628842e8bec2922
--! Hash: sha1:c038f06ec4f5a15297089569ae763ac7ae507871
--! Message: Search, calendar sprints, the web board; dispatcher one job per wake; events.recent and filtered issues.list faster

--! split: 1-current.sql
-- The dispatcher's wake-ups queue one job per wake (no job key: a keyed job could swallow a wake).
--! Included dispatch/dispatcher.sql
-- The dispatcher: gives queued, unassigned issues to eligible agents (decisions.md "Dispatch").
-- Runs in the worker (owner role) one assignment per transaction; decisions in one workspace are
-- serialized by an advisory lock, so concurrent workers never assign an issue twice or overfill an agent.
-- Re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], out agent_id uuid, out method text, out reason text)
 returns record
 language plpgsql
 stable
as $$
declare
  v_labels text[];
  v_best int := 0;
  v_matches int;
  v_agent app_public.agents;
begin
  if cardinality(p_eligible) = 0 then
    return;
  end if;
  if p_mode = 'PRIORITY_MATCH' then
    foreach v_agent in array p_eligible loop
      if exists (select 1 from unnest(v_agent.capabilities) c where upper(c) = p_issue.priority) then
        agent_id := v_agent.id;
        method := 'priority-match';
        reason := 'priority-match:' || lower(p_issue.priority);
        return;
      end if;
    end loop;
  elsif p_mode = 'CAPABILITY_MATCH' then
    select coalesce(array_agg(lower(l.name)), '{}') into v_labels
    from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
    where il.issue_id = p_issue.id;
    foreach v_agent in array p_eligible loop
      select count(distinct lower(c)) into v_matches from unnest(v_agent.capabilities) c where lower(c) = any(v_labels);
      if v_matches > v_best then  -- strictly more: ties keep the least recently dispatched
        v_best := v_matches;
        agent_id := v_agent.id;
      end if;
    end loop;
    if agent_id is not null then
      method := 'capability-match';
      reason := format('capability-match:%s/%s', v_best, cardinality(v_labels));
      return;
    end if;
  end if;
  -- ROUND_ROBIN, and the fallback of the matching modes when nothing matches.
  agent_id := p_eligible[1].id;
  method := 'round-robin';
  reason := 'round-robin';
end
$$;
comment on function app_private.dispatch_pick(p_issue app_public.issues, p_mode text, p_eligible app_public.agents[], OUT agent_id uuid, OUT method text, OUT reason text) is 'The mode''s choice among eligible agents (given least recently dispatched first): PRIORITY_MATCH = capabilities include the priority name; CAPABILITY_MATCH = most overlap of issue label names and capabilities; both fall back to round-robin.';

create or replace function app_private.dispatch_next(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_issue app_public.issues;
  v_eligible app_public.agents[];
  v_rule app_public.dispatch_rules;
  v_agent app_public.agents;
  v_pick record;
  v_reason text;
  v_dispatch jsonb;
begin
  -- One dispatcher decision at a time per workspace (all workers, all processes).
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch:' || p_workspace_id::text, 0));
  select * into v_ws from app_public.workspaces where id = p_workspace_id;
  -- The dispatcher acts inside the workspace (as the system: no user, key or agent), so the shared
  -- assignment code records its events there.
  perform set_config('svc.workspace_id', p_workspace_id::text, true);
  if v_ws.id is null or not v_ws.auto_dispatch or v_ws.auto_dispatch_mode = 'MANUAL_ONLY' then
    return null;
  end if;
  -- Eligible: not archived, not OFFLINE, load (assigned issues neither DONE nor CANCELED) under
  -- maxConcurrent (0 = unlimited); least recently dispatched first, the round-robin order.
  v_eligible := array(
    select a from app_public.agents a
    where a.workspace_id = p_workspace_id and a.archived_at is null and a.status <> 'OFFLINE'
      and (a.max_concurrent = 0 or a.max_concurrent > (
        select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = p_workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
          and s.category not in ('DONE', 'CANCELED')))
    order by a.last_dispatched_at nulls first, a.created_at, a.id);
  if cardinality(v_eligible) = 0 then
    return null;
  end if;
  -- Most urgent first, then the longest waiting.
  select i.* into v_issue from app_public.issues i
  where i.workspace_id = p_workspace_id and i.queued and i.assigned_agent_id is null and i.deleted_at is null
  order by array_position(array['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'], i.priority), i.created_at, i.id
  limit 1
  for update;
  if v_issue.id is null then
    return null;
  end if;

  -- Rules first: the first enabled rule whose set conditions all match.
  select r.* into v_rule from app_public.dispatch_rules r
  where r.workspace_id = p_workspace_id and r.enabled
    and (r.priority is null or r.priority = v_issue.priority)
    and (r.project_id is null or r.project_id = v_issue.project_id)
    and (r.label_id is null or exists (select 1 from app_public.issue_labels il where il.issue_id = v_issue.id and il.label_id = r.label_id))
  order by r.position
  limit 1;
  if v_rule.id is not null then
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_rule.target_agent_id;
  end if;
  if v_agent.id is not null then
    v_reason := 'rule:' || v_rule.id;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode, 'candidates', jsonb_build_array(v_agent.id),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  else
    v_pick := app_private.dispatch_pick(v_issue, v_ws.auto_dispatch_mode, v_eligible);
    select a.* into v_agent from unnest(v_eligible) a where a.id = v_pick.agent_id;
    v_reason := case when v_rule.id is null then v_pick.reason
                     else format('rule:%s:target-ineligible,%s pick', v_rule.id, v_pick.method) end;
    v_dispatch := jsonb_build_object('mode', v_ws.auto_dispatch_mode,
      'candidates', (select jsonb_agg(a.id) from unnest(v_eligible) a),
      'chosen', v_agent.id, 'reason', v_reason, 'ruleId', v_rule.id);
  end if;

  update app_public.agents set last_dispatched_at = clock_timestamp() where id = v_agent.id;
  perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', v_reason, null, null, v_dispatch);
  return jsonb_build_object('issueId', v_issue.id, 'agentId', v_agent.id, 'reason', v_reason);
end
$$;
comment on function app_private.dispatch_next(p_workspace_id uuid) is 'One dispatcher step: when the workspace has autoDispatch on, the most urgent, longest-queued unassigned issue goes to the first matching rule''s target if eligible, else to the mode''s pick; AGENT_ASSIGNED (auto true, dispatch {mode, candidates, chosen, reason, ruleId}) and a run are written by assign_issue_agent. NULL when there is nothing to do. Call until NULL, one transaction each.';

create or replace function app_private.wake_dispatcher(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if exists (select 1 from app_public.workspaces w
             where w.id = p_workspace_id and w.auto_dispatch and w.auto_dispatch_mode <> 'MANUAL_ONLY') then
    -- A job per wake, without a job key: a keyed job that a worker locks between this add_job and our
    -- commit would swallow the wake and run before it can see this change. Each job dispatches until
    -- nothing is left; jobs of one workspace serialize on dispatch_next's advisory lock.
    perform graphile_worker.add_job('svc_dispatch', json_build_object('workspaceId', p_workspace_id));
  end if;
end
$$;
comment on function app_private.wake_dispatcher(p_workspace_id uuid) is 'Queues a dispatcher job for a workspace with autoDispatch on, in the caller''s transaction: it runs once the change that woke it is committed, so no wake is lost.';
--! EndIncluded dispatch/dispatcher.sql

--! split: 6-search.sql
-- Issue 15: full-text search over issue titles and descriptions (issues.list query, GraphQL searchIssues),
-- and sprints that follow the calendar.

-- 'simple' (no stemming): prefix matching on what people typed stays exact, whatever the language.
alter table app_public.issues add column if not exists search tsvector
  generated always as (setweight(to_tsvector('simple', coalesce(title, '')), 'A')
                       || setweight(to_tsvector('simple', coalesce(description, '')), 'B')) stored;
comment on column app_public.issues.search is E'@behavior -*\nFull-text search document: title (weight A) and description (weight B), simple configuration.';

-- The tsvector alone, not (workspace_id, search) through btree_gin (available in embedded-postgres): a GIN key
-- on workspace_id makes every search read the workspace's whole posting list (measured at 100,000 issues:
-- 56 ms for the index scan vs 2 ms). The workspace is a filter on the few matches, and the planner can AND
-- this index with issues' (workspace_id, ...) btrees when a workspace is the smaller set.
drop index if exists app_public.issues_search_idx;
create index if not exists issues_search_gin on app_public.issues using gin (search);
comment on index app_public.issues_search_gin is 'issues.list query / search_issues (full text); workspace_id is filtered on the matches, see migrations/current/6-search.sql.';

--! Included issues/search.sql
-- Full-text search over issues (issues.list query, GraphQL searchIssues).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.search_tsquery(p_query text, p_field text default 'query'::text)
 returns tsquery
 language plpgsql
 immutable
as $$
declare
  v_words text[];
begin
  -- Only the words (letters and digits) reach to_tsquery: no operator, quote or backslash of the input can.
  v_words := array(select lower(m[1]) from regexp_matches(coalesce(p_query, ''), '([[:alnum:]]+)', 'g') m limit 32);
  if cardinality(v_words) = 0 then
    raise exception 'query has no words to search for' using errcode = 'SV400', column = p_field;
  end if;
  -- Every word must match; the last one as a prefix (people search while they type).
  return to_tsquery('simple', array_to_string(v_words, ' & ') || ':*');
end
$$;
comment on function app_hidden.search_tsquery(p_query text, p_field text) is 'The tsquery of a search box: its words (letters and digits, at most 32) ANDed, the last one as a prefix; 400 on the field when it has none.';
grant execute on function app_hidden.search_tsquery(p_query text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer)
 returns table(id uuid, number integer, rank real)
 language sql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
as $$
  select i.id, i.number, pg_catalog.ts_rank(i.search, p_query)
  from app_public.issues i
  where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
    and (p_after_rank is null or (pg_catalog.ts_rank(i.search, p_query), i.number) < (p_after_rank, p_after_number))
  order by 3 desc, 2 desc
  limit p_limit
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) is 'The caller''s workspace''s issues matching p_query, best rank first, then newest (after the (rank, number) of a cursor, at most p_limit; null = all), through issues_search_gin. Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) to svc_visitor;

create or replace function app_public.search_issues(query text)
 returns setof app_public.issues
 language sql
 stable
as $$
  select i.* from app_hidden.issue_search_matches(app_hidden.search_tsquery(query)) m
  join app_public.issues i on i.id = m.id
  order by m.rank desc, m.number desc
$$;
comment on function app_public.search_issues(query text) is 'Issues whose title or description match the words of query (the last word as a prefix), best match first (title matches weigh more), then newest. Only issues the key may see.';
grant execute on function app_public.search_issues(query text) to svc_visitor;
--! EndIncluded issues/search.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_page app_hidden.page_row[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text := 'app_public.issues i';
  v_rank text := 'null::real';
  v_status_ids uuid[];
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the list index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    v_page := array(
      select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, '[]')), (t.i).number::text, null)::app_hidden.page_row
      from (select i from app_public.issues i
            where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
            order by i.number desc limit v_limit + 1) t
      left join app_public.statuses s on s.id = (t.i).status_id
      left join app_public.projects p on p.id = (t.i).project_id
      left join app_public.agents a on a.id = (t.i).assigned_agent_id
      left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                         from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
      order by (t.i).number desc);
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'query' is not null then
      -- Full-text search (issues_search_gin): ranked, paged by (rank, number) from the cursor on.
      v_query := app_hidden.search_tsquery(args->>'query');
      -- The matches come from a definer function (the index is unusable under RLS, see issue_search_matches);
      -- joined back to issues, the policies apply.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row: the matches function pages itself (no join of
        -- every match).
        v_from := format('app_hidden.issue_search_matches($2, %L::real, %L::int, %s) m join app_public.issues i on i.id = m.id',
                         v_after[1], v_after[2], v_limit + 1);
      else
        v_from := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
        if v_after is not null then
          v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
        end if;
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
    end if;
    -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
    -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
    -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
    if v_status is not null then
      if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        v_status_ids := array[v_status::uuid];
      elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
      else
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
      end if;
      v_where := v_where || case cardinality(v_status_ids)
        when 0 then ' and false'
        when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
        else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
    end if;
    if args->>'open' is not null then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
      v_where := v_where || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                        else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array(select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')), %s, null)::app_hidden.page_row
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
       order by %s)', v_sort, v_rank, v_from, v_where, v_order, v_limit + 1, v_outer_order)
    into v_page
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json(v_page, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql

-- Sprints follow the calendar (decisions.md "Cycle status"): the status shown is derived from the dates.
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

create or replace function app_hidden.cycle_status(c app_public.cycles)
 returns text
 language sql
 stable parallel safe
as $$
  select case
    when c.status in ('CANCELED', 'COMPLETED') then c.status
    when c.ends_on < app_hidden.utc_today() then 'COMPLETED'
    when c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE' then 'ACTIVE'
    else 'PLANNED' end
$$;
comment on function app_hidden.cycle_status(c app_public.cycles) is 'A cycle''s status on the calendar (decisions.md "Cycle status"): CANCELED and COMPLETED (set by rollover) stay; otherwise ended (endsOn before today, UTC) is COMPLETED, started (dates include today) or activated early (stored ACTIVE) is ACTIVE, else PLANNED.';
grant execute on function app_hidden.cycle_status(c app_public.cycles) to svc_visitor;

create or replace function app_public.cycles_current_status(c app_public.cycles)
 returns text
 language sql
 stable
as $$ select app_hidden.cycle_status(c) $$;
comment on function app_public.cycles_current_status(c app_public.cycles) is 'The status on the calendar: a cycle whose dates include today is ACTIVE, one whose end has passed COMPLETED (status holds only what was set: PLANNED, or ACTIVE/COMPLETED by rollover, CANCELED).';
grant execute on function app_public.cycles_current_status(c app_public.cycles) to svc_visitor;

create or replace function app_hidden.current_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status not in ('CANCELED', 'COMPLETED')
    and c.ends_on >= app_hidden.utc_today() and (c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE')
  order by c.starts_on <= app_hidden.utc_today() desc, c.starts_on, c.number limit 1
$$;
comment on function app_hidden.current_cycle() is 'The current cycle: the ACTIVE one (cycle_status), the one whose dates include today first (NULL row when none).';
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
--! Included cycles/triggers.sql
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
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CYCLE_CREATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'startsOn', new.starts_on,
                         'endsOn', new.ends_on, 'status', app_hidden.cycle_status(new)));
    return null;
  end if;
  if new.name is distinct from old.name then v_changed := array_append(v_changed, 'name'); end if;
  if new.starts_on is distinct from old.starts_on then v_changed := array_append(v_changed, 'startsOn'); end if;
  if new.ends_on is distinct from old.ends_on then v_changed := array_append(v_changed, 'endsOn'); end if;
  if new.status is distinct from old.status then v_changed := array_append(v_changed, 'status'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'CYCLE_UPDATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'status', new.status, 'previousStatus', old.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_cycles__events() is 'CYCLE_CREATED (status: on the calendar, as cycles.get shows it); CYCLE_UPDATED on rename, re-dating and status moves (rollover completes/activates; status and previousStatus: the stored values that changed). Kinds beyond spec 6.1, see docs/decisions.md.';

drop trigger if exists _100_updated_at on app_public.cycles;
create trigger _100_updated_at before update on app_public.cycles for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.cycles;
create trigger _800_events after insert or update on app_public.cycles for each row execute function app_private.tg_cycles__events();
--! EndIncluded cycles/triggers.sql
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
comment on function app_tools.cycles_current(args jsonb) is 'cycles.current: The current sprint: the cycle whose dates include today (or one activated early), with its issues; null when there is none.';
grant execute on function app_tools.cycles_current(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/current.sql
--! Included cycles/tools/list.sql
-- The cycles.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.
create or replace function app_tools.cycles_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'cycles');
begin
  return app_hidden.page_json(array(
    select (app_hidden.cycle_json(c), to_char(c.starts_on, 'YYYY-MM-DD'), c.id)::app_hidden.page_row
    from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or app_hidden.cycle_status(c) = args->>'status')
      and (v_after.sort_id is null or (c.starts_on, c.id) < (v_after.sort_key::date, v_after.sort_id))
    order by c.starts_on desc, c.id desc limit v_limit + 1), v_limit, 'cycles');
end
$$;
comment on function app_tools.cycles_list(args jsonb) is 'cycles.list: Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Status follows the calendar: a cycle whose dates include today is ACTIVE, one that has ended COMPLETED. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.';
grant execute on function app_tools.cycles_list(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/list.sql
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
      raise exception 'Another cycle is active; finish it with cycles.rollover' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. A cycle is ACTIVE while its dates include today, COMPLETED once they have passed, PLANNED before; activate: true makes a future one current now when no other is. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
--! Included cycles/tools/rollover.sql
-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the current cycle (cycle_status) to the upcoming one
-- (created from cycleLengthDays/cycleCooldownDays when none), completes the current and activates the next.
-- Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_current app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  -- The cycle to finish: the current one, else the latest one that ran to its end without a rollover
  -- (its unfinished issues move on too).
  v_current := app_hidden.current_cycle();
  if v_current.id is null then
    select * into v_current from app_public.cycles
    where workspace_id = v_ws.id and status not in ('CANCELED', 'COMPLETED') and ends_on < app_hidden.utc_today()
    order by ends_on desc limit 1;
  end if;
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
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: End the current sprint (or the last one that ended without a rollover): move its unfinished issues (status not Done/Canceled) to the next cycle (the earliest PLANNED one, created from the workspace cycle length and cooldown when none exists), mark the current COMPLETED and the next ACTIVE. With no active cycle it just activates the next. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/rollover.sql

--! split: 7-data-path-2.sql
-- Issue 16, after the merge: the events policy asks the narrowing once per statement and checks subjects
-- per row only for narrowed keys (sql/events/visibility.sql).
--! Included events/visibility.sql
-- Which events a narrowed key sees, as the select_in_workspace policy of activity_events asks it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.key_unnarrowed()
 returns boolean
 language sql
 stable parallel safe
as $$
  select cardinality(app_hidden.narrowed_project_ids()) = 0
     and cardinality(app_hidden.narrowed_label_ids()) = 0
     and cardinality(app_hidden.narrowed_initiative_ids()) = 0
$$;
comment on function app_hidden.key_unnarrowed() is 'True when the calling key has no project, label or initiative narrowing: it sees every event of its workspace. The events policy asks this once per statement before any per-row check.';
grant execute on function app_hidden.key_unnarrowed() to svc_visitor;

-- plpgsql, not an inline CASE in the policy: its queries are planned once per session and only run for
-- narrowed keys, where the inline form made every events query plan ~300 sub-plans (issue 16).
create or replace function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid)
 returns boolean
 language plpgsql
 stable
as $$
begin
  if p_subject_type = 'project' then
    return cardinality(app_hidden.narrowed_project_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_project_ids());
  elsif p_subject_type = 'initiative' then
    return cardinality(app_hidden.narrowed_initiative_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_initiative_ids());
  elsif p_subject_type not in ('issue', 'comment', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request')
        or app_hidden.issues_unrestricted() then
    return true;
  end if;
  -- Subjects that follow their issue: read as the caller, so their own policies (narrowing included) decide.
  -- One statement per subject type: only the one that runs is started (a single CASE over seven EXISTS
  -- started all seven, policies included, in every call).
  case p_subject_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_subject_id);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_subject_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    else return exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id);
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid) is 'Whether a narrowed key sees an event about this subject: issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue); other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid) to svc_visitor;
--! EndIncluded events/visibility.sql
--! Included events/policies.sql
-- Row-level security policies of the events tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_public.activity_events;
create policy owner_all on app_public.activity_events for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.activity_events is 'Only the owner writes events (through app_private.record_event).';

drop policy if exists select_in_workspace on app_public.activity_events;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.event_subject_visible(subject_type, subject_id))));
comment on policy select_in_workspace on app_public.activity_events is 'Events of the caller''s workspace; a narrowed key sees issue and comment events only of issues it can see, project events only of its projects, initiative events only of its initiatives, and goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue).';
--! EndIncluded events/policies.sql

-- issues.list with a status filter: the status filter reaches the query as constant ids
-- (sql/issues/tools/list.sql), and the planner learns that a status id belongs to one workspace instead of
-- multiplying the two selectivities as if independent.
create statistics if not exists app_public.issues_workspace_status_stats (dependencies) on workspace_id, status_id from app_public.issues;
comment on statistics app_public.issues_workspace_status_stats is 'A status id belongs to one workspace: workspace_id and status_id are not independent (issues.list filtered by status, issue 16).';
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_page app_hidden.page_row[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text := 'app_public.issues i';
  v_rank text := 'null::real';
  v_status_ids uuid[];
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the list index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    v_page := array(
      select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, '[]')), (t.i).number::text, null)::app_hidden.page_row
      from (select i from app_public.issues i
            where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
            order by i.number desc limit v_limit + 1) t
      left join app_public.statuses s on s.id = (t.i).status_id
      left join app_public.projects p on p.id = (t.i).project_id
      left join app_public.agents a on a.id = (t.i).assigned_agent_id
      left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                         from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
      order by (t.i).number desc);
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'query' is not null then
      -- Full-text search (issues_search_gin): ranked, paged by (rank, number) from the cursor on.
      v_query := app_hidden.search_tsquery(args->>'query');
      -- The matches come from a definer function (the index is unusable under RLS, see issue_search_matches);
      -- joined back to issues, the policies apply.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row: the matches function pages itself (no join of
        -- every match).
        v_from := format('app_hidden.issue_search_matches($2, %L::real, %L::int, %s) m join app_public.issues i on i.id = m.id',
                         v_after[1], v_after[2], v_limit + 1);
      else
        v_from := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
        if v_after is not null then
          v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
        end if;
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
    end if;
    -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
    -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
    -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
    if v_status is not null then
      if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        v_status_ids := array[v_status::uuid];
      elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
      else
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
      end if;
      v_where := v_where || case cardinality(v_status_ids)
        when 0 then ' and false'
        when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
        else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
    end if;
    if args->>'open' is not null then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
      v_where := v_where || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                        else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array(select (app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')), %s, null)::app_hidden.page_row
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true
       order by %s)', v_sort, v_rank, v_from, v_where, v_order, v_limit + 1, v_outer_order)
    into v_page
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json(v_page, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql

-- Narrowed keys: the issue narrowing check is plpgsql (planned once per session).
--! Included core/narrowing.sql
-- Key narrowing (projectIds, labelIds, initiativeIds) as the policies and tools read it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid)
 returns boolean
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- plpgsql: its query is planned once per session. As a (security definer, so never inlined) SQL function
  -- it was planned again in every call, ~0.2-0.3 ms per narrowed row.
  return p_project_id = any(app_hidden.narrowed_project_ids())
      or exists (select 1 from app_public.issue_labels il
                 where il.issue_id = p_issue_id and il.label_id = any(app_hidden.narrowed_label_ids()));
end
$$;
comment on function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid) is 'Spec 5.6: an issue passes when its project is in projectIds or any of its labels is in labelIds (OR). Only consulted for narrowed keys.';
grant execute on function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid) to svc_visitor;

create or replace function app_hidden.issues_unrestricted()
 returns boolean
 language sql
 stable parallel safe
as $$
    select cardinality(app_hidden.narrowed_project_ids()) = 0 and cardinality(app_hidden.narrowed_label_ids()) = 0
  $$;
comment on function app_hidden.issues_unrestricted() is 'True when the calling key has neither project nor label narrowing (issues are then unrestricted within the workspace).';
grant execute on function app_hidden.issues_unrestricted() to svc_visitor;

create or replace function app_hidden.narrowed_initiative_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.initiative_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_initiative_ids() is 'Initiative narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_initiative_ids() to svc_visitor;

create or replace function app_hidden.narrowed_label_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.label_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_label_ids() is 'Label narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_label_ids() to svc_visitor;

create or replace function app_hidden.narrowed_project_ids()
 returns uuid[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.project_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_project_ids() is 'Project narrowing of the calling key; empty = unrestricted.';
grant execute on function app_hidden.narrowed_project_ids() to svc_visitor;

create or replace function app_hidden.require_issues_unrestricted(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.issues_unrestricted() then
    raise exception '% changes the whole workspace; it needs a key without project or label narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_issues_unrestricted(p_what text) is 'Workspace-wide planning moves (creating, re-dating and rolling over cycles) need a key that sees every issue: 403 narrowing otherwise.';
grant execute on function app_hidden.require_issues_unrestricted(p_what text) to svc_visitor;
--! EndIncluded core/narrowing.sql
