--! Previous: sha1:0908d75129549364a134928d7f518919e8b98163
--! Hash: sha1:1832aca1bccc9e914fa46b2decbe84e405a402d5
--! Message: From an outside probe of the rest of the catalog: an embedded upload link closes at finalize; quota checked one initUpload at a time; deleted comments' files leave the quota; pins.set one at a time; repohost.link only on the mapping's hosts

--! split: 1-current.sql
-- From an outside probe of the rest of the catalog. An embedded upload link takes one PUT and only while its
-- upload is open (attachment_upload_open); initUpload checks the quota one call at a time per workspace (parallel
-- uploads passed it together); a deleted comment's files leave the quota; pins.set replaces a person's pins one call
-- at a time (parallel calls merged); repohost.link takes only URLs on the mapping's hosts.
--! Included attachments/jobs.sql
-- attachments: what the Graphile Worker jobs of attachments call (owner connections).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone default now())
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job(p_task, p_payload, run_at := p_run_at, max_attempts := 3);
  end if;
end
$$;
comment on function app_private.attachments_enqueue(p_task text, p_payload json, p_run_at timestamp with time zone) is 'Enqueues an attachments job (svc_attachment_upload_expire, svc_attachment_link_title) in the caller''s transaction. Security definer: the request role has no access to the queue.';

create or replace function app_private.attachment_upload_expire(p_upload_id uuid)
 returns text
 language sql
as $$
  delete from app_public.attachment_uploads u where u.id = p_upload_id and u.expires_at <= now()
  returning u.storage_key
$$;
comment on function app_private.attachment_upload_expire(p_upload_id uuid) is 'Job svc_attachment_upload_expire: removes an upload that was never finalized and returns its object key (the job deletes the blob); null when it was finalized or has not expired.';

create or replace function app_private.attachment_upload_open(p_storage_key text)
 returns boolean
 language sql
 stable
as $$
  select exists (select 1 from app_public.attachment_uploads u where u.storage_key = p_storage_key and u.expires_at > now())
$$;
comment on function app_private.attachment_upload_open(p_storage_key text) is 'The embedded blob store''s PUT (owner connection): whether the object key still belongs to an upload in progress. A finalized (the row is gone), deleted or expired upload takes no more bytes through its link.';

create or replace function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text)
 returns void
 language sql
as $$
  update app_public.attachments a set link_title = left(p_title, 500)
  where a.id = p_attachment_id and a.kind = 'LINK' and p_title is not null and p_title <> ''
$$;
comment on function app_private.attachment_set_link_title(p_attachment_id uuid, p_title text) is 'Job svc_attachment_link_title: stores the scraped page title (at most 500 characters) of a LINK attachment (ISSUE_UPDATED/INITIATIVE_UPDATED/CYCLE_UPDATED by trigger).';
--! EndIncluded attachments/jobs.sql
--! Included attachments/attachments.sql
-- attachments: helper functions (targets, quota, the row behind a tool call).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
 stable
as $$
begin
  if p_type is null or p_type not in ('issue', 'initiative', 'cycle', 'comment') then
    perform app_hidden.raise_invalid('targetType', 'must be issue, initiative, cycle or comment');
  end if;
  if p_type = 'issue' then
    target_id := (app_hidden.find_issue(p_id, 'targetId')).id;
    issue_id := target_id;
  elsif p_type = 'comment' then
    select c.id, c.issue_id into target_id, issue_id from app_public.comments c
    where c.id = app_hidden.parse_uuid(p_id, 'targetId') and c.deleted_at is null
      and exists (select 1 from app_public.issues i where i.id = c.issue_id and i.deleted_at is null);
  elsif p_type = 'initiative' then
    select i.id into target_id from app_public.initiatives i where i.id = app_hidden.parse_uuid(p_id, 'targetId');
  else
    select c.id into target_id from app_public.cycles c where c.id = app_hidden.parse_uuid(p_id, 'targetId');
  end if;
  if target_id is null then
    raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
  end if;
end
$$;
comment on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'The issue (id or key), comment, initiative or cycle an attachment goes on, as the caller sees it (RLS: narrowing of the issue behind an issue or comment, initiative narrowing); 404 targetId otherwise. issue_id is the issue behind an issue or comment target.';
grant execute on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
as $$
begin
  select t.target_id, t.issue_id into target_id, issue_id from app_hidden.attachment_target(p_type, p_id) t;
  -- cycles.delete refuses a cycle with attachments while it holds the cycle's row lock. This key-share lock
  -- serialises the two: the delete waits for this attachment (and then sees it: 409), or this waits for the
  -- delete (and then finds the cycle gone: 404). No attachment is left on a deleted cycle.
  if p_type = 'cycle' then
    perform 1 from app_public.cycles c where c.id = target_id for key share;
    if not found then
      raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
    end if;
  end if;
