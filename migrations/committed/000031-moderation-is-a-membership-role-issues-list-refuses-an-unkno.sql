--! Previous: sha1:bcf5e5c958afbe827138320ab79f5d4324072955
--! Hash: sha1:870c83bb2d34caabdbd272ff3797059ed548814f
--! Message: moderation is a membership role; issues.list refuses an unknown status name

--! split: 1-current.sql
-- Moderation (comments of others, others' claims) is a membership role (OWNER/ADMIN acting as a person), no
-- longer the ADMIN scope, which every default FULL key holds; issues.list with a status name no status has is a
-- 400 on status instead of an empty list.
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

create or replace function app_hidden.require_workspace_admin()
 returns void
 language sql
 stable
as $$
  select app_hidden.require_workspace_admin_key()
$$;
comment on function app_hidden.require_workspace_admin() is 'Raises 403 admin_required unless the calling key''s own user is OWNER or ADMIN, and 403 scope_required unless the key holds ADMIN (same rule as every in-app admin procedure).';
grant execute on function app_hidden.require_workspace_admin() to svc_visitor;

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
--! Included comments/comments.sql
-- comments: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.comment_for_write(p_id text)
 returns app_public.comments
 language plpgsql
as $$
declare v_comment app_public.comments;
begin
  select c.* into v_comment from app_public.comments c
  join app_public.issues i on i.id = c.issue_id and i.deleted_at is null
  where c.id = app_hidden.parse_uuid(p_id, 'id') and c.deleted_at is null
    and c.workspace_id = app_hidden.current_workspace_id()
  for update of c;
  if v_comment.id is null then
    raise exception 'Comment not found' using errcode = 'SV404', column = 'id';
  end if;
  -- The author is the agent when an agent wrote it, else the user; a key acts as its agent when it has one.
  if not coalesce(case when v_comment.authoring_agent_id is not null
                        then v_comment.authoring_agent_id = app_hidden.current_agent_id()
                        else app_hidden.current_agent_id() is null and v_comment.author_user_id = app_hidden.current_user_id() end, false)
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the author or a workspace OWNER/ADMIN may change this comment'
      using errcode = 'SV403', detail = 'not_author';
  end if;
  return v_comment;
end
$$;
comment on function app_hidden.comment_for_write(p_id text) is 'A live comment on a live issue the caller can see (404 otherwise), locked, that the caller may change: its author (the agent for agent-written comments, else the user), a person key of a workspace OWNER/ADMIN, or an ADMIN key (403 not_author otherwise).';
grant execute on function app_hidden.comment_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  -- No subqueries and no FROM: PostgreSQL inlines it into the calling query (lists join the authors).
  select jsonb_build_object(
    'id', c.id, 'issueId', c.issue_id, 'body', c.body, 'kind', c.kind, 'confidence', c.confidence,
    'authorUserId', c.author_user_id, 'authoringAgentId', c.authoring_agent_id, 'runId', c.run_id,
    'author', case when u.id is not null then
                jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email) end,
    'authoringAgent', case when a.id is not null then
                        jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'editedAt', c.edited_at, 'createdAt', c.created_at, 'updatedAt', c.updated_at)
$$;
comment on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) is 'The Comment shape from rows the caller already fetched: the author user (u) and authoring agent (a) as the caller can see them; inlined into lists.';
grant execute on function app_hidden.comment_shape(c app_public.comments, u app_public.users, a app_public.agents) to svc_visitor;

create or replace function app_hidden.comment_json(c app_public.comments)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql: as `language sql` with subqueries it was never inlined and was planned again in every
  -- statement that called it (~1 ms per comments.create).
  return (select app_hidden.comment_shape(c, u, a)
          from (select 1) as one
          left join app_public.users u on u.id = c.author_user_id
          left join app_public.agents a on a.id = c.authoring_agent_id);
end
$$;
comment on function app_hidden.comment_json(c app_public.comments) is 'Comment (spec 2.4) with author {id, name, email} and authoringAgent {id, profileKey, name}. Revisions are an in-app read only and are not shown.';
grant execute on function app_hidden.comment_json(c app_public.comments) to svc_visitor;

create or replace function app_public.comments_revision_history(c app_public.comments)
 returns setof app_public.comment_revision
 language sql
 stable
as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(c app_public.comments) is 'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';
grant execute on function app_public.comments_revision_history(c app_public.comments) to svc_visitor;
--! EndIncluded comments/comments.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_items json[];
  v_keys text[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text := 'app_public.issues i';
  v_rank text := 'null::real';
  v_status_ids uuid[];
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session (force_generic_plan: left to choose, the plan cache re-planned it in every call for a workspace
    -- of 100,000 issues, where a generic LIMIT looks costlier than a custom plan: 2.7 ms a call instead of
    -- 1.7), reading the (workspace_id, number) index from the cursor down. Filtered calls EXECUTE their
    -- query, planned per call whatever this setting says.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode_int(args->>'cursor', 'issues');
    end if;
    select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number desc),
           array_agg((t.i).number::text order by (t.i).number desc)
    into v_items, v_keys
    from (select i from app_public.issues i
          where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
          order by i.number desc limit v_limit + 1) t
    left join app_public.statuses s on s.id = (t.i).status_id
    left join app_public.projects p on p.id = (t.i).project_id
    left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'query' is not null then
      -- Full-text search (issues_search_gin): ranked, paged by (rank, number) from the cursor on.
      v_query := app_hidden.search_tsquery(args->>'query');
      -- The matches come from a definer function (the index is unusable under RLS, see issue_search_matches);
      -- joined back to issues, the policies apply.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        select array_agg(app_hidden.issue_lean_json(i, s, p, a) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
        join app_public.issues i on i.id = m.id
        left join app_public.statuses s on s.id = i.status_id
        left join app_public.projects p on p.id = i.project_id
        left join app_public.agents a on a.id = i.assigned_agent_id;
        return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issues-search');
      else
        v_from := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
        if v_after is not null then
          v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
        end if;
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode_int(args->>'cursor', 'issues'));
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
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
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
        if cardinality(v_status_ids) = 0 then
          -- A typo in a name is the caller's mistake to hear about, not an empty list.
          raise exception 'No status has this id, category or name' using errcode = 'SV400', column = 'status';
        end if;
      end if;
      v_where := v_where || case cardinality(v_status_ids)
        when 0 then ' and false'
        when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
        else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
    end if;
    if args->>'open' is not null then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
      v_where := v_where || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                        else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by %s), array_agg(%s order by %s)
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id',
      v_outer_order, v_sort, v_outer_order, v_rank, v_from, v_where, v_order, v_limit + 1)
    into v_items, v_keys
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
