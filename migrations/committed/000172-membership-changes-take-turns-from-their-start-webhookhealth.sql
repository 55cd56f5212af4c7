--! Previous: sha1:467585d255cc847c96e8f05ec0443e5334e9a81a
--! Hash: sha1:1cedaae0cbc60e3a3353a1ff9118d6ef8c8993a3
--! Message: Membership changes take turns from their start; webhookHealth checks as webhooks do; pinsReorder numbers all

--! split: 1-current.sql
-- From a re-probe of this session's changes: membership changes take turns from their start (lock_owners before
-- the caller's right is checked against the member's role): an ADMIN removed or demoted an OWNER promoted a moment
-- before, and two membersAdd of one new email both answered 200, the second changing the role unchecked
-- (409 already_member now). webhookHealth checks as every webhook procedure does (the ADMIN scope included).
-- pinsReorder with some pins puts them first and numbers all 0..n-1 (a partial list left two pins at 0).
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
  v_caller app_private.caller;
  v_result jsonb;
begin
  -- Membership changes of a workspace take turns (lock_owners), and each decides on what the one before left:
  -- two adds of one new email both answered 200, the second changing the first's role unchecked.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  perform app_private.check_membership_change(v_caller, null, p_role);
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
declare
  v_caller app_private.caller;
  v_m app_public.memberships;
begin
  -- After the lock, the caller's right is checked against the member's role as it is now: an ADMIN removed an OWNER
  -- promoted a moment before, having read the member's role before the promotion committed.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  v_m := app_private.find_membership(v_caller.workspace_id, p_user_id);
  perform app_private.check_membership_change(v_caller, v_m.role, null);
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
declare
  v_caller app_private.caller;
  v_m app_public.memberships;
begin
  -- As members_remove: the lock first, then the caller's right against the member's role as it is now.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  v_m := app_private.find_membership(v_caller.workspace_id, p_user_id);
  perform app_private.check_membership_change(v_caller, v_m.role, p_role);
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
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text)
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_private.require_admin(p_caller);
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if (p_old_role = 'OWNER' or p_new_role = 'OWNER') and p_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
end
$$;
comment on function app_private.check_membership_change(p_caller app_private.caller, p_old_role text, p_new_role text) is 'OWNER/ADMIN may manage members with an unnarrowed key (403 narrowing); only an OWNER may touch the OWNER role (403 owner_required).';

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
declare v_m app_public.memberships;
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
  delete from app_public.memberships where id = v_m.id;
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger) and revokes their keys in the workspace; the last OWNER stays (409 last_owner).';

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
        and e.kind in ('ISSUE_QUEUED', 'AGENT_ASSIGNED', 'AGENT_NOACK', 'ISSUE_STALLED') and e.created_at >= v_since
      group by 1) c on c.n = b.n));
end
$$;
comment on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) is 'Dispatch analytics (READ_ANALYTICS): per bucket of bucketMinutes (default 60, 5 to 1440, at most 500 buckets; buckets start on the clock, the first holding the window''s start) over the last sinceHours (default 24), oldest first, empty buckets included: issues queued, assignments (and the automatic ones), AGENT_NOACK and ISSUE_STALLED alerts. In-app only (spec 4.14).';
grant execute on function app_public.dispatch_timeseries(since_hours integer, bucket_minutes integer) to svc_visitor;
--! EndIncluded analytics/dashboards.sql
--! Included pins/pins.sql
-- pins: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.pins_json()
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(jsonb_build_object('issueId', i.id, 'position', p.position, 'pinnedAt', p.created_at,
                                               'issue', app_hidden.issue_json(i))
                            order by p.position, p.created_at, p.id), '[]')
  from app_public.pins p
  join app_public.issues i on i.id = p.target_id and i.deleted_at is null
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
    and p.target_type = 'ISSUE'
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see).';
grant execute on function app_hidden.pins_json() to svc_visitor;

