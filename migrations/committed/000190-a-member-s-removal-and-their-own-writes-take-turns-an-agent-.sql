--! Previous: sha1:fe183cc24c091471778fa6dad986de5ef0af7e14
--! Hash: sha1:9f980df651d5f8971067d89d6c626e23ceea143c
--! Message: A member's removal and their own writes take turns; an agent's poll is the agent's

--! split: 1-current.sql
-- A member's removal and their own writes take turns (re-probe): issues.claim, time.start and issues.watch hold the
-- caller's membership in share mode (hold_membership), and remove_member deletes the membership before it ends their
-- claims, timer and watches (a claim written at the same moment survived). A poll an agent requested is the agent's:
-- once it is archived a moderator closes it (the user whose key the agent used could, and a moderator could not).
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
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim (never shortens it); another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  -- claimedById is a person's claim: an agent's key claimed as the user who made the key.
  if app_hidden.current_agent_id() is not null then
    raise exception 'A claim is a person''s: an agent takes an issue by assignment (issues.assign, or the queue and dispatch)'
      using errcode = 'SV403', detail = 'person_required';
  end if;
  perform app_hidden.hold_membership();
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %',
      to_char(v_issue.claim_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  -- Claiming one's own live claim again extends it and never shortens it (release ends a claim early).
  update app_public.issues
  set claimed_by_id = v_user,
      -- greatest() passes over the null of any other claim.
      claim_expires_at = greatest(case when v_issue.claimed_by_id = v_user then v_issue.claim_expires_at end,
                                  now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240)))
  where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it (never shortens it; ISSUE_UPDATED changes claimExpiresAt); another user''s unexpired claim is 409 already_claimed. A claim is a person''s: an agent key takes work by assignment (403 person_required).';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
--! Included time/tools/start.sql
-- The time.start tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- starts the caller's timer on a visible issue, stopping a running one first (returned as stopped); already
-- running on that issue: unchanged.
create or replace function app_tools.time_start(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_running app_public.time_entries;
  v_stopped app_public.time_entries;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.hold_membership();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  -- One timer decision per person at a time: two concurrent starts would each see no running timer.
  perform pg_advisory_xact_lock(hashtextextended('svc.timer:' || v_issue.workspace_id::text || v_user::text, 0));
  select * into v_running from app_public.time_entries
  where workspace_id = v_issue.workspace_id and user_id = v_user and duration_min is null;
  if v_running.issue_id = v_issue.id then
    return jsonb_build_object('entry', app_hidden.time_entry_json(v_running), 'stopped', null);
  end if;
  if v_running.id is not null then
    v_stopped := app_hidden.stop_running_timer(v_user);
  end if;
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, note)
  values (v_issue.workspace_id, v_issue.id, v_user, now(), args->>'note')
  returning * into v_entry;
  return jsonb_build_object('entry', app_hidden.time_entry_json(v_entry),
                            'stopped', case when v_stopped.id is null then null else app_hidden.time_entry_json(v_stopped) end);
end
$$;
comment on function app_tools.time_start(args jsonb) is 'time.start: Start your timer on an issue. A timer already running on another issue is stopped first (returned as stopped); one on the same issue keeps running. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_start(args jsonb) to svc_visitor;
--! EndIncluded time/tools/start.sql
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
    perform app_hidden.hold_membership();
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
  v_caller app_private.caller := app_private.begin_membership_change(null, p_role);
  v_result jsonb;
begin
  -- Decided after the lock: two adds of one new email both answered 200, the second changing the first's role unchecked.
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
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, null);
begin
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
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, p_role);
begin
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
  delete from app_public.former_members where workspace_id = p_workspace_id and user_id = v_user.id;
  if not found then
    -- Already a member: a role change, with set_member_role's guard (the last OWNER is not demoted).
    perform app_private.set_member_role(p_workspace_id, v_user.id, p_role);
  end if;
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.begin_membership_change(p_user_id uuid, p_new_role text)
 returns app_private.caller
 language plpgsql
as $$
declare
  v_caller app_private.caller;
  v_old_role text;
