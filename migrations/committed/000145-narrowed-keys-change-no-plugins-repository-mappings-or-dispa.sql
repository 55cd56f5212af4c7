--! Previous: sha1:16f995321c5839eec7af05dd0703b101c7e29a5c
--! Hash: sha1:a0989658b0e6a1ba01431ca5a4f1676d41d4ae7b
--! Message: Narrowed keys change no plugins, repository mappings or dispatch rules; viewerKeyId

--! split: 1-current.sql
-- From two outside probes:
-- * a key narrowed to some projects changed what serves the whole workspace: plugins (pluginsCreate,
--   pluginsSetSkills) and repository mappings; dispatch rules were refused only by RLS (403 forbidden). Now 403
--   narrowing, as for agents, webhooks, statuses and settings;
-- * a dispatch rule may not target an archived agent (400 agent_archived, as every other way of giving it work);
-- * viewerKeyId: the key making the request, so the web board's sign-out revokes its SESSION key however many keys
--   are newer (it looked for itself among the newest 100 and signed out without revoking when it was not there).
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
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if (p_old_role = 'OWNER' or p_new_role = 'OWNER') and p_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
end
$$;
comment on function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text) is 'OWNER/ADMIN may manage members with an unnarrowed key (403 narrowing); only an OWNER may touch the OWNER role (403 owner_required).';

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

create or replace function app_public.viewer_project_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_project_ids() $$;
comment on function app_public.viewer_project_ids() is 'Projects the key making this request is narrowed to (empty: not narrowed by project): a client files new issues where the key may (an issue outside them is refused).';
grant execute on function app_public.viewer_project_ids() to svc_visitor;

create or replace function app_public.viewer_label_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_label_ids() $$;
comment on function app_public.viewer_label_ids() is 'Labels the key making this request is narrowed to (empty: not narrowed by label): a client files new issues where the key may.';
grant execute on function app_public.viewer_label_ids() to svc_visitor;

create or replace function app_hidden.current_key_kind()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select k.kind from app_private.api_keys k where k.id = app_hidden.current_key_id() $$;
comment on function app_hidden.current_key_kind() is 'Kind of the calling key (AGENT, PERSONAL, SESSION, PLUGIN), read as the owner (keys are private).';
grant execute on function app_hidden.current_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_kind()
 returns text
 language sql
 stable
as $$ select app_hidden.current_key_kind() $$;
comment on function app_public.viewer_key_kind() is 'Kind of the key making this request (AGENT, PERSONAL, SESSION, PLUGIN): the web board refuses agent keys, which would act as the agent.';
grant execute on function app_public.viewer_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_id()
 returns uuid
 language sql
 stable