create or replace function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer default NULL::integer)
 returns app_public.pins
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
  v_count integer;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if target_id is null then
    perform app_hidden.raise_invalid('targetId', 'required');
  end if;
  -- The target must be visible to the caller (RLS: workspace and narrowing). Saved views have no
  -- table yet, so their ids are taken as given.
  if (target_type = 'PROJECT' and not exists (select 1 from app_public.projects p where p.id = target_id))
     or (target_type = 'INITIATIVE' and not exists (select 1 from app_public.initiatives i where i.id = target_id))
     or (target_type = 'CYCLE' and not exists (select 1 from app_public.cycles c where c.id = target_id))
     or (target_type = 'AGENT' and not exists (select 1 from app_public.agents a where a.id = target_id)) then
    raise exception '% not found', initcap(target_type::text) using errcode = 'SV404', column = 'targetId';
  end if;
  select * into v_pin from app_public.pins p
  where p.workspace_id = v_ws and p.user_id = v_user and p.target_type = pins_add.target_type::text and p.target_id = pins_add.target_id;
  if v_pin.id is not null then
    return v_pin;  -- already pinned
  end if;
  -- Positions stay 0..n-1 (as dispatch rules'): atPosition 0 is first, n (or none) last; later pins move down. Any
  -- other value was stored as given (-3, or 2^31-1, after which appending overflowed the integer).
  v_count := (select count(*) from app_public.pins p where p.workspace_id = v_ws and p.user_id = v_user);
  if at_position is not null and (at_position < 0 or at_position > v_count) then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  if at_position is not null then
    update app_public.pins p set position = p.position + 1
    where p.workspace_id = v_ws and p.user_id = v_user and p.position >= at_position;
  end if;
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) is 'Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition (0 = first, 0 to the number of pins) is given, later pins moving down.';
grant execute on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) to svc_visitor;

create or replace function app_public.pins_agent(p app_public.pins)
 returns app_public.agents
 language sql
 stable
as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(p app_public.pins) is 'The pinned agent (AGENT pins).';
grant execute on function app_public.pins_agent(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_cycle(p app_public.pins)
 returns app_public.cycles
 language sql
 stable
as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(p app_public.pins) is 'The pinned cycle (CYCLE pins).';
grant execute on function app_public.pins_cycle(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_initiative(p app_public.pins)
 returns app_public.initiatives
 language sql
 stable
as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(p app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
grant execute on function app_public.pins_initiative(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_project(p app_public.pins)
 returns app_public.projects
 language sql
 stable
as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(p app_public.pins) is 'The pinned project (PROJECT pins).';
grant execute on function app_public.pins_project(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid)
 returns app_public.pins
 language plpgsql
as $$
declare v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  delete from app_public.pins p
  where p.target_type = pins_remove.target_type::text and p.target_id = pins_remove.target_id
    and p.user_id = app_hidden.current_user_id()
  returning * into v_pin;
  if v_pin.id is null then
    raise exception 'Pin not found' using errcode = 'SV404', column = 'targetId';
  end if;
  return v_pin;
end
$$;
comment on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) is 'Unpins an item of yours.';
grant execute on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) to svc_visitor;

create or replace function app_public.pins_reorder(pin_ids uuid[])
 returns setof app_public.pins
 language plpgsql
as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  -- The listed pins first, in their order, then the others in theirs, numbered 0..n-1 (the others kept their
  -- numbers, so a partial list put two pins at 0).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by o.n nulls last, q.position, q.created_at, q.id) as n
        from app_public.pins q
        left join unnest(pin_ids) with ordinality as o(id, n) on o.id = q.id
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()) r
  where p.id = r.id and p.position is distinct from r.n - 1;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(pin_ids uuid[]) is 'Orders your pins: pinIds first, in that order, then the pins not listed in their present order (positions 0..n-1).';
grant execute on function app_public.pins_reorder(pin_ids uuid[]) to svc_visitor;

create or replace function app_hidden.renumber_issue_pins(p_given uuid[])
 returns void
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a narrowed key's pins.set keeps the pins it cannot see, which its RLS hides from it; the caller's own
  -- issue pins become positions 0..n-1 again, the new list's order kept and the others where they stood (a kept pin
  -- before a listed one at the same place).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by q.position, q.target_id = any(p_given), q.created_at, q.id) as n
        from app_public.pins q
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()
          and q.target_type = 'ISSUE') r
  where p.id = r.id and p.position is distinct from r.n - 1
$$;
comment on function app_hidden.renumber_issue_pins(p_given uuid[]) is 'After pins.set: the caller''s issue pins numbered 0..n-1 (those it cannot see included), the listed ones (p_given) in their order, a kept one before a listed one at the same position.';
grant execute on function app_hidden.renumber_issue_pins(p_given uuid[]) to svc_visitor;
--! EndIncluded pins/pins.sql
