--! Previous: sha1:cdeb4d70ed23af1269c1b22ab387edf6cd862744
--! Hash: sha1:6362e4f30ded0078182cf56dff9b579284ed9f30
--! Message: Search per workspace (btree_gin index on workspace and document), the newest 500 matches ranked, a plain search's page read by a static query

--! split: 1-current.sql
-- Search at 100,000 issues (issue 15): the full-text index leads with the workspace (btree_gin), so a
-- search reads only its own workspace's matches, and only the newest 500 matches are ranked.
create extension if not exists btree_gin with schema public;
drop index if exists app_public.issues_search_gin;
create index issues_search_gin on app_public.issues using gin (workspace_id, search) with (gin_pending_list_limit = 256);
comment on index app_public.issues_search_gin is 'issues.list query / search_issues (full text), per workspace (btree_gin). A small pending list (256 kB): every search reads it whole.';
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
 language plpgsql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
 set plan_cache_mode to 'force_custom_plan'
as $$
declare
  -- Only the newest v_ranked matches are ranked (ts_rank reads each match's document); older ones follow,
  -- newest first, with rank -1.
  v_ranked constant int := 500;
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce(p_limit, 2147483647);
  v_boundary int;
  v_n int := 0;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through the list index when many issues match (it stops after
    -- v_ranked), through issues_search_gin (workspace, document) when few do (custom plan per call: the
    -- planner sees the query).
    select coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.number), '{}'),
           coalesce(array_agg(pg_catalog.ts_rank(c.search, p_query)), '{}')
    into v_ids, v_numbers, v_ranks
    from (select i.id, i.number, i.search from app_public.issues i
          where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
          order by i.number desc limit v_ranked) c;
    if pg_catalog.cardinality(v_ids) = v_ranked then
      v_boundary := v_numbers[v_ranked];
    end if;
    return query
      select c.id, c.number, c.rank from rows from (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_numbers), pg_catalog.unnest(v_ranks)) as c(id, number, rank)
      where p_after_rank is null or (c.rank, c.number) < (p_after_rank, p_after_number)
      order by c.rank desc, c.number desc
      limit v_limit;
    get diagnostics v_n = row_count;
    if v_boundary is null or v_n >= v_limit then
      return;
    end if;
    p_after_number := v_boundary;
  end if;
  return query
    select i.id, i.number, (-1)::real from app_public.issues i
    where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
      and i.number < p_after_number
    order by i.number desc
    limit v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) is 'The caller''s workspace''s issues matching p_query: the newest 500 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues, the newest 1,000 12 ms, the newest 500 4.5 ms). After the (rank, number) of a cursor, at most p_limit (null = all). Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
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
-- A search with nothing else to filter reads its page with a static query (planned once per session).
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
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        v_page := array(
          select (app_hidden.issue_lean_json(i, s, p, a, coalesce(l.ids, '[]')), m.rank::text || ':' || m.number::text, null)::app_hidden.page_row
          from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
          join app_public.issues i on i.id = m.id
          left join app_public.statuses s on s.id = i.status_id
          left join app_public.projects p on p.id = i.project_id
          left join app_public.agents a on a.id = i.assigned_agent_id
          left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                             from app_public.issue_labels il where il.issue_id = i.id) l on true
          order by m.rank desc, m.number desc);
        return app_hidden.page_json(v_page, v_limit, 'issues-search');
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
