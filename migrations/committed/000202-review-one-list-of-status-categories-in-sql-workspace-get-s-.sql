--! Previous: sha1:d89d1352237cf9af7495865dd63b66d697b8f84f
--! Hash: sha1:50b56dcd26dfa8f6cb45a6679544edb850c48256
--! Message: Review: one list of status categories in SQL; workspace.get's caller reads the narrowing through narrowed_*_ids

--! split: 1-current.sql
-- Review: the status categories have one list in SQL (app_hidden.status_categories); workspace.get's caller reads
-- the narrowing through narrowed_*_ids. Behaviour unchanged.
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

create or replace function app_hidden.status_categories()
 returns text[]
 language sql
 immutable parallel safe
as $$ select array['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED'] $$;
comment on function app_hidden.status_categories() is 'The status categories in workflow order (statuses_category_check allows these): one list for what reads or names them.';
grant execute on function app_hidden.status_categories() to svc_visitor;

create or replace function app_hidden.statuses_named(p_words text, out ids uuid[], out by_category boolean)
 returns record
 language plpgsql
 stable
as $$
declare
  c_categories constant text[] := app_hidden.status_categories();
  v_category text := upper(regexp_replace(btrim(p_words), '[\s-]+', '_', 'g'));
begin
  -- A category spelled as the API spells it (IN_PROGRESS, DONE) is the category, whatever a status is named; else a
  -- name (case-insensitive: "in progress" is the status In Progress), then a category however written (in_progress,
  -- "In-Review"): every status of it, in workflow order. Nothing: an empty array. issues.list and issues.transition
  -- read the same words the same way (they once differed for a status named like a category).
  by_category := p_words = any(c_categories);
  if not by_category then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(btrim(p_words)));
  end if;
  if by_category or (cardinality(ids) = 0 and v_category = any(c_categories)) then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_category
                 order by s.position, s.id);
    by_category := true;
  end if;
end
$$;
comment on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) is 'The statuses a person or agent means by words: a category spelled as the API spells it (DONE) is the category; else the status of that name (case-insensitive), else every status of that category however written (in_progress, In-Review); categories in workflow order; by_category says which. Empty when neither (or a category no status has).';
grant execute on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) to svc_visitor;

create or replace function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text default 'SV400')
 returns void
 language plpgsql
 stable