end
$$;
comment on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'attachment_target for the tools that attach (attachLink, finalize): a cycle target is also locked FOR KEY SHARE, so cycles.delete and the attaching serialise.';
grant execute on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_visible(p_id text)
 returns app_public.attachments
 language plpgsql
 stable
as $$
declare v_row app_public.attachments;
begin
  select * into v_row from app_public.attachments a where a.id = app_hidden.parse_uuid(p_id, 'id');
  -- Deleted issues are 404 everywhere: so are the attachments on them, on their comments, and on deleted comments.
  if v_row.id is null
     or (v_row.target_type = 'issue'
         and not exists (select 1 from app_public.issues i where i.id = v_row.target_id and i.deleted_at is null))
     or (v_row.target_type = 'comment'
         and not exists (select 1 from app_public.comments c join app_public.issues i on i.id = c.issue_id
                         where c.id = v_row.target_id and c.deleted_at is null and i.deleted_at is null)) then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.attachment_visible(p_id text) is 'An attachment the caller can see (RLS follows the target it is attached to) whose issue or comment target is not soft-deleted (nor the comment''s issue), else 404: the finder of attachments.get, getInline, getDownloadUrl and delete.';
grant execute on function app_hidden.attachment_visible(p_id text) to svc_visitor;

create or replace function app_hidden.attachment_bytes_used(p_workspace_id uuid)
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- A deleted comment's files no longer count: no tool can reach them to delete them (a deleted issue's still do:
  -- issues.restore brings them back).
  select coalesce((select sum(a.size_bytes) from app_public.attachments a
                   where a.workspace_id = p_workspace_id and a.kind = 'FILE'
                     and not (a.target_type = 'comment' and exists (select 1 from app_public.comments c
                                                                   where c.id = a.target_id and c.deleted_at is not null))), 0)
       + coalesce((select sum(u.size_bytes) from app_public.attachment_uploads u
                   where u.workspace_id = p_workspace_id and u.expires_at > now()), 0)
