--! Previous: sha1:e2634ea7375c2c8745ef67071644b934c643f043
--! Hash: sha1:86990a466513de091de5d2b02db9fda7f2c87ce1
--! Message: An agent whose last live key is revoked goes OFFLINE at once (keys_revoked); search's match predicate written once

--! split: 1-current.sql
-- An agent whose last live key is revoked goes OFFLINE at once (reason keys_revoked): it stayed ONLINE, and was
-- handed queued work, until the presence sweep. Search's match predicate written once for both of its queries.
--! Included auth/triggers.sql
-- Triggers of the auth tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_api_keys__notify_revoked()
 returns trigger
 language plpgsql
as $$
begin
  perform pg_notify('svc_keys', case when tg_op = 'DELETE' then old.id else new.id end::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked or deleted key at once, and to end its streams.';

drop trigger if exists _900_notify_revoked on app_private.api_keys;
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__notify_revoked();
-- A key deleted with its workspace or its user (a stream opened with it stayed open).
drop trigger if exists _900_notify_deleted on app_private.api_keys;
create trigger _900_notify_deleted after delete on app_private.api_keys for each row execute function app_private.tg_api_keys__notify_revoked();

create or replace function app_private.tg_api_keys__agent_offline()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- An agent whose last live key is revoked can no longer heartbeat, claim or report: it is OFFLINE now (reason
  -- keys_revoked), so the dispatcher stops handing it work; it stayed ONLINE, queued work and all, until the
  -- presence sweep 30 minutes later. Its row is locked first: two of its keys revoked at once then see each other's
  -- revocation (the check below runs after the lock, on what committed), and the last of them finds none left.
  perform 1 from app_public.agents a
  where a.id = new.linked_agent_id and a.status <> 'OFFLINE' and a.archived_at is null
  for update;
  if found and not exists (
    select 1 from app_private.api_keys k
    where k.linked_agent_id = new.linked_agent_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) then
    perform set_config('svc.agent_status_reason', 'keys_revoked', true);
    update app_public.agents set status = 'OFFLINE' where id = new.linked_agent_id;
    perform set_config('svc.agent_status_reason', '', true);
  end if;
  return null;
end
$$;
comment on function app_private.tg_api_keys__agent_offline() is 'An agent''s last live key revoked (accessRevoke, svc admin revoke-key, the person who issued it removed): the agent goes OFFLINE at once (AGENT_STATUS_CHANGED, reason keys_revoked), so the dispatcher skips it. A new key and a heartbeat bring it back.';

drop trigger if exists _850_agent_offline on app_private.api_keys;
create trigger _850_agent_offline after update of revoked_at on app_private.api_keys for each row
  when (new.revoked_at is not null and old.revoked_at is null and new.linked_agent_id is not null)
  execute function app_private.tg_api_keys__agent_offline();

create or replace function app_private.tg_api_keys__events()
 returns trigger
 language plpgsql
as $$
begin
  -- Who holds access is the workspace's audit trail: issuing and revoking a key are state changes like any other.
  -- Never the token or its hash; the prefix is what lists show.
  perform app_private.record_event(new.workspace_id, case when tg_op = 'INSERT' then 'API_KEY_CREATED' else 'API_KEY_REVOKED' end,
    'api-key', new.id, jsonb_build_object('keyId', new.id, 'kind', new.kind, 'prefix', new.prefix, 'userId', new.user_id,
      'linkedAgentId', new.linked_agent_id, 'pluginId', new.plugin_id, 'expiresAt', new.expires_at, 'revokedAt', new.revoked_at));
  return null;
end
$$;
comment on function app_private.tg_api_keys__events() is 'API_KEY_CREATED when a key is issued (any path: access.*, plugins, the CLI, a new workspace''s owner key) and API_KEY_REVOKED when it is revoked (accessRevoke, svc admin revoke-key, a member removed); subject api-key, payload without secrets.';

drop trigger if exists _800_events_created on app_private.api_keys;
create trigger _800_events_created after insert on app_private.api_keys for each row execute function app_private.tg_api_keys__events();
drop trigger if exists _800_events_revoked on app_private.api_keys;
create trigger _800_events_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__events();

create or replace function app_private.tg_plugins__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  -- What a plugin's keys may be given and which skills skills.invoke may call are the workspace's to follow like its
  -- webhooks and dispatch rules (the event audit's last configuration without a trace).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['name', 'manifest.scopes:scopes', 'manifest.skills:skills', 'approved_at']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  perform app_private.record_event(new.workspace_id, case tg_op when 'INSERT' then 'PLUGIN_CREATED' else 'PLUGIN_UPDATED' end,
    'plugin', new.id,
    jsonb_build_object('pluginId', new.id, 'name', new.name, 'scopes', coalesce(new.manifest->'scopes', '[]'),
      'skills', coalesce((select jsonb_agg(s->'name') from jsonb_array_elements(coalesce(new.manifest->'skills', '[]')) s), '[]'),
      'approvedAt', new.approved_at)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_plugins__events() is 'AFTER INSERT/UPDATE on plugins: PLUGIN_CREATED, PLUGIN_UPDATED (changes: name, scopes, skills, approvedAt; nothing changed, no event). Subject plugin; payload pluginId, name, scopes, skills (their names), approvedAt.';

drop trigger if exists _800_events on app_private.plugins;
create trigger _800_events after insert or update on app_private.plugins for each row execute function app_private.tg_plugins__events();
--! EndIncluded auth/triggers.sql
--! Included agents/triggers.sql
-- Triggers of the agents tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_agents__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'AGENT_CREATED', 'agent', new.id,
      jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'name', new.name));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'AGENT_DELETED', 'agent', old.id,
      jsonb_build_object('agentId', old.id, 'profileKey', old.profile_key, 'deleted', true));
    -- Pins are personal rows of every member: nothing may keep pointing at the agent (as for a deleted cycle).
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'AGENT' and p.target_id = old.id;
  else
    if new.status is distinct from old.status then
      perform app_private.record_event(new.workspace_id, 'AGENT_STATUS_CHANGED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'from', old.status, 'to', new.status)
        -- Why, when the writer says (svc.agent_status_reason: heartbeat_timeout from the presence sweep, keys_revoked
        -- when its last key went).
        || case when current_setting('svc.agent_status_reason', true) <> ''
                then jsonb_build_object('reason', current_setting('svc.agent_status_reason', true)) else '{}' end);
    end if;
    if new.archived_at is not null and old.archived_at is null then
      perform app_private.record_event(new.workspace_id, 'AGENT_DELETED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'archived', true));
    else
      -- Which fields changed, by their API names (never the values: a webhookUrl may carry a token), as every other
      -- *_UPDATED says; a restore is `archived` (it said only agentId and profileKey).
      v_changes := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'profile_key', 'runtime_mode',
        'provider', 'capabilities', 'max_concurrent', 'webhook_url', 'runtime_id', 'archived_at:archived']);
      if cardinality(v_changes) > 0 then
        perform app_private.record_event(new.workspace_id, 'AGENT_UPDATED', 'agent', new.id,
          jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'changes', to_jsonb(v_changes))
          || case when 'archived' = any(v_changes) then jsonb_build_object('archived', false) else '{}' end);
      end if;
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__events() is 'AGENT_CREATED, AGENT_UPDATED {agentId, profileKey, changes (API names), archived: false on a restore}, AGENT_DELETED (archive or delete; a delete also removes the members'' pins of the agent), AGENT_STATUS_CHANGED {agentId, from, to, reason?} (only on an actual change; reason heartbeat_timeout from the presence sweep, keys_revoked when its last live key is revoked).';