as $$
begin
  -- What to send instead, in the refusal: an agent on the runtime profile has no statuses.list to look it up with.
  raise exception 'No status named %: this workspace''s statuses are %; or a category: %',
    p_words, (select string_agg(s.name, ', ' order by s.position, s.id) from app_public.statuses s
              where s.workspace_id = app_hidden.current_workspace_id()),
    array_to_string(app_hidden.status_categories(), ', ')
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
        or not v_value #>> '{}' = any(app_hidden.status_categories())) then
      perform app_hidden.raise_invalid('statusRules', format('%s must map to a status category (%s)', v_key, array_to_string(app_hidden.status_categories(), ', ')));
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
comment on function app_public.repo_mappings_create(repo_full_name text, token_env text, api_url text, status_rules jsonb, sync_title boolean) is '@arg repoFullName The repository, owner/name (409 mapping_exists when already mapped).
@arg tokenEnv The operator''s alone: given here it is 403 operator_only (svc admin create-repo-mapping --token-env names the server''s environment variable); omitted = anonymous access.
@arg apiUrl API base URL for GitHub Enterprise, http(s), checked before saving; omitted = https://api.github.com.
@arg statusRules External state (open, closed, merged) to status category, applied to linked issues by repohost.sync; omitted = {"closed":"DONE","merged":"DONE"}.
@arg syncTitle True: repohost.sync copies the external title onto issues linked as SOURCE (default false).
@result The new mapping.
OWNER/ADMIN: maps a repository (owner/name) for the repohost tools, anonymously (tokenEnv, the server''s environment variable holding an API token, is the operator''s: svc admin create-repo-mapping --token-env; given here it is 403 operator_only); apiUrl is for GitHub Enterprise; statusRules map external states (open, closed, merged) to status categories, default {"closed":"DONE","merged":"DONE"}; syncTitle copies titles onto imported issues.';
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
  -- The same URL sent back (a settings form that sends every field) changes nothing and passes.
  if v_row.token_env is not null and not clear_token_env
     and ((api_url is not null and rtrim(api_url, '/') is distinct from v_row.api_url) or (clear_api_url and v_row.api_url is not null)) then
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
comment on function app_public.repo_mappings_update(mapping_id uuid, token_env text, api_url text, status_rules jsonb, sync_title boolean, active boolean, clear_token_env boolean, clear_api_url boolean) is '@arg mappingId The mapping to change.
@arg tokenEnv The operator''s alone: given here it is 403 operator_only.
@arg apiUrl New API base URL, checked before saving; omitted = unchanged. A mapping holding the operator''s token keeps its apiUrl unless clearTokenEnv drops the token in the same call (403 operator_only).
@arg statusRules New status rules, replacing the old ones; omitted = unchanged.
@arg syncTitle Whether repohost.sync copies external titles; omitted = unchanged.
@arg active False pauses the repohost tools for the repository, true resumes them; omitted = unchanged.
@arg clearTokenEnv True removes tokenEnv (anonymous access from then on).
@arg clearApiUrl True removes apiUrl (back to https://api.github.com); as apiUrl for a mapping holding the operator''s token.
@result The mapping as changed.
OWNER/ADMIN: changes a repository mapping (fields given only); active false pauses the repohost tools for that repository. tokenEnv is the operator''s (403 operator_only); clearTokenEnv drops the operator''s token, and a mapping that has one keeps its apiUrl unless the token is dropped in the same call (403 operator_only).';
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
comment on function app_public.repo_mappings_delete(mapping_id uuid) is '@arg mappingId The mapping to remove.
@result The removed mapping, as it was.
OWNER/ADMIN: removes a repository mapping; links and snapshots stay (without a mapping they can no longer be synced).';
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
--! Included analytics/tools/summary.sql
-- The analytics.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- coarse counts over the issues the key can see (RLS applies narrowing): by status category and status,
-- throughput (issues completed per UTC day over windowDays), and breaches (SLA, stalled, no-ack events in the
-- window on issues still open).
create or replace function app_tools.analytics_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_days int := coalesce((args->>'windowDays')::int, 14);
  v_from date := (now() at time zone 'utc')::date - (v_days - 1);
  v_by_category jsonb;
  v_by_status jsonb;
  v_per_day jsonb;
  v_breaches jsonb;
begin
  select jsonb_object_agg(c.category, coalesce(n.count, 0)) into v_by_category
  from unnest(app_hidden.status_categories()) as c(category)
  left join (select s.category, count(*) as count from app_public.issues i join app_public.statuses s on s.id = i.status_id
             where i.workspace_id = v_ws and i.deleted_at is null group by s.category) n on n.category = c.category;

  select coalesce(jsonb_agg(jsonb_build_object('statusId', s.id, 'name', s.name, 'category', s.category,
           'count', (select count(*) from app_public.issues i where i.workspace_id = v_ws and i.status_id = s.id and i.deleted_at is null))
         order by s.position, s.id), '[]')
  into v_by_status from app_public.statuses s where s.workspace_id = v_ws;

  select jsonb_agg(jsonb_build_object('date', d::date, 'done', coalesce(n.count, 0)) order by d)
  into v_per_day
  from generate_series(v_from, (now() at time zone 'utc')::date, interval '1 day') d
  left join (select (i.completed_at at time zone 'utc')::date as day, count(*) as count
             from app_public.issues i join app_public.statuses s on s.id = i.status_id and s.category = 'DONE'
             where i.workspace_id = v_ws and i.deleted_at is null and i.completed_at >= v_from::timestamp at time zone 'utc'
             group by 1) n on n.day = d::date;

  select jsonb_build_object(
      'open', count(distinct e.subject_id),
      'byKind', jsonb_build_object(
        'ISSUE_SLA_BREACH', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_SLA_BREACH'),
        'ISSUE_STALLED', count(distinct e.subject_id) filter (where e.kind = 'ISSUE_STALLED'),
        'AGENT_NOACK', count(distinct e.subject_id) filter (where e.kind = 'AGENT_NOACK')))
  into v_breaches
  from app_public.activity_events e
  join app_public.issues i on i.id = e.subject_id and i.deleted_at is null
  join app_public.statuses s on s.id = i.status_id and s.category not in ('DONE', 'CANCELED')
  where e.workspace_id = v_ws and e.subject_type = 'issue'
    and e.kind in ('ISSUE_SLA_BREACH', 'ISSUE_STALLED', 'AGENT_NOACK')
    and e.created_at >= v_from::timestamp at time zone 'utc';

  return jsonb_build_object(
    'workspaceKey', (select w.key from app_public.workspaces w where w.id = v_ws),
    'generatedAt', now(),
    'counts', jsonb_build_object('byCategory', v_by_category, 'byStatus', v_by_status,
      'open', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category) where key not in ('DONE', 'CANCELED')),
      'total', (select coalesce(sum(value::int), 0) from jsonb_each_text(v_by_category))),
    'throughput', jsonb_build_object('windowDays', v_days, 'from', v_from,
      'total', (select coalesce(sum((x->>'done')::int), 0) from jsonb_array_elements(v_per_day) x), 'perDay', v_per_day),
    'breaches', v_breaches);
