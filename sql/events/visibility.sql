-- Which events a narrowed key sees, as the select_in_workspace policy of activity_events asks it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.key_unnarrowed()
 returns boolean
 language sql
 stable parallel safe
as $$
  select cardinality(app_hidden.narrowed_project_ids()) = 0
     and cardinality(app_hidden.narrowed_label_ids()) = 0
     and cardinality(app_hidden.narrowed_initiative_ids()) = 0
$$;
comment on function app_hidden.key_unnarrowed() is 'True when the calling key has no project, label or initiative narrowing: it sees every event of its workspace. The events policy asks this once per statement before any per-row check.';
grant execute on function app_hidden.key_unnarrowed() to svc_visitor;

drop function if exists app_hidden.event_subject_visible(text, uuid);  -- now with the payload (canvas issueIds)

-- plpgsql, not an inline CASE in the policy: its queries are planned once per session and only run for
-- narrowed keys, where the inline form made every events query plan ~300 sub-plans (issue 16).
create or replace function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns boolean
 language plpgsql
 stable
as $$
begin
  if p_subject_type = 'project' then
    return cardinality(app_hidden.narrowed_project_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_project_ids());
  elsif p_subject_type = 'initiative' then
    return cardinality(app_hidden.narrowed_initiative_ids()) = 0
        or p_subject_id = any(app_hidden.narrowed_initiative_ids());
  elsif p_subject_type = 'dispatch-rule' then
    -- As the rules themselves (hide_from_narrowed_keys): a narrowed key reads none, nor their events.
    return false;
  elsif p_subject_type = 'plugin' then
    -- A skill invoked about an issue (SKILL_INVOKED issueId) follows the issue; other plugin events are the workspace's.
    return p_payload->>'issueId' is null or app_hidden.issues_unrestricted()
        or exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
  elsif p_subject_type not in ('issue', 'comment', 'agent-run', 'goal', 'execution-plan', 'execution-step', 'review-gate', 'action-request', 'canvas')
        or app_hidden.issues_unrestricted() then
    return true;
  elsif p_subject_type = 'canvas' then
    -- The canvas itself is the workspace's (created, renamed, deleted); a card or edge change names the issues of
    -- its cards (issueIds, canvas_changed) and is shown only when the key sees them all, as RLS shows it the cards.
    -- Card events written before issueIds existed (migration 000072) name none, so they are not shown.
    return p_payload->>'change' is null or p_payload->>'change' = 'canvas_updated'
        or (jsonb_typeof(p_payload->'issueIds') = 'array'
            and not exists (select 1 from jsonb_array_elements_text(p_payload->'issueIds') x(id)
                            where not exists (select 1 from app_public.issues i where i.id = x.id::uuid)));
  end if;
  -- Subjects that follow their issue: read as the caller, so their own policies (narrowing included) decide.
  -- One statement per subject type: only the one that runs is started (a single CASE over seven EXISTS
  -- started all seven, policies included, in every call).
  case p_subject_type
    -- The event of an issue moving out of the key's view is shown too, by the scope it had (payload before).
    -- A link's event (payload relationId) needs the other end seen too (relatedIssueId; none in the events
    -- written before it was named, which are then not shown).
    when 'issue' then return (exists (select 1 from app_public.issues i where i.id = p_subject_id)
                              or (p_payload ? 'before' and app_hidden.scope_passes_narrowing(
                                    (p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds')))
                         and (not p_payload ? 'relationId'
                              or exists (select 1 from app_public.issues i where i.id = (p_payload->>'relatedIssueId')::uuid));
    -- A comment's events follow its issue (payload issueId), not the comment row: the comments policy hides a
    -- deleted comment, which would take its creation and its deletion out of the stream, the replay and a resume.
    when 'comment' then return exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_subject_id);
    -- A goal's events and its plans', steps' and gates' follow the goal's issue row (a narrowed key sees no goal
    -- without one), not the goal row: the goals policy hides a deleted issue's goals, which would take their events
    -- out of the stream, the replay and a resume for this key only (as for requests, below).
    when 'goal', 'execution-plan', 'execution-step', 'review-gate' then
      return exists (select 1 from app_public.issues i where i.id = app_hidden.subject_issue_id(p_subject_type, p_subject_id));
    -- A request on an issue follows the issue row (payload issueId), as comments do: the requests policy hides those
    -- of a deleted issue, which would take their events out of the stream, the replay and a resume for this key only.
    else return case when p_payload->>'issueId' is not null
                     then exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid)
                     else exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id) end;
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue, comment and agent-run events only of issues it can see (and the ISSUE_UPDATED of an issue leaving its view, by the payload''s before; a link''s ISSUE_UPDATED only when it sees the other end too, relatedIssueId), project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds), plugin events about an issue (skills.invoke issueId) only of issues it can see, dispatch-rule events never (as the rules); other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid)
 returns uuid
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Read as the owner: the record's own policy hides it once its issue is deleted, but its events stay (they follow
  -- the issue row, which the issues policy shows deleted or not, narrowing applied).
  case p_subject_type
    when 'goal' then return (select g.issue_id from app_public.goals g
                             where g.id = p_subject_id and g.workspace_id = app_hidden.current_workspace_id());
    when 'execution-plan' then return (select g.issue_id from app_public.execution_plans p join app_public.goals g on g.id = p.goal_id
                                       where p.id = p_subject_id and p.workspace_id = app_hidden.current_workspace_id());
    when 'execution-step' then return (select g.issue_id from app_public.execution_steps s
                                       join app_public.execution_plans p on p.id = s.plan_id join app_public.goals g on g.id = p.goal_id
                                       where s.id = p_subject_id and s.workspace_id = app_hidden.current_workspace_id());
    when 'review-gate' then return (select g.issue_id from app_public.review_gates rg
                                    join app_public.execution_plans p on p.id = rg.plan_id join app_public.goals g on g.id = p.goal_id
                                    where rg.id = p_subject_id and rg.workspace_id = app_hidden.current_workspace_id());
    when 'chat-thread' then return (select t.issue_id from app_public.chat_threads t
                                    where t.id = p_subject_id and t.workspace_id = app_hidden.current_workspace_id());
    else return null;
  end case;
