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
  if not found then
    -- Already a member: a role change, with set_member_role's guard (the last OWNER is not demoted).
    perform app_private.set_member_role(p_workspace_id, v_user.id, p_role);
  end if;
  delete from app_public.former_members where workspace_id = p_workspace_id and user_id = v_user.id;
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
  -- The domain's labels: none empty (owner@a.test. made a second person beside owner@a.test).
  if p_email !~ '^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*$' then
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
  -- Before the membership row, in the order webhook changes take them (the registrations' lock, then the member's
  -- row): their webhooks are stopped below.
  perform app_private.lock_webhook_registrations(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner', column = 'userId';
  end if;
  -- The membership goes first: its delete waits for their claims, timers, watches and keys being written (they hold it
  -- in share mode: hold_membership), and each statement below then sees what those wrote.
  delete from app_public.memberships where id = v_m.id;
  -- A former member's keys for this workspace stop working at once, and so do the plugin keys they issued (those act
  -- for no user, and nothing else would end them).
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and (user_id = p_user_id or issued_by_user_id = p_user_id) and revoked_at is null;
  -- What only they could end ends with them: their claims (released, ISSUE_UPDATED each; others waited for them to
  -- expire and could not release them), their running timer (stopped, as time.stop; time entries write no event) and
  -- their watches. Requests assigned to them go back to no one (ISSUE_UPDATED each, as actionRequests.update), where
  -- a moderator can re-point them: a request could not be assigned to a non-member.
  update app_public.issues set claimed_by_id = null, claim_expires_at = null
  where workspace_id = p_workspace_id and claimed_by_id = p_user_id;
  perform app_private.stop_running_timers(p_workspace_id, p_user_id => p_user_id);
  delete from app_public.issue_watchers where workspace_id = p_workspace_id and user_id = p_user_id;
  for v_req in update app_public.action_requests set assigned_user_id = null
               where workspace_id = p_workspace_id and assigned_user_id = p_user_id returning * loop
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
      'actionRequestId', v_req.id, 'issueId', v_req.issue_id, 'change', 'updated', 'changes', jsonb_build_array('assignedUserId'),
      'assignedUserId', null, 'assignedAgentId', v_req.assigned_agent_id, 'reason', 'member_removed'));
  end loop;
  -- The webhooks that are theirs (registered, re-pointed or re-keyed by them) stop (an admin may turn them back on):
  -- a person who left kept receiving the workspace's events, titles and all, at an address of their choosing. Under
  -- the registrations' lock (taken above), so a re-pointing of theirs in flight is seen, or waits and finds them gone.
  perform app_private.webhook_deactivate(w.id, 'its owner left the workspace')
  from app_public.webhooks w where w.workspace_id = p_workspace_id and w.owner_user_id = p_user_id and w.active;
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace (the plugin keys they issued too), releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, stops the webhooks that are theirs (owner_user_id), and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

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
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner', column = 'role';
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
comment on function app_public.members_add(email text, role app_public.membership_role) is '@arg email The person''s email address; the user is created if new (no invitation is sent).
@arg role OWNER, ADMIN or MEMBER (default); only an OWNER may add an OWNER.
@result The new membership.
OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';
grant execute on function app_public.members_add(email text, role app_public.membership_role) to svc_visitor;

create or replace function app_public.members_remove(user_id uuid)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(user_id uuid) is '@arg userId The member to remove.
@result The removed membership, as it was.
OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';
grant execute on function app_public.members_remove(user_id uuid) to svc_visitor;

create or replace function app_public.members_set_role(user_id uuid, role app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(user_id uuid, role app_public.membership_role) is '@arg userId The member.
@arg role The new role; only an OWNER may grant or take away OWNER, and the last OWNER stays one.
@result The membership with its new role.
OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';
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
