--! Previous: sha1:805ad90af8f46b66c8e543a456abde8330f9c6ee
--! Hash: sha1:8b1874ee5ecc6d80f14144c8be01bdcc102aa98c
--! Message: Tracker audit: events.recent by issue key; user-less keys not offered personal tools; plugin ISSUE_CREATED actor; deleting an issue stops its timers

--! split: 1-current.sql
-- From the spec audit of the tracker half (thirteenth session), and events.recent by issue key:
-- events.recent takes an issue subject by key as well as by id (subjectType issue), as every issue tool does;
-- issues.unwatch and issues.listWatching refuse a key acting for no user or agent (403 user_required), as watch does;
-- the ISSUE_CREATED of an issue a plugin's key creates names the first member as actor, as the issue does (spec 4.2);
-- deleting an issue stops the timers running on it (app_hidden.timer_minutes: one rule for a stopped timer's minutes).
--! Included events/tools/recent.sql
-- The events.recent tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first; filters subjectType, subjectId, kinds; before = the nextCursor of a previous page. Issue
-- narrowing applies to issue subjects.
create or replace function app_tools.events_recent(args jsonb)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_subject_id uuid;
  v_kinds text[] := (select array_agg(k) from jsonb_array_elements_text(args->'kinds') k);
  v_before_seq bigint := 9223372036854775807;
  v_items json[];
  v_keys text[];
begin
  if args->>'subjectType' = 'issue' and args->>'subjectId' is not null then
    -- An issue by id or key, as every issue tool takes it. Narrowing is enforced on the subject itself: an issue
    -- outside it is not found.
    v_subject_id := (app_hidden.find_issue(args->>'subjectId', 'subjectId')).id;
  else
    v_subject_id := app_hidden.parse_uuid(args->>'subjectId', 'subjectId');
  end if;
  if args->>'before' is not null then
    v_before_seq := app_hidden.cursor_decode_bigint(args->>'before', 'events', 'before');
  end if;
  -- The page first (index order, limit), then its actors by join and an inlined shaper: no per-row
  -- function call (event_json per row was 3 of 7 ms); built as json text (page_json_text).
  if args->>'subjectType' is null and v_subject_id is null and v_kinds is null then
    -- No filter (the common call): a static query, planned once per session (force_generic_plan, as
    -- issues.list: a busy workspace's events would otherwise be re-planned in every call), reading (workspace_id, seq)
    -- from the cursor down. With the filters' "param is null or ..." in it, the cached generic plan read
    -- every event of the workspace and sorted them (12 ms at 5,000 events instead of 0.6).
    select array_agg(app_hidden.event_shape(t.e, a, u, true) order by (t.e).seq desc),
           array_agg((t.e).seq::text order by (t.e).seq desc)
    into v_items, v_keys
    from (select e from app_public.activity_events e
          where e.workspace_id = v_ws and e.seq < v_before_seq
          order by e.seq desc limit v_limit + 1) t
    left join app_public.agents a on a.id = (t.e).actor_agent_id
    left join app_public.users u on u.id = (t.e).actor_user_id;
  else
    -- Filters: planned per call with their values, so each filter gets its own index.
    execute format(
      'select array_agg(app_hidden.event_shape(t.e, a, u, true) order by (t.e).seq desc),
              array_agg((t.e).seq::text order by (t.e).seq desc)
       from (select e from app_public.activity_events e
             where e.workspace_id = $1 and e.seq < $2 %s %s %s
             order by e.seq desc limit %s) t
       left join app_public.agents a on a.id = (t.e).actor_agent_id
       left join app_public.users u on u.id = (t.e).actor_user_id',
      case when args->>'subjectType' is not null then format('and e.subject_type = %L', args->>'subjectType') else '' end,
      case when v_subject_id is not null then format('and e.subject_id = %L::uuid', v_subject_id) else '' end,
      case when v_kinds is not null then format('and e.kind = any(%L::text[])', v_kinds) else '' end,
      v_limit + 1)
    into v_items, v_keys
    using v_ws, v_before_seq;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'events');
end
$$;
comment on function app_tools.events_recent(args jsonb) is 'events.recent: Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id or key) or kinds; page with before = nextCursor.';
grant execute on function app_tools.events_recent(args jsonb) to svc_visitor;
--! EndIncluded events/tools/recent.sql
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

create or replace function app_hidden.require_unnarrowed_admin(p_what text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_workspace_admin();
  -- Settings of the whole workspace (webhooks, the workflow, its settings): a key narrowed to some projects,
  -- labels or initiatives may not change them, as it may not mint a wider key.
  if not app_hidden.key_unnarrowed() then
    raise exception '%; that needs a key without project, label or initiative narrowing', p_what
      using errcode = 'SV403', detail = 'narrowing';
  end if;
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
comment on function app_hidden.set_request_context(p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Checks the key is still live (401 revoked/expired otherwise) and writes the caller identity into transaction-local settings. The API calls it in the same statement as the tool function.';
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
--! Included issues/tools/watch.sql
-- The issues.watch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller watches the issue (as its linked agent, else as its user); idempotent.
create or replace function app_tools.issues_watch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
begin
  if v_agent is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, agent_id)
    values (v_issue.workspace_id, v_issue.id, v_agent)
    on conflict (issue_id, agent_id) where agent_id is not null do nothing;
  else
    perform app_hidden.require_user_or_agent();
    insert into app_public.issue_watchers (workspace_id, issue_id, user_id)
    values (v_issue.workspace_id, v_issue.id, v_user)
    on conflict (issue_id, user_id) where user_id is not null do nothing;
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', true,
    'watcher', case when v_agent is not null then jsonb_build_object('type', 'agent', 'id', v_agent)
                    else jsonb_build_object('type', 'user', 'id', v_user) end);
end
$$;
comment on function app_tools.issues_watch(args jsonb) is 'issues.watch: Watch an issue: as the key''s linked agent when it has one, else as its user. Idempotent.';
grant execute on function app_tools.issues_watch(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/watch.sql
--! Included issues/tools/unwatch.sql
-- The issues.unwatch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes the caller's own watch (agent or user); idempotent.
create or replace function app_tools.issues_unwatch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
begin
  perform app_hidden.require_user_or_agent();
  if v_agent is not null then
    delete from app_public.issue_watchers where issue_id = v_issue.id and agent_id = v_agent;
  else
    delete from app_public.issue_watchers
    where issue_id = v_issue.id and agent_id is null and user_id = app_hidden.current_user_id();
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', false);
end
$$;
comment on function app_tools.issues_unwatch(args jsonb) is 'issues.unwatch: Stop watching an issue (removes only the caller''s own watch). Idempotent.';
grant execute on function app_tools.issues_unwatch(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/unwatch.sql
--! Included issues/tools/listWatching.sql
-- The issues.listWatching tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- live issues the caller watches (as its agent, else as its user), newest first, paged.
create or replace function app_tools.issues_list_watching(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
  v_before int;
begin
  perform app_hidden.require_user_or_agent();
  if args->>'cursor' is not null then
    v_before := app_hidden.cursor_decode_int(args->>'cursor', 'watching');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.issue_json(i), i.number::text, null)::app_hidden.page_row
    from app_public.issues i
    join app_public.issue_watchers w on w.issue_id = i.id
    where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
      and (case when v_agent is not null then w.agent_id = v_agent
                else w.agent_id is null and w.user_id = v_user end)
      and (v_before is null or i.number < v_before)
    order by i.number desc limit v_limit + 1), v_limit, 'watching');
end
$$;
comment on function app_tools.issues_list_watching(args jsonb) is 'issues.listWatching: Issues the caller watches (its linked agent''s watches, else its user''s), newest first, paged.';
grant execute on function app_tools.issues_list_watching(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/listWatching.sql
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
--! Included issues/triggers.sql
-- Triggers of the issues tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_labels := case when tg_op = 'DELETE' then old else new end;
begin
  if exists (select 1 from app_public.issues i where i.id = v_row.issue_id and i.created_at = now()) then
    return null;  -- labels set while the issue is created belong to its ISSUE_CREATED
  end if;
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['labelIds']);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__events() is 'ISSUE_UPDATED (changes labelIds) when labels are added to or removed from an existing issue (not in the transaction that creates it).';

create or replace function app_private.tg_issue_labels__label_ids()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_issue_ids uuid[] := array(select distinct c.issue_id from changed c);
begin
  -- Lock the issues first, read their labels after (a new statement, so a new snapshot): a transaction
  -- changing the same issue's labels at the same time has committed by then, and neither loses the other's.
  perform from app_public.issues i where i.id = any(v_issue_ids) order by i.id for no key update;
  update app_public.issues i
  set label_ids = coalesce((select array_agg(il.label_id order by il.created_at, il.label_id)
                            from app_public.issue_labels il where il.issue_id = i.id), '{}')
  where i.id = any(v_issue_ids);
  return null;
end
$$;
comment on function app_private.tg_issue_labels__label_ids() is 'AFTER INSERT/DELETE statement on issue_labels (transition table `changed`): copies each changed issue''s label ids, oldest first, into issues.label_ids, which the issue shapes read.';

create or replace function app_private.issue_number_sequence(p_workspace_id uuid)
 returns text
 language sql
 immutable
as $$ select 'app_private.issue_numbers_' || pg_catalog.replace(p_workspace_id::text, '-', '') $$;
comment on function app_private.issue_number_sequence(p_workspace_id uuid) is 'The qualified name of a workspace''s issue number sequence (created with the workspace). No SET clause, so it is inlined.';

create or replace function app_private.tg_issues__assign_number()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sequence, not a counter row: a row would stay locked until commit (its WAL flush included), so the
  -- creates of one workspace would queue one behind the other. The price: a create that fails after this
  -- point leaves a gap in the numbers (docs/decisions.md).
  new.number := nextval(app_private.issue_number_sequence(new.workspace_id)::regclass);
  new.key := (select w.key from app_public.workspaces w where w.id = new.workspace_id) || '-' || new.number;
  return new;
end
$$;
comment on function app_private.tg_issues__assign_number() is 'BEFORE INSERT on issues: the next number of the workspace''s sequence and the key <WS>-<n>.';

create or replace function app_private.tg_issues__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
  v_event uuid;
begin
  if tg_op = 'INSERT' then
    v_event := app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    -- A plugin's key acts for no one: the issue is the first member's (_210_plugin_creator, spec 4.2), and so is
    -- the event's actor, as the issue row says.
    if app_hidden.current_user_id() is null and app_hidden.current_agent_id() is null and app_hidden.current_key_id() is not null then
      update app_public.activity_events set actor_user_id = new.created_by_user_id where id = v_event;
    end if;
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
    return null;
  end if;
  if new.deleted_at is null and old.deleted_at is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_RESTORED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key, 'deletedAt', old.deleted_at));
    return null;
  end if;
  if new.status_id is distinct from old.status_id then
    perform app_private.record_event(new.workspace_id, 'ISSUE_STATUS_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.status_id, 'to', new.status_id));
  end if;
  if new.priority is distinct from old.priority then
    perform app_private.record_event(new.workspace_id, 'ISSUE_PRIORITY_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.priority, 'to', new.priority));
  end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_ASSIGNED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'agentId', new.assigned_agent_id,
                         'from', old.assigned_agent_id, 'to', new.assigned_agent_id));
  end if;
  if new.queued and not old.queued then
    perform app_private.record_event(new.workspace_id, 'ISSUE_QUEUED', 'issue', new.id,
      jsonb_build_object('issueId', new.id));
  end if;
  if new.title is distinct from old.title then v_changed := array_append(v_changed, 'title'); end if;
  if new.description is distinct from old.description then v_changed := array_append(v_changed, 'description'); end if;
  if new.project_id is distinct from old.project_id then v_changed := array_append(v_changed, 'projectId'); end if;
  if new.parent_id is distinct from old.parent_id then
    v_changed := array_append(v_changed, 'parentId');
    -- A sub-issue given a parent (or cleared) after its parent's deletion is not reattached by a restore.
    delete from app_private.issue_detachments d where d.child_id = new.id;
  end if;
  if new.cycle_id is distinct from old.cycle_id then v_changed := array_append(v_changed, 'cycleId'); end if;
  if new.due_date is distinct from old.due_date then v_changed := array_append(v_changed, 'dueDate'); end if;
  if new.estimate is distinct from old.estimate then v_changed := array_append(v_changed, 'estimate'); end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := array_append(v_changed, 'slaMinutes'); end if;
  if new.expected_output is distinct from old.expected_output then v_changed := array_append(v_changed, 'expectedOutput'); end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := array_append(v_changed, 'verificationChecklist'); end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := array_append(v_changed, 'artifactRequired'); end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById'); end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields. A change that changes nothing writes nothing.';

