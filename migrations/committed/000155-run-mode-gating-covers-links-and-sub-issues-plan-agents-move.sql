--! Previous: sha1:c677588235c9749fb268232c929107ca92febc7d
--! Hash: sha1:350eb7c72373d93f17c6f9656d334e9ef06aba98
--! Message: Run-mode gating covers links and sub-issues; plan agents move only their own steps; re-claims never shorten; verdicts on REVIEW runs only

--! split: 1-current.sql
-- From an outside probe of the state machines (spec 3):
-- * run-mode gating covers relations.add/remove (on both issues) and a sub-issue's parent (issues.create with
--   parentId, issues.update moving parentId: the parent left and the parent joined);
-- * an agent working in a plan moves only its own steps (as worker or judge), or any as the planner (403 own_plan);
-- * re-claiming one's live claim never shortens it, and extending writes ISSUE_UPDATED (changes claimExpiresAt);
-- * runs.complete takes a verdict on REVIEW runs only (400 verdict on EXECUTE and RESEARCH).
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

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId; one that already exists comes back with created false. No self-links, and no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists or relation_cycle).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
--! Included relations/tools/remove.sql
-- The relations.remove tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a relation whose both issues the key can see (else 404); ISSUE_UPDATED on both issues by trigger.
-- Run-mode gated on both issues.
create or replace function app_tools.relations_remove(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_rel app_public.issue_relations;
begin
  delete from app_public.issue_relations
  where id = app_hidden.parse_uuid(args->>'id', 'id') and workspace_id = app_hidden.current_workspace_id()
    -- A link to a deleted issue is not listed (listForIssue), so it is not found here either.
    and not exists (select 1 from app_public.issues i
                    where i.id in (issue_relations.from_issue_id, issue_relations.to_issue_id) and i.deleted_at is not null)
  returning * into v_rel;
  if v_rel.id is null then
    raise exception 'Relation not found' using errcode = 'SV404', column = 'id';
  end if;
  -- Run-mode gated on both issues, as relations.add (the refusal rolls the delete back).
  perform app_hidden.assert_run_mode_allows_mutation(v_rel.from_issue_id);
  perform app_hidden.assert_run_mode_allows_mutation(v_rel.to_issue_id);
  return jsonb_build_object('id', v_rel.id, 'removed', true, 'kind', v_rel.kind,
                            'fromIssueId', v_rel.from_issue_id, 'toIssueId', v_rel.to_issue_id);
end
$$;
comment on function app_tools.relations_remove(args jsonb) is 'relations.remove: Remove a relation by its id (from relations.listForIssue).';
grant execute on function app_tools.relations_remove(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/remove.sql
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  -- Any open gated run of the agent on the issue gates it (spec 3.2), also when a newer EXECUTE run is open beside
  -- it (a plan step's run on the goal's issue): otherwise an agent told only to research could give itself a step
  -- and change the issue through that.
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    -- A STALLED run is still the issue's open run (the agent may resume it): an agent that went quiet is not let off.
    and r.status in ('ACTIVE', 'WAITING', 'STALLED')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has any open (ACTIVE, WAITING or STALLED) run on the issue in RESEARCH, REVIEW or DISCUSS mode, whatever other runs it has open there. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = p_agent_id
    and status in ('ACTIVE', 'WAITING', 'STALLED');
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) is 'An agent''s open runs on an issue end (ABANDONED; AGENT_RUN_STATUS_CHANGED with p_reason by trigger): the issue was handed to another agent (reassigned) or taken from it (unassigned).';
grant execute on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The agent may be being archived right now (issues.assign, reassign and the dispatcher read it unlocked).
  perform app_hidden.lock_live_agent(p_agent.id);
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    perform app_hidden.end_agent_runs_on_issue(p_issue, v_from, 'reassigned');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run (AGENT_RUN_STATUS_CHANGED by trigger, reason reassigned), swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.lock_issues_in_order(p_items jsonb, p_field text)
 returns void
 language sql
as $$
  -- Bulk calls lock their issues in one order (by id) before the first item: two calls naming the same issues in
  -- different orders each locked one and waited for the other's (a deadlock, 1 s, then 409 after the retries).
  -- Refs that name no live visible issue lock nothing here; their item answers 404 as before.
  with refs as (
    select e->>p_field as ref, e->>p_field ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' as is_id
    from jsonb_array_elements(p_items) e)
  select 1 from app_public.issues i
  where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
    and (i.id = any (array(select ref::uuid from refs where is_id))
         or i.key = any (array(select upper(ref) from refs where not is_id)))
  order by i.id
  for update of i
$$;
comment on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) is 'Locks (FOR UPDATE, by id) the live visible issues a bulk call''s items name in p_field (id or key), before the items run: concurrent bulk calls over the same issues wait for each other instead of deadlocking.';
grant execute on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    -- Still live once locked: a concurrent delete may have got there first (then 404, as by id).
    select * into v_issue from app_public.issues where id = v_issue.id and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  -- A chain the walk could not finish (1,000 levels) counts as one: refusing is safe, assuming no cycle is not.
  select exists (select 1 from up where id = p_ancestor_id or (depth = 1000 and id is not null))
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only), or when that chain is deeper than 1,000 (not walked further). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean. Callers hold app_hidden.lock_issue_parents.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.lock_issue_parents()
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.parents:' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_issue_parents() is 'Serializes parent changes of the caller''s workspace for the transaction, so two concurrent ones cannot close a cycle between them (each checks a chain the other is changing). Take it before any issue row lock: issues.update, updateMany and restore take it first when they may set a parent.';
grant execute on function app_hidden.lock_issue_parents() to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.label_id_list(p_json jsonb)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- A label listed twice is the label once, where it was first listed (it was a 409 on create). plpgsql: a SQL
  -- function with a sublink is not inlined and would be planned again in every create and update.
  return array(select u.id from unnest(app_hidden.uuid_array(p_json, 'labelIds')) with ordinality u(id, n)
               group by u.id order by min(u.n));
