--! Previous: sha1:24ca7f935a880accb3299fb7a0327427ed56c493
--! Hash: sha1:e757b1dc0093023761f7b14b4946aa0a2f74b0d4
--! Message: GraphQL searchIssues removed; plugins order said

--! split: 1-current.sql
-- GraphQL searchIssues (app_public.search_issues) is dropped: it paged by row position, so a match written between two
-- pages repeated or skipped one; issuesList(query) pages the same search by keyset (rank, number). plugins() says its order.
drop function if exists app_public.search_issues(text);
--! Included issues/search.sql
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
--! EndIncluded issues/search.sql
--! Included auth/plugins.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.require_plugin_manager(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A person manages plugins: an agent's key (made for an OWNER, holding ADMIN) created a plugin and issued itself its
  -- key, which has no agent, and acted as a person with it (a worker approved its own plan's review gate). Agent keys
  -- mint no keys by accessCreate for the same reason.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agent keys do not manage plugins or issue their keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_private.require_admin(p_caller);
end
$$;
comment on function app_private.require_plugin_manager(p_caller app_private.caller) is 'Plugin management (pluginsCreate, pluginsSetSkills, pluginIssueApiKey): a person''s key (403 user_key_required for an agent''s) of a workspace OWNER/ADMIN holding ADMIN (require_admin).';

create or replace function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
  v_allowed text[];
  v_extra text[];
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  perform app_private.require_plugin_manager(v_caller);
  select * into v_plugin from app_private.plugins where id = p_plugin_id and workspace_id = v_caller.workspace_id;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  if v_plugin.approved_at is null then
    raise exception 'Plugin is not approved' using errcode = 'SV422', detail = 'plugin_not_approved';
  end if;
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  -- Null-safe: a null in a manifest (stored before create_plugin refused them) made `s <> all(...)` null for every
  -- scope, so nothing was "extra" and any scope, ADMIN or FULL, passed.
  v_allowed := array(select x from jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')) x where x is not null);
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where not s = any(v_allowed));
    if cardinality(v_extra) > 0 then
      perform app_hidden.raise_invalid('scopes', format(
        'scopes must be a subset of the plugin''s manifest.scopes (%s); not allowed: %s',
        array_to_string(v_allowed, ', '), array_to_string(v_extra, ', ')));
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, p_scopes);
  -- Same rules as access.create: narrowing can only shrink, and a key never outlives its creator's.
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
    perform app_private.require_narrowing_current(v_caller.workspace_id, v_projects, v_labels, '{}');
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
    perform app_private.require_narrowing_current(v_caller.workspace_id, '{}', '{}', v_initiatives);
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
end
$$;
comment on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s.';
grant execute on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.plugins()
 returns setof app_public.plugin_info
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.plugin_info(p) from app_private.plugins p
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c)
  order by p.created_at, p.id
$$;
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes and manifest.skills).';
grant execute on function app_hidden.plugins() to svc_visitor;

create or replace function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_plugin_manager(v_caller);
  perform app_hidden.require_unnarrowed('A plugin serves the whole workspace');
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes, p_skills));
end
$$;
comment on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes and manifest.skills.';
grant execute on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) to svc_visitor;

create or replace function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
begin
  perform app_private.require_plugin_manager(v_caller);
  perform app_hidden.require_unnarrowed('A plugin''s skills serve the whole workspace');
  update app_private.plugins set manifest = manifest || jsonb_build_object('skills', app_private.plugin_skills(p_skills))
  where id = p_plugin_id and workspace_id = v_caller.workspace_id
  returning * into v_plugin;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  return app_private.plugin_info(v_plugin);
end
$$;
comment on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) is 'OWNER/ADMIN: replaces a plugin''s manifest.skills (what skills.invoke may call).';
grant execute on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) to svc_visitor;

