-- Full-text search over issues (issues.list query; GraphQL issuesList(query)).
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
  -- Only text where the parser keeps words joined (a dot, slash, @ or sign between letters and digits, letters and
  -- digits in one run, or any character beyond ASCII that is not a letter or digit, which the parser under the C ctype
  -- takes for a letter: «liberté», “quoted”, ¿por, 😀handler) has parts it does not index already: plain text pays one
  -- pattern test.
  if p_text operator(pg_catalog.!~) '[[:alnum:]][^[:alnum:][:space:]]+[[:alnum:]]|[[:alpha:]][[:digit:]]|[[:digit:]][[:alpha:]]|[-+][[:digit:]]|[^\x01-\x7f[:alnum:][:space:]]' then
    return ''::tsvector;
  end if;
  -- Every run of letters and digits (v1, index, example, 12: how a query is split), and of a run mixing them its
  -- letters and its digits (v, 1), without positions. A run over 2,000 bytes is left out (a run of 683 CJK letters
  -- passed array_to_tsvector's 2 kB limit, which cut a character in two and refused the text; search_document drops
  -- such lexemes anyway).
  return pg_catalog.array_to_tsvector(array(
    select w from (select m[1] as w from pg_catalog.regexp_matches(p_text, '([[:alnum:]]+)', 'g') m
                   union select m[1] from pg_catalog.regexp_matches(p_text, '([[:alpha:]]+|[[:digit:]]+)', 'g') m) parts
    where pg_catalog.octet_length(w) <= 2000));
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

-- (Before migration 000240 it took no filter.)
drop function if exists app_hidden.issue_search_matches(tsquery, real, integer, integer, integer);
create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer, p_floor integer default null::integer, p_where text default null::text)
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
  -- The narrowing as the rows' own columns (issue_passes_narrowing's rule: project in projectIds, or any label in
  -- labelIds; issues.label_ids mirrors issue_labels): the function, called for every match a bitmap scan found before
  -- its sort, cost a narrowed key's search ~1 s at 20,000 matches.
  v_projects uuid[] := app_hidden.narrowed_project_ids();
  v_labels uuid[] := app_hidden.narrowed_label_ids();
  -- Which rows are the matches the key sees, in both queries below ($1 workspace, $2 keyed query, $3 unrestricted,
  -- $5 and $6 the narrowing's projects and labels).
  v_matches constant text := 'i.workspace_id = $1 and i.deleted_at is null and i.search operator(pg_catalog.@@) $2
    and ($3 or coalesce(i.project_id = any($5), false) or i.label_ids operator(pg_catalog.&&) $6)';
  v_limit int := coalesce(p_limit, 2147483647);
  v_floor int := p_floor;
  v_n int := 0;
  v_window int;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  -- p_where, the other filters of issues.list (issues_filter's where_sql over issues i, $1 the workspace: our code's
  -- text with every value quoted, never a client's). A narrowed key's `parentId: null` test reads the parent's
  -- visibility as the caller (visible_issue_id), which this definer is not: that filter stays with the caller. With
  -- it, the matches below the window are read filtered and newest first, so a page stops after its rows: joined and
  -- filtered afterwards, every match of a common word was read (134 ms for one board column's search at 60,000
  -- issues, 20,000 matches).
  if p_where is not null and not v_unrestricted and pg_catalog.strpos(p_where, 'visible_issue_id') > 0 then
    raise exception 'issue_search_matches: a filter that reads the caller''s visibility is the caller''s';
  end if;
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through (workspace_id, number) when many issues match (it stops after
    -- v_ranked), through issues_search_gin (the workspace's keyed lexemes) when few do (custom plan per call:
    -- the planner sees the query). A later page ranks the window the first one fixed, the matches at or above its
    -- floor (the number of its oldest ranked match; 0 when it ranked them all), whatever was written since: worked
    -- out again on every page, one new or deleted match moved the window, and an issue came twice or never.
    -- The window is the same with a filter or without; the filter then keeps its rows among it.
    execute format(
      'with w as materialized (
         select i.id, i.number, i.search from app_public.issues i
         where %s and i.number >= coalesce($4, 0)
         order by i.number desc limit case when $4 is null then %s end)
       select coalesce(array_agg(w.id order by w.number desc) filter (where k.kept), ''{}''),
              coalesce(array_agg(w.number order by w.number desc) filter (where k.kept), ''{}''),
              coalesce(array_agg(pg_catalog.ts_rank(w.search, $2) order by w.number desc) filter (where k.kept), ''{}''),
              count(*), min(w.number)
       from w %s',
      v_matches, v_ranked,
      case when p_where is null then 'cross join (select true as kept) k'
           else format('left join lateral (select true as kept from app_public.issues i where i.id = w.id and %s) k on true', p_where) end)
    into v_ids, v_numbers, v_ranks, v_window, v_n
    using v_ws, v_keyed, v_unrestricted, p_floor, v_projects, v_labels;
    if v_floor is null then
      v_floor := case when v_window = v_ranked then v_n else 0 end;
    end if;
    v_n := 0;
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
  return query execute format(
    'select i.id, i.number, (-1)::real, coalesce($7, 0) from app_public.issues i
     where %s and i.number < $4 and %s
     order by i.number desc
     limit $8', v_matches, coalesce(p_where, 'true'))
    using v_ws, v_keyed, v_unrestricted, p_after_number, v_projects, v_labels, v_floor, v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer, p_floor integer, p_where text) is 'The caller''s workspace''s issues matching p_query that the key sees (its narrowing applied here: security definer): the newest 200 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues, the newest 1,000 12 ms, the newest 500 4.1 ms, the newest 200 2.1 ms: the search''s p99 under load follows its cost). floor, on every row, is the number of the oldest ranked match (0: all are ranked); a later page passes it back as p_floor and ranks that same window (matches numbered at or above it), so matches written or deleted between pages move nothing. After the (rank, number) of a cursor, at most p_limit (null = all). p_where: issues.list''s other filters (issues_filter''s where_sql; not one reading the caller''s visibility, a narrowed key''s parentId null), applied to the window''s matches and to the older ones as they are read. Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters or the filter is given here.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer, p_floor integer, p_where text) to svc_visitor;
