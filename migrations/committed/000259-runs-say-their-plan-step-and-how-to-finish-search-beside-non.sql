--! Previous: sha1:7511ad849b002d673894adb22fac73da9eb12c0c
--! Hash: sha1:827b9983fa7647fc6e04dde4e522050d3e7cad6c
--! Message: Runs say their plan step and how to finish; search beside non-ASCII punctuation and over long runs

--! split: 1-current.sql
-- From outside probes (an MCP-only agent; Unicode across the catalog):
-- - A run says which plan step it works on (stepId on runs and in runProtocol), and runProtocol.protocolInstruction
--   says how to finish it: a step's run with executionPlans.transitionStep (runs.complete alone left the plan waiting
--   for good); an EXECUTE run with issues.transition to a done status and runs.complete (the issue kept the agent's
--   dispatch slot); work given back with issues.unassign; what keeps a run from STALLED; what to do once it is closed.
-- - Search finds words beside punctuation beyond ASCII («liberté», “quoted”, ¿por, 😀handler), and takes a run of
--   letters over 2 kB (683 CJK letters beside a URL were refused as "not valid UTF-8"): the search column is
--   computed again.

--! Included agents/runs.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.agent_id = p_agent_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) is 'The newest open (neither COMPLETED nor ABANDONED) run of one agent on an issue, or NULL.';
grant execute on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.current_run(p_issue_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.current_run(p_issue_id uuid) is 'The current run of an issue (spec 3.3): its newest run that is neither COMPLETED nor ABANDONED, or NULL.';
grant execute on function app_hidden.current_run(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.run_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'stepId', r.step_id, 'status', r.status,
    'engagementMode', r.engagement_mode, 'currentStep', r.current_step,
    'startedAt', r.started_at, 'finishedAt', r.finished_at, 'lastEventAt', r.last_event_at,
    'tokensIn', r.tokens_in, 'tokensOut', r.tokens_out, 'tokensCached', r.tokens_cached, 'costUsd', r.cost_usd,
    'controlState', r.control_state, 'completionMeta', r.completion_meta,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = r.agent_id))
$$;
comment on function app_hidden.run_json(r app_public.agent_runs) is 'AgentRun (spec 2.11) with its agent {id, profileKey, name} and stepId (the execution step it works on, else null).';
grant execute on function app_hidden.run_json(r app_public.agent_runs) to svc_visitor;
--! EndIncluded agents/runs.sql
--! Included runs/runs.sql
-- runs: the run contract, run changes by the run's agent, and the stale-run sweep.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.run_contract_version()
 returns text
 language sql
 immutable parallel safe
as $$ select '2026-11-01'::text $$;
comment on function app_hidden.run_contract_version() is 'Version of the run contract (completion gates, runProtocol). Stored in completionMeta.contractVersion by runs.complete and shown in agent.context.bundle runProtocol.';
grant execute on function app_hidden.run_contract_version() to svc_visitor;

create or replace function app_hidden.find_run(p_run_id text, p_field text default 'runId'::text)
 returns app_public.agent_runs
 language plpgsql
 stable
as $$
declare v_run app_public.agent_runs;
begin
  -- A deleted issue's runs are gone with it (404, as its comments and events), until it is restored.
  select r.* into v_run from app_public.agent_runs r
  join app_public.issues i on i.id = r.issue_id and i.deleted_at is null
  where r.id = app_hidden.parse_uuid(p_run_id, p_field) and r.workspace_id = app_hidden.current_workspace_id();
  if v_run.id is null then
    raise exception 'Run not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_run;
end
$$;
comment on function app_hidden.find_run(p_run_id text, p_field text) is 'A run the caller can see (its issue is visible to the key and not deleted); 404 naming the field otherwise.';
grant execute on function app_hidden.find_run(p_run_id text, p_field text) to svc_visitor;

create or replace function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(p_run_id);
begin
  if app_hidden.current_agent_id() is distinct from v_run.agent_id then
    raise exception 'Only a key linked to the run''s agent may change this run' using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if p_open_only and v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  return v_run;
end
$$;
comment on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) is 'A visible run locked FOR UPDATE, after checking that the calling key is linked to the run''s agent (403 not_run_agent) and, with p_open_only, that it is not COMPLETED or ABANDONED (409 run_closed). The entry of recordUsage, complete, setWaiting and resumeWork.';
grant execute on function app_hidden.run_for_agent_change(p_run_id text, p_open_only boolean) to svc_visitor;

