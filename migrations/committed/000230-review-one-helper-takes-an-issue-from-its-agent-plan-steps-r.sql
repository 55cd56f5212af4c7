--! Previous: sha1:e82ed006f639f38c9bf0a6ec21e07f3ab0874868
--! Hash: sha1:2eabfedaae89036abc7f2e7d4717e7d3674c5807
--! Message: Review: one helper takes an issue from its agent; plan steps read the goal's issue once

--! split: 1-current.sql
-- Review: issues.unassign and an issue moved out of its agent's view take it from the agent through one helper
-- (app_hidden.unassign_issue_agent, beside assign_issue_agent); plan steps read the goal's issue once per batch and
-- keep the agent row they found, where each assigned step looked both up again. Behaviour unchanged.
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
    -- Named: the issue gated may not be the one the call named (a link, a parent, a shared external resource).
    raise exception 'Your % run on % may not change it: comment, upsert a status, set the run waiting or complete it instead',
      v_mode, (select i.key from app_public.issues i where i.id = p_issue_id)
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

create or replace function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text)
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.end_agent_runs_on_issue(p_issue, p_issue.assigned_agent_id, p_reason);
  update app_public.issues set assigned_agent_id = null where id = p_issue.id;  -- ISSUE_UPDATED by trigger
end
$$;
comment on function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text) is 'Takes an issue from its agent: the agent''s open runs on it end (ABANDONED, reason p_reason: unassigned, out_of_view) and assignedAgentId is cleared (ISSUE_UPDATED by trigger; a queued issue goes back to the dispatcher). issues.unassign and an issue moved out of its agent''s view.';
grant execute on function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text) to svc_visitor;

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
--! Included issues/tools/unassign.sql
-- The issues.unassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes the issue from its agent: the agent's open runs on it end (ABANDONED, reason unassigned) and assignedAgentId
-- is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue is back in the dispatcher's pool. Not assigned:
-- no change. Run-mode gated, as assignment is.
create or replace function app_tools.issues_unassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.assigned_agent_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  perform app_hidden.unassign_issue_agent(v_issue, 'unassigned');
  if app_hidden.current_agent_id() = v_issue.assigned_agent_id then
    -- The agent gives the issue back: the dispatcher handed it straight back to it, 17 times in 10 s (fleet probe).
    -- Its latest run says so, ended here or completed before (runs.complete, then issues.unassign).
    update app_public.agent_runs r set completion_meta = coalesce(r.completion_meta, '{}') || jsonb_build_object('returnedAt', now())
    where r.id = (select l.id from app_public.agent_runs l
                  where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id and l.agent_id = v_issue.assigned_agent_id
                  order by l.started_at desc, l.id desc limit 1);
  end if;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
grant execute on function app_tools.issues_unassign(args jsonb) to svc_visitor;
comment on function app_tools.issues_unassign(args jsonb) is 'issues.unassign: Take an issue from its agent: the agent''s open runs on it end (ABANDONED, reason unassigned; AGENT_RUN_STATUS_CHANGED) and assignedAgentId is cleared (ISSUE_UPDATED, changes assignedAgentId); a queued issue goes back to the dispatcher. An agent that unassigns itself gives it back: while queued, the dispatcher does not hand it to that agent again. Not assigned: unchanged. Returns the full issue.';
--! EndIncluded issues/tools/unassign.sql
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
  -- Whom the issue was taken from (issues.unassign, an archived agent's issues): the agent's timeline shows it.
  if new.assigned_agent_id is null and old.assigned_agent_id is not null then
    v_before := coalesce(v_before, '{}') || jsonb_build_object('unassignedAgentId', old.assigned_agent_id);
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed, v_before);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields, with before {projectId, labelIds, cycleId} when the project, labels or cycle moved and unassignedAgentId when the issue was taken from its agent. A change that changes nothing writes nothing.';

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

create or replace function app_private.tg_issues__queued_at()
 returns trigger
 language plpgsql
as $$
begin
  -- Since when the issue waits in the dispatch pool: the dispatcher hands out the longest waiting first (an old
  -- issue queued late went before those queued long before it), as the SLA clock counts from ISSUE_QUEUED.
  new.queued_at := case when not new.queued then null
                        when tg_op = 'INSERT' or not old.queued then now()
                        else old.queued_at end;
  return new;
