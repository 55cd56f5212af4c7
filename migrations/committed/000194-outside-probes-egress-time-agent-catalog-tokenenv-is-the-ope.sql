--! Previous: sha1:7e503dc10262408737a2c8a6a6dab686c6d4101c
--! Hash: sha1:78d3612dd90f0fa8d520929aab69456102163a85
--! Message: Outside probes (egress, time, agent catalog): tokenEnv is the operator's; time entries end in the past; statuses by words; relations.list BLOCKED_BY; dispatchTimeseries window; cycle date errors name the field sent; workspace.get names the caller

--! split: 1-current.sql
-- From outside probes (egress, time): a workspace admin names no server environment variable for a repository
-- mapping's token (403 operator_only; the token does not follow a new apiUrl); a time entry does not end in the future.
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

create or replace function app_hidden.repo_refuse_token_env(p_given boolean)
 returns void
 language plpgsql
 stable
as $$
begin
  -- tokenEnv names a variable of the server's own environment: a workspace admin naming one had the service send its
  -- value (PATH, a cloud secret, another workspace's token) to an apiUrl of their choosing. The operator grants a
  -- token (svc admin create-repo-mapping --token-env); in-app a mapping is anonymous, or keeps the operator's.
  if p_given then
    raise exception 'tokenEnv names a variable of the server''s environment: only the operator sets it (svc admin create-repo-mapping --token-env)'
      using errcode = 'SV403', detail = 'operator_only', column = 'tokenEnv';
  end if;
end
$$;
comment on function app_hidden.repo_refuse_token_env(p_given boolean) is 'In-app repository mappings: 403 operator_only when tokenEnv is given (the server''s environment is the operator''s).';
grant execute on function app_hidden.repo_refuse_token_env(p_given boolean) to svc_visitor;

create or replace function app_public.repo_mappings_create(repo_full_name text, token_env text default NULL::text, api_url text default NULL::text, status_rules jsonb default NULL::jsonb, sync_title boolean default false)
 returns app_public.connection_mappings
 language plpgsql
as $$
declare v jsonb;
begin
  perform app_hidden.require_workspace_admin_key();
  perform app_hidden.require_unnarrowed('Repository mappings serve the whole workspace');
  perform app_hidden.check_repo_full_name(repo_full_name, 'repoFullName');
  perform app_hidden.repo_refuse_token_env(token_env is not null);
  v := app_hidden.repo_mapping_insert(app_hidden.current_workspace_id(), repo_full_name, token_env, api_url, status_rules, sync_title);
  return (select m from app_public.connection_mappings m where m.id = (v->>'id')::uuid);
end
$$;
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is 'OWNER/ADMIN: maps a repository (owner/name) for the repohost tools, anonymously (tokenEnv, the server''s environment variable holding an API token, is the operator''s: svc admin create-repo-mapping --token-env; given here it is 403 operator_only); apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
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
  perform app_hidden.repo_refuse_token_env(token_env is not null);
  select * into v_row from app_public.connection_mappings m where m.id = mapping_id for update;
  if v_row.token_env is not null and (api_url is not null or clear_api_url) and not clear_token_env then
    -- The operator's token goes wherever apiUrl points: moving it would send the token to a host of the admin's choosing.
    raise exception 'This mapping sends the token the operator gave it ($%) to its apiUrl; its apiUrl changes only together with clearTokenEnv: true', v_row.token_env
      using errcode = 'SV403', detail = 'operator_only', column = 'apiUrl';
  end if;
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
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is 'OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository. tokenEnv is the operator''s (403 operator_only); clearTokenEnv drops the operator''s token, and a mapping that has one keeps its apiUrl unless the token is dropped in the same call (403 operator_only).';
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
  v_inactive text;
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
             'number', r.number, 'resourceId', r.id, 'active', m.active) order by r.repo_full_name, r.number), '[]')
    into v_items
    from app_public.external_resources r
    join app_public.connection_mappings m on m.workspace_id = r.workspace_id and m.kind = 'repo'
      and lower(m.repo_full_name) = lower(r.repo_full_name)
    where (args->>'resourceId' is null or r.id = app_hidden.parse_uuid(args->>'resourceId', 'resourceId'))
      and (args->>'issueId' is null or exists (select 1 from app_public.external_links l
             where l.resource_id = r.id and l.issue_id = (app_hidden.find_issue(args->>'issueId', 'issueId')).id));
    -- A resource whose mapping is switched off is said so, as link and importIssue say it (sync skipped it and
    -- answered as if there were nothing to refresh).
    select x->>'repoFullName' into v_inactive from jsonb_array_elements(v_items) x where not (x->>'active')::boolean limit 1;
    if v_inactive is not null then
      raise exception 'The mapping for % is inactive', v_inactive using errcode = 'SV422', detail = 'mapping_inactive';
    end if;
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
--! Included time/time.sql
-- time: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_time_tracking()
 returns void
 language plpgsql
 stable
as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';
grant execute on function app_hidden.require_time_tracking() to svc_visitor;

create or replace function app_hidden.spent_start(p_started_at text)
 returns timestamp with time zone
 language plpgsql
 stable
as $$
declare v_started timestamptz := p_started_at::timestamptz;
begin
  -- An entry records time already spent: a start in the future (2030, a wrong year) is a typo, not a plan.
  -- A minute of slack for the caller's clock.
  if v_started > now() + interval '1 minute' then
    perform app_hidden.raise_invalid('startedAt', 'is in the future: an entry records time already spent');
  end if;
  return v_started;
end
$$;
comment on function app_hidden.spent_start(p_started_at text) is 'time.log / time.update: the startedAt given (ISO 8601), or a 400 on startedAt when it is in the future.';
grant execute on function app_hidden.spent_start(p_started_at text) to svc_visitor;

create or replace function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer)
 returns timestamp with time zone
 language plpgsql
 stable
as $$
begin
  -- The end too: a start a minute ago with a week's duration counted a week of future work on today.
  if p_started + make_interval(mins => p_minutes) > now() + interval '1 minute' then
    perform app_hidden.raise_invalid('durationMin', 'ends in the future from startedAt: an entry records time already spent');
  end if;
  return p_started + make_interval(mins => p_minutes);
end
$$;
comment on function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer) is 'time.log / time.update: the end of a finished entry (start plus minutes), or a 400 on durationMin when it is in the future (a minute of slack for the caller''s clock).';
grant execute on function app_hidden.spent_end(p_started timestamp with time zone, p_minutes integer) to svc_visitor;

create or replace function app_hidden.timer_minutes(p_started_at timestamp with time zone)
 returns integer
 language sql
 stable
as $$
  select greatest(0, round(extract(epoch from now() - p_started_at) / 60))::int