end
$$;
comment on function app_hidden.label_id_list(p_json jsonb) is 'The labelIds of an issues.create or issues.update input as uuid[] (400 on labelIds for a malformed one), each label once, in the order first given.';
grant execute on function app_hidden.label_id_list(p_json jsonb) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_cycle app_public.cycles;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is not null then
      -- Held already when the tool took it before the issue's row lock (as it should); taken here otherwise.
      perform app_hidden.lock_issue_parents();
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle), or its chain of parents is over 1,000 deep');
      end if;
    end if;
    if v_parent.id is distinct from v.parent_id then
      -- A sub-issue that moves changes the tree of the parent it leaves and of the one it joins: run-mode gated on both.
      if v.parent_id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v.parent_id);
      end if;
      if v_parent.id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
      end if;
    end if;
    v.parent_id := v_parent.id;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.* into v_cycle from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v_cycle.id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
      -- As cycles.addIssue: only into a PLANNED or ACTIVE cycle (staying in the same cycle changes nothing).
      if v_cycle.id is distinct from p_issue.cycle_id then
        perform app_hidden.require_open_cycle(v_cycle);
      end if;
      v.cycle_id := v_cycle.id;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.label_id_list(args->'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;

-- issues.create's checks, apart from the insert: issues.createMany runs them for every item before any item
-- takes a number.
create or replace function app_hidden.issue_create_refs(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.label_id_list(args->'labelIds');
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
    -- A new sub-issue changes its parent's tree: not by an agent whose run there only researches, reviews or discusses.
    perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
  end if;

  if cardinality(v_label_ids) > 0
     and (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- A narrowed key creates only inside its narrowing (spec 5.6, as issue_passes_narrowing for the new row):
  -- checked here, before the insert takes a number, rather than left to the insert policy.
  if not app_hidden.issues_unrestricted()
     and not (coalesce(v_project_id = any(app_hidden.narrowed_project_ids()), false)
              or v_label_ids && app_hidden.narrowed_label_ids()) then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;

  return jsonb_build_object('statusId', v_status_id, 'projectId', v_project_id, 'parentId', v_parent.id);
end
$$;
comment on function app_hidden.issue_create_refs(args jsonb) is 'issues.create''s checks without the insert: the status (default unless statusId), project, parent and labels, resolved as {statusId, projectId, parentId}; 404 naming the field otherwise; 403 narrowing when a narrowed key would create outside its narrowing.';
grant execute on function app_hidden.issue_create_refs(args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
--! Included executionPlans/tools/transitionStep.sql
-- The executionPlans.transitionStep tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a step of a RUNNING plan: DONE cascades readiness (and completes the plan), REVIEW dispatches the judge when the plan auto-judges, BLOCKED opens a gate.
create or replace function app_tools.execution_plans_transition_step(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_to text := args->>'status';
  v_ready uuid[] := '{}';
  v_judge uuid;
  v_gate app_public.review_gates;
  v_held app_public.review_gates;
  v_source_run uuid := app_hidden.parse_uuid(args->>'sourceRunId', 'sourceRunId');
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; its steps move only while it runs', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A pending gate holds the step: a person decides it (reviewGates.resolve); only canceling the step (which
  -- cancels the gate) goes around it.
  if v_to <> 'CANCELED' and exists (select 1 from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING') then
    raise exception 'A review gate holds this step: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
  end if;
  -- A step in REVIEW waits for its verdict, and a plan that judges its steps judges every one: no agent but its judge
  -- passes it (DONE); its worker moves it to REVIEW. The worker passing its own work (REVIEW → READY → DONE went around
  -- the review) or a fellow worker's is 403; a person still may. Nor does a worker cancel its own step.
  if app_hidden.current_agent_id() is not null and app_hidden.current_agent_id() is distinct from v_step.judge_agent_id then
    if v_to = 'DONE' and (v_step.status = 'REVIEW' or app_hidden.plan_auto_judges(v_plan)) then
      perform app_hidden.step_refuse_non_judge(v_step);
    end if;
    -- An agent working in the plan moves its own steps (as worker or judge), or any as its planner: a fellow worker
    -- blocked another's step (a gate only a person could clear) or took it to RUNNING under it. An agent outside the
    -- plan may, as a person may.
    if app_hidden.current_agent_id() is distinct from v_step.assigned_agent_id
       and app_hidden.current_agent_id() is distinct from v_plan.planner_agent_id
       and app_hidden.caller_works_in_plan(v_plan.id) then
      raise exception 'An agent working in this plan moves only its own steps: the step''s worker, its judge, the planner or a person moves this one'
        using errcode = 'SV403', detail = 'own_plan';
    end if;
  end if;
  if v_to = 'CANCELED' then
    perform app_hidden.plan_assert_may_end(v_plan, v_step);
  end if;
  if v_source_run is not null then
    -- The run the move comes from: one of this step's runs.
    if not exists (select 1 from app_public.agent_runs r where r.id = v_source_run and r.step_id = v_step.id) then
      raise exception 'Run not found among this step''s runs' using errcode = 'SV404', column = 'sourceRunId';
    end if;
    update app_public.execution_steps set source_run_id = v_source_run
    where id = v_step.id returning * into v_step;
  end if;
  if v_to = 'READY' then
    if v_step.status = 'READY' then
      perform app_hidden.assert_move('step', 'Step', v_step.status, v_to);
    end if;
    v_step := app_hidden.step_make_ready(v_step);
  elsif v_to = 'BLOCKED' then
    v_gate := app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" is blocked', v_step.title),
                                    jsonb_build_object('note', args->>'note'));
  else
    v_step := app_hidden.step_move(v_step, v_to);
    if v_to = 'REVIEW' and app_hidden.plan_auto_judges(v_plan) then
      v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position);
      if v_judge is not null then
        perform app_hidden.step_dispatch_judge(v_step, v_judge);
      end if;
    elsif v_to in ('DONE', 'CANCELED') then
      if v_to = 'CANCELED' then
        for v_held in select * from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING' loop
          perform app_hidden.gate_move(v_held, 'CANCELED', 'the step was canceled');
        end loop;
      end if;
      v_ready := app_hidden.plan_cascade(v_plan.id);
    end if;
  end if;
  select * into v_step from app_public.execution_steps where id = v_step.id;
  select * into v_plan from app_public.execution_plans where id = v_plan.id;
  return jsonb_build_object('step', app_hidden.step_json(v_step), 'planStatus', v_plan.status,
    'goalStatus', (select g.status from app_public.goals g where g.id = v_plan.goal_id),
    'readyStepIds', to_jsonb(v_ready), 'judgeAgentId', v_judge, 'gateId', v_gate.id);
end
$$;
comment on function app_tools.execution_plans_transition_step(args jsonb) is 'executionPlans.transitionStep: Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew''s REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED (cancels its pending gate). A step a pending review gate holds moves only to CANCELED (409 gate_pending). sourceRunId must be one of the step''s runs (404). In a plan that judges its steps (or from REVIEW) no agent but the step''s judge moves it to DONE (403 own_step for its worker, not_judge for another agent; a person may); an agent working in the plan moves only its own steps, as worker or judge, or any as the planner (403 own_plan); a step is canceled by a person, the plan''s planner or an agent outside the plan (403 own_step for its worker, own_plan for another worker or judge), and one a pending gate holds only by one who may decide the gate (403 person_required / own_plan).';
grant execute on function app_tools.execution_plans_transition_step(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transitionStep.sql
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim (never shortens it); another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %',
      to_char(v_issue.claim_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  -- Claiming one's own live claim again extends it and never shortens it (release ends a claim early).
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = case when v_issue.claimed_by_id = v_user and v_issue.claim_expires_at > now()
                              then greatest(v_issue.claim_expires_at, now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240)))
                              else now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240)) end
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it (never shortens it; ISSUE_UPDATED changes claimExpiresAt); another user''s unexpired claim is 409 already_claimed.';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
--! Included issues/triggers.sql
-- Triggers of the issues tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if exists (select 1 from app_public.issues i where i.id = v_row.issue_id and i.created_at = now()) then
    return null;  -- labels set while the issue is created belong to its ISSUE_CREATED
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue (not in the transaction that creates it).';

create or replace function app_private.tg_issue_labels__label_ids()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_issue_ids uuid[] := array(select distinct c.issue_id from changed c);
begin
  -- Lock the issues first, read their labels after (a new statement, so a new snapshot): a transaction
  -- changing the same issue's labels at the same time has committed by then, and neither loses the other's.
  perform from app_public.issues i where i.id = any(v_issue_ids) order by i.id for no key update;
  update app_public.issues i
  set label_ids = coalesce((select array_agg(il.label_id order by il.created_at, il.label_id)
                            from app_public.issue_labels il where il.issue_id = i.id), '{}')
  where i.id = any(v_issue_ids);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__label_ids() is 'AFTER INSERT/DELETE statement on issue_labels (transition table `changed`): copies each changed issue''s label ids, oldest first, into issues.label_ids, which the issue shapes read.';

create or replace function app_private.issue_number_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
as $$ select 'app_private.issue_numbers_' || pg_catalog.replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.issue_number_sequence(p_workspace_id uuid) is 'The qualified name of a workspace''s issue number sequence (created with the workspace). No SET clause, so it is inlined.';

create or replace function app_private.tg_issues__assign_number()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sequence, not a counter row: a row would stay locked until commit (its WAL flush included), so the
  -- creates of one workspace would queue one behind the other. The price: a create that fails after this
  -- point leaves a gap in the numbers (docs/decisions.md).
  new.number := nextval(app_private.issue_number_sequence(new.workspace_id)::regclass);
  new.key := (select w.key from app_public.workspaces w where w.id = new.workspace_id) || '-' || new.number;
  return new;
end
$$;
comment on function app_private.tg_issues__assign_number() is 'BEFORE INSERT on issues: the next number of the workspace''s sequence and the key <WS>-<n>.';

create or replace function app_private.tg_issues__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
  v_before jsonb := '{}';
  v_event uuid;
begin
  if tg_op = 'INSERT' then
    v_event := app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    -- A plugin's key acts for no one: the issue is the first member's (_210_plugin_creator, spec 4.2), and so is
    -- the event's actor, as the issue row says.
    if app_hidden.current_user_id() is null and app_hidden.current_agent_id() is null and app_hidden.current_key_id() is not null then
      update app_public.activity_events set actor_user_id = new.created_by_user_id where id = v_event;
    end if;
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
    return null;
  end if;
  if new.deleted_at is null and old.deleted_at is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_RESTORED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key, 'deletedAt', old.deleted_at));
    return null;
  end if;
  if new.status_id is distinct from old.status_id then
    perform app_private.record_event(new.workspace_id, 'ISSUE_STATUS_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.status_id, 'to', new.status_id));
  end if;
  if new.priority is distinct from old.priority then
    perform app_private.record_event(new.workspace_id, 'ISSUE_PRIORITY_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.priority, 'to', new.priority));
  end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_ASSIGNED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'agentId', new.assigned_agent_id,
                         'from', old.assigned_agent_id, 'to', new.assigned_agent_id));
  end if;
  if new.queued and not old.queued then
    perform app_private.record_event(new.workspace_id, 'ISSUE_QUEUED', 'issue', new.id,
      jsonb_build_object('issueId', new.id));
  end if;
  if new.title is distinct from old.title then v_changed := array_append(v_changed, 'title'); end if;
  if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
  if new.project_id is distinct from old.project_id then v_changed := array_append(v_changed, 'projectId'); end if;
  if new.parent_id is distinct from old.parent_id then
    v_changed := array_append(v_changed, 'parentId');
    -- A sub-issue given a parent (or cleared) after its parent's deletion is not reattached by a restore.
    delete from app_private.issue_detachments d where d.child_id = new.id;
  end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := array_append(v_changed, 'cycleId'); end if;
  if new.due_date is distinct from old.due_date then v_changed := array_append(v_changed, 'dueDate'); end if;
  if new.estimate is distinct from old.estimate then v_changed := array_append(v_changed, 'estimate'); end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := array_append(v_changed, 'slaMinutes'); end if;
  if new.expected_output is distinct from old.expected_output then v_changed := array_append(v_changed, 'expectedOutput'); end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := array_append(v_changed, 'verificationChecklist'); end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := array_append(v_changed, 'artifactRequired'); end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById');
  elsif new.claim_expires_at is distinct from old.claim_expires_at then v_changed := array_append(v_changed, 'claimExpiresAt'); -- extended
  end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  -- Where the issue was before a move of project, labels or cycle (not while it is created): a key narrowed to that
  -- scope sees this one event of the issue leaving its view (event_subject_visible), so a live board drops the card;
  -- an MCP subscription to the cycle or project it left hears of it.
  if (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids
      or new.cycle_id is distinct from old.cycle_id)
     and new.created_at <> now() then
    if new.label_ids is distinct from old.label_ids then v_changed := array_append(v_changed, 'labelIds'); end if;
    v_before := jsonb_build_object('before', jsonb_build_object('projectId', old.project_id, 'labelIds', to_jsonb(old.label_ids),
                                                              'cycleId', old.cycle_id));
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed, v_before);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields, with before {projectId, labelIds, cycleId} when the project, labels or cycle moved. A change that changes nothing writes nothing.';

