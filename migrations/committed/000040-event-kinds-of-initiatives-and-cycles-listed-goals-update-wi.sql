--! Previous: sha1:035714d053c08542be849291a1b9d2f5b2e75bbb
--! Hash: sha1:e4af28b6708b5d53a05bc5b64519868208cd6edc
--! Message: event kinds of initiatives and cycles listed; goals.update with GOAL_UPDATED

--! split: 1-current.sql
-- The event kinds of initiatives and cycles (INITIATIVE_CREATED/UPDATED, CYCLE_CREATED/UPDATED) were recorded
-- but missing from app_hidden.event_kinds(): a webhook or a notification preference could not name them.
--! Included events/record.sql
-- events: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean)
 returns json
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (events.recent joins the actors).
  -- json (text), not jsonb: events.recent joins its page as text (twice the pages per second).
  select case when p_with_actor then json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at, 'actor', coalesce(
       case when a.id is not null then json_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent') end,
       case when u.id is not null then json_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user') end))
  else json_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at) end
$$;
comment on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) is 'The ActivityEvent shape (json) from rows the caller already fetched: the acting agent (a) when set and visible, else the acting user (u); inlined into lists.';
grant execute on function app_hidden.event_shape(e app_public.activity_events, a app_public.agents, u app_public.users, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.event_shape(e,
    case when p_with_actor then (select a from app_public.agents a where a.id = e.actor_agent_id) end,
    case when p_with_actor then (select u from app_public.users u where u.id = e.actor_user_id) end,
    p_with_actor)::jsonb
$$;
comment on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) is 'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';
grant execute on function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean) to svc_visitor;

create or replace function app_hidden.event_kinds()
 returns text[]
 language sql
 immutable parallel safe
as $$
  select array[
    'ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_DELETED', 'ISSUE_STATUS_CHANGED', 'ISSUE_ASSIGNED',
    'ISSUE_PRIORITY_CHANGED', 'ISSUE_QUEUED', 'COMMENT_CREATED', 'COMMENT_UPDATED', 'PROJECT_CREATED',
    'PROJECT_UPDATED', 'SKILL_INVOKED', 'PLUGIN_ERROR', 'AGENT_CREATED', 'AGENT_UPDATED', 'AGENT_DELETED',
    'AGENT_ASSIGNED', 'AGENT_STATUS_CHANGED', 'MEMBERSHIP_CREATED', 'MEMBERSHIP_ROLE_CHANGED',
    'MEMBERSHIP_REMOVED', 'ISSUE_STALLED', 'AGENT_NOACK', 'ISSUE_SLA_BREACH', 'CHAT_MESSAGE_POSTED',
    'GOAL_CREATED', 'GOAL_STATUS_CHANGED', 'EXECUTION_STEP_READY', 'EXECUTION_STEP_JUDGED',
    'PLAN_BUDGET_EXCEEDED', 'AGENT_RUN_KICKED', 'AGENT_RUN_STATUS_CHANGED', 'RUNTIME_REGISTERED',
    'RUNTIME_UPDATED', 'EXECUTION_PLAN_STATUS_CHANGED', 'EXECUTION_STEP_STATUS_CHANGED',
    'REVIEW_GATE_OPENED', 'REVIEW_GATE_RESOLVED', 'CREW_CREATED', 'CREW_UPDATED',
    'INITIATIVE_CREATED', 'INITIATIVE_UPDATED', 'CYCLE_CREATED', 'CYCLE_UPDATED', 'GOAL_UPDATED']::text[]
$$;
comment on function app_hidden.event_kinds() is 'Every ActivityEvent kind (spec 6.1, AGENT_RUN_KICKED, and ours of docs/decisions.md: run status, runtimes, orchestration, initiatives, cycles); kept equal to src/events/kinds.ts by a test.';
grant execute on function app_hidden.event_kinds() to svc_visitor;

create or replace function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.publish_ephemeral_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions (chat drafts): publishes a stream-only event in the caller''s workspace only.';
grant execute on function app_hidden.publish_ephemeral_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

create or replace function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_event jsonb := jsonb_build_object(
    'id', gen_random_uuid(), 'kind', p_kind, 'subjectType', p_subject_type, 'subjectId', p_subject_id,
    'payload', coalesce(p_payload, '{}'), 'createdAt', clock_timestamp());
  v_message text := json_build_object('workspaceId', p_workspace_id, 'event', v_event)::text;