create or replace function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('runId', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'from', p_from,
    'to', r.status, 'engagementMode', r.engagement_mode, 'reason', p_reason)
$$;
comment on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) is 'Payload of AGENT_RUN_STATUS_CHANGED: runId, agentId, issueId, from, to, engagementMode, reason.';
grant execute on function app_hidden.run_status_payload(r app_public.agent_runs, p_from text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text)
 returns app_public.agent_runs
 language plpgsql
as $$
declare v_from text := r.status;
begin
  if p_to = 'ABANDONED' then  -- its event is written by trigger _810_run_abandoned (every path to ABANDONED)
    perform set_config('svc.run_end_reason', coalesce(p_reason, ''), true);
  end if;
  update app_public.agent_runs
  set status = p_to, last_event_at = now(),
      finished_at = case when p_to in ('COMPLETED', 'ABANDONED') then now() end,
      -- Every completed run keeps the run contract version (spec 2.11), those completed for the agent too (a plan
      -- step accepted: reason step_done); runs.complete has written its own completionMeta already.
      completion_meta = case when p_to = 'COMPLETED' and completion_meta is null
                             then jsonb_build_object('contractVersion', app_hidden.run_contract_version(), 'completedAt', now(), 'reason', p_reason)
                             else completion_meta end
  where id = r.id
  returning * into r;
  if p_to = 'ABANDONED' then
    perform set_config('svc.run_end_reason', '', true);
  else
    perform app_hidden.record_event('AGENT_RUN_STATUS_CHANGED', 'issue', r.issue_id,
      app_hidden.run_status_payload(r, v_from, p_reason));
  end if;
  return r;
end
$$;
comment on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) is 'Moves a run to another status (finishedAt on COMPLETED/ABANDONED, lastEventAt bumped; a COMPLETED run without completionMeta gets {contractVersion, completedAt, reason}) and writes AGENT_RUN_STATUS_CHANGED (subject: the run''s issue; for ABANDONED trigger _810_run_abandoned writes it with p_reason).';
grant execute on function app_hidden.run_set_status(r app_public.agent_runs, p_to text, p_reason text) to svc_visitor;

create or replace function app_hidden.run_list_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.run_json(r) || jsonb_build_object(
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title,
                                        'workspace', jsonb_build_object('key', w.key))
              from app_public.issues i join app_public.workspaces w on w.id = i.workspace_id
              where i.id = r.issue_id))
$$;
comment on function app_hidden.run_list_json(r app_public.agent_runs) is 'A runs.list row (spec 4.9): the run''s scalars, agent {id, profileKey, name} and issue {id, key, number, title, workspace {key}}.';
grant execute on function app_hidden.run_list_json(r app_public.agent_runs) to svc_visitor;

create or replace function app_hidden.run_protocol(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(),
    'runId', r.id,
    'engagementMode', coalesce(r.engagement_mode, 'EXECUTE'),
    'modeInstruction', case coalesce(r.engagement_mode, 'EXECUTE')
      when 'EXECUTE' then 'Do the work. Before runs.complete: attach at least one produced artifact when artifactRequired, and report every verificationChecklist item done in verificationResult.'
      when 'RESEARCH' then 'Investigate and report; do not change the issue (update, transition, assign, labels are rejected). Complete with a summary and a confidence (LOW, MEDIUM, HIGH).'
      when 'REVIEW' then 'Review the work and do not change the issue. Complete with a summary and a verdict: APPROVE or REQUEST_CHANGES.'
      when 'DISCUSS' then 'Reply only (comments, chat); do not change the issue. Complete with a summary and nothing else.'
    end,
    'stepId', r.step_id,
    -- What the agent reads to know how to work: every way out of a run that an agent took wrongly (an outside probe
    -- playing an MCP-only agent) is said here, since agents read the catalog and the bundle, not the README.
    'protocolInstruction', case
      when r.id is null then 'You have no open run on this issue: nothing to report or complete here. '
        || 'If it is still assigned to you and its work is done, move it to a done status with issues.transition (an open assigned issue keeps a dispatch slot).'
      when r.status in ('COMPLETED', 'ABANDONED') then 'This run is closed (' || r.status || '). '
        || 'If the issue is still assigned to you and its work is done, move it to a done status with issues.transition (an open assigned issue keeps a dispatch slot); to hand it back, issues.unassign.'
      else 'Keep one rolling status line with comments.upsertStatus; report cumulative token usage with runs.recordUsage; '
        || 'call runs.setWaiting while blocked on someone and runs.resumeWork when you continue. '
        || case when r.step_id is not null
             then 'This run works on execution step ' || r.step_id || ': finish it with executionPlans.transitionStep {stepId, status: DONE} '
               || '(REVIEW where the plan reviews its steps), which completes this run; runs.complete alone would leave the step READY and its plan waiting. '
             when coalesce(r.engagement_mode, 'EXECUTE') = 'EXECUTE'
             then 'When the work is done, do both: move the issue to a done status with issues.transition (an open assigned issue keeps your '
               || 'dispatch slot) and close this run with runs.complete {runId, summary, ...}; neither does the other. '
               || 'To give the work back instead, issues.unassign (runs.cancel ends the run but leaves the issue assigned to you). '
             else 'Finish with runs.complete {runId, summary, ...}. '
           end
        || 'A run with no run activity (status line, comments, usage, resumeWork) for '
        || coalesce((select w.agent_run_stale_minutes from app_public.workspaces w where w.id = r.workspace_id), 30)
        || ' minutes is marked STALLED; agents.heartbeat keeps you ONLINE, not the run active.'
    end,
    'mayMutateIssue', r.id is null or (r.engagement_mode = 'EXECUTE' and r.status in ('ACTIVE', 'WAITING', 'STALLED')))