drop trigger if exists _100_updated_at on app_public.agents;
create trigger _100_updated_at before update on app_public.agents for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.agents;
create trigger _800_events after insert or delete or update on app_public.agents for each row execute function app_private.tg_agents__events();

create or replace function app_private.tg_agents__notify_keys()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform pg_notify('svc_keys', k.id::text) from app_private.api_keys k
  where k.linked_agent_id = new.id and k.revoked_at is null;
  return null;
end
$$;
comment on function app_private.tg_agents__notify_keys() is 'An agent archived or restored: tells every API process to drop its cached copies of the agent''s keys (an archived agent''s key is refused at once, its streams end; a restored one works at once).';

drop trigger if exists _900_notify_keys on app_public.agents;
create trigger _900_notify_keys after update of archived_at on app_public.agents
  for each row when (new.archived_at is distinct from old.archived_at)
  execute function app_private.tg_agents__notify_keys();

create or replace function app_private.tg_agent_runs__abandoned()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, old.status,
      coalesce(nullif(current_setting('svc.run_end_reason', true), ''), 'abandoned')));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__abandoned() is 'AGENT_RUN_STATUS_CHANGED for every move of a run into ABANDONED, whoever makes it (reassignment, a canceled plan attempt, issues.delete, an operator), with the payload of the other run moves (runId, agentId, issueId, from, to, engagementMode, reason). The reason is the transaction-local svc.run_end_reason the writer sets around its update (reassigned, plan_canceled), else abandoned.';

drop trigger if exists _810_run_abandoned on app_public.agent_runs;
create trigger _810_run_abandoned after update of status on app_public.agent_runs
  for each row when (new.status = 'ABANDONED' and old.status is distinct from 'ABANDONED')
  execute function app_private.tg_agent_runs__abandoned();

create or replace function app_private.tg_agent_runs__stalled_activity()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sign of life of a STALLED run (usage, a status line, a chat reply) is its agent at work again: back to ACTIVE,
  -- as runs.resumeWork does, so the board and the watchdogs stop calling it stalled while it reports. Before the
  -- row is written, so the report's own answer and AGENT_RUN_UPDATED say ACTIVE (after it, they said STALLED
  -- behind an AGENT_RUN_STATUS_CHANGED to ACTIVE).
  new.status := 'ACTIVE';
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, 'STALLED', 'activity'));
  return new;
end
$$;
comment on function app_private.tg_agent_runs__stalled_activity() is 'A STALLED run whose lastEventAt moves (its agent reported) goes back to ACTIVE in the same write, with AGENT_RUN_STATUS_CHANGED reason activity; it stayed STALLED until runs.resumeWork.';

drop trigger if exists _820_run_stalled_activity on app_public.agent_runs;
drop trigger if exists _120_run_stalled_activity on app_public.agent_runs;
create trigger _120_run_stalled_activity before update of last_event_at on app_public.agent_runs
  for each row when (old.status = 'STALLED' and new.status = 'STALLED' and new.last_event_at > old.last_event_at)
  execute function app_private.tg_agent_runs__stalled_activity();
--! EndIncluded agents/triggers.sql
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
--! EndIncluded issues/search.sql
