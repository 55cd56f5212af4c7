-- Issue 15: full-text search over issue titles and descriptions (issues.list query, GraphQL searchIssues).

-- btree_gin lets one GIN index lead with workspace_id (uuid) and hold the tsvector: a search reads only the
-- caller's workspace. A trusted extension: the database owner (the migrating role) may create it.
create extension if not exists btree_gin with schema public;

-- 'simple' (no stemming): prefix matching on what people typed stays exact, whatever the language.
alter table app_public.issues add column if not exists search tsvector
  generated always as (setweight(to_tsvector('simple', coalesce(title, '')), 'A')
                       || setweight(to_tsvector('simple', coalesce(description, '')), 'B')) stored;
comment on column app_public.issues.search is E'@behavior -*\nFull-text search document: title (weight A) and description (weight B), simple configuration.';

create index if not exists issues_search_idx on app_public.issues using gin (workspace_id, search);
comment on index app_public.issues_search_idx is 'issues.list query / search_issues: the workspace''s matches (btree_gin for workspace_id).';

--! include issues/search.sql
--! include issues/tools/list.sql
