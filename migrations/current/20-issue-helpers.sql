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