begin
  if p_workspace_id is null then
    raise exception 'No workspace' using errcode = 'SV403';
  end if;
  if p_kind !~ '^[A-Z_]+$' then
    perform app_hidden.raise_invalid('kind', 'kind must be an event kind such as CHAT_MESSAGE_POSTED');
  end if;
  -- NOTIFY payloads are limited to 8000 bytes; keep headroom for the envelope.
  if octet_length(v_message) > 7800 then
    perform app_hidden.raise_invalid('payload', 'ephemeral event too large (max about 7.5 kB)');
  end if;
  perform pg_notify('svc_stream', v_message);
  return v_event;
end
$$;
comment on function app_private.publish_ephemeral_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Publishes a stream-only event (e.g. CHAT_MESSAGE_POSTED on chat-thread-stream) to the workspace''s SSE subscribers when the transaction commits; nothing is stored, nothing is replayed.';

create or replace function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create or replace function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb default '{}'::jsonb)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_id uuid;
begin
  select e.id into v_id from app_public.activity_events e
  where e.workspace_id = p_workspace_id and e.subject_type = 'issue' and e.subject_id = p_issue_id
    and e.kind = 'ISSUE_UPDATED' and e.created_at = now()
    and e.actor_key_id is not distinct from app_hidden.current_key_id()
  order by e.seq desc limit 1;
  if v_id is null then
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'issue', p_issue_id,
      jsonb_build_object('issueId', p_issue_id, 'changes', to_jsonb(p_changes)) || coalesce(p_extra, '{}'));
  else
    update app_public.activity_events e
    set payload = e.payload || coalesce(p_extra, '{}') || jsonb_build_object('changes',
      (select jsonb_agg(distinct c) from (
         select jsonb_array_elements_text(e.payload->'changes') c union select unnest(p_changes)) s))
    where e.id = v_id;
  end if;
end
$$;
comment on function app_private.record_issue_updated(p_workspace_id uuid, p_issue_id uuid, p_changes text[], p_extra jsonb) is 'Writes ISSUE_UPDATED for an issue, or merges the changed fields into the one this transaction already wrote (same key, written at now()): one event per issue per call, bulk calls included.';
--! EndIncluded events/record.sql
-- goals.update: a goal's title and description, with GOAL_UPDATED (ours).
grant update (title, description) on app_public.goals to svc_visitor;
--! Included orchestration/triggers.sql
-- Triggers of the orchestration tables (goals, plans, steps, gates, crews) and the budget stop on agent runs.
-- Every status change records its ActivityEvent here, in the same transaction.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_goals__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event uuid;
  v_payload jsonb;
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'GOAL_CREATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'issueId', new.issue_id, 'crewId', new.crew_id, 'status', new.status,
      'maxTotalCostUsd', new.max_total_cost_usd, 'maxWallTimeMinutes', new.max_wall_time_minutes));
  elsif new.status is not distinct from old.status then
    -- goals.update: the text changed (ours; the spec has no kind for it).
    if (new.title, new.description) is not distinct from (old.title, old.description) then
      return null;
    end if;
    perform app_private.record_event(new.workspace_id, 'GOAL_UPDATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'status', new.status,
      'changes', to_jsonb(array_remove(array[
        case when new.title is distinct from old.title then 'title' end,
        case when new.description is distinct from old.description then 'description' end], null))));
  else
    v_payload := app_hidden.goal_status_payload(new, old.status, new.status);
    v_event := app_private.record_event(new.workspace_id, 'GOAL_STATUS_CHANGED', 'goal', new.id, v_payload);
    -- Planning starts: the planner of the new attempt is dispatched.
    if new.status = 'PLANNING' and v_payload->>'plannerAgentId' is not null then
      perform app_private.enqueue_agent_dispatch(v_event, (v_payload->>'plannerAgentId')::uuid);
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_goals__events() is 'GOAL_CREATED on insert; GOAL_STATUS_CHANGED {from, to, planId, plannerAgentId} on every status move, dispatched to the planner when planning starts; GOAL_UPDATED {goalId, title, status, changes} when goals.update changes the title or description.';

create or replace function app_private.tg_execution_plans__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_PLAN_STATUS_CHANGED', 'execution-plan', new.id, jsonb_build_object(
      'planId', new.id, 'goalId', new.goal_id, 'attempt', new.attempt,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_plans__events() is 'EXECUTION_PLAN_STATUS_CHANGED {planId, goalId, attempt, from, to} when a plan is created (from null) and on every status move.';