create or replace function app_private.tg_issues__detach_children()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_children uuid[];
begin
  -- Every live child, also those the deleting key cannot see (narrowing): a deleted issue is 404 everywhere,
  -- so nothing may keep pointing at it. Each child writes ISSUE_UPDATED (changes parentId) through _800_events,
  -- whose own bookkeeping runs at the end of this statement (it forgets older detachments of the child).
  with detached as (
    update app_public.issues c set parent_id = null
    where c.workspace_id = new.workspace_id and c.parent_id = new.id and c.deleted_at is null
    returning c.id)
  select array_agg(id) into v_children from detached;
  -- Remembered privately (never in an event: a key may see the child but not the parent), for issues.restore.
  insert into app_private.issue_detachments (workspace_id, parent_id, child_id)
  select new.workspace_id, new.id, child from unnest(v_children) child
  on conflict do nothing;
  return null;
end
$$;
comment on function app_private.tg_issues__detach_children() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: its live sub-issues (all of them, whatever the key''s narrowing) become top-level (parentId null), each with the ISSUE_UPDATED (changes parentId) an update of parentId writes, and app_private.issue_detachments remembers them for issues.restore.';

create or replace function app_private.tg_issues__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A deleted issue is 404 everywhere and its time leaves the lists and sums; a timer left running on it would
  -- still show it (time.running) and keep counting. It stops now, whoever's it is.
  perform app_private.stop_running_timers(new.workspace_id, new.id);
  return null;