end
$$;
grant execute on function app_tools.analytics_summary(args jsonb) to svc_visitor;
comment on function app_tools.analytics_summary(args jsonb) is 'analytics.summary: Coarse workspace figures over the issues this key can see: counts by status category and by status, throughput (issues completed per UTC day over windowDays, default 14, max 90), and open breaches (issues still open with an SLA breach, stall or missed ack in the window).';
--! EndIncluded analytics/tools/summary.sql
--! Included core/caller.sql
-- Who is calling: the request context (transaction-local svc.* settings) and the checks built on it.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.caller_may_moderate()
 returns boolean
 language sql
 stable
as $$
  -- Roles, not scopes (spec 2.8): keys are FULL by default, so a scope test would make every member a moderator.
  select app_hidden.current_agent_id() is null
     and exists (select 1 from app_public.memberships m
                 where m.workspace_id = app_hidden.current_workspace_id()
                   and m.user_id = app_hidden.current_user_id()
                   and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.caller_may_moderate() is 'True for a key acting as a person (no linked agent) whose user is workspace OWNER or ADMIN (a membership role; the ADMIN scope alone does not moderate). Used to override authorship (comments.update/delete) and another user''s claim (issues.release).';
grant execute on function app_hidden.caller_may_moderate() to svc_visitor;

create or replace function app_hidden.caller_role()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select m.role
  from app_private.api_keys k
  join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_role() is 'Workspace role (OWNER, ADMIN, MEMBER) of the calling key''s own user; NULL for plugin keys. Used by policies on admin-managed tables.';
grant execute on function app_hidden.caller_role() to svc_visitor;

create or replace function app_hidden.caller_json()
 returns jsonb
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- Who the calling key acts as, and within what: its own row (kind, plugin) and the request context (the rest).
  select jsonb_build_object(
    'keyId', k.id, 'kind', case when k.plugin_id is not null then 'PLUGIN' else k.kind end, 'pluginId', k.plugin_id,
    'userId', app_hidden.current_user_id(), 'agentId', app_hidden.current_agent_id(), 'role', app_hidden.caller_role(),
    'scopes', to_jsonb(app_hidden.current_scopes()),
    'projectIds', to_jsonb(app_hidden.narrowed_project_ids()), 'labelIds', to_jsonb(app_hidden.narrowed_label_ids()),
    'initiativeIds', to_jsonb(app_hidden.narrowed_initiative_ids()))
  from app_private.api_keys k
  where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
$$;
comment on function app_hidden.caller_json() is 'The calling key as workspace.get''s caller: keyId, kind (PERSONAL, SESSION, AGENT, or PLUGIN for a plugin''s key), pluginId, userId, agentId, role, scopes and its narrowing (projectIds, labelIds, initiativeIds; empty = none).';
grant execute on function app_hidden.caller_json() to svc_visitor;

create or replace function app_hidden.current_agent_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.agent_id', true), '')::uuid $$;
comment on function app_hidden.current_agent_id() is 'Agent linked to the calling key (linkedAgentId), if any.';
grant execute on function app_hidden.current_agent_id() to svc_visitor;

create or replace function app_hidden.current_key_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.key_id', true), '')::uuid $$;
comment on function app_hidden.current_key_id() is 'The calling API key.';
grant execute on function app_hidden.current_key_id() to svc_visitor;

create or replace function app_hidden.current_key_user_id()
 returns uuid
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.user_id from app_private.api_keys k where k.id = app_hidden.current_key_id()
$$;
comment on function app_hidden.current_key_user_id() is 'The user who owns the calling key; NULL for plugin keys without one (those act as a workspace member but have no preferences of their own).';
grant execute on function app_hidden.current_key_user_id() to svc_visitor;

create or replace function app_hidden.current_scopes()
 returns text[]
 language sql
 stable parallel safe
as $$ select coalesce(nullif(current_setting('svc.scopes', true), '')::text[], '{}') $$;
comment on function app_hidden.current_scopes() is 'Scopes of the calling key; FULL holds every scope.';
grant execute on function app_hidden.current_scopes() to svc_visitor;

create or replace function app_hidden.current_user_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.user_id', true), '')::uuid $$;
comment on function app_hidden.current_user_id() is 'User owning the calling key (NULL for plugin keys with no user).';
grant execute on function app_hidden.current_user_id() to svc_visitor;

create or replace function app_hidden.current_workspace_id()
 returns uuid
 language sql
 stable parallel safe
as $$ select nullif(current_setting('svc.workspace_id', true), '')::uuid $$;
comment on function app_hidden.current_workspace_id() is 'Workspace of the calling key (svc.workspace_id). NULL outside a request: every policy then denies.';
grant execute on function app_hidden.current_workspace_id() to svc_visitor;

create or replace function app_hidden.has_scope(p_scope text)
 returns boolean
 language sql
 stable parallel safe
as $$
    select p_scope = any(app_hidden.current_scopes()) or 'FULL' = any(app_hidden.current_scopes())
  $$;
comment on function app_hidden.has_scope(p_scope text) is 'True when the calling key holds the scope (or FULL).';
grant execute on function app_hidden.has_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.is_workspace_admin()
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select app_hidden.has_scope('ADMIN') and exists (
    select 1 from app_private.api_keys k
    join app_public.memberships m on m.workspace_id = k.workspace_id and m.user_id = k.user_id
    where k.id = app_hidden.current_key_id() and k.workspace_id = app_hidden.current_workspace_id()
      and m.role in ('OWNER', 'ADMIN'))
$$;
comment on function app_hidden.is_workspace_admin() is 'True when the calling key holds ADMIN and its own user is OWNER or ADMIN of the calling workspace (plugin keys never are). Never raises, so policies may use it.';
grant execute on function app_hidden.is_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_key_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_key_user_id();
begin
  if v_user is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_key_user() is 'The calling key''s own user, or 403 user_key_required (plugin keys).';
grant execute on function app_hidden.require_key_user() to svc_visitor;

create or replace function app_hidden.require_scope(p_scope text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.has_scope(p_scope) then
    raise exception 'scope % required', p_scope using errcode = 'SVSCP', hint = p_scope;
  end if;
end
$$;
comment on function app_hidden.require_scope(p_scope text) is 'Raises SVSCP (HTTP 403 scope_required) unless the calling key holds the scope.';
grant execute on function app_hidden.require_scope(p_scope text) to svc_visitor;

create or replace function app_hidden.require_user()
 returns uuid
 language plpgsql
 stable
as $$
declare v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user' using errcode = 'SV403', detail = 'user_required';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.require_user() is 'The calling key''s user (personal records: notes, pins, time); 403 user_required for a key without one.';
grant execute on function app_hidden.require_user() to svc_visitor;

create or replace function app_hidden.hold_membership()
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_user uuid := app_hidden.require_user();
begin
  -- Live state only the person can end (a claim, a running timer, a watch) is made while holding their membership in
  -- share mode until commit: a removal of the member waits for the write (and then ends what it made), or the write
  -- waits for the removal and is refused as the revoked key's next call is. A removal raced such writes and left
  -- claims and timers behind that nobody but a moderator could end (definer: members may not lock memberships).
  perform from app_public.memberships m
  where m.workspace_id = app_hidden.current_workspace_id() and m.user_id = v_user
  for share;
  if not found then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  end if;
  return v_user;
end
$$;
comment on function app_hidden.hold_membership() is 'The calling key''s user, their membership held in share mode until commit (401 revoked once they are no longer a member): issues.claim, time.start and issues.watch take it, so a member''s removal and their own writes take turns.';
grant execute on function app_hidden.hold_membership() to svc_visitor;

create or replace function app_hidden.require_user_or_agent()
 returns void
 language plpgsql
 stable
as $$
begin
  if app_hidden.current_agent_id() is null and app_hidden.current_user_id() is null then
    raise exception 'This key acts for no user or agent' using errcode = 'SV403', detail = 'user_required';
  end if;
end
$$;
comment on function app_hidden.require_user_or_agent() is 'Watching: the calling key acts for an agent or a user; 403 user_required for a key with neither (a plugin''s).';
grant execute on function app_hidden.require_user_or_agent() to svc_visitor;

create or replace function app_hidden.require_workspace_admin()
 returns void
 language sql
 stable
as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';
grant execute on function app_hidden.require_workspace_admin() to svc_visitor;

create or replace function app_hidden.require_unnarrowed(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  -- What rules the whole workspace (webhooks, the workflow, its settings, agents and their runtimes, members): a key
  -- narrowed to some projects, labels or initiatives may not change it, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception '%; that needs a key without project, label or initiative narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.require_unnarrowed(p_what text) is 'Raises 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing.';
grant execute on function app_hidden.require_unnarrowed(p_what text) to svc_visitor;

create or replace function app_hidden.require_unnarrowed_admin(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  perform app_hidden.require_unnarrowed(p_what);
end
$$;
comment on function app_hidden.require_unnarrowed_admin(p_what text) is 'Raises 403 admin_required / scope_required as require_workspace_admin, and 403 narrowing (message: p_what, then why) for a key with any project, label or initiative narrowing. For what rules the whole workspace: webhooks, statuses, settings.';
grant execute on function app_hidden.require_unnarrowed_admin(p_what text) to svc_visitor;

create or replace function app_hidden.require_workspace_admin_key()
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.require_admin(app_private.current_caller());
end
$$;
comment on function app_hidden.require_workspace_admin_key() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN.';
grant execute on function app_hidden.require_workspace_admin_key() to svc_visitor;

create or replace function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_key app_private.api_keys;
begin
  -- The API authenticates from a short-lived cache; this check in the call's own statement makes
  -- revocation and expiry exact (a revoked key fails on its very next call).
  select * into v_key from app_private.api_keys where id = p_key_id;
  if v_key.id is null or v_key.workspace_id is distinct from p_workspace_id then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  elsif v_key.linked_agent_id is not null
        and exists (select 1 from app_public.agents a where a.id = v_key.linked_agent_id and a.archived_at is not null) then
    -- An archived agent acts no more, through any tool, until an admin restores it (its keys stay).
    raise exception 'This key''s agent is archived; it acts again once an admin restores the agent'
      using errcode = 'SV403', detail = 'agent_archived';
  end if;
  perform
    set_config('svc.workspace_id', p_workspace_id::text, true),
    set_config('svc.user_id', coalesce(p_user_id::text, ''), true),
    set_config('svc.key_id', p_key_id::text, true),
    set_config('svc.agent_id', coalesce(p_agent_id::text, ''), true),
    set_config('svc.scopes', coalesce(p_scopes, '{}')::text, true),
    set_config('svc.project_ids', coalesce(p_project_ids, '{}')::text, true),
    set_config('svc.label_ids', coalesce(p_label_ids, '{}')::text, true),
    set_config('svc.initiative_ids', coalesce(p_initiative_ids, '{}')::text, true);
end
$$;
comment on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Checks the key is still live (401 revoked/expired otherwise) and its agent, if any, not archived (403 agent_archived), and writes the caller identity into transaction-local settings. The API calls it in the same statement as the tool function.';
grant execute on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) to svc_visitor;

create or replace function app_private.current_caller()
 returns app_private.caller
 language plpgsql
 stable
as $$
declare
  v_key app_private.api_keys;
  v_caller app_private.caller;
begin
  select * into v_key from app_private.api_keys where id = app_hidden.current_key_id();
  if v_key.id is null or v_key.workspace_id is distinct from app_hidden.current_workspace_id() then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  v_caller.key_id := v_key.id;
  v_caller.workspace_id := v_key.workspace_id;
  v_caller.user_id := v_key.user_id;
  v_caller.kind := v_key.kind;
  v_caller.plugin_id := v_key.plugin_id;
  v_caller.scopes := v_key.scopes;
  v_caller.project_ids := v_key.project_ids;
  v_caller.label_ids := v_key.label_ids;
  v_caller.initiative_ids := v_key.initiative_ids;
  v_caller.expires_at := v_key.expires_at;
  v_caller.role := (select m.role from app_public.memberships m
                    where m.workspace_id = v_key.workspace_id and m.user_id = v_key.user_id);
  return v_caller;
end
$$;
comment on function app_private.current_caller() is 'The calling key (svc.key_id), re-read and re-checked (401 when revoked/expired/foreign), with its own user''s workspace role.';

create or replace function app_private.require_admin(p_caller app_private.caller)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_caller.role is null or p_caller.role not in ('OWNER', 'ADMIN') then
    raise exception 'Only a workspace OWNER or ADMIN may do this' using errcode = 'SV403', detail = 'admin_required';
  end if;
  if not ('ADMIN' = any(p_caller.scopes) or 'FULL' = any(p_caller.scopes)) then
    raise exception 'scope ADMIN required' using errcode = 'SVSCP', hint = 'ADMIN';
  end if;
end
$$;
comment on function app_private.require_admin(p_caller app_private.caller) is 'Workspace administration: the key''s user is OWNER or ADMIN (else 403 admin_required) and the key holds ADMIN (else 403 scope_required).';
--! EndIncluded core/caller.sql