as $$ select app_hidden.current_key_id() $$;
comment on function app_public.viewer_key_id() is 'Id of the key making this request: the web board signs out by revoking it (accessRevoke) when it is a SESSION key.';
grant execute on function app_public.viewer_key_id() to svc_visitor;
--! EndIncluded workspace/members.sql
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
  -- As every other way of pointing work at an agent: a rule whose target is archived would route to no one.
  if exists (select 1 from app_public.agents where id = p_target_agent_id and archived_at is not null) then
    raise exception 'The agent is archived' using errcode = 'SV400', column = 'targetAgentId', detail = 'agent_archived';
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
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is 'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
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
comment on function app_public.dispatch_rules_delete(rule_id uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
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
--! Included repohost/mappings.sql
-- repohost: mappings (resolution, in-app procedures, operator command) and resources (snapshot, rules).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.repo_check_status_rules(p_rules jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare v_key text; v_value jsonb;
begin
  if p_rules is null then return null; end if;
  if jsonb_typeof(p_rules) <> 'object' then
    perform app_hidden.raise_invalid('statusRules', 'must be an object such as {"closed":"DONE","merged":"DONE"}');
  end if;
  for v_key, v_value in select * from jsonb_each(p_rules) loop
    if v_key not in ('open', 'closed', 'merged') then
      perform app_hidden.raise_invalid('statusRules', format('unknown external state %s (open, closed, merged)', v_key));
    end if;
    if v_value <> 'null'::jsonb and (jsonb_typeof(v_value) <> 'string'
        or v_value #>> '{}' not in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED')) then
      perform app_hidden.raise_invalid('statusRules', format('%s must map to a status category (BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE, CANCELED)', v_key));
    end if;
  end loop;
  return jsonb_strip_nulls(p_rules);
end
$$;
comment on function app_hidden.repo_check_status_rules(p_rules jsonb) is 'Validates status rules: keys open/closed/merged, values status categories (400 statusRules otherwise); null stays null (no change).';
grant execute on function app_hidden.repo_check_status_rules(p_rules jsonb) to svc_visitor;

create or replace function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if p_token_env is not null and p_token_env !~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$' then
    perform app_hidden.raise_invalid('tokenEnv', 'must be an environment variable name');
  end if;
  if p_api_url is not null and p_api_url !~ '^https?://[^\s]+$' then
    perform app_hidden.raise_invalid('apiUrl', 'must be an http(s) URL');
  end if;
end
$$;
comment on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) is 'Validates a mapping''s tokenEnv (an environment variable name) and apiUrl (http or https), 400 naming the field.';
grant execute on function app_hidden.repo_check_host_settings(p_token_env text, p_api_url text) to svc_visitor;

create or replace function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text)
 returns void
 language plpgsql
 immutable
as $$
begin
  if coalesce(p_repo_full_name, '') !~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' then
    perform app_hidden.raise_invalid(p_field, 'must be owner/name');
  end if;
end
$$;
comment on function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text) is 'A repository''s owner/name, else 400 on p_field (the caller''s name for it: repo for svc admin, repoFullName in GraphQL).';
grant execute on function app_hidden.check_repo_full_name(p_repo_full_name text, p_field text) to svc_visitor;

create or replace function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text default NULL::text, p_api_url text default NULL::text, p_status_rules jsonb default NULL::jsonb, p_sync_title boolean default false)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.check_repo_full_name(p_repo_full_name, 'repo');
  perform app_hidden.repo_check_host_settings(p_token_env, p_api_url);
  if exists (select 1 from app_public.connection_mappings m where m.workspace_id = p_workspace_id and m.kind = 'repo'
             and lower(m.repo_full_name) = lower(p_repo_full_name)) then
    raise exception 'Repository % is already mapped in this workspace', p_repo_full_name using errcode = 'SV409', detail = 'mapping_exists';
  end if;
  insert into app_public.connection_mappings (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title)
  values (p_workspace_id, 'repo', 'github', p_repo_full_name, p_token_env, rtrim(p_api_url, '/'),
          coalesce(app_hidden.repo_check_status_rules(p_status_rules), '{"closed":"DONE","merged":"DONE"}'), coalesce(p_sync_title, false))
  returning * into v_row;
  return app_hidden.repo_mapping_json(v_row);
end
$$;
comment on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) is 'Maps a repository (kind repo) for the repohost tools; default status rules close linked issues when the external issue closes or the PR merges ({"closed":"DONE","merged":"DONE"}). 409 mapping_exists for a repository already mapped. Used by `svc admin create-repo-mapping` (as owner) and repoMappingsCreate (as the caller, under RLS: OWNER/ADMIN only).';
grant execute on function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text, p_api_url text, p_status_rules jsonb, p_sync_title boolean) to svc_visitor;

create or replace function app_public.repo_mappings_create(repo_full_name text, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v jsonb;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.check_repo_full_name(repo_full_name, 'repoFullName');
  v := app_hidden.repo_mapping_insert(app_hidden.current_workspace_id(), repo_full_name, token_env, api_url, status_rules, sync_title);
  return (select m from app_public.connection_mappings m where m.id = (v->>'id')::uuid);
end
$$;
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is 'OWNER/ADMIN: maps a repository (owner/name) for the repohost tools. tokenEnv names the environment variable holding the API token; apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
grant execute on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) to svc_visitor;