$$;
comment on function app_hidden.timer_minutes(p_started_at timestamp with time zone) is 'A timer stopped now: its whole minutes since p_started_at, rounded (time.stop, time.start stopping the previous one, an issue deleted under it).';
grant execute on function app_hidden.timer_minutes(p_started_at timestamp with time zone) to svc_visitor;

create or replace function app_hidden.stop_running_timer(p_user uuid)
 returns app_public.time_entries
 language sql
as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = app_hidden.timer_minutes(started_at)
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(p_user uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';
grant execute on function app_hidden.stop_running_timer(p_user uuid) to svc_visitor;

create or replace function app_private.stop_running_timers(p_workspace_id uuid, p_issue_id uuid default null, p_user_id uuid default null)
 returns void
 language sql
as $$
  -- Whoever's they are (time entries write no event): durationMin = elapsed minutes, as time.stop.
  update app_public.time_entries e
  set ended_at = now(), duration_min = app_hidden.timer_minutes(e.started_at)
  where e.workspace_id = p_workspace_id and (p_issue_id is null or e.issue_id = p_issue_id)
    and (p_user_id is null or e.user_id = p_user_id) and e.duration_min is null
$$;
comment on function app_private.stop_running_timers(p_workspace_id uuid, p_issue_id uuid, p_user_id uuid) is 'Stops every running timer of the workspace (of one issue, of one person, when given), anyone''s: when the issue is deleted, when time tracking is turned off, when the person is removed.';

create or replace function app_hidden.time_entries_filtered(args jsonb)
 returns setof app_public.time_entries
 language plpgsql
 stable
as $$
declare
  v_issue_id uuid;
  v_id uuid := app_hidden.parse_uuid(args->>'id', 'id');
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
begin
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return query
    select e.* from app_public.time_entries e
    where e.workspace_id = app_hidden.current_workspace_id()
      -- Lists follow issue narrowing even for the caller's own entries (select_own_time is for timers).
      and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
      -- Deleted issues are 404 everywhere, so their time is not listed or summed either.
      and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
      and (v_id is null or e.id = v_id)
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(args jsonb) is 'Time entries on issues the key can see and that are not deleted (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by id (time.get), issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';
grant execute on function app_hidden.time_entries_filtered(args jsonb) to svc_visitor;

create or replace function app_hidden.time_entry_json(e app_public.time_entries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', app_hidden.visible_issue_id(e.issue_id),
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(e app_public.time_entries) is 'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';
grant execute on function app_hidden.time_entry_json(e app_public.time_entries) to svc_visitor;

create or replace function app_hidden.own_time_entry_for_write(p_id text)
 returns app_public.time_entries
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  -- Only the caller's own entries (select_own_time), and not those of deleted issues (404 there as everywhere).
  select e.* into v_entry from app_public.time_entries e
  where e.id = app_hidden.parse_uuid(p_id, 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and e.user_id = app_hidden.current_user_id()
    -- Within the key's narrowing, as time.list (the timer tools alone reach a timer outside it).
    and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
    and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
  for update;
  return app_hidden.found(v_entry, 'Time entry');
end
$$;
comment on function app_hidden.own_time_entry_for_write(p_id text) is 'time.update / time.delete: the caller''s own entry, locked (another person''s entry, one on a deleted issue or on an issue outside the key''s narrowing is 404 Time entry not found).';
grant execute on function app_hidden.own_time_entry_for_write(p_id text) to svc_visitor;
--! EndIncluded time/time.sql
--! Included time/tools/log.sql
-- The time.log tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a finished manual entry of durationMin on a visible issue (startedAt defaults to now minus the duration).
create or replace function app_tools.time_log(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_minutes int := (args->>'durationMin')::int;
  v_started timestamptz;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_started := coalesce(app_hidden.spent_start(args->>'startedAt'), now() - make_interval(mins => v_minutes));
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note)
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, app_hidden.spent_end(v_started, v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(args jsonb) is 'time.log: Log time spent on an issue manually: durationMin minutes (startedAt defaults to now minus the duration). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_log(args jsonb) to svc_visitor;
--! EndIncluded time/tools/log.sql
--! Included time/tools/update.sql
-- The time.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- corrects one of the caller's entries: note, and for a finished entry durationMin and startedAt (endedAt follows);
-- a running timer's times are the clock's (409 timer_running).
create or replace function app_tools.time_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_entry app_public.time_entries;
  v_minutes int;
  v_started timestamptz;
begin
  perform app_hidden.require_time_tracking();
  perform app_hidden.require_user();
  v_entry := app_hidden.own_time_entry_for_write(args->>'id');
  if v_entry.duration_min is null and (args ? 'durationMin' or args ? 'startedAt') then
    raise exception 'This timer is running: stop it first, then correct its duration or start'
      using errcode = 'SV409', detail = 'timer_running';
  end if;
  v_minutes := coalesce((args->>'durationMin')::int, v_entry.duration_min);
  v_started := coalesce(app_hidden.spent_start(args->>'startedAt'), v_entry.started_at);
  update app_public.time_entries
  set duration_min = v_minutes, started_at = v_started,
      ended_at = case when v_minutes is null then null
                      when args ? 'durationMin' or args ? 'startedAt' then app_hidden.spent_end(v_started, v_minutes)
                      else v_started + make_interval(mins => v_minutes) end,
      note = case when args ? 'note' then args->>'note' else note end
  where id = v_entry.id
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_update(args jsonb) is 'time.update: Correct one of your time entries: note, and for a finished entry durationMin and startedAt (endedAt follows). A running timer''s times come from the clock (409 timer_running). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_update(args jsonb) to svc_visitor;
--! EndIncluded time/tools/update.sql
--! Included relations/tools/list.sql
-- The relations.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the workspace's relations as stored (one row per fact: BLOCKS, DUPLICATES, RELATES_TO), oldest first,
-- keyset-paged; only links whose both issues are live and visible to the key (RLS: narrowing). kind filters
-- the stored kind (BLOCKED_BY: the stored BLOCKS); issueId keeps the links of one issue (either end; 404 when the key cannot see it).
create or replace function app_tools.relations_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid := case when args->>'issueId' is not null then (app_hidden.find_issue(args->>'issueId', 'issueId')).id end;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'relations');
begin
  return app_hidden.page_json(array(
    select (jsonb_build_object(
              'id', r.id, 'kind', r.kind, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
              'fromIssue', app_hidden.issue_ref_json(f, fs), 'toIssue', app_hidden.issue_ref_json(t, ts),
              'createdAt', r.created_at),
            app_hidden.ts_key(r.created_at), r.id)::app_hidden.page_row
    from app_public.issue_relations r
    -- Joined as the caller: both ends must pass the issues' policies (narrowing) and be live.
    join app_public.issues f on f.id = r.from_issue_id and f.deleted_at is null
    join app_public.issues t on t.id = r.to_issue_id and t.deleted_at is null
    left join app_public.statuses fs on fs.id = f.status_id
    left join app_public.statuses ts on ts.id = t.status_id
    where r.workspace_id = app_hidden.current_workspace_id()
      -- A block is stored one way (BLOCKS): BLOCKED_BY asks for the same links.
      and (args->>'kind' is null or r.kind = case args->>'kind' when 'BLOCKED_BY' then 'BLOCKS' else args->>'kind' end)
      and (v_issue is null or r.from_issue_id = v_issue or r.to_issue_id = v_issue)
      and (v_after.sort_id is null or (r.created_at, r.id) > (v_after.sort_key, v_after.sort_id))
    order by r.created_at, r.id limit v_limit + 1), v_limit, 'relations');
end
$$;
grant execute on function app_tools.relations_list(args jsonb) to svc_visitor;
comment on function app_tools.relations_list(args jsonb) is 'relations.list: Relations of the workspace as stored (fromIssue BLOCKS, DUPLICATES or RELATES_TO toIssue; BLOCKED_BY is stored reversed), oldest first, paged. Only links between issues this key can see. Filters: kind (BLOCKED_BY finds the same stored BLOCKS links), issueId (either end).';
--! EndIncluded relations/tools/list.sql
--! Included workspace/tools/get.sql
-- The workspace.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- settings of the caller's workspace, and who the caller is in it (a person's key had no other way to learn its own
-- user id, which claimedById, time.list and actionRequests.list filter by, short of a write that happened to echo it).
create or replace function app_tools.workspace_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.workspace_json(w) || jsonb_build_object('caller', jsonb_build_object(
           'keyId', app_hidden.current_key_id(), 'userId', app_hidden.current_user_id(),
           'agentId', app_hidden.current_agent_id(), 'role', app_hidden.caller_role(),
           'scopes', to_jsonb(app_hidden.current_scopes())))
  from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_tools.workspace_get(args jsonb) is 'workspace.get: Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...), and caller: who this key acts as (keyId, userId, agentId, role, scopes; the ids claimedById, time.list and actionRequests.list filter by). No member list.';
grant execute on function app_tools.workspace_get(args jsonb) to svc_visitor;
--! EndIncluded workspace/tools/get.sql
--! Included analytics/dashboards.sql
-- The in-app dashboards of spec 4.14 (GraphQL only, never MCP): agent operations (pipeline, timeline, uptime,
-- webhookHealth) and dispatch analytics (summary, timeseries). Each runs as the caller, so row-level security
-- bounds what it counts (a narrowed key counts only the issues and events it may see).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dashboard_window(p_since_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_since_hours < 1 or p_since_hours > 720 then
    perform app_hidden.raise_invalid('sinceHours', 'from 1 to 720 hours (30 days)');
  end if;
  return now() - make_interval(hours => coalesce(p_since_hours, 24));
end
$$;
comment on function app_hidden.dashboard_window(p_since_hours integer) is 'The start of a dashboard''s window, sinceHours ago (1 to 720, null = 24; 400 sinceHours otherwise).';
grant execute on function app_hidden.dashboard_window(p_since_hours integer) to svc_visitor;

create or replace function app_public.agents_pipeline(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  -- The window first, as a statement: inside the query it was reached only through a finished run, so a sinceHours
  -- out of range was answered when no agent had one.
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- The dispatch view's figures (agents.workload: the queued pool, each live agent's load and open runs, counted as
  -- the dispatcher counts them), with the runs each agent finished in the window.
  return (
  with w as (select v_since as since, app_tools.agents_workload('{}') as load)
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', w.load->'pool'->'queued',
    'agents', coalesce((
      select jsonb_agg(jsonb_build_object(
        'agentId', a->'id', 'profileKey', a->'profileKey', 'name', a->'name', 'status', a->'status',
        'lastHeartbeatAt', a->'lastHeartbeatAt', 'maxConcurrent', a->'maxConcurrent', 'assignedOpen', a->'openAssigned',
        'runs', (a->'runs') || (
          select jsonb_build_object('completed', count(*) filter (where r.status = 'COMPLETED'),
                                    'abandoned', count(*) filter (where r.status = 'ABANDONED'))
          from app_public.agent_runs r
          where r.agent_id = (a->>'id')::uuid and r.status in ('COMPLETED', 'ABANDONED') and r.finished_at >= w.since))
        order by x.n)
      from jsonb_array_elements(w.load->'agents') with ordinality x(a, n)), '[]'))
  from w);
end
$$;
comment on function app_public.agents_pipeline(since_hours integer) is 'Agent operations dashboard: each live agent''s status, open assigned issues and runs (active, waiting, stalled now; completed and abandoned in the last sinceHours, default 24), and the queued issues nobody holds. In-app only (spec 4.14).';
grant execute on function app_public.agents_pipeline(since_hours integer) to svc_visitor;

create or replace function app_public.agent_timeline(agent_id uuid, since_hours integer default 24, max_items integer default 200)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  if max_items < 1 or max_items > 1000 then
    perform app_hidden.raise_invalid('maxItems', 'from 1 to 1000');
  end if;
  if not exists (select 1 from app_public.agents a where a.id = agent_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- What happened to and by the agent, newest first: assignments, its runs' moves, presence, watchdog alerts, kicks,
  -- and what it wrote (events whose actor is the agent).
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'items', coalesce((
    select jsonb_agg(jsonb_build_object('id', e.id, 'kind', e.kind, 'at', e.created_at, 'subjectType', e.subject_type,
                                        'subjectId', e.subject_id, 'payload', e.payload,
                                        -- The issue it is about, by key, when the caller sees it: a line a person can act on.
                                        'issueId', i.id, 'issueKey', i.key, 'issueTitle', i.title) order by e.seq desc)
    from (select e.* from app_public.activity_events e
          where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= v_since
            and (e.actor_agent_id = agent_id
                 or (e.subject_type = 'agent' and e.subject_id = agent_id)
                 or (e.kind in ('AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_KICKED', 'AGENT_NOACK', 'ISSUE_STALLED')
                     and (e.payload->>'agentId' = agent_id::text or e.payload->>'to' = agent_id::text or e.payload->>'from' = agent_id::text))
                 or (e.kind = 'ISSUE_UPDATED' and e.payload->>'unassignedAgentId' = agent_id::text))
          order by e.seq desc limit coalesce(max_items, 200)) e
    left join app_public.issues i
      on i.id = coalesce(case when e.subject_type = 'issue' then e.subject_id end, (e.payload->>'issueId')::uuid)), '[]'));
end
$$;
comment on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) is 'Agent operations dashboard: the events of one agent in the last sinceHours (default 24), newest first, at most maxItems (default 200, max 1000), each with the key and title of the issue it is about when the key sees it: its assignments (to and from it, unassignment included), its runs'' moves, presence changes, watchdog alerts and kicks, and what it did. In-app only (spec 4.14).';
grant execute on function app_public.agent_timeline(agent_id uuid, since_hours integer, max_items integer) to svc_visitor;

create or replace function app_public.agent_uptime(agent_id uuid, since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_agent app_public.agents;
  v_first text;
  v_spans jsonb;
begin
  select * into v_agent from app_public.agents a where a.id = agent_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  -- Time before the agent existed is no time OFFLINE.
  v_since := greatest(v_since, v_agent.created_at);
  -- The status at the window's start: the last change before it, else the first change's `from` inside it, else the
  -- status now (nothing changed in the window).
  select e.payload->>'to' into v_first from app_public.activity_events e
  where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at < v_since
  order by e.seq desc limit 1;
  if v_first is null then
    select e.payload->>'from' into v_first from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
    order by e.seq limit 1;
  end if;
  -- Seconds in each status: each change closes the span of the status before it; the last runs until now.
  with changes as (
    select v_since as at, coalesce(v_first, v_agent.status) as status
    union all
    select e.created_at, e.payload->>'to' from app_public.activity_events e
    where e.workspace_id = v_agent.workspace_id and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since
  ), spans as (
    select status, extract(epoch from coalesce(lead(at) over (order by at), now()) - at) as seconds from changes
  )
  select jsonb_object_agg(status, round(total)) into v_spans
  from (select status, sum(seconds) as total from spans group by status) t;
  return jsonb_build_object('agentId', agent_id, 'sinceHours', coalesce(since_hours, 24), 'windowStart', v_since, 'status', v_agent.status,
    'secondsByStatus', coalesce(v_spans, '{}'),
    'changes', (select count(*) from app_public.activity_events e where e.workspace_id = v_agent.workspace_id
                and e.kind = 'AGENT_STATUS_CHANGED' and e.subject_id = agent_id and e.created_at >= v_since),
    -- Up = ONLINE or BUSY.
    'uptimeRatio', round(((coalesce((v_spans->>'ONLINE')::numeric, 0) + coalesce((v_spans->>'BUSY')::numeric, 0))
                          / greatest(1, extract(epoch from now() - v_since)))::numeric, 4));
end
$$;
comment on function app_public.agent_uptime(agent_id uuid, since_hours integer) is 'Agent operations dashboard: seconds one agent spent ONLINE, BUSY and OFFLINE in the last sinceHours (default 24), from its AGENT_STATUS_CHANGED events, the number of changes, and uptimeRatio (ONLINE or BUSY over the window, which starts at the agent''s creation when that is later: windowStart). In-app only (spec 4.14).';
grant execute on function app_public.agent_uptime(agent_id uuid, since_hours integer) to svc_visitor;

create or replace function app_public.webhook_health(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
begin
  -- Webhooks are an admin's, and a narrowed key reads none (their attempts may echo any issue's event): the check
  -- of every webhook procedure and tool (the ADMIN scope included, which this one missed).
  perform app_hidden.require_webhook_admin();
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'webhooks', coalesce((
    select jsonb_agg(jsonb_build_object(
      'webhookId', w.id, 'url', w.url, 'active', w.active, 'deactivatedReason', w.deactivated_reason,
      'pending', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'delivered', (select count(*) from app_public.webhook_deliveries d where d.webhook_id = w.id and d.delivered_at >= v_since),
      'attempts', a.attempts, 'failedAttempts', a.failed,
      'successRate', case when a.attempts > 0 then round((a.attempts - a.failed)::numeric / a.attempts, 4) end,
      'p95DurationMs', a.p95,
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.webhook_id = w.id),
      'lastError', (select coalesce(x.error, 'HTTP ' || x.status_code) from app_public.webhook_delivery_attempts x
                    join app_public.webhook_deliveries d on d.id = x.delivery_id
                    where d.webhook_id = w.id and (x.status_code is null or x.status_code not between 200 and 299)
                    order by x.started_at desc limit 1))
      order by w.created_at, w.id)
    from app_public.webhooks w
    left join lateral (
      select count(*) as attempts,
             count(*) filter (where x.status_code is null or x.status_code not between 200 and 299) as failed,
             percentile_disc(0.95) within group (order by x.duration_ms) as p95
      from app_public.webhook_delivery_attempts x join app_public.webhook_deliveries d on d.id = x.delivery_id
      where d.webhook_id = w.id and x.started_at >= v_since) a on true), '[]'));
