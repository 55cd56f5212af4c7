--! Previous: sha1:91c810b0aea83350ad1dc7960dba07e2b3513a22
--! Hash: sha1:d69c5b4e62cc4ef83d1960ee65e293163f23a67a
--! Message: Plugin skills

--! split: 1-current.sql
-- Plugin skills (spec: scope INVOKE_SKILLS, events SKILL_INVOKED and PLUGIN_ERROR, which nothing wrote before).
-- A plugin's manifest declares skills (pluginsCreate skills, pluginsSetSkills); skills.list shows them, skills.invoke
-- fires one as SKILL_INVOKED (subject the plugin), plugins.reportError lets the plugin's own key record PLUGIN_ERROR.
alter type app_public.plugin_info add attribute skills jsonb;
drop function if exists app_public.plugins_create(text, app_public.api_key_scope[]);
drop function if exists app_hidden.plugins_create(text, text[]);
drop function if exists app_private.create_plugin(uuid, text, text[]);
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
    if app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId')) = '[]'
       and not exists (select 1 from app_hidden.plugins() p where p.id = (args->>'pluginId')::uuid) then
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
--! Included events/visibility.sql
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
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_subject_id)
                          or (p_payload ? 'before' and app_hidden.scope_passes_narrowing(
                                (p_payload->'before'->>'projectId')::uuid, p_payload->'before'->'labelIds'));
    -- A comment's events follow its issue (payload issueId), not the comment row: the comments policy hides a
    -- deleted comment, which would take its creation and its deletion out of the stream, the replay and a resume.
    when 'comment' then return exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_subject_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_subject_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_subject_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_subject_id);
    when 'review-gate' then return exists (select 1 from app_public.review_gates rg where rg.id = p_subject_id);
    -- A request on an issue follows the issue row (payload issueId), as comments do: the requests policy hides those
    -- of a deleted issue, which would take their events out of the stream, the replay and a resume for this key only.
    else return case when p_payload->>'issueId' is not null
                     then exists (select 1 from app_public.issues i where i.id = (p_payload->>'issueId')::uuid)
                     else exists (select 1 from app_public.action_requests ar where ar.id = p_subject_id) end;
  end case;
end
$$;
comment on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) is 'Whether a narrowed key sees an event about this subject: issue, comment and agent-run events only of issues it can see (and the ISSUE_UPDATED of an issue leaving its view, by the payload''s before), project events only of its projects, initiative events only of its initiatives, goal, plan, step, review-gate and action-request events only of records it can see (they follow their issue), canvas card and edge events only when it sees every issue they name (payload issueIds), plugin events about an issue (skills.invoke issueId) only of issues it can see; other subjects always.';
grant execute on function app_hidden.event_subject_visible(p_subject_type text, p_subject_id uuid, p_payload jsonb) to svc_visitor;

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
comment on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) is 'Whether the caller sees a chat-thread event: the caller sees the thread (chat_threads policy: participants and admins, the thread issue''s narrowing) and the issue of the message''s context, if any.';
grant execute on function app_hidden.chat_event_visible(p_thread_id uuid, p_context_issue_id text) to svc_visitor;
--! EndIncluded events/visibility.sql
--! Included skills/tools/list.sql
-- The skills.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the skills the workspace's approved plugins declare (manifest.skills), optionally of one plugin.
create or replace function app_tools.skills_list(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.plugin_skills_list(jsonb_build_object('pluginId', args->>'pluginId')) $$;
grant execute on function app_tools.skills_list(args jsonb) to svc_visitor;
comment on function app_tools.skills_list(args jsonb) is 'skills.list: The skills the workspace''s plugins offer (their manifest.skills): plugin, name, description and the inputSchema skills.invoke checks input against.';
--! EndIncluded skills/tools/list.sql
--! Included skills/tools/invoke.sql
-- The skills.invoke tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fires a plugin skill: SKILL_INVOKED (subject the plugin) carries the invocation to the plugin, which follows the
-- stream or a webhook with its own key; the input was checked against the skill's inputSchema before this call.
create or replace function app_tools.skills_invoke(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_skill jsonb := app_hidden.plugin_skill(jsonb_build_object('pluginId', app_hidden.parse_uuid(args->>'pluginId', 'pluginId'),
                                                              'skill', args->>'skill'));
  v_issue_id uuid;
  v_invocation uuid := gen_random_uuid();
  v_event uuid;
begin
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  v_event := app_hidden.record_event('SKILL_INVOKED', 'plugin', (v_skill->>'pluginId')::uuid, jsonb_build_object(
    'invocationId', v_invocation, 'pluginId', v_skill->>'pluginId', 'plugin', v_skill->>'plugin', 'skill', v_skill->>'name',
    'input', coalesce(args->'input', '{}'), 'issueId', v_issue_id));
  return jsonb_build_object('invocationId', v_invocation, 'eventId', v_event, 'pluginId', v_skill->>'pluginId',
                            'skill', v_skill->>'name', 'issueId', v_issue_id);
end
$$;
grant execute on function app_tools.skills_invoke(args jsonb) to svc_visitor;
comment on function app_tools.skills_invoke(args jsonb) is 'skills.invoke: Fire a plugin skill: input (checked against the skill''s inputSchema, 64 KB of JSON at most) goes to the plugin as a SKILL_INVOKED event (subject the plugin; issueId, when given, must be an issue you can see). Returns at once with the invocationId; the plugin acts through the tools and reports failures as PLUGIN_ERROR.';
--! EndIncluded skills/tools/invoke.sql
--! Included plugins/tools/reportError.sql
-- The plugins.reportError tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a plugin's own key reports a runtime error of the plugin (PLUGIN_ERROR, subject the plugin), e.g. a skill it
-- could not run; other keys get 403 plugin_key_required.
create or replace function app_tools.plugins_report_error(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plugin uuid := app_hidden.current_plugin_id();
  v_event uuid;
begin
  if v_plugin is null then
    raise exception 'Only a key issued under a plugin reports its errors (plugin.issueApiKey)' using errcode = 'SV403', detail = 'plugin_key_required';
  end if;
  v_event := app_hidden.record_event('PLUGIN_ERROR', 'plugin', v_plugin, jsonb_build_object(
    'pluginId', v_plugin, 'message', args->>'message', 'skill', args->>'skill',
    'invocationId', app_hidden.parse_uuid(args->>'invocationId', 'invocationId'), 'details', args->'details'));
  return jsonb_build_object('eventId', v_event, 'pluginId', v_plugin);
end
$$;
grant execute on function app_tools.plugins_report_error(args jsonb) to svc_visitor;
comment on function app_tools.plugins_report_error(args jsonb) is 'plugins.reportError: For a plugin''s own key (plugin.issueApiKey): report a runtime error of the plugin, e.g. a skill invocation it could not carry out (skill, invocationId). Recorded as PLUGIN_ERROR (subject the plugin); other keys get 403 plugin_key_required.';
--! EndIncluded plugins/tools/reportError.sql
