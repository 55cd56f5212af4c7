--! Previous: sha1:3a6aca04132025a24709d2b2e1414fd74be45589
--! Hash: sha1:9baf71eaf55a8a13b56c82bc25f47840c3ab465f
--! Message: Agents mint no plugin keys and rewire no crew of their live plans

--! split: 1-current.sql
-- From a re-probe of the session's fixes:
-- * a person manages plugins (require_plugin_manager): an agent's key made for an OWNER created a plugin, issued itself
--   its key (no agent: a person's) and with it approved its own plan's review gate;
-- * an agent working in a live plan of a crew does not change the crew (crew_assert_not_own, 403 own_plan): a worker
--   removed the crew's REVIEWER, and the plan stopped judging its steps, so it passed its own;
-- * a crew's least-loaded member counts the plan steps given to it (a goal without an issue opens no step runs, and
--   every root step went to one member again).
--! Included auth/plugins.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.require_plugin_manager(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A person manages plugins: an agent's key (made for an OWNER, holding ADMIN) created a plugin and issued itself its
  -- key, which has no agent, and acted as a person with it (a worker approved its own plan's review gate). Agent keys
  -- mint no keys by accessCreate for the same reason.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agent keys do not manage plugins or issue their keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_private.require_admin(p_caller);
end
$$;
comment on function app_private.require_plugin_manager(p_caller app_private.caller) is 'Plugin management (pluginsCreate, pluginsSetSkills, pluginIssueApiKey): a person''s key (403 user_key_required for an agent''s) of a workspace OWNER/ADMIN holding ADMIN (require_admin).';

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
  perform app_private.require_plugin_manager(v_caller);
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
  perform app_private.require_plugin_manager(v_caller);
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
  perform app_private.require_plugin_manager(v_caller);
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
--! Included orchestration/crews.sql
-- orchestration: finding crews, members and review gates.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_crew(p_id text, p_field text default 'id'::text)
 returns app_public.agent_crews
 language plpgsql
 stable
as $$
declare v app_public.agent_crews;
begin
  select * into v from app_public.agent_crews
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew(p_id text, p_field text) is 'A crew of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_crew_member(p_id text, p_field text default 'memberId'::text)
 returns app_public.agent_crew_members
 language plpgsql
 stable
as $$
declare v app_public.agent_crew_members;
begin
  select * into v from app_public.agent_crew_members
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew member not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew_member(p_id text, p_field text) is 'A crew membership of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew_member(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_gate(p_id text, p_field text default 'id'::text)
 returns app_public.review_gates
 language plpgsql
 stable
as $$
declare v app_public.review_gates;
begin
  select * into v from app_public.review_gates
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Review gate not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_gate(p_id text, p_field text) is 'A review gate the key can see (through its plan and goal), else 404 naming the field.';
grant execute on function app_hidden.find_gate(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.require_crew_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_scope('ADMIN');
  -- Crews pick who plans, works and judges every goal of the workspace, those the key cannot see included: a key
  -- narrowed to some projects, labels or initiatives may not rewire them (as it may not create a goal without an issue).
  perform app_hidden.require_unnarrowed('Crews serve every goal of the workspace');
end
$$;
comment on function app_hidden.require_crew_admin() is 'The check of every crew change: 403 scope_required without the ADMIN scope, 403 narrowing for a narrowed key.';
grant execute on function app_hidden.require_crew_admin() to svc_visitor;

create or replace function app_hidden.crew_assert_not_own(p_crew_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Who judges a plan's steps, and who works them, is its crew: a worker removed the crew's REVIEWER (or made it a
  -- WORKER), and the plan no longer judged its steps, so it passed its own.
  if app_hidden.current_agent_id() is not null and exists (
       select 1 from app_public.execution_plans p join app_public.goals g on g.id = p.goal_id
       where g.crew_id = p_crew_id and p.is_active_attempt and p.status in ('DRAFT', 'APPROVED', 'RUNNING', 'BLOCKED')
         and app_hidden.caller_works_in_plan(p.id)) then
    raise exception 'An agent working in a live plan of this crew does not change the crew: a person (or another key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.crew_assert_not_own(p_crew_id uuid) is 'Before a crew''s members, roles, limits or state change: not by an agent working in a live plan of one of the crew''s goals (its planner, a worker or judge of a step): 403 own_plan.';
grant execute on function app_hidden.crew_assert_not_own(p_crew_id uuid) to svc_visitor;
--! EndIncluded orchestration/crews.sql
--! Included orchestration/loop.sql
-- orchestration: the loop. Finding and locking records, making steps READY (run + dispatch), judging,
-- cascading readiness, completing plans and goals, opening gates. Called by the goals/plans/executionPlans/
-- reviewGates tools and by accepting a plan's approval request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_goal(p_id text, p_field text default 'id'::text)
 returns app_public.goals
 language plpgsql
 stable
as $$
declare v app_public.goals;
begin
  select * into v from app_public.goals
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Goal not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_goal(p_id text, p_field text) is 'A goal the key can see (a goal tied to an issue follows that issue''s narrowing), else 404 naming the field.';
grant execute on function app_hidden.find_goal(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_plan(p_id text, p_field text default 'id'::text)
 returns app_public.execution_plans
 language plpgsql
 stable
as $$
declare v app_public.execution_plans;
begin
  select * into v from app_public.execution_plans
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Plan not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plan(p_id text, p_field text) is 'An execution plan the key can see (through its goal), else 404 naming the field.';
grant execute on function app_hidden.find_plan(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_step(p_id text, p_field text default 'stepId'::text)
 returns app_public.execution_steps
 language plpgsql
 stable
as $$
declare v app_public.execution_steps;
begin
  select * into v from app_public.execution_steps
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Step not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_step(p_id text, p_field text) is 'An execution step the key can see (through its plan and goal), else 404 naming the field.';
grant execute on function app_hidden.find_step(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.lock_plan(p_plan_id uuid)
 returns app_public.execution_plans
 language plpgsql
as $$
declare v app_public.execution_plans;
begin
  -- Lock order everywhere: goal, then plan. Steps are only changed with their plan locked.
  perform 1 from app_public.goals g where g.id = (select p.goal_id from app_public.execution_plans p where p.id = p_plan_id) for update;
  select * into v from app_public.execution_plans where id = p_plan_id for update;
  return v;
end
$$;
comment on function app_hidden.lock_plan(p_plan_id uuid) is 'Locks a plan''s goal and then the plan (FOR UPDATE) and returns the fresh plan: loop mutations of one goal serialize here.';
grant execute on function app_hidden.lock_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer default 0)
 returns uuid
 language sql
 stable
as $$
  -- The member with the least open work (runs on issues, and plan steps given to it, which have a run only when their
  -- goal has an issue), then the next from p_seed round the members: two root steps at positions 0 and 2 went to the
  -- first of two workers by position alone while the other sat idle.
  with members as (
    select m.agent_id, a.workspace_id, row_number() over (order by m.created_at, m.id) - 1 as i, count(*) over () as n
    from app_public.agent_crew_members m
    join app_public.agents a on a.id = m.agent_id and a.archived_at is null
    join app_public.agent_crews c on c.id = m.crew_id and c.archived_at is null
    where m.crew_id = p_crew_id and m.role = p_role)
  select m.agent_id from members m
  order by (select count(*) from app_public.agent_runs r
            where r.workspace_id = m.workspace_id and r.agent_id = m.agent_id and r.status in ('ACTIVE', 'WAITING', 'STALLED')
              and r.step_id is null)
           + (select count(*) from app_public.execution_steps st
              where st.workspace_id = m.workspace_id and st.assigned_agent_id = m.agent_id and st.status in ('READY', 'RUNNING', 'REVIEW')),
           (m.i - coalesce(p_seed, 0) % m.n + m.n) % m.n
  limit 1
$$;
comment on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) is 'A live agent of the crew in the role (PLANNER, WORKER, REVIEWER ...): the one with the least open work (open runs not of a step, and READY, RUNNING or REVIEW steps given to it), ties spread over the members from p_seed (a step''s position); NULL when none.';
grant execute on function app_hidden.crew_agent_for_role(p_crew_id uuid, p_role text, p_seed integer) to svc_visitor;

create or replace function app_hidden.step_make_ready(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
begin
  return app_hidden.step_dispatch_work(app_hidden.step_move(p_step, 'READY'));
end
$$;
comment on function app_hidden.step_make_ready(p_step app_public.execution_steps) is 'A step becomes READY (its dependencies DONE) and is given to its worker (step_dispatch_work).';
grant execute on function app_hidden.step_make_ready(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.step_dispatch_work(p_step app_public.execution_steps)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps := p_step;
  v_agent uuid;
  v_run uuid;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  -- An agent archived since it was given the step is passed over (it can no longer act): the step goes to a live
  -- crew member in its role, else it is READY with no worker and no run.
  v_agent := coalesce((select a.id from app_public.agents a where a.id = p_step.assigned_agent_id and a.archived_at is null),
                      app_hidden.crew_agent_for_role(v_goal.crew_id, coalesce(p_step.assigned_role, 'WORKER'), p_step.position));
  if v_step.assigned_agent_id is distinct from v_agent then
    update app_public.execution_steps set assigned_agent_id = v_agent where id = v_step.id returning * into v_step;
  end if;
  -- The worker's run: on the goal's issue (runs belong to issues), tagged with the step, whose title is the
  -- run's currentStep (what the board and agents.workload show it working on). A retry reuses it.
  if v_agent is not null and v_goal.issue_id is not null
     and exists (select 1 from app_public.issues i where i.id = v_goal.issue_id and i.deleted_at is null) then
    -- Read, not locked: the run's own tools lock it and then this plan (budget trigger), so locking it under the
    -- plan's lock could deadlock; a retry's step has the same title.
    select r.id into v_run from app_public.agent_runs r
    where r.workspace_id = v_step.workspace_id and r.step_id = v_step.id and r.agent_id = v_agent
      and r.status not in ('COMPLETED', 'ABANDONED')
    order by r.started_at desc limit 1;
    if v_run is null then
      insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode, step_id, current_step)
      values (v_step.workspace_id, v_agent, v_goal.issue_id, 'ACTIVE', 'EXECUTE', v_step.id, v_step.title)
      returning id into v_run;
    end if;
  end if;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'work', 'planId', v_plan.id, 'goalId', v_goal.id, 'stepId', v_step.id, 'title', v_step.title,
    'body', v_step.body, 'expectedOutput', v_step.expected_output, 'verification', v_step.verification,
    'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id), 'assignedAgentId', v_agent,
    'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count, 'runId', v_run, 'issueId', v_goal.issue_id));
  perform app_hidden.dispatch_to_agent(v_event, v_agent);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) is 'Gives a READY step to its worker: its agent (assigned and not archived, else the crew member in its role, default WORKER; none: no worker) gets a run on the goal''s issue (reused on retry; currentStep the step''s title) and EXECUTION_STEP_READY (spec 6.4 payload, phase work) is written and dispatched to it.';
grant execute on function app_hidden.step_dispatch_work(p_step app_public.execution_steps) to svc_visitor;

create or replace function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid)
 returns void
 language plpgsql
as $$
declare v_step app_public.execution_steps;
begin
  -- The steps an archived agent was working on (READY or RUNNING, in a running plan) go to a live crew member in
  -- their role, as a step becoming READY does; a RUNNING one is READY again (its run ended with the archive), so the
  -- new worker starts it. They stayed READY with the archived agent, which nothing would ever move.
  for v_step in
    select s.* from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
    where s.workspace_id = p_workspace_id and s.assigned_agent_id = p_agent_id and s.status in ('READY', 'RUNNING')
      and p.status = 'RUNNING'
    order by p.id, s.position, s.id
    for update of s
  loop
    if v_step.status = 'RUNNING' then
      perform app_hidden.step_make_ready(v_step);
    else
      perform app_hidden.step_dispatch_work(v_step);
    end if;
  end loop;
end
$$;
comment on function app_private.steps_pass_over_archived_agent(p_workspace_id uuid, p_agent_id uuid) is 'On archiving an agent: its READY and RUNNING steps of running plans go to a live crew member in their role (READY, EXECUTION_STEP_READY dispatched), or stay READY with no worker when the crew has none.';

create or replace function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid)
 returns app_public.execution_steps
 language plpgsql
as $$
declare
  v_step app_public.execution_steps;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  update app_public.execution_steps set judge_agent_id = p_judge where id = p_step.id returning * into v_step;
  v_event := app_hidden.record_event('EXECUTION_STEP_READY', 'execution-step', v_step.id, jsonb_build_object(
    'phase', 'judge', 'judgeAgentId', p_judge, 'planId', v_plan.id, 'goalId', v_plan.goal_id, 'stepId', v_step.id,
    'title', v_step.title, 'body', v_step.body, 'expectedOutput', v_step.expected_output,
    'verification', v_step.verification, 'contextSetId', coalesce(v_step.context_set_id, v_plan.context_set_id),
    'assignedAgentId', v_step.assigned_agent_id, 'lastFeedback', v_step.last_feedback, 'retryCount', v_step.retry_count,
    'prompt', format(E'Judge step "%s" of plan %s.\nExpected output: %s\nVerification: %s\nCompare the work with the expected output and every verification item, then call plans.recordVerdict {"stepId": "%s", "verdict": "PASS" or "FAIL", "feedback": "...", "score": 0 to 100 (optional)}. FAIL sends the step back to its worker with your feedback (%s of %s retries used).',
                     v_step.title, v_plan.id, coalesce(v_step.expected_output, '(none given)'), v_step.verification::text,
                     v_step.id, v_step.retry_count, v_plan.max_step_retries)));
  perform app_hidden.dispatch_to_agent(v_event, p_judge);
  return v_step;
end
$$;
comment on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) is 'Dispatches the judge of a step in REVIEW: EXECUTION_STEP_READY with phase judge, judgeAgentId and a judging prompt, delivered to the reviewer.';
grant execute on function app_hidden.step_dispatch_judge(p_step app_public.execution_steps, p_judge uuid) to svc_visitor;

create or replace function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  -- SKIP LOCKED: a run being reported on right now (its tool locked it, and its budget trigger then waits for this
  -- plan's lock) is left to its agent rather than deadlocking; the stale sweep catches it if nobody closes it.
  update app_public.agent_runs r set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where r.id in (select o.id from app_public.agent_runs o
                 where o.workspace_id = p_plan.workspace_id and o.status in ('ACTIVE', 'WAITING', 'STALLED')
                   and o.step_id in (select s.id from app_public.execution_steps s where s.plan_id = p_plan.id)
                 for update skip locked);
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) is 'Ends the open runs of a plan attempt''s steps (ABANDONED, reason plan_canceled or plan_completed), when the attempt is canceled or completes.';
grant execute on function app_hidden.plan_end_step_runs(p_plan app_public.execution_plans, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_cascade(p_plan_id uuid)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_step app_public.execution_steps;
  v_ready uuid[] := '{}';
begin
  select * into v_plan from app_public.execution_plans where id = p_plan_id;
  if v_plan.status <> 'RUNNING' then
    return v_ready;
  end if;
  for v_step in
    select s.* from app_public.execution_steps s
    where s.plan_id = p_plan_id and s.status = 'TODO' and app_hidden.step_dependencies_done(s)
    order by s.position
  loop
    perform app_hidden.step_make_ready(v_step);
    v_ready := v_ready || v_step.id;
  end loop;
  -- Every step DONE (canceled ones skipped, at least one DONE): the plan completes and its goal is achieved.
  if exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status = 'DONE')
     and not exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id and s.status not in ('DONE', 'CANCELED')) then
    v_plan := app_hidden.plan_move(v_plan, 'COMPLETED');
    perform app_hidden.gates_cancel(p_plan_id);
    -- Step runs their agents left open would otherwise stay ACTIVE on a finished plan, and stall.
    perform app_hidden.plan_end_step_runs(v_plan, 'plan_completed');
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_plan.is_active_attempt and v_goal.status = 'ACTIVE' then
      perform app_hidden.goal_move(v_goal, 'ACHIEVED');
    end if;
  end if;
  return v_ready;
end
$$;
comment on function app_hidden.plan_cascade(p_plan_id uuid) is 'Readiness cascade of a RUNNING plan: every TODO step whose dependencies are all DONE becomes READY (and is dispatched); when every step is DONE (CANCELED ones skipped) the plan is COMPLETED (open step runs end, reason plan_completed) and its goal ACHIEVED. Returns the ids made READY.';
grant execute on function app_hidden.plan_cascade(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_activate(p_plan app_public.execution_plans)
 returns uuid[]
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_plan.id);
  v_goal app_public.goals;
begin
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if not v_plan.is_active_attempt then
    raise exception 'This plan is not the goal''s active attempt' using errcode = 'SV409', detail = 'not_active_attempt';
  end if;
  -- Spec 3.8: only DRAFT or APPROVED. A BLOCKED plan runs again through its gate (reviewGates.resolve) or
  -- executionPlans.transition RUNNING, which refuse while a gate holds it.
  if v_plan.status not in ('DRAFT', 'APPROVED') then
    raise exception 'Plan is %; plans.activate runs a DRAFT or APPROVED plan%', v_plan.status,
      case when v_plan.status = 'BLOCKED' then ' (a blocked plan runs again when its review gate is resolved)' else '' end
      using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if v_goal.status not in ('PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; its plan cannot run', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  if not exists (select 1 from app_public.execution_steps s where s.plan_id = v_plan.id) then
    raise exception 'The plan has no steps: add them with plans.addSteps first' using errcode = 'SV409', detail = 'plan_empty';
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
  if v_goal.status = 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'ACTIVE');
  end if;
  -- Activating answers the plan's open approval requests (one being accepted is already RESOLVED).
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return app_hidden.plan_cascade(v_plan.id);
end
$$;
comment on function app_hidden.plan_activate(p_plan app_public.execution_plans) is 'plans.activate (also run by accepting the plan''s approval request): the active DRAFT/APPROVED attempt with steps becomes RUNNING, its goal ACTIVE (startedAt), root steps READY and dispatched. Other open approval requests of the plan are SUPERSEDED. Returns the ids made READY.';
grant execute on function app_hidden.plan_activate(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.gates_cancel(p_plan_id uuid)
 returns void
 language plpgsql
as $$
declare v_gate app_public.review_gates;
begin
  for v_gate in select * from app_public.review_gates g where g.plan_id = p_plan_id and g.status = 'PENDING' loop
    perform app_hidden.gate_move(v_gate, 'CANCELED', 'the plan ended');
  end loop;
end
$$;
comment on function app_hidden.gates_cancel(p_plan_id uuid) is 'CANCELs the PENDING review gates of a plan that ended.';
grant execute on function app_hidden.gates_cancel(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.caller_works_in_plan(p_plan_id uuid)
 returns boolean
 language sql
 stable
as $$
  select app_hidden.current_agent_id() is not null and (
    exists (select 1 from app_public.execution_plans p where p.id = p_plan_id and p.planner_agent_id = app_hidden.current_agent_id())
    or exists (select 1 from app_public.execution_steps s where s.plan_id = p_plan_id
               and app_hidden.current_agent_id() in (s.assigned_agent_id, s.judge_agent_id)))
$$;
comment on function app_hidden.caller_works_in_plan(p_plan_id uuid) is 'Whether the calling key is an agent working in the plan: its planner, or a worker or judge of one of its steps. Such an agent neither resolves the plan''s gates nor decides its approval (403 own_plan). Never NULL.';
grant execute on function app_hidden.caller_works_in_plan(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.gate_assert_may_decide(p_plan_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is not null and not app_hidden.has_scope('ADMIN') then
    raise exception 'Review gates are decided by a person (or an ADMIN-scoped key), not by an agent key' using errcode = 'SV403', detail = 'person_required';
  end if;
  -- Not by an agent of the plan the gate holds (its planner, or a worker or judge of one of its steps), ADMIN or not:
  -- the worker whose spending stopped the plan approved its own budget.
  if app_hidden.caller_works_in_plan(p_plan_id) then
    raise exception 'An agent working in this plan does not decide its review gates: a person (or another ADMIN-scoped key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.gate_assert_may_decide(p_plan_id uuid) is 'Before a pending review gate of the plan is decided, by reviewGates.resolve or by ending what it holds (canceling its step or plan, abandoning the goal, planning again): a person, or an ADMIN-scoped agent key that does not work in the plan (403 person_required / own_plan otherwise).';
grant execute on function app_hidden.gate_assert_may_decide(p_plan_id uuid) to svc_visitor;

create or replace function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps default null)
 returns void
 language plpgsql
 stable
as $$
begin
  -- A worker or judge does not end the work it is judged on: canceling a failing step (or the plan, or the goal)
  -- completed the plan and achieved the goal around the judge's verdict. The planner, a person or an agent outside
  -- the plan may.
  if app_hidden.caller_works_in_plan(p_plan.id) and app_hidden.current_agent_id() is distinct from p_plan.planner_agent_id then
    if p_step.id is not null and app_hidden.current_agent_id() = p_step.assigned_agent_id then
      raise exception 'A worker does not cancel its own step: its planner or a person does' using errcode = 'SV403', detail = 'own_step';
    end if;
    raise exception 'An agent working in this plan (a worker or judge) does not cancel its steps or end it: its planner or a person does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Ending what a pending gate holds cancels the gate: as deciding it.
  if exists (select 1 from app_public.review_gates g where g.plan_id = p_plan.id and g.status = 'PENDING'
             and (p_step.id is null or g.step_id = p_step.id)) then
    perform app_hidden.gate_assert_may_decide(p_plan.id);
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) is 'Before a tool ends work in a live plan (cancels p_step, or with no step cancels or completes the plan, abandons its goal or plans the goal again): an agent working in the plan must be its planner (403 own_step for a worker canceling its own step, own_plan for the others); where a pending review gate holds what ends, the caller must also be one who may decide it (gate_assert_may_decide).';
grant execute on function app_hidden.plan_assert_may_end(p_plan app_public.execution_plans, p_step app_public.execution_steps) to svc_visitor;

create or replace function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans)
 returns void
 language plpgsql
 stable
as $$
declare v_request app_public.action_requests;
begin
  -- A plan that asked for approval is approved or run by someone who may decide its request (that gate, own_request
  -- included), whatever became of the request: its planner approving or activating it anyway made approval advisory,
  -- and so did declining it, withdrawing it or superseding it (addSteps) before activating.
  -- (Only where it would be approved or run: another plan's move is the machine's 409.)
  select * into v_request from app_public.action_requests ar
  where ar.id = p_plan.approval_request_id and ar.status <> 'RESOLVED' and p_plan.status in ('DRAFT', 'APPROVED');
  if v_request.id is not null then
    perform app_hidden.action_request_assert_may_act(v_request, false,
      format('This plan asked for approval (action request %s, %s): it runs once a request for it is accepted, or by one who may decide it',
             v_request.id, v_request.status));
  end if;
end
$$;
comment on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) is 'Before a plan is APPROVED or RUNNING by a tool: once it asked for approval and its request was not accepted (open, declined, withdrawn, superseded), only a key that may decide that request (403 not_allowed / own_request otherwise).';
grant execute on function app_hidden.plan_assert_may_approve(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.plan_cancel(p_plan app_public.execution_plans)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_step app_public.execution_steps;
begin
  v_plan := app_hidden.plan_move(p_plan, 'CANCELED');
  for v_step in select * from app_public.execution_steps s where s.plan_id = v_plan.id and s.status not in ('DONE', 'CANCELED') order by s.position loop
    perform app_hidden.step_move(v_step, 'CANCELED');
  end loop;
  perform app_hidden.gates_cancel(v_plan.id);
  perform app_hidden.plan_end_step_runs(v_plan, 'plan_canceled');
  perform app_hidden.action_requests_supersede('execution-plan', v_plan.id);
  return v_plan;
end
$$;
comment on function app_hidden.plan_cancel(p_plan app_public.execution_plans) is 'Cancels a live plan attempt: plan CANCELED, its unfinished steps CANCELED, pending gates CANCELED, open step runs ABANDONED, open approval requests SUPERSEDED.';
grant execute on function app_hidden.plan_cancel(p_plan app_public.execution_plans) to svc_visitor;

create or replace function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text)
 returns app_public.goals
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
begin
  select * into v_plan from app_public.execution_plans p where p.goal_id = p_goal.id and p.is_active_attempt for update;
  v_goal := app_hidden.goal_move(p_goal, 'ABANDONED', p_reason);
  if v_plan.id is not null and v_plan.status not in ('COMPLETED', 'CANCELED') then
    perform app_hidden.plan_cancel(v_plan);
  end if;
  return v_goal;
end
$$;
comment on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) is 'goals.abandon (and rejecting a review gate): the goal becomes ABANDONED (terminal) and its live active plan attempt is canceled.';
grant execute on function app_hidden.goal_abandon(p_goal app_public.goals, p_reason text) to svc_visitor;

create or replace function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer)
 returns app_public.execution_plans
 language plpgsql
as $$
declare
  v_goal app_public.goals;
  v_prior app_public.execution_plans;
  v_plan app_public.execution_plans;
  v_event uuid;
begin
  select * into v_goal from app_public.goals where id = p_goal.id for update;
  if v_goal.status not in ('OPEN', 'PLANNING', 'ACTIVE') then
    raise exception 'Goal is %; it cannot be planned again', v_goal.status using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  select * into v_prior from app_public.execution_plans p where p.goal_id = v_goal.id and p.is_active_attempt for update;
  if v_prior.id is not null then
    update app_public.execution_plans set is_active_attempt = false where id = v_prior.id returning * into v_prior;
    if v_prior.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_assert_may_end(v_prior);
      perform app_hidden.plan_cancel(v_prior);
    end if;
  end if;
  insert into app_public.execution_plans (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries)
  values (v_goal.workspace_id, v_goal.id,
          coalesce((select max(p.attempt) from app_public.execution_plans p where p.goal_id = v_goal.id), 0) + 1,
          p_planner, p_context_set_id, p_auto_judge, coalesce(p_max_step_retries, 2))
  returning * into v_plan;
  if v_goal.status <> 'PLANNING' then
    perform app_hidden.goal_move(v_goal, 'PLANNING');  -- GOAL_STATUS_CHANGED (and the planner's dispatch) by trigger
  else
    -- Already planning: the new attempt is still announced (and dispatched to its planner).
    v_event := app_hidden.record_event('GOAL_STATUS_CHANGED', 'goal', v_goal.id,
      app_hidden.goal_status_payload(v_goal, 'PLANNING', 'PLANNING'));
    perform app_hidden.dispatch_to_agent(v_event, p_planner);
  end if;
  return v_plan;
end
$$;
comment on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) is 'A new DRAFT plan attempt for a live goal (plans.decompose, executionPlans.create): the previous attempt flips isActiveAttempt false (canceled if live), the goal moves to PLANNING; GOAL_STATUS_CHANGED carries planId and plannerAgentId and is dispatched to the planner.';
grant execute on function app_hidden.plan_new_attempt(p_goal app_public.goals, p_planner uuid, p_context_set_id text, p_auto_judge boolean, p_max_step_retries integer) to svc_visitor;