create or replace function app_private.plugin_skills(p_skills jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_skill jsonb;
  v_n int := 0;
  v_names text[] := '{}';
  v_out jsonb := '[]';
  v_name text;
  v_extra text;
begin
  if p_skills is null or p_skills = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_skills) <> 'array' then
    perform app_hidden.raise_invalid('skills', 'must be a list of {name, description?, inputSchema?}');
  end if;
  if jsonb_array_length(p_skills) > 50 then
    perform app_hidden.raise_invalid('skills', 'at most 50 skills');
  end if;
  for v_skill in select x from jsonb_array_elements(p_skills) x loop
    if jsonb_typeof(v_skill) <> 'object' then
      perform app_hidden.raise_invalid(format('skills.%s', v_n), 'must be an object {name, description?, inputSchema?}');
    end if;
    select k into v_extra from jsonb_object_keys(v_skill) k where k not in ('name', 'description', 'inputSchema') limit 1;
    if v_extra is not null then
      perform app_hidden.raise_invalid(format('skills.%s.%s', v_n, v_extra), 'unknown field (a skill has name, description and inputSchema)');
    end if;
    v_name := v_skill->>'name';
    if jsonb_typeof(v_skill->'name') is distinct from 'string' or v_name !~ '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter');
    end if;
    if v_name = any(v_names) then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), format('%s is named twice', v_name));
    end if;
    if v_skill ? 'description' and (jsonb_typeof(v_skill->'description') <> 'string' or length(v_skill->>'description') > 2000) then
      perform app_hidden.raise_invalid(format('skills.%s.description', v_n), 'must be text of at most 2000 characters');
    end if;
    if v_skill ? 'inputSchema' and (jsonb_typeof(v_skill->'inputSchema') <> 'object' or length((v_skill->'inputSchema')::text) > 16384) then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n), 'must be a JSON Schema object of at most 16 KB');
    end if;
    -- The service checks input against the schema in its own process: a regular expression there (pattern,
    -- patternProperties) could backtrack for minutes on a crafted input and stall every workspace's requests.
    if v_skill ? 'inputSchema' and jsonb_path_exists(v_skill->'inputSchema',
         'lax $.** ? (@.type() == "object") ? (@.pattern.type() == "string" || exists(@.patternProperties))') then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n),
        'must not use pattern or patternProperties (regular expressions are not evaluated here; check such input in the plugin)');
    end if;
    v_names := v_names || v_name;
    v_out := v_out || jsonb_build_array(jsonb_build_object('name', v_name, 'description', v_skill->>'description',
                                                           'inputSchema', v_skill->'inputSchema'));
    v_n := v_n + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_private.plugin_skills(p_skills jsonb) is 'A plugin manifest''s skills as stored ([{name, description, inputSchema}], null = none), or a 400 naming skills.<n>.<field>.';

create or replace function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb default null)
 returns app_private.plugins
 language plpgsql
as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  p_name := app_hidden.one_line(p_name, 'name', 200);
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, p_name,
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n))),
            'skills', app_private.plugin_skills(p_skills)), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb) is 'Records an approved plugin with manifest.scopes and manifest.skills.';

create or replace function app_private.plugin_info(p app_private.plugins)
 returns app_public.plugin_info
 language sql
 stable
as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at, coalesce(p.manifest->'skills', '[]'))::app_public.plugin_info
$$;
comment on function app_private.plugin_info(p app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval, manifest.skills.';

create or replace function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], expires_in_days integer default NULL::integer, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  return app_hidden.plugin_issue_api_key(plugin_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) is 'plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';
grant execute on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) to svc_visitor;

create or replace function app_public.plugins()
 returns setof app_public.plugin_info
 language sql
 stable
as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes and manifest.skills), oldest first.';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb default null)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[], skills) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) is 'OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it and whose manifest.skills ([{name, description?, inputSchema?}]) are what skills.invoke may call.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) to svc_visitor;

create or replace function app_public.plugins_set_skills(plugin_id uuid, skills jsonb)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_set_skills(plugin_id, skills) $$;
comment on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) is 'OWNER/ADMIN: replaces a plugin''s manifest.skills ([{name, description?, inputSchema?}]; [] removes them all).';
grant execute on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skills_list(args jsonb)
 returns jsonb
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pluginId', p.id, 'plugin', p.name, 'name', x.s->>'name',
                                               'description', x.s->>'description', 'inputSchema', x.s->'inputSchema')
                            order by p.created_at, p.id, x.n), '[]')
  from app_private.plugins p
  cross join lateral jsonb_array_elements(coalesce(p.manifest->'skills', '[]')) with ordinality as x(s, n)
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c) and p.approved_at is not null
    and (args->>'pluginId' is null or p.id = app_hidden.parse_uuid(args->>'pluginId', 'pluginId'))
    and (args->>'skill' is null or x.s->>'name' = args->>'skill')
$$;
comment on function app_hidden.plugin_skills_list(args jsonb) is 'Skills of the approved plugins of the caller''s workspace ([{pluginId, plugin, name, description, inputSchema}]), optionally of one plugin (pluginId) and one skill (skill).';
grant execute on function app_hidden.plugin_skills_list(args jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skill(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_found jsonb := app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId', 'skill', args->>'skill'))->0;
begin
  if v_found is null then
    if not exists (select 1 from app_hidden.plugins() p where p.id = (args->>'pluginId')::uuid) then
      raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
    end if;
    raise exception 'Skill not found: the plugin''s manifest.skills does not name it' using errcode = 'SV404', column = 'skill';
  end if;
  return v_found;
end
$$;
comment on function app_hidden.plugin_skill(args jsonb) is 'The skill {pluginId, skill} of an approved plugin of the caller''s workspace (as plugin_skills_list shows it), or 404 on pluginId (no such plugin here) or on skill.';
grant execute on function app_hidden.plugin_skill(args jsonb) to svc_visitor;

create or replace function app_hidden.current_plugin_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select c.plugin_id from app_private.current_caller() c $$;
comment on function app_hidden.current_plugin_id() is 'The plugin the calling key was issued under (null for workspace keys).';
grant execute on function app_hidden.current_plugin_id() to svc_visitor;
--! EndIncluded auth/plugins.sql
