--! Previous: sha1:701c91b3c19d078edb5db6e1e3ed29709e70ae67
--! Hash: sha1:ff74ee56a2c2e4a1f98d5b8fdec1ff835089ebe0
--! Message: An issue holds at most 500 links; comment and message counts beside capped lists

--! split: 1-current.sql
-- From the shapes probe: an issue holds at most 500 links (its link lists return them all at once; 409
-- too_many_relations), and issues.get include.comments and the context bundle say how many comments (and a thread's
-- messages) there are in all, so a reader knows when it got the newest only.
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
  -- fromIssueId kind toIssueId reads as a true sentence: a BLOCKS seen from the blocked issue is that issue
  -- BLOCKED_BY the other (the stored ends swapped with the kind; it read "B BLOCKED_BY A" of A BLOCKED_BY B), and a
  -- RELATES_TO (symmetric, stored once) starts at the issue it is seen from, as it was asked.
  select jsonb_build_object(
    'id', r.id,
    'fromIssueId', case when r.to_issue_id = p_pov and r.kind in ('BLOCKS', 'RELATES_TO') then r.to_issue_id else r.from_issue_id end,
    'toIssueId', case when r.to_issue_id = p_pov and r.kind in ('BLOCKS', 'RELATES_TO') then r.from_issue_id else r.to_issue_id end,
    'kind', app_hidden.relation_kind_seen(r, p_pov),
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', app_hidden.issue_ref_json(o, s),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid, o app_public.issues, s app_public.statuses) is 'A relation seen from one issue, as issues.get include.relations shows it: kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), fromIssueId kind toIssueId a true sentence (B BLOCKED_BY A), direction outbound/inbound (whether the stored link starts at this issue), issue = the other end (o, with its status s).';
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

create or replace function app_hidden.require_relation_room(p_issue app_public.issues, p_field text)
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Every link of the issue, seen or not by the caller (read as the owner, in the caller's workspace): the lists that
  -- show an issue's links (relations.listForIssue, issues.get include, the context bundle) return them all at once.
  if (select count(*) from app_public.issue_relations r
      where r.workspace_id = app_hidden.current_workspace_id() and (r.from_issue_id = p_issue.id or r.to_issue_id = p_issue.id)) >= 500 then
    raise exception '% already has 500 links, the most an issue may have: remove some, or group the issues under a parent', p_issue.key
      using errcode = 'SV409', detail = 'too_many_relations', column = p_field;
  end if;
end
$$;
comment on function app_hidden.require_relation_room(p_issue app_public.issues, p_field text) is 'relations.add: 409 too_many_relations (naming the field) when the issue already has 500 links, counted whoever may see them.';
grant execute on function app_hidden.require_relation_room(p_issue app_public.issues, p_field text) to svc_visitor;
--! EndIncluded relations/relations.sql
--! Included relations/tools/add.sql
-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409, as is one
-- closing a longer cycle of them. Run-mode gated on both issues.
create or replace function app_tools.relations_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  -- A link changes both issues (ISSUE_UPDATED, changes relations, on each): run-mode gated on either.
  perform app_hidden.assert_run_mode_allows_mutation(v_from.id);
  perform app_hidden.assert_run_mode_allows_mutation(v_to.id);
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;
  -- One decision at a time: two concurrent calls linking A→B and B→A would each see no reverse link and both
  -- insert. Directed kinds are serialized per workspace (a cycle can close through any pair), RELATES_TO per pair.
  if v_s_kind = 'RELATES_TO' then
    perform pg_advisory_xact_lock(hashtextextended('svc.relation:' || least(v_s_from, v_s_to)::text || greatest(v_s_from, v_s_to)::text, 0));
  else
    perform app_hidden.lock_directed_relations(v_s_kind);
  end if;

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and app_hidden.relation_path_exists(v_s_kind, v_s_to, v_s_from) then
    -- A longer cycle (A BLOCKS B BLOCKS C, then C BLOCKS A) would leave every issue on it waiting on itself.
    raise exception '% % % would close a cycle: a chain of % links already leads from % back to %',
      (select key from app_public.issues where id = v_s_from), v_s_kind, (select key from app_public.issues where id = v_s_to),
      v_s_kind, (select key from app_public.issues where id = v_s_to), (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'relation_cycle';
  end if;
  perform app_hidden.require_relation_room(v_from, 'fromIssueId');
  perform app_hidden.require_relation_room(v_to, 'toIssueId');

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId; one that already exists comes back with created false. No self-links, no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists or relation_cycle), and at most 500 links per issue (409 too_many_relations).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
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
       left join app_public.agents a on a.id = (t.c).authoring_agent_id), '[]'),
      -- So a reader knows when the newest `limit` are not all of them.
      'commentCount', (select count(*) from app_public.comments c
                       where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null));
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
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds description, labels, comments (newest first; true = 20, or {limit} up to 100; commentCount says how many there are in all), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/get.sql
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
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first) and commentCount (all there are), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50) and messageCount, agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql
