--! Previous: sha1:d33ffc5d1ac1a069c330c976e5d5e5a7e1b81130
--! Hash: sha1:5f9970991d7fde0965ee5de7995f7e4843ea26fa
--! Message: Names GraphQL procedures and the CLI write are checked as the tools check them

--! split: 1-current.sql
-- Names and titles that GraphQL's own procedures and the CLI write (agents, capabilities, the workspace's name, chat
-- threads' titles and routes, dispatch rules, keys, plugins) are checked as the tools check them: trimmed, bounded,
-- one line without control or direction-override characters (app_hidden.one_line); they were stored as given (a
-- 100,000-character key name, 10,000 capabilities, a workspace named "\u202eevil").
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.array_distinct(p_values anyarray)
 returns anyarray
 language sql
 immutable parallel safe
as $$
  select coalesce(array_agg(v order by n), p_values[0:-1])
  from (select v, min(n) as n from unnest(p_values) with ordinality u(v, n) group by v) d
$$;
comment on function app_hidden.array_distinct(p_values anyarray) is 'The array without repeats, each value where it first stood (NULL stays NULL; empty stays empty).';
grant execute on function app_hidden.array_distinct(p_values anyarray) to svc_visitor;

create or replace function app_hidden.parse_uuid(p_value text, p_field text)
 returns uuid
 language plpgsql
 immutable
as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(p_value text, p_field text) is 'UUID from tool input, or a 400 naming the field.';
grant execute on function app_hidden.parse_uuid(p_value text, p_field text) to svc_visitor;

-- What the tools' zod `line()` refuses (src/tools/define.ts, NOT_IN_A_LINE), for the writers GraphQL and the CLI reach
-- without the tools' validation: a name an agent or a person reads must not hide a line break or turn text around.
create or replace function app_hidden.one_line(p_value text, p_field text, p_max integer)
 returns text
 language plpgsql
 immutable
as $$
declare v text := btrim(p_value, E' \t\n\r');
begin
  if p_value is null then
    return null;
  elsif v = '' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  elsif length(v) > p_max then
    perform app_hidden.raise_invalid(p_field, format('must be at most %s characters', p_max));
  elsif v ~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]' then
    perform app_hidden.raise_invalid(p_field, 'must be one line of text, without control or direction-override characters');
  end if;
  return v;
end
$$;
comment on function app_hidden.one_line(p_value text, p_field text, p_max integer) is 'A name or title as the tools take it (trimmed, 1 to p_max characters, one line without control or direction-override characters), or a 400 naming the field. NULL stays NULL.';
grant execute on function app_hidden.one_line(p_value text, p_field text, p_max integer) to svc_visitor;

create or replace function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer)
 returns text[]
 language plpgsql
 immutable
as $$
begin
  if p_values is null then
    return null;
  elsif cardinality(p_values) > p_max_items then
    perform app_hidden.raise_invalid(p_field, format('must have at most %s entries', p_max_items));
  end if;
  return array(select app_hidden.one_line(v, p_field || '.' || (n - 1), p_max) from unnest(p_values) with ordinality u(v, n) order by n);
end
$$;
comment on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) is 'At most p_max_items entries, each app_hidden.one_line (the 400 names field.<index>). NULL stays NULL.';
grant execute on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) to svc_visitor;

create or replace function app_hidden.tg__set_updated_at()
 returns trigger
 language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at.';
grant execute on function app_hidden.tg__set_updated_at() to svc_visitor;

create or replace function app_hidden.ts_key(p_ts timestamp with time zone)
 returns text
 language sql
 stable parallel safe
as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(p_ts timestamp with time zone) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';
grant execute on function app_hidden.ts_key(p_ts timestamp with time zone) to svc_visitor;

create or replace function app_hidden.user_today(p_timezone text)
 returns date
 language plpgsql
 stable
as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(p_timezone text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';
grant execute on function app_hidden.user_today(p_timezone text) to svc_visitor;

create or replace function app_hidden.utc_today()
 returns date
 language sql
 stable parallel safe
as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';
grant execute on function app_hidden.utc_today() to svc_visitor;

create or replace function app_hidden.uuid_array(p_value jsonb, p_field text)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- plpgsql: a `language sql` function with a FROM clause is never inlined and was planned again in every
  -- statement that called it (0.15 ms, for every issues.create).
  if p_value is null then
    return '{}';
  end if;
  return (select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
          from jsonb_array_elements_text(p_value) e);
end
$$;
comment on function app_hidden.uuid_array(p_value jsonb, p_field text) is 'uuid[] from a JSON array of strings.';
grant execute on function app_hidden.uuid_array(p_value jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.user_ref_json(p_user_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
  from app_public.users u where u.id = p_user_id
$$;
comment on function app_hidden.user_ref_json(p_user_id uuid) is 'A user as {id, name (email when unnamed), email}; NULL for no user.';
grant execute on function app_hidden.user_ref_json(p_user_id uuid) to svc_visitor;
--! EndIncluded core/util.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
grant execute on function app_public.agents_webhook_url(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    -- The dispatch URL may carry a token: workspace admins only (as runtimes' endpoints), and the operator (svc
    -- admin, no caller).
    'maxConcurrent', a.max_concurrent, 'webhookUrl', app_public.agents_webhook_url(a),
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s own key, the agent''s own keys and the operator (agents_webhook_url; it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.require_agent_manager()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent); else 403 admin_required.';
grant execute on function app_hidden.require_agent_manager() to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN acting as a person (require_agent_manager): delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.update_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
begin
  if p_agent_id is not null then
    return app_hidden.found((select a from app_public.agents a
                             where a.id = app_hidden.parse_uuid(p_agent_id, p_field) and a.workspace_id = app_hidden.current_workspace_id()),
                            'Agent', p_field);
  end if;
  return app_hidden.found((select a from app_public.agents a
                           where a.profile_key = lower(p_profile_key) and a.workspace_id = app_hidden.current_workspace_id()),
                          'Agent', p_field);
end
$$;
comment on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';
grant execute on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text default null)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v app_public.agents := app_hidden.find_agent(p_agent_id, p_profile_key, p_field);
begin
  if v.archived_at is not null then
    raise exception 'Agent % is archived', v.profile_key using errcode = 'SV400', column = p_field, detail = 'agent_archived';
  end if;
  return v;
end
$$;
comment on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) is 'An agent of the caller''s workspace that is not archived, by id (else by profileKey, as find_agent): for what puts an agent to work (issues.assign/reassign, an action request''s assignee or bound assignment, a crew, planner, judge or step). 404 unknown, 400 agent_archived, both naming the field.';
grant execute on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, app_hidden.one_line(p_name, 'name', 200),
          coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'Creates an agent (AGENT_CREATED by trigger).';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;
  exception when foreign_key_violation then
    raise exception 'Agent % still has issues or comments; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent that no issue or comment refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event app_public.activity_events;
  v_agent app_public.agents;
  v_delivery uuid;
begin
  select * into v_event from app_public.activity_events where id = p_event_id;
  if v_event.id is null then
    perform app_hidden.raise_not_found('Event');
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
  end if;
  if v_agent.webhook_url is null or v_agent.archived_at is not null then
    return null; -- no endpoint: the agent sees the event on SSE only
  end if;
  -- A secret exists before the first delivery; the operator reads it with rotate-agent-secret.
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret)
  values (v_agent.id, v_agent.workspace_id, app_private.new_webhook_secret())
  on conflict (agent_id) do nothing;
  insert into app_public.webhook_deliveries (workspace_id, event_id, agent_id, channel)
  values (v_event.workspace_id, v_event.id, v_agent.id, 'agent:dispatch:' || v_agent.id)
  on conflict (agent_id, event_id) do nothing
  returning id into v_delivery;
  if v_delivery is not null then
    perform app_private.enqueue_delivery_job(v_delivery);
  end if;
  return v_delivery;
end
$$;
comment on function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) is 'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

create or replace function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid)
 returns text
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent');
  end if;
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update set secret = excluded.secret, rotated_at = now();
  return v_secret;
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns it (shown once).';

create or replace function app_hidden.lock_live_agent(p_agent_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- FOR SHARE waits for an archive in progress (its row lock is taken after the agent's issues', the order of every
  -- issue write), then sees whether it committed. As the owner: the agents policy lets keys lock only their own agent.
  if (select a.archived_at from app_public.agents a
      where a.id = p_agent_id and a.workspace_id = coalesce(app_hidden.current_workspace_id(), a.workspace_id) for share) is not null then
    raise exception 'The agent is archived' using errcode = 'SV400', detail = 'agent_archived';
  end if;
end
$$;
comment on function app_hidden.lock_live_agent(p_agent_id uuid) is 'Before an assignment: locks the agent FOR SHARE (waiting for an archive in progress) and raises 400 agent_archived if it is archived.';
grant execute on function app_hidden.lock_live_agent(p_agent_id uuid) to svc_visitor;

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  if p_archived then
    -- The lock order of every issue write: its issue first, then the runs and the agent (assign_issue_agent). An
    -- issue assigned meanwhile is found by the statements below (each sees what committed before it).
    perform 1 from app_public.issues i
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
    order by i.id for update;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform set_config('svc.run_end_reason', 'agent_archived', true);
    update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_workspace_id and agent_id = v_agent.id and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'));
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher) and sets it OFFLINE.';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. SKIP LOCKED: an
  -- agent being assigned or heartbeating right now is left for the next sweep.
  perform set_config('svc.agent_status_reason', 'heartbeat_timeout', true);
  for v_agent in
    select a.* from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    where a.status <> 'OFFLINE' and a.archived_at is null
      and coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', v_agent.id, 'agentId', v_agent.id,
      'workspaceId', v_agent.workspace_id, 'lastHeartbeatAt', v_agent.last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  update app_public.agents a set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create or replace function app_public.agents_archive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(agent_id uuid) is 'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is 'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is 'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
grant execute on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.require_own_agent()
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.require_own_agent() is 'The agent linked to the calling key; 403 agent_key_required (no linked agent), agent_forbidden (another workspace) or agent_archived.';
grant execute on function app_hidden.require_own_agent() to svc_visitor;

create or replace function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if p_agent_id is null then
    return null;  -- nobody to deliver to (e.g. a step with no agent yet)
  end if;
  if not exists (select 1 from app_public.activity_events e
                 where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Event');
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included workspace/workspace.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.workspace_json(w app_public.workspaces)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'slug', w.slug, 'key', w.key, 'name', w.name,
    'cycleLengthDays', w.cycle_length_days, 'cycleCooldownDays', w.cycle_cooldown_days,
    'timeTrackingEnabled', w.time_tracking_enabled, 'attachmentQuotaMb', w.attachment_quota_mb,
    'requiredAckSeconds', w.required_ack_seconds, 'autoDispatch', w.auto_dispatch,
    'autoDispatchMode', w.auto_dispatch_mode, 'assignmentSlaMinutes', w.assignment_sla_minutes,
    'agentRunStaleMinutes', w.agent_run_stale_minutes)
$$;
comment on function app_hidden.workspace_json(w app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';
grant execute on function app_hidden.workspace_json(w app_public.workspaces) to svc_visitor;

create or replace function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';
grant execute on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) to svc_visitor;

create or replace function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  v_slug text := trim(both '-' from regexp_replace(lower(p_name), '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409';
  end if;
  if v_slug = '' then v_slug := lower(p_key); end if;
  v_slug := left(v_slug, 50);
  if exists (select 1 from app_public.workspaces where slug = v_slug) then
    v_slug := v_slug || '-' || lower(p_key);
  end if;
  insert into app_public.workspaces (name, key, slug) values (p_name, p_key, v_slug) returning * into v_ws;
  v_user := app_private.ensure_user(p_owner_email);
  insert into app_public.memberships (workspace_id, user_id, role) values (v_ws.id, v_user.id, 'OWNER');
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'owner', jsonb_build_object('id', v_user.id, 'email', v_user.email));
end
$$;
comment on function app_private.create_workspace(p_name text, p_key text, p_owner_email text) is 'Creates a workspace (statuses seeded by trigger) and makes the owner email its OWNER. The operator CLI then issues the owner''s key.';

create or replace function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
as $$
declare v_ws app_public.workspaces;
begin
  update app_public.workspaces w set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), w.name),
    cycle_length_days = coalesce(p_cycle_length_days, w.cycle_length_days),
    cycle_cooldown_days = coalesce(p_cycle_cooldown_days, w.cycle_cooldown_days),
    time_tracking_enabled = coalesce(p_time_tracking_enabled, w.time_tracking_enabled),
    attachment_quota_mb = coalesce(p_attachment_quota_mb, w.attachment_quota_mb),
    required_ack_seconds = coalesce(p_required_ack_seconds, w.required_ack_seconds),
    auto_dispatch = coalesce(p_auto_dispatch, w.auto_dispatch),
    auto_dispatch_mode = coalesce(p_auto_dispatch_mode, w.auto_dispatch_mode),
    assignment_sla_minutes = coalesce(p_assignment_sla_minutes, w.assignment_sla_minutes),
    agent_run_stale_minutes = coalesce(p_agent_run_stale_minutes, w.agent_run_stale_minutes)
  where w.id = p_workspace_id
  returning * into v_ws;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace');
  end if;
  return v_ws;
end
$$;
comment on function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create or replace function app_private.workspace_by_key(p_key text)
 returns app_public.workspaces
 language plpgsql
 stable
as $$
declare v_ws app_public.workspaces;
begin
  select * into v_ws from app_public.workspaces where key = upper(p_key) or slug = lower(p_key) or id::text = p_key;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace');
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by key, slug or id (operator CLI).';

create or replace function app_public.current_workspace()
 returns app_public.workspaces
 language sql
 stable
as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';
grant execute on function app_public.current_workspace() to svc_visitor;

create or replace function app_public.workspace_update_settings(name text default NULL::text, cycle_length_days integer default NULL::integer, cycle_cooldown_days integer default NULL::integer, time_tracking_enabled boolean default NULL::boolean, attachment_quota_mb integer default NULL::integer, required_ack_seconds integer default NULL::integer, auto_dispatch boolean default NULL::boolean, auto_dispatch_mode text default NULL::text, assignment_sla_minutes integer default NULL::integer, agent_run_stale_minutes integer default NULL::integer)
 returns app_public.workspaces
 language sql
as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes)
$$;
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) is 'OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) to svc_visitor;
--! EndIncluded workspace/workspace.sql
--! Included chat/chat.sql
-- chat: shapes, the addressee check, posting messages and the in-app procedures (open a thread, post as a person).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.chat_thread_json(t app_public.chat_threads)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', t.id, 'agentId', t.agent_id,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = t.agent_id),
    'createdByUserId', t.created_by_user_id,
    'createdBy', app_hidden.user_ref_json(t.created_by_user_id),
    'title', t.title, 'issueId', t.issue_id,
    'lastMessageAt', (select max(m.created_at) from app_public.chat_messages m
                      where m.workspace_id = t.workspace_id and m.thread_id = t.id),
    'createdAt', t.created_at, 'updatedAt', t.updated_at)
$$;
comment on function app_hidden.chat_thread_json(t app_public.chat_threads) is 'ChatThread: the addressee agent {id, profileKey, name}, who opened it, title, issueId, lastMessageAt.';
grant execute on function app_hidden.chat_thread_json(t app_public.chat_threads) to svc_visitor;

create or replace function app_hidden.chat_message_json(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', m.id, 'threadId', m.thread_id, 'role', m.role, 'body', m.body,
    -- The issue of a person's context only if the caller may see it (a narrowed agent key may not).
    'contextSnapshot', app_hidden.with_visible_issue(m.context_snapshot, 'issueId'),
    'sourceRunId', m.source_run_id, 'createdAt', m.created_at, 'finalizedDraftId', m.finalized_draft_id,
    'authorUserId', m.author_user_id, 'authorAgentId', m.author_agent_id)
$$;
comment on function app_hidden.chat_message_json(m app_public.chat_messages) is 'ChatMessage (spec 2.12): id, threadId, role, body, contextSnapshot (its issueId null when the caller cannot see that issue), sourceRunId, createdAt, finalizedDraftId (+ author ids).';
grant execute on function app_hidden.chat_message_json(m app_public.chat_messages) to svc_visitor;

-- GraphQL reads the context through the shape's rule, never the raw column (a narrowed key read a hidden issue's id there).
comment on column app_public.chat_messages.context_snapshot is E'@behavior -*\nUSER messages: where the person was ({route, issueId}); read by agent.context.bundle (linkedIssues). GraphQL: ChatMessage.contextSnapshot (app_public.chat_messages_context_snapshot).';

create or replace function app_public.chat_messages_context_snapshot(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.chat_message_json(m)->'contextSnapshot' $$;
comment on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) is 'USER messages: where the person was ({route, issueId}); issueId is null when the key cannot see that issue.';
grant execute on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) to svc_visitor;

create or replace function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text)
 returns bigint
 language plpgsql
 stable
as $$
declare v_seq bigint;
begin
  select m.seq into v_seq from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, p_field) and m.workspace_id = p_thread.workspace_id
    and m.thread_id = p_thread.id;
  if v_seq is null then
    raise exception '% must be the id of a message of this thread', p_field using errcode = 'SV400', column = p_field;
  end if;
  return v_seq;
end
$$;
comment on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) is 'The position (seq) of a message of the thread, for paging from it (chat.getThread before, chat.listMessages cursor); 400 naming the field otherwise.';
grant execute on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) to svc_visitor;

create or replace function app_hidden.chat_thread_issue_visible(p_issue_id uuid)
 returns boolean
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The issues policy's own rule (unrestricted key, or the issue passes the narrowing), asked as the owner so
  -- that definer functions and policies get the same answer. plpgsql: its query is planned once per session.
  return p_issue_id is null or app_hidden.issues_unrestricted() or exists (
    select 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
      and app_hidden.issue_passes_narrowing(i.id, i.project_id));
end
$$;
comment on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) is 'Whether the calling key may see a chat thread tied to this issue (null: a thread without issue, always): threads follow their issue''s narrowing (policy select_as_participant, chat_thread_for_agent).';
grant execute on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.chat_thread_for_agent(p_thread_id text)
 returns app_public.chat_threads
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_thread app_public.chat_threads;
begin
  select * into v_thread from app_public.chat_threads t
  where t.id = app_hidden.parse_uuid(p_thread_id, 'threadId') and t.workspace_id = app_hidden.current_workspace_id();
  -- A thread about an issue outside the key's narrowing is not there for it (as the threads policy says; found
  -- here as the owner, so the same rule is asked explicitly).
  if v_thread.id is null or not app_hidden.chat_thread_issue_visible(v_thread.issue_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if v_thread.agent_id <> v_agent.id then
    raise exception 'This thread is addressed to another agent' using errcode = 'SV403', detail = 'not_addressee';
  end if;
  return v_thread;
end
$$;
comment on function app_hidden.chat_thread_for_agent(p_thread_id text) is 'Addressee gating of the chat tools: the thread (of the caller''s workspace, else 404) must be addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee).';
grant execute on function app_hidden.chat_thread_for_agent(p_thread_id text) to svc_visitor;

create or replace function app_hidden.chat_message_for_agent(p_message_id text)
 returns app_public.chat_messages
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_message app_public.chat_messages;
begin
  perform app_hidden.require_own_agent();  -- a key without an agent hears that first, as in the other chat tools
  -- Found as the owner (RLS would hide another agent's thread as a 404), then gated as chat.getThread gates its
  -- thread: 404 outside the workspace, 403 not_addressee inside it.
  select * into v_message from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, 'id') and m.workspace_id = app_hidden.current_workspace_id();
  if v_message.id is null then
    raise exception 'Message not found' using errcode = 'SV404', column = 'id';
  end if;
  perform app_hidden.chat_thread_for_agent(v_message.thread_id::text);
  return v_message;
end
$$;
comment on function app_hidden.chat_message_for_agent(p_message_id text) is 'Addressee gating of chat.getMessage: the message (of the caller''s workspace, else 404 on id) must be in a thread addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee, as chat_thread_for_agent).';
grant execute on function app_hidden.chat_message_for_agent(p_message_id text) to svc_visitor;

create or replace function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_message app_public.chat_messages;
begin
  if p_source_run_id is not null then
    v_run := app_hidden.find_run(p_source_run_id, 'sourceRunId');
    if v_run.agent_id <> t.agent_id then
      perform app_hidden.raise_invalid('sourceRunId', 'sourceRunId must be a run of this agent');
    end if;
    update app_public.agent_runs set last_event_at = now()
    where id = v_run.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id)
  values (t.workspace_id, t.id, 'AGENT', p_body, v_run.id, app_hidden.current_user_id(), t.agent_id, p_draft_id)
  returning * into v_message;
  perform app_hidden.record_event('CHAT_MESSAGE_POSTED', 'chat-thread', t.id, jsonb_strip_nulls(jsonb_build_object(
    'threadId', t.id, 'messageId', v_message.id, 'agentId', t.agent_id, 'openedByUserId', t.created_by_user_id,
    'role', 'AGENT', 'body', v_message.body, 'sourceRunId', v_message.source_run_id, 'draftId', p_draft_id)));
  return v_message;
end
$$;
comment on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) is 'Persists an AGENT reply in a thread (sourceRunId must be the agent''s run) and writes CHAT_MESSAGE_POSTED (chat-thread: threadId, messageId, agentId, role, body, sourceRunId?, draftId?). Agent replies are not dispatched.';
grant execute on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) to svc_visitor;

create or replace function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb)
 returns void
 language sql
as $$
  select null::void from app_hidden.publish_ephemeral_event('CHAT_MESSAGE_POSTED', 'chat-thread-stream', t.id,
    jsonb_build_object('threadId', t.id, 'agentId', t.agent_id) || p_payload)
$$;
comment on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) is 'Publishes a draft phase (started, delta, finalized) as CHAT_MESSAGE_POSTED on chat-thread-stream: realtime channel only, never stored.';
grant execute on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) to svc_visitor;

create or replace function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb)
 returns app_public.chat_messages
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
  v_context jsonb;
  v_event uuid;
begin
  select * into v_thread from app_public.chat_threads where id = p_thread_id and workspace_id = p_workspace_id;
  if v_thread.id is null then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if p_body is null or btrim(p_body) = '' then
    perform app_hidden.raise_invalid('body', 'body must not be empty');
  end if;
  v_context := jsonb_build_object('route', app_hidden.one_line(p_context->>'route', 'route', 500),
                                  'issueId', coalesce(p_context->>'issueId', v_thread.issue_id::text));
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, context_snapshot, author_user_id)
  values (p_workspace_id, v_thread.id, 'USER', p_body, v_context, p_user_id)
  returning * into v_message;
  v_event := app_private.record_event(p_workspace_id, 'CHAT_MESSAGE_POSTED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'messageId', v_message.id, 'agentId', v_thread.agent_id,
    'openedByUserId', v_thread.created_by_user_id, 'role', 'USER', 'body', v_message.body, 'context', v_context));
  -- Only USER messages reach the agent's dispatch channel (spec 6.3).
  perform app_private.enqueue_agent_dispatch(v_event, v_thread.agent_id);
  return v_message;
end
$$;
comment on function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb) is 'Persists a USER message (contextSnapshot {route, issueId}), writes CHAT_MESSAGE_POSTED (chat-thread, with context) and queues that event to the addressee''s dispatch channel agent:dispatch:<agentId>.';

create or replace function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text default NULL::text, p_issue_id uuid default NULL::uuid, p_message text default NULL::text, p_route text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'agentId', detail = 'agent_archived';
  end if;
  if not exists (select 1 from app_public.memberships m where m.workspace_id = p_workspace_id and m.user_id = p_user_id) then
    raise exception 'Not a member of this workspace' using errcode = 'SV400', column = 'user';
  end if;
  insert into app_public.chat_threads (workspace_id, agent_id, created_by_user_id, title, issue_id)
  values (p_workspace_id, v_agent.id, p_user_id, app_hidden.one_line(nullif(btrim(p_title), ''), 'title', 200), p_issue_id)
  returning * into v_thread;
  if p_message is not null then
    v_message := app_private.chat_post_user_message(p_workspace_id, v_thread.id, p_user_id, p_message,
      jsonb_build_object('route', p_route, 'issueId', p_issue_id));
  end if;
  return jsonb_build_object('thread', jsonb_build_object('id', v_thread.id, 'agentId', v_thread.agent_id),
    'message', case when v_message.id is not null then jsonb_build_object('id', v_message.id) end);
end
$$;
comment on function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'Opens a new thread addressed to an agent (not archived) for a member, optionally with a first USER message. Returns {thread: {id, agentId}, message: {id} | null}. svc admin open-chat and the in-app procedures call it.';

create or replace function app_private.chat_person_caller()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents reply with the chat tools; people post USER messages' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  if v_caller.user_id is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_hidden.require_scope('WRITE_COMMENTS');
  return v_caller;
end
$$;
comment on function app_private.chat_person_caller() is 'The in-app chat procedures act for a person: a key with its own user, no linked agent (403 person_key_required) and WRITE_COMMENTS.';

create or replace function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_open_thread(v_caller.workspace_id, p_agent_id, v_caller.user_id, p_title, p_issue_id,
                                       p_message, p_route)->'thread'->>'id')::uuid;
end
$$;
comment on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'A person opens a thread with an agent of their workspace (app_private.chat_open_thread); returns the thread id.';
grant execute on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) to svc_visitor;

create or replace function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_post_user_message(v_caller.workspace_id, p_thread_id, v_caller.user_id, p_body,
    jsonb_build_object('route', p_route, 'issueId', p_issue_id))).id;
end
$$;
comment on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) is 'A person posts a USER message (app_private.chat_post_user_message); the caller checked that the thread is theirs to see.';
grant execute on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) to svc_visitor;

create or replace function app_public.chat_open_thread(agent_id uuid, message text default NULL::text, title text default NULL::text, issue_id uuid default NULL::uuid, route text default NULL::text)
 returns app_public.chat_threads
 language plpgsql
as $$
declare
  v_issue uuid;
  v_thread uuid;
begin
  if chat_open_thread.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_open_thread.issue_id::text, 'issueId')).id;  -- visible to this key, else 404
  end if;
  v_thread := app_hidden.chat_open_thread(chat_open_thread.agent_id, chat_open_thread.title, v_issue,
                                          chat_open_thread.message, chat_open_thread.route);
  return (select t from app_public.chat_threads t where t.id = v_thread);
end
$$;
comment on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) is 'Opens a chat thread addressed to an agent, optionally with a first USER message (which is dispatched to the agent). issueId (visible to the key) and route are the context of the message. Needs a person''s key with WRITE_COMMENTS. Emits CHAT_MESSAGE_POSTED for the message.';
grant execute on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) to svc_visitor;

create or replace function app_public.chat_post_message(thread_id uuid, body text, route text default NULL::text, issue_id uuid default NULL::uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_issue uuid;
  v_message uuid;
begin
  if not exists (select 1 from app_public.chat_threads t where t.id = chat_post_message.thread_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if chat_post_message.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_post_message.issue_id::text, 'issueId')).id;
  end if;
  v_message := app_hidden.chat_post_user_message(chat_post_message.thread_id, chat_post_message.body,
                                                 chat_post_message.route, v_issue);
  return (select m from app_public.chat_messages m where m.id = v_message);
end
$$;
comment on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) is 'Posts a USER message in a thread the caller opened (or, for workspace admins, any thread); it is dispatched to the addressee agent (agent:dispatch:<agentId>). route and issueId are stored as the message''s context. Emits CHAT_MESSAGE_POSTED.';
grant execute on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) to svc_visitor;
--! EndIncluded chat/chat.sql
--! Included auth/keys.sql
-- auth: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text)
 returns app_public.issued_api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
  v_scopes text[] := coalesce(p_scopes, v_caller.scopes);
  v_projects uuid[] := coalesce(p_project_ids, '{}');
  v_labels uuid[] := coalesce(p_label_ids, '{}');
  v_initiatives uuid[] := coalesce(p_initiative_ids, '{}');
  v_expires timestamptz := p_expires_at;
begin
  if v_caller.user_id is null then
    raise exception 'Plugin keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  -- An agent's key cannot shed its agent identity (and its run-mode gating) by minting a user key.
  if exists (select 1 from app_private.api_keys k where k.id = v_caller.key_id and k.linked_agent_id is not null) then
    raise exception 'Agent keys cannot create keys' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  if v_kind = 'AGENT' or p_linked_agent_id is not null then
    -- A key that acts as an agent is workspace administration.
    perform app_private.require_admin(v_caller);
  end if;
  perform app_private.require_scopes_within(v_caller, v_scopes);
  -- Narrowing can only shrink: a narrowed caller's key inherits its narrowing, or a subset of it.
  if (cardinality(v_caller.project_ids) > 0 or cardinality(v_caller.label_ids) > 0)
     and cardinality(v_projects) = 0 and cardinality(v_labels) = 0 then
    v_projects := v_caller.project_ids;
    v_labels := v_caller.label_ids;
  end if;
  if cardinality(v_caller.initiative_ids) > 0 and cardinality(v_initiatives) = 0 then
    v_initiatives := v_caller.initiative_ids;
  end if;
  if not app_private.narrowing_within(v_caller, v_projects, v_labels, v_initiatives) then
    raise exception 'A narrowed key can only create keys within its own narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  -- A key never outlives the key that created it.
  if v_caller.expires_at is not null then
    v_expires := least(coalesce(v_expires, v_caller.expires_at), v_caller.expires_at);
  end if;
  -- A person's own keys are bounded: each key has its own rate limit and event-stream places, which unbounded keys
  -- would make meaningless (an outside probe minted 200 in one GraphQL request). Counted one mint at a time.
  if p_linked_agent_id is null then
    perform pg_advisory_xact_lock(hashtextextended('svc.keys:' || v_caller.workspace_id || ':' || v_caller.user_id, 0));
    if (select count(*) from app_private.api_keys k
        where k.workspace_id = v_caller.workspace_id and k.user_id = v_caller.user_id and k.linked_agent_id is null
          and k.plugin_id is null and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) >= 50 then
      raise exception 'You hold 50 live keys in this workspace, the most one person may; revoke one first'
        using errcode = 'SV409', detail = 'too_many_keys';
    end if;
  end if;
  return app_private.issue_api_key(v_caller.workspace_id, v_caller.user_id, v_kind, p_linked_agent_id, v_scopes,
    v_projects, v_labels, v_initiatives, v_expires, p_name, null);
end
$$;
comment on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) is 'Issues a key owned by the caller''s user: kind inferred (AGENT with a linked agent, else PERSONAL); AGENT keys need OWNER/ADMIN; scopes default to and must stay within the caller''s; narrowing inherited or narrower; never outlives the caller''s key; at most 50 live keys of one person (not linked to an agent) per workspace (409 too_many_keys).';
grant execute on function app_hidden.access_create_key(p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text) to svc_visitor;

create or replace function app_hidden.access_keys()
 returns setof app_public.api_key
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with c as (select * from app_private.current_caller())
  select app_private.api_key_info(k, c.key_id)
  from app_private.api_keys k, c
  where k.workspace_id = c.workspace_id
    and (k.id = c.key_id
         or (c.user_id is not null and k.user_id = c.user_id)
         or (c.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(c.scopes) or 'FULL' = any(c.scopes))))
  order by k.created_at desc, k.id
$$;
comment on function app_hidden.access_keys() is 'Keys the caller may see: its user''s own keys (and itself); every key of the workspace for OWNER/ADMIN with the ADMIN scope.';
grant execute on function app_hidden.access_keys() to svc_visitor;

create or replace function app_hidden.access_revoke(p_key_id uuid)
 returns app_public.api_key
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
  v_key app_private.api_keys;
  v_admin boolean := v_caller.role in ('OWNER', 'ADMIN') and ('ADMIN' = any(v_caller.scopes) or 'FULL' = any(v_caller.scopes));
  v_beyond text[];
begin
  select * into v_key from app_private.api_keys k
  where k.id = p_key_id and k.workspace_id = v_caller.workspace_id;
  if v_key.id is null
     or not (v_key.id = v_caller.key_id
             or (v_caller.user_id is not null and v_key.user_id = v_caller.user_id)
             or v_admin) then
    raise exception 'API key not found' using errcode = 'SV404', column = 'keyId';
  end if;
  -- Another of your own keys: only one that does not exceed this key, by the rule access.create applies to a
  -- new key (scopes, narrowing), so a leaked read-only or narrowed key cannot lock its owner out.
  -- A key may always revoke itself; workspace admins (OWNER/ADMIN with the ADMIN scope) any key.
  if v_key.id <> v_caller.key_id and not v_admin then
    v_beyond := app_private.scopes_not_held(v_caller, v_key.scopes);
    if cardinality(v_beyond) > 0 then
      raise exception 'A key cannot revoke a key with scopes it does not hold: %', array_to_string(v_beyond, ', ')
        using errcode = 'SV403', detail = 'scope_escalation';
    end if;
    if not app_private.narrowing_within(v_caller, v_key.project_ids, v_key.label_ids, v_key.initiative_ids) then
      raise exception 'A narrowed key can only revoke keys within its own narrowing'
        using errcode = 'SV403', detail = 'narrowing';
    end if;
  end if;
  -- The update fires the svc_keys NOTIFY; every API process drops its cached copy.
  v_key := app_private.revoke_api_key(v_key.id);
  return app_private.api_key_info(v_key, v_caller.key_id);
end
$$;
comment on function app_hidden.access_revoke(p_key_id uuid) is 'Revokes the calling key itself, or another of its user''s keys that does not exceed it (scopes held, narrowing within, as for access.create: else 403 scope_escalation / narrowing); OWNER/ADMIN with the ADMIN scope: any key of the workspace. Permanent; the key fails with 401 revoked on its next call.';
grant execute on function app_hidden.access_revoke(p_key_id uuid) to svc_visitor;

drop function if exists app_hidden.authenticate(bytea);  -- its row gained agent_archived (000083), workspace_admin (000095)
create or replace function app_hidden.authenticate(p_token_hash bytea)
 returns table(key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone, revoked_at timestamp with time zone, acting_user_id uuid, agent_archived boolean, workspace_admin boolean)
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  select k.id, k.workspace_id, k.user_id, k.kind, k.linked_agent_id, k.scopes,
         k.project_ids, k.label_ids, k.initiative_ids, k.expires_at, k.revoked_at,
         -- plugin keys with no user act as the first workspace member (spec 4.2 issues.create)
         coalesce(k.user_id, (select m.user_id from app_public.memberships m
                              where m.workspace_id = k.workspace_id order by m.created_at, m.id limit 1)),
         -- tools/list leaves out what only a live agent may call (agents.me, heartbeats, chat, run reports)
         (select a.archived_at is not null from app_public.agents a where a.id = k.linked_agent_id),
         -- and what only a workspace OWNER/ADMIN may call (settings, the workflow, webhooks)
         exists (select 1 from app_public.memberships m
                 where m.workspace_id = k.workspace_id and m.user_id = k.user_id and m.role in ('OWNER', 'ADMIN'))
  from app_private.api_keys k
  where k.token_hash = p_token_hash
$$;
comment on function app_hidden.authenticate(p_token_hash bytea) is 'Looks a key up by the SHA-256 of its token, with whether its linked agent is archived and whether its own user is OWNER or ADMIN of the workspace. Returns no row for an unknown hash; the API decides invalid / revoked / expired in that order.';
grant execute on function app_hidden.authenticate(p_token_hash bytea) to svc_visitor;

create or replace function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid)
 returns app_public.api_key
 language sql
 stable
as $$
  select row(k.id, k.name, k.kind::app_public.api_key_kind, k.prefix, k.scopes::app_public.api_key_scope[],
             k.project_ids, k.label_ids, k.initiative_ids, k.user_id, k.linked_agent_id, k.plugin_id,
             k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.id = p_current_key_id)::app_public.api_key
$$;
comment on function app_private.api_key_info(k app_private.api_keys, p_current_key_id uuid) is 'A key row as lists show it (no hash).';

create or replace function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare
  v_key app_private.api_keys;
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
begin
  if p_user_id is not null and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id) then
    perform app_hidden.raise_invalid('user', 'user is not a member of this workspace');
  end if;
  if v_kind = 'AGENT' and p_linked_agent_id is null then
    perform app_hidden.raise_invalid('linkedAgentId', 'an AGENT key needs a linked agent');
  end if;
  if v_kind in ('PERSONAL', 'SESSION') and p_linked_agent_id is not null then
    perform app_hidden.raise_invalid('linkedAgentId', format('a %s key has no linked agent (an AGENT key acts as one)', v_kind));
  end if;
  if v_kind = 'SESSION' and p_expires_at is null then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key needs an expiry');
  end if;
  -- Spec 8: a session lives 1 to 168 hours, whichever path issues it (access.createSession, access.create, the CLI).
  -- A minute of slack for the clock between computing the expiry and this check.
  if v_kind = 'SESSION' and p_expires_at > now() + interval '168 hours 1 minute' then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key expires within 168 hours; use a PERSONAL key to keep access longer');
  end if;
  if p_linked_agent_id is not null and not exists (
    select 1 from app_public.agents where id = p_linked_agent_id and workspace_id = p_workspace_id) then
    perform app_hidden.raise_not_found('Agent');
  end if;
  if exists (select 1 from unnest(p_project_ids) pid
             where not exists (select 1 from app_public.projects p where p.id = pid and p.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('projectIds', 'unknown project in this workspace');
  end if;
  if exists (select 1 from unnest(p_label_ids) lid
             where not exists (select 1 from app_public.labels l where l.id = lid and l.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('labelIds', 'unknown label in this workspace');
  end if;
  if exists (select 1 from unnest(p_initiative_ids) iid
             where not exists (select 1 from app_public.initiatives i where i.id = iid and i.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('initiativeIds', 'unknown initiative in this workspace');
  end if;
  insert into app_private.api_keys (workspace_id, user_id, plugin_id, kind, linked_agent_id, name, scopes,
                                    project_ids, label_ids, initiative_ids, expires_at, token_hash, prefix)
  -- A value given twice is stored once (`--scopes READ_ISSUES,READ_ISSUES`), in the order first given.
  values (p_workspace_id, p_user_id, p_plugin_id, v_kind, p_linked_agent_id, app_hidden.one_line(p_name, 'name', 200), app_hidden.array_distinct(p_scopes),
          app_hidden.array_distinct(coalesce(p_project_ids, '{}')), app_hidden.array_distinct(coalesce(p_label_ids, '{}')),
          app_hidden.array_distinct(coalesce(p_initiative_ids, '{}')),
          p_expires_at, p_token_hash, p_prefix)
  returning * into v_key;
  return v_key;
end
$$;
comment on function app_private.create_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_token_hash bytea, p_prefix text, p_name text, p_plugin_id uuid) is 'Stores a new key (hash and display prefix only; the token is generated by the caller and shown once). Kind is inferred: AGENT with a linked agent, else PERSONAL.';

create or replace function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea)
 returns record
 language plpgsql
as $$
begin
  raw_key := 'svc_sk_' || rtrim(translate(encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'base64'), '+/', '-_'), '=');
  prefix := left(raw_key, 14);
  token_hash := sha256(convert_to(raw_key, 'UTF8'));
end
$$;
comment on function app_private.generate_api_token(OUT raw_key text, OUT prefix text, OUT token_hash bytea) is 'A fresh token svc_sk_<43 base64url chars>, its 14-character display prefix and its SHA-256 (the only part stored).';

create or replace function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text default NULL::text, p_plugin_id uuid default NULL::uuid)
 returns app_public.issued_api_key
 language plpgsql
as $$
declare
  v_token record := app_private.generate_api_token();
  v_key app_private.api_keys;
  v_out app_public.issued_api_key;
begin
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a key needs at least one scope');
  end if;
  if exists (select 1 from unnest(p_scopes) s where s not in (select unnest(enum_range(null::app_public.api_key_scope))::text)) then
    perform app_hidden.raise_invalid('scopes', 'unknown scope');
  end if;
  if p_expires_at is not null and p_expires_at <= now() then
    perform app_hidden.raise_invalid('expiresAt', 'must be in the future');
  end if;
  v_key := app_private.create_api_key(p_workspace_id, p_user_id, p_kind, p_linked_agent_id,
    p_scopes, p_project_ids, p_label_ids, p_initiative_ids,
    p_expires_at, v_token.token_hash, v_token.prefix, p_name, p_plugin_id);
  v_out := row(v_key.id, v_token.raw_key, v_key.prefix, v_key.kind::app_public.api_key_kind,
    v_key.scopes::app_public.api_key_scope[], v_key.project_ids, v_key.label_ids, v_key.initiative_ids,
    v_key.linked_agent_id, v_key.plugin_id, v_key.name, v_key.expires_at, v_key.created_at);
  return v_out;
end
$$;
comment on function app_private.issue_api_key(p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamp with time zone, p_name text, p_plugin_id uuid) is 'Generates a token and stores the key (app_private.create_api_key). The one path for `svc admin create-key`, `create-workspace` and every in-app key procedure.';

create or replace function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[])
 returns text[]
 language sql
 stable
as $$
  select case when 'FULL' = any(p_caller.scopes) then '{}'::text[]
              else array(select s from unnest(p_scopes) s where s <> all(p_caller.scopes)) end
$$;
comment on function app_private.scopes_not_held(p_caller app_private.caller, p_scopes text[]) is 'The scopes of p_scopes the calling key does not hold (none when it holds FULL): the comparison behind "a key never exceeds its creator" (require_scopes_within) and access.revoke.';

create or replace function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[])
 returns boolean
 language sql
 stable
as $$
  select (cardinality(p_caller.project_ids) = 0 and cardinality(p_caller.label_ids) = 0
          or ((cardinality(p_project_ids) > 0 or cardinality(p_label_ids) > 0)
              and p_project_ids <@ p_caller.project_ids and p_label_ids <@ p_caller.label_ids))
     and (cardinality(p_caller.initiative_ids) = 0
          or (cardinality(p_initiative_ids) > 0 and p_initiative_ids <@ p_caller.initiative_ids))
$$;
comment on function app_private.narrowing_within(p_caller app_private.caller, p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]) is 'Whether a key narrowed to these projects/labels/initiatives (empty = unrestricted) sees no more than the calling key: a project/label-narrowed caller needs a narrowed key within its projects and labels, an initiative-narrowed one a key within its initiatives. Used by access.create, pluginIssueApiKey (after inheriting the caller''s narrowing) and access.revoke.';

create or replace function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[])
 returns void
 language plpgsql
 stable
as $$
declare v_extra text[] := app_private.scopes_not_held(p_caller, p_scopes);
begin
  if cardinality(v_extra) > 0 then
    raise exception 'A key cannot grant scopes it does not hold: %', array_to_string(v_extra, ', ')
      using errcode = 'SV403', detail = 'scope_escalation';
  end if;
end
$$;
comment on function app_private.require_scopes_within(p_caller app_private.caller, p_scopes text[]) is 'No escalation: a new key''s scopes must be held by the key creating it (FULL holds all). 403 scope_escalation otherwise.';

create or replace function app_private.revoke_api_key(p_key_id uuid)
 returns app_private.api_keys
 language plpgsql
as $$
declare v_key app_private.api_keys;
begin
  update app_private.api_keys set revoked_at = coalesce(revoked_at, now()) where id = p_key_id returning * into v_key;
  if v_key.id is null then
    perform app_hidden.raise_not_found('API key');
  end if;
  return v_key;
end
$$;
comment on function app_private.revoke_api_key(p_key_id uuid) is 'Revokes a key permanently (revocation cannot be undone).';

create or replace function app_private.touch_api_keys(p_key_ids uuid[])
 returns void
 language sql
as $$
  update app_private.api_keys set last_used_at = now() where id = any(p_key_ids)
$$;
comment on function app_private.touch_api_keys(p_key_ids uuid[]) is 'Best-effort lastUsedAt bump, batched by the API (not one write per call).';

create or replace function app_public.access_create(kind app_public.api_key_kind default NULL::app_public.api_key_kind, linked_agent_id uuid default NULL::uuid, expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if expires_in_days is not null and expires_in_days not between 1 and 3650 then
    perform app_hidden.raise_invalid('expiresInDays', 'must be 1 to 3650');
  end if;
  if kind = 'SESSION' and expires_in_days is null then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key needs an expiry (or use accessCreateSession)');
  end if;
  -- Said here on the field this caller gave (create_api_key checks every path, naming ttlHours).
  if kind = 'SESSION' and expires_in_days > 7 then
    perform app_hidden.raise_invalid('expiresInDays', 'a SESSION key expires within 7 days (168 hours); use a PERSONAL key to keep access longer');
  end if;
  return app_hidden.access_create_key(kind::text, linked_agent_id, scopes::text[], project_ids, label_ids, initiative_ids,
    case when expires_in_days is not null then now() + make_interval(days => expires_in_days) end, name);
end
$$;
comment on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.create: issues a key owned by you. kind is inferred when omitted: AGENT when linkedAgentId is given (needs OWNER/ADMIN), else PERSONAL. scopes default to your key''s scopes and cannot exceed them; expiresInDays 1-3650 (none = no expiry, but never later than your own key''s). The rawKey is returned once.';
grant execute on function app_public.access_create(kind app_public.api_key_kind, linked_agent_id uuid, expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_personal(expires_in_days integer default NULL::integer, scopes app_public.api_key_scope[] default NULL::app_public.api_key_scope[], project_ids uuid[] default NULL::uuid[], label_ids uuid[] default NULL::uuid[], initiative_ids uuid[] default NULL::uuid[], name text default NULL::text)
 returns app_public.issued_api_key
 language sql
as $$
  select app_public.access_create('PERSONAL', null, expires_in_days, scopes, project_ids, label_ids, initiative_ids, name)
$$;
comment on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) is 'access.createPersonal: a PERSONAL key owned by you, with no agent link. The rawKey is returned once.';
grant execute on function app_public.access_create_personal(expires_in_days integer, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], name text) to svc_visitor;

create or replace function app_public.access_create_session(ttl_hours integer default 24, name text default NULL::text)
 returns app_public.issued_api_key
 language plpgsql
as $$
begin
  if coalesce(ttl_hours, 24) not between 1 and 168 then
    perform app_hidden.raise_invalid('ttlHours', 'must be 1 to 168');
  end if;
  return app_hidden.access_create_key('SESSION', null, null, null, null, null,
    now() + make_interval(hours => coalesce(ttl_hours, 24)), name);
end
$$;
comment on function app_public.access_create_session(ttl_hours integer, name text) is 'access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (1-168, default 24). The rawKey is returned once.';
grant execute on function app_public.access_create_session(ttl_hours integer, name text) to svc_visitor;

create or replace function app_public.access_keys()
 returns setof app_public.api_key
 language sql
 stable
as $$ select * from app_hidden.access_keys() $$;
comment on function app_public.access_keys() is 'API keys you may see, newest first: your own; every key of the workspace for OWNER/ADMIN. Display prefix and metadata only.';
grant execute on function app_public.access_keys() to svc_visitor;

create or replace function app_public.access_revoke(key_id uuid)
 returns app_public.api_key
 language sql
as $$ select app_hidden.access_revoke(key_id) $$;
comment on function app_public.access_revoke(key_id uuid) is 'Revokes a key: the calling key itself, another of your keys whose scopes this key holds and whose narrowing is within this key''s (403 scope_escalation / narrowing otherwise), or (OWNER/ADMIN) any key of the workspace. Permanent: its next call fails with 401 revoked.';
grant execute on function app_public.access_revoke(key_id uuid) to svc_visitor;
--! EndIncluded auth/keys.sql
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
  v_allowed := array(select jsonb_array_elements_text(coalesce(v_plugin.manifest->'scopes', '[]')));
  if not 'FULL' = any(v_allowed) then
    v_extra := array(select s from unnest(p_scopes) s where s <> all(v_allowed));
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
comment on function app_hidden.plugins() is 'Plugin records of the caller''s workspace (manifest.scopes only).';
grant execute on function app_hidden.plugins() to svc_visitor;

create or replace function app_hidden.plugins_create(p_name text, p_scopes text[])
 returns app_public.plugin_info
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  return app_private.plugin_info(app_private.create_plugin(v_caller.workspace_id, p_name, p_scopes));
end
$$;
comment on function app_hidden.plugins_create(p_name text, p_scopes text[]) is 'OWNER/ADMIN: records (and approves) a plugin with manifest.scopes.';
grant execute on function app_hidden.plugins_create(p_name text, p_scopes text[]) to svc_visitor;

create or replace function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[])
 returns app_private.plugins
 language plpgsql
as $$
declare v_plugin app_private.plugins;
begin
  if p_name is null then
    perform app_hidden.raise_invalid('name', 'must be 1 to 200 characters');
  end if;
  perform app_hidden.one_line(p_name, 'name', 200);
  if p_scopes is null or cardinality(p_scopes) = 0 then
    perform app_hidden.raise_invalid('scopes', 'a plugin needs at least one scope');
  end if;
  insert into app_private.plugins (workspace_id, name, manifest, approved_at)
  values (p_workspace_id, trim(p_name),
          jsonb_build_object('scopes', to_jsonb(array(
            select s from unnest(p_scopes) with ordinality as u(s, n) group by s order by min(n)))), now())
  returning * into v_plugin;
  return v_plugin;
end
$$;
comment on function app_private.create_plugin(p_workspace_id uuid, p_name text, p_scopes text[]) is 'Records an approved plugin with manifest.scopes.';

create or replace function app_private.plugin_info(p app_private.plugins)
 returns app_public.plugin_info
 language sql
 stable
as $$
  select row(p.id, p.name,
             array(select s::app_public.api_key_scope from jsonb_array_elements_text(coalesce(p.manifest->'scopes', '[]')) s),
             p.approved_at, p.created_at)::app_public.plugin_info
$$;
comment on function app_private.plugin_info(p app_private.plugins) is 'A plugin record as shown: id, name, manifest.scopes, approval.';

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
comment on function app_public.plugins() is 'Plugin records of this workspace (manifest.scopes only).';
grant execute on function app_public.plugins() to svc_visitor;

create or replace function app_public.plugins_create(name text, scopes app_public.api_key_scope[])
 returns app_public.plugin_info
 language sql
as $$ select app_hidden.plugins_create(name, scopes::text[]) $$;
comment on function app_public.plugins_create(name text, scopes app_public.api_key_scope[]) is 'OWNER/ADMIN: records an approved plugin whose manifest.scopes bound the keys issued under it.';
grant execute on function app_public.plugins_create(name text, scopes app_public.api_key_scope[]) to svc_visitor;
--! EndIncluded auth/plugins.sql
--! Included dispatch/rules.sql
-- dispatch: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_priority is not null and p_priority not in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT') then
    perform app_hidden.raise_invalid('priority', 'must be NONE, LOW, MEDIUM, HIGH or URGENT');
  end if;
  if p_target_agent_id is not null and not exists (
       select 1 from app_public.agents where id = p_target_agent_id and workspace_id = p_workspace_id) then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'targetAgentId';
  end if;
  if p_label_id is not null and not exists (
       select 1 from app_public.labels where id = p_label_id and workspace_id = p_workspace_id) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelId';
  end if;
  if p_project_id is not null and not exists (
       select 1 from app_public.projects where id = p_project_id and workspace_id = p_workspace_id) then
    raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
  end if;
end
$$;
comment on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) is 'The priority must be one of the issue priorities; the agent, label and project a rule names must be in the workspace and visible to the caller (for a key, RLS adds its narrowing), else 404 naming the field.';
grant execute on function app_hidden.dispatch_rules_check_refs(p_workspace_id uuid, p_target_agent_id uuid, p_label_id uuid, p_project_id uuid, p_priority text) to svc_visitor;

-- The one place a rule is added: the in-app procedure and the operator's CLI both come here.
create or replace function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_count int;
  v_rule app_public.dispatch_rules;
begin
  perform app_hidden.dispatch_rules_check_refs(p_workspace_id, p_target_agent_id, p_label_id, p_project_id, p_priority);
  -- Two concurrent adds must not take the same position.
  perform pg_advisory_xact_lock(hashtextextended('svc.dispatch_rules:' || p_workspace_id::text, 0));
  select count(*) into v_count from app_public.dispatch_rules r where r.workspace_id = p_workspace_id;
  if p_at_position is not null and p_at_position not between 0 and v_count then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  update app_public.dispatch_rules r set position = r.position + 1
  where r.workspace_id = p_workspace_id and r.position >= coalesce(p_at_position, v_count);
  insert into app_public.dispatch_rules (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled)
  values (p_workspace_id, coalesce(p_at_position, v_count), app_hidden.one_line(p_name, 'name', 200), p_priority, p_label_id, p_project_id,
          p_target_agent_id, coalesce(p_enabled, true))
  returning * into v_rule;
  return v_rule;
end
$$;
comment on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) is 'Adds a dispatch rule to the workspace at p_at_position (0 = first; null = last), moving later rules down; checks what the rule names (dispatch_rules_check_refs).';
grant execute on function app_hidden.dispatch_rules_insert(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text, p_at_position integer, p_enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_create(target_agent_id uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, at_position integer default NULL::integer, enabled boolean default true)
 returns app_public.dispatch_rules
 language plpgsql
as $$
begin
  perform app_hidden.require_workspace_admin_key();
  return app_hidden.dispatch_rules_insert(app_hidden.current_workspace_id(), target_agent_id, priority, label_id,
                                          project_id, name, at_position, enabled);
end
$$;
comment on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) is 'OWNER/ADMIN: adds a dispatch rule sending matching issues to targetAgentId. Conditions priority (NONE, LOW, MEDIUM, HIGH, URGENT), labelId and projectId must all match when set. Appended last unless atPosition (0 = first) is given.';
grant execute on function app_public.dispatch_rules_create(target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, at_position integer, enabled boolean) to svc_visitor;

create or replace function app_public.dispatch_rules_delete(rule_id uuid)
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules;
begin
  perform app_hidden.require_workspace_admin_key();
  delete from app_public.dispatch_rules r where r.id = rule_id returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  update app_public.dispatch_rules r set position = r.position - 1
  where r.workspace_id = v_rule.workspace_id and r.position > v_rule.position;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_delete(rule_id uuid) is 'OWNER/ADMIN: deletes a dispatch rule; the rules after it move up.';
grant execute on function app_public.dispatch_rules_delete(rule_id uuid) to svc_visitor;

create or replace function app_public.dispatch_rules_reorder(rule_ids uuid[])
 returns setof app_public.dispatch_rules
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  perform app_hidden.require_workspace_admin_key();
  if rule_ids is null
     or cardinality(rule_ids) <> (select count(distinct x) from unnest(rule_ids) x)
     or (select array_agg(r.id order by r.id) from app_public.dispatch_rules r where r.workspace_id = v_ws)
        is distinct from (select array_agg(x order by x) from unnest(rule_ids) x) then
    perform app_hidden.raise_invalid('ruleIds', 'must list every dispatch rule of the workspace exactly once');
  end if;
  update app_public.dispatch_rules r set position = o.n - 1
  from unnest(rule_ids) with ordinality as o(id, n)
  where r.id = o.id and r.position <> o.n - 1;
  return query select * from app_public.dispatch_rules r where r.workspace_id = v_ws order by r.position;
end
$$;
comment on function app_public.dispatch_rules_reorder(rule_ids uuid[]) is 'OWNER/ADMIN: sets the order in which rules are tried; ruleIds lists every rule of the workspace exactly once, first first.';
grant execute on function app_public.dispatch_rules_reorder(rule_ids uuid[]) to svc_visitor;

create or replace function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid default NULL::uuid, priority text default NULL::text, label_id uuid default NULL::uuid, project_id uuid default NULL::uuid, name text default NULL::text, enabled boolean default NULL::boolean, clear text[] default '{}'::text[])
 returns app_public.dispatch_rules
 language plpgsql
as $$
declare
  v_rule app_public.dispatch_rules;
  v_clear text[] := coalesce(clear, '{}');
begin
  perform app_hidden.require_workspace_admin_key();
  if not v_clear <@ array['priority', 'labelId', 'projectId', 'name'] then
    perform app_hidden.raise_invalid('clear', 'may name priority, labelId, projectId, name');
  end if;
  perform app_hidden.dispatch_rules_check_refs(app_hidden.current_workspace_id(), target_agent_id, label_id, project_id, priority);
  update app_public.dispatch_rules r set
    target_agent_id = coalesce(dispatch_rules_update.target_agent_id, r.target_agent_id),
    priority = case when 'priority' = any(v_clear) then null else coalesce(dispatch_rules_update.priority, r.priority) end,
    label_id = case when 'labelId' = any(v_clear) then null else coalesce(dispatch_rules_update.label_id, r.label_id) end,
    project_id = case when 'projectId' = any(v_clear) then null else coalesce(dispatch_rules_update.project_id, r.project_id) end,
    name = case when 'name' = any(v_clear) then null else coalesce(app_hidden.one_line(dispatch_rules_update.name, 'name', 200), r.name) end,
    enabled = coalesce(dispatch_rules_update.enabled, r.enabled)
  where r.id = rule_id
  returning * into v_rule;
  if v_rule.id is null then
    raise exception 'Dispatch rule not found' using errcode = 'SV404', column = 'ruleId';
  end if;
  return v_rule;
end
$$;
comment on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged); clear lists conditions to remove (priority, labelId, projectId, name).';
grant execute on function app_public.dispatch_rules_update(rule_id uuid, target_agent_id uuid, priority text, label_id uuid, project_id uuid, name text, enabled boolean, clear text[]) to svc_visitor;

create or replace function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text default NULL::text, p_label_id uuid default NULL::uuid, p_project_id uuid default NULL::uuid, p_name text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare v_rule app_public.dispatch_rules := app_hidden.dispatch_rules_insert(
  p_workspace_id, p_target_agent_id, p_priority, p_label_id, p_project_id, p_name, null, true);
begin
  return jsonb_build_object('id', v_rule.id, 'position', v_rule.position, 'name', v_rule.name,
    'targetAgentId', v_rule.target_agent_id, 'priority', v_rule.priority, 'labelId', v_rule.label_id,
    'projectId', v_rule.project_id, 'enabled', v_rule.enabled, 'createdAt', v_rule.created_at);
end
$$;
comment on function app_private.create_dispatch_rule(p_workspace_id uuid, p_target_agent_id uuid, p_priority text, p_label_id uuid, p_project_id uuid, p_name text) is 'Operator (svc admin create-dispatch-rule): appends a dispatch rule at the end of the workspace''s order; the agent, label and project must belong to that workspace (404 naming the field).';
--! EndIncluded dispatch/rules.sql