begin
  -- Membership changes of a workspace take turns (lock_owners), and the caller's right is judged after the lock on
  -- the member's role as it is now: an ADMIN removed an OWNER promoted a moment before, having read the role before
  -- the promotion committed.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  perform app_private.require_admin(v_caller);
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if p_user_id is not null then
    v_old_role := (app_private.find_membership(v_caller.workspace_id, p_user_id)).role;
  end if;
  if (v_old_role = 'OWNER' or p_new_role = 'OWNER') and v_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
  return v_caller;
end
$$;
comment on function app_private.begin_membership_change(p_user_id uuid, p_new_role text) is 'The prologue of members_add/remove/set_role: takes the workspace''s turn for membership changes (lock_owners), then checks the caller may make this one (OWNER/ADMIN with an unnarrowed key, 403 narrowing; only an OWNER touches the OWNER role, 403 owner_required; 404 userId for a user who is not a member). Returns the caller.';

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
    -- Two workspaces adding the same new person at once: the second insert waits for the first and does nothing,
    -- and the next statement reads the row it made (a unique violation was a 409 to one of them).
    insert into app_public.users (email, name) values (p_email, split_part(p_email, '@', 1))
    on conflict do nothing returning * into v_user;
    if v_user.id is null then
      select * into v_user from app_public.users where lower(email) = lower(p_email);
    end if;
  end if;
  return v_user;
end
$$;
-- Users are people across workspaces: when one signed up is not a workspace's to read (an admin adding an email
-- learned whether, and since when, it had an account elsewhere).
comment on column app_public.users.created_at is E'@behavior -*\nWhen the person first joined any workspace (not in GraphQL: it would tell one workspace about others).';

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

create or replace function app_private.lock_owners(p_workspace_id uuid)
 returns void
 language plpgsql
as $$
begin
  -- Two owners demoting or removing each other at once each saw the other still OWNER and both passed the
  -- last-OWNER check. Locked first, the second change waits for the first and then reads what it left.
  perform from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' order by id for update;
end
$$;
comment on function app_private.lock_owners(p_workspace_id uuid) is 'Locks the workspace''s OWNER memberships for the transaction (a workspace always has one): membership changes (members_add/remove/set_role, remove_member, set_member_role) run one after the other, each deciding on what the one before left.';

create or replace function app_private.remove_member(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
as $$
declare
  v_m app_public.memberships;
  v_req app_public.action_requests;
begin
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner';
  end if;
  -- A former member's keys for this workspace stop working at once.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and user_id = p_user_id and revoked_at is null;
  -- The membership goes first: its delete waits for their claims, timers and watches being written (they hold it in
  -- share mode, hold_membership), and each statement below then sees what those wrote.
  delete from app_public.memberships where id = v_m.id;
  -- What only they could end ends with them: their claims (released, ISSUE_UPDATED each; others waited for them to
  -- expire and could not release them), their running timer (stopped, as time.stop; time entries write no event) and
  -- their watches. Requests assigned to them go back to no one (ISSUE_UPDATED each, as actionRequests.update), where
  -- a moderator can re-point them: a request could not be assigned to a non-member.
  update app_public.issues set claimed_by_id = null, claim_expires_at = null
  where workspace_id = p_workspace_id and claimed_by_id = p_user_id;
  update app_public.time_entries set ended_at = now(), duration_min = app_hidden.timer_minutes(started_at)
  where workspace_id = p_workspace_id and user_id = p_user_id and duration_min is null;
  delete from app_public.issue_watchers where workspace_id = p_workspace_id and user_id = p_user_id;
  for v_req in update app_public.action_requests set assigned_user_id = null
               where workspace_id = p_workspace_id and assigned_user_id = p_user_id returning * loop
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
      'actionRequestId', v_req.id, 'issueId', v_req.issue_id, 'change', 'updated', 'changes', jsonb_build_array('assignedUserId'),
      'assignedUserId', null, 'assignedAgentId', v_req.assigned_agent_id, 'reason', 'member_removed'));
  end loop;
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace, releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

create or replace function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships;
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
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
--! Included actionRequests/machine.sql
-- actionRequests: the request machine, who may decide, creating a request and its bound dispatch.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_action_request(p_id text, p_field text default 'id'::text, p_lock boolean default false)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests;
begin
  select * into v from app_public.action_requests
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Action request not found' using errcode = 'SV404', column = p_field;
  end if;
  if p_lock then
    select * into v from app_public.action_requests where id = v.id for update;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) is 'An action request the key can see (a request on an issue follows its narrowing), locked FOR UPDATE on request; else 404.';