end
$$;
comment on function app_public.webhook_health(since_hours integer) is 'Agent operations dashboard (OWNER/ADMIN, no narrowing): each webhook''s deliveries pending and dead-lettered now, delivered, attempted and failed in the last sinceHours (default 24), success rate, p95 attempt duration, the last delivery and the last failure. In-app only (spec 4.14).';
grant execute on function app_public.webhook_health(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_summary(since_hours integer default 24)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_since timestamptz;
begin
  -- First, as a statement of its own: inside the query (a column of the window's CTE) it ran only when some row
  -- read that CTE's column, so a workspace with no assignment answered a key without the scope.
  perform app_hidden.require_scope('READ_ANALYTICS');
  -- The window too (a sinceHours out of range is a 400 whatever the query reads).
  v_since := app_hidden.dashboard_window(since_hours);
  return (
  with w as (select v_since as since),
  assigned as (
    select e.* from app_public.activity_events e, w
    where e.workspace_id = app_hidden.current_workspace_id() and e.kind = 'AGENT_ASSIGNED' and e.created_at >= w.since
  ),
  -- Queue to assignment: each automatic assignment against the latest ISSUE_QUEUED of its issue before it.
  waits as (
    select extract(epoch from a.created_at - q.created_at) as seconds
    from assigned a
    cross join lateral (select e.created_at from app_public.activity_events e
                        where e.workspace_id = a.workspace_id and e.subject_type = 'issue' and e.subject_id = a.subject_id
                          and e.kind = 'ISSUE_QUEUED' and e.seq < a.seq
                        order by e.seq desc limit 1) q
    where (a.payload->>'auto')::boolean
  )
  select jsonb_build_object(
    'sinceHours', coalesce(since_hours, 24),
    'queuedUnassigned', (select count(*) from app_public.issues i join app_public.statuses s on s.id = i.status_id
                         where i.deleted_at is null and i.queued and i.assigned_agent_id is null
                           and s.category not in ('DONE', 'CANCELED')),
    'assignments', (select count(*) from assigned),
    'automatic', (select count(*) from assigned where (payload->>'auto')::boolean),
    'manual', (select count(*) from assigned where not coalesce((payload->>'auto')::boolean, false)),
    'byReason', coalesce((select jsonb_object_agg(reason, n) from (
                  -- A rule's fallback names its rule id (spec 6.4): counted as one reason, whichever rule.
                  select coalesce(regexp_replace(payload->>'reason', '^rule:[^:]+:', 'rule:'), 'none') as reason, count(*) as n
                  from assigned group by 1) r), '{}'),
    'byMode', coalesce((select jsonb_object_agg(mode, n) from (
                  select payload->'dispatch'->>'mode' as mode, count(*) as n from assigned
                  where payload->'dispatch'->>'mode' is not null group by 1) m), '{}'),
    'byAgent', coalesce((select jsonb_agg(jsonb_build_object('agentId', x.agent_id, 'profileKey', ag.profile_key, 'assignments', x.n)
                                          order by x.n desc, ag.profile_key)
                  from (select payload->>'agentId' as agent_id, count(*) as n from assigned group by 1) x
                  left join app_public.agents ag on ag.id::text = x.agent_id), '[]'),
    'queueToAssignSeconds', (select jsonb_build_object(
                  'count', count(*),
                  'p50', round(percentile_cont(0.5) within group (order by seconds)::numeric, 1),
                  'p90', round(percentile_cont(0.9) within group (order by seconds)::numeric, 1),
                  'max', round(max(seconds)::numeric, 1)) from waits),
    'watchdogs', (select jsonb_build_object(
                  'agentNoAck', count(*) filter (where e.kind = 'AGENT_NOACK'),
                  'issueStalled', count(*) filter (where e.kind = 'ISSUE_STALLED'),
                  'slaBreach', count(*) filter (where e.kind = 'ISSUE_SLA_BREACH'))
                  from app_public.activity_events e, w
                  where e.workspace_id = app_hidden.current_workspace_id() and e.created_at >= w.since
                    and e.kind in ('AGENT_NOACK', 'ISSUE_STALLED', 'ISSUE_SLA_BREACH'))));
end
$$;
comment on function app_public.dispatch_summary(since_hours integer) is 'Dispatch analytics (READ_ANALYTICS): assignments in the last sinceHours (default 24), automatic and manual, by reason, by dispatch mode and by agent; the queue-to-assignment wait of automatic ones (p50, p90, max seconds); watchdog alerts (AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH); queued issues nobody holds now. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_summary(since_hours integer) to svc_visitor;

create or replace function app_public.dispatch_timeseries(since_hours integer default 24, bucket_minutes integer default 60)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_since timestamptz := app_hidden.dashboard_window(since_hours);
  v_window_start timestamptz := v_since;
  v_step interval;
begin
  perform app_hidden.require_scope('READ_ANALYTICS');
  if bucket_minutes < 5 or bucket_minutes > 1440 or coalesce(since_hours, 24) * 60 / coalesce(bucket_minutes, 60) > 500 then
    perform app_hidden.raise_invalid('bucketMinutes', 'from 5 to 1440 minutes, and at most 500 buckets in the window');
  end if;
  v_step := make_interval(mins => coalesce(bucket_minutes, 60));
  -- Buckets on the clock (an hour's bucket starts on the hour), the first one holding the window's start.
  v_since := date_bin(v_step, v_since, timestamptz '2000-01-01 00:00:00+00');
  -- Buckets aligned to the window's start, oldest first, empty ones included (a chart needs every point).
  return jsonb_build_object('sinceHours', coalesce(since_hours, 24), 'bucketMinutes', coalesce(bucket_minutes, 60), 'buckets', (
    select jsonb_agg(jsonb_build_object('start', v_since + v_step * b.n, 'queued', coalesce(c.queued, 0),
                                        'assigned', coalesce(c.assigned, 0), 'automatic', coalesce(c.automatic, 0),
                                        'noAck', coalesce(c.no_ack, 0), 'stalled', coalesce(c.stalled, 0)) order by b.n)
    from generate_series(0, ceil(extract(epoch from now() - v_since) / extract(epoch from v_step))::int - 1) b(n)
    -- Each event counted into its bucket by arithmetic, in one pass over the window (a range join per bucket took
    -- 4 s for 500 buckets over 100,000 events).
    left join (
      select floor(extract(epoch from e.created_at - v_since) / extract(epoch from v_step))::int as n,
             count(*) filter (where e.kind = 'ISSUE_QUEUED') as queued,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED') as assigned,
             count(*) filter (where e.kind = 'AGENT_ASSIGNED' and (e.payload->>'auto')::boolean) as automatic,
             count(*) filter (where e.kind = 'AGENT_NOACK') as no_ack,
             count(*) filter (where e.kind = 'ISSUE_STALLED') as stalled
      from app_public.activity_events e
      where e.workspace_id = app_hidden.current_workspace_id()
        -- The window itself, not its first bucket's start: with sinceHours 1 an event 105 minutes old was counted.
        and e.kind in ('ISSUE_QUEUED', 'AGENT_ASSIGNED', 'AGENT_NOACK', 'ISSUE_STALLED') and e.created_at >= v_window_start
      group by 1) c on c.n = b.n));
end
$$;
comment on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) is 'Dispatch analytics (READ_ANALYTICS): per bucket of bucketMinutes (default 60, 5 to 1440, at most 500 buckets; buckets start on the clock, the first holding the window''s start; only events inside the window count) over the last sinceHours (default 24), oldest first, empty buckets included: issues queued, assignments (and the automatic ones), AGENT_NOACK and ISSUE_STALLED alerts. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) to svc_visitor;
--! EndIncluded analytics/dashboards.sql
drop function if exists app_hidden.check_cycle_dates(uuid, date, date);  -- gains p_ends_field
--! Included cycles/cycles.sql
-- cycles: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text default 'endsOn'::text)
 returns void
 language plpgsql
 stable
as $$
declare v_other app_public.cycles;
begin
  -- Dates the tools take back (YYYY-MM-DD): a default computed after a cycle ending in 9999 would not be.
  -- p_ends_field: what set the end (endsOn when given; else startsOn, from which the end was computed or kept): the
  -- refusal names a field the caller sent.
  if p_starts > date '9999-12-31' or p_ends > date '9999-12-31' then
    raise exception 'Cycle dates end at 9999-12-31 (the next cycle would fall after it)'
      using errcode = 'SV400', column = case when p_starts > date '9999-12-31' then 'startsOn' else p_ends_field end;
  end if;
  if p_ends < p_starts then
    raise exception 'endsOn must be on or after startsOn' using errcode = 'SV400', column = p_ends_field;
  end if;
  select * into v_other from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.id is distinct from p_cycle_id
    and daterange(c.starts_on, c.ends_on, '[]') && daterange(p_starts, p_ends, '[]')
  order by c.starts_on limit 1;
  if v_other.id is not null then
    raise exception 'The dates overlap % (% to %)', v_other.name, v_other.starts_on, v_other.ends_on
      using errcode = 'SV409', detail = 'cycle_overlap';
  end if;
end
$$;
comment on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text) is 'Cycle dates: none after 9999-12-31 and endsOn >= startsOn (400 naming p_ends_field, the input that set the end), and no overlap with another non-canceled cycle (409 cycle_overlap).';
grant execute on function app_hidden.check_cycle_dates(p_cycle_id uuid, p_starts date, p_ends date, p_ends_field text) to svc_visitor;