create or replace function app_public.repo_mappings_update(mapping_id uuid, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default NULL::boolean, active boolean default NULL::boolean, clear_token_env boolean default false, clear_api_url boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.repo_check_host_settings(token_env, api_url);
  update app_public.connection_mappings m set
    token_env = case when clear_token_env then null else coalesce(repo_mappings_update.token_env, m.token_env) end,
    api_url = case when clear_api_url then null else coalesce(rtrim(repo_mappings_update.api_url, '/'), m.api_url) end,
    status_rules = coalesce(app_hidden.repo_check_status_rules(repo_mappings_update.status_rules), m.status_rules),
    sync_title = coalesce(repo_mappings_update.sync_title, m.sync_title),
    active = coalesce(repo_mappings_update.active, m.active)
  where m.id = mapping_id
  returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is 'OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository.';
grant execute on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) to svc_visitor;

create or replace function app_public.repo_mappings_delete(mapping_id uuid)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  delete from app_public.connection_mappings m where m.id = mapping_id returning * into v_row;
  if v_row.id is null then
    raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
  end if;
  return v_row;
end
$$;
comment on function app_public.repo_mappings_delete(mapping_id uuid) is 'OWNER/ADMIN: removes a repository mapping; links and snapshots stay (without a mapping they can no longer be synced).';
grant execute on function app_public.repo_mappings_delete(mapping_id uuid) to svc_visitor;

create or replace function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text default 'repoFullName'::text)
 returns app_public.connection_mappings
 language plpgsql
 stable
as $$
declare v_row app_public.connection_mappings;
begin
  if p_mapping_id is not null then
    select * into v_row from app_public.connection_mappings m where m.id = app_hidden.parse_uuid(p_mapping_id, 'mappingId');
    if v_row.id is null then
      raise exception 'Repository mapping not found' using errcode = 'SV404', column = 'mappingId';
    end if;
    if p_repo_full_name is not null and lower(p_repo_full_name) <> lower(v_row.repo_full_name) then
      perform app_hidden.raise_invalid('repoFullName', format('mapping %s is for %s', v_row.id, v_row.repo_full_name));
    end if;
  elsif p_repo_full_name is not null then
    select * into v_row from app_public.connection_mappings m
    where m.workspace_id = app_hidden.current_workspace_id() and m.kind = 'repo' and lower(m.repo_full_name) = lower(p_repo_full_name);
    if v_row.id is null then
      raise exception 'No repository mapping for % in this workspace (svc admin create-repo-mapping)', p_repo_full_name
        using errcode = 'SV404', column = p_field, detail = 'no_repo_mapping';
    end if;
  else
    perform app_hidden.raise_invalid('repoFullName', 'give mappingId or repoFullName');
  end if;
  if not v_row.active then
    raise exception 'The mapping for % is inactive', v_row.repo_full_name using errcode = 'SV422', detail = 'mapping_inactive';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) is 'The workspace''s active repo mapping by id or by repository full name (case-insensitive); 404 (no_repo_mapping) or 422 mapping_inactive otherwise.';
grant execute on function app_hidden.repo_mapping_resolve(p_mapping_id text, p_repo_full_name text, p_field text) to svc_visitor;

create or replace function app_hidden.repo_web_hosts(m app_public.connection_mappings)
 returns text[]
 language sql
 immutable