grant execute on function app_hidden.find_action_request(p_id text, p_field text, p_lock boolean) to svc_visitor;

create or replace function app_hidden.action_request_move(p_request app_public.action_requests, p_to text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v app_public.action_requests;
  v_closing boolean := p_to in ('RESOLVED', 'DISMISSED', 'REJECTED', 'SUPERSEDED');
begin
  perform app_hidden.assert_move('action-request', 'Action request', p_request.status, p_to);
  update app_public.action_requests
  set status = p_to,
      resolved_at = case when v_closing then now() end,
      resolved_by_user_id = case when v_closing then app_hidden.current_user_id() end,
      resolved_by_agent_id = case when v_closing then app_hidden.current_agent_id() end,
      -- A poll closed undecided takes no more votes (vote refuses closed requests): its voting is closed with it,
      -- without a winner (closeVoting names one).
      voting_closed_at = case when v_closing and options is not null then coalesce(voting_closed_at, now()) else voting_closed_at end
  where id = p_request.id
  returning * into v;  -- ISSUE_UPDATED (action-request, change status) by trigger
  return v;
end
$$;
comment on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) is 'The request machine (shared decisions): OPEN → RESOLVED | DISMISSED | SNOOZED | REJECTED | SUPERSEDED, SNOOZED → OPEN or any of those; closed states are terminal (409 illegal_transition). Closing a poll closes its voting (votingClosedAt; no winner unless closeVoting ran).';
grant execute on function app_hidden.action_request_move(p_request app_public.action_requests, p_to text) to svc_visitor;

create or replace function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v app_public.action_requests;
begin
  for v in select * from app_public.action_requests r
           where r.workspace_id = app_hidden.current_workspace_id()
             and r.source_type = p_source_type and r.source_id = p_source_id and r.status in ('OPEN', 'SNOOZED')
           for update loop
    perform app_hidden.action_request_move(v, 'SUPERSEDED');
  end loop;