create or replace function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text)
 returns void
 language plpgsql
 stable
as $$
declare
  v_other app_public.cycles;
begin
  -- Dates never overlap, so two cycles can be ACTIVE at once only through an early activation: a cycle stored
  -- ACTIVE before its dates is current from now until it ends, and any other cycle whose dates come before its
  -- start (and have not ended) is ACTIVE by the calendar in that time.
  if p_status = 'ACTIVE' and p_starts > app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today() and c.starts_on < p_starts
    order by c.starts_on limit 1;
  elsif p_ends >= app_hidden.utc_today() then
    select * into v_other from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id() and c.id is distinct from p_cycle_id
      and c.status = 'ACTIVE' and c.starts_on > app_hidden.utc_today() and p_starts < c.starts_on
    limit 1;
  end if;
  if v_other.id is not null then
    raise exception 'Cycle % (% to %) and this one would both be ACTIVE before %: one cycle is current at a time',
      v_other.name, v_other.starts_on, v_other.ends_on, greatest(v_other.starts_on, p_starts)
      using errcode = 'SV409', detail = 'active_cycle_exists';
  end if;
end
$$;
comment on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) is 'At most one ACTIVE cycle at any time: a cycle activated early (stored ACTIVE, starting later) is current until it ends, so no other cycle may run by the calendar before its start (409 active_cycle_exists), whichever of the two is written (p_cycle_id re-dated, or new). Call under lock_cycles().';
grant execute on function app_hidden.check_one_active_cycle(p_cycle_id uuid, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.cycle_status(c app_public.cycles)
 returns text
 language sql
 stable parallel safe
as $$
  select case
    when c.status = 'CANCELED' then 'CANCELED'
    when c.ends_on < app_hidden.utc_today() then 'COMPLETED'
    when c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE' then 'ACTIVE'
    else 'PLANNED' end
$$;
comment on function app_hidden.cycle_status(c app_public.cycles) is 'A cycle''s status on the calendar (decisions.md "Cycle status"): CANCELED stays; otherwise ended (endsOn before today, UTC) is COMPLETED, started (dates include today) or activated early by cycles.create activate: true (stored ACTIVE) is ACTIVE, else PLANNED. A stored COMPLETED only records that an ended cycle was rolled over; it never ends a cycle early.';
grant execute on function app_hidden.cycle_status(c app_public.cycles) to svc_visitor;

create or replace function app_public.cycles_current_status(c app_public.cycles)
 returns text
 language sql
 stable
as $$ select app_hidden.cycle_status(c) $$;
comment on function app_public.cycles_current_status(c app_public.cycles) is 'The status on the calendar: a cycle whose dates include today is ACTIVE, one whose end has passed COMPLETED, a later one PLANNED (status holds only what was set: PLANNED, ACTIVE by cycles.create activate: true, COMPLETED once an ended cycle was rolled over, CANCELED).';
grant execute on function app_public.cycles_current_status(c app_public.cycles) to svc_visitor;

create or replace function app_hidden.current_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status <> 'CANCELED'
    and c.ends_on >= app_hidden.utc_today() and (c.starts_on <= app_hidden.utc_today() or c.status = 'ACTIVE')
  order by c.starts_on <= app_hidden.utc_today() desc, c.starts_on, c.number limit 1
$$;
comment on function app_hidden.current_cycle() is 'The current cycle: the one whose dates include today, else one activated early by cycles.create activate: true (NULL row when none). Rollover never changes it.';
grant execute on function app_hidden.current_cycle() to svc_visitor;

create or replace function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', c.id, 'number', c.number, 'name', c.name, 'startsOn', c.starts_on, 'endsOn', c.ends_on, 'status', app_hidden.cycle_status(c),
    'issueCount', n.total, 'openIssueCount', n.open, 'doneIssueCount', n.done,
    'createdAt', c.created_at, 'updatedAt', c.updated_at)
  || case when p_with_issues then jsonb_build_object('issues', coalesce(
       (select jsonb_agg(app_hidden.issue_json(i) order by i.number)
        from app_public.issues i where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null), '[]'))
     else '{}'::jsonb end
  from (select count(*) as total,
               count(*) filter (where s.category not in ('DONE', 'CANCELED')) as open,
               count(*) filter (where s.category = 'DONE') as done
        from app_public.issues i join app_public.statuses s on s.id = i.status_id
        where i.workspace_id = c.workspace_id and i.cycle_id = c.id and i.deleted_at is null) n