as $$
  -- GitHub's URLs, and those of the host the mapping's apiUrl names (GitHub Enterprise: https://ghe.example.com/api/v3).
  select array_remove(array['github.com', 'www.github.com', lower(app_hidden.url_hostname(m.api_url))], null)
$$;
comment on function app_hidden.repo_web_hosts(m app_public.connection_mappings) is 'The hosts whose issue and pull request URLs a repository mapping reads: github.com, and the host of the mapping''s apiUrl when it has one.';
grant execute on function app_hidden.repo_web_hosts(m app_public.connection_mappings) to svc_visitor;

create or replace function app_hidden.repohost_prepare(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_parsed jsonb;
  v_mapping app_public.connection_mappings;
  v_items jsonb;
begin
  if args ? 'url' then
    -- repohost.link: the issue the link goes on first, so an issue the key cannot see is a 404 before any call to the host.
    if args ? 'issueId' then
      perform app_hidden.find_issue(args->>'issueId', 'issueId');
    end if;
    v_parsed := app_hidden.repo_parse_url(args->>'url');
    v_mapping := app_hidden.repo_mapping_resolve(null, v_parsed->>'repoFullName', 'url');
    -- The URL must be on the mapping's host: a gitlab.com or look-alike URL with the same owner/repo path would
    -- otherwise link (and let sync rules act on) a different item of the mapped repository.
    if split_part(v_parsed->>'host', ':', 1) <> all(app_hidden.repo_web_hosts(v_mapping)) then
      perform app_hidden.raise_invalid('url', format('this URL is on %s; the mapping of %s reads %s', v_parsed->>'host',
        v_mapping.repo_full_name, array_to_string(app_hidden.repo_web_hosts(v_mapping), ', ')));
    end if;
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (v_parsed->>'number')::int));
  elsif args ? 'resourceId' or args ? 'issueId' then
    select coalesce(jsonb_agg(jsonb_build_object('mapping', app_hidden.repo_mapping_json(m), 'repoFullName', r.repo_full_name,
             'number', r.number, 'resourceId', r.id) order by r.repo_full_name, r.number), '[]')
    into v_items
    from app_public.external_resources r
    join app_public.connection_mappings m on m.workspace_id = r.workspace_id and m.kind = 'repo'
      and lower(m.repo_full_name) = lower(r.repo_full_name) and m.active
    where (args->>'resourceId' is null or r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId'))
      and (args->>'issueId' is null or exists (select 1 from app_public.external_links l
             where l.resource_id = r.id and l.issue_id = (app_hidden.find_issue(args->>'issueId', 'issueId')).id));
  else
    v_mapping := app_hidden.repo_mapping_resolve(args->>'mappingId', args->>'repoFullName');
    v_items := jsonb_build_array(jsonb_build_object('mapping', app_hidden.repo_mapping_json(v_mapping),
      'repoFullName', v_mapping.repo_full_name, 'number', (args->>'number')::int));
  end if;
  return jsonb_build_object('items', v_items);
end
$$;
comment on function app_hidden.repohost_prepare(args jsonb) is 'Read-only, as the caller: what the repohost tools must read from the host (mapping with apiUrl/tokenEnv, repository, number) for a url, a mappingId/repoFullName + number, or the resources behind a resourceId/issueId. The tool''s own function re-checks everything when it records.';
grant execute on function app_hidden.repohost_prepare(args jsonb) to svc_visitor;

create or replace function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb)
 returns app_public.external_resources
 language plpgsql
as $$
declare v_row app_public.external_resources;
begin
  if p_fetched is null or lower(p_fetched->>'repoFullName') <> lower(p_mapping.repo_full_name) then
    raise exception 'host answer missing for %', p_mapping.repo_full_name using errcode = 'SV422', detail = 'host_answer_missing';
  end if;
  insert into app_public.external_resources as r (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at)
  values (p_mapping.workspace_id, p_mapping.id, p_mapping.provider, p_mapping.repo_full_name, p_fetched->>'type',
          (p_fetched->>'number')::int, p_fetched->>'url', p_fetched->>'title', p_fetched->>'state',
          coalesce(p_fetched->'snapshot', '{}'), now())
  on conflict (workspace_id, lower(repo_full_name), number) do update
    set mapping_id = excluded.mapping_id, type = excluded.type, url = excluded.url, title = excluded.title,
        state = excluded.state, snapshot = excluded.snapshot, synced_at = excluded.synced_at
  returning * into v_row;
  return v_row;
end
$$;
comment on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) is 'Stores (or refreshes) the snapshot of an external issue/PR as just read from the host.';
grant execute on function app_hidden.repo_resource_record(p_mapping app_public.connection_mappings, p_fetched jsonb) to svc_visitor;

create or replace function app_hidden.repo_apply_rules(p_resource app_public.external_resources)
 returns jsonb
 language plpgsql
as $$
declare
  v_mapping app_public.connection_mappings;
  v_link record;
  v_issue app_public.issues;
  v_category text;
  v_status_id uuid;
  v_patch jsonb;
  v_applied jsonb := '[]';