end
$$;
comment on function app_private.tg_issues__stop_timers() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: every timer running on it stops (durationMin = elapsed minutes, as time.stop).';

create or replace function app_private.tg_issues__restore_links()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The restored issue may not point at a parent deleted meanwhile (a deleted issue is 404 everywhere).
  update app_public.issues i set parent_id = null
  where i.id = new.id and exists (select 1 from app_public.issues p where p.id = new.parent_id and p.deleted_at is not null);
  -- The sub-issues its deletion detached (app_private.issue_detachments) come back, all of them as the deletion
  -- took all of them, unless they moved since: deleted, or their parentId changed after the detachment (that
  -- forgot the detachment, tg_issues__events); and never into a cycle. Each writes ISSUE_UPDATED (changes
  -- parentId) through _800_events.
  update app_public.issues c set parent_id = new.id
  from app_private.issue_detachments d
  where d.parent_id = new.id and c.id = d.child_id and c.workspace_id = new.workspace_id
    and c.parent_id is null and c.deleted_at is null
    and not app_hidden.issue_has_ancestor(new.id, c.id);
  delete from app_private.issue_detachments d where d.parent_id = new.id;
  return null;
end
$$;
comment on function app_private.tg_issues__restore_links() is 'AFTER UPDATE OF deleted_at on issues, when a deleted issue is restored (issues.restore): a parent deleted meanwhile is cleared, and the sub-issues its deletion detached (app_private.issue_detachments) that are still live, top-level and untouched since are reattached, whatever the key''s narrowing (as the deletion detached them), never into a cycle; each with the ISSUE_UPDATED (changes parentId) an update of parentId writes.';