end
$$;
comment on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) is 'SUPERSEDEs the open requests raised for a source (a plan''s earlier approval requests once it is activated, canceled or asked again). As the owner: those of a deleted issue, hidden from keys, are superseded too (they would come back open with the issue).';
grant execute on function app_hidden.action_requests_supersede(p_source_type text, p_source_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_may_decide(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- Every branch is coalesced to a boolean: a key without an agent (or a plugin key without a user) compares as
  -- NULL, and NULL here would make `if not ...` pass the caller through.
  select coalesce(p_request.assigned_agent_id is not null
                  and p_request.assigned_agent_id is not distinct from app_hidden.current_agent_id(), false)
      or coalesce(p_request.assigned_user_id is not null and app_hidden.current_agent_id() is null
                  and p_request.assigned_user_id is not distinct from app_hidden.current_user_id(), false)
      or coalesce(p_request.issue_id is not null and exists (
            select 1 from app_public.issue_watchers w
            where w.issue_id = p_request.issue_id
              and case when app_hidden.current_agent_id() is not null then w.agent_id = app_hidden.current_agent_id()
                       else w.user_id = app_hidden.current_user_id() end), false)
      -- OWNER/ADMIN is the membership role (spec 2.8) of a person: a key with no linked agent whose own user has
      -- that role. The ADMIN scope alone does not make a MEMBER (or an agent) an OWNER/ADMIN.
      or coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
$$;
comment on function app_hidden.action_request_may_decide(p_request app_public.action_requests) is 'accept/decline gate (spec 3.6, 4.11): the assignee (the assigned agent''s own key, or the assigned user''s key acting as a person), a watcher of the request''s issue (as the key watches: agent or user), or a person (key with no linked agent) whose workspace role is OWNER or ADMIN. The ADMIN scope alone grants nothing here. Never NULL.';
grant execute on function app_hidden.action_request_may_decide(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests)
 returns boolean
 language sql
 stable
as $$
  -- `is not distinct from`: a key without an agent (or without a user) must compare false, not NULL
  -- (`if not NULL` would let it through).
  -- A requester gone (an agent archived, a person no longer a member) counts as none: a moderator closes the poll,
  -- which nobody else could.
  -- An agent's request also names the user whose key the agent used: the agent is the requester, and once it is
  -- archived the request is a moderator's (that user's own key got it instead).
  select coalesce(case
    when p_request.requested_by_agent_id is not null then
      case when exists (select 1 from app_public.agents a where a.id = p_request.requested_by_agent_id and a.archived_at is null)
           then p_request.requested_by_agent_id is not distinct from app_hidden.current_agent_id()
           else app_hidden.caller_may_moderate() end
    when p_request.requested_by_user_id is not null then
      case when exists (select 1 from app_public.memberships m
                        where m.workspace_id = p_request.workspace_id and m.user_id = p_request.requested_by_user_id)
           then app_hidden.current_agent_id() is null and p_request.requested_by_user_id is not distinct from app_hidden.current_user_id()
           else app_hidden.caller_may_moderate() end
    else app_hidden.caller_may_moderate() end, false)
$$;
comment on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) is 'Whether the calling key speaks for the requester: the requesting agent''s own key, or the requesting person''s key acting as a person (no linked agent); a request without a requester (raised by the system), or whose requester is gone (agent archived, person no longer a member), counts as a workspace OWNER/ADMIN person''s. Never NULL. closeVoting and update use it.';
grant execute on function app_hidden.action_request_caller_is_requester(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_self_decision(p_request app_public.action_requests)
 returns text
 language sql
 stable
as $$
  -- Nobody decides what they asked for, even as its assignee or a watcher of its issue (a planner would approve its
  -- own plan, a worker accept the move it asked someone to make): the requester only withdraws it. A workspace
  -- OWNER/ADMIN person may, as they may make the change directly. Nor is a plan's approval decided from inside the
  -- plan (its planner re-pointed its request at a worker).
  select case
    when (p_request.requested_by_agent_id is not null or p_request.requested_by_user_id is not null)
         and app_hidden.action_request_caller_is_requester(p_request)
         and not coalesce(app_hidden.current_agent_id() is null and app_hidden.caller_role() in ('OWNER', 'ADMIN'), false)
      then 'own_request'
    when p_request.source_type = 'execution-plan' and app_hidden.caller_works_in_plan(p_request.source_id)
      then 'own_plan' end
$$;
comment on function app_hidden.action_request_self_decision(p_request app_public.action_requests) is 'Why the calling key may not decide this request though it may otherwise: own_request (it asked for it and is not a workspace OWNER/ADMIN person; it may withdraw it) or own_plan (an agent working in the plan a plan approval is about); NULL when neither.';
grant execute on function app_hidden.action_request_self_decision(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_source_visible(p_type text, p_id uuid)
 returns boolean
 language plpgsql
 stable
as $$
begin
  -- Under the caller's policies: a record of another workspace, or one the key's narrowing hides, is not there.
  -- One statement per type (plpgsql, plans kept): a CASE over seven EXISTS would plan all seven, policies included.
  case p_type
    when 'issue' then return exists (select 1 from app_public.issues i where i.id = p_id and i.deleted_at is null);
    when 'comment' then return exists (select 1 from app_public.comments c where c.id = p_id);
    when 'goal' then return exists (select 1 from app_public.goals g where g.id = p_id);
    when 'execution-plan' then return exists (select 1 from app_public.execution_plans p where p.id = p_id);
    when 'execution-step' then return exists (select 1 from app_public.execution_steps s where s.id = p_id);
    when 'agent-run' then return exists (select 1 from app_public.agent_runs r where r.id = p_id);
    when 'action-request' then return exists (select 1 from app_public.action_requests a where a.id = p_id);
    else return true;
  end case;
end
$$;
comment on function app_hidden.action_request_source_visible(p_type text, p_id uuid) is 'Whether an action request''s source of a kind the service keeps (issue, comment, goal, execution-plan, execution-step, agent-run, action-request) is a record the caller can see; any other sourceType is the caller''s own label (true).';
grant execute on function app_hidden.action_request_source_visible(p_type text, p_id uuid) to svc_visitor;

create or replace function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text default ''::text)
 returns app_public.action_requests
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_kind text := coalesce(args->>'kind', 'FREE_FORM');
  v_payload jsonb := coalesce(args->'payload', '{}');
  v_user uuid;
  v_agent uuid;
  v_req app_public.action_requests;
  v_keys text[];
  v_duplicate uuid;
begin
  if v_kind <> 'FREE_FORM' and p_issue_id is null then
    perform app_hidden.raise_invalid(p_field || 'issueId', format('a %s request acts on an issue: give issueId', v_kind));
  end if;
  -- Said plainly before the insert policy refuses it as a bare 403 forbidden.
  if p_issue_id is null then
    perform app_hidden.require_unnarrowed('A request without an issue is the whole workspace''s; give issueId of an issue this key sees');
  end if;
  if v_kind = 'TRANSITION' then
    if not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  elsif v_kind = 'SET_LABELS' then
    if (select count(*) from app_public.labels l where l.workspace_id = v_ws and l.id = any(
          app_hidden.uuid_array(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]'), p_field || 'payload')))
       <> (select count(distinct e) from jsonb_array_elements_text(coalesce(v_payload->'add', '[]') || coalesce(v_payload->'remove', '[]')) e) then
      raise exception 'Label not found' using errcode = 'SV404', column = p_field || 'payload';
    end if;
  elsif v_kind = 'ASSIGN_AGENT' then
    perform app_hidden.find_live_agent(v_payload->>'agentId', p_field || 'payload.agentId');
  elsif v_kind = 'CLOSE_AS_DUPLICATE' then
    v_duplicate := (app_hidden.find_issue(v_payload->>'duplicateOfIssueId', p_field || 'payload.duplicateOfIssueId')).id;
    if v_duplicate = p_issue_id then
      perform app_hidden.raise_invalid(p_field || 'payload.duplicateOfIssueId', 'an issue cannot duplicate itself');
    end if;
    -- Stored as the issue's id, however it was named: readers show it through with_visible_issue.
    v_payload := jsonb_set(v_payload, '{duplicateOfIssueId}', to_jsonb(v_duplicate));
    if v_payload->>'statusId' is not null and not exists (select 1 from app_public.statuses s where s.workspace_id = v_ws
                   and s.id = app_hidden.parse_uuid(v_payload->>'statusId', p_field || 'payload.statusId')) then
      raise exception 'Status not found' using errcode = 'SV404', column = p_field || 'payload.statusId';
    end if;
  end if;
  if args->>'assignedUserId' is not null then
    select m.user_id into v_user from app_public.memberships m
    where m.workspace_id = v_ws and m.user_id = app_hidden.parse_uuid(args->>'assignedUserId', p_field || 'assignedUserId');
    if v_user is null then
      raise exception 'User not found in this workspace' using errcode = 'SV404', column = p_field || 'assignedUserId';
    end if;
  end if;
  if args->>'assignedAgentId' is not null then
    v_agent := (app_hidden.find_live_agent(args->>'assignedAgentId', p_field || 'assignedAgentId')).id;
  end if;
  if args->'options' is not null and jsonb_typeof(args->'options') = 'array' then
    select array_agg(o->>'key') into v_keys from jsonb_array_elements(args->'options') o;
    if cardinality(v_keys) <> (select count(distinct k) from unnest(v_keys) k) then
      perform app_hidden.raise_invalid(p_field || 'options', 'option keys must be unique');
    end if;
  end if;
  -- A source of a kind this service keeps must be one the key can see (404 otherwise, as for every id); other
  -- sourceTypes are the caller's own labels and their sourceId is kept as given.
  if args->>'sourceId' is not null and not app_hidden.action_request_source_visible(
       args->>'sourceType', app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId')) then
    raise exception 'Source not found' using errcode = 'SV404', column = p_field || 'sourceId';
  end if;
  insert into app_public.action_requests (workspace_id, title, body, severity, kind, payload, assigned_user_id, assigned_agent_id,
                                          issue_id, comment_id, due_at, source_type, source_id, options,
                                          requested_by_user_id, requested_by_agent_id)
  values (v_ws, args->>'title', args->>'body', coalesce(args->>'severity', 'INFO'), v_kind, v_payload, v_user, v_agent,
          p_issue_id, p_comment_id, (args->>'dueAt')::timestamptz, args->>'sourceType',
          app_hidden.parse_uuid(args->>'sourceId', p_field || 'sourceId'),
          case when jsonb_typeof(args->'options') = 'array' then args->'options' end,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_req;  -- ISSUE_UPDATED (action-request, change created) by trigger
  return v_req;
end
$$;
comment on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) is 'Creates an action request (actionRequests.create, comments.create''s actionRequest bundle): checks the bound dispatch''s payload refers to real statuses, labels, agents and issues, the assignee is a member or agent, option keys are unique. The caller is the requester.';
grant execute on function app_hidden.action_request_insert(args jsonb, p_issue_id uuid, p_comment_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.action_request_dispatch(p_request app_public.action_requests)
 returns jsonb
 language plpgsql
as $$
declare
  v_payload jsonb := p_request.payload;
  v_issue app_public.issues;
  v_agent app_public.agents;
  v_dup app_public.issues;
  v_remove uuid[];
  v_status uuid;
  v_plan app_public.execution_plans;
begin
  if p_request.kind = 'FREE_FORM' then
    if p_request.source_type = 'execution-plan' and p_request.source_id is not null then
      v_plan := app_hidden.find_plan(p_request.source_id::text, 'id');
      -- Only the plan's own approval request (plans.requestApproval) starts it: any card may name a plan as its
      -- source, and accepting one titled "FYI" must not set workers going.
      if v_plan.approval_request_id = p_request.id then
        return jsonb_build_object('action', 'activate_plan', 'planId', v_plan.id,
                                  'readyStepIds', to_jsonb(app_hidden.plan_activate(v_plan)));
      end if;
    end if;
    return jsonb_build_object('action', 'none');
  end if;
  if p_request.kind = 'CLOSE_AS_DUPLICATE' then
    -- relations.add below takes this lock; taken after the issue's row lock it could deadlock with a concurrent
    -- relations.add that holds it and waits on that row (its foreign-key check).
    perform app_hidden.lock_directed_relations('DUPLICATES');
  end if;
  -- The same entry as the direct issue tools: visibility, row lock and run-mode gating.
  v_issue := app_hidden.issue_for_write(p_request.issue_id::text, 'issueId');
  -- What the payload names and was deleted since is a 404 on the payload's own field, as for CLOSE_AS_DUPLICATE's
  -- issue and ASSIGN_AGENT's agent (the direct tools below would name their own inputs, statusId and labelIds,
  -- which accept does not take).
  if p_request.kind in ('TRANSITION', 'CLOSE_AS_DUPLICATE') and v_payload->>'statusId' is not null
     and not exists (select 1 from app_public.statuses s
                     where s.workspace_id = v_issue.workspace_id and s.id = (v_payload->>'statusId')::uuid) then
    raise exception 'Status not found' using errcode = 'SV404', column = 'payload.statusId';
  elsif p_request.kind = 'SET_LABELS' and exists (
          select 1 from jsonb_array_elements_text(coalesce(v_payload->'add', '[]')) x(id)
          where not exists (select 1 from app_public.labels l where l.workspace_id = v_issue.workspace_id and l.id = x.id::uuid)) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'payload.add';
  end if;
  if p_request.kind = 'TRANSITION' then
    v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_payload->>'statusId'));
    return jsonb_build_object('action', 'transition', 'issueId', v_issue.id, 'statusId', v_issue.status_id);
  elsif p_request.kind = 'SET_LABELS' then
    perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(v_payload->'add', 'payload.add'), null);
    v_remove := app_hidden.uuid_array(v_payload->'remove', 'payload.remove');
    delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'set_labels', 'issueId', v_issue.id,
      'labelIds', to_jsonb(v_issue.label_ids));
  elsif p_request.kind = 'ASSIGN_AGENT' then
    v_agent := app_hidden.find_live_agent(v_payload->>'agentId', 'payload.agentId');
    if not (v_issue.assigned_agent_id is not distinct from v_agent.id and exists (
          select 1 from app_public.agent_runs r where r.issue_id = v_issue.id and r.agent_id = v_agent.id
            and r.status in ('ACTIVE', 'WAITING', 'STALLED'))) then
      perform app_hidden.assign_issue_agent(v_issue, v_agent, 'EXECUTE', 'manual');
    end if;
    v_issue := app_hidden.issue_after_write(v_issue.id);
    return jsonb_build_object('action', 'assign_agent', 'issueId', v_issue.id, 'agentId', v_agent.id);
  elsif p_request.kind = 'CLOSE_AS_DUPLICATE' then
    v_dup := app_hidden.find_issue(v_payload->>'duplicateOfIssueId', 'payload.duplicateOfIssueId');
    perform app_tools.relations_add(jsonb_build_object('fromIssueId', v_issue.id, 'toIssueId', v_dup.id, 'kind', 'DUPLICATES'));
    v_status := coalesce((v_payload->>'statusId')::uuid, (
      select s.id from app_public.statuses s where s.workspace_id = v_issue.workspace_id and s.category = 'CANCELED'
      order by s.position limit 1));
    if v_status is not null then
      v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status));
    end if;
    return jsonb_build_object('action', 'close_as_duplicate', 'issueId', v_issue.id, 'duplicateOfIssueId', v_dup.id,
                              'statusId', v_issue.status_id);
  end if;
  return jsonb_build_object('action', 'none');