create or replace function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('goalId', p_goal.id, 'from', p_from, 'to', p_to, 'planId', p.id,
                            'plannerAgentId', p.planner_agent_id, 'issueId', p_goal.issue_id, 'title', p_goal.title)
  from (select null) x
  left join app_public.execution_plans p on p.goal_id = p_goal.id and p.is_active_attempt
$$;
comment on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) is 'GOAL_STATUS_CHANGED payload (spec 6.4: from, to, planId = the active attempt) plus goalId, plannerAgentId, issueId, title.';
grant execute on function app_hidden.goal_status_payload(p_goal app_public.goals, p_from text, p_to text) to svc_visitor;

create or replace function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text default 'steps'::text)
 returns uuid[]
 language plpgsql
as $$
declare
  v_n int := jsonb_array_length(coalesce(p_steps, '[]'));
  v_base int;
  v_ids uuid[] := '{}';
  v_indeg int[];
  v_queue int[] := '{}';
  v_seen int := 0;
  v_i int;
  v_j int;
  v_d int;
  v_step jsonb;
  v_agent uuid;
  v_id uuid;
begin
  if p_plan.status <> 'DRAFT' then
    raise exception 'Steps can only be added to a DRAFT plan (this one is %)', p_plan.status using errcode = 'SV409', detail = 'plan_not_draft';
  end if;
  -- dependsOnStepIndexes: 0-based positions within this batch, validated as a DAG (Kahn's algorithm). An index listed
  -- twice is one dependency (counted twice, the step never reached in-degree 0 and was called a cycle).
  v_indeg := array_fill(0, array[greatest(v_n, 1)]);
  for v_i in 0 .. v_n - 1 loop
    for v_d in select distinct (e)::int from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e loop
      if v_d < 0 or v_d >= v_n then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), format('index %s is not a step of this batch (0..%s)', v_d, v_n - 1));
      elsif v_d = v_i then
        perform app_hidden.raise_invalid(format('%s.%s.dependsOnStepIndexes', p_field, v_i), 'a step cannot depend on itself');
      end if;
      v_indeg[v_i + 1] := v_indeg[v_i + 1] + 1;
    end loop;
  end loop;
  for v_i in 0 .. v_n - 1 loop
    if v_indeg[v_i + 1] = 0 then v_queue := v_queue || v_i; end if;
  end loop;
  while cardinality(v_queue) > 0 loop
    v_i := v_queue[1];
    v_queue := v_queue[2:];
    v_seen := v_seen + 1;
    for v_j in 0 .. v_n - 1 loop
      if exists (select 1 from jsonb_array_elements_text(coalesce(p_steps->v_j->'dependsOnStepIndexes', '[]')) e where e::int = v_i) then
        v_indeg[v_j + 1] := v_indeg[v_j + 1] - 1;
        if v_indeg[v_j + 1] = 0 then v_queue := v_queue || v_j; end if;
      end if;
    end loop;
  end loop;
  if v_seen < v_n then
    -- Named as the other errors are: 0-based batch positions, the field of the first step in the cycle.
    perform app_hidden.raise_invalid(
      format('%s.%s.dependsOnStepIndexes', p_field, (select min(i) - 1 from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)),
      format('the dependencies make a cycle (steps %s)', (select string_agg((i - 1)::text, ', ') from generate_subscripts(v_indeg, 1) i where v_indeg[i] > 0 and i <= v_n)));
  end if;

  v_base := coalesce((select max(s.position) + 1 from app_public.execution_steps s where s.plan_id = p_plan.id), 0);
  for v_i in 0 .. v_n - 1 loop
    v_step := p_steps->v_i;
    v_agent := null;
    if v_step->>'assignedAgentId' is not null then
      v_agent := (app_hidden.find_live_agent(v_step->>'assignedAgentId', format('%s.%s.assignedAgentId', p_field, v_i))).id;
    end if;
    -- A dependency may come later in the batch: insert every step first, then link them.
    insert into app_public.execution_steps (workspace_id, plan_id, position, title, body, expected_output, verification,
                                            assigned_agent_id, assigned_role, context_set_id)
    values (p_plan.workspace_id, p_plan.id, v_base + v_i, v_step->>'title', v_step->>'body', v_step->>'expectedOutput',
            coalesce(v_step->'verification', '[]'), v_agent, v_step->>'assignedRole', v_step->>'contextSetId')
    returning id into v_id;
    v_ids := v_ids || v_id;
  end loop;
  -- The plan an approver was asked about has changed: its open approval request is SUPERSEDED (ask again).
  if v_n > 0 then
    perform app_hidden.action_requests_supersede('execution-plan', p_plan.id);
  end if;
  for v_i in 0 .. v_n - 1 loop
    update app_public.execution_steps s
    set depends_on_step_ids = (select coalesce(array_agg(distinct v_ids[(e)::int + 1]), '{}')
                               from jsonb_array_elements_text(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) e)
    where s.id = v_ids[v_i + 1] and jsonb_array_length(coalesce(p_steps->v_i->'dependsOnStepIndexes', '[]')) > 0;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) is 'Adds a batch of steps to a DRAFT plan (409 plan_not_draft otherwise). dependsOnStepIndexes are 0-based positions in the batch and must form a DAG: an unknown index, a self-dependency or a cycle is a 400 naming the field. assignedAgentId must be a live agent (400 agent_archived). Steps start TODO; an open approval request of the plan is SUPERSEDED (what it asked about changed).';