begin
  select * into v_mapping from app_public.connection_mappings m where m.id = p_resource.mapping_id;
  if v_mapping.id is null then return v_applied; end if;
  v_category := v_mapping.status_rules->>p_resource.state;
  for v_link in
    select l.issue_id, l.kind from app_public.external_links l
    join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
    where l.resource_id = p_resource.id and l.kind in ('SOURCE', 'IMPLEMENTS') order by i.number
  loop
    v_patch := '{}';
    select * into v_issue from app_public.issues i where i.id = v_link.issue_id;
    if v_category is not null and (select s.category from app_public.statuses s where s.id = v_issue.status_id) <> v_category then
      select s.id into v_status_id from app_public.statuses s
      where s.workspace_id = v_issue.workspace_id and s.category = v_category order by s.position, s.id limit 1;
      if v_status_id is not null then v_patch := v_patch || jsonb_build_object('statusId', v_status_id); end if;
    end if;
    if v_mapping.sync_title and v_link.kind = 'SOURCE' and p_resource.title is not null and p_resource.title <> v_issue.title then
      v_patch := v_patch || jsonb_build_object('title', left(p_resource.title, 500));
    end if;
    if v_patch <> '{}' then
      v_issue := app_hidden.update_issue(app_hidden.issue_for_write(v_issue.id::text), v_patch);
      v_applied := v_applied || jsonb_build_object('issueId', v_issue.id, 'key', v_issue.key,
        'changes', (select jsonb_agg(k) from jsonb_object_keys(v_patch) k));
    end if;
  end loop;
  return v_applied;
end
$$;
comment on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) is 'Applies the mapping''s rules to the live issues linked to a resource: status rules (external state → first status of that category) on SOURCE and IMPLEMENTS links, the external title on SOURCE links when syncTitle. Each change is an ordinary issue update (its events by trigger). Returns [{issueId, key, changes}].';
grant execute on function app_hidden.repo_apply_rules(p_resource app_public.external_resources) to svc_visitor;

create or replace function app_hidden.repo_resource_imported(p_resource_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_public.external_links l join app_public.issues i on i.id = l.issue_id and i.deleted_at is null
                 where l.resource_id = p_resource_id and l.kind = 'SOURCE'
                   and l.workspace_id = app_hidden.current_workspace_id())
$$;
comment on function app_hidden.repo_resource_imported(p_resource_id uuid) is 'Whether an external resource was imported into a live issue of the caller''s workspace, including issues outside the key''s narrowing (so importIssue never makes a duplicate). Security definer: a yes/no, never the issue.';
grant execute on function app_hidden.repo_resource_imported(p_resource_id uuid) to svc_visitor;
--! EndIncluded repohost/mappings.sql
--! Included auth/plugins.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
  v_allowed text[];
  v_extra text[];
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  perform app_private.require_admin(v_caller);
  select * into v_plugin from app_private.plugins where id = p_plugin_id and workspace_id = v_caller.workspace_id;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  if v_plugin.approved_at is null then
    raise exception 'Plugin is not approved' using errcode = 'SV422', detail = 'plugin_not_approved';
  end if;
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  -- Null-safe: a null in a manifest (stored before create_plugin refused them) made `s <> all(...)` null for every
  -- scope, so nothing was "extra" and any scope, ADMIN or FULL, passed.
  v_allowed := array(select x from jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')) x where x is not null);
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where not s = any(v_allowed));
    if cardinality(v_extra) > 0 then
      perform app_hidden.raise_invalid('scopes', format(
        'scopes must be a subset of the plugin''s manifest.scopes (%s); not allowed: %s',
        array_to_string(v_allowed, ', '), array_to_string(v_extra, ', ')));
    end if;
  end if;
  perform app_private.require_scopes_within(v_caller, p_scopes);
  -- Same rules as access.create: narrowing can only shrink, and a key never outlives its creator's.
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
end
$$;
comment on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s.';
grant execute on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.plugins()
 returns setof app_public.plugin_info
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_private.plugin_info(p) from app_private.plugins p
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c)
  order by p.created_at, p.id