end
$$;
comment on function app_hidden.action_request_dispatch(p_request app_public.action_requests) is 'The bound dispatch run by accept, through the same SQL and gates as the direct tools (issue_for_write: visibility, lock, run-mode gating; update_issue, set_issue_labels, assign_issue_agent, relations.add): TRANSITION {statusId}, SET_LABELS {add, remove}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId? (default the first CANCELED status)}; FREE_FORM: a plan''s own approval request (plans.requestApproval, execution_plans.approval_request_id) activates the plan; any other does nothing. A status or label (to add) of the payload deleted since is a 404 naming payload.statusId / payload.add; an archived agent is 400 agent_archived on payload.agentId, as issues.assign answers.';
grant execute on function app_hidden.action_request_dispatch(p_request app_public.action_requests) to svc_visitor;

create or replace function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text)
 returns void
 language plpgsql
 stable
as $$
declare v_self text;
begin
  -- Who decides (accept, decline, transition): action_request_may_decide, and the requester where p_requester_may.
  if not (app_hidden.action_request_may_decide(p_request)
          or (coalesce(p_requester_may, false) and app_hidden.action_request_caller_is_requester(p_request))) then
    raise exception '%', p_refusal using errcode = 'SV403', detail = 'not_allowed';
  end if;
  -- Withdrawing (p_requester_may) is the requester's own right; deciding is not (action_request_self_decision).
  v_self := case when not coalesce(p_requester_may, false) then app_hidden.action_request_self_decision(p_request) end;
  if v_self = 'own_request' then
    raise exception 'The requester of this request may not decide it; it may withdraw it (actionRequests.transition DISMISSED)'
      using errcode = 'SV403', detail = 'own_request';
  elsif v_self = 'own_plan' then
    raise exception 'An agent working in this plan does not decide its approval: a person (or another agent) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
  -- Spec 3.2: deciding a request on an issue is an issue-state mutation for an agent in a gated run.
  if p_request.issue_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(p_request.issue_id);
  end if;