end
$$;
comment on function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid) is 'The issue a goal, execution plan or step, review gate (through its goal) or chat thread of the caller''s workspace is tied to (null: none, or no such record), read as the owner: what a narrowed key''s view of their events follows (event_subject_visible, chat_event_passes_narrowing), deleted issue or not.';
grant execute on function app_hidden.subject_issue_id(p_subject_type text, p_subject_id uuid) to svc_visitor;

create or replace function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Runs as the caller: the threads policy decides (the addressee agent's keys, the person who opened it,
  -- workspace admins; a thread tied to an issue only for keys that may see it). The issue a person's message
  -- was about is in the payload, so it must be visible too.
  return exists (select 1 from app_public.chat_threads t where t.id = p_thread_id)
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) is 'Whether the caller sees a chat-thread event: the caller sees the thread (chat_threads policy: participants and admins, the thread issue''s narrowing) and the issue of the message''s context, if any. The event stream asks it for realtime drafts; the events policy asks chat_event_passes_narrowing.';
grant execute on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) to svc_visitor;

create or replace function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text)
 returns boolean
 language plpgsql
 stable
as $$
declare v_issue uuid := app_hidden.subject_issue_id('chat-thread', p_thread_id);
begin
  -- The events policy decides who takes part from the payload; this is the narrowing: the thread's issue as the
  -- caller sees issues (the row, deleted or not: the threads policy hides a deleted issue's threads, which would
  -- take their stored events out of the stream, the replay and a resume for this key only, as for requests), and
  -- the issue a person's message was about (in the payload).
  return (v_issue is null or exists (select 1 from app_public.issues i where i.id = v_issue))
     and (p_context_issue_id is null or app_hidden.visible_issue_id(p_context_issue_id::uuid) is not null);
end
$$;
comment on function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text) is 'Whether a narrowed key sees a stored chat-thread event, beyond the participants the events policy reads from the payload: the thread''s issue, if any, passes the key''s narrowing (deleted or not: a deleted issue''s thread keeps its events, as its requests do), and so does the issue of the message''s context, if any.';
grant execute on function app_hidden.chat_event_passes_narrowing(p_thread_id uuid, p_context_issue_id text) to svc_visitor;
