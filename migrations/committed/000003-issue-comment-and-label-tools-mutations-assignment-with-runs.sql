--! Previous: sha1:7d5fd6e85ad3978659ae1b0aad98455368235755
--! Hash: sha1:edc03d83d21c3f6aa96b8513cf116e5745de0de8
--! Message: issue, comment and label tools: mutations, assignment with runs, gating, bulk, watchers

--! split: 1-current.sql
-- Enter migration here

--! split: 20-issue-helpers.sql
-- Issue tools, part 1: helpers every issue mutation shares.
--   * run-mode gating (spec 3.2) as one reusable check,
--   * find-and-lock an issue for writing,
--   * agent lookup, the assignment transition (runs + AGENT_ASSIGNED), JSON shapes for runs,
--     comments, attachments and labels,
--   * status timestamps (startedAt / completedAt follow the status category).
-- Re-runnable while current: create or replace / drop if exists.

-- Fix: encode(..., 'base64') breaks lines every 76 characters, so cursors longer than ~57 bytes of token
-- carried a newline and failed to decode. Newlines are dropped now (decode never needed them).
create or replace function app_hidden.cursor_encode(p_token text) returns text
language sql immutable parallel safe as $$
  select rtrim(translate(encode(convert_to(p_token, 'utf8'), 'base64'), E'+/\n', '-_'), '=')
$$;
comment on function app_hidden.cursor_encode(text) is 'Opaque cursor for keyset pagination (base64url of a small token, no padding, no line breaks).';

-- Run-mode gating ---------------------------------------------------------------------------------

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) returns void
language plpgsql stable as $$
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
comment on function app_hidden.assert_run_mode_allows_mutation(uuid) is
  'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has an ACTIVE or WAITING run on the issue in RESEARCH, REVIEW or DISCUSS mode. Every issue-state mutation calls it; comments, status upserts and run tools do not.';

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id') returns app_public.issues
language plpgsql volatile as $$
declare v_issue app_public.issues;
begin
  v_issue := app_hidden.find_issue(p_ref, p_field);
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  select * into v_issue from app_public.issues where id = v_issue.id for update;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(text, text) is
  'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';

create or replace function app_hidden.caller_may_moderate() returns boolean
language sql stable as $$
  select app_hidden.has_scope('ADMIN')
      or (app_hidden.current_agent_id() is null
          and exists (select 1 from app_public.memberships m
                      where m.workspace_id = app_hidden.current_workspace_id()
                        and m.user_id = app_hidden.current_user_id()
                        and m.role in ('OWNER', 'ADMIN')))
$$;
comment on function app_hidden.caller_may_moderate() is
  'True for an ADMIN-scoped key, or a key acting as a person (no linked agent) whose user is workspace OWNER or ADMIN. Used to override authorship (comments.update/delete) and another user''s claim (issues.release).';

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) returns boolean
language sql stable security definer set search_path = pg_catalog as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  select exists (select 1 from up where id = p_ancestor_id)
$$;
comment on function app_hidden.issue_has_ancestor(uuid, uuid) is
  'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean.';

-- Agents ---------------------------------------------------------------------------------------------

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) returns app_public.agents
language plpgsql stable as $$
declare v_agent app_public.agents;
begin
  if p_agent_id is not null then
    select * into v_agent from app_public.agents
    where id = app_hidden.parse_uuid(p_agent_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  elsif p_profile_key is not null then
    select * into v_agent from app_public.agents
    where profile_key = lower(p_profile_key) and workspace_id = app_hidden.current_workspace_id();
  end if;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.find_agent(text, text, text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';

-- Shapes -----------------------------------------------------------------------------------------------

create or replace function app_hidden.run_json(r app_public.agent_runs) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'status', r.status,
    'engagementMode', r.engagement_mode, 'currentStep', r.current_step,
    'startedAt', r.started_at, 'finishedAt', r.finished_at, 'lastEventAt', r.last_event_at,
    'tokensIn', r.tokens_in, 'tokensOut', r.tokens_out, 'tokensCached', r.tokens_cached, 'costUsd', r.cost_usd,
    'controlState', r.control_state,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = r.agent_id))
$$;
comment on function app_hidden.run_json(app_public.agent_runs) is 'AgentRun (spec 2.11) with its agent {id, profileKey, name}.';

create or replace function app_hidden.current_run(p_issue_id uuid) returns app_public.agent_runs
language sql stable as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.current_run(uuid) is 'The current run of an issue (spec 3.3): its newest run that is neither COMPLETED nor ABANDONED, or NULL.';