$$;
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes and manifest.skills).';
grant execute on function app_hidden.plugins() to svc_visitor;

create or replace function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  perform app_hidden.require_unnarrowed('A plugin serves the whole workspace');
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes, p_skills));
end
$$;
comment on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes and manifest.skills.';
grant execute on function app_hidden.plugins_create(p_name text, p_scopes text[], p_skills jsonb) to svc_visitor;

create or replace function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb)
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_plugin app_private.plugins;
begin
  perform app_private.require_admin(v_caller);
  perform app_hidden.require_unnarrowed('A plugin''s skills serve the whole workspace');
  update app_private.plugins set manifest = manifest || jsonb_build_object('skills', app_private.plugin_skills(p_skills))
  where id = p_plugin_id and workspace_id = v_caller.workspace_id
  returning * into v_plugin;
  if v_plugin.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
  end if;
  return app_private.plugin_info(v_plugin);
end
$$;
comment on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) is 'OWNER/ADMIN: replaces a plugin''s manifest.skills (what skills.invoke may call).';
grant execute on function app_hidden.plugins_set_skills(p_plugin_id uuid, p_skills jsonb) to svc_visitor;

create or replace function app_private.plugin_skills(p_skills jsonb)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_skill jsonb;
  v_n int := 0;
  v_names text[] := '{}';
  v_out jsonb := '[]';
  v_name text;
  v_extra text;
begin
  if p_skills is null or p_skills = 'null' then
    return '[]';
  end if;
  if jsonb_typeof(p_skills) <> 'array' then
    perform app_hidden.raise_invalid('skills', 'must be a list of {name, description?, inputSchema?}');
  end if;
  if jsonb_array_length(p_skills) > 50 then
    perform app_hidden.raise_invalid('skills', 'at most 50 skills');
  end if;
  for v_skill in select x from jsonb_array_elements(p_skills) x loop
    if jsonb_typeof(v_skill) <> 'object' then
      perform app_hidden.raise_invalid(format('skills.%s', v_n), 'must be an object {name, description?, inputSchema?}');
    end if;
    select k into v_extra from jsonb_object_keys(v_skill) k where k not in ('name', 'description', 'inputSchema') limit 1;
    if v_extra is not null then
      perform app_hidden.raise_invalid(format('skills.%s.%s', v_n, v_extra), 'unknown field (a skill has name, description and inputSchema)');
    end if;
    v_name := v_skill->>'name';
    if jsonb_typeof(v_skill->'name') is distinct from 'string' or v_name !~ '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter');
    end if;
    if v_name = any(v_names) then
      perform app_hidden.raise_invalid(format('skills.%s.name', v_n), format('%s is named twice', v_name));
    end if;
    if v_skill ? 'description' and (jsonb_typeof(v_skill->'description') <> 'string' or length(v_skill->>'description') > 2000) then
      perform app_hidden.raise_invalid(format('skills.%s.description', v_n), 'must be text of at most 2000 characters');
    end if;
    if v_skill ? 'inputSchema' and (jsonb_typeof(v_skill->'inputSchema') <> 'object' or length((v_skill->'inputSchema')::text) > 16384) then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n), 'must be a JSON Schema object of at most 16 KB');
    end if;
    -- The service checks input against the schema in its own process: a regular expression there (pattern,
    -- patternProperties) could backtrack for minutes on a crafted input and stall every workspace's requests.
    if v_skill ? 'inputSchema' and jsonb_path_exists(v_skill->'inputSchema',
         'lax $.** ? (@.type() == "object") ? (@.pattern.type() == "string" || exists(@.patternProperties))') then
      perform app_hidden.raise_invalid(format('skills.%s.inputSchema', v_n),
        'must not use pattern or patternProperties (regular expressions are not evaluated here; check such input in the plugin)');
    end if;
    v_names := v_names || v_name;
    v_out := v_out || jsonb_build_array(jsonb_build_object('name', v_name, 'description', v_skill->>'description',
                                                           'inputSchema', v_skill->'inputSchema'));
    v_n := v_n + 1;
  end loop;
  return v_out;