grant execute on function app_hidden.add_plan_steps(p_plan app_public.execution_plans, p_steps jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare v app_public.review_gates;
begin
  insert into app_public.review_gates (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id)
  values (p_plan.workspace_id, p_plan.id, p_step_id, p_reason, p_title, coalesce(p_details, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v;  -- REVIEW_GATE_OPENED by trigger
  return v;
end
$$;
comment on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) is 'Opens a PENDING review gate on a plan (and step): STEP_BLOCKED, BUDGET_COST, BUDGET_WALL_TIME or MANUAL.';
grant execute on function app_hidden.open_gate(p_plan app_public.execution_plans, p_step_id uuid, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb default '{}'::jsonb)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans;
begin
  select * into v_plan from app_public.execution_plans where id = p_step.plan_id;
  perform app_hidden.step_move(p_step, 'BLOCKED');
  return app_hidden.open_gate(v_plan, p_step.id, p_reason, p_title, p_details);
end
$$;
comment on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) is 'A step becomes BLOCKED and a review gate opens on it (approve: the step is ready again with fresh retries; reject: the goal is abandoned).';
grant execute on function app_hidden.step_block(p_step app_public.execution_steps, p_reason text, p_title text, p_details jsonb) to svc_visitor;

create or replace function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text)
 returns app_public.review_gates
 language plpgsql