create or replace function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) returns app_public.agent_runs
language sql stable as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.agent_id = p_agent_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.agent_open_run(uuid, uuid) is 'The newest open (neither COMPLETED nor ABANDONED) run of one agent on an issue, or NULL.';

create or replace function app_hidden.comment_json(c app_public.comments) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', c.id, 'issueId', c.issue_id, 'body', c.body, 'kind', c.kind, 'confidence', c.confidence,
    'authorUserId', c.author_user_id, 'authoringAgentId', c.authoring_agent_id, 'runId', c.run_id,
    'author', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
               from app_public.users u where u.id = c.author_user_id),
    'authoringAgent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
                       from app_public.agents a where a.id = c.authoring_agent_id),
    'editedAt', c.edited_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.comment_json(app_public.comments) is
  'Comment (spec 2.4) with author {id, name, email} and authoringAgent {id, profileKey, name}. Revisions are an in-app read only and are not shown.';

create or replace function app_hidden.attachment_json(a app_public.attachments) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', a.id, 'kind', a.kind, 'targetType', a.target_type, 'targetId', a.target_id,
    'externalUrl', a.external_url, 'linkTitle', a.link_title, 'filename', a.filename, 'mimeType', a.mime_type,
    'size', a.size_bytes, 'sizeBytes', a.size_bytes, 'createdAt', a.created_at)
$$;
comment on function app_hidden.attachment_json(app_public.attachments) is 'Attachment (spec 2.6).';

create or replace function app_hidden.label_json(l app_public.labels) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color, 'description', l.description,
                            'createdAt', l.created_at, 'updatedAt', l.updated_at)
$$;
comment on function app_hidden.label_json(app_public.labels) is 'Label {id, name, color, description, createdAt, updatedAt}.';

-- Assignment -----------------------------------------------------------------------------------------

create or replace function app_hidden.assign_issue_agent(
  p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text,
  p_rationale text default null, p_comment_id uuid default null
) returns uuid
language plpgsql volatile as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    update app_public.agent_runs
    set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = v_from
      and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', false, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', null,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(app_public.issues, app_public.agents, text, text, text, uuid) is
  'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run, swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload. Returns the new run id.';

-- Fix: `v_changed || 'title'` resolves to array || array and fails with "malformed array literal" on the
-- first real update (no tool updated issues before). Same logic, array_append instead.
create or replace function app_private.tg_issues__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    perform set_config('svc.issues_created',
      (coalesce(nullif(current_setting('svc.issues_created', true), '')::jsonb, '{}') || jsonb_build_object(new.id::text, true))::text, true);
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
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
  if new.parent_id is distinct from old.parent_id then v_changed := array_append(v_changed, 'parentId'); end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := array_append(v_changed, 'cycleId'); end if;
  if new.due_date is distinct from old.due_date then v_changed := array_append(v_changed, 'dueDate'); end if;
  if new.estimate is distinct from old.estimate then v_changed := array_append(v_changed, 'estimate'); end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := array_append(v_changed, 'slaMinutes'); end if;
  if new.expected_output is distinct from old.expected_output then v_changed := array_append(v_changed, 'expectedOutput'); end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := array_append(v_changed, 'verificationChecklist'); end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := array_append(v_changed, 'artifactRequired'); end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById'); end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is
  'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields. A change that changes nothing writes nothing.';



-- "Written in this transaction" is remembered in transaction-local settings (svc.issue_updated_events:
-- {issueId: eventId}, svc.issues_created: {issueId: true}; one setting name each, so nothing accumulates
-- on pooled connections) instead of comparing event
-- xmin with the top-level xid: rows written inside a PL/pgSQL exception block (a subtransaction, as the bulk
-- tools use to name items.N.field) carry the subtransaction's xid, so the xmin test missed them. Settings
-- follow subtransaction rollback, so a rolled-back event is forgotten with it.
create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}')
returns void
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_map jsonb := coalesce(nullif(current_setting('svc.issue_updated_events', true), '')::jsonb, '{}');
  v_id uuid := (v_map->>p_issue_id::text)::uuid;
begin
  if v_id is not null then
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
    if found then
      return;
    end if;
  end if;
  v_id := app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
    jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  perform set_config('svc.issue_updated_events', (v_map || jsonb_build_object(p_issue_id::text, v_id))::text, true);
end
$$;
comment on function app_private.record_issue_updated(uuid, uuid, text[], jsonb) is
  'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (remembered in the transaction-local setting svc.issue_updated_events): one event per issue per call, bulk calls included.';

create or replace function app_private.tg_issue_labels__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if coalesce(nullif(current_setting('svc.issues_created', true), '')::jsonb, '{}') ? v_row.issue_id::text then
    return null;  -- labels set while the issue is created belong to its ISSUE_CREATED
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue (not while it is being created).';

