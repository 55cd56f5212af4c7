-- Dispatch rules (spec 4.14, in-app only; decisions.md "Dispatch"): an ordered list per workspace.
-- A rule's conditions (priority, labelId, projectId) must all match when set; the first matching rule
-- names the target agent. Stored now; the dispatcher reads them later. OWNER/ADMIN manage them.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_hidden.dispatch_rules_check_refs',
             'app_hidden.require_workspace_admin_key',
             'app_public.dispatch_rules_create',
             'app_public.dispatch_rules_delete',
             'app_public.dispatch_rules_reorder',
             'app_public.dispatch_rules_update'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
drop table if exists app_public.dispatch_rules cascade;

create function app_hidden.require_workspace_admin_key() returns void
language plpgsql stable security definer set search_path = pg_catalog as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is
  'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';

create table app_public.dispatch_rules (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  position int not null check (position >= 0),
  name text check (length(name) between 1 and 200),
  priority text check (priority in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  label_id uuid,
  project_id uuid,
  target_agent_id uuid not null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  -- Deferred, so a reorder can swap positions inside one statement.
  unique (workspace_id, position) deferrable initially deferred,
  foreign key (workspace_id, label_id) references app_public.labels (workspace_id, id) on delete cascade,
  foreign key (workspace_id, project_id) references app_public.projects (workspace_id, id) on delete cascade,
  foreign key (workspace_id, target_agent_id) references app_public.agents (workspace_id, id) on delete cascade
);
create index dispatch_rules_label_idx on app_public.dispatch_rules (workspace_id, label_id) where label_id is not null;
create index dispatch_rules_project_idx on app_public.dispatch_rules (workspace_id, project_id) where project_id is not null;
create index dispatch_rules_agent_idx on app_public.dispatch_rules (workspace_id, target_agent_id);
comment on table app_public.dispatch_rules is
  'Routing rules for auto-dispatch, tried in position order before the workspace''s dispatch mode: every condition that is set (priority, label, project) must match; the first matching rule names the target agent. A rule disappears with its label, project or agent.';
comment on column app_public.dispatch_rules.position is 'Order in which rules are tried (0 first).';
comment on column app_public.dispatch_rules.priority is 'Condition: the issue has this priority (unset = any).';
comment on column app_public.dispatch_rules.label_id is 'Condition: the issue carries this label (unset = any).';
comment on column app_public.dispatch_rules.project_id is 'Condition: the issue is in this project (unset = any).';
comment on column app_public.dispatch_rules.target_agent_id is 'The agent a matching issue goes to (when it is eligible; else the mode picks, reason rule:<id>:target-ineligible).';
comment on column app_public.dispatch_rules.enabled is 'Disabled rules are kept but skipped.';
create trigger _100_updated_at before update on app_public.dispatch_rules
  for each row execute function app_hidden.tg__set_updated_at();

alter table app_public.dispatch_rules enable row level security;
alter table app_public.dispatch_rules force row level security;
create policy select_in_workspace on app_public.dispatch_rules for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.dispatch_rules is 'Dispatch rules of the caller''s workspace.';
create policy manage_as_admin on app_public.dispatch_rules for all to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.caller_role()) in ('OWNER', 'ADMIN'))
  with check (workspace_id = (select app_hidden.current_workspace_id()) and (select app_hidden.caller_role()) in ('OWNER', 'ADMIN'));
comment on policy manage_as_admin on app_public.dispatch_rules is 'Only a key whose own user is OWNER or ADMIN changes dispatch rules.';
create policy owner_all on app_public.dispatch_rules to current_user using (true) with check (true);
comment on policy owner_all on app_public.dispatch_rules is 'The schema owner (operator, dispatcher) works on every row.';
grant select, delete, insert (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled),
  update (position, name, priority, label_id, project_id, target_agent_id, enabled)
  on app_public.dispatch_rules to svc_visitor;

create function app_hidden.dispatch_rules_check_refs(p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
returns void
language plpgsql stable as $$
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null and not exists (select 1 from app_public.agents where id = p_target_agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
  end if;
  if p_label_id is not null and not exists (select 1 from app_public.labels where id = p_label_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (select 1 from app_public.projects where id = p_project_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text) is
  'The priority must be one of the issue priorities; the agent, label and project a rule names must be visible to the caller (RLS: its workspace, its narrowing), else 404 naming the field.';

create function app_public.dispatch_rules_create(
  target_agent_id uuid,
  priority text default null,
  label_id uuid default null,
  project_id uuid default null,
  name text default null,
  at_position int default null,
  enabled boolean default true
) returns app_public.dispatch_rules
language plpgsql volatile as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = v_ws;
  if at_position is not null and at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = v_ws and r.position >= coalesce(at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (v_ws, coalesce(at_position, v_count), dispatch_rules_create.name, dispatch_rules_create.priority,
          dispatch_rules_create.label_id, dispatch_rules_create.project_id, dispatch_rules_create.target_agent_id,
          coalesce(dispatch_rules_create.enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_create(uuid, text, uuid, uuid, text, int, boolean) is
  'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';

create function app_public.dispatch_rules_update(
  rule_id uuid,
  target_agent_id uuid default null,
  priority text default null,
  label_id uuid default null,
  project_id uuid default null,
  name text default null,
  enabled boolean default null,
  clear text[] default '{}'
) returns app_public.dispatch_rules
language plpgsql volatile as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(target_agent_id, label_id, project_id, priority);
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
comment on function app_public.dispatch_rules_update(uuid, uuid, text, uuid, uuid, text, boolean, text[]) is
  'OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';

create function app_public.dispatch_rules_reorder(rule_ids uuid[]) returns setof app_public.dispatch_rules
language plpgsql volatile as $$
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
comment on function app_public.dispatch_rules_reorder(uuid[]) is
  'OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';

create function app_public.dispatch_rules_delete(rule_id uuid) returns app_public.dispatch_rules
language plpgsql volatile as $$
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
comment on function app_public.dispatch_rules_delete(uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';

grant execute on function
  app_hidden.require_workspace_admin_key(),
  app_hidden.dispatch_rules_check_refs(uuid, uuid, uuid, text),
  app_public.dispatch_rules_create(uuid, text, uuid, uuid, text, int, boolean),
  app_public.dispatch_rules_update(uuid, uuid, text, uuid, uuid, text, boolean, text[]),
  app_public.dispatch_rules_reorder(uuid[]),
  app_public.dispatch_rules_delete(uuid)
to svc_visitor;
