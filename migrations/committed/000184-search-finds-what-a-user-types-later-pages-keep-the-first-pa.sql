--! Previous: sha1:e1f698fa226f10c01f219b7b547d2c30fbe2e31c
--! Hash: sha1:24ca7f935a880accb3299fb7a0327427ed56c493
--! Message: Search finds what a user types; later pages keep the first page's ranked window

--! split: 1-current.sql
-- Search finds what a user types (search probe): the document is built from the lowercased text (the simple
-- dictionary lowercased ASCII only, so "ÉCOLE" or "Привет" were never found) and also holds every run of letters and
-- digits (v1.2.3, src/index.ts, ENG-3 were single tokens a query never matched); a query of more than 32 words is 400.
-- A search's later pages rank the window its first page fixed (issue_search_matches p_floor, in the cursor with a tag
-- of the query): a match written or deleted between pages made an issue come twice or never (pagination probe).
drop function if exists app_hidden.issue_search_matches(tsquery, real, integer, integer);
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
  v_words := array(select lower(m[1]) from regexp_matches(coalesce(p_query, ''), '([[:alnum:]]+)', 'g') m limit 33);
  if cardinality(v_words) = 0 then
    raise exception 'query has no words to search for' using errcode = 'SV400', column = p_field;
  end if;
  -- A 33rd word was dropped unsaid, and issues matching the first 32 came back as matches of all of them.
  if cardinality(v_words) > 32 then
    raise exception 'query has more than 32 words: search with fewer' using errcode = 'SV400', column = p_field;
  end if;
  -- Every word must match; the last one as a prefix (people search while they type).
  return to_tsquery('simple', array_to_string(v_words, ' & ') || ':*');
end
$$;
comment on function app_hidden.search_tsquery(p_query text, p_field text) is 'The tsquery of a search box: its words (runs of letters and digits, lowercased; at most 32, else 400) ANDed, the last one as a prefix; 400 on the field when it has none. search_document indexes the same words.';
grant execute on function app_hidden.search_tsquery(p_query text, p_field text) to svc_visitor;

create or replace function app_hidden.search_tag(p_workspace_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select pg_catalog.left(p_workspace_id::text, 8) $$;
comment on function app_hidden.search_tag(p_workspace_id uuid) is 'The tag a workspace''s search lexemes are keyed with (the first 8 characters of its id): search_document and search_keyed_query.';
grant execute on function app_hidden.search_tag(p_workspace_id uuid) to svc_visitor;

drop function if exists app_hidden.search_document_long(uuid, text, text);  -- folded into search_document

create or replace function app_hidden.search_parts(p_text text)
 returns tsvector
 language plpgsql
 immutable parallel safe
as $$
begin
  -- Only text where the parser keeps words joined (a dot, slash, @ or sign between letters and digits, or letters and
  -- digits in one run) has parts it does not index already: plain text pays one pattern test.
  if p_text operator(pg_catalog.!~) '[[:alnum:]][^[:alnum:][:space:]]+[[:alnum:]]|[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]|[-+][[:digit:]]' then
    return ''::tsvector;
  end if;
  -- Every run of letters and digits (v1, index, example, 12: how a query is split), and of a run mixing them its
  -- letters and its digits (v, 1), without positions.
  return pg_catalog.array_to_tsvector(array(select m[1] from pg_catalog.regexp_matches(p_text, '([[:alnum:]]+)', 'g') m
                                 union select m[1] from pg_catalog.regexp_matches(p_text, '([[:alpha:]]+|[[:digit:]]+)', 'g') m));
end
$$;
comment on function app_hidden.search_parts(p_text text) is 'The words of a (lowercased) text that the simple parser keeps joined into one token (v1.2.3 → v1, 2, 3, v, 1; alice@example.com → alice, example, com), as lexemes without positions, for search_document: search_tsquery splits a query into such words. Empty for text without joined words.';
grant execute on function app_hidden.search_parts(p_text text) to svc_visitor;

create or replace function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text)
 returns tsvector
 language plpgsql
 immutable parallel safe
as $$
declare
  v_title text := pg_catalog.lower(coalesce(p_title, ''));
  v_description text := pg_catalog.lower(coalesce(p_description, ''));
  -- What search_tsquery looks for. Lowercased by lower(): the simple dictionary lowercases ASCII only under the
  -- embedded cluster's builtin C locale, so "ÉCOLE" was kept as "École" and no query found it. The parser's tokens
  -- with their positions (v1.2.3, src/index.ts, alice@example.com, -12: one lexeme each) and, besides them, the
  -- words a query is split into (search_parts): typing a title's exact words found nothing when they held a dot, a
  -- slash or a sign.
  v tsvector := pg_catalog.setweight(pg_catalog.to_tsvector('simple'::regconfig, v_title) || app_hidden.search_parts(v_title), 'A')
                || pg_catalog.setweight(pg_catalog.to_tsvector('simple'::regconfig, v_description) || app_hidden.search_parts(v_description), 'B');