as $$
declare
  v_plan app_public.execution_plans := app_hidden.lock_plan(p_gate.plan_id);
  v_gate app_public.review_gates;
  v_step app_public.execution_steps;
  v_goal app_public.goals;
begin
  select * into v_gate from app_public.review_gates where id = p_gate.id for update;
  if p_decision = 'REJECT' then
    v_gate := app_hidden.gate_move(v_gate, 'REJECTED', p_note);
    select * into v_goal from app_public.goals where id = v_plan.goal_id;
    if v_goal.status not in ('ACHIEVED', 'ABANDONED') then
      perform app_hidden.goal_abandon(v_goal, coalesce(p_note, 'review gate rejected'));
    elsif v_plan.status not in ('COMPLETED', 'CANCELED') then
      perform app_hidden.plan_cancel(v_plan);
    end if;
    return v_gate;
  end if;
  v_gate := app_hidden.gate_move(v_gate, 'APPROVED', p_note);
  if v_gate.step_id is not null then
    -- The held step continues with fresh retries: READY when its dependencies are DONE, else back to TODO.
    select * into v_step from app_public.execution_steps where id = v_gate.step_id;
    if v_step.status = 'BLOCKED' then
      update app_public.execution_steps set retry_count = 0 where id = v_step.id returning * into v_step;
      if v_plan.status = 'RUNNING' and app_hidden.step_dependencies_done(v_step) then
        perform app_hidden.step_make_ready(v_step);
      else
        perform app_hidden.step_move(v_step, 'TODO');
      end if;
    end if;
  elsif v_plan.status = 'BLOCKED' and not exists (
      select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.status = 'PENDING' and g.step_id is null) then
    v_plan := app_hidden.plan_move(v_plan, 'RUNNING');
    perform app_hidden.plan_cascade(v_plan.id);
  end if;
  return v_gate;