$$;
comment on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) is 'Cycle: number, name, startsOn, endsOn, status, issue counts (issues the key can see); with p_with_issues the issues themselves (lean).';
grant execute on function app_hidden.cycle_json(c app_public.cycles, p_with_issues boolean) to svc_visitor;

create or replace function app_hidden.find_cycle(p_id text, p_field text default 'id'::text)
 returns app_public.cycles
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select c from app_public.cycles c
                           where c.id = app_hidden.parse_uuid(p_id, p_field) and c.workspace_id = app_hidden.current_workspace_id()),
                          'Cycle', p_field);
end
$$;
comment on function app_hidden.find_cycle(p_id text, p_field text) is 'A cycle of the caller''s workspace, else 404 Cycle not found.';
grant execute on function app_hidden.find_cycle(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text)
 returns app_public.cycles
 language plpgsql
as $$
declare
  v_number int;
  v_cycle app_public.cycles;
begin
  select coalesce(max(number), 0) + 1 into v_number from app_public.cycles where workspace_id = p_ws.id;
  insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on, status)
  values (p_ws.id, v_number, coalesce(p_name, 'Sprint ' || v_number), p_starts,
          coalesce(p_ends, p_starts + p_ws.cycle_length_days - 1), p_status)
  returning * into v_cycle;
  return v_cycle;