end
$$;
comment on function app_private.tg_issues__queued_at() is 'BEFORE INSERT/UPDATE OF queued on issues: queuedAt is when queued last became true (null when not queued).';

drop trigger if exists _160_queued_at on app_public.issues;
create trigger _160_queued_at before insert or update of queued on app_public.issues for each row execute function app_private.tg_issues__queued_at();

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

create or replace function app_private.tg_issues__run_mode_gate()
 returns trigger
 language plpgsql
as $$
begin
  -- Run-mode gating at the row, whatever wrote it: tools check the issue they name, but a workspace-wide write (a
  -- status deleted with its issues moved, labels merged or deleted, a parent deleted or restored) changed an issue
  -- an agent only researched, reviewed or discussed. The fields are those that write an event.
  if app_hidden.current_agent_id() is not null
     and (new.status_id, new.priority, new.title, new.description, new.project_id, new.parent_id, new.cycle_id, new.label_ids,
          new.assigned_agent_id, new.queued, new.claimed_by_id, new.deleted_at, new.due_date, new.estimate, new.sla_minutes,
          new.expected_output, new.verification_checklist, new.artifact_required)
     is distinct from
         (old.status_id, old.priority, old.title, old.description, old.project_id, old.parent_id, old.cycle_id, old.label_ids,
          old.assigned_agent_id, old.queued, old.claimed_by_id, old.deleted_at, old.due_date, old.estimate, old.sla_minutes,
          old.expected_output, old.verification_checklist, old.artifact_required) then
    perform app_hidden.assert_run_mode_allows_mutation(new.id);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__run_mode_gate() is 'BEFORE UPDATE on issues: 403 run_mode_gated when the calling agent has an open RESEARCH/REVIEW/DISCUSS run on the issue and the update changes a field that writes an event, whatever tool or trigger made it (statuses.delete moving issues, labels merged or deleted, a parent deleted or restored, cycles deleted or rolled over).';

create or replace function app_private.tg_issues__live_parent()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'UPDATE' and new.parent_id is not distinct from old.parent_id then
    return new;
  end if;
  -- The tools checked the parent live, but a delete committing meanwhile detached the children it saw, not this
  -- one. Held in share mode until commit: a delete of the parent waits for this write (then detaches the child
  -- too), or this write waits for the delete and finds the parent gone.
  perform from app_public.issues p where p.id = new.parent_id and p.deleted_at is null for share;
  if not found then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'parentId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__live_parent() is 'BEFORE INSERT or UPDATE OF parent_id on issues, with a parent: locks the parent (share) and 404 on parentId when it is deleted, so no live sub-issue points at a deleted issue whatever commits first.';

drop trigger if exists _060_live_parent on app_public.issues;
create trigger _060_live_parent before insert or update of parent_id on app_public.issues for each row
  when (new.parent_id is not null) execute function app_private.tg_issues__live_parent();

drop trigger if exists _050_run_mode_gate on app_public.issues;
create trigger _050_run_mode_gate before update on app_public.issues for each row execute function app_private.tg_issues__run_mode_gate();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at('search', 'priority_rank');

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

create or replace function app_private.tg_issues__out_of_agent_view()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Moved to a project (or off a label) none of its agent's keys can read: the agent could neither read nor work it
  -- and held a slot for it (re-test of the fleet probe's fix). It is taken from the agent as issues.unassign does
  -- (its runs end, reason out_of_view, which its dispatch channel hears); a queued issue goes back to the dispatcher.
  if not app_hidden.agent_sees_issue(new.assigned_agent_id, new) then
    perform app_hidden.unassign_issue_agent(new, 'out_of_view');
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__out_of_agent_view() is 'AFTER UPDATE of project_id or label_ids of an assigned live issue: when none of the assigned agent''s keys can see it any more, the agent''s runs on it end (ABANDONED, reason out_of_view) and it is unassigned (ISSUE_UPDATED assignedAgentId); a queued one goes back to the dispatcher.';

drop trigger if exists _820_out_of_agent_view on app_public.issues;
create trigger _820_out_of_agent_view after update of project_id, label_ids on app_public.issues for each row
  when (new.assigned_agent_id is not null and new.deleted_at is null
        and (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids))
  execute function app_private.tg_issues__out_of_agent_view();
--! EndIncluded issues/triggers.sql
--! Included orchestration/loop.sql
-- orchestration: the loop. Finding and locking records, making steps READY (run + dispatch), judging,
-- cascading readiness, completing plans and goals, opening gates. Called by the goals/plans/executionPlans/
-- reviewGates tools and by accepting a plan's approval request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_goal(p_id text, p_field text default 'id'::text)
 returns app_public.goals
 language plpgsql
 stable
as $$
declare v app_public.goals;
begin
  select * into v from app_public.goals
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Goal not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_goal(p_id text, p_field text) is 'A goal the key can see (a goal tied to an issue follows that issue''s narrowing), else 404 naming the field.';
grant execute on function app_hidden.find_goal(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_plan(p_id text, p_field text default 'id'::text)
 returns app_public.execution_plans
 language plpgsql
 stable
as $$
declare v app_public.execution_plans;
begin
  select * into v from app_public.execution_plans
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Plan not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plan(p_id text, p_field text) is 'An execution plan the key can see (through its goal), else 404 naming the field.';
grant execute on function app_hidden.find_plan(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_step(p_id text, p_field text default 'stepId'::text)
 returns app_public.execution_steps
 language plpgsql
 stable
as $$
declare v app_public.execution_steps;
begin
  select * into v from app_public.execution_steps
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  -- Its plan too: the steps policy asks an unnarrowed key nothing per row, and the plan of a goal tied to a deleted
  -- issue is not there (plans policy), so neither is its step.
  if v.id is null or not exists (select 1 from app_public.execution_plans p where p.id = v.plan_id) then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see, of a plan it can see (through its goal: none of a goal tied to a deleted issue), else 404 naming the field.';
grant execute on function app_hidden.find_step(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.lock_plan(p_plan_id uuid)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  -- Lock order everywhere: goal, then plan. Steps are only changed with their plan locked.
  perform 1 from app_public.goals g where g.id = (select p.goal_id from app_public.execution_plans p where p.id = p_plan_id) for update;
  select * into v from app_public.execution_plans where id = p_plan_id for update;
  return v;
end
$$;
comment on function app_hidden.lock_plan(p_plan_id uuid) is 'Locks a plan''s goal and then the plan (FOR UPDATE) and returns the fresh plan: loop mutations of one goal serialize here.';
grant execute on function app_hidden.lock_plan(p_plan_id uuid) to svc_visitor;

drop function if exists app_hidden.crew_agent_for_role(uuid, text, integer);
create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0, p_issue_id uuid default null)
 returns uuid
 language sql
 stable
as $$
  -- The member with the least open work (runs on issues, and plan steps given to it, which have a run only when their
  -- goal has an issue), then the next from p_seed round the members: two root steps at positions 0 and 2 went to the
  -- first of two workers by position alone while the other sat idle. Only members that can see the goal's issue
  -- (p_issue_id): the work and its run are there.
  with members as (
    select m.agent_id, a.workspace_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role
      and (p_issue_id is null
           or app_hidden.agent_sees_issue(m.agent_id, (select i from app_public.issues i where i.id = p_issue_id))))
  select m.agent_id from members m
  order by (select count(*) from app_public.agent_runs r
            where r.workspace_id = m.workspace_id and r.agent_id = m.agent_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
              and r.step_id is null)
           + (select count(*) from app_public.execution_steps st
              where st.workspace_id = m.workspace_id and st.assigned_agent_id = m.agent_id and st.status in ('READY', 'RUNNING', 'REVIEW')),
           (m.i - coalesce(p_seed, 0) % m.n + m.n) % m.n
  limit 1
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer, p_issue_id uuid) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...) that can see the goal''s issue p_issue_id (if any; agent_sees_issue): the one with the least open work (open runs not of a step, and READY, RUNNING or REVIEW steps given to it), ties spread over the members from p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer, p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
begin
  return app_hidden.step_dispatch_work(app_hidden.step_move(p_step, 'READY'));
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE) and is given to its worker (step_dispatch_work).';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_work(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps := p_step;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  -- An agent archived since it was given the step is passed over (it can no longer act): the step goes to a live
  -- crew member in its role, else it is READY with no worker and no run.
  v_agent := coalesce((select a.id from app_public.agents a where a.id = p_step.assigned_agent_id and a.archived_at is null),
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position, v_goal.issue_id));
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step, whose title is the
  -- run's currentStep (what the board and agents.workload show it working on). A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    -- Read, not locked: the run's own tools lock it and then this plan (budget trigger), so locking it under the
    -- plan's lock could deadlock; a retry's step has the same title.
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id, current_step)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id, v_step.title)
      returning id into v_run;
    end if;
  end if;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'work', 'planId', v_plan.id, 'goalId', v_goal.id, 'stepId', v_step.id, 'title', v_step.title,
    'body', v_step.body, 'expectedOutput', v_step.expected_output, 'verification', v_step.verification,
    'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id), 'assignedAgentId', v_agent,
    'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count, 'runId', v_run, 'issueId', v_goal.issue_id));
  perform app_hidden.dispatch_to_agent(v_event, v_agent);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) is 'Gives a READY step to its worker: its agent (assigned and not archived, else the crew member in its role, default WORKER; none: no worker) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid)
 returns void
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  -- The steps an archived agent was working on (READY or RUNNING, in a running plan) go to a live crew member in
  -- their role, as a step becoming READY does; a RUNNING one is READY again (its run ended with the archive), so the
  -- new worker starts it. They stayed READY with the archived agent, which nothing would ever move.
  for v_step in
    select s.* from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
    where s.workspace_id = p_workspace_id and s.assigned_agent_id = p_agent_id and s.status in ('READY', 'RUNNING')
      and p.status = 'RUNNING'
    order by p.id, s.position, s.id
    for update of s
  loop
    if v_step.status = 'RUNNING' then
      perform app_hidden.step_make_ready(v_step);
    else
      perform app_hidden.step_dispatch_work(v_step);
    end if;
  end loop;
end
$$;
comment on function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid) is 'On archiving an agent: its READY and RUNNING steps of running plans go to a live crew member in their role (READY, EXECUTION_STEP_READY dispatched), or stay READY with no worker when the crew has none.';

create or replace function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_step app_public.execution_steps;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  update app_public.execution_steps set judge_agent_id = p_judge where id = p_step.id returning * into v_step;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'judge', 'judgeAgentId', p_judge, 'planId', v_plan.id, 'goalId', v_plan.goal_id, 'stepId', v_step.id,
    'title', v_step.title, 'body', v_step.body, 'expectedOutput', v_step.expected_output,
    'verification', v_step.verification, 'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id),
    'assignedAgentId', v_step.assigned_agent_id, 'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count,
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0 to 100 (optional)}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

create or replace function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  -- SKIP LOCKED: a run being reported on right now (its tool locked it, and its budget trigger then waits for this
  -- plan's lock) is left to its agent rather than deadlocking; the stale sweep catches it if nobody closes it.
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.id in (select o.id from app_public.agent_runs o
                 where o.workspace_id = p_plan.workspace_id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
                   and o.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id)
                 for update skip locked);
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) is 'Ends the open runs of a plan attempt''s steps (ABANDONED, reason plan_canceled or plan_completed), when the attempt is canceled or completes.';
grant execute on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_cascade(p_plan_id uuid)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_ready uuid[] := '{}';
begin
  select * into v_plan from app_public.execution_plans where id = p_plan_id;
  if v_plan.status <> 'RUNNING' then
    return v_ready;
  end if;
  for v_step in
    select s.* from app_public.execution_steps s
    where s.plan_id = p_plan_id and s.status = 'TODO' and app_hidden.step_dependencies_done(s)
    order by s.position
  loop
    perform app_hidden.step_make_ready(v_step);
    v_ready := v_ready || v_step.id;
  end loop;
  -- Every step DONE (canceled ones skipped, at least one DONE): the plan completes and its goal is achieved.
  if exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status = 'DONE')
     and not exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status not in ('DONE', 'CANCELED')) then
    v_plan := app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(p_plan_id);
    -- Step runs their agents left open would otherwise stay ACTIVE on a finished plan, and stall.
    perform app_hidden.plan_end_step_runs(v_plan, 'plan_completed');
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED (open step runs end, reason plan_completed) and its goal ACHIEVED. Returns the ids made READY.';
grant execute on function app_hidden.plan_cascade(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_resume(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  perform app_hidden.plan_move(p_plan, 'RUNNING');
  -- Steps READY when the plan was blocked are given to their workers again: their moves were refused meanwhile
  -- (409 plan_not_running), and nothing told them the plan runs again (a READY step sat with nobody on it, fleet probe).
  for v_step in
    select s.* from app_public.execution_steps s where s.plan_id = p_plan.id and s.status = 'READY' order by s.position
  loop
    perform app_hidden.step_dispatch_work(v_step);
  end loop;
  return app_hidden.plan_cascade(p_plan.id);
end
$$;
comment on function app_hidden.plan_resume(p_plan app_public.execution_plans) is 'A BLOCKED plan runs again (reviewGates.resolve, executionPlans.transition RUNNING): RUNNING (EXECUTION_PLAN_STATUS_CHANGED), its READY steps are dispatched to their workers again (EXECUTION_STEP_READY), and the readiness cascade runs. Returns the ids the cascade made READY.';
grant execute on function app_hidden.plan_resume(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_activate(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_plan.id);
  v_goal app_public.goals;
begin
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  -- Spec 3.8: only DRAFT or APPROVED. A BLOCKED plan runs again through its gate (reviewGates.resolve) or
  -- executionPlans.transition RUNNING, which refuse while a gate holds it.
  if v_plan.status not in ('DRAFT', 'APPROVED') then
    raise exception 'Plan is %; plans.activate runs a DRAFT or APPROVED plan%', v_plan.status,
      case when v_plan.status = 'BLOCKED' then ' (a blocked plan runs again when its review gate is resolved)' else '' end
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if v_goal.status not in ('PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; its plan cannot run', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
  if v_goal.status = 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'ACTIVE');
  end if;
  -- Activating answers the plan's open approval requests (one being accepted is already RESOLVED).
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return app_hidden.plan_cascade(v_plan.id);
end
$$;
comment on function app_hidden.plan_activate(p_plan app_public.execution_plans) is 'plans.activate (also run by accepting the plan''s approval request): the active DRAFT/APPROVED attempt with steps becomes RUNNING, its goal ACTIVE (startedAt), root steps READY and dispatched. Other open approval requests of the plan are SUPERSEDED. Returns the ids made READY.';
grant execute on function app_hidden.plan_activate(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.gates_cancel(p_plan_id uuid)
 returns void
 language plpgsql
as $$
declare v_gate app_public.review_gates;
begin
  for v_gate in select * from app_public.review_gates g where g.plan_id = p_plan_id and g.status = 'PENDING' loop
    perform app_hidden.gate_move(v_gate, 'CANCELED', 'the plan ended');
  end loop;
end
$$;
comment on function app_hidden.gates_cancel(p_plan_id uuid) is 'CANCELs the PENDING review gates of a plan that ended.';
grant execute on function app_hidden.gates_cancel(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.caller_works_in_plan(p_plan_id uuid)
 returns boolean
 language sql
 stable
as $$
  select app_hidden.current_agent_id() is not null and (
    exists (select 1 from app_public.execution_plans p where p.id = p_plan_id and p.planner_agent_id = app_hidden.current_agent_id())
    or exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id
               and app_hidden.current_agent_id() in (s.assigned_agent_id, s.judge_agent_id)))
$$;
comment on function app_hidden.caller_works_in_plan(p_plan_id uuid) is 'Whether the calling key is an agent working in the plan: its planner, or a worker or judge of one of its steps. Such an agent neither resolves the plan''s gates nor decides its approval (403 own_plan). Never NULL.';
grant execute on function app_hidden.caller_works_in_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.gate_assert_may_decide(p_plan_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  -- Not by an agent of the plan the gate holds (its planner, or a worker or judge of one of its steps), ADMIN or not:
  -- the worker whose spending stopped the plan approved its own budget.
  if app_hidden.caller_works_in_plan(p_plan_id) then
    raise exception 'An agent working in this plan does not decide its review gates: a person (or another ADMIN-scoped key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.gate_assert_may_decide(p_plan_id uuid) is 'Before a pending review gate of the plan is decided, by reviewGates.resolve or by ending what it holds (canceling its step or plan, abandoning the goal, planning again): a person, or an ADMIN-scoped agent key that does not work in the plan (403 person_required / own_plan otherwise).';
grant execute on function app_hidden.gate_assert_may_decide(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A worker or judge does not end the work it is judged on: canceling a failing step (or the plan, or the goal)
  -- completed the plan and achieved the goal around the judge's verdict. The planner, a person or an agent outside
  -- the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id then
    if p_step.id is not null and app_hidden.current_agent_id() = p_step.assigned_agent_id then
      raise exception 'A worker does not cancel its own step: its planner or a person does' using errcode = 'SV403', detail = 'own_step';
    end if;
    raise exception 'An agent working in this plan (a worker or judge) does not cancel its steps or end it: its planner or a person does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Ending what a pending gate holds cancels the gate: as deciding it.
  if exists (select 1 from app_public.review_gates g where g.plan_id = p_plan.id and g.status = 'PENDING'
             and (p_step.id is null or g.step_id = p_step.id)) then
    perform app_hidden.gate_assert_may_decide(p_plan.id);
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before a tool ends work in a live plan (cancels p_step, or with no step cancels or completes the plan, abandons its goal or plans the goal again): an agent working in the plan must be its planner (403 own_step for a worker canceling its own step, own_plan for the others); where a pending review gate holds what ends, the caller must also be one who may decide it (gate_assert_may_decide).';
grant execute on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A step is its worker's: an agent working in the plan moves or holds (reviewGates.open, the plan to BLOCKED) its
  -- own step, and the plan or another's step only as the planner. A fellow worker moved another's step to BLOCKED or
  -- RUNNING under it, or held it or the whole plan behind a gate only a person could clear. A person or an agent
  -- outside the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id
     and (p_step.id is null or app_hidden.current_agent_id() is distinct from p_step.assigned_agent_id) then
    raise exception 'An agent working in this plan acts only on its own step: the planner or a person moves or holds the plan or another''s step'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before an agent moves a step (executionPlans.transitionStep, where the step''s judge is let through by its caller) or holds work behind a gate (reviewGates.open, executionPlans.transition to BLOCKED; no step = the plan): an agent working in the plan acts on its own step, and on the plan or another''s step only as its planner (403 own_plan).';
grant execute on function app_hidden.plan_assert_own_step(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Called where only the step's judge (or a person) may pass it: its worker is told own_step, any other agent not_judge.
  if app_hidden.current_agent_id() = p_step.assigned_agent_id then
    raise exception 'The step''s worker does not pass its own work: it moves the step to REVIEW; its judge (plans.recordVerdict) or a person passes it'
      using errcode = 'SV403', detail = 'own_step';
  end if;
  raise exception 'Only the step''s judge (plans.judge dispatched it) or a person passes this step or records its verdict'
    using errcode = 'SV403', detail = 'not_judge';
end
$$;
comment on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) is 'Raises 403 for an agent that is not the step''s judge passing it (plans.recordVerdict, executionPlans.transitionStep to DONE): own_step for its worker, not_judge for any other agent. The callers decide when it applies.';
grant execute on function app_hidden.step_refuse_non_judge(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans)
 returns void
 language plpgsql
 stable
as $$
declare v_request app_public.action_requests;
begin
  -- A plan that asked for approval is approved or run by someone who may decide its request (that gate, own_request
  -- included), whatever became of the request: its planner approving or activating it anyway made approval advisory,
  -- and so did declining it, withdrawing it or superseding it (addSteps) before activating.
  -- (Only where it would be approved or run: another plan's move is the machine's 409.)
  select * into v_request from app_public.action_requests ar
  where ar.id = p_plan.approval_request_id and ar.status <> 'RESOLVED' and p_plan.status in ('DRAFT', 'APPROVED');
  if v_request.id is not null then
    perform app_hidden.action_request_assert_may_act(v_request, false,
      format('This plan asked for approval (action request %s, %s): it runs once a request for it is accepted, or by one who may decide it',
             v_request.id, v_request.status));
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) is 'Before a plan is APPROVED or RUNNING by a tool: once it asked for approval and its request was not accepted (open, declined, withdrawn, superseded), only a key that may decide that request (403 not_allowed / own_request otherwise).';
grant execute on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_cancel(p_plan app_public.execution_plans)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_step app_public.execution_steps;
begin
  v_plan := app_hidden.plan_move(p_plan, 'CANCELED');
  for v_step in select * from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED') order by s.position loop
    perform app_hidden.step_move(v_step, 'CANCELED');
  end loop;
  perform app_hidden.gates_cancel(v_plan.id);
  perform app_hidden.plan_end_step_runs(v_plan, 'plan_canceled');
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return v_plan;
end
$$;
comment on function app_hidden.plan_cancel(p_plan app_public.execution_plans) is 'Cancels a live plan attempt: plan CANCELED, its unfinished steps CANCELED, pending gates CANCELED, open step runs ABANDONED, open approval requests SUPERSEDED.';
grant execute on function app_hidden.plan_cancel(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text)
 returns app_public.goals
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
begin
  select * into v_plan from app_public.execution_plans p where p.goal_id = p_goal.id and p.is_active_attempt for update;
  v_goal := app_hidden.goal_move(p_goal, 'ABANDONED', p_reason);
  if v_plan.id is not null and v_plan.status not in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_cancel(v_plan);
  end if;
  return v_goal;
end
$$;
comment on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) is 'goals.abandon (and rejecting a review gate): the goal becomes ABANDONED (terminal) and its live active plan attempt is canceled.';
grant execute on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_goal app_public.goals;
  v_prior app_public.execution_plans;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_goal from app_public.goals where id = p_goal.id for update;
  if v_goal.status not in ('OPEN', 'PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; it cannot be planned again', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  select * into v_prior from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt for update;
  if v_prior.id is not null then
    update app_public.execution_plans set is_active_attempt = false where id = v_prior.id returning * into v_prior;
    if v_prior.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_assert_may_end(v_prior);
      perform app_hidden.plan_cancel(v_prior);
    end if;
  end if;
  insert into app_public.execution_plans (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  values (v_goal.workspace_id, v_goal.id,
          coalesce((select max(p.attempt) from app_public.execution_plans p where p.goal_id = v_goal.id), 0) + 1,
          p_planner, p_context_set_id, p_auto_judge, coalesce(p_max_step_retries, 2))
  returning * into v_plan;
  if v_goal.status <> 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'PLANNING');  -- GOAL_STATUS_CHANGED (and the planner's dispatch) by trigger
  else
    -- Already planning: the new attempt is still announced (and dispatched to its planner).
    v_event := app_hidden.record_event('GOAL_STATUS_CHANGED', 'goal', v_goal.id,
      app_hidden.goal_status_payload(v_goal, 'PLANNING', 'PLANNING'));
    perform app_hidden.dispatch_to_agent(v_event, p_planner);
  end if;
  return v_plan;
end
$$;
comment on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) is 'A new DRAFT plan attempt for a live goal (plans.decompose, executionPlans.create): the previous attempt flips isActiveAttempt false (canceled if live), the goal moves to PLANNING; GOAL_STATUS_CHANGED carries planId and plannerAgentId and is dispatched to the planner.';
grant execute on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) to svc_visitor;

create or replace function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('goalId', p_goal.id, 'from', p_from, 'to', p_to, 'planId', p.id,
                            'plannerAgentId', p.planner_agent_id, 'issueId', p_goal.issue_id, 'title', p_goal.title)
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal.id and p.is_active_attempt
$$;
comment on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) is 'GOAL_STATUS_CHANGED payload (spec 6.4: from, to, planId = the active attempt) plus goalId, plannerAgentId, issueId, title.';
grant execute on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text default 'steps'::text)
 returns uuid[]
 language plpgsql
as $$
declare
  v_n int := jsonb_array_length(coalesce(p_steps, '[]'));
  v_base int;
  v_ids uuid[] := '{}';
  v_indeg int[];
  v_queue int[] := '{}';
  v_seen int := 0;
  v_i int;
  v_j int;
  v_d int;
  v_step jsonb;
  v_agent app_public.agents;
  v_field text;
  v_goal_issue app_public.issues;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm). An index listed
  -- twice is one dependency (counted twice, the step never reached in-degree 0 and was called a cycle).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select distinct (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
      if v_d < 0 or v_d >= v_n then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), format('index %s is not a step of this batch (0..%s)', v_d, v_n - 1));
      elsif v_d = v_i then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), 'a step cannot depend on itself');
      end if;
      v_indeg[v_i + 1] := v_indeg[v_i + 1] + 1;
    end loop;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    if v_indeg[v_i + 1] = 0 then v_queue := v_queue || v_i; end if;
  end loop;
  while cardinality(v_queue) > 0 loop
    v_i := v_queue[1];
    v_queue := v_queue[2:];
    v_seen := v_seen + 1;
    for v_j in 0 .. v_n - 1 loop
      if exists (select 1 from jsonb_array_elements_text(coalesce(p_steps->v_j->'dependsOnStepIndexes', '[]')) e where e::int = v_i) then
        v_indeg[v_j + 1] := v_indeg[v_j + 1] - 1;
        if v_indeg[v_j + 1] = 0 then v_queue := v_queue || v_j; end if;
      end if;
    end loop;
  end loop;
  if v_seen < v_n then
    -- Named as the other errors are: 0-based batch positions, the field of the first step in the cycle.
    perform app_hidden.raise_invalid(
      format('%s.%s.dependsOnStepIndexes', p_field, (select min(i) - 1 from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)),
      format('the dependencies make a cycle (steps %s)', (select string_agg((i - 1)::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  -- The steps' runs are on the goal's issue (if it has one): read once for the check of each assigned agent.
  select i.* into v_goal_issue from app_public.goals g join app_public.issues i on i.id = g.issue_id where g.id = p_plan.goal_id;
  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_field := format('%s.%s.assignedAgentId', p_field, v_i);
      v_agent := app_hidden.find_live_agent(v_step->>'assignedAgentId', v_field);
      -- Its run is on the goal's issue: an agent that cannot see it could not read its step (re-test, fleet fix).
      if v_goal_issue.id is not null then
        perform app_hidden.require_agent_sees_issue(v_agent, v_goal_issue, v_field);
      end if;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent.id, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  -- The plan an approver was asked about has changed: its open approval request is SUPERSEDED (ask again).
  if v_n > 0 then
    perform app_hidden.action_requests_supersede('execution-plan', p_plan.id);
  end if;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. assignedAgentId must be a live agent (400 agent_archived). Steps start TODO; an open approval request of the plan is SUPERSEDED (what it asked about changed).';
grant execute on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  insert into app_public.review_gates (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  values (p_plan.workspace_id, p_plan.id, p_step_id, p_reason, p_title, coalesce(p_details, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v;  -- REVIEW_GATE_OPENED by trigger
  return v;
end
$$;
comment on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) is 'Opens a PENDING review gate on a plan (and step): STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME or MANUAL.';
grant execute on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  perform app_hidden.step_move(p_step, 'BLOCKED');
  return app_hidden.open_gate(v_plan, p_step.id, p_reason, p_title, p_details);
end
$$;
comment on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) is 'A step becomes BLOCKED and a review gate opens on it (approve: the step is ready again with fresh retries; reject: the goal is abandoned).';
grant execute on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_gate.plan_id);
  v_gate app_public.review_gates;
  v_step app_public.execution_steps;
  v_goal app_public.goals;
begin
  select * into v_gate from app_public.review_gates where id = p_gate.id for update;
  if p_decision = 'REJECT' then
    v_gate := app_hidden.gate_move(v_gate, 'REJECTED', p_note);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_goal.status not in ('ACHIEVED', 'ABANDONED') then
      perform app_hidden.goal_abandon(v_goal, coalesce(p_note, 'review gate rejected'));
    elsif v_plan.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_plan);
    end if;
    return v_gate;
  end if;
  v_gate := app_hidden.gate_move(v_gate, 'APPROVED', p_note);
  if v_gate.step_id is not null then
    -- The held step continues with fresh retries: READY when its dependencies are DONE, else back to TODO.
    select * into v_step from app_public.execution_steps where id = v_gate.step_id;
    if v_step.status = 'BLOCKED' then
      update app_public.execution_steps set retry_count = 0 where id = v_step.id returning * into v_step;
      if v_plan.status = 'RUNNING' and app_hidden.step_dependencies_done(v_step) then
        perform app_hidden.step_make_ready(v_step);
      else
        perform app_hidden.step_move(v_step, 'TODO');
      end if;
    end if;
  elsif v_plan.status = 'BLOCKED' and not exists (
      select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
    perform app_hidden.plan_resume(v_plan);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