$$;
comment on function app_hidden.run_protocol(r app_public.agent_runs) is 'runProtocol of agent.context.bundle: contractVersion, runId, engagementMode, modeInstruction, stepId (a plan step''s run), protocolInstruction (how to work, report and finish this run, or what to do with no open run), mayMutateIssue (false in RESEARCH, REVIEW and DISCUSS runs and once a run is closed).';
grant execute on function app_hidden.run_protocol(r app_public.agent_runs) to svc_visitor;

create or replace function app_private.sweep_stale_runs(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_run app_public.agent_runs;
  v_fired jsonb := '[]';
begin
  for v_run in
    select r.* from app_public.agent_runs r join app_public.workspaces w on w.id = r.workspace_id
    where r.status = 'ACTIVE' and r.last_event_at < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by r.workspace_id, r.last_event_at
    for update of r skip locked
  loop
    update app_public.agent_runs set status = 'STALLED' where id = v_run.id;
    perform app_private.record_event(v_run.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', v_run.issue_id,
      jsonb_build_object('runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id, 'from', 'ACTIVE',
        'to', 'STALLED', 'engagementMode', v_run.engagement_mode, 'reason', 'stale',
        'quietMinutes', floor(extract(epoch from p_now - v_run.last_event_at) / 60)::int));
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_RUN_STALLED', 'subjectId', v_run.id,
      'issueId', v_run.issue_id, 'agentId', v_run.agent_id, 'workspaceId', v_run.workspace_id);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.sweep_stale_runs(p_now timestamp with time zone) is 'Stale-run sweep (decisions: Runs): ACTIVE runs whose lastEventAt is older than the workspace''s agentRunStaleMinutes at p_now become STALLED, each with AGENT_RUN_STATUS_CHANGED (reason stale). Returns [{kind: AGENT_RUN_STALLED, subjectId: runId, issueId, agentId, workspaceId}]. Run every minute by the worker (cron svc_watchdog_sweep, with the watchdogs) and by svc admin sweep.';
--! EndIncluded runs/runs.sql
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
--! EndIncluded issues/search.sql

alter table app_public.issues alter column search set expression as (app_hidden.search_document(workspace_id, title, description));

-- The descriptions of the tools whose text changed (runs.complete, runs.cancel, agents.heartbeat, agent.context.bundle).
--! Included runs/tools/complete.sql
-- The runs.complete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- closes an open run as COMPLETED after the gates of its mode; completionMeta keeps the contract version and
-- what the agent reported. Only the run's agent. AGENT_RUN_STATUS_CHANGED.
create or replace function app_tools.runs_complete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_issue app_public.issues;
  v_field text;
  v_missing text[];
  v_unknown bigint;
