--! Previous: sha1:35fd155da3fc2cbd2c057314574ea343b68faba3
--! Hash: sha1:8ef5816efa82a0278a084e27725bbf4b289a6414
--! Message: Orchestration lists on page_json, one dispatch-rule insert, context bundle artifacts, bounded search ranking, more catalog tools

--! split: 1-current.sql
-- Enter migration here

--! split: 4-perf.sql
-- Search ranks at most the newest 1,000 matches (issue 16).

--! Included issues/search.sql
-- Full-text search over issues (issues.list query, GraphQL searchIssues).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.search_tsquery(p_query text, p_field text default 'query'::text)
 returns tsquery
 language plpgsql
 immutable
as $$
declare
  v_words text[];
begin
  -- Only the words (letters and digits) reach to_tsquery: no operator, quote or backslash of the input can.
  v_words := array(select lower(m[1]) from regexp_matches(coalesce(p_query, ''), '([[:alnum:]]+)', 'g') m limit 32);
  if cardinality(v_words) = 0 then
    raise exception 'query has no words to search for' using errcode = 'SV400', column = p_field;
  end if;
  -- Every word must match; the last one as a prefix (people search while they type).
  return to_tsquery('simple', array_to_string(v_words, ' & ') || ':*');
end
$$;
comment on function app_hidden.search_tsquery(p_query text, p_field text) is 'The tsquery of a search box: its words (letters and digits, at most 32) ANDed, the last one as a prefix; 400 on the field when it has none.';
grant execute on function app_hidden.search_tsquery(p_query text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real default null::real, p_after_number integer default null::integer, p_limit integer default null::integer)
 returns table(id uuid, number integer, rank real)
 language plpgsql
 stable rows 100
 security definer
 set search_path to 'pg_catalog'
 set plan_cache_mode to 'force_custom_plan'
as $$
declare
  -- Only the newest v_ranked matches are ranked (ts_rank reads each match's document); older ones follow,
  -- newest first, with rank -1.
  v_ranked constant int := 1000;
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce(p_limit, 2147483647);
  v_boundary int;
  v_n int := 0;
  v_ids uuid[];
  v_numbers int[];
  v_ranks real[];
begin
  if p_after_rank is null or p_after_rank >= 0 then
    -- The candidates: newest first through the list index when most issues match (it stops after
    -- v_ranked), through issues_search_gin when few do (custom plan per call: the planner sees the query).
    select coalesce(array_agg(c.id), '{}'), coalesce(array_agg(c.number), '{}'),
           coalesce(array_agg(pg_catalog.ts_rank(c.search, p_query)), '{}')
    into v_ids, v_numbers, v_ranks
    from (select i.id, i.number, i.search from app_public.issues i
          where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
          order by i.number desc limit v_ranked) c;
    if pg_catalog.cardinality(v_ids) = v_ranked then
      v_boundary := v_numbers[v_ranked];
    end if;
    return query
      select c.id, c.number, c.rank from rows from (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_numbers), pg_catalog.unnest(v_ranks)) as c(id, number, rank)
      where p_after_rank is null or (c.rank, c.number) < (p_after_rank, p_after_number)
      order by c.rank desc, c.number desc
      limit v_limit;
    get diagnostics v_n = row_count;
    if v_boundary is null or v_n >= v_limit then
      return;
    end if;
    p_after_number := v_boundary;
  end if;
  return query
    select i.id, i.number, (-1)::real from app_public.issues i
    where i.workspace_id = v_ws and i.deleted_at is null and i.search operator(pg_catalog.@@) p_query
      and i.number < p_after_number
    order by i.number desc
    limit v_limit - v_n;
end
$$;
comment on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) is 'The caller''s workspace''s issues matching p_query: the newest 1,000 matches best rank first, then newest; older matches after them, newest first, with rank -1 (ranking every match of a common word cost 0.4 s at 100,000 issues). After the (rank, number) of a cursor, at most p_limit (null = all). Definer: under RLS the planner may not use the index (@@ is not leakproof, so it would test every row of the workspace after the policy); callers join the ids back to app_public.issues, where the policies (narrowing) apply, and pass p_limit only when nothing else filters.';
grant execute on function app_hidden.issue_search_matches(p_query tsquery, p_after_rank real, p_after_number integer, p_limit integer) to svc_visitor;