create or replace function app_private.tg_issues__plugin_creator()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.created_by_user_id is null and new.created_by_agent_id is null then
    new.created_by_user_id := (select m.user_id from app_public.memberships m
                               where m.workspace_id = new.workspace_id order by m.created_at, m.id limit 1);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__plugin_creator() is 'BEFORE INSERT on issues: an issue created by a key with neither user nor agent (a plugin key) is attributed to the first workspace member (spec 4.2).';

create or replace function app_private.tg_issues__status_timestamps()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_category text;
begin
  if tg_op = 'UPDATE' and new.status_id is not distinct from old.status_id then
    return new;
  end if;
  select s.category into v_category from app_public.statuses s where s.id = new.status_id;
  if v_category in ('IN_PROGRESS', 'IN_REVIEW', 'DONE') and new.started_at is null then
    new.started_at := now();
  end if;
  if v_category in ('DONE', 'CANCELED') then
    new.completed_at := coalesce(new.completed_at, now());
  else
    new.completed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__status_timestamps() is 'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt is set on DONE/CANCELED and cleared when the issue is reopened.';

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _150_status_timestamps on app_public.issues;
create trigger _150_status_timestamps before insert or update of status_id on app_public.issues for each row execute function app_private.tg_issues__status_timestamps();

drop trigger if exists _200_assign_number on app_public.issues;
create trigger _200_assign_number before insert on app_public.issues for each row execute function app_private.tg_issues__assign_number();

drop trigger if exists _210_plugin_creator on app_public.issues;
create trigger _210_plugin_creator before insert on app_public.issues for each row execute function app_private.tg_issues__plugin_creator();

drop trigger if exists _810_detach_children on app_public.issues;
create trigger _810_detach_children after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__detach_children();

drop trigger if exists _812_stop_timers on app_public.issues;
create trigger _812_stop_timers after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__stop_timers();

drop trigger if exists _811_restore_links on app_public.issues;
create trigger _811_restore_links after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is not null and new.deleted_at is null) execute function app_private.tg_issues__restore_links();

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
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
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict (which only a REVIEW run takes); DISCUSS takes a summary only. An EXECUTE completion marks the issue''s checklist items done (ISSUE_UPDATED). completionMeta keeps what was reported and the run contract version. Only a key linked to the run''s agent (403 otherwise).';
--! EndIncluded runs/tools/complete.sql
