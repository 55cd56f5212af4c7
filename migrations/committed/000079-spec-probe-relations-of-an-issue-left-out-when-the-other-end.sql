--! Previous: sha1:bd7a8e8da998e693f35b5f630896e37a62ce6061
--! Hash: sha1:bb9a44f5bce686a1706726d4dc7445069106729a
--! Message: Spec probe: relations of an issue left out when the other end is deleted, everywhere they are shown; cycle dates end at 9999-12-31

--! split: 1-current.sql
-- Spec-conformance probe (eleventh session).
-- issues.get include.relations (and agent.context.bundle through it) leave out links to deleted issues, as
-- relations.listForIssue does: both read app_hidden.issue_relations_json.
--! Included relations/relations.sql
-- relations: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', (select app_hidden.issue_ref_json(i) from app_public.issues i
              where i.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) is 'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end.';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text default null)
 returns jsonb
 language sql
 stable
as $$
  -- Read as the caller: a link whose other end the key cannot see (narrowing) or that is deleted is left out, ids
  -- included.
  select coalesce(jsonb_agg(t.v order by t.created_at, t.id), '[]')
  from (select app_hidden.relation_view(r, p_issue.id) as v, r.created_at, r.id
        from app_public.issue_relations r
        where r.workspace_id = p_issue.workspace_id
          and (r.from_issue_id = p_issue.id or r.to_issue_id = p_issue.id)
          and exists (select 1 from app_public.issues o
                      where o.id = case when r.from_issue_id = p_issue.id then r.to_issue_id else r.from_issue_id end
                        and o.deleted_at is null)) t
  where p_kind is null or t.v->>'kind' = p_kind
$$;
comment on function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text) is 'Every relation of an issue, inbound and outbound, each seen from it (relation_view), oldest first, optionally of one kind as seen; links to issues the caller cannot see or that are deleted are left out. relations.listForIssue, issues.get include.relations and agent.context.bundle show this.';
grant execute on function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text) to svc_visitor;

create or replace function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid)
 returns boolean
 language sql
 stable
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a chain may pass through issues the caller's narrowing hides, and it still makes a cycle.
  -- Links of deleted issues are left out (they are gone everywhere else too).
  with recursive reach(issue_id) as (
    select p_from
    union
    select r.to_issue_id
    from reach join app_public.issue_relations r
      on r.from_issue_id = reach.issue_id and r.workspace_id = app_hidden.current_workspace_id() and r.kind = p_kind
    join app_public.issues i on i.id = r.to_issue_id and i.deleted_at is null)
  select exists (select 1 from reach where issue_id = p_to)
$$;
comment on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) is 'Whether a chain of p_kind links (BLOCKS or DUPLICATES) leads from p_from to p_to in the caller''s workspace, through any issue (definer: narrowing does not break a cycle). relations.add refuses the link that would close one.';
grant execute on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) to svc_visitor;