-- Status timestamps ------------------------------------------------------------------------------------

create or replace function app_private.tg_issues__status_timestamps() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
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
comment on function app_private.tg_issues__status_timestamps() is
  'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt is set on DONE/CANCELED and cleared when the issue is reopened.';
drop trigger if exists _150_status_timestamps on app_public.issues;
create trigger _150_status_timestamps before insert or update of status_id on app_public.issues
  for each row execute function app_private.tg_issues__status_timestamps();

-- One rolling STATUS comment per run (comments.upsertStatus).
create unique index if not exists comments_one_status_per_run on app_public.comments (run_id)
  where kind = 'STATUS' and deleted_at is null;

-- Labels: a narrowed key may not rename or delete workspace-wide labels (they reach issues it cannot see).
drop policy if exists update_in_workspace on app_public.labels;
drop policy if exists delete_in_workspace on app_public.labels;
create policy update_in_workspace on app_public.labels for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.issues_unrestricted()))
  with check (workspace_id = (select app_hidden.current_workspace_id()));
create policy delete_in_workspace on app_public.labels for delete to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.issues_unrestricted()));
comment on policy update_in_workspace on app_public.labels is 'Rename/recolor labels of the caller''s workspace; keys with project or label narrowing may not.';
comment on policy delete_in_workspace on app_public.labels is 'Delete labels of the caller''s workspace (they come off every issue); keys with project or label narrowing may not.';

grant execute on all functions in schema app_hidden to svc_visitor;

--! split: 21-issue-tools.sql
-- Issue tools, part 2: update/delete/queue/transition/claim/release/assign/reassign/assigned, the watch
-- family, label add/remove, bulk create/update, and get/list with every include and filter.
-- Each tool is one function running as the request role (RLS + narrowing apply); events come from the
-- issue triggers, except AGENT_ASSIGNED (app_hidden.assign_issue_agent).

-- The patch every update path applies ------------------------------------------------------------------

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb) returns app_public.issues
language plpgsql volatile as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
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
      select c.id into v.cycle_id from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v.cycle_id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
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
    v_labels := app_hidden.uuid_array(args->'labelIds', 'labelIds');
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
comment on function app_hidden.update_issue(app_public.issues, jsonb) is
  'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) returns void
language plpgsql volatile as $$
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
comment on function app_hidden.set_issue_labels(uuid, uuid[], uuid[]) is
  'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';

-- Re-raises an error of item N of a bulk call with the field prefixed (items.N.field).
create or replace function app_hidden.raise_in_item(p_index int, p_state text, p_message text, p_detail text, p_hint text, p_column text)
returns void
language plpgsql as $$
begin
  raise exception using errcode = p_state, message = p_message, detail = coalesce(p_detail, ''),
    hint = coalesce(p_hint, ''),
    column = 'items.' || p_index || case when coalesce(p_column, '') <> '' then '.' || p_column else '' end;
end
$$;
comment on function app_hidden.raise_in_item(int, text, text, text, text, text) is
  'Bulk tools: re-raises a business error (SV…) of item N with its field named items.N.<field>; the whole call rolls back.';

-- issues.update / updateMany / createMany ---------------------------------------------------------------

create or replace function app_tools.issues_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, args - 'id');
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_update(jsonb) is
  'issues.update: changes any of title, description, priority, statusId, projectId, parentId, cycleId, dueDate, estimate, slaMinutes, expectedOutput, verificationChecklist, artifactRequired; labelIds replaces the label set. Run-mode gated.';