create or replace function app_private.tg_execution_steps__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_STEP_STATUS_CHANGED', 'execution-step', new.id, jsonb_build_object(
      'planId', new.plan_id, 'stepId', new.id, 'title', new.title,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status, 'retryCount', new.retry_count));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_steps__events() is 'EXECUTION_STEP_STATUS_CHANGED {planId, stepId, from, to, retryCount} when a step is added (from null) and on every status move (READY also writes EXECUTION_STEP_READY, judging EXECUTION_STEP_JUDGED).';

create or replace function app_private.tg_review_gates__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_goal uuid := (select p.goal_id from app_public.execution_plans p where p.id = new.plan_id);
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_OPENED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'title', new.title, 'details', new.details));
  elsif new.status is not distinct from old.status then
    -- goals.update: the text changed (ours; the spec has no kind for it).
    if (new.title, new.description) is not distinct from (old.title, old.description) then
      return null;
    end if;
    perform app_private.record_event(new.workspace_id, 'GOAL_UPDATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'status', new.status,
      'changes', to_jsonb(array_remove(array[
        case when new.title is distinct from old.title then 'title' end,
        case when new.description is distinct from old.description then 'description' end], null))));
  else
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_RESOLVED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'from', old.status, 'to', new.status, 'note', new.resolution_note));
  end if;
  return null;
end
$$;
comment on function app_private.tg_review_gates__events() is 'REVIEW_GATE_OPENED when a gate opens, REVIEW_GATE_RESOLVED {from, to, note} when it is approved, rejected or canceled.';

