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
  v_issued app_public.issued_api_key;
begin
  perform app_private.require_plugin_manager(v_caller);
  perform app_hidden.hold_membership();  -- takes turns with the issuer's removal (access_create_key)
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
    perform app_private.require_narrowing_current(v_caller.workspace_id, v_projects, v_labels, '{}');
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
    perform app_private.require_narrowing_current(v_caller.workspace_id, '{}', '{}', v_initiatives);
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  v_issued := app_private.issue_api_key(v_caller.workspace_id, null, 'PERSONAL', null, p_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, v_plugin.id);
  -- The key acts for no one, but a member issued it: it goes when they leave (remove_member).
  update app_private.api_keys set issued_by_user_id = v_caller.user_id where id = v_issued.id;
  return v_issued;
end
$$;
comment on function app_hidden.plugin_issue_api_key(p_plugin_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'OWNER/ADMIN: issues a key under an approved plugin. Its scopes must be a subset of manifest.scopes (else 400 naming the extra scopes) and of the caller''s; it records the issuing member (issued_by_user_id), whose removal revokes it.';
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

create or replace function app_hidden.find_plugin(p_id text, p_field text default 'pluginId'::text)
 returns app_public.plugin_info
 language plpgsql
 stable
as $$
declare v app_public.plugin_info;
begin
  select * into v from app_hidden.plugins() p where p.id = app_hidden.parse_uuid(p_id, p_field);
  if v.id is null then
    raise exception 'Plugin not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_plugin(p_id text, p_field text) is 'A plugin of the caller''s workspace (approved or not), else 404 Plugin not found naming the field.';
grant execute on function app_hidden.find_plugin(p_id text, p_field text) to svc_visitor;

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
comment on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) is '@arg pluginId The approved plugin to issue the key under.
@arg scopes What the key may do: within the plugin''s manifest.scopes (else 400 naming the extra ones) and the calling key''s scopes.
@arg projectIds Narrows the key to issues and projects of these projects (with labelIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg labelIds Narrows the key to issues carrying one of these labels (with projectIds: either matches), within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg initiativeIds Narrows the key to these initiatives, within the calling key''s narrowing; omitted or empty = as narrow as the calling key.
@arg expiresInDays Days until the key expires, 1 to 3650; omitted = no expiry. Never later than the calling key''s own expiry.
@arg name A label for the key in key lists, one line of up to 200 characters.
@result The new plugin key, with its rawKey: the secret, shown only here.
plugin.issueApiKey (OWNER/ADMIN): a key under an approved plugin. scopes must be a subset of the plugin''s manifest.scopes, otherwise the call fails naming the extra scopes. The rawKey is returned once.';
grant execute on function app_public.plugin_issue_api_key(plugin_id uuid, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_in_days integer, name text) to svc_visitor;

create or replace function app_public.plugins()
 returns setof app_public.plugin_info
 language sql
 stable
as $$ select * from app_hidden.plugins() $$;
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes and manifest.skills), oldest first.';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb default null)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[], skills) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) is '@arg name The plugin''s name, one line of 1 to 200 characters.
@arg scopes manifest.scopes: the most a key issued under the plugin may hold (at least one).
@arg skills manifest.skills, at most 50 [{name, description?, inputSchema?}]: name 1 to 64 letters, digits, . _ - starting with a letter; inputSchema a JSON Schema object of at most 16 KB. Omitted = none.
@result The plugin record, approved.
OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it and whose manifest.skills ([{name, description?, inputSchema?}]) are what skills.invoke may call.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[], skills jsonb) to svc_visitor;

create or replace function app_public.plugins_set_skills(plugin_id uuid, skills jsonb)
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_set_skills(plugin_id, skills) $$;
comment on function app_public.plugins_set_skills(plugin_id uuid, skills jsonb) is '@arg pluginId The plugin to change.
@arg skills The new manifest.skills, replacing them all ([] removes them), in the form pluginsCreate takes.
@result The plugin record with its new skills.
OWNER/ADMIN: replaces a plugin''s manifest.skills ([{name, description?, inputSchema?}]; [] removes them all).';
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
    perform app_hidden.find_plugin(args->>'pluginId');
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