create or replace function app_private.tg_issues__detach_children()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_children uuid[];
begin
  -- Every live child, also those the deleting key cannot see (narrowing): a deleted issue is 404 everywhere,
  -- so nothing may keep pointing at it. Each child writes ISSUE_UPDATED (changes parentId) through _800_events,
  -- whose own bookkeeping runs at the end of this statement (it forgets older detachments of the child).
  with detached as (
    update app_public.issues c set parent_id = null
    where c.workspace_id = new.workspace_id and c.parent_id = new.id and c.deleted_at is null
    returning c.id)
  select array_agg(id) into v_children from detached;
  -- Remembered privately (never in an event: a key may see the child but not the parent), for issues.restore.
  insert into app_private.issue_detachments (workspace_id, parent_id, child_id)
  select new.workspace_id, new.id, child from unnest(v_children) child
  on conflict do nothing;
  return null;
end
$$;
comment on function app_private.tg_issues__detach_children() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: its live sub-issues (all of them, whatever the key''s narrowing) become top-level (parentId null), each with the ISSUE_UPDATED (changes parentId) an update of parentId writes, and app_private.issue_detachments remembers them for issues.restore.';

create or replace function app_private.tg_issues__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A deleted issue is 404 everywhere and its time leaves the lists and sums; a timer left running on it would
  -- still show it (time.running) and keep counting. It stops now, whoever's it is (time entries write no event).
  update app_public.time_entries e
  set ended_at = now(), duration_min = app_hidden.timer_minutes(e.started_at)
  where e.workspace_id = new.workspace_id and e.issue_id = new.id and e.duration_min is null;
  return null;