create or replace function app_public.search_issues(query text)
 returns setof app_public.issues
 language sql
 stable
as $$
  select i.* from app_hidden.issue_search_matches(app_hidden.search_tsquery(query)) m
  join app_public.issues i on i.id = m.id
  order by m.rank desc, m.number desc
$$;
comment on function app_public.search_issues(query text) is 'Issues whose title or description match the words of query (the last word as a prefix), best match first (title matches weigh more), then newest. Only issues the key may see.';
grant execute on function app_public.search_issues(query text) to svc_visitor;
--! EndIncluded issues/search.sql

--! split: 5-lead.sql
-- Orchestration lists page through app_hidden.page_json; one function adds dispatch rules for the
-- in-app procedure and the operator's CLI.
drop function if exists app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text);
--! Included dispatch/rules.sql
-- dispatch: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null and not exists (
       select 1 from app_public.agents where id = p_target_agent_id and workspace_id = p_workspace_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
  end if;
  if p_label_id is not null and not exists (
       select 1 from app_public.labels where id = p_label_id and workspace_id = p_workspace_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (
       select 1 from app_public.projects where id = p_project_id and workspace_id = p_workspace_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) is 'The priority must be one of the issue priorities; the agent, label and project a rule names must be in the workspace and visible to the caller (for a key, RLS adds its narrowing), else 404 naming the field.';
grant execute on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) to svc_visitor;

-- The one place a rule is added: the in-app procedure and the operator's CLI both come here.
create or replace function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.dispatch_rules_check_refs(p_workspace_id, p_target_agent_id, p_label_id, p_project_id, p_priority);
  -- Two concurrent adds must not take the same position.
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch_rules:' || p_workspace_id::text, 0));
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = p_workspace_id;
  if p_at_position is not null and p_at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = p_workspace_id and r.position >= coalesce(p_at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (p_workspace_id, coalesce(p_at_position, v_count), p_name, p_priority, p_label_id, p_project_id,
          p_target_agent_id, coalesce(p_enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) is 'Adds a dispatch rule to the workspace at p_at_position (0 = first; null = last), moving later rules down; checks what the rule names (dispatch_rules_check_refs).';
grant execute on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_create(target_agent_id uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, at_position integer default NULL::integer, enabled boolean default true)
 returns app_public.dispatch_rules
 language plpgsql
as $$
begin
  perform app_hidden.require_workspace_admin_key();
  return app_hidden.dispatch_rules_insert(app_hidden.current_workspace_id(), target_agent_id, priority, label_id,
                                          project_id, name, at_position, enabled);
end
$$;
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is 'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
grant execute on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_delete(rule_id uuid)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(rule_id uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
grant execute on function app_public.dispatch_rules_delete(rule_id uuid) to svc_visitor;

create or replace function app_public.dispatch_rules_reorder(rule_ids uuid[])
 returns setof app_public.dispatch_rules
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  if rule_ids is null
     or cardinality(rule_ids) <> (select count(distinct x) from unnest(rule_ids) x)
     or (select array_agg(r.id order by r.id) from app_public.dispatch_rules r where r.workspace_id = v_ws)
        is distinct from (select array_agg(x order by x) from unnest(rule_ids) x) then
    perform app_hidden.raise_invalid('ruleIds', 'must list every dispatch rule of the workspace exactly once');
  end if;
  update app_public.dispatch_rules r set position = o.n - 1
  from unnest(rule_ids) with ordinality as o(id, n)
  where r.id = o.id and r.position <> o.n - 1;
  return query select * from app_public.dispatch_rules r where r.workspace_id = v_ws order by r.position;
end
$$;
comment on function app_public.dispatch_rules_reorder(rule_ids uuid[]) is 'OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';
grant execute on function app_public.dispatch_rules_reorder(rule_ids uuid[]) to svc_visitor;

create or replace function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid default NULL::uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, enabled boolean default NULL::boolean, clear text[] default '{}'::text[])
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(app_hidden.current_workspace_id(), target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(dispatch_rules_update.name, r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';
grant execute on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) to svc_visitor;

create or replace function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text default NULL::text, p_label_id uuid default NULL::uuid, p_project_id uuid default NULL::uuid, p_name text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules := app_hidden.dispatch_rules_insert(
  p_workspace_id, p_target_agent_id, p_priority, p_label_id, p_project_id, p_name, null, true);
begin
  return jsonb_build_object('id', v_rule.id, 'position', v_rule.position, 'name', v_rule.name,
    'targetAgentId', v_rule.target_agent_id, 'priority', v_rule.priority, 'labelId', v_rule.label_id,
    'projectId', v_rule.project_id, 'enabled', v_rule.enabled, 'createdAt', v_rule.created_at);
end
$$;
comment on function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text) is 'Operator (svc admin create-dispatch-rule): appends a dispatch rule at the end of the workspace''s order; the agent, label and project must belong to that workspace (404 naming the field).';
--! EndIncluded dispatch/rules.sql
--! Included goals/tools/list.sql
-- The goals.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- goals the key can see, newest first, keyset-paged; status filter; archived ones only with includeArchived.
create or replace function app_tools.goals_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'goals');
begin
  return app_hidden.page_json(array(
    select (app_hidden.goal_json(g), app_hidden.ts_key(g.created_at), g.id)::app_hidden.page_row
    from app_public.goals g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (coalesce((args->>'includeArchived')::boolean, false) or g.archived_at is null)
      and (args->>'crewId' is null or g.crew_id = app_hidden.parse_uuid(args->>'crewId', 'crewId'))
      and (v_after.sort_id is null or (g.created_at, g.id) < (v_after.sort_key::timestamptz, v_after.sort_id))
    order by g.created_at desc, g.id desc limit v_limit + 1), v_limit, 'goals');
end
$$;
comment on function app_tools.goals_list(args jsonb) is 'goals.list: Goals, newest first, paged ({items, nextCursor}), each with planCount and aggregate. Filters: status, crewId; archived goals only with includeArchived.';
grant execute on function app_tools.goals_list(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/list.sql
--! Included reviewGates/tools/list.sql
-- The reviewGates.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- gates the key can see, newest first, keyset-paged; filters status, planId, goalId.
create or replace function app_tools.review_gates_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'review_gates');
begin
  return app_hidden.page_json(array(
    select (app_hidden.gate_json(g), app_hidden.ts_key(g.created_at), g.id)::app_hidden.page_row
    from app_public.review_gates g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (args->>'planId' is null or g.plan_id = app_hidden.parse_uuid(args->>'planId', 'planId'))
      and (args->>'goalId' is null or g.plan_id in (select p.id from app_public.execution_plans p
                                                    where p.goal_id = app_hidden.parse_uuid(args->>'goalId', 'goalId')))
      and (v_after.sort_id is null or (g.created_at, g.id) < (v_after.sort_key::timestamptz, v_after.sort_id))
    order by g.created_at desc, g.id desc limit v_limit + 1), v_limit, 'review_gates');
end
$$;
comment on function app_tools.review_gates_list(args jsonb) is 'reviewGates.list: Review gates (approval checkpoints of the loop), newest first, paged ({items, nextCursor}). Filters: status, planId, goalId.';
grant execute on function app_tools.review_gates_list(args jsonb) to svc_visitor;
--! EndIncluded reviewGates/tools/list.sql
--! Included executionPlans/tools/list.sql
-- The executionPlans.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- plans the key can see, newest first, keyset-paged; filters goalId, status, activeOnly.
create or replace function app_tools.execution_plans_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'execution_plans');
begin
  return app_hidden.page_json(array(
    select (app_hidden.plan_json(p), app_hidden.ts_key(p.created_at), p.id)::app_hidden.page_row
    from app_public.execution_plans p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (args->>'goalId' is null or p.goal_id = app_hidden.parse_uuid(args->>'goalId', 'goalId'))
      and (args->>'status' is null or p.status = args->>'status')
      and (not coalesce((args->>'activeOnly')::boolean, false) or p.is_active_attempt)
      and (v_after.sort_id is null or (p.created_at, p.id) < (v_after.sort_key::timestamptz, v_after.sort_id))
    order by p.created_at desc, p.id desc limit v_limit + 1), v_limit, 'execution_plans');
end
$$;
comment on function app_tools.execution_plans_list(args jsonb) is 'executionPlans.list: Execution plans, newest first, paged ({items, nextCursor}). Filters: goalId, status, activeOnly.';
grant execute on function app_tools.execution_plans_list(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/list.sql
--! Included actionRequests/tools/list.sql
-- The actionRequests.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- requests the key can see, newest first, keyset-paged; filters status, assignee, issue, source.
create or replace function app_tools.action_requests_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'action_requests');
begin
  return app_hidden.page_json(array(
    select (app_hidden.action_request_json(a), app_hidden.ts_key(a.created_at), a.id)::app_hidden.page_row
    from app_public.action_requests a
    where a.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or a.status = args->>'status')
      and (args->>'assignedAgentId' is null or a.assigned_agent_id = app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId'))
      and (args->>'assignedUserId' is null or a.assigned_user_id = app_hidden.parse_uuid(args->>'assignedUserId', 'assignedUserId'))
      and (v_issue is null or a.issue_id = v_issue)
      and (args->>'sourceType' is null or a.source_type = args->>'sourceType')
      and (args->>'sourceId' is null or a.source_id = app_hidden.parse_uuid(args->>'sourceId', 'sourceId'))
      and (v_after.sort_id is null or (a.created_at, a.id) < (v_after.sort_key::timestamptz, v_after.sort_id))
    order by a.created_at desc, a.id desc limit v_limit + 1), v_limit, 'action_requests');
end
$$;
comment on function app_tools.action_requests_list(args jsonb) is 'actionRequests.list: Action requests (recommendation cards and polls), newest first, paged ({items, nextCursor}). Filters: status, assignedAgentId, assignedUserId, issueId, sourceType, sourceId. A narrowed key sees those on issues it can see and those assigned to it.';
grant execute on function app_tools.action_requests_list(args jsonb) to svc_visitor;
--! EndIncluded actionRequests/tools/list.sql
--! Included agentCrews/tools/list.sql
-- The agentCrews.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- crews with members and member/plan counts, oldest first, keyset-paged; archived ones with includeArchived.
create or replace function app_tools.agent_crews_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode(args->>'cursor', 'agent_crews');
begin
  return app_hidden.page_json(array(
    select (app_hidden.crew_json(c), app_hidden.ts_key(c.created_at), c.id)::app_hidden.page_row
    from app_public.agent_crews c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (coalesce((args->>'includeArchived')::boolean, false) or c.archived_at is null)
      and (v_after.sort_id is null or (c.created_at, c.id) > (v_after.sort_key::timestamptz, v_after.sort_id))
    order by c.created_at, c.id limit v_limit + 1), v_limit, 'agent_crews');
end
$$;
comment on function app_tools.agent_crews_list(args jsonb) is 'agentCrews.list: Agent crews, oldest first, paged ({items, nextCursor}), with members and member and plan counts; archived crews with includeArchived.';
grant execute on function app_tools.agent_crews_list(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/list.sql
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
  v_get jsonb;
begin
  if (args->>'issueId' is null) = (args->>'threadId' is null) then
    perform app_hidden.raise_invalid(case when args->>'issueId' is null then 'issueId' else 'threadId' end,
      'give exactly one of issueId or threadId');
  end if;
  if args->>'issueId' is not null then
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    -- The caller's own run when it is an agent with one on this issue, else the issue's current run.
    if app_hidden.current_agent_id() is not null then
      v_run := app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id());
    end if;
    if v_run.id is null then
      v_run := app_hidden.current_run(v_issue.id);
    end if;
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
        'engagementMode', coalesce(v_run.engagement_mode, 'EXECUTE'),
        'expectedOutput', v_issue.expected_output,
        'verificationChecklist', v_issue.verification_checklist,
        'artifactRequired', v_issue.artifact_required,
        'requires', case coalesce(v_run.engagement_mode, 'EXECUTE')
          when 'EXECUTE' then to_jsonb(array_remove(array['summary',
            case when v_issue.artifact_required then 'producedArtifactIds' end,
            case when jsonb_array_length(v_issue.verification_checklist) > 0 then 'verificationResult' end], null))
          when 'RESEARCH' then '["summary", "confidence"]'::jsonb
          when 'REVIEW' then '["summary", "verdict"]'::jsonb
          else '["summary"]'::jsonb end),
      'runProtocol', app_hidden.run_protocol(v_run),
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
    'agent', (select app_hidden.agent_json(a) from app_public.agents a where a.id = v_thread.agent_id),
    'linkedIssues', coalesce((select jsonb_agg(app_hidden.issue_ref_json(i) order by i.number)
                              from app_public.issues i
                              where i.workspace_id = v_thread.workspace_id and i.deleted_at is null
                                and (i.id = v_thread.issue_id or i.id::text in (
                                  select m.context_snapshot->>'issueId' from app_public.chat_messages m
                                  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                    and m.context_snapshot->>'issueId' is not null))), '[]'));