end
$$;
comment on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) is 'reviewGates.resolve: APPROVE lets the loop continue (a held step is ready again with fresh retries; a held plan runs again once no plan-level gate is pending); REJECT abandons the goal (its plan is canceled).';
grant execute on function app_hidden.gate_resolve(p_gate app_public.review_gates, p_decision text, p_note text) to svc_visitor;
--! EndIncluded orchestration/loop.sql
--! Included agentCrews/tools/addMember.sql
-- The agentCrews.addMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds an agent in a role (ADMIN); an agent is in a crew once (409 already_member).
create or replace function app_tools.agent_crews_add_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'crewId', 'crewId');
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', 'agentId');
  v_member app_public.agent_crew_members;
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_crew.id);
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived';
  end if;
  if exists (select 1 from app_public.agent_crew_members m where m.crew_id = v_crew.id and m.agent_id = v_agent.id) then
    raise exception 'Agent % is already in this crew (use setMemberRole)', v_agent.profile_key using errcode = 'SV409', detail = 'already_member';
  end if;
  insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
  values (v_crew.workspace_id, v_crew.id, v_agent.id, args->>'role')
  returning * into v_member;
  return app_hidden.crew_member_json(v_member);
end
$$;
comment on function app_tools.agent_crews_add_member(args jsonb) is 'agentCrews.addMember: Add an agent to a crew in a role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan). An agent is in a crew once (409 already_member; change roles with setMemberRole).';
grant execute on function app_tools.agent_crews_add_member(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/addMember.sql
--! Included agentCrews/tools/archive.sql
-- The agentCrews.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (ADMIN), idempotent; archived crews keep their goals but get no new ones or members.
create or replace function app_tools.agent_crews_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'id');
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_crew.id);
  if v_crew.archived_at is null then
    update app_public.agent_crews set archived_at = now() where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_archive(args jsonb) is 'agentCrews.archive: Archive a crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; soft, idempotent). Its goals keep it; it takes no new goals or members.';