begin
  -- The title (weight A) and description (weight B) under the simple configuration, each lexeme keyed with the
  -- workspace's tag (search_tag), positions and weights kept for ranking. Keyed, the GIN index's entries are per
  -- workspace: a search reads its own workspace's posting lists only, where a plain document made a prefix match
  -- gather the matching issues of every workspace first (a 2,000-issue workspace took 6 ms for "flaky timeo" in a
  -- database of 200,000 issues, 0.1 ms keyed). Tags of two workspaces may collide: searches also filter on
  -- workspace_id, so a collision costs time, never a wrong row.
  -- plpgsql, not sql: the generated column calls it once per written row, and a `language sql` function there is
  -- planned again in every statement (an insert took 105 µs with it, 41 with this, 39 with the plain document).
  -- The issues.search column is generated from this function: changing what it returns needs the column computed again.
  if pg_catalog.octet_length(coalesce(p_title, '')) + pg_catalog.octet_length(coalesce(p_description, '')) > 2000 then
    -- Long text may hold a lexeme near the 2 kB limit, which the tag would push over it: left out.
    v := pg_catalog.ts_delete(v, array(select u.lexeme from pg_catalog.unnest(v) u where pg_catalog.octet_length(u.lexeme) > 2000));
  end if;
  -- The tag goes in through the text form ('lexeme':1A,4B ...; a lexeme never holds a space).
  return pg_catalog.replace(' ' || v::text, ' ''', ' ''' || app_hidden.search_tag(p_workspace_id))::tsvector;
end
$$;
comment on function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text) is 'The search document of an issue (the generated column issues.search): title (A) and description (B) lexemes of the lowercased text, the parser''s tokens with positions and every run of letters and digits, each keyed with the workspace''s tag so the GIN index is per workspace. Match it with search_keyed_query.';
grant execute on function app_hidden.search_document(p_workspace_id uuid, p_title text, p_description text) to svc_visitor;

create or replace function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery)
 returns tsquery
 language sql
 immutable parallel safe
 set search_path to 'pg_catalog'
as $$
  -- Every lexeme of the query keyed with the workspace's tag, as search_document keys the documents.
  select regexp_replace(p_query::text, '''((?:[^'']|'''')*)''', '''' || app_hidden.search_tag(p_workspace_id) || '\1''', 'g')::tsquery
$$;
comment on function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery) is 'A search tsquery with its lexemes keyed with the workspace''s tag, to match (and rank) search_document.';
grant execute on function app_hidden.search_keyed_query(p_workspace_id uuid, p_query tsquery) to svc_visitor;

create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer, p_floor integer default null::integer)
 returns table(id uuid, number integer, rank real, floor integer)
 language plpgsql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
 set plan_cache_mode to 'force_custom_plan'