end
$$;
comment on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) is 'Inserts the next-numbered cycle (name defaults to "Sprint <n>", end to start + cycleLengthDays - 1). Call under lock_cycles().';
grant execute on function app_hidden.insert_cycle(p_ws app_public.workspaces, p_name text, p_starts date, p_ends date, p_status text) to svc_visitor;

create or replace function app_hidden.lock_cycles()
 returns app_public.workspaces
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.cycles:' || app_hidden.current_workspace_id()::text, 0));
  select * from app_public.workspaces where id = app_hidden.current_workspace_id();
$$;
comment on function app_hidden.lock_cycles() is 'Serialises cycle scheduling within a workspace (numbers, dates, rollover) for the transaction; returns the workspace settings.';
grant execute on function app_hidden.lock_cycles() to svc_visitor;

create or replace function app_hidden.next_cycle_start(p_ws app_public.workspaces)
 returns date
 language sql
 stable
as $$
  select greatest(app_hidden.utc_today(),
                  coalesce((select max(c.ends_on) + 1 + p_ws.cycle_cooldown_days
                            from app_public.cycles c where c.workspace_id = p_ws.id and c.status <> 'CANCELED'),
                           app_hidden.utc_today()))
$$;
comment on function app_hidden.next_cycle_start(p_ws app_public.workspaces) is 'Where the next cycle starts by default: after the last non-canceled cycle plus cycleCooldownDays, never before today (UTC).';
grant execute on function app_hidden.next_cycle_start(p_ws app_public.workspaces) to svc_visitor;