end
$$;
comment on function app_private.tg_issues__stop_timers() is 'AFTER UPDATE OF deleted_at on issues, when an issue is soft-deleted: every timer running on it stops (durationMin = elapsed minutes, as time.stop).';

create or replace function app_private.tg_issues__restore_links()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The restored issue may not point at a parent deleted meanwhile (a deleted issue is 404 everywhere).
  update app_public.issues i set parent_id = null
  where i.id = new.id and exists (select 1 from app_public.issues p where p.id = new.parent_id and p.deleted_at is not null);
  -- The sub-issues its deletion detached (app_private.issue_detachments) come back, all of them as the deletion
  -- took all of them, unless they moved since: deleted, or their parentId changed after the detachment (that
  -- forgot the detachment, tg_issues__events); and never into a cycle. Each writes ISSUE_UPDATED (changes
  -- parentId) through _800_events.
  update app_public.issues c set parent_id = new.id
  from app_private.issue_detachments d
  where d.parent_id = new.id and c.id = d.child_id and c.workspace_id = new.workspace_id
    and c.parent_id is null and c.deleted_at is null
    and not app_hidden.issue_has_ancestor(new.id, c.id);
  delete from app_private.issue_detachments d where d.parent_id = new.id;
  return null;
end
$$;
comment on function app_private.tg_issues__restore_links() is 'AFTER UPDATE OF deleted_at on issues, when a deleted issue is restored (issues.restore): a parent deleted meanwhile is cleared, and the sub-issues its deletion detached (app_private.issue_detachments) that are still live, top-level and untouched since are reattached, whatever the key''s narrowing (as the deletion detached them), never into a cycle; each with the ISSUE_UPDATED (changes parentId) an update of parentId writes.';