end
$$;
comment on function app_private.plugin_skills(p_skills jsonb) is 'A plugin manifest''s skills as stored ([{name, description, inputSchema}], null = none), or a 400 naming skills.<n>.<field>.';

create or replace function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb default null)
 returns app_private.plugins
 language plpgsql
as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  p_name := app_hidden.one_line(p_name, 'name', 200);
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  if array_position(p_scopes, null) is not null then
    perform app_hidden.raise_invalid('scopes', 'must not contain null');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, p_name,
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n))),
            'skills', app_private.plugin_skills(p_skills)), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[], p_skills jsonb) is 'Records an approved plugin with manifest.scopes and manifest.skills.';

create or replace function app_private.plugin_info(p app_private.plugins)
 returns app_public.plugin_info
 language sql
 stable
as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at, coalesce(p.manifest->'skills', '[]'))::app_public.plugin_info
$$;
comment on function app_private.plugin_info(p app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval, manifest.skills.';

create or replace function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], expires_in_days integer default NULL::integer, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  return app_hidden.plugin_issue_api_key(plugin_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) is 'plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';
grant execute on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) to svc_visitor;

create or replace function app_public.plugins()
 returns setof app_public.plugin_info
 language sql
 stable
as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes and manifest.skills).';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb default null)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[], skills) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) is 'OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it and whose manifest.skills ([{name, description?, inputSchema?}]) are what skills.invoke may call.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) to svc_visitor;

create or replace function app_public.plugins_set_skills(plugin_id uuid, skills jsonb)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_set_skills(plugin_id, skills) $$;
comment on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) is 'OWNER/ADMIN: replaces a plugin''s manifest.skills ([{name, description?, inputSchema?}]; [] removes them all).';
grant execute on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skills_list(args jsonb)
 returns jsonb
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select coalesce(jsonb_agg(jsonb_build_object('pluginId', p.id, 'plugin', p.name, 'name', x.s->>'name',
                                               'description', x.s->>'description', 'inputSchema', x.s->'inputSchema')
                            order by p.created_at, p.id, x.n), '[]')
  from app_private.plugins p
  cross join lateral jsonb_array_elements(coalesce(p.manifest->'skills', '[]')) with ordinality as x(s, n)
  where p.workspace_id = (select c.workspace_id from app_private.current_caller() c) and p.approved_at is not null
    and (args->>'pluginId' is null or p.id = app_hidden.parse_uuid(args->>'pluginId', 'pluginId'))
    and (args->>'skill' is null or x.s->>'name' = args->>'skill')
$$;
comment on function app_hidden.plugin_skills_list(args jsonb) is 'Skills of the approved plugins of the caller''s workspace ([{pluginId, plugin, name, description, inputSchema}]), optionally of one plugin (pluginId) and one skill (skill).';
grant execute on function app_hidden.plugin_skills_list(args jsonb) to svc_visitor;

create or replace function app_hidden.plugin_skill(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_found jsonb := app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId', 'skill', args->>'skill'))->0;
begin
  if v_found is null then
    if not exists (select 1 from app_hidden.plugins() p where p.id = (args->>'pluginId')::uuid) then
      raise exception 'Plugin not found' using errcode = 'SV404', column = 'pluginId';
    end if;
    raise exception 'Skill not found: the plugin''s manifest.skills does not name it' using errcode = 'SV404', column = 'skill';
  end if;
  return v_found;
end
$$;
comment on function app_hidden.plugin_skill(args jsonb) is 'The skill {pluginId, skill} of an approved plugin of the caller''s workspace (as plugin_skills_list shows it), or 404 on pluginId (no such plugin here) or on skill.';
grant execute on function app_hidden.plugin_skill(args jsonb) to svc_visitor;

create or replace function app_hidden.current_plugin_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select c.plugin_id from app_private.current_caller() c $$;
comment on function app_hidden.current_plugin_id() is 'The plugin the calling key was issued under (null for workspace keys).';
grant execute on function app_hidden.current_plugin_id() to svc_visitor;
--! EndIncluded auth/plugins.sql
