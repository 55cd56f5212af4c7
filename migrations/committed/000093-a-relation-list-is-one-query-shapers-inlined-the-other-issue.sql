--! Previous: sha1:8ed3f3b4d8e6e5e3e9a80ebb4fc706fa96ec5dc4
--! Hash: sha1:7d1085936533ed1afeacb7fc8b7b560d5a0abad1
--! Message: A relation list is one query: shapers inlined, the other issue and its status joined

--! split: 1-current.sql
-- A relation list is one query: the other issue and its status are joined, and the shapers (issue_ref_json,
-- relation_view) are single expressions that PostgreSQL inlines. Before, each relation called a SQL function
-- with a subquery, planned again per row: 0.4–0.5 s for an issue with 1,000 relations.
--! Included issues/shapes.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not sql: a `language sql` function with a FROM clause is never inlined, and PostgreSQL 17
  -- plans its body again in every statement that calls it (the joins and the RLS policies of five tables:
  -- ~1.5 ms of a 1.8 ms issues.get). plpgsql keeps the plan for the session.
  -- Joins rather than four scalar subqueries: measured 40 us per call instead of 250 us.
  -- The same joins read the issue and shape it in one query in issues.get and issue_json_after_write.
  return (
    select app_hidden.issue_lean_json(i, s, p, a)::jsonb
           || case when p_full then app_hidden.issue_extra_json(i, app_hidden.issue_labels_json(i.label_ids)) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id);
end
$$;
comment on function app_hidden.issue_json(i app_public.issues, p_full boolean) is 'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';
grant execute on function app_hidden.issue_json(i app_public.issues, p_full boolean) to svc_visitor;

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  select app_hidden.issue_lean_json(i, s, p, a)::jsonb || app_hidden.issue_extra_json(i, app_hidden.issue_labels_json(i.label_ids))
  into v_json
  from app_public.issues i
  left join app_public.statuses s on s.id = i.status_id
  left join app_public.projects p on p.id = i.project_id
  left join app_public.agents a on a.id = i.assigned_agent_id
  where i.id = p_issue_id;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query: a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.issue_labels_json(p_label_ids uuid[])
 returns jsonb
 language plpgsql
 stable
as $$
begin
  if cardinality(p_label_ids) = 0 then
    return '[]';  -- most issues: no query at all
  end if;
  return coalesce((select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                    order by array_position(p_label_ids, l.id))
                   from app_public.labels l where l.id = any(p_label_ids)), '[]');
end
$$;
comment on function app_hidden.issue_labels_json(p_label_ids uuid[]) is 'The labels {id, name, color} of an issue, in the order of its label_ids (plpgsql: its plan is kept for the session).';
grant execute on function app_hidden.issue_labels_json(p_label_ids uuid[]) to svc_visitor;

create or replace function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'description', i.description,
    'labels', coalesce(p_labels, '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
$$;
comment on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) is 'What the full issue shape adds to the lean one (description, labels {id, name, color}, the completion contract, creator, start and completion), from rows the caller already fetched; inlined.';
grant execute on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) to svc_visitor;

drop function if exists app_hidden.visible_parent_id(uuid);  -- now visible_issue_id (parents, chat contexts, duplicates)

create or replace function app_hidden.visible_issue_id(p_issue_id uuid)
 returns uuid
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not SQL: called per row of every issue shape, and a SQL function with a subquery is planned again
  -- in every statement (PostgreSQL 17); most issues have no parent and most keys are not narrowed.
  if p_issue_id is null or app_hidden.issues_unrestricted() then
    return p_issue_id;
  end if;
  -- Runs as the caller: the issues policy decides whether the issue is visible.
  return (select i.id from app_public.issues i where i.id = p_issue_id);
end
$$;
comment on function app_hidden.visible_issue_id(p_issue_id uuid) is 'An issue id another record names (a parent, a chat message''s context, a duplicate), as the caller may see it: NULL for a narrowed key that cannot see that issue (its id stays hidden, docs/decisions.md). Runs as the caller (RLS).';
grant execute on function app_hidden.visible_issue_id(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.with_visible_issue(p_json jsonb, p_field text)
 returns jsonb
 language sql
 stable
as $$
  select case when p_json->>p_field is null then p_json
              else jsonb_set(p_json, array[p_field], coalesce(to_jsonb(app_hidden.visible_issue_id((p_json->>p_field)::uuid)), 'null')) end
$$;
comment on function app_hidden.with_visible_issue(p_json jsonb, p_field text) is 'A JSON object with the issue id in p_field as the caller may see it (visible_issue_id: null when a narrowed key cannot see that issue): a chat message''s context, an action request''s duplicate.';
grant execute on function app_hidden.with_visible_issue(p_json jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents)
 returns json
 language sql
 stable
as $$
  select json_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else json_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else json_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else json_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued,
    -- Most issues have no parent: no call then (a plpgsql call per row of every list page).
    'parentId', case when i.parent_id is null then null else app_hidden.visible_issue_id(i.parent_id) end, 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', to_json(i.label_ids),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null). json, built as text: lists join it as is, single issues cast it to jsonb.';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- One expression, no subquery: inlined into the caller's query, so a list of them is planned once (PostgreSQL 17
  -- plans a non-inlined SQL function again on every call: 0.4 ms a row in a list of 1,000 relations).
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', case when s.id is null then null else jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category) end)
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses) is 'A short issue reference (id, key, number, title, status) from the issue and its status row (null when not found), embedded in relations and linked issues.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.issue_ref_json(i, (select s from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'issue_ref_json of one issue, its status looked up; lists join the status and call the two-argument form.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues) to svc_visitor;