begin
  -- The issue is locked before the run, as the issue tools lock them (issue_for_write, then its runs on assign or
  -- delete), and its checklist is gated and marked done from that one locked row.
  select i.* into v_issue from app_public.issues i where i.id = (app_hidden.find_run(args->>'runId')).issue_id for update;
  v_run := app_hidden.run_for_agent_change(args->>'runId', true);
  -- A produced artifact is an attachment of the run's issue (a file or a link), named by its id: what the context
  -- bundle shows under artifacts. Any other string was taken as given, another workspace's id included.
  select min(a.n) - 1 into v_unknown
  from jsonb_array_elements_text(coalesce(args->'producedArtifactIds', '[]')) with ordinality a(ref, n)
  where not case when a.ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                 then exists (select 1 from app_public.attachments x where x.id = a.ref::uuid
                              and x.workspace_id = v_issue.workspace_id and x.target_type = 'issue' and x.target_id = v_issue.id)
                 else false end;
  if v_unknown is not null then
    perform app_hidden.raise_invalid('producedArtifactIds.' || v_unknown,
      'not an attachment of this issue: attach the artifact to the issue first (attachments.*), then name its id');
  end if;
  -- A verdict is a review's answer: on another run it would contradict the run's mode (an EXECUTE run "approving").
  if v_run.engagement_mode in ('EXECUTE', 'RESEARCH') and args ? 'verdict' then
    perform app_hidden.raise_invalid('verdict', 'only a REVIEW run completes with a verdict; this run is ' || v_run.engagement_mode);
  end if;
  case v_run.engagement_mode
    when 'EXECUTE' then
      if v_issue.artifact_required and coalesce(jsonb_array_length(args->'producedArtifactIds'), 0) = 0 then
        perform app_hidden.raise_invalid('producedArtifactIds', 'this issue requires an artifact: give at least one produced artifact id');
      end if;
      -- Every checklist item must be reported done: [{id | label, done: true}] in verificationResult. An entry
      -- with an id matches the item with that id; one without an id matches by label (exact, after trimming).
      select array_agg(coalesce(c->>'id', c->>'label') order by n) into v_missing
      from jsonb_array_elements(v_issue.verification_checklist) with ordinality as x(c, n)
      where not exists (
        select 1 from jsonb_array_elements(coalesce(args->'verificationResult', '[]')) v
        where coalesce(case when v->>'id' is not null then v->>'id' = c->>'id'
                            else btrim(v->>'label', E' \t\r\n') = btrim(c->>'label', E' \t\r\n') end, false)
          and coalesce((v->>'done')::boolean, false));
      if v_missing is not null then
        perform app_hidden.raise_invalid('verificationResult',
          'every verificationChecklist item must be reported done; missing: ' || array_to_string(v_missing, ', '));
      end if;
      -- Reported done, so done on the issue too (ISSUE_UPDATED, changes verificationChecklist): the checklist people
      -- read said "not done" after the run that did it.
      update app_public.issues set verification_checklist =
        (select jsonb_agg(c || '{"done": true}' order by n) from jsonb_array_elements(verification_checklist) with ordinality x(c, n))
      where id = v_issue.id
        and exists (select 1 from jsonb_array_elements(verification_checklist) c where not coalesce((c->>'done')::boolean, false));
    when 'RESEARCH' then
      if args->>'confidence' is null then
        perform app_hidden.raise_invalid('confidence', 'a RESEARCH run completes with a confidence (LOW, MEDIUM, HIGH)');
      end if;
    when 'REVIEW' then
      if args->>'verdict' is null then
        perform app_hidden.raise_invalid('verdict', 'a REVIEW run completes with a verdict (APPROVE or REQUEST_CHANGES)');
      end if;
    when 'DISCUSS' then
      foreach v_field in array array['producedArtifactIds', 'verificationResult', 'followUps', 'confidence', 'verdict'] loop
        if args ? v_field then
          perform app_hidden.raise_invalid(v_field, 'a DISCUSS run completes with a summary only');
        end if;
      end loop;
  end case;
  update app_public.agent_runs set completion_meta = jsonb_strip_nulls(jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(), 'summary', args->>'summary',
    'producedArtifactIds', args->'producedArtifactIds', 'verificationResult', args->'verificationResult',
    'followUps', args->'followUps', 'confidence', args->'confidence', 'verdict', args->'verdict',
    'completedAt', now()))
  where id = v_run.id;
  v_run := app_hidden.run_set_status(v_run, 'COMPLETED', 'completed');
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_complete(args jsonb) to svc_visitor;
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict (which only a REVIEW run takes); DISCUSS takes a summary only. An EXECUTE completion marks the issue''s checklist items done (ISSUE_UPDATED). completionMeta keeps what was reported and the run contract version. Closes the run only: move the issue to a done status too (issues.transition; an open issue keeps your dispatch slot). A plan step''s run (stepId): executionPlans.transitionStep instead. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/complete.sql
--! Included runs/tools/cancel.sql
-- The runs.cancel tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- ends an open run as ABANDONED (the run machine's only closing state besides COMPLETED), reason canceled:
-- AGENT_RUN_STATUS_CHANGED by trigger _810_run_abandoned; completionMeta keeps when and the caller's reason.
-- Who: the run's agent (like runs.complete), or a key acting for a person (its own user, no linked agent), who
-- may already end the run by reassigning or deleting its issue; any other key is 403 not_run_agent.
-- Closed runs: 409 run_closed. The issue keeps its assignee.
create or replace function app_tools.runs_cancel(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_run app_public.agent_runs := app_hidden.find_run(args->>'runId');
begin
  -- The run's agent (as runs.complete), or a person: a key with its own user and no linked agent.
  if not coalesce(app_hidden.current_agent_id() = v_run.agent_id,
                  app_hidden.current_agent_id() is null and app_hidden.current_user_id() is not null) then
    raise exception 'Only a key linked to the run''s agent, or a person''s key, may cancel this run'
      using errcode = 'SV403', detail = 'not_run_agent';
  end if;
  select * into v_run from app_public.agent_runs where id = v_run.id for update;
  if v_run.status in ('COMPLETED', 'ABANDONED') then
    raise exception 'This run is %', lower(v_run.status) using errcode = 'SV409', detail = 'run_closed';
  end if;
  update app_public.agent_runs
  set completion_meta = coalesce(completion_meta, '{}') || jsonb_strip_nulls(jsonb_build_object(
        'canceledAt', now(), 'cancelReason', args->>'reason'))
  where id = v_run.id;
  return app_hidden.run_json(app_hidden.run_set_status(v_run, 'ABANDONED', 'canceled'));
end
$$;
grant execute on function app_tools.runs_cancel(args jsonb) to svc_visitor;
comment on function app_tools.runs_cancel(args jsonb) is 'runs.cancel: End an open run without completing it: ABANDONED, reason canceled (AGENT_RUN_STATUS_CHANGED); completionMeta keeps cancelReason. The run''s agent, or a person''s key (another agent''s key: 403). Closed runs: 409. The issue stays assigned to the agent and out of the dispatcher''s reach: to give the work back, issues.unassign (which also ends the run).';
--! EndIncluded runs/tools/cancel.sql
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
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the agent linked to the calling key: sets status (default ONLINE) and lastHeartbeatAt in one update; runtimeId attaches the agent to a runtime (not an archived one: 409 runtime_archived). AGENT_STATUS_CHANGED only when the status changes. Presence expires: no heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work. Presence only: it does not keep a run from STALLED (status lines, comments and usage do). Keys without an agent, or linked to an archived agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
--! Included agent/tools/contextBundle.sql
-- The agent.context.bundle tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- everything an agent needs in one call. issueId: workspace, issue (full), description, comments (last 50,
-- oldest first), attachments, relations, currentRun, artifacts, completionContract, runProtocol,
-- externalResources. threadId: workspace, thread, messages (last 50, oldest first), agent, linkedIssues.
create or replace function app_tools.agent_context_bundle(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_workspace jsonb := (select app_hidden.workspace_json(w) from app_public.workspaces w
                        where w.id = app_hidden.current_workspace_id());
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_run app_public.agent_runs;
  v_own_run app_public.agent_runs;
  v_get jsonb;
begin
  if (args->>'issueId' is null) = (args->>'threadId' is null) then
    perform app_hidden.raise_invalid(case when args->>'issueId' is null then 'issueId' else 'threadId' end,
      'give exactly one of issueId or threadId');
  end if;
  if args->>'issueId' is not null then
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    -- currentRun: the caller's own run when it is an agent with one on this issue, else the issue's current run.
    -- The contract and the run protocol are the caller's own: another agent's RESEARCH run does not make this
    -- caller read-only (spec 3.2), and its runs.complete is not this caller's to call.
    if app_hidden.current_agent_id() is not null then
      v_own_run := app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id());
    end if;
    v_run := case when v_own_run.id is not null then v_own_run else app_hidden.current_run(v_issue.id) end;
    v_get := app_tools.issues_get(jsonb_build_object('id', v_issue.id,
      'include', jsonb_build_object('attachments', true, 'relations', true)));
    return jsonb_build_object(
      'workspace', v_workspace,
      'issue', app_hidden.issue_json(v_issue, true),
      'description', v_issue.description,
      'comments', coalesce((select jsonb_agg(app_hidden.comment_json(c) order by c.created_at, c.id)
                            from (select * from app_public.comments c
                                  where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
                                  order by c.created_at desc, c.id desc limit 50) c), '[]'),
      'commentCount', (select count(*) from app_public.comments c
                       where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null),
      'attachments', v_get->'attachments',
      'relations', v_get->'relations',
      'currentRun', case when v_run.id is not null then app_hidden.run_json(v_run) end,
      -- What earlier runs on this issue reported producing (runs.complete producedArtifactIds), newest run
      -- first; an id that names one of the issue's attachments carries that attachment.
      'artifacts', coalesce((select jsonb_agg(jsonb_build_object(
                                 'id', x.artifact_id, 'runId', r.id, 'agentId', r.agent_id,
                                 'completedAt', r.completion_meta->'completedAt',
                                 'attachment', (select app_hidden.attachment_json(a) from app_public.attachments a
                                                where a.workspace_id = r.workspace_id and a.target_type = 'issue' and a.target_id = r.issue_id
                                                  and a.id::text = x.artifact_id))
                               order by r.started_at desc, r.id, x.n)
                             from (select * from app_public.agent_runs r
                                   where r.workspace_id = v_issue.workspace_id and r.issue_id = v_issue.id
                                     and r.status = 'COMPLETED'
                                     and jsonb_typeof(r.completion_meta->'producedArtifactIds') = 'array'
                                   order by r.started_at desc limit 50) r,
                                  jsonb_array_elements_text(r.completion_meta->'producedArtifactIds') with ordinality x(artifact_id, n)), '[]'),
      'completionContract', jsonb_build_object(
        'engagementMode', coalesce(v_own_run.engagement_mode, 'EXECUTE'),
        'expectedOutput', v_issue.expected_output,
        'verificationChecklist', v_issue.verification_checklist,
        'artifactRequired', v_issue.artifact_required,
        'requires', case coalesce(v_own_run.engagement_mode, 'EXECUTE')
          when 'EXECUTE' then to_jsonb(array_remove(array['summary',
            case when v_issue.artifact_required then 'producedArtifactIds' end,
            case when jsonb_array_length(v_issue.verification_checklist) > 0 then 'verificationResult' end], null))
          when 'RESEARCH' then '["summary", "confidence"]'::jsonb
          when 'REVIEW' then '["summary", "verdict"]'::jsonb
          else '["summary"]'::jsonb end),
      'runProtocol', app_hidden.run_protocol(v_own_run),
      -- Linked external issues and pull requests (repohost.link / importIssue), with their latest local snapshot.
      'externalResources', coalesce((select jsonb_agg(app_hidden.repo_link_json(l) order by l.created_at, l.id)
                                     from app_public.external_links l
                                     where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id), '[]'));
  end if;

  if app_hidden.current_agent_id() is not null then
    v_thread := app_hidden.chat_thread_for_agent(args->>'threadId');  -- addressee gating
  else
    select * into v_thread from app_public.chat_threads t
    where t.id = app_hidden.parse_uuid(args->>'threadId', 'threadId');
    if v_thread.id is null then
      raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
    end if;
  end if;
  return jsonb_build_object(
    'workspace', v_workspace,
    'thread', app_hidden.chat_thread_json(v_thread),
    'messages', coalesce((select jsonb_agg(app_hidden.chat_message_json(m) order by m.seq)
                          from (select * from app_public.chat_messages m
                                where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                order by m.seq desc limit 50) m), '[]'),
    'messageCount', (select count(*) from app_public.chat_messages m
                     where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id),
    'agent', (select app_hidden.agent_json(a) from app_public.agents a where a.id = v_thread.agent_id),
    'linkedIssues', coalesce((select jsonb_agg(app_hidden.issue_ref_json(i, s) order by i.number)
                              from app_public.issues i left join app_public.statuses s on s.id = i.status_id
                              where i.workspace_id = v_thread.workspace_id and i.deleted_at is null
                                and (i.id = v_thread.issue_id or i.id::text in (
                                  select m.context_snapshot->>'issueId' from app_public.chat_messages m
                                  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                    and m.context_snapshot->>'issueId' is not null))), '[]'));
end
$$;
grant execute on function app_tools.agent_context_bundle(args jsonb) to svc_visitor;
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first) and commentCount (all there are), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, stepId, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50) and messageCount, agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql
