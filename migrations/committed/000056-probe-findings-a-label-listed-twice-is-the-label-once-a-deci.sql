--! Previous: sha1:747dc3f679c463880b8d97a973fb198a2455f606
--! Hash: sha1:b8bbee581d98459fcd9e1f81445fd1389627e28e
--! Message: Probe findings: a label listed twice is the label once; a decided poll takes no votes; the claim conflict names its time in ISO 8601; viewerKeyKind for the web board; the narrowed-admin message fits reads

--! split: 1-current.sql
-- Probe findings (eighth session): a repeated label id on create is the label once; votes end when a poll is
-- decided; the claim conflict names its time in ISO 8601; the web board learns the key's kind (viewerKeyKind).
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
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    raise exception 'Your % run on this issue may not change it: comment, upsert a status, set the run waiting or complete it instead', v_mode
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, reason reassigned) by trigger _810_run_abandoned.
    perform set_config('svc.run_end_reason', 'reassigned', true);
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
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
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

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
 language sql
 immutable
as $$
  -- A label listed twice is the label once, where it was first listed (it was a 409 on create).
  select array(select u.id from unnest(app_hidden.uuid_array(p_json, 'labelIds')) with ordinality u(id, n)
               group by u.id order by min(u.n))
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
    if args->>'parentId' is null then
      v.parent_id := null;
    else
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle)');
      end if;
      v.parent_id := v_parent.id;
    end if;
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
--! Included issues/tools/create.sql
-- The issues.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new issue (default status unless statusId), labels attached; ISSUE_CREATED is written by trigger. A
-- narrowed key may only create inside its narrowing.
create or replace function app_tools.issues_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_label_ids uuid[] := app_hidden.label_id_list(args->'labelIds');
  v_id uuid := gen_random_uuid();
  v_refs jsonb;
begin
  v_refs := app_hidden.issue_create_refs(args);
  -- Everything that can fail is checked above, so the number the insert takes (trigger _200_assign_number,
  -- from the workspace's sequence) is not lost to a failure after it.
  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), (v_refs->>'statusId')::uuid,
          (v_refs->>'projectId')::uuid, (v_refs->>'parentId')::uuid, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  if cardinality(v_label_ids) > 0 then
    insert into app_public.issue_labels (workspace_id, issue_id, label_id)
    select v_ws, v_id, l from unnest(v_label_ids) l;
  end if;

  return app_hidden.issue_json_after_write(v_id);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/create.sql
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim; another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
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
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240))
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it; another user''s unexpired claim is 409 already_claimed.';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
--! Included actionRequests/tools/vote.sql
-- The actionRequests.vote tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- records or overwrites the callers vote; ISSUE_UPDATED (action-request) with optionKey, previousOptionKey, changed.
create or replace function app_tools.action_requests_vote(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_req app_public.action_requests := app_hidden.find_action_request(args->>'id', 'id', true);
  v_user uuid := app_hidden.require_user();
  v_prev text;
  v_id uuid;
begin
  if v_req.options is null then
    perform app_hidden.raise_invalid('id', 'this request is not a poll (it has no options)');
  end if;
  if v_req.voting_closed_at is not null then
    raise exception 'Voting on this poll is closed' using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  -- A poll decided (accepted, declined, dismissed, ...) takes no more votes: its outcome would no longer follow them.
  if v_req.status not in ('OPEN', 'SNOOZED') then
    raise exception 'This poll is %: voting is over', v_req.status using errcode = 'SV400', column = 'optionKey', detail = 'voting_closed';
  end if;
  if not exists (select 1 from jsonb_array_elements(v_req.options) o where o->>'key' = args->>'optionKey') then
    perform app_hidden.raise_invalid('optionKey', format('unknown option %s (options: %s)', args->>'optionKey',
      (select string_agg(o->>'key', ', ') from jsonb_array_elements(v_req.options) o)));
  end if;
  select v.option_key into v_prev from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  insert into app_public.action_request_votes (workspace_id, request_id, user_id, option_key)
  values (v_req.workspace_id, v_req.id, v_user, args->>'optionKey')
  on conflict (request_id, user_id) do update
    set option_key = excluded.option_key, voted_at = now()
    where action_request_votes.option_key is distinct from excluded.option_key
  returning id into v_id;
  if v_id is null then
    select v.id into v_id from app_public.action_request_votes v where v.request_id = v_req.id and v.user_id = v_user;
  end if;
  perform app_hidden.record_event('ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
    'actionRequestId', v_req.id, 'change', 'vote', 'optionKey', args->>'optionKey', 'previousOptionKey', v_prev,
    'changed', v_prev is distinct from args->>'optionKey', 'issueId', v_req.issue_id));
  return jsonb_build_object('id', v_id, 'actionRequestId', v_req.id, 'optionKey', args->>'optionKey',
                            'previousOptionKey', v_prev, 'changed', v_prev is distinct from args->>'optionKey');
end
$$;
comment on function app_tools.action_requests_vote(args jsonb) is 'actionRequests.vote: Vote on a poll: one vote per user, re-voting overwrites until voting is closed (then 400). Returns {id, optionKey, changed}; writes ISSUE_UPDATED (subjectType action-request).';
grant execute on function app_tools.action_requests_vote(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/vote.sql
--! Included core/caller.sql
-- Who is calling: the request context (transaction-local svc.* settings) and the checks built on it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.caller_may_moderate()
 returns boolean
 language sql
 stable
as $$
  -- Roles, not scopes (spec 2.8): keys are FULL by default, so a scope test would make every member a moderator.
  select app_hidden.current_agent_id() is null
     and exists (select 1 from app_public.memberships m
                 where m.workspace_id = app_hidden.current_workspace_id()
                   and m.user_id = app_hidden.current_user_id()
                   and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.caller_may_moderate() is 'True for a key acting as a person (no linked agent) whose user is workspace OWNER or ADMIN (a membership role; the ADMIN scope alone does not moderate). Used to override authorship (comments.update/delete) and another user''s claim (issues.release).';
grant execute on function app_hidden.caller_may_moderate() to svc_visitor;

create or replace function app_hidden.caller_role()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select m.role
  from app_private.api_keys k
  join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_role() is 'Workspace role (OWNER, ADMIN, MEMBER) of the calling key''s own user; NULL for plugin keys. Used by policies on admin-managed tables.';
grant execute on function app_hidden.caller_role() to svc_visitor;

create or replace function app_hidden.current_agent_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.agent_id', true), '')::uuid $$;
comment on function app_hidden.current_agent_id() is 'Agent linked to the calling key (linkedAgentId), if any.';
grant execute on function app_hidden.current_agent_id() to svc_visitor;

create or replace function app_hidden.current_key_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.key_id', true), '')::uuid $$;
comment on function app_hidden.current_key_id() is 'The calling API key.';
grant execute on function app_hidden.current_key_id() to svc_visitor;

create or replace function app_hidden.current_key_user_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is 'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';
grant execute on function app_hidden.current_key_user_id() to svc_visitor;

create or replace function app_hidden.current_scopes()
 returns text[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.scopes', true), '')::text[], '{}') $$;
comment on function app_hidden.current_scopes() is 'Scopes of the calling key; FULL holds every scope.';
grant execute on function app_hidden.current_scopes() to svc_visitor;

create or replace function app_hidden.current_user_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.user_id', true), '')::uuid $$;
comment on function app_hidden.current_user_id() is 'User owning the calling key (NULL for plugin keys with no user).';
grant execute on function app_hidden.current_user_id() to svc_visitor;

create or replace function app_hidden.current_workspace_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.workspace_id', true), '')::uuid $$;
comment on function app_hidden.current_workspace_id() is 'Workspace of the calling key (svc.workspace_id). NULL outside a request: every policy then denies.';
grant execute on function app_hidden.current_workspace_id() to svc_visitor;

create or replace function app_hidden.has_scope(p_scope text)
 returns boolean
 language sql
 stable parallel safe
as $$
    select p_scope = any(app_hidden.current_scopes()) or 'FULL' = any(app_hidden.current_scopes())
  $$;
comment on function app_hidden.has_scope(p_scope text) is 'True when the calling key holds the scope (or FULL).';
grant execute on function app_hidden.has_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.is_workspace_admin()
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_hidden.has_scope('ADMIN') and exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is 'True when the calling key holds ADMIN and its own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';
grant execute on function app_hidden.is_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_key_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';
grant execute on function app_hidden.require_key_user() to svc_visitor;

create or replace function app_hidden.require_scope(p_scope text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.has_scope(p_scope) then
    raise exception 'scope % required', p_scope using errcode = 'SVSCP', hint = p_scope;
  end if;
end
$$;
comment on function app_hidden.require_scope(p_scope text) is 'Raises SVSCP (HTTP 403 scope_required) unless the calling key holds the scope.';
grant execute on function app_hidden.require_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.require_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user' using errcode = 'SV403', detail = 'user_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_user() is 'The calling key''s user (personal records: notes, pins, time); 403 user_required for a key without one.';
grant execute on function app_hidden.require_user() to svc_visitor;

create or replace function app_hidden.require_workspace_admin()
 returns void
 language sql
 stable
as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';
grant execute on function app_hidden.require_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_unnarrowed_admin(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  -- Settings of the whole workspace (webhooks, the workflow, its settings): a key narrowed to some projects,
  -- labels or initiatives may not change them, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception '%; that needs a key without project, label or initiative narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_unnarrowed_admin(p_what text) is 'Raises 403 admin_required / scope_required as require_workspace_admin, and 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing. For what rules the whole workspace: webhooks, statuses, settings.';
grant execute on function app_hidden.require_unnarrowed_admin(p_what text) to svc_visitor;

create or replace function app_hidden.require_workspace_admin_key()
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';
grant execute on function app_hidden.require_workspace_admin_key() to svc_visitor;

create or replace function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_key app_private.api_keys;
begin
  -- The API authenticates from a short-lived cache; this check in the call's own statement makes
  -- revocation and expiry exact (a revoked key fails on its very next call).
  select * into v_key from app_private.api_keys where id = p_key_id;
  if v_key.id is null or v_key.workspace_id is distinct from p_workspace_id then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  perform
    set_config('svc.workspace_id', p_workspace_id::text, true),
    set_config('svc.user_id', coalesce(p_user_id::text, ''), true),
    set_config('svc.key_id', p_key_id::text, true),
    set_config('svc.agent_id', coalesce(p_agent_id::text, ''), true),
    set_config('svc.scopes', coalesce(p_scopes, '{}')::text, true),
    set_config('svc.project_ids', coalesce(p_project_ids, '{}')::text, true),
    set_config('svc.label_ids', coalesce(p_label_ids, '{}')::text, true),
    set_config('svc.initiative_ids', coalesce(p_initiative_ids, '{}')::text, true);
end
$$;
comment on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Checks the key is still live (401 revoked/expired otherwise) and writes the caller identity into transaction-local settings. The API calls it in the same statement as the tool function.';
grant execute on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) to svc_visitor;

create or replace function app_private.current_caller()
 returns app_private.caller
 language plpgsql
 stable
as $$
declare
  v_key app_private.api_keys;
  v_caller app_private.caller;
begin
  select * into v_key from app_private.api_keys where id = app_hidden.current_key_id();
  if v_key.id is null or v_key.workspace_id is distinct from app_hidden.current_workspace_id() then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  v_caller.key_id := v_key.id;
  v_caller.workspace_id := v_key.workspace_id;
  v_caller.user_id := v_key.user_id;
  v_caller.kind := v_key.kind;
  v_caller.plugin_id := v_key.plugin_id;
  v_caller.scopes := v_key.scopes;
  v_caller.project_ids := v_key.project_ids;
  v_caller.label_ids := v_key.label_ids;
  v_caller.initiative_ids := v_key.initiative_ids;
  v_caller.expires_at := v_key.expires_at;
  v_caller.role := (select m.role from app_public.memberships m
                    where m.workspace_id = v_key.workspace_id and m.user_id = v_key.user_id);
  return v_caller;
end
$$;
comment on function app_private.current_caller() is 'The calling key (svc.key_id), re-read and re-checked (401 when revoked/expired/foreign), with its own user''s workspace role.';

create or replace function app_private.require_admin(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_caller.role is null or p_caller.role not in ('OWNER', 'ADMIN') then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
  if not ('ADMIN' = any(p_caller.scopes) or 'FULL' = any(p_caller.scopes)) then
    raise exception 'scope ADMIN required' using errcode = 'SVSCP', hint = 'ADMIN';
  end if;
end
$$;
comment on function app_private.require_admin(p_caller app_private.caller) is 'Workspace administration: the key''s user is OWNER or ADMIN (else 403 admin_required) and the key holds ADMIN (else 403 scope_required).';
--! EndIncluded core/caller.sql
--! Included workspace/members.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.members_add(p_email text, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_result jsonb;
begin
  perform app_private.check_membership_change(v_caller, null, p_role);
  if exists (select 1 from app_public.memberships m join app_public.users u on u.id = m.user_id
             where m.workspace_id = v_caller.workspace_id and lower(u.email) = lower(p_email)) then
    raise exception '% is already a member (change the role with membersSetRole)', p_email
      using errcode = 'SV409', detail = 'already_member';
  end if;
  v_result := app_private.add_member(v_caller.workspace_id, p_email, p_role);
  return app_private.find_membership(v_caller.workspace_id, (v_result->'user'->>'id')::uuid);
end
$$;
comment on function app_hidden.members_add(p_email text, p_role text) is 'OWNER/ADMIN: app_private.add_member (the `svc admin add-member` function) for a new member; 409 already_member otherwise.';
grant execute on function app_hidden.members_add(p_email text, p_role text) to svc_visitor;

create or replace function app_hidden.members_remove(p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, null);
  return app_private.remove_member(v_caller.workspace_id, p_user_id);
end
$$;
comment on function app_hidden.members_remove(p_user_id uuid) is 'OWNER/ADMIN: app_private.remove_member in the caller''s workspace.';
grant execute on function app_hidden.members_remove(p_user_id uuid) to svc_visitor;

create or replace function app_hidden.members_set_role(p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_m app_public.memberships := app_private.find_membership(v_caller.workspace_id, p_user_id);
begin
  perform app_private.check_membership_change(v_caller, v_m.role, p_role);
  return app_private.set_member_role(v_caller.workspace_id, p_user_id, p_role);
end
$$;
comment on function app_hidden.members_set_role(p_user_id uuid, p_role text) is 'OWNER/ADMIN: app_private.set_member_role in the caller''s workspace.';
grant execute on function app_hidden.members_set_role(p_user_id uuid, p_role text) to svc_visitor;

create or replace function app_private.add_member(p_workspace_id uuid, p_email text, p_role text)
 returns jsonb
 language plpgsql
as $$
declare
  v_user app_public.users := app_private.ensure_user(p_email);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  insert into app_public.memberships (workspace_id, user_id, role) values (p_workspace_id, v_user.id, p_role)
  on conflict (workspace_id, user_id) do nothing;
  if not found then
    -- Already a member: a role change, with set_member_role's guard (the last OWNER is not demoted).
    perform app_private.set_member_role(p_workspace_id, v_user.id, p_role);
  end if;
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_private.require_admin(p_caller);
  if (p_old_role = 'OWNER' or p_new_role = 'OWNER') and p_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
end
$$;
comment on function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text) is 'OWNER/ADMIN may manage members; only an OWNER may touch the OWNER role (403 owner_required).';

create or replace function app_private.ensure_user(p_email text)
 returns app_public.users
 language plpgsql
as $$
declare v_user app_public.users;
begin
  if p_email !~ '^[^@\s]+@[^@\s]+$' then
    perform app_hidden.raise_invalid('email', 'not an email address');
  end if;
  select * into v_user from app_public.users where lower(email) = lower(p_email);
  if v_user.id is null then
    insert into app_public.users (email, name) values (p_email, split_part(p_email, '@', 1)) returning * into v_user;
  end if;
  return v_user;
end
$$;
comment on function app_private.ensure_user(p_email text) is 'The user with this email (case-insensitive), created if new.';

create or replace function app_private.find_membership(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 stable
as $$
declare v_m app_public.memberships;
begin
  select * into v_m from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if v_m.id is null then
    raise exception 'Member not found' using errcode = 'SV404', column = 'userId';
  end if;
  return v_m;
end
$$;
comment on function app_private.find_membership(p_workspace_id uuid, p_user_id uuid) is 'The membership of this user in this workspace, else 404.';

create or replace function app_private.remove_member(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships := app_private.find_membership(p_workspace_id, p_user_id);
begin
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner';
  end if;
  -- A former member's keys for this workspace stop working at once.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and user_id = p_user_id and revoked_at is null;
  delete from app_public.memberships where id = v_m.id;
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger) and revokes their keys in the workspace; the last OWNER stays (409 last_owner).';

create or replace function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships := app_private.find_membership(p_workspace_id, p_user_id);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  if v_m.role = 'OWNER' and p_role <> 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner';
  end if;
  update app_public.memberships set role = p_role where id = v_m.id returning * into v_m;
  return v_m;
end
$$;
comment on function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text) is 'Changes a member''s role (MEMBERSHIP_ROLE_CHANGED by trigger when it changes); the last OWNER cannot be demoted (409 last_owner).';

create or replace function app_public.members_add(email text, role app_public.membership_role default 'MEMBER'::app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_add(email, role::text) $$;
comment on function app_public.members_add(email text, role app_public.membership_role) is 'OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';
grant execute on function app_public.members_add(email text, role app_public.membership_role) to svc_visitor;

create or replace function app_public.members_remove(user_id uuid)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(user_id uuid) is 'OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';
grant execute on function app_public.members_remove(user_id uuid) to svc_visitor;

create or replace function app_public.members_set_role(user_id uuid, role app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(user_id uuid, role app_public.membership_role) is 'OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';
grant execute on function app_public.members_set_role(user_id uuid, role app_public.membership_role) to svc_visitor;

create or replace function app_public.viewer()
 returns app_public.users
 language sql
 stable
as $$
  select u.* from app_public.users u where u.id = app_hidden.current_user_id()
$$;
comment on function app_public.viewer() is 'The person the key making this request acts as (for a plugin key: the first member).';
grant execute on function app_public.viewer() to svc_visitor;

create or replace function app_public.viewer_role()
 returns app_public.membership_role
 language sql
 stable
as $$ select app_hidden.caller_role()::app_public.membership_role $$;
comment on function app_public.viewer_role() is 'Role of the key''s own user in this workspace (null for plugin keys). OWNER and ADMIN may use the administrative mutations.';
grant execute on function app_public.viewer_role() to svc_visitor;

create or replace function app_public.viewer_scopes()
 returns text[]
 language sql
 stable
as $$ select app_hidden.current_scopes() $$;
comment on function app_public.viewer_scopes() is 'Scopes of the key making this request (FULL holds every scope): a client shows only the controls the key may use.';
grant execute on function app_public.viewer_scopes() to svc_visitor;

create or replace function app_public.viewer_key_kind()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select k.kind from app_private.api_keys k where k.id = app_hidden.current_key_id() $$;
comment on function app_public.viewer_key_kind() is 'Kind of the key making this request (AGENT, PERSONAL, SESSION, PLUGIN): the web board refuses agent keys, which would act as the agent.';
grant execute on function app_public.viewer_key_kind() to svc_visitor;
--! EndIncluded workspace/members.sql