create or replace function app_hidden.require_open_cycle(p_cycle app_public.cycles)
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.cycle_status(p_cycle) in ('COMPLETED', 'CANCELED') then
    raise exception 'Cycle % is %; issues can be planned only into PLANNED or ACTIVE cycles', p_cycle.name, lower(app_hidden.cycle_status(p_cycle))
      using errcode = 'SV409', detail = 'cycle_closed';
  end if;
end
$$;
comment on function app_hidden.require_open_cycle(p_cycle app_public.cycles) is 'Issues may be added only to PLANNED or ACTIVE cycles: 409 cycle_closed otherwise.';
grant execute on function app_hidden.require_open_cycle(p_cycle app_public.cycles) to svc_visitor;

create or replace function app_hidden.upcoming_cycle()
 returns app_public.cycles
 language sql
 stable
as $$
  select * from app_public.cycles
  where workspace_id = app_hidden.current_workspace_id() and status = 'PLANNED' and starts_on > app_hidden.utc_today()
  order by starts_on, number limit 1
$$;
comment on function app_hidden.upcoming_cycle() is 'The upcoming cycle: the earliest PLANNED one (not started yet; NULL row when none).';
grant execute on function app_hidden.upcoming_cycle() to svc_visitor;
--! EndIncluded cycles/cycles.sql
--! Included cycles/tools/create.sql
-- The cycles.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays /
-- cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.
create or replace function app_tools.cycles_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends, case when args ? 'endsOn' then 'endsOn' else 'startsOn' end);
  if coalesce((args->>'activate')::boolean, false) then
    if (app_hidden.current_cycle()).id is not null then
      raise exception 'Another cycle is active: a cycle is activated early only while none runs (the running one ends on its endsOn)' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  perform app_hidden.check_one_active_cycle(null, v_starts, v_ends, v_status);
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. A cycle is ACTIVE while its dates include today, COMPLETED once they have passed, PLANNED before; activate: true makes a future one current now when no other is; while it waits for its dates, no other cycle may span today (409 active_cycle_exists). Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
--! Included cycles/tools/update.sql
-- The cycles.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, startsOn, endsOn (no overlaps; an ended or canceled cycle keeps its dates, 409 cycle_closed; a live one
-- cannot be made to end before today, 400 endsOn); CYCLE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.cycles_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    -- An ended or canceled cycle is history: re-dated, it would come back as PLANNED or ACTIVE with its old issues.
    if app_hidden.cycle_status(v_cycle) in ('COMPLETED', 'CANCELED') then
      raise exception 'Cycle % is %: its dates can no longer change (create a new cycle)', v_cycle.name, lower(app_hidden.cycle_status(v_cycle))
        using errcode = 'SV409', detail = 'cycle_closed';
    end if;
    -- Nor does a live one become history by a date change: it could not be re-dated back (above), and its
    -- unfinished issues would stay in it without a rollover. A past cycle is made with cycles.create.
    if v_ends < app_hidden.utc_today() then
      raise exception 'endsOn % is before today: the cycle would end at once, and an ended cycle keeps its dates', v_ends
        using errcode = 'SV400', column = 'endsOn';
    end if;
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends, case when args ? 'endsOn' then 'endsOn' else 'startsOn' end);
    perform app_hidden.check_one_active_cycle(v_cycle.id, v_starts, v_ends, v_cycle.status);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(args jsonb) is 'cycles.update: Rename or re-date a cycle (name, startsOn, endsOn; no overlaps; an ended or canceled cycle keeps its dates, and a live one cannot be made to end before today). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_update(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/update.sql
--! Included statuses/statuses.sql
-- statuses: helper functions of the workflow tools (statuses.get/create/update/delete/reorder).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_status(p_id text, p_field text default 'id'::text)
 returns app_public.statuses
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select s from app_public.statuses s
     where s.id = app_hidden.parse_uuid(p_id, p_field) and s.workspace_id = app_hidden.current_workspace_id()), 'Status', p_field);
end
$$;
comment on function app_hidden.find_status(p_id text, p_field text) is 'A status of the caller''s workspace by id, else 404 naming the field.';
grant execute on function app_hidden.find_status(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.statuses_named(p_words text, out ids uuid[], out by_category boolean)
 returns record
 language plpgsql
 stable
as $$
declare v_category text := upper(regexp_replace(btrim(p_words), '[\s-]+', '_', 'g'));
begin
  -- A name first (case-insensitive: "in progress" is the status In Progress), then a category however written
  -- (IN_PROGRESS, in_progress, "In-Review"): every status of it, in workflow order. Nothing: an empty array.
  ids := array(select s.id from app_public.statuses s
               where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(btrim(p_words)));
  by_category := false;
  if cardinality(ids) = 0 and v_category in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_category
                 order by s.position, s.id);
    by_category := true;
  end if;
end
$$;
comment on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) is 'The statuses a person or agent means by words: the one of that name (case-insensitive), else every status of that category however written (in_progress, In-Review), in workflow order; by_category says which. Empty when neither.';
grant execute on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) to svc_visitor;

create or replace function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text default 'SV400')
 returns void
 language plpgsql
 stable
as $$
begin
  -- What to send instead, in the refusal: an agent on the runtime profile has no statuses.list to look it up with.
  raise exception 'No status named %: this workspace''s statuses are %; or a category: BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE, CANCELED',
    p_words, (select string_agg(s.name, ', ' order by s.position, s.id) from app_public.statuses s
              where s.workspace_id = app_hidden.current_workspace_id())
    using errcode = p_code, column = p_field;
end
$$;
comment on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) is 'Raises p_code (400 by default) naming p_field: no status of that name or category, listing the workspace''s status names and the categories.';
grant execute on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) to svc_visitor;

create or replace function app_hidden.raise_status_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A status named "%" already exists', p_name using errcode = 'SV409', detail = 'status_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_status_name_taken(p_name text) is 'Raises 409 status_exists (status names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_status_name_taken(p_name text) to svc_visitor;

create or replace function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb default '{}'::jsonb)
 returns uuid
 language sql
