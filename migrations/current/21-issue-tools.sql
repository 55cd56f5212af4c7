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
