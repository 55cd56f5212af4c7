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
      'changes', to_jsonb(app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['title', 'description']))));
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
  elsif new.status is distinct from old.status then
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
  v_changes := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'description', 'max_parallel', 'archived_at:archived']);
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

create or replace function app_private.tg_goals__live_crew()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_crew app_public.agent_crews;
begin
  -- goals.create checked the crew live, but an archive committing meanwhile would leave an OPEN goal run by an
  -- archived crew. Held in share mode until commit (definer: any key that may create a goal, not only an ADMIN,
  -- may hold it): the archive (FOR NO KEY UPDATE) waits for this insert, or this insert waits and finds it archived.
  select * into v_crew from app_public.agent_crews c where c.id = new.crew_id and c.workspace_id = new.workspace_id for share;
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_goals__live_crew() is 'BEFORE INSERT or UPDATE OF crew_id on goals, with a crew: locks the crew (share) and 409 crew_archived when it is archived, so no goal is created for a crew archived at the same moment whatever commits first.';

drop trigger if exists _050_live_crew on app_public.goals;
create trigger _050_live_crew before insert or update of crew_id on app_public.goals for each row
  when (new.crew_id is not null) execute function app_private.tg_goals__live_crew();
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