as $$
  select app_hidden.record_event(p_kind, 'status', s.id, jsonb_build_object('statusId', s.id, 'name', s.name,
    'category', s.category, 'color', s.color, 'position', s.position, 'isDefault', s.is_default) || p_extra)
$$;
comment on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) is 'STATUS_CREATED/UPDATED/DELETED about a status: its fields (as they are now) plus p_extra (changes, previous, movedIssues...).';
grant execute on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) to svc_visitor;

create or replace function app_hidden.require_other_done_status(s app_public.statuses)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Issues are finished by moving them to a DONE status (analytics, cycles, standups count those): keep one.
  if s.category = 'DONE' and not exists (select 1 from app_public.statuses o
                                         where o.workspace_id = s.workspace_id and o.category = 'DONE' and o.id <> s.id) then
    raise exception 'This is the workspace''s last DONE status; the workflow needs one to finish issues (create another first)'
      using errcode = 'SV409', detail = 'last_done_status';
  end if;
end
$$;
comment on function app_hidden.require_other_done_status(s app_public.statuses) is 'Raises 409 last_done_status when s is the only DONE status of its workspace (it may not be deleted or leave DONE).';
grant execute on function app_hidden.require_other_done_status(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.require_workflow_admin()
 returns uuid
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  -- The statuses are every member's board, and deleting one moves issues a narrowed key cannot see.
  perform app_hidden.require_unnarrowed_admin('The workflow''s statuses belong to the whole workspace');
  -- One workflow change at a time per workspace: the checks (last DONE status, the default, names) read the whole
  -- set. An advisory lock, not row locks on every status: those would block every issue write of the workspace
  -- (its foreign key takes KEY SHARE on a status) and deadlock against an issue moving while a status is deleted.
  perform pg_advisory_xact_lock(hashtextextended('svc.statuses:' || v_ws::text, 0));
  return v_ws;
end
$$;
comment on function app_hidden.require_workflow_admin() is 'Every statuses.* write starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), a key without narrowing (403 narrowing); serialises the workspace''s status writes for the transaction (advisory lock). Returns the workspace id.';
grant execute on function app_hidden.require_workflow_admin() to svc_visitor;
--! EndIncluded statuses/statuses.sql
--! Included issues/filters.sql
-- issues: the filters of issues.list, shared with issues.count.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issues_filter(args jsonb, out from_sql text, out where_sql text, out search tsquery)
 returns record
 language plpgsql
 stable
as $$
declare
  v_status text := args->>'status';
  v_status_ids uuid[];
begin
  -- The caller executes `from <from_sql> where <where_sql>` with $1 = the workspace id, $2 = search and $3 = the
  -- search window's floor from a cursor (issue_search_matches; null on a first page or a count). Every
  -- value is written in as a constant (format %L): the query is planned per call, so each filter gets its own
  -- index. Paging (cursor, limit) is the caller's.
  from_sql := 'app_public.issues i';
  where_sql := 'i.workspace_id = $1 and i.deleted_at is null';
  if args->>'query' is not null then
    -- Full-text search (issues_search_gin). The matches come from a definer function (the index is unusable
    -- under RLS, see issue_search_matches); joined back to issues, the policies apply. m.rank is the match's.
    search := app_hidden.search_tsquery(args->>'query');
    from_sql := 'app_hidden.issue_search_matches($2, p_floor => $3) m join app_public.issues i on i.id = m.id';
  end if;
  if args->>'statusId' is not null then
    if v_status is not null then
      -- Both, naming different statuses, listed nothing; naming the same one, one is enough.
      perform app_hidden.raise_invalid('status', 'give status or statusId, not both');
    end if;
    where_sql := where_sql || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
  -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
  -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_status_ids := array[v_status::uuid];
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
    else
      v_status_ids := (app_hidden.statuses_named(v_status)).ids;
      if cardinality(v_status_ids) = 0 then
        -- A typo in a name is the caller's mistake to hear about, not an empty list.
        perform app_hidden.raise_no_status_named(v_status, 'status');
      end if;
    end if;
    where_sql := where_sql || case cardinality(v_status_ids)
      when 0 then ' and false'
      when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
      else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
  end if;
  if args->>'open' is not null then
    v_status_ids := array(select s.id from app_public.statuses s
                          where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
    where_sql := where_sql || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                          else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
  end if;
  if args->>'priority' is not null then
    where_sql := where_sql || format(' and i.priority = %L', args->>'priority');
  end if;
  if args ? 'projectId' then
    where_sql := where_sql || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    where_sql := where_sql || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if args ? 'cycleId' then
    where_sql := where_sql || case when args->>'cycleId' is null then ' and i.cycle_id is null'
      else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
  end if;
  if args ? 'parentId' then
    -- A parent the key cannot see reads as none (the issue shape says parentId null), in the filter too: else
    -- `parentId: null` would leave out the children of hidden issues, and the count tell that such parents exist.
    where_sql := where_sql || case
      when args->>'parentId' is not null then format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id)
      when app_hidden.issues_unrestricted() then ' and i.parent_id is null'
      else ' and app_hidden.visible_issue_id(i.parent_id) is null' end;
  end if;
  if args ? 'claimedById' then
    where_sql := where_sql || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
      else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    where_sql := where_sql || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                     app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    where_sql := where_sql || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;
end
$$;
comment on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) is 'The filters of issues.list and issues.count (query, status as id, category or name, statusId, open, priority, projectId, assignedAgentId, cycleId, parentId, claimedById with null = none, labelIds any of, queued) as the FROM and WHERE of a query over live issues i of the workspace ($1), with the search tsquery ($2, matches m with m.rank) when query is given; 400 naming the field for a bad value. Paging is the caller''s.';
grant execute on function app_hidden.issues_filter(args jsonb, OUT from_sql text, OUT where_sql text, OUT search tsquery) to svc_visitor;
--! EndIncluded issues/filters.sql
--! Included issues/tools/transition.sql
-- The issues.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves the issue to another status of the workspace (any move is allowed; ISSUE_STATUS_CHANGED only on a
-- real move). Run-mode gated.
create or replace function app_tools.issues_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_status_id text := args->>'statusId';
begin
  -- By words (an agent on the runtime profile does not list statuses): the workspace's status of that name, else the
  -- first status (in workflow order) of that category, as repohost.sync's status rules pick one.
  if args->>'status' is not null then
    v_status_id := ((app_hidden.statuses_named(args->>'status')).ids)[1]::text;
    if v_status_id is null then
      perform app_hidden.raise_no_status_named(args->>'status', 'status', 'SV404');
    end if;
  end if;
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status_id));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(args jsonb) is 'issues.transition: Move an issue to another status: statusId (from statuses.list), or status, its name (case-insensitive, e.g. Done), for a key that does not list statuses. Any status may move to any other.';
grant execute on function app_tools.issues_transition(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/transition.sql