create or replace function app_private.tg_issues__plugin_creator()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.created_by_user_id is null and new.created_by_agent_id is null then
    new.created_by_user_id := (select m.user_id from app_public.memberships m
                               where m.workspace_id = new.workspace_id order by m.created_at, m.id limit 1);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__plugin_creator() is 'BEFORE INSERT on issues: an issue created by a key with neither user nor agent (a plugin key) is attributed to the first workspace member (spec 4.2).';

create or replace function app_private.tg_issues__status_timestamps()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_category text;
begin
  if tg_op = 'UPDATE' and new.status_id is not distinct from old.status_id then
    return new;
  end if;
  select s.category into v_category from app_public.statuses s where s.id = new.status_id;
  if v_category in ('IN_PROGRESS', 'IN_REVIEW', 'DONE') and new.started_at is null then
    new.started_at := now();
  end if;
  if v_category in ('DONE', 'CANCELED') then
    new.completed_at := coalesce(new.completed_at, now());
  else
    new.completed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__status_timestamps() is 'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt is set on DONE/CANCELED and cleared when the issue is reopened.';

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _150_status_timestamps on app_public.issues;
create trigger _150_status_timestamps before insert or update of status_id on app_public.issues for each row execute function app_private.tg_issues__status_timestamps();

drop trigger if exists _200_assign_number on app_public.issues;
create trigger _200_assign_number before insert on app_public.issues for each row execute function app_private.tg_issues__assign_number();

drop trigger if exists _210_plugin_creator on app_public.issues;
create trigger _210_plugin_creator before insert on app_public.issues for each row execute function app_private.tg_issues__plugin_creator();

drop trigger if exists _810_detach_children on app_public.issues;
create trigger _810_detach_children after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__detach_children();

drop trigger if exists _812_stop_timers on app_public.issues;
create trigger _812_stop_timers after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is null and new.deleted_at is not null) execute function app_private.tg_issues__stop_timers();

drop trigger if exists _811_restore_links on app_public.issues;
create trigger _811_restore_links after update of deleted_at on app_public.issues for each row
  when (old.deleted_at is not null and new.deleted_at is null) execute function app_private.tg_issues__restore_links();

drop trigger if exists _800_events on app_public.issues;
create trigger _800_events after insert or update on app_public.issues for each row execute function app_private.tg_issues__events();
--! EndIncluded issues/triggers.sql