create or replace function app_tools.issues_update_many(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_item jsonb;
  v_index int := 0;
  v_issue app_public.issues;
  v_seen uuid[] := '{}';
  v_out jsonb := '[]';
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(args->'items') e loop
    begin
      v_issue := app_hidden.issue_for_write(v_item->>'id');
      if v_issue.id = any(v_seen) then
        perform app_hidden.raise_invalid('id', 'this issue appears more than once in the batch');
      end if;
      v_seen := v_seen || v_issue.id;
      v_issue := app_hidden.update_issue(v_issue, v_item - 'id');
      v_out := v_out || jsonb_build_array(app_hidden.issue_json(v_issue, false));
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        perform app_hidden.raise_in_item(v_index, v_state, v_msg, v_detail, v_hint, v_col);
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return jsonb_build_object('items', v_out);
end
$$;
comment on function app_tools.issues_update_many(jsonb) is
  'issues.updateMany: up to 100 patches ({id, ...issues.update fields}) in one transaction, all or nothing; errors name items.N.field. One event per issue per kind.';

create or replace function app_tools.issues_create_many(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(args->'items') e loop
    begin
      v_out := v_out || jsonb_build_array(app_tools.issues_create(v_item));
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        perform app_hidden.raise_in_item(v_index, v_state, v_msg, v_detail, v_hint, v_col);
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return jsonb_build_object('items', v_out);
end
$$;
comment on function app_tools.issues_create_many(jsonb) is
  'issues.createMany: up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One ISSUE_CREATED per issue.';

-- issues.delete / queue / transition -------------------------------------------------------------------

create or replace function app_tools.issues_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where issue_id = v_issue.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  update app_public.issues set deleted_at = now() where id = v_issue.id;  -- ISSUE_DELETED by trigger
  return jsonb_build_object('ok', true, 'id', v_issue.id, 'key', v_issue.key, 'deleted', true);
end
$$;
comment on function app_tools.issues_delete(jsonb) is
  'issues.delete: soft delete (deletedAt; ISSUE_DELETED). The issue disappears from reads and lists; its open runs are abandoned. Run-mode gated.';

create or replace function app_tools.issues_queue(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('queued', coalesce((args->>'queued')::boolean, true)));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_queue(jsonb) is
  'issues.queue: puts the issue in the dispatch pool (ISSUE_QUEUED when queued flips true); queued false takes it out (ISSUE_UPDATED). Run-mode gated.';

create or replace function app_tools.issues_transition(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', args->>'statusId'));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(jsonb) is
  'issues.transition: moves the issue to another status of the workspace (any move is allowed; ISSUE_STATUS_CHANGED only on a real move). Run-mode gated.';

-- issues.claim / release --------------------------------------------------------------------------------

create or replace function app_tools.issues_claim(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %', v_issue.claim_expires_at
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240))
  where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_claim(jsonb) is
  'issues.claim: the caller''s user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again extends the claim; another user''s live claim is 409 already_claimed, an expired one is taken over. Run-mode gated.';

create or replace function app_tools.issues_release(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.claimed_by_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  if v_issue.claimed_by_id is distinct from app_hidden.current_user_id() and v_issue.claim_expires_at > now()
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the claimer, a workspace OWNER/ADMIN or an ADMIN key may release a live claim'
      using errcode = 'SV403', detail = 'not_claimer';
  end if;
  update app_public.issues set claimed_by_id = null, claim_expires_at = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_release(jsonb) is
  'issues.release: clears the human claim. The claimer may always release; another user''s live claim needs OWNER/ADMIN or an ADMIN key (403 not_claimer). Unclaimed: no change. Run-mode gated.';

-- issues.assign / reassign / assigned --------------------------------------------------------------------

create or replace function app_tools.issues_assign(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_field text := case when args ? 'agentId' then 'agentId' else 'profileKey' end;
  v_agent app_public.agents := app_hidden.find_agent(args->>'agentId', args->>'profileKey', v_field);
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = v_field, detail = 'agent_archived';
  end if;
  -- Same agent with an open run: nothing to do. Same agent without one: a fresh run (re-engagement).
  if v_issue.assigned_agent_id = v_agent.id and exists (
       select 1 from app_public.agent_runs r where r.issue_id = v_issue.id and r.agent_id = v_agent.id
         and r.status in ('ACTIVE', 'WAITING', 'STALLED')) then
    null;
  else
    perform app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'manual');
  end if;
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true)
    || jsonb_build_object('currentRun', (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
end
$$;
comment on function app_tools.issues_assign(jsonb) is
  'issues.assign: assigns an agent (agentId or profileKey; archived → 400 agent_archived). ISSUE_ASSIGNED + AGENT_ASSIGNED (reason manual, auto false); opens an ACTIVE run (mode, default EXECUTE) and abandons the previous agent''s open run. Run-mode gated.';

create or replace function app_tools.issues_reassign(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_agent app_public.agents := app_hidden.find_agent(null, args->>'toProfileKey', 'toProfileKey');
  v_rationale text := btrim(args->>'rationale');
  v_comment_id uuid;
  v_run_id uuid;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'agent_archived';
  end if;
  if v_issue.assigned_agent_id = v_agent.id then
    raise exception 'The issue is already assigned to %', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'same_agent';
  end if;
  if length(coalesce(v_rationale, '')) < 10 then
    perform app_hidden.raise_invalid('rationale', 'rationale must be at least 10 characters');
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, format('Handoff → @%s: %s', v_agent.profile_key, v_rationale), 'HANDOFF',
          app_hidden.current_user_id(), app_hidden.current_agent_id(),
          (select r.id from app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id()) r))
  returning id into v_comment_id;
  v_run_id := app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'handoff', v_rationale, v_comment_id);
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true) || jsonb_build_object(
    'handoffCommentId', v_comment_id,
    'currentRun', (select app_hidden.run_json(r) from app_public.agent_runs r where r.id = v_run_id));
end
$$;
comment on function app_tools.issues_reassign(jsonb) is
  'issues.reassign: one transaction: HANDOFF comment "Handoff → @<profileKey>: <rationale>", the swap, ISSUE_ASSIGNED and AGENT_ASSIGNED {reason handoff, rationale, commentId}; new ACTIVE run, previous open run abandoned. 400 for an archived or the same agent, or a rationale under 10 characters. Run-mode gated.';

create or replace function app_tools.issues_assigned(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_agent app_public.agents;
begin
  if args->>'agentId' is not null or args->>'profileKey' is not null then
    v_agent := app_hidden.find_agent(args->>'agentId', args->>'profileKey',
                                     case when args ? 'agentId' then 'agentId' else 'profileKey' end);
  elsif app_hidden.current_agent_id() is not null then
    v_agent := app_hidden.find_agent(app_hidden.current_agent_id()::text, null, 'agentId');
  else
    perform app_hidden.raise_invalid('agentId', 'pass agentId or profileKey, or call with a key linked to an agent');
  end if;
  return app_tools.issues_list(jsonb_build_object(
    'assignedAgentId', v_agent.id, 'limit', coalesce((args->>'limit')::int, 50), 'cursor', args->>'cursor')
    || case when coalesce((args->>'includeClosed')::boolean, false) then '{}'::jsonb else '{"open": true}'::jsonb end);
end
$$;
comment on function app_tools.issues_assigned(jsonb) is
  'issues.assigned: issues assigned to an agent (agentId, profileKey, or the key''s linked agent; 400 without any), open ones unless includeClosed; paged like issues.list.';

-- Labels on issues ---------------------------------------------------------------------------------------

create or replace function app_tools.issues_add_labels(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(args->'labelIds', 'labelIds'), null);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_add_labels(jsonb) is 'issues.addLabels: adds labels (already present: no change, no event). Run-mode gated.';

create or replace function app_tools.issues_remove_labels(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_remove uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
begin
  if (select count(*) from app_public.labels l where l.id = any(v_remove)) <> cardinality(array(select distinct unnest(v_remove))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_remove_labels(jsonb) is
  'issues.removeLabels: removes labels (absent: no change). A label-narrowed key may not remove the label that makes the issue visible to it (403 narrowing). Run-mode gated.';

-- Watchers -------------------------------------------------------------------------------------------------

create or replace function app_hidden.watcher_json(w app_public.issue_watchers) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';

create or replace function app_tools.issues_watch(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
begin
  if v_agent is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, agent_id)
    values (v_issue.workspace_id, v_issue.id, v_agent)
    on conflict (issue_id, agent_id) where agent_id is not null do nothing;
  elsif v_user is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, user_id)
    values (v_issue.workspace_id, v_issue.id, v_user)
    on conflict (issue_id, user_id) where user_id is not null do nothing;
  else
    raise exception 'This key acts for no user or agent' using errcode = 'SV403', detail = 'user_required';
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', true,
    'watcher', case when v_agent is not null then jsonb_build_object('type', 'agent', 'id', v_agent)
                    else jsonb_build_object('type', 'user', 'id', v_user) end);
end
$$;
comment on function app_tools.issues_watch(jsonb) is
  'issues.watch: the caller watches the issue (as its linked agent, else as its user); idempotent.';

create or replace function app_tools.issues_unwatch(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
begin
  if v_agent is not null then
    delete from app_public.issue_watchers where issue_id = v_issue.id and agent_id = v_agent;
  else
    delete from app_public.issue_watchers
    where issue_id = v_issue.id and agent_id is null and user_id = app_hidden.current_user_id();
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', false);
end
$$;
comment on function app_tools.issues_unwatch(jsonb) is 'issues.unwatch: removes the caller''s own watch (agent or user); idempotent.';

create or replace function app_tools.issues_list_watchers(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'watchers');
  end if;
  select coalesce(jsonb_agg(app_hidden.watcher_json(w) order by w.created_at, w.id), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.issue_watchers w
        where w.issue_id = v_issue.id
          and (v_after is null or (w.created_at, w.id) > (split_part(v_after, '|', 1)::timestamptz, split_part(v_after, '|', 2)::uuid))
        order by w.created_at, w.id limit v_limit + 1) w;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('watchers:' ||
      (select to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || w.id
       from app_public.issue_watchers w where w.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list_watchers(jsonb) is 'issues.listWatchers: watchers of an issue (user or agent identity), oldest first, paged.';

create or replace function app_tools.issues_list_watching(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
  v_before int;
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_before := app_hidden.cursor_decode(args->>'cursor', 'watching')::int;
  end if;
  select coalesce(jsonb_agg(app_hidden.issue_json(i) order by i.number desc), '[]'), count(*)
  into v_rows, v_count
  from (select i.* from app_public.issues i
        join app_public.issue_watchers w on w.issue_id = i.id
        where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
          and (case when v_agent is not null then w.agent_id = v_agent
                    else w.agent_id is null and w.user_id = v_user end)
          and (v_before is null or i.number < v_before)
        order by i.number desc limit v_limit + 1) i;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('watching:' || (v_rows->(v_limit - 1)->>'number')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list_watching(jsonb) is 'issues.listWatching: live issues the caller watches (as its agent, else as its user), newest first, paged.';

-- issues.get with every include ------------------------------------------------------------------------------

create or replace function app_tools.issues_get(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_include jsonb := coalesce(args->'include', '{}');
  v_result jsonb := app_hidden.issue_json(v_issue, false);
  v_limit int;
begin
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', coalesce(
      (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) order by il.created_at, l.id)
       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
       where il.issue_id = v_issue.id), '[]'));
  end if;
  if jsonb_typeof(v_include->'comments') = 'object' or (v_include->>'comments')::boolean then
    v_limit := coalesce((v_include->'comments'->>'limit')::int, 20);
    v_result := v_result || jsonb_build_object('comments', coalesce(
      (select jsonb_agg(app_hidden.comment_json(c) order by c.created_at desc, c.id desc)
       from (select * from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) c), '[]'));
  end if;
  if (v_include->>'attachments')::boolean then
    v_result := v_result || jsonb_build_object('attachments', coalesce(
      (select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
       from app_public.attachments a
       where a.workspace_id = v_issue.workspace_id and a.target_type = 'issue' and a.target_id = v_issue.id), '[]'));
  end if;
  if (v_include->>'relations')::boolean then
    -- Seen from this issue: BLOCKS stored from another issue to this one reads BLOCKED_BY.
    v_result := v_result || jsonb_build_object('relations', coalesce(
      (select jsonb_agg(jsonb_build_object(
          'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
          'kind', case when r.to_issue_id = v_issue.id and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
          'direction', case when r.from_issue_id = v_issue.id then 'outbound' else 'inbound' end,
          'issue', (select jsonb_build_object('id', o.id, 'key', o.key, 'title', o.title, 'statusId', o.status_id)
                    from app_public.issues o
                    where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end),
          'createdAt', r.created_at) order by r.created_at, r.id)
       from app_public.issue_relations r
       where r.workspace_id = v_issue.workspace_id and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)), '[]'));
  end if;
  if (v_include->>'currentRun')::boolean then
    v_result := v_result || jsonb_build_object('currentRun',
      (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
  end if;
  return v_result;
end
$$;
comment on function app_tools.issues_get(jsonb) is
  'issues.get: the lean issue by id or key; include adds description, labels, comments (newest first, default 20, max 100, soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.';

-- issues.list with every filter ---------------------------------------------------------------------------------

create or replace function app_tools.issues_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_rows jsonb;
  v_last int;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
  end if;
  if args->>'statusId' is not null then
    v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_where := v_where || format(' and i.status_id = %L::uuid', v_status);
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category = %L)', v_status);
    else
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and lower(s.name) = lower(%L))', v_status);
    end if;
  end if;
  if args->>'open' is not null then
    v_where := v_where || format(' and i.status_id %s (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category in (''DONE'', ''CANCELED''))',
                                 case when (args->>'open')::boolean then 'not in' else 'in' end);
  end if;
  if args->>'priority' is not null then
    v_where := v_where || format(' and i.priority = %L', args->>'priority');
  end if;
  if args ? 'projectId' then
    v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
      else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
  end if;
  if args ? 'claimedById' then
    v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                 app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;

  execute format(
    'select coalesce(jsonb_agg(app_hidden.issue_json(t) order by t.number desc), ''[]''), min(t.number), count(*)
     from (select i.* from app_public.issues i where %s order by i.number desc limit %s) t', v_where, v_limit + 1)
  into v_rows, v_last, v_count
  using app_hidden.current_workspace_id();

  if v_count > v_limit then
    v_rows := v_rows - v_limit;  -- drop the look-ahead row
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('issues:' || (v_rows->(v_limit - 1)->>'number')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list(jsonb) is
  'issues.list: newest first by number, keyset-paged; filters status (id, category or name), statusId, open, priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS narrows the rows.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 22-comments.sql
-- Comment tools (spec 4.3): create, update (revisions), delete (soft), list, upsertStatus.
-- COMMENT_CREATED / COMMENT_UPDATED come from app_private.tg_comments__events.

create or replace function app_hidden.comment_for_write(p_id text) returns app_public.comments
language plpgsql volatile as $$
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
    raise exception 'Only the author, a workspace OWNER/ADMIN or an ADMIN key may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(text) is
  'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), a person key of a workspace OWNER/ADMIN, or an ADMIN key (403 not_author otherwise).';

create or replace function app_tools.comments_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
begin
  if v_agent is not null then
    select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
    if v_run.id is not null then
      update app_public.agent_runs set last_event_at = now() where id = v_run.id;
    end if;
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, args->>'body', 'COMMENT', args->>'confidence',
          app_hidden.current_user_id(), v_agent, v_run.id)
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(jsonb) is
  'comments.create: a comment on a visible issue; author = the key''s user, authoringAgent = its linked agent (whose open run it is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode.';

create or replace function app_tools.comments_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
  v_body text := args->>'body';
  v_confidence text := case when args ? 'confidence' then args->>'confidence' else v_comment.confidence end;
begin
  if v_body = v_comment.body and v_confidence is not distinct from v_comment.confidence then
    return app_hidden.comment_json(v_comment);  -- nothing changed: no revision, no event
  end if;
  update app_public.comments c
  set body = v_body, confidence = v_confidence, edited_at = now(),
      revisions = case when v_body = v_comment.body then c.revisions else
        (select coalesce(jsonb_agg(e order by n), '[]') from (
           select e, n from jsonb_array_elements(c.revisions || jsonb_build_array(
             jsonb_build_object('body', v_comment.body, 'editedAt', now()))) with ordinality as t(e, n)
           order by n desc limit 20) s) end
  where c.id = v_comment.id
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_update(jsonb) is
  'comments.update: new body (and confidence); the previous body goes to revisions {body, editedAt} (at most 20, oldest dropped); editedAt set; COMMENT_UPDATED by trigger. Author, OWNER/ADMIN person key or ADMIN key only.';

create or replace function app_tools.comments_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
begin
  update app_public.comments set deleted_at = now() where id = v_comment.id;
  return jsonb_build_object('ok', true, 'id', v_comment.id, 'deleted', true);
end
$$;
comment on function app_tools.comments_delete(jsonb) is
  'comments.delete: soft delete (row kept for audit; hidden from lists and issue bundles); COMMENT_UPDATED {deleted: true}. Same authorization as update.';

create or replace function app_tools.comments_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'before' is not null then
    v_before := app_hidden.cursor_decode(args->>'before', 'comments');
    if v_before !~ '^[^|]+\|[0-9a-f-]{36}$' then
      perform app_hidden.raise_invalid('before', 'cursor is not one this list returned');
    end if;
  end if;
  select coalesce(jsonb_agg(app_hidden.comment_json(c) order by c.created_at desc, c.id desc), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.comments c
        where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
          and (v_before is null or (c.created_at, c.id) < (split_part(v_before, '|', 1)::timestamptz, split_part(v_before, '|', 2)::uuid))
        order by c.created_at desc, c.id desc limit v_limit + 1) c;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('comments:' ||
      (select to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || c.id
       from app_public.comments c where c.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.comments_list(jsonb) is
  'comments.list: comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before = the nextCursor of the previous page.';

create or replace function app_tools.comments_upsert_status(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_created boolean := false;
begin
  if v_agent is null then
    raise exception 'comments.upsertStatus needs a key linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
  if v_run.id is null then
    raise exception 'The calling agent has no open run on this issue' using errcode = 'SV409', detail = 'no_open_run';
  end if;
  update app_public.agent_runs set last_event_at = now() where id = v_run.id;
  select * into v_comment from app_public.comments c
  where c.run_id = v_run.id and c.kind = 'STATUS' and c.deleted_at is null
  for update;
  if v_comment.id is null then
    insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
    values (v_issue.workspace_id, v_issue.id, args->>'body', 'STATUS', args->>'confidence',
            app_hidden.current_user_id(), v_agent, v_run.id)
    returning * into v_comment;
    v_created := true;
  elsif v_comment.body is distinct from args->>'body'
        or (args ? 'confidence' and v_comment.confidence is distinct from args->>'confidence') then
    update app_public.comments
    set body = args->>'body', edited_at = now(),
        confidence = case when args ? 'confidence' then args->>'confidence' else confidence end
    where id = v_comment.id
    returning * into v_comment;
  end if;
  return app_hidden.comment_json(v_comment) || jsonb_build_object('created', v_created);
end
$$;
comment on function app_tools.comments_upsert_status(jsonb) is
  'comments.upsertStatus: the calling agent''s one rolling STATUS comment for its open run on the issue: created once (COMMENT_CREATED), then replaced in place (COMMENT_UPDATED only when the body changes; no revisions kept). 403 agent_key_required without a linked agent, 409 no_open_run without an open run. Allowed in every run mode.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;

--! split: 23-labels.sql
-- Label tools: list, create, update, delete. Labels are workspace vocabulary: any key with the scope may
-- read and create them; keys with project or label narrowing may not rename or delete them (policy in
-- 20-issue-helpers.sql), since that would change issues outside their reach.
-- No label event kinds exist (spec 6.1); deleting a label records ISSUE_UPDATED (labelIds) on each issue it was on.

create or replace function app_hidden.find_label_for_write(p_id text) returns app_public.labels
language plpgsql volatile as $$
declare v_label app_public.labels;
begin
  select * into v_label from app_public.labels
  where id = app_hidden.parse_uuid(p_id, 'id') and workspace_id = app_hidden.current_workspace_id();
  if v_label.id is null then
    raise exception 'Label not found' using errcode = 'SV404', column = 'id';
  end if;
  if not app_hidden.issues_unrestricted() then
    raise exception 'A key with project or label narrowing may not change workspace labels'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_label;
end
$$;
comment on function app_hidden.find_label_for_write(text) is 'A label of the caller''s workspace (404 otherwise) that the key may change (403 narrowing for narrowed keys).';

create or replace function app_hidden.raise_label_name_taken(p_name text) returns void
language plpgsql as $$
begin
  raise exception 'A label named "%" already exists', p_name using errcode = 'SV409', detail = 'label_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_label_name_taken(text) is 'Raises 409 label_exists (names are unique per workspace, case-insensitively).';

create or replace function app_tools.labels_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
  v_query text := nullif(btrim(coalesce(args->>'query', '')), '');
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'labels');
  end if;
  select coalesce(jsonb_agg(app_hidden.label_json(l) order by lower(l.name)), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.labels l
        where l.workspace_id = app_hidden.current_workspace_id()
          and (v_after is null or lower(l.name) > v_after)
          and (v_query is null or strpos(lower(l.name), lower(v_query)) > 0)
        order by lower(l.name) limit v_limit + 1) l;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('labels:' || lower(v_rows->(v_limit - 1)->>'name')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.labels_list(jsonb) is 'labels.list: labels of the workspace by name (query = substring, case-insensitive), paged.';

create or replace function app_tools.labels_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_label app_public.labels;
begin
  if exists (select 1 from app_public.labels l
             where l.workspace_id = app_hidden.current_workspace_id() and lower(l.name) = lower(args->>'name')) then
    perform app_hidden.raise_label_name_taken(args->>'name');
  end if;
  insert into app_public.labels (workspace_id, name, color, description)
  values (app_hidden.current_workspace_id(), args->>'name', coalesce(args->>'color', '#64748b'), args->>'description')
  returning * into v_label;
  return app_hidden.label_json(v_label);
exception when unique_violation then
  perform app_hidden.raise_label_name_taken(args->>'name');
end
$$;
comment on function app_tools.labels_create(jsonb) is 'labels.create: a new label (name unique per workspace, case-insensitive: 409 label_exists).';

create or replace function app_tools.labels_update(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
begin
  if args ? 'name' and lower(args->>'name') <> lower(v_label.name) and exists (
       select 1 from app_public.labels l
       where l.workspace_id = v_label.workspace_id and lower(l.name) = lower(args->>'name') and l.id <> v_label.id) then
    perform app_hidden.raise_label_name_taken(args->>'name');
  end if;
  update app_public.labels
  set name = case when args ? 'name' then args->>'name' else name end,
      color = case when args ? 'color' then args->>'color' else color end,
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_label.id
  returning * into v_label;
  return app_hidden.label_json(v_label);
end
$$;
comment on function app_tools.labels_update(jsonb) is 'labels.update: rename, recolor or describe a label (not for narrowed keys).';

create or replace function app_tools.labels_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
  v_count int;
begin
  -- Take it off issues first (as the caller, so each issue records ISSUE_UPDATED), then delete it.
  delete from app_public.issue_labels where label_id = v_label.id;
  get diagnostics v_count = row_count;
  delete from app_public.labels where id = v_label.id;
  return jsonb_build_object('ok', true, 'id', v_label.id, 'removedFromIssues', v_count);
end
$$;
comment on function app_tools.labels_delete(jsonb) is
  'labels.delete: deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