create or replace function app_hidden.lock_directed_relations(p_kind text)
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.relation:' || p_kind || ':' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_directed_relations(p_kind text) is 'Serializes BLOCKS (or DUPLICATES) links of the caller''s workspace for the transaction, so two concurrent links cannot close a cycle between them. Take it before any issue row lock (relations.add does; accepting a close-as-duplicate request takes it first).';
grant execute on function app_hidden.lock_directed_relations(p_kind text) to svc_visitor;
--! EndIncluded relations/relations.sql
--! Included relations/tools/listForIssue.sql
-- The relations.listForIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links
-- to issues the key cannot see or that are deleted are left out.
create or replace function app_tools.relations_list_for_issue(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.issue_relations_json(app_hidden.find_issue(args->>'issueId', 'issueId'), args->>'kind');
end
$$;
comment on function app_tools.relations_list_for_issue(args jsonb) is 'relations.listForIssue: Every relation of an issue, outbound and inbound, each seen from that issue: kind is its point of view (BLOCKED_BY when another issue blocks it), direction says which way the stored link goes, issue is the other end. Optional kind filter (applies to the kind as seen).';
grant execute on function app_tools.relations_list_for_issue(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/listForIssue.sql
--! Included issues/tools/get.sql
-- The issues.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the lean issue by id or key; include adds description, labels, comments (newest first, default 20, max 100,
-- soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.
create or replace function app_tools.issues_get(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_ref text := args->>'id';
  v_include jsonb := args->'include';
  v_json json;
  v_issue app_public.issues;
  v_result jsonb;
  v_limit int;
begin
  if v_include is null and v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- The common read (by id, lean): found and shaped in one query, the joins of issue_json, and returned as
    -- built (no jsonb round trip, no row kept for the includes).
    select app_hidden.issue_lean_json(i, s, p, a)
    into v_json
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    where i.id = v_ref::uuid and i.deleted_at is null;
    if v_json is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
    end if;
    return v_json;
  end if;
  v_issue := app_hidden.find_issue(v_ref);
  v_result := app_hidden.issue_json(v_issue, false);
  if v_include is null then
    return v_result::json;
  end if;
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', app_hidden.issue_labels_json(v_issue.label_ids));
  end if;
  if jsonb_typeof(v_include->'comments') = 'object' or (v_include->>'comments')::boolean then
    v_limit := coalesce((v_include->'comments'->>'limit')::int, 20);
    v_result := v_result || jsonb_build_object('comments', coalesce(
      (select jsonb_agg(app_hidden.comment_shape(t.c, u, a) order by (t.c).created_at desc, (t.c).id desc)
       from (select c from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) t
       left join app_public.users u on u.id = (t.c).author_user_id
       left join app_public.agents a on a.id = (t.c).authoring_agent_id), '[]'));
  end if;
  if (v_include->>'attachments')::boolean then
    v_result := v_result || jsonb_build_object('attachments', coalesce(
      (select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
       from app_public.attachments a
       where a.workspace_id = v_issue.workspace_id and a.target_type = 'issue' and a.target_id = v_issue.id), '[]'));
  end if;
  if (v_include->>'relations')::boolean then
    v_result := v_result || jsonb_build_object('relations', app_hidden.issue_relations_json(v_issue));
  end if;
  if (v_include->>'currentRun')::boolean then
    v_result := v_result || jsonb_build_object('currentRun',
      (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
  end if;
  return v_result::json;
end
$$;
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds description, labels, comments (newest first; true = 20, or {limit} up to 100), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/get.sql
-- Cycle dates end at 9999-12-31: a default computed past it is a 400.
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
  -- Dates the tools take back (YYYY-MM-DD): a default computed after a cycle ending in 9999 would not be.
  if p_starts > date '9999-12-31' or p_ends > date '9999-12-31' then
    raise exception 'Cycle dates end at 9999-12-31 (the next cycle would fall after it)'
      using errcode = 'SV400', column = case when p_starts > date '9999-12-31' then 'startsOn' else 'endsOn' end;
  end if;
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
comment on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) is 'Cycle dates: none after 9999-12-31 and endsOn >= startsOn (400), and no overlap with another non-canceled cycle (409 cycle_overlap).';
grant execute on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date) to svc_visitor;

create or replace function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text)
 returns void
 language plpgsql
 stable
as $$
declare
  v_other app_public.cycles;
begin
  -- Dates never overlap, so two cycles can be ACTIVE at once only through an early activation: a cycle stored
  -- ACTIVE before its dates is current from now until it ends, and any other cycle whose dates come before its
  -- start (and have not ended) is ACTIVE by the calendar in that time.
  if p_status = 'ACTIVE' and p_starts > app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today() and c.starts_on < p_starts
    order by c.starts_on limit 1;
  elsif p_ends >= app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status = 'ACTIVE' and c.starts_on > app_hidden.utc_today() and p_starts < c.starts_on
    limit 1;
  end if;
  if v_other.id is not null then
    raise exception 'Cycle % (% to %) and this one would both be ACTIVE before %: one cycle is current at a time',
      v_other.name, v_other.starts_on, v_other.ends_on, greatest(v_other.starts_on, p_starts)
      using errcode = 'SV409', detail = 'active_cycle_exists';
  end if;
end
$$;
comment on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) is 'At most one ACTIVE cycle at any time: a cycle activated early (stored ACTIVE, starting later) is current until it ends, so no other cycle may run by the calendar before its start (409 active_cycle_exists), whichever of the two is written (p_cycle_id re-dated, or new). Call under lock_cycles().';
grant execute on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.cycle_status(c app_public.cycles)
 returns text
 language sql
 stable parallel safe
as $$
  select case
    when c.status = 'CANCELED' then 'CANCELED'
    when c.ends_on < app_hidden.utc_today() then 'COMPLETED'
    when c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE' then 'ACTIVE'
    else 'PLANNED' end
$$;
comment on function app_hidden.cycle_status(c app_public.cycles) is 'A cycle''s status on the calendar (decisions.md "Cycle status"): CANCELED stays; otherwise ended (endsOn before today, UTC) is COMPLETED, started (dates include today) or activated early by cycles.create activate: true (stored ACTIVE) is ACTIVE, else PLANNED. A stored COMPLETED only records that an ended cycle was rolled over; it never ends a cycle early.';
grant execute on function app_hidden.cycle_status(c app_public.cycles) to svc_visitor;

create or replace function app_public.cycles_current_status(c app_public.cycles)
 returns text
 language sql
 stable
as $$ select app_hidden.cycle_status(c) $$;
comment on function app_public.cycles_current_status(c app_public.cycles) is 'The status on the calendar: a cycle whose dates include today is ACTIVE, one whose end has passed COMPLETED, a later one PLANNED (status holds only what was set: PLANNED, ACTIVE by cycles.create activate: true, COMPLETED once an ended cycle was rolled over, CANCELED).';
grant execute on function app_public.cycles_current_status(c app_public.cycles) to svc_visitor;

create or replace function app_hidden.current_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.ends_on >= app_hidden.utc_today() and (c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE')
  order by c.starts_on <= app_hidden.utc_today() desc, c.starts_on, c.number limit 1
$$;
comment on function app_hidden.current_cycle() is 'The current cycle: the one whose dates include today, else one activated early by cycles.create activate: true (NULL row when none). Rollover never changes it.';
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
-- The comment on comment_for_write says what the code does: moderators are OWNER/ADMIN person keys.
--! Included comments/comments.sql
-- comments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.comment_for_write(p_id text)
 returns app_public.comments
 language plpgsql
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, 'id') and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id()
  for update of c;
  if v_comment.id is null then
    raise exception 'Comment not found' using errcode = 'SV404', column = 'id';
  end if;
  -- The author is the agent when an agent wrote it, else the user; a key acts as its agent when it has one.
  if not coalesce(case when v_comment.authoring_agent_id is not null
                        then v_comment.authoring_agent_id = app_hidden.current_agent_id()
                        else app_hidden.current_agent_id() is null and v_comment.author_user_id = app_hidden.current_user_id() end, false)
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the author or a workspace OWNER/ADMIN may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(p_id text) is 'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), or a person key of a workspace OWNER/ADMIN (caller_may_moderate; the ADMIN scope alone does not moderate, docs/decisions.md) (403 not_author otherwise).';
grant execute on function app_hidden.comment_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (lists join the authors).
  select jsonb_build_object(
    'id', c.id, 'issueId', c.issue_id, 'body', c.body, 'kind', c.kind, 'confidence', c.confidence,
    'authorUserId', c.author_user_id, 'authoringAgentId', c.authoring_agent_id, 'runId', c.run_id,
    'author', case when u.id is not null then
                jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email) end,
    'authoringAgent', case when a.id is not null then
                        jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'editedAt', c.edited_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) is 'The Comment shape from rows the caller already fetched: the author user (u) and authoring agent (a) as the caller can see them; inlined into lists.';
grant execute on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) to svc_visitor;

create or replace function app_hidden.comment_json(c app_public.comments)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql: as `language sql` with subqueries it was never inlined and was planned again in every
  -- statement that called it (~1 ms per comments.create).
  return (select app_hidden.comment_shape(c, u, a)
          from (select 1) as one
          left join app_public.users u on u.id = c.author_user_id
          left join app_public.agents a on a.id = c.authoring_agent_id);
end
$$;
comment on function app_hidden.comment_json(c app_public.comments) is 'Comment (spec 2.4) with author {id, name, email} and authoringAgent {id, profileKey, name}. Revisions are an in-app read only and are not shown.';
grant execute on function app_hidden.comment_json(c app_public.comments) to svc_visitor;

create or replace function app_public.comments_revision_history(c app_public.comments)
 returns setof app_public.comment_revision
 language sql
 stable
as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(c app_public.comments) is 'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';
grant execute on function app_public.comments_revision_history(c app_public.comments) to svc_visitor;
--! EndIncluded comments/comments.sql