$$;
comment on function app_hidden.attachment_bytes_used(p_workspace_id uuid) is 'Bytes counted against attachmentQuotaMb: every FILE attachment of the workspace (but those of deleted comments) plus uploads granted and not expired (whatever the caller''s narrowing lets it see). Security definer: the total, never the rows.';
grant execute on function app_hidden.attachment_bytes_used(p_workspace_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_blob_ref(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('attachment', app_hidden.attachment_json(a), 'storageKey', a.storage_key)
$$;
comment on function app_hidden.attachment_blob_ref(a app_public.attachments) is 'What the Node half of getDownloadUrl/getInline/delete needs: the attachment and its object key (the key never leaves the service).';
grant execute on function app_hidden.attachment_blob_ref(a app_public.attachments) to svc_visitor;

create or replace function app_hidden.url_hostname(p_url text)
 returns text
 language sql
 immutable parallel safe
as $$
  select lower(substring(p_url from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@]*@)?(\[[^\]]+\]|[^/?#:]+)'))
$$;
comment on function app_hidden.url_hostname(p_url text) is 'The host of an http(s) URL, lowercased (null when it is not one): the title a LINK attachment falls back to.';
grant execute on function app_hidden.url_hostname(p_url text) to svc_visitor;
--! EndIncluded attachments/attachments.sql
--! Included attachments/tools/initUpload.sql
-- The attachments.initUpload tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- Checks the target, the 25 MB per-file limit and the workspace quota (finalized files plus open uploads),
-- records the upload (its trigger schedules the job that removes it if it is never finalized). The Node half signs
-- the PUT URL for the returned key.
create or replace function app_tools.attachments_init_upload(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_target record := app_hidden.attachment_target(args->>'targetType', args->>'targetId');
  v_size bigint := (args->>'sizeBytes')::bigint;
  v_quota bigint;
  v_used bigint;
  v_id uuid := gen_random_uuid();
  v_expires timestamptz := now() + make_interval(secs => coalesce((args->>'expiresInSeconds')::int, 900));
  v_key text;
begin
  -- Spec 3.2: an artifact on the issue itself is an issue mutation (gated runs); on a comment it is part of commenting.
  if args->>'targetType' = 'issue' then
    perform app_hidden.assert_run_mode_allows_mutation(v_target.issue_id);
  end if;
  if v_size is null or v_size < 1 or v_size > 26214400 then
    perform app_hidden.raise_invalid('sizeBytes', 'must be 1 to 26214400 bytes (25 MB per file)');
  end if;
  -- One quota check at a time per workspace: ten parallel uploads each reading the usage before any inserted
  -- passed the quota together (an outside probe: 8 of 204,800 bytes into 1 MB).
  perform pg_advisory_xact_lock(hashtextextended('svc.attachment_quota:' || v_ws::text, 0));
  select w.attachment_quota_mb::bigint * 1048576 into v_quota from app_public.workspaces w where w.id = v_ws;
  v_used := app_hidden.attachment_bytes_used(v_ws);
  if v_used + v_size > v_quota then
    raise exception 'Attachment quota exceeded: % of % MB used, this file needs % bytes', round(v_used / 1048576.0, 1), v_quota / 1048576, v_size
      using errcode = 'SV422', detail = 'quota_exceeded';
  end if;
  v_key := v_ws || '/' || v_id;
  insert into app_public.attachment_uploads (id, workspace_id, storage_key, target_type, target_id, filename, mime_type,
                                             size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  values (v_id, v_ws, v_key, args->>'targetType', v_target.target_id, args->>'filename', lower(args->>'mimeType'), v_size,
          app_hidden.current_user_id(), app_hidden.current_agent_id(), v_expires);
  return jsonb_build_object('key', v_key, 'uploadId', v_id, 'expiresAt', v_expires, 'sizeBytes', v_size,
    'mimeType', lower(args->>'mimeType'), 'filename', args->>'filename',
    'targetType', args->>'targetType', 'targetId', v_target.target_id);
end
$$;
grant execute on function app_tools.attachments_init_upload(args jsonb) to svc_visitor;
comment on function app_tools.attachments_init_upload(args jsonb) is 'attachments.initUpload: Start a file upload to an issue, comment, cycle or initiative: returns {uploadUrl, key}. PUT the bytes to uploadUrl (e.g. curl -T file "<uploadUrl>") before expiresAt, then call attachments.finalize with the key. 25 MB per file; the workspace quota (attachmentQuotaMb) counts finalized files and open uploads.';
--! EndIncluded attachments/tools/initUpload.sql
--! Included pins/tools/set.sql
-- The pins.set tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- makes the caller's pinned issues exactly this ordered list (idempotent); other pin types and pins outside a
-- narrowed key's reach are untouched.
create or replace function app_tools.pins_set(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_ids uuid[] := app_hidden.resolve_issue_list(args->'issueIds', 'issueIds');
begin
  -- One replacement of a person's pins at a time: two at once each deleted what the other had not inserted yet
  -- and left a merge of both lists with repeated positions.
  perform pg_advisory_xact_lock(hashtextextended('svc.pins:' || app_hidden.current_workspace_id()::text || ':' || v_user::text, 0));
  -- Pins on issues outside a narrowed key's reach are not this key's to change: they stay.
  delete from app_public.pins p
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = v_user and p.target_type = 'ISSUE'
    and not (p.target_id = any(v_ids))
    and (app_hidden.issues_unrestricted() or exists (select 1 from app_public.issues i where i.id = p.target_id));
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  select app_hidden.current_workspace_id(), v_user, 'ISSUE', t.id, t.ord - 1
  from unnest(v_ids) with ordinality t(id, ord)
  on conflict (workspace_id, user_id, target_type, target_id)
  do update set position = excluded.position where pins.position is distinct from excluded.position;
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_set(args jsonb) is 'pins.set: Replace your pinned issues with exactly this ordered list of issue ids or keys (empty list unpins all). Idempotent: send the full desired list. Returns the new pins.';
grant execute on function app_tools.pins_set(args jsonb) to svc_visitor;
--! EndIncluded pins/tools/set.sql
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

create or replace function app_hidden.repo_mapping_insert(p_workspace_id uuid, p_repo_full_name text, p_token_env text default NULL::text, p_api_url text default NULL::text, p_status_rules jsonb default NULL::jsonb, p_sync_title boolean default false)
 returns jsonb
 language plpgsql
as $$
declare v_row app_public.connection_mappings;
begin
  if coalesce(p_repo_full_name, '') !~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$' then
    perform app_hidden.raise_invalid('repo', 'must be owner/name');
  end if;
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
