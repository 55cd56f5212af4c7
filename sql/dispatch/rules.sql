-- dispatch: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
 returns void
 language plpgsql
 stable
as $$
declare v_archived boolean;
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null then
    select a.archived_at is not null into v_archived from app_public.agents a
    where a.id = p_target_agent_id and a.workspace_id = p_workspace_id;
    if v_archived is null then
      raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
    end if;
    -- As every other way of pointing work at an agent: a rule whose target is archived would route to no one.
    if v_archived then
      raise exception 'The agent is archived' using errcode = 'SV400', column = 'targetAgentId', detail = 'agent_archived';
    end if;
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
comment on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) is 'The priority must be one of the issue priorities; the agent, label and project a rule names must be in the workspace and visible to the caller (for a key, RLS adds its narrowing), else 404 naming the field; the agent must not be archived (400 agent_archived).';
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
  values (p_workspace_id, coalesce(p_at_position, v_count), app_hidden.one_line(p_name, 'name', 200), p_priority, p_label_id, p_project_id,
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
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  return app_hidden.dispatch_rules_insert(app_hidden.current_workspace_id(), target_agent_id, priority, label_id,
                                          project_id, name, at_position, enabled);
end
$$;
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is '@arg targetAgentId The agent matching issues go to (not archived).
@arg priority Condition: the issue has this priority (NONE, LOW, MEDIUM, HIGH, URGENT); omitted = any.
@arg labelId Condition: the issue carries this label; omitted = any.
@arg projectId Condition: the issue is in this project; omitted = any.
@arg name A label for the rule, one line of up to 200 characters.
@arg atPosition Where to insert it, 0 (tried first) to the number of rules; omitted = last.
@arg enabled False keeps the rule but skips it (default true).
@result The new rule.
OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
grant execute on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_delete(rule_id uuid)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(rule_id uuid) is '@arg ruleId The rule to delete.
@result The deleted rule, as it was.
OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
grant execute on function app_public.dispatch_rules_delete(rule_id uuid) to svc_visitor;

create or replace function app_public.dispatch_rules_reorder(rule_ids uuid[])
 returns setof app_public.dispatch_rules
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
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
comment on function app_public.dispatch_rules_reorder(rule_ids uuid[]) is '@arg ruleIds Every rule of the workspace exactly once, in the order they are to be tried.
@result The workspace''s rules in their new order.
OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';
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
  perform app_hidden.require_unnarrowed('Dispatch rules route the whole workspace''s issues');
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(app_hidden.current_workspace_id(), target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(app_hidden.one_line(dispatch_rules_update.name, 'name', 200), r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) is '@arg ruleId The rule to change.
@arg targetAgentId New target agent (not archived); omitted = unchanged.
@arg priority New priority condition (NONE, LOW, MEDIUM, HIGH, URGENT); omitted = unchanged.
@arg labelId New label condition; omitted = unchanged.
@arg projectId New project condition; omitted = unchanged.
@arg name New label for the rule; omitted = unchanged.
@arg enabled False skips the rule, true uses it again; omitted = unchanged.
@arg clear What to remove from the rule: any of priority, labelId, projectId, name.
@result The rule as changed.
OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';
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
