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

--! include issues/search.sql
--! include issues/tools/list.sql

-- Sprints follow the calendar (decisions.md "Cycle status"): the status shown is derived from the dates.
--! include cycles/cycles.sql
--! include cycles/triggers.sql
--! include cycles/tools/current.sql
--! include cycles/tools/list.sql
--! include cycles/tools/create.sql
--! include cycles/tools/rollover.sql