end
$$;
grant execute on function app_tools.agent_context_bundle(args jsonb) to svc_visitor;
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50), agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
--! EndIncluded agent/tools/contextBundle.sql

--! split: 6-tools.sql
-- More of the catalog: get tools, archive/unarchive, members.list and read-only webhook tools; each reuses the
-- existing finders, shapes and in-app procedures.

--! Included comments/find.sql
-- comments: the read finder.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_comment(p_id text, p_field text default 'id'::text)
 returns app_public.comments
 language plpgsql
 stable
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, p_field) and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id();
  return app_hidden.found(v_comment, 'Comment', p_field);
end
$$;
comment on function app_hidden.find_comment(p_id text, p_field text) is 'A live comment on a live issue the key can see (RLS follows the issue), else 404 "Comment not found" naming the field.';
grant execute on function app_hidden.find_comment(p_id text, p_field text) to svc_visitor;
--! EndIncluded comments/find.sql
--! Included projects/tools/get.sql
-- The projects.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one project the key can see (archived included).
create or replace function app_tools.projects_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.project_json(app_hidden.find_project(args->>'id'));
end
$$;
comment on function app_tools.projects_get(args jsonb) is 'projects.get: One project by id (archived ones too).';
grant execute on function app_tools.projects_get(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/get.sql
--! Included labels/tools/get.sql
-- The labels.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one label of the workspace.
create or replace function app_tools.labels_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.label_json(app_hidden.found((select l from app_public.labels l
    where l.id = app_hidden.parse_uuid(args->>'id', 'id') and l.workspace_id = app_hidden.current_workspace_id()), 'Label'));
end
$$;
comment on function app_tools.labels_get(args jsonb) is 'labels.get: One label by id.';
grant execute on function app_tools.labels_get(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/get.sql
--! Included reviewGates/tools/get.sql
-- The reviewGates.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one review gate (its plan's goal visible to the key).
create or replace function app_tools.review_gates_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.gate_json(app_hidden.find_gate(args->>'id'));
end
$$;
comment on function app_tools.review_gates_get(args jsonb) is 'reviewGates.get: One review gate by id.';
grant execute on function app_tools.review_gates_get(args jsonb) to svc_visitor;
--! EndIncluded reviewGates/tools/get.sql
--! Included agentCrews/tools/get.sql
-- The agentCrews.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one crew with its members (archived included).
create or replace function app_tools.agent_crews_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_get(args jsonb) is 'agentCrews.get: One crew by id, with its members (archived crews too).';
grant execute on function app_tools.agent_crews_get(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/get.sql
--! Included notes/tools/get.sql
-- The notes.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one of the caller's own notes (archived included).
create or replace function app_tools.notes_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.note_json(app_hidden.find_note(args->>'id'));
end
$$;
comment on function app_tools.notes_get(args jsonb) is 'notes.get: One of your own notes by id (archived too).';
grant execute on function app_tools.notes_get(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/get.sql
--! Included runtimes/tools/get.sql
-- The runtimes.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one runtime (archived included); never its secret.
create or replace function app_tools.runtimes_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.runtime_json(app_hidden.find_runtime(args->>'id', 'id'));
end
$$;
comment on function app_tools.runtimes_get(args jsonb) is 'runtimes.get: One runtime by id (archived too); never its secret.';
grant execute on function app_tools.runtimes_get(args jsonb) to svc_visitor;
--! EndIncluded runtimes/tools/get.sql
--! Included runs/tools/get.sql
-- The runs.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one run the key can see (its issue visible).
create or replace function app_tools.runs_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.run_json(app_hidden.find_run(args->>'id', 'id'));
end
$$;
comment on function app_tools.runs_get(args jsonb) is 'runs.get: One run by id.';
grant execute on function app_tools.runs_get(args jsonb) to svc_visitor;
--! EndIncluded runs/tools/get.sql
--! Included attachments/tools/get.sql
-- The attachments.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one attachment the key can see (RLS follows its target).
create or replace function app_tools.attachments_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.attachment_json(app_hidden.attachment_visible(args->>'id'));
end
$$;
comment on function app_tools.attachments_get(args jsonb) is 'attachments.get: One attachment by id (metadata; fetch bytes with getDownloadUrl).';
grant execute on function app_tools.attachments_get(args jsonb) to svc_visitor;
--! EndIncluded attachments/tools/get.sql
--! Included agents/tools/get.sql
-- The agents.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one agent of the workspace (archived included).
create or replace function app_tools.agents_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.agent_json(app_hidden.found((select a from app_public.agents a
    where a.id = app_hidden.parse_uuid(args->>'id', 'id') and a.workspace_id = app_hidden.current_workspace_id()), 'Agent'));
end
$$;
comment on function app_tools.agents_get(args jsonb) is 'agents.get: One agent by id (archived too).';
grant execute on function app_tools.agents_get(args jsonb) to svc_visitor;
--! EndIncluded agents/tools/get.sql
--! Included events/tools/get.sql
-- The events.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one activity event whose subject the key can see.
create or replace function app_tools.events_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_event app_public.activity_events;
begin
  select * into v_event from app_public.activity_events e
  where e.id = app_hidden.parse_uuid(args->>'id', 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and app_hidden.event_subject_visible(e.subject_type, e.subject_id);
  return app_hidden.event_json(app_hidden.found(v_event, 'Event'));
end
$$;
comment on function app_tools.events_get(args jsonb) is 'events.get: One activity event by id.';
grant execute on function app_tools.events_get(args jsonb) to svc_visitor;
--! EndIncluded events/tools/get.sql
--! Included comments/tools/get.sql
-- The comments.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one live comment on an issue the key can see.
create or replace function app_tools.comments_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.comment_json(app_hidden.find_comment(args->>'id'));
end
$$;
comment on function app_tools.comments_get(args jsonb) is 'comments.get: One comment by id.';
grant execute on function app_tools.comments_get(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/get.sql
--! Included members/members.sql
-- members: the JSON shape of a membership (the procedures are app_public.members_*, sql/workspace/members.sql).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.member_json(m app_public.memberships)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('userId', m.user_id, 'user', app_hidden.user_ref_json(m.user_id), 'role', m.role,
                            'createdAt', m.created_at)
$$;
comment on function app_hidden.member_json(m app_public.memberships) is 'Member: userId, user {id, name, email}, role (OWNER, ADMIN, MEMBER), createdAt.';
grant execute on function app_hidden.member_json(m app_public.memberships) to svc_visitor;
--! EndIncluded members/members.sql
--! Included members/tools/list.sql
-- The members.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- members of the workspace by email, paged.
create or replace function app_tools.members_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'members');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.member_json(m), lower(u.email), null)::app_hidden.page_row
    from app_public.memberships m join app_public.users u on u.id = m.user_id
    where m.workspace_id = app_hidden.current_workspace_id()
      and (v_after is null or lower(u.email) > v_after)
      and (args->>'role' is null or m.role = args->>'role')
    order by lower(u.email) limit v_limit + 1), v_limit, 'members');
end
$$;
comment on function app_tools.members_list(args jsonb) is 'members.list: People of the workspace with their role, by email.';
grant execute on function app_tools.members_list(args jsonb) to svc_visitor;
--! EndIncluded members/tools/list.sql
--! Included projects/tools/unarchive.sql
-- The projects.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes projects.archive; idempotent; PROJECT_UPDATED (archived false) by trigger.
create or replace function app_tools.projects_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.find_project(args->>'id');
begin
  if v_project.archived_at is not null then
    update app_public.projects set archived_at = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_unarchive(args jsonb) is 'projects.unarchive: Restore an archived project. Idempotent.';
grant execute on function app_tools.projects_unarchive(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/unarchive.sql
--! Included initiatives/tools/archive.sql
-- The initiatives.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; INITIATIVE_UPDATED (archived true) by trigger. Its projects stay linked.
create or replace function app_tools.initiatives_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
begin
  if v_initiative.archived_at is null then
    update app_public.initiatives set archived_at = now() where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_archive(args jsonb) is 'initiatives.archive: Archive an initiative (soft; its projects stay linked). Idempotent.';
grant execute on function app_tools.initiatives_archive(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/archive.sql
--! Included initiatives/tools/unarchive.sql
-- The initiatives.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes initiatives.archive; idempotent; INITIATIVE_UPDATED (archived false) by trigger.
create or replace function app_tools.initiatives_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
begin
  if v_initiative.archived_at is not null then
    update app_public.initiatives set archived_at = null where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_unarchive(args jsonb) is 'initiatives.unarchive: Restore an archived initiative. Idempotent.';
grant execute on function app_tools.initiatives_unarchive(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/unarchive.sql
--! Included agentCrews/tools/unarchive.sql
-- The agentCrews.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes agentCrews.archive (ADMIN; idempotent); CREW_UPDATED by trigger.
create or replace function app_tools.agent_crews_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_crew app_public.agent_crews := app_hidden.find_crew(args->>'id');
begin
  perform app_hidden.require_scope('ADMIN');
  if v_crew.archived_at is not null then
    update app_public.agent_crews set archived_at = null where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_unarchive(args jsonb) is 'agentCrews.unarchive: Restore an archived crew (ADMIN; idempotent).';
grant execute on function app_tools.agent_crews_unarchive(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/unarchive.sql
--! Included webhooks/tools/list.sql
-- The webhooks.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: the workspace's webhooks with health counts (app_public.webhooks_overview); never a secret.
create or replace function app_tools.webhooks_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return jsonb_build_object('items', app_public.webhooks_overview());
end
$$;
comment on function app_tools.webhooks_list(args jsonb) is 'webhooks.list: OWNER/ADMIN: webhooks of the workspace with pending and dead-letter counts. Never a secret.';
grant execute on function app_tools.webhooks_list(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/list.sql
--! Included webhooks/tools/get.sql
-- The webhooks.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: one webhook with its health counts; 404 for another workspace's.
create or replace function app_tools.webhooks_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
begin
  return app_hidden.found((select w from jsonb_array_elements(app_public.webhooks_overview()) w where w->>'id' = v_id::text), 'Webhook');
end
$$;
comment on function app_tools.webhooks_get(args jsonb) is 'webhooks.get: OWNER/ADMIN: one webhook by id, with its delivery health. Never a secret.';
grant execute on function app_tools.webhooks_get(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/get.sql
--! Included webhooks/tools/listDeliveries.sql
-- The webhooks.listDeliveries tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- OWNER/ADMIN: deliveries newest first with their attempts (app_hidden.webhook_deliveries_list).
create or replace function app_tools.webhooks_list_deliveries(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.webhook_deliveries_list(app_hidden.parse_uuid(args->>'webhookId', 'webhookId'), args->>'status',
    coalesce((args->>'limit')::int, 50), app_hidden.parse_uuid(args->>'cursor', 'cursor'));
end
$$;
comment on function app_tools.webhooks_list_deliveries(args jsonb) is 'webhooks.listDeliveries: OWNER/ADMIN: webhook deliveries newest first with their attempts; filter by webhookId or status.';
grant execute on function app_tools.webhooks_list_deliveries(args jsonb) to svc_visitor;
--! EndIncluded webhooks/tools/listDeliveries.sql