create or replace function app_private.tg_agent_crews__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CREW_CREATED', 'crew', new.id,
      jsonb_build_object('crewId', new.id, 'name', new.name, 'maxParallel', new.max_parallel));
    return null;
  end if;
  v_changes := array_remove(array[
    case when new.name is distinct from old.name then 'name' end,
    case when new.description is distinct from old.description then 'description' end,
    case when new.max_parallel is distinct from old.max_parallel then 'maxParallel' end,
    case when new.archived_at is distinct from old.archived_at then 'archived' end], null);
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(new.workspace_id, 'CREW_UPDATED', 'crew', new.id, jsonb_build_object(
      'crewId', new.id, 'name', new.name, 'changes', to_jsonb(v_changes), 'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_agent_crews__events() is 'CREW_CREATED on insert; CREW_UPDATED {changes} when name, description, maxParallel or the archived state change.';

create or replace function app_private.tg_agent_crew_members__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.agent_crew_members := case when tg_op = 'DELETE' then old else new end;
begin
  if tg_op = 'INSERT' and exists (select 1 from app_public.agent_crews c where c.id = new.crew_id and c.created_at = now()) then
    return null;  -- members given to agentCrews.create belong to its CREW_CREATED
  end if;
  perform app_private.record_event(v_row.workspace_id, 'CREW_UPDATED', 'crew', v_row.crew_id, jsonb_build_object(
    'crewId', v_row.crew_id, 'changes', jsonb_build_array('members'), 'memberId', v_row.id, 'agentId', v_row.agent_id,
    'role', v_row.role, 'previousRole', case when tg_op = 'UPDATE' then old.role end,
    'action', case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'role_changed' end));
  return null;
end
$$;
comment on function app_private.tg_agent_crew_members__events() is 'CREW_UPDATED {changes: [members], action added|removed|role_changed} for member changes of an existing crew.';

create or replace function app_private.tg_agent_runs__plan_budget()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_total numeric;
  v_started timestamptz;
  v_reason text;
  v_gate app_public.review_gates;
begin
  select p.* into v_plan from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
  where s.id = new.step_id for update of p;
  if v_plan.id is null or v_plan.status <> 'RUNNING' then
    return null;
  end if;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if v_goal.max_total_cost_usd is null and v_goal.max_wall_time_minutes is null then
    return null;
  end if;
  v_total := app_hidden.goal_cost(v_goal.id);
  v_started := coalesce(v_goal.started_at, v_plan.started_at);
  -- Each cap stops a plan once: approving the gate lets that attempt continue past it.
  if v_goal.max_total_cost_usd is not null and v_total > v_goal.max_total_cost_usd
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_COST') then
    v_reason := 'cost';
  elsif v_goal.max_wall_time_minutes is not null and now() > v_started + make_interval(mins => v_goal.max_wall_time_minutes)
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_WALL_TIME') then
    v_reason := 'wall_time';
  end if;
  if v_reason is null then
    return null;
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'BLOCKED');
  v_gate := app_hidden.open_gate(v_plan, null, case v_reason when 'cost' then 'BUDGET_COST' else 'BUDGET_WALL_TIME' end,
    case v_reason when 'cost' then format('Budget exceeded: $%s spent of $%s', v_total, v_goal.max_total_cost_usd)
                  else format('Wall time exceeded: running since %s, cap %s minutes', v_started, v_goal.max_wall_time_minutes) end,
    jsonb_build_object('totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
                       'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'startedAt', v_started, 'runId', new.id));
  perform app_private.record_event(v_plan.workspace_id, 'PLAN_BUDGET_EXCEEDED', 'execution-plan', v_plan.id, jsonb_build_object(
    'planId', v_plan.id, 'goalId', v_goal.id, 'totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
    'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'reason', v_reason, 'gateId', v_gate.id, 'runId', new.id,
    'elapsedMinutes', floor(extract(epoch from now() - v_started) / 60)));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__plan_budget() is 'Budget stop (spec 3.8): when a step run''s usage is updated (runs.recordUsage or any writer) and its RUNNING plan''s goal is past maxTotalCostUsd (sum of its step runs) or maxWallTimeMinutes (since the goal started), the plan becomes BLOCKED, a review gate opens and PLAN_BUDGET_EXCEEDED is written. Once per cap per plan.';

drop trigger if exists _100_updated_at on app_public.goals;
create trigger _100_updated_at before update on app_public.goals for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.goals;
create trigger _800_events after insert or update of status, title, description on app_public.goals for each row execute function app_private.tg_goals__events();

drop trigger if exists _100_updated_at on app_public.execution_plans;
create trigger _100_updated_at before update on app_public.execution_plans for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_plans;
create trigger _800_events after insert or update of status on app_public.execution_plans for each row execute function app_private.tg_execution_plans__events();

drop trigger if exists _100_updated_at on app_public.execution_steps;
create trigger _100_updated_at before update on app_public.execution_steps for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_steps;
create trigger _800_events after insert or update of status on app_public.execution_steps for each row execute function app_private.tg_execution_steps__events();

drop trigger if exists _100_updated_at on app_public.review_gates;
create trigger _100_updated_at before update on app_public.review_gates for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.review_gates;
create trigger _800_events after insert or update of status on app_public.review_gates for each row execute function app_private.tg_review_gates__events();

drop trigger if exists _100_updated_at on app_public.agent_crews;
create trigger _100_updated_at before update on app_public.agent_crews for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.agent_crews;
create trigger _800_events after insert or update on app_public.agent_crews for each row execute function app_private.tg_agent_crews__events();
drop trigger if exists _800_events on app_public.agent_crew_members;
create trigger _800_events after insert or update of role or delete on app_public.agent_crew_members for each row execute function app_private.tg_agent_crew_members__events();

drop trigger if exists _700_plan_budget on app_public.agent_runs;
create trigger _700_plan_budget after update of cost_usd, tokens_in, tokens_out, tokens_cached, last_event_at on app_public.agent_runs
  for each row when (new.step_id is not null) execute function app_private.tg_agent_runs__plan_budget();
--! EndIncluded orchestration/triggers.sql
--! Included goals/tools/update.sql
-- The goals.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- title, description (null clears it) of a goal not yet ACHIEVED or ABANDONED (409 goal_closed); GOAL_UPDATED by
-- trigger, none when nothing changes.
create or replace function app_tools.goals_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  select * into v_goal from app_public.goals where id = v_goal.id for update;
  if v_goal.status in ('ACHIEVED', 'ABANDONED') then
    raise exception 'Goal is %: it can no longer change', lower(v_goal.status) using errcode = 'SV409', detail = 'goal_closed';
  end if;
  update app_public.goals
  set title = coalesce(args->>'title', title),
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_goal.id
    and (coalesce(args->>'title', title), case when args ? 'description' then args->>'description' else description end)
        is distinct from (title, description)
  returning * into v_goal;
  if not found then
    v_goal := app_hidden.find_goal(args->>'id');
  end if;
  return app_hidden.goal_json(v_goal);
end
$$;
comment on function app_tools.goals_update(args jsonb) is 'goals.update: Change the title or description (null clears it) of a goal that is not ACHIEVED or ABANDONED (409 goal_closed). Writes GOAL_UPDATED {changes}; nothing when nothing changes.';
grant execute on function app_tools.goals_update(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/update.sql
