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