grant execute on function app_tools.agent_crews_archive(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/archive.sql
--! Included agentCrews/tools/update.sql
-- The agentCrews.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes name, description, maxParallel (ADMIN); only the fields given. CREW_UPDATED by trigger on a real change.
create or replace function app_tools.agent_crews_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.find_crew(args->>'id');
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_crew.id);
  update app_public.agent_crews
  set name = case when args ? 'name' then args->>'name' else name end,
      description = case when args ? 'description' then args->>'description' else description end,
      max_parallel = case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end
  where id = v_crew.id
    and (name, description, max_parallel) is distinct from (
      case when args ? 'name' then args->>'name' else name end,
      case when args ? 'description' then args->>'description' else description end,
      case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end)
  returning * into v_crew;
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_update(args jsonb) is 'agentCrews.update: Change a crew''s name, description or maxParallel (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan); only the fields given.';
grant execute on function app_tools.agent_crews_update(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/update.sql
--! Included agentCrews/tools/removeMember.sql
-- The agentCrews.removeMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes a membership (ADMIN).
create or replace function app_tools.agent_crews_remove_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_member.crew_id);
  delete from app_public.agent_crew_members where id = v_member.id;
  return jsonb_build_object('ok', true, 'id', v_member.id, 'crewId', v_member.crew_id);
end
$$;
comment on function app_tools.agent_crews_remove_member(args jsonb) is 'agentCrews.removeMember: Remove a member from its crew (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).';
grant execute on function app_tools.agent_crews_remove_member(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/removeMember.sql
--! Included agentCrews/tools/setMemberRole.sql
-- The agentCrews.setMemberRole tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes a members role (ADMIN).
create or replace function app_tools.agent_crews_set_member_role(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_member app_public.agent_crew_members := app_hidden.find_crew_member(args->>'memberId');
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v_member.crew_id);
  update app_public.agent_crew_members set role = args->>'role' where id = v_member.id and role is distinct from args->>'role'
  returning * into v_member;
  return app_hidden.crew_member_json(app_hidden.find_crew_member(args->>'memberId'));
end
$$;
comment on function app_tools.agent_crews_set_member_role(args jsonb) is 'agentCrews.setMemberRole: Change a crew member''s role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan).';
grant execute on function app_tools.agent_crews_set_member_role(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/setMemberRole.sql