as $$
declare
  -- Only the newest v_ranked matches are ranked (ts_rank reads each match's document); older ones follow,
  -- newest first, with rank -1.
  v_ranked constant int := 200;
  v_ws uuid := app_hidden.current_workspace_id();
  v_keyed tsquery := app_hidden.search_keyed_query(v_ws, p_query);
  -- Security definer reads past RLS, so the key's narrowing is applied here: the newest matches ranked, and
  -- where the ranking stops, are those of issues the key sees (ranking hidden ones let it count them by word).
  v_unrestricted boolean := app_hidden.issues_unrestricted();
  v_limit int := coalesce(p_limit, 2147483647);
  v_floor int := p_floor;
  v_n int := 0;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through (workspace_id, number) when many issues match (it stops after
    -- v_ranked), through issues_search_gin (the workspace's keyed lexemes) when few do (custom plan per call:
    -- the planner sees the query). A later page ranks the window the first one fixed, the matches at or above its
    -- floor (the number of its oldest ranked match; 0 when it ranked them all), whatever was written since: worked
    -- out again on every page, one new or deleted match moved the window, and an issue came twice or never.
    select coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.number), '{}'),
           coalesce(array_agg(pg_catalog.ts_rank(c.search, v_keyed)), '{}')
    into v_ids, v_numbers, v_ranks
    from (select i.id, i.number, i.search from app_public.issues i
          where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) v_keyed
            and (v_unrestricted or app_hidden.issue_passes_narrowing(i.id, i.project_id))
            and i.number >= coalesce(p_floor, 0)
          order by i.number desc limit case when p_floor is null then v_ranked end) c;
    if v_floor is null then
      v_floor := case when pg_catalog.cardinality(v_ids) = v_ranked then v_numbers[v_ranked] else 0 end;
    end if;
    return query
      select c.id, c.number, c.rank, v_floor from rows from (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_numbers), pg_catalog.unnest(v_ranks)) as c(id, number, rank)
      where p_after_rank is null or (c.rank, c.number) < (p_after_rank, p_after_number)
      order by c.rank desc, c.number desc
      limit v_limit;
    get diagnostics v_n = row_count;
    if v_floor = 0 or v_n >= v_limit then
      return;
    end if;
    p_after_number := v_floor;
  end if;
  return query
    select i.id, i.number, (-1)::real, coalesce(v_floor, 0) from app_public.issues i
    where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) v_keyed
      and (v_unrestricted or app_hidden.issue_passes_narrowing(i.id, i.project_id))
      and i.number < p_after_number
    order by i.number desc
    limit v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer, p_floor integer) is 'The caller''s workspace''s issues matching p_query that the key sees (its narrowing applied here: security definer): the newest 200 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues, the newest 1,000 12 ms, the newest 500 4.1 ms, the newest 200 2.1 ms: the search''s p99 under load follows its cost). floor, on every row, is the number of the oldest ranked match (0: all are ranked); a later page passes it back as p_floor and ranks that same window (matches numbered at or above it), so matches written or deleted between pages move nothing. After the (rank, number) of a cursor, at most p_limit (null = all). Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer, p_floor integer) to svc_visitor;

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
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
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
      if cardinality(v_status_ids) = 0 then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        raise exception 'No status has this id, category or name' using errcode = 'SV400', column = 'status';
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
--! Included issues/tools/count.sql
-- The issues.count tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- how many issues the filters of issues.list select (app_hidden.issues_filter, the same code), in total and
-- per status and per priority, in one grouped pass. RLS narrows the rows, as in the list.
create or replace function app_tools.issues_count(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  f record;
  v_total bigint;
  v_by_status jsonb;
  v_by_priority jsonb;
begin
  select * into f from app_hidden.issues_filter(args);
  execute format(
    'with g as (select i.status_id, i.priority, count(*) as n, grouping(i.status_id) as gs, grouping(i.priority) as gp
                from %s where %s group by grouping sets ((i.status_id), (i.priority), ()))
     select coalesce((select n from g where gs = 1 and gp = 1), 0),
            coalesce((select jsonb_agg(jsonb_build_object(''statusId'', g.status_id, ''name'', s.name, ''category'', s.category,
                                                          ''count'', g.n) order by s.position, s.name, g.status_id)
                      from g join app_public.statuses s on s.id = g.status_id where g.gs = 0), ''[]''),
            coalesce((select jsonb_agg(jsonb_build_object(''priority'', g.priority, ''count'', g.n)
                                       order by array_position(array[''URGENT'', ''HIGH'', ''MEDIUM'', ''LOW'', ''NONE''], g.priority))
                      from g where g.gp = 0), ''[]'')',
    f.from_sql, f.where_sql)
  into v_total, v_by_status, v_by_priority
  using app_hidden.current_workspace_id(), f.search, null::int;
  return jsonb_build_object('total', v_total, 'byStatus', v_by_status, 'byPriority', v_by_priority);
end
$$;
grant execute on function app_tools.issues_count(args jsonb) to svc_visitor;
comment on function app_tools.issues_count(args jsonb) is 'issues.count: Count what issues.list''s filters select: total, byStatus [{statusId, name, category, count}], byPriority.';
--! EndIncluded issues/tools/count.sql
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
          raise exception 'cursor is not one this list returned (for this query)' using errcode = 'SV400', column = 'cursor';
        end if;
        v_floor := v_after[3]::int;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        select array_agg(app_hidden.issue_lean_json(i, s, p, a) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text || ':' || m.floor::text || ':' || v_tag order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1, v_floor) m
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
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued (the flag stays after assignment: the dispatch pool is queued true, assignedAgentId null, open true).';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
-- The stored documents computed again with the new function (a table rewrite).
alter table app_public.issues alter column search set expression as (app_hidden.search_document(workspace_id, title, description));