end
$$;
comment on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) is 'The gate of accept, decline and transition: 403 not_allowed (message p_refusal) unless the caller may decide the request (action_request_may_decide) or, with p_requester_may, is its requester; 403 own_request for its requester deciding it (unless p_requester_may, or an OWNER/ADMIN person); 403 own_plan for an agent working in the plan a plan approval is about; 403 run_mode_gated for an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue.';
grant execute on function app_hidden.action_request_assert_may_act(p_request app_public.action_requests, p_requester_may boolean, p_refusal text) to svc_visitor;

create or replace function app_hidden.action_request_for_decision(p_id text, p_verb text)
 returns app_public.action_requests
 language plpgsql
as $$
declare v app_public.action_requests := app_hidden.find_action_request(p_id, 'id', true);
begin
  if v.status not in ('OPEN', 'SNOOZED') then
    raise exception 'Action request is %; it can no longer be %', v.status, p_verb using errcode = 'SV409', detail = 'illegal_transition';
  end if;
  perform app_hidden.action_request_assert_may_act(v, false,
    'Only the assignee, a watcher of its issue, or a workspace OWNER/ADMIN may decide this request');
  return v;
end
$$;
comment on function app_hidden.action_request_for_decision(p_id text, p_verb text) is 'accept/decline: the request, locked, still open (409 otherwise), decidable by the caller (403 not_allowed otherwise) and not by an agent whose RESEARCH/REVIEW/DISCUSS run is on its issue (403 run_mode_gated).';
grant execute on function app_hidden.action_request_for_decision(p_id text, p_verb text) to svc_visitor;
--! EndIncluded actionRequests/machine.sql