create or replace function app_hidden.status_json(s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(s app_public.statuses) is 'Status (spec 2.3).';
grant execute on function app_hidden.status_json(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.watcher_json(w app_public.issue_watchers)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(w app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';
grant execute on function app_hidden.watcher_json(w app_public.issue_watchers) to svc_visitor;
--! EndIncluded issues/shapes.sql
--! Included relations/relations.sql
-- relations: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid)
 returns text
 language sql
 immutable
as $$
  select case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end
$$;
comment on function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid) is 'The kind of a stored relation as seen from one of its issues: the blocked issue sees BLOCKS as BLOCKED_BY.';
grant execute on function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid,
                                                     o app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- One expression, no subquery: inlined into issue_relations_json, so 1,000 relations are one plan, not 1,000.
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', app_hidden.relation_kind_seen(r, p_pov),
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', app_hidden.issue_ref_json(o, s),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid, o app_public.issues, s app_public.statuses) is 'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end (o, with its status s).';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid, o app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.relation_view(r, p_pov, o, (select s from app_public.statuses s where s.id = o.status_id))
  from app_public.issues o
  where o.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) is 'relation_view of one relation, its other issue looked up (relations.add answers with it).';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text default null)
 returns jsonb
 language sql
 stable
as $$
  -- Read as the caller: a link whose other end the key cannot see (narrowing) or that is deleted is left out, ids
  -- included.
  select coalesce(jsonb_agg(app_hidden.relation_view(r, p_issue.id, o, s) order by r.created_at, r.id), '[]')
  from app_public.issue_relations r
  join app_public.issues o
    on o.id = case when r.from_issue_id = p_issue.id then r.to_issue_id else r.from_issue_id end
   and o.deleted_at is null
  left join app_public.statuses s on s.id = o.status_id
  where r.workspace_id = p_issue.workspace_id
    and (r.from_issue_id = p_issue.id or r.to_issue_id = p_issue.id)
    and (p_kind is null or app_hidden.relation_kind_seen(r, p_issue.id) = p_kind)
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
--! Included relations/tools/list.sql
-- The relations.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the workspace's relations as stored (one row per fact: BLOCKS, DUPLICATES, RELATES_TO), oldest first,
-- keyset-paged; only links whose both issues are live and visible to the key (RLS: narrowing). kind filters
-- the stored kind; issueId keeps the links of one issue (either end; 404 when the key cannot see it).
create or replace function app_tools.relations_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'relations');
begin
  return app_hidden.page_json(array(
    select (jsonb_build_object(
              'id', r.id, 'kind', r.kind, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
              'fromIssue', app_hidden.issue_ref_json(f, fs), 'toIssue', app_hidden.issue_ref_json(t, ts),
              'createdAt', r.created_at),
            app_hidden.ts_key(r.created_at), r.id)::app_hidden.page_row
    from app_public.issue_relations r
    -- Joined as the caller: both ends must pass the issues' policies (narrowing) and be live.
    join app_public.issues f on f.id = r.from_issue_id and f.deleted_at is null
    join app_public.issues t on t.id = r.to_issue_id and t.deleted_at is null
    left join app_public.statuses fs on fs.id = f.status_id
    left join app_public.statuses ts on ts.id = t.status_id
    where r.workspace_id = app_hidden.current_workspace_id()
      and (args->>'kind' is null or r.kind = args->>'kind')
      and (v_issue is null or r.from_issue_id = v_issue or r.to_issue_id = v_issue)
      and (v_after.sort_id is null or (r.created_at, r.id) > (v_after.sort_key, v_after.sort_id))
    order by r.created_at, r.id limit v_limit + 1), v_limit, 'relations');
end
$$;
grant execute on function app_tools.relations_list(args jsonb) to svc_visitor;
comment on function app_tools.relations_list(args jsonb) is 'relations.list: Relations of the workspace as stored (fromIssue BLOCKS, DUPLICATES or RELATES_TO toIssue; BLOCKED_BY is stored reversed), oldest first, paged. Only links between issues this key can see. Filters: kind, issueId (either end).';
--! EndIncluded relations/tools/list.sql
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
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50), agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql
