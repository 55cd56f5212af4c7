--! Previous: sha1:25c38bb30ddb89dea09128873207b02fa2b6e37f
--! Hash: sha1:bb14ed6c50cedc8fd034703881bad8d403de08e0
--! Message: A crashed agent's work goes back: offlineReclaimMinutes and the reclaim sweep; unassignReason

--! split: 1-current.sql
-- A crashed agent's work goes back: an agent made OFFLINE by the presence sweep or its keys, silent for the
-- workspace's offlineReclaimMinutes (new setting, default 30, 0 = never), loses its open runs and its unfinished
-- issues (sweep_offline_agents_work, run every minute with the other sweeps). Issue events say why an issue was
-- unassigned (unassignReason).
alter table app_public.workspaces add column if not exists offline_reclaim_minutes int not null default 30
  check (offline_reclaim_minutes >= 0);
comment on column app_public.workspaces.offline_reclaim_minutes is 'Minutes an agent made OFFLINE by a heartbeat timeout or its keys may stay silent before its open runs end and its unfinished issues are unassigned; 0 = never.';

drop function if exists app_public.workspace_update_settings(text, integer, integer, boolean, integer, integer, boolean, text, integer, integer);
drop function if exists app_hidden.workspace_update_settings(text, integer, integer, boolean, integer, integer, boolean, text, integer, integer);
drop function if exists app_private.update_workspace_settings(uuid, text, integer, integer, boolean, integer, integer, boolean, text, integer, integer);

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
    'agentRunStaleMinutes', w.agent_run_stale_minutes, 'offlineReclaimMinutes', w.offline_reclaim_minutes)
$$;
comment on function app_hidden.workspace_json(w app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';
grant execute on function app_hidden.workspace_json(w app_public.workspaces) to svc_visitor;

create or replace function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer, p_offline_reclaim_minutes integer)
 returns app_public.workspaces
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  -- As workspace.updateSettings over MCP: settings rule the whole workspace (GraphQL let a narrowed key set them).
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes, p_offline_reclaim_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer, p_offline_reclaim_minutes integer) is 'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';
grant execute on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer, p_offline_reclaim_minutes integer) to svc_visitor;

create or replace function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  -- Letters with accents keep their base letter ('Équipe Café' is equipe-cafe, not quipe-caf): the name decomposed
  -- (NFKD), its combining marks dropped, and the few letters that do not decompose spelled out.
  v_slug text := trim(both '-' from regexp_replace(
    replace(replace(replace(replace(translate(
      regexp_replace(normalize(lower(p_name), NFKD), '[\u0300-\u036f]', '', 'g'),
      'øłđħı', 'oldhi'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'),
    '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409', column = 'key';
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

create or replace function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer, p_offline_reclaim_minutes integer)
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
    agent_run_stale_minutes = coalesce(p_agent_run_stale_minutes, w.agent_run_stale_minutes),
    offline_reclaim_minutes = coalesce(p_offline_reclaim_minutes, w.offline_reclaim_minutes)
  where w.id = p_workspace_id
  returning * into v_ws;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer, p_offline_reclaim_minutes integer) is 'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create or replace function app_private.workspace_by_key(p_key text)
 returns app_public.workspaces
 language plpgsql
 stable
as $$
declare v_ws app_public.workspaces;
begin
  -- One value may be one workspace's key and another's slug (key ACME, and the slug acme of workspace ENG named
  -- Acme), or a slug spelled as another's id: an id wins, then a key, then a slug. The first row found decided, so
  -- `--workspace ACME` acted on ENG, and which one changed as rows were updated.
  select * into v_ws from app_public.workspaces
  where key = upper(p_key) or slug = lower(p_key) or id::text = lower(p_key)
  order by id::text = lower(p_key) desc, key = upper(p_key) desc
  limit 1;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by id, key or slug (operator CLI), in that order of preference when one value names several.';

create or replace function app_public.current_workspace()
 returns app_public.workspaces
 language sql
 stable
as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';
grant execute on function app_public.current_workspace() to svc_visitor;

create or replace function app_public.workspace_update_settings(name text default NULL::text, cycle_length_days integer default NULL::integer, cycle_cooldown_days integer default NULL::integer, time_tracking_enabled boolean default NULL::boolean, attachment_quota_mb integer default NULL::integer, required_ack_seconds integer default NULL::integer, auto_dispatch boolean default NULL::boolean, auto_dispatch_mode text default NULL::text, assignment_sla_minutes integer default NULL::integer, agent_run_stale_minutes integer default NULL::integer, offline_reclaim_minutes integer default NULL::integer)
 returns app_public.workspaces
 language sql
as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes, offline_reclaim_minutes)
$$;
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer, offline_reclaim_minutes integer) is '@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg cycleLengthDays Default length of new cycles in days, 1 to 365; omitted = unchanged.
@arg cycleCooldownDays Days left free between cycles, 0 to 365; omitted = unchanged.
@arg timeTrackingEnabled Whether the time.* tools work; omitted = unchanged.
@arg attachmentQuotaMb Attachment storage in MB, 0 or more; omitted = unchanged.
@arg requiredAckSeconds Seconds an assigned agent has to answer (a comment, a status move or a run report) before AGENT_NOACK fires, 0 = off; omitted = unchanged.
@arg autoDispatch Whether the dispatcher hands queued issues to agents; omitted = unchanged.
@arg autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; omitted = unchanged.
@arg assignmentSlaMinutes Minutes an assigned open issue may go without activity before ISSUE_STALLED fires, 0 = off; omitted = unchanged.
@arg agentRunStaleMinutes Minutes without a sign of life before a run is STALLED and an agent OFFLINE, at least 1; omitted = unchanged.
@arg offlineReclaimMinutes Minutes an agent gone OFFLINE without a heartbeat (or without a live key) may stay silent before its open runs end and its unfinished issues are unassigned, 0 = never; omitted = unchanged.
@result The workspace with its settings as changed.
OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds, assignmentSlaMinutes and offlineReclaimMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer, offline_reclaim_minutes integer) to svc_visitor;

create or replace function app_private.delete_workspace(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_counts jsonb;
  v_key text;
  v_files int := 0;
  v_members uuid[];
  v_users jsonb;
begin
  select * into v_ws from app_public.workspaces w where w.id = p_workspace_id for update;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  v_counts := jsonb_build_object(
    'issues', (select count(*) from app_public.issues i where i.workspace_id = p_workspace_id),
    'comments', (select count(*) from app_public.comments c where c.workspace_id = p_workspace_id),
    'events', (select count(*) from app_public.activity_events e where e.workspace_id = p_workspace_id),
    'keys', (select count(*) from app_private.api_keys k where k.workspace_id = p_workspace_id));
  -- The files' bytes go once this commits (a worker job each, as for a deleted comment's files): the rows go now.
  for v_key in
    select a.storage_key from app_public.attachments a where a.workspace_id = p_workspace_id and a.storage_key is not null
    union
    select u.storage_key from app_public.attachment_uploads u where u.workspace_id = p_workspace_id
  loop
    perform app_private.attachments_enqueue('svc_attachment_blob_delete', json_build_object('storageKey', v_key));
    v_files := v_files + 1;
  end loop;
  v_members := array(select m.user_id from app_public.memberships m where m.workspace_id = p_workspace_id
                     union select f.user_id from app_public.former_members f where f.workspace_id = p_workspace_id);
  -- Everything of the workspace goes with its row (every reference to it cascades); its keys' streams and cached
  -- copies end on every process (api_keys' delete trigger notifies), and the rows deleted in the cascade write no
  -- events (tg_workspaces__deleting).
  delete from app_public.workspaces w where w.id = p_workspace_id;
  -- People whose only workspace it was, as member or former member, go too (their email is personal data); those
  -- who belong elsewhere stay, with their work there. Their rows are locked first, so a membership elsewhere being
  -- added at this moment is seen by the delete below (else its cascade took that membership away, with no event).
  perform 1 from app_public.users u where u.id = any(v_members) order by u.id for update;
  with gone as (
    delete from app_public.users u
    where u.id = any(v_members)
      and not exists (select 1 from app_public.memberships m where m.user_id = u.id)
      and not exists (select 1 from app_public.former_members f where f.user_id = u.id)
    returning u.email)
  select coalesce(jsonb_agg(g.email order by g.email), '[]') into v_users from gone g;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'deleted', v_counts || jsonb_build_object('files', v_files, 'users', v_users));
end
$$;
comment on function app_private.delete_workspace(p_workspace_id uuid) is 'Deletes a workspace and everything in it (svc admin delete-workspace): every row that references it (by cascade, writing no events), its keys (their streams end), its files (a svc_attachment_blob_delete job each, once this commits), and the users whose only workspace it was. Returns the workspace and what went: issues, comments, events, keys, files, users (emails).';
--! EndIncluded workspace/workspace.sql
--! Included workspace/triggers.sql
-- Triggers of the workspace tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_memberships__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_CREATED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'role', new.role));
  elsif tg_op = 'UPDATE' and new.role is distinct from old.role then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_ROLE_CHANGED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'from', old.role, 'to', new.role));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'MEMBERSHIP_REMOVED', 'membership', old.id,
      jsonb_build_object('userId', old.user_id, 'role', old.role));
  end if;
  return null;
end
$$;
comment on function app_private.tg_memberships__events() is 'MEMBERSHIP_CREATED / _ROLE_CHANGED / _REMOVED.';

create or replace function app_private.tg_workspaces__seed_statuses()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  insert into app_public.statuses (workspace_id, name, category, color, position, is_default) values
    (new.id, 'Backlog', 'BACKLOG', '#94a3b8', 0, false),
    (new.id, 'Todo', 'TODO', '#64748b', 1, true),
    (new.id, 'In Progress', 'IN_PROGRESS', '#f59e0b', 2, false),
    (new.id, 'In Review', 'IN_REVIEW', '#8b5cf6', 3, false),
    (new.id, 'Done', 'DONE', '#22c55e', 4, false),
    (new.id, 'Canceled', 'CANCELED', '#ef4444', 5, false);
  execute format('create sequence %s as integer', app_private.issue_number_sequence(new.id));
  execute format('create sequence %s', app_private.workspace_seq_sequence(new.id));
  return null;
end
$$;
comment on function app_private.tg_workspaces__seed_statuses() is 'AFTER INSERT on workspaces: the six default statuses and the workspace''s sequences (issue numbers; the seq of its events and chat messages).';

create or replace function app_private.tg_workspaces__deleting()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The rows deleted with the workspace (members, agents, keys, ...) fire their own triggers, whose events would go
  -- to the workspace being deleted: into a sequence dropped with it, under a foreign key to a row gone. record_event
  -- writes none for a workspace named here (transaction-local).
  perform set_config('svc.deleting_workspaces', coalesce(current_setting('svc.deleting_workspaces', true), '') || old.id::text || ',', true);
  return old;
end
$$;
comment on function app_private.tg_workspaces__deleting() is 'BEFORE DELETE on workspaces: names the workspace in svc.deleting_workspaces for the rest of the transaction, so the rows deleted with it write no events (app_private.record_event).';

drop trigger if exists _000_deleting on app_public.workspaces;
create trigger _000_deleting before delete on app_public.workspaces for each row execute function app_private.tg_workspaces__deleting();

create or replace function app_private.tg_workspaces__drop_number_sequence()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  execute format('drop sequence if exists %s', app_private.issue_number_sequence(old.id));
  execute format('drop sequence if exists %s', app_private.workspace_seq_sequence(old.id));
  return null;
end
$$;
comment on function app_private.tg_workspaces__drop_number_sequence() is 'AFTER DELETE on workspaces: drops the workspace''s sequences (issue numbers; seq of events and chat messages).';

create or replace function app_private.tg_workspaces__stop_timers()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- With tracking off every time tool is 403, time.stop included: a timer left running could not be stopped and
  -- would count the whole time tracking stayed off. They stop now, whoever's (as when their issue is deleted).
  perform app_private.stop_running_timers(new.id);
  return null;
end
$$;
comment on function app_private.tg_workspaces__stop_timers() is 'AFTER UPDATE OF time_tracking_enabled on workspaces, when time tracking is turned off: every running timer of the workspace stops (durationMin = elapsed minutes, as time.stop).';

create or replace function app_private.tg_workspaces__events()
 returns trigger
 language plpgsql
as $$
declare v_changes text[];
begin
  -- The settings an admin changes (workspace.updateSettings, GraphQL, CLI), by their API names.
  select array_agg(c.api order by c.api) into v_changes
  from (values
    ('name', old.name is distinct from new.name),
    ('cycleLengthDays', old.cycle_length_days is distinct from new.cycle_length_days),
    ('cycleCooldownDays', old.cycle_cooldown_days is distinct from new.cycle_cooldown_days),
    ('timeTrackingEnabled', old.time_tracking_enabled is distinct from new.time_tracking_enabled),
    ('attachmentQuotaMb', old.attachment_quota_mb is distinct from new.attachment_quota_mb),
    ('requiredAckSeconds', old.required_ack_seconds is distinct from new.required_ack_seconds),
    ('autoDispatch', old.auto_dispatch is distinct from new.auto_dispatch),
    ('autoDispatchMode', old.auto_dispatch_mode is distinct from new.auto_dispatch_mode),
    ('assignmentSlaMinutes', old.assignment_sla_minutes is distinct from new.assignment_sla_minutes),
    ('agentRunStaleMinutes', old.agent_run_stale_minutes is distinct from new.agent_run_stale_minutes),
    ('offlineReclaimMinutes', old.offline_reclaim_minutes is distinct from new.offline_reclaim_minutes)) as c(api, changed)
  where c.changed;
  if v_changes is not null then
    perform app_private.record_event(new.id, 'WORKSPACE_UPDATED', 'workspace', new.id, jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return null;
end
$$;
comment on function app_private.tg_workspaces__events() is 'AFTER UPDATE of the settings columns on workspaces: WORKSPACE_UPDATED naming the settings that changed (nothing when none did).';

drop trigger if exists _800_events on app_public.memberships;
create trigger _800_events after insert or delete or update on app_public.memberships for each row execute function app_private.tg_memberships__events();

drop trigger if exists _100_updated_at on app_public.workspaces;
create trigger _100_updated_at before update on app_public.workspaces for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _900_drop_number_sequence on app_public.workspaces;
create trigger _900_drop_number_sequence after delete on app_public.workspaces for each row execute function app_private.tg_workspaces__drop_number_sequence();

drop trigger if exists _800_events on app_public.workspaces;
create trigger _800_events after update of name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled, attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes, agent_run_stale_minutes, offline_reclaim_minutes on app_public.workspaces for each row execute function app_private.tg_workspaces__events();

drop trigger if exists _500_seed_statuses on app_public.workspaces;
create trigger _500_seed_statuses after insert on app_public.workspaces for each row execute function app_private.tg_workspaces__seed_statuses();

drop trigger if exists _810_stop_timers on app_public.workspaces;
create trigger _810_stop_timers after update of time_tracking_enabled on app_public.workspaces for each row
  when (old.time_tracking_enabled and not new.time_tracking_enabled) execute function app_private.tg_workspaces__stop_timers();
--! EndIncluded workspace/triggers.sql
--! Included workspace/tools/updateSettings.sql
-- The workspace.updateSettings tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the in-app procedure's path (app_hidden.workspace_update_settings: OWNER/ADMIN with the ADMIN scope, else 403
-- admin_required / scope_required): changes the settings given, returns them as workspace.get shows them. A key
-- with any narrowing may not (403 narrowing): the settings rule every project, as webhooks see every event.
-- Every setting that changes is named in one WORKSPACE_UPDATED (trigger on workspaces, sql/workspace/triggers.sql,
-- whatever the path: this tool, GraphQL, the CLI); a call that changes nothing writes none.
create or replace function app_tools.workspace_update_settings(args jsonb)
 returns jsonb
 language plpgsql
as $$
begin
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_hidden.workspace_json(app_hidden.workspace_update_settings(
    args->>'name', (args->>'cycleLengthDays')::int, (args->>'cycleCooldownDays')::int,
    (args->>'timeTrackingEnabled')::boolean, (args->>'attachmentQuotaMb')::int, (args->>'requiredAckSeconds')::int,
    (args->>'autoDispatch')::boolean, args->>'autoDispatchMode', (args->>'assignmentSlaMinutes')::int,
    (args->>'agentRunStaleMinutes')::int, (args->>'offlineReclaimMinutes')::int));
end
$$;
grant execute on function app_tools.workspace_update_settings(args jsonb) to svc_visitor;
comment on function app_tools.workspace_update_settings(args jsonb) is 'workspace.updateSettings: Change the workspace settings given (as workspace.get shows them; requiredAckSeconds, assignmentSlaMinutes, offlineReclaimMinutes 0 = off; timeTrackingEnabled false stops every running timer). OWNER/ADMIN with the ADMIN scope and no narrowing (else 403).';
--! EndIncluded workspace/tools/updateSettings.sql
--! Included issues/write.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid)
 returns void
 language plpgsql
 stable
as $$
declare v_mode text;
begin
  if app_hidden.current_agent_id() is null then
    return;
  end if;
  -- Any open gated run of the agent on the issue gates it (spec 3.2), also when a newer EXECUTE run is open beside
  -- it (a plan step's run on the goal's issue): otherwise an agent told only to research could give itself a step
  -- and change the issue through that.
  select r.engagement_mode into v_mode
  from app_public.agent_runs r
  where r.workspace_id = app_hidden.current_workspace_id()
    and r.issue_id = p_issue_id
    and r.agent_id = app_hidden.current_agent_id()
    -- A STALLED run is still the issue's open run (the agent may resume it): an agent that went quiet is not let off.
    and r.status in ('ACTIVE', 'WAITING', 'STALLED')
    and r.engagement_mode in ('RESEARCH', 'REVIEW', 'DISCUSS')
  order by r.started_at desc
  limit 1;
  if v_mode is not null then
    -- Named: the issue gated may not be the one the call named (a link, a parent, a shared external resource).
    raise exception 'Your % run on % may not change it: comment, upsert a status, set the run waiting or complete it instead',
      v_mode, (select i.key from app_public.issues i where i.id = p_issue_id)
      using errcode = 'SV403', detail = 'run_mode_gated';
  end if;
end
$$;
comment on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) is 'Run-mode gating (spec 3.2): 403 run_mode_gated when the calling agent has any open (ACTIVE, WAITING or STALLED) run on the issue in RESEARCH, REVIEW or DISCUSS mode, whatever other runs it has open there. Every issue-state mutation calls it; comments, status upserts and run tools do not.';
grant execute on function app_hidden.assert_run_mode_allows_mutation(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text)
 returns void
 language plpgsql
as $$
begin
  -- AGENT_RUN_STATUS_CHANGED (to ABANDONED, with the reason) by trigger _810_run_abandoned.
  perform set_config('svc.run_end_reason', p_reason, true);
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where workspace_id = p_issue.workspace_id and issue_id = p_issue.id and agent_id = p_agent_id
    and status in ('ACTIVE', 'WAITING', 'STALLED');
  perform set_config('svc.run_end_reason', '', true);
end
$$;
comment on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) is 'An agent''s open runs on an issue end (ABANDONED; AGENT_RUN_STATUS_CHANGED with p_reason by trigger): the issue was handed to another agent (reassigned) or taken from it (unassigned).';
grant execute on function app_hidden.end_agent_runs_on_issue(p_issue app_public.issues, p_agent_id uuid, p_reason text) to svc_visitor;

create or replace function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text)
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.end_agent_runs_on_issue(p_issue, p_issue.assigned_agent_id, p_reason);
  -- ISSUE_UPDATED by trigger, with unassignedAgentId and this reason.
  perform set_config('svc.unassign_reason', p_reason, true);
  update app_public.issues set assigned_agent_id = null where id = p_issue.id;
  perform set_config('svc.unassign_reason', '', true);
end
$$;
comment on function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text) is 'Takes an issue from its agent: the agent''s open runs on it end (ABANDONED, reason p_reason: unassigned, out_of_view) and assignedAgentId is cleared (ISSUE_UPDATED by trigger, with unassignedAgentId and unassignReason p_reason; a queued issue goes back to the dispatcher). issues.unassign and an issue moved out of its agent''s view.';
grant execute on function app_hidden.unassign_issue_agent(p_issue app_public.issues, p_reason text) to svc_visitor;

create or replace function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text default NULL::text, p_comment_id uuid default NULL::uuid, p_dispatch jsonb default NULL::jsonb)
 returns uuid
 language plpgsql
as $$
declare
  v_from uuid := p_issue.assigned_agent_id;
  v_run_id uuid;
begin
  -- The agent may be being archived right now (issues.assign, reassign and the dispatcher read it unlocked).
  perform app_hidden.lock_live_agent(p_agent.id);
  -- The previous agent's open run ends (decisions.md "Runs").
  if v_from is not null and v_from <> p_agent.id then
    perform app_hidden.end_agent_runs_on_issue(p_issue, v_from, 'reassigned');
  end if;
  if v_from is distinct from p_agent.id then
    update app_public.issues set assigned_agent_id = p_agent.id where id = p_issue.id;  -- ISSUE_ASSIGNED by trigger
  end if;
  insert into app_public.agent_runs (workspace_id, agent_id, issue_id, status, engagement_mode)
  values (p_issue.workspace_id, p_agent.id, p_issue.id, 'ACTIVE', coalesce(p_mode, 'EXECUTE'))
  returning id into v_run_id;
  perform app_hidden.record_event('AGENT_ASSIGNED', 'issue', p_issue.id, jsonb_build_object(
    'issueId', p_issue.id, 'agentId', p_agent.id, 'profileKey', p_agent.profile_key,
    'from', v_from, 'to', p_agent.id, 'auto', p_dispatch is not null, 'reason', p_reason,
    'rationale', p_rationale, 'commentId', p_comment_id, 'dispatch', p_dispatch,
    'runId', v_run_id, 'engagementMode', coalesce(p_mode, 'EXECUTE')));
  return v_run_id;
end
$$;
comment on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) is 'The assignment transition shared by issues.assign and issues.reassign: abandons the previous agent''s open run (AGENT_RUN_STATUS_CHANGED by trigger, reason reassigned), swaps assignedAgentId (ISSUE_ASSIGNED by trigger), opens an ACTIVE run in the given mode and writes AGENT_ASSIGNED with the spec 6.4 payload (auto and dispatch when the dispatcher passes p_dispatch). Returns the new run id.';
grant execute on function app_hidden.assign_issue_agent(p_issue app_public.issues, p_agent app_public.agents, p_mode text, p_reason text, p_rationale text, p_comment_id uuid, p_dispatch jsonb) to svc_visitor;

create or replace function app_hidden.find_issue(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
 stable
as $$
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    return app_hidden.found((select i from app_public.issues i where i.id = p_ref::uuid and i.deleted_at is null),
                            'Issue', p_field);
  end if;
  return app_hidden.found((select i from app_public.issues i
                           where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(p_ref) and i.deleted_at is null),
                          'Issue', p_field);
end
$$;
comment on function app_hidden.find_issue(p_ref text, p_field text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';
grant execute on function app_hidden.find_issue(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_after_write(p_issue_id uuid)
 returns app_public.issues
 language plpgsql
 stable
as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(p_issue_id uuid) is 'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_after_write(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.lock_issues_in_order(p_items jsonb, p_field text)
 returns void
 language sql
as $$
  -- Bulk calls lock their issues in one order (by id) before the first item: two calls naming the same issues in
  -- different orders each locked one and waited for the other's (a deadlock, 1 s, then 409 after the retries).
  -- Refs that name no live visible issue lock nothing here; their item answers 404 as before.
  with refs as (
    select e->>p_field as ref, e->>p_field ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' as is_id
    from jsonb_array_elements(p_items) e)
  select 1 from app_public.issues i
  where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
    and (i.id = any (array(select ref::uuid from refs where is_id))
         or i.key = any (array(select upper(ref) from refs where not is_id)))
  order by i.id
  for update of i
$$;
comment on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) is 'Locks (FOR UPDATE, by id) the live visible issues a bulk call''s items name in p_field (id or key), before the items run: concurrent bulk calls over the same issues wait for each other instead of deadlocking.';
grant execute on function app_hidden.lock_issues_in_order(p_items jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.issue_for_write(p_ref text, p_field text default 'id'::text)
 returns app_public.issues
 language plpgsql
as $$
declare v_issue app_public.issues;
begin
  -- Lock the row: concurrent claims, assignments and edits of one issue serialize here.
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id: found and locked in one statement (find_issue's rule: live and visible, else 404).
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  else
    v_issue := app_hidden.find_issue(p_ref, p_field);
    -- Still live once locked: a concurrent delete may have got there first (then 404, as by id).
    select * into v_issue from app_public.issues where id = v_issue.id and deleted_at is null for update;
    if v_issue.id is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
    end if;
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  return v_issue;
end
$$;
comment on function app_hidden.issue_for_write(p_ref text, p_field text) is 'A live issue the caller can see (404 otherwise), locked FOR UPDATE, after the run-mode gate. The entry point of every issue mutation.';
grant execute on function app_hidden.issue_for_write(p_ref text, p_field text) to svc_visitor;

create or replace function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  with recursive up(id, depth) as (
    select i.parent_id, 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id()
    union all
    select i.parent_id, up.depth + 1 from up join app_public.issues i on i.id = up.id
    where up.id is not null and up.depth < 1000
  )
  -- A chain the walk could not finish (1,000 levels) counts as one: refusing is safe, assuming no cycle is not.
  select exists (select 1 from up where id = p_ancestor_id or (depth = 1000 and id is not null))
$$;
comment on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) is 'True when p_ancestor_id is on the parent chain of p_issue_id (caller''s workspace only), or when that chain is deeper than 1,000 (not walked further). Security definer so the cycle check sees parents outside a key''s narrowing; it reveals only this boolean. Callers hold app_hidden.lock_issue_parents.';
grant execute on function app_hidden.issue_has_ancestor(p_issue_id uuid, p_ancestor_id uuid) to svc_visitor;

create or replace function app_hidden.lock_issue_parents()
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.parents:' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_issue_parents() is 'Serializes parent changes of the caller''s workspace for the transaction, so two concurrent ones cannot close a cycle between them (each checks a chain the other is changing). Take it before any issue row lock: issues.update, updateMany and restore take it first when they may set a parent.';
grant execute on function app_hidden.lock_issue_parents() to svc_visitor;

create or replace function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean default false)
 returns uuid[]
 language plpgsql
as $$
declare
  v_ids uuid[] := '{}';
  v_ref text;
  v_pos int;
  v_id uuid;
begin
  for v_ref, v_pos in select e, o - 1 from jsonb_array_elements_text(coalesce(p_refs, '[]')) with ordinality t(e, o) loop
    if p_for_write then
      v_id := (app_hidden.issue_for_write(v_ref, p_field || '.' || v_pos)).id;
    else
      v_id := (app_hidden.find_issue(v_ref, p_field || '.' || v_pos)).id;
    end if;
    if v_id = any(v_ids) then
      raise exception 'issue listed twice' using errcode = 'SV400', column = p_field || '.' || v_pos;
    end if;
    v_ids := v_ids || v_id;
  end loop;
  return v_ids;
end
$$;
comment on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) is 'Ids of a JSON list of issue refs (id or key), in order; 404 naming <field>.<n> for one the key cannot see, 400 for one listed twice. p_for_write locks each issue and applies the run-mode gate (issue_for_write).';
grant execute on function app_hidden.resolve_issue_list(p_refs jsonb, p_field text, p_for_write boolean) to svc_visitor;

create or replace function app_hidden.label_id_list(p_json jsonb)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- A label listed twice is the label once, where it was first listed (it was a 409 on create). plpgsql: a SQL
  -- function with a sublink is not inlined and would be planned again in every create and update.
  return array(select u.id from unnest(app_hidden.uuid_array(p_json, 'labelIds')) with ordinality u(id, n)
               group by u.id order by min(u.n));
end
$$;
comment on function app_hidden.label_id_list(p_json jsonb) is 'The labelIds of an issues.create or issues.update input as uuid[] (400 on labelIds for a malformed one), each label once, in the order first given.';
grant execute on function app_hidden.label_id_list(p_json jsonb) to svc_visitor;

create or replace function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[])
 returns void
 language plpgsql
as $$
begin
  p_add := coalesce(p_add, '{}');
  if (select count(*) from app_public.labels l where l.id = any(p_add)) <> cardinality(array(select distinct unnest(p_add))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  if p_keep is not null then
    delete from app_public.issue_labels where issue_id = p_issue_id and label_id <> all(p_keep);
  end if;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select app_hidden.current_workspace_id(), p_issue_id, l from (select distinct unnest(p_add) l) s
  on conflict do nothing;
end
$$;
comment on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) is 'Adds labels p_add (404 for a label the caller cannot see) and, when p_keep is given, removes every other label. Label changes record ISSUE_UPDATED (labelIds) by trigger, merged per issue per transaction.';
grant execute on function app_hidden.set_issue_labels(p_issue_id uuid, p_add uuid[], p_keep uuid[]) to svc_visitor;

create or replace function app_hidden.update_issue(p_issue app_public.issues, args jsonb)
 returns app_public.issues
 language plpgsql
as $$
declare
  v app_public.issues := p_issue;
  v_ws uuid := app_hidden.current_workspace_id();
  v_parent app_public.issues;
  v_cycle app_public.cycles;
  v_labels uuid[];
begin
  if args ? 'title' then v.title := args->>'title'; end if;
  if args ? 'description' then v.description := args->>'description'; end if;
  if args ? 'priority' then v.priority := args->>'priority'; end if;
  if args ? 'statusId' then
    select s.id into v.status_id from app_public.statuses s
    where s.id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and s.workspace_id = v_ws;
    if v.status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  end if;
  if args ? 'projectId' then
    if args->>'projectId' is null then
      v.project_id := null;
    else
      select p.id into v.project_id from app_public.projects p
      where p.id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and p.archived_at is null;
      if v.project_id is null then
        raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
      end if;
    end if;
  end if;
  if args ? 'parentId' then
    if args->>'parentId' is not null then
      -- Held already when the tool took it before the issue's row lock (as it should); taken here otherwise.
      perform app_hidden.lock_issue_parents();
      v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
      if v_parent.id = v.id then
        perform app_hidden.raise_invalid('parentId', 'an issue cannot be its own parent');
      end if;
      if app_hidden.issue_has_ancestor(v_parent.id, v.id) then
        perform app_hidden.raise_invalid('parentId', 'this parent is a sub-issue of the issue (it would make a cycle), or its chain of parents is over 1,000 deep');
      end if;
    end if;
    if v_parent.id is distinct from v.parent_id then
      -- A sub-issue that moves changes the tree of the parent it leaves and of the one it joins: run-mode gated on both.
      if v.parent_id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v.parent_id);
      end if;
      if v_parent.id is not null then
        perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
      end if;
    end if;
    v.parent_id := v_parent.id;
  end if;
  if args ? 'cycleId' then
    if args->>'cycleId' is null then
      v.cycle_id := null;
    else
      select c.* into v_cycle from app_public.cycles c
      where c.id = app_hidden.parse_uuid(args->>'cycleId', 'cycleId') and c.workspace_id = v_ws;
      if v_cycle.id is null then
        raise exception 'Cycle not found' using errcode = 'SV404', column = 'cycleId';
      end if;
      -- As cycles.addIssue: only into a PLANNED or ACTIVE cycle (staying in the same cycle changes nothing).
      if v_cycle.id is distinct from p_issue.cycle_id then
        perform app_hidden.require_open_cycle(v_cycle);
      end if;
      v.cycle_id := v_cycle.id;
    end if;
  end if;
  if args ? 'dueDate' then v.due_date := (args->>'dueDate')::date; end if;
  if args ? 'estimate' then v.estimate := (args->>'estimate')::numeric; end if;
  if args ? 'slaMinutes' then v.sla_minutes := (args->>'slaMinutes')::int; end if;
  if args ? 'expectedOutput' then v.expected_output := args->>'expectedOutput'; end if;
  if args ? 'verificationChecklist' then v.verification_checklist := coalesce(args->'verificationChecklist', '[]'); end if;
  if args ? 'artifactRequired' then v.artifact_required := (args->>'artifactRequired')::boolean; end if;
  if args ? 'queued' then v.queued := (args->>'queued')::boolean; end if;

  -- Labels are added before and removed after the row changes, so a label-narrowed key never passes
  -- through a state it cannot see when the final state is visible to it.
  if args ? 'labelIds' then
    v_labels := app_hidden.label_id_list(args->'labelIds');
    perform app_hidden.set_issue_labels(v.id, v_labels, null);
  end if;
  -- Nothing changed: no write, no event, updatedAt untouched.
  if v is distinct from p_issue then
    begin
      update app_public.issues
      set title = v.title, description = v.description, priority = v.priority, status_id = v.status_id,
          project_id = v.project_id, parent_id = v.parent_id, cycle_id = v.cycle_id, due_date = v.due_date,
          estimate = v.estimate, sla_minutes = v.sla_minutes, expected_output = v.expected_output,
          verification_checklist = v.verification_checklist, artifact_required = v.artifact_required,
          queued = v.queued
      where id = v.id;
    exception when insufficient_privilege then
      -- RLS refused the new row: it would leave the key's narrowing.
      raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
    end;
  end if;
  if args ? 'labelIds' then
    delete from app_public.issue_labels where issue_id = v.id and label_id <> all(v_labels);
  end if;
  return app_hidden.issue_after_write(v.id);
end
$$;
comment on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) is 'Applies an issues.update patch (only the keys present; null clears a nullable field) to a locked issue. Writes only when something changed, so the triggers record ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_QUEUED / one merged ISSUE_UPDATED for real changes only. 403 narrowing when the result would leave the key''s reach.';
grant execute on function app_hidden.update_issue(p_issue app_public.issues, args jsonb) to svc_visitor;

-- issues.create's checks, apart from the insert: issues.createMany runs them for every item before any item
-- takes a number.
create or replace function app_hidden.issue_create_refs(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.label_id_list(args->'labelIds');
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
    -- A new sub-issue changes its parent's tree: not by an agent whose run there only researches, reviews or discusses.
    perform app_hidden.assert_run_mode_allows_mutation(v_parent.id);
  end if;

  if cardinality(v_label_ids) > 0
     and (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- A narrowed key creates only inside its narrowing (spec 5.6, as issue_passes_narrowing for the new row):
  -- checked here, before the insert takes a number, rather than left to the insert policy.
  if not app_hidden.issues_unrestricted()
     and not (coalesce(v_project_id = any(app_hidden.narrowed_project_ids()), false)
              or v_label_ids && app_hidden.narrowed_label_ids()) then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;

  return jsonb_build_object('statusId', v_status_id, 'projectId', v_project_id, 'parentId', v_parent.id);
end
$$;
comment on function app_hidden.issue_create_refs(args jsonb) is 'issues.create''s checks without the insert: the status (default unless statusId), project, parent and labels, resolved as {statusId, projectId, parentId}; 404 naming the field otherwise; 403 narrowing when a narrowed key would create outside its narrowing.';
grant execute on function app_hidden.issue_create_refs(args jsonb) to svc_visitor;
--! EndIncluded issues/write.sql
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
  v_before jsonb := '{}';
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
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := array_append(v_changed, 'claimedById');
  elsif new.claim_expires_at is distinct from old.claim_expires_at then v_changed := array_append(v_changed, 'claimExpiresAt'); -- extended
  end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := array_append(v_changed, 'queued'); end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := array_append(v_changed, 'assignedAgentId');
  end if;
  -- Where the issue was before a move of project, labels or cycle (not while it is created): a key narrowed to that
  -- scope sees this one event of the issue leaving its view (event_subject_visible), so a live board drops the card;
  -- an MCP subscription to the cycle or project it left hears of it.
  if (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids
      or new.cycle_id is distinct from old.cycle_id)
     and new.created_at <> now() then
    if new.label_ids is distinct from old.label_ids then v_changed := array_append(v_changed, 'labelIds'); end if;
    v_before := jsonb_build_object('before', jsonb_build_object('projectId', old.project_id, 'labelIds', to_jsonb(old.label_ids),
                                                              'cycleId', old.cycle_id));
  end if;
  -- Whom the issue was taken from (issues.unassign, an archived or vanished agent's issues): the agent's timeline
  -- shows it; and why, when the writer says (svc.unassign_reason: unassigned, out_of_view, agent_archived, agent_offline).
  if new.assigned_agent_id is null and old.assigned_agent_id is not null then
    v_before := coalesce(v_before, '{}') || jsonb_build_object('unassignedAgentId', old.assigned_agent_id)
      || case when current_setting('svc.unassign_reason', true) <> ''
              then jsonb_build_object('unassignReason', current_setting('svc.unassign_reason', true)) else '{}' end;
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_issue_updated(new.workspace_id, new.id, v_changed, v_before);
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is 'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_RESTORED (deletedAt: when it had been deleted), ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and one ISSUE_UPDATED (merged per issue per transaction) naming any other changed fields, with before {projectId, labelIds, cycleId} when the project, labels or cycle moved and unassignedAgentId (with unassignReason when the writer gives one) when the issue was taken from its agent. A change that changes nothing writes nothing.';

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
  -- still show it (time.running) and keep counting. It stops now, whoever's it is.
  perform app_private.stop_running_timers(new.workspace_id, new.id);
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
declare
  v_category text;
  v_old_category text;
begin
  if tg_op = 'UPDATE' and new.status_id is not distinct from old.status_id then
    return new;
  end if;
  select s.category into v_category from app_public.statuses s where s.id = new.status_id;
  if v_category in ('IN_PROGRESS', 'IN_REVIEW', 'DONE') and new.started_at is null then
    new.started_at := now();
  end if;
  if v_category in ('DONE', 'CANCELED') then
    -- Another status of the same category (Done → Shipped) keeps the time; Canceled → Done is finished now (it kept
    -- the cancel time: throughput booked it on the day it was canceled, and the standup left it out).
    if tg_op = 'UPDATE' then
      select s.category into v_old_category from app_public.statuses s where s.id = old.status_id;
    end if;
    new.completed_at := case when v_old_category is not distinct from v_category then coalesce(new.completed_at, now()) else now() end;
  else
    new.completed_at := null;
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__status_timestamps() is 'BEFORE INSERT/UPDATE OF status_id on issues: startedAt is stamped the first time the issue reaches a started category; completedAt when it enters DONE or CANCELED (from any other category, the other of the two included; another status of the same category keeps it), cleared when it is reopened.';

create or replace function app_private.tg_issues__keep_finished_in_ended_cycle()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_cycle app_public.cycles;
begin
  -- A completed sprint's finished work is its record (cycles.get's counts, the velocity a lead compares): it could be
  -- taken out, and not put back (an ended cycle takes no issue). Unfinished work moves on, as rollover moves it. A
  -- cycle being deleted (its row already gone: the foreign key's SET NULL) has nothing left to keep.
  select c.* into v_cycle from app_public.cycles c where c.id = old.cycle_id;
  if v_cycle.id is not null and app_hidden.cycle_status(v_cycle) = 'COMPLETED' then
    raise exception 'Cycle % is completed: the issues finished in it stay in it (reopen one to move it on)', v_cycle.name
      using errcode = 'SV409', detail = 'cycle_closed', column = 'cycleId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__keep_finished_in_ended_cycle() is 'BEFORE UPDATE OF cycle_id on issues, for a finished issue (completedAt set) leaving a cycle: 409 cycle_closed when that cycle is COMPLETED (its record); unfinished issues move on.';

create or replace function app_private.tg_issues__queued_at()
 returns trigger
 language plpgsql
as $$
begin
  -- Since when the issue waits in the dispatch pool: the dispatcher hands out the longest waiting first (an old
  -- issue queued late went before those queued long before it), as the SLA clock counts from ISSUE_QUEUED.
  new.queued_at := case when not new.queued then null
                        when tg_op = 'INSERT' or not old.queued then now()
                        else old.queued_at end;
  return new;
end
$$;
comment on function app_private.tg_issues__queued_at() is 'BEFORE INSERT/UPDATE OF queued on issues: queuedAt is when queued last became true (null when not queued).';

drop trigger if exists _160_queued_at on app_public.issues;
create trigger _160_queued_at before insert or update of queued on app_public.issues for each row execute function app_private.tg_issues__queued_at();

drop trigger if exists _700_label_ids on app_public.issue_labels;
create trigger _700_label_ids after insert on app_public.issue_labels referencing new table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _701_label_ids on app_public.issue_labels;
create trigger _701_label_ids after delete on app_public.issue_labels referencing old table as changed for each statement execute function app_private.tg_issue_labels__label_ids();
drop trigger if exists _800_events on app_public.issue_labels;
create trigger _800_events after insert or delete on app_public.issue_labels for each row execute function app_private.tg_issue_labels__events();

create or replace function app_private.tg_issues__run_mode_gate()
 returns trigger
 language plpgsql
as $$
begin
  -- Run-mode gating at the row, whatever wrote it: tools check the issue they name, but a workspace-wide write (a
  -- status deleted with its issues moved, labels merged or deleted, a parent deleted or restored) changed an issue
  -- an agent only researched, reviewed or discussed. The fields are those that write an event.
  if app_hidden.current_agent_id() is not null
     and (new.status_id, new.priority, new.title, new.description, new.project_id, new.parent_id, new.cycle_id, new.label_ids,
          new.assigned_agent_id, new.queued, new.claimed_by_id, new.deleted_at, new.due_date, new.estimate, new.sla_minutes,
          new.expected_output, new.verification_checklist, new.artifact_required)
     is distinct from
         (old.status_id, old.priority, old.title, old.description, old.project_id, old.parent_id, old.cycle_id, old.label_ids,
          old.assigned_agent_id, old.queued, old.claimed_by_id, old.deleted_at, old.due_date, old.estimate, old.sla_minutes,
          old.expected_output, old.verification_checklist, old.artifact_required) then
    perform app_hidden.assert_run_mode_allows_mutation(new.id);
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__run_mode_gate() is 'BEFORE UPDATE on issues: 403 run_mode_gated when the calling agent has an open RESEARCH/REVIEW/DISCUSS run on the issue and the update changes a field that writes an event, whatever tool or trigger made it (statuses.delete moving issues, labels merged or deleted, a parent deleted or restored, cycles deleted or rolled over).';

create or replace function app_private.tg_issues__live_parent()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'UPDATE' and new.parent_id is not distinct from old.parent_id then
    return new;
  end if;
  -- The tools checked the parent live, but a delete committing meanwhile detached the children it saw, not this
  -- one. Held in share mode until commit: a delete of the parent waits for this write (then detaches the child
  -- too), or this write waits for the delete and finds the parent gone.
  perform from app_public.issues p where p.id = new.parent_id and p.deleted_at is null for share;
  if not found then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'parentId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_issues__live_parent() is 'BEFORE INSERT or UPDATE OF parent_id on issues, with a parent: locks the parent (share) and 404 on parentId when it is deleted, so no live sub-issue points at a deleted issue whatever commits first.';

drop trigger if exists _060_live_parent on app_public.issues;
create trigger _060_live_parent before insert or update of parent_id on app_public.issues for each row
  when (new.parent_id is not null) execute function app_private.tg_issues__live_parent();

drop trigger if exists _050_run_mode_gate on app_public.issues;
create trigger _050_run_mode_gate before update on app_public.issues for each row execute function app_private.tg_issues__run_mode_gate();

drop trigger if exists _100_updated_at on app_public.issues;
create trigger _100_updated_at before update on app_public.issues for each row execute function app_hidden.tg__set_updated_at('search', 'priority_rank');

drop trigger if exists _140_keep_finished_in_ended_cycle on app_public.issues;
create trigger _140_keep_finished_in_ended_cycle before update of cycle_id on app_public.issues for each row
  when (old.cycle_id is not null and old.cycle_id is distinct from new.cycle_id and old.completed_at is not null)
  execute function app_private.tg_issues__keep_finished_in_ended_cycle();

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

create or replace function app_private.tg_issues__out_of_agent_view()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Moved to a project (or off a label) none of its agent's keys can read: the agent could neither read nor work it
  -- and held a slot for it (re-test of the fleet probe's fix). It is taken from the agent as issues.unassign does
  -- (its runs end, reason out_of_view, which its dispatch channel hears); a queued issue goes back to the dispatcher.
  if not app_hidden.agent_sees_issue(new.assigned_agent_id, new) then
    perform app_hidden.unassign_issue_agent(new, 'out_of_view');
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__out_of_agent_view() is 'AFTER UPDATE of project_id or label_ids of an assigned live issue: when none of the assigned agent''s keys can see it any more, the agent''s runs on it end (ABANDONED, reason out_of_view) and it is unassigned (ISSUE_UPDATED assignedAgentId); a queued one goes back to the dispatcher.';

drop trigger if exists _820_out_of_agent_view on app_public.issues;
create trigger _820_out_of_agent_view after update of project_id, label_ids on app_public.issues for each row
  when (new.assigned_agent_id is not null and new.deleted_at is null
        and (new.project_id is distinct from old.project_id or new.label_ids is distinct from old.label_ids))
  execute function app_private.tg_issues__out_of_agent_view();

create or replace function app_private.tg_issues__run_activity()
 returns trigger
 language plpgsql
as $$
begin
  -- The run's own agent changing its issue (a status move, a field, its labels) is that run at work, as its comments
  -- are: an agent that moved its issue along without commenting was marked STALLED. As the caller (RLS: the run's
  -- issue is visible); once per transaction (now() is the transaction's); a STALLED run comes back to ACTIVE
  -- (_120_run_stalled_activity on agent_runs).
  update app_public.agent_runs r set last_event_at = now()
  where r.workspace_id = new.workspace_id and r.issue_id = new.id and r.agent_id = app_hidden.current_agent_id()
    and r.status in ('ACTIVE', 'WAITING', 'STALLED') and r.last_event_at < now();
  return null;
end
$$;
comment on function app_private.tg_issues__run_activity() is 'AFTER UPDATE on issues by an agent''s key: that agent''s open run on the issue is active (lastEventAt now; a STALLED one back to ACTIVE).';

drop trigger if exists _830_run_activity on app_public.issues;
create trigger _830_run_activity after update on app_public.issues for each row
  when (app_hidden.current_agent_id() is not null)
  execute function app_private.tg_issues__run_activity();
--! EndIncluded issues/triggers.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token), nor a narrowed one (an agent serves the whole workspace, and a narrowed key reads
  -- no webhook either); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin() and app_hidden.key_unnarrowed())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own unnarrowed key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
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
  -- Agents serve the whole workspace: their dispatches and webhook carry any issue's events, so a key narrowed to
  -- some projects could point an agent's webhookUrl at itself and receive what it may not see.
  perform app_hidden.require_unnarrowed('Agents work on the whole workspace');
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent; else 403 admin_required) with an unnarrowed key (else 403 narrowing).';
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

create or replace function app_hidden.check_profile_key(p_profile_key text)
 returns void
 language plpgsql
 immutable
as $$
begin
  -- Said in words before the table's check refuses it ("profileKey is not an allowed value" told no one what is).
  if p_profile_key !~ '^[a-z0-9][a-z0-9_.-]{0,63}$' then
    perform app_hidden.raise_invalid('profileKey', 'must be 1 to 64 of a-z, 0-9, _ . - (lowercase, starting with a letter or digit; e.g. triage)');
  end if;
end
$$;
comment on function app_hidden.check_profile_key(p_profile_key text) is 'A 400 on profileKey unless it is 1 to 64 of a-z, 0-9, _ . - starting with a letter or digit (agents_profile_key_check, said in words). NULL passes.';
grant execute on function app_hidden.check_profile_key(p_profile_key text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  perform app_hidden.check_profile_key(p_profile_key);
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
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

create or replace function app_private.agent_holders(p_workspace_id uuid, p_agent_id uuid)
 returns text[]
 language sql
 stable
as $$
  -- Every kind of record that names the agent and would block or go with its deletion (runs and chat threads would
  -- cascade away: the record of its work, kept by archiving instead), by the name agentsDelete's 409 uses.
  select array_remove(array[
    case when exists (select 1 from app_public.issues i where i.workspace_id = p_workspace_id
                      and (i.assigned_agent_id = p_agent_id or i.created_by_agent_id = p_agent_id)) then 'issues' end,
    case when exists (select 1 from app_public.comments c where c.workspace_id = p_workspace_id
                      and c.authoring_agent_id = p_agent_id) then 'comments' end,
    case when exists (select 1 from app_public.agent_runs r where r.workspace_id = p_workspace_id
                      and r.agent_id = p_agent_id) then 'runs' end,
    case when exists (select 1 from app_public.chat_threads t where t.workspace_id = p_workspace_id
                      and t.agent_id = p_agent_id) then 'chat threads' end,
    case when exists (select 1 from app_public.action_requests a where a.workspace_id = p_workspace_id
                      and p_agent_id in (a.assigned_agent_id, a.requested_by_agent_id, a.resolved_by_agent_id)) then 'action requests' end,
    case when exists (select 1 from app_public.goals g where g.workspace_id = p_workspace_id
                      and g.created_by_agent_id = p_agent_id) then 'goals' end,
    case when exists (select 1 from app_public.execution_plans p where p.workspace_id = p_workspace_id
                      and p.planner_agent_id = p_agent_id) then 'execution plans' end,
    case when exists (select 1 from app_public.execution_steps s where s.workspace_id = p_workspace_id
                      and p_agent_id in (s.assigned_agent_id, s.judge_agent_id)) then 'plan steps' end,
    case when exists (select 1 from app_public.review_gates g where g.workspace_id = p_workspace_id
                      and g.opened_by_agent_id = p_agent_id) then 'review gates' end], null)
$$;
comment on function app_private.agent_holders(p_workspace_id uuid, p_agent_id uuid) is 'What still names an agent and keeps it from being deleted (issues, comments, runs, chat threads, action requests, goals, execution plans, plan steps, review gates): the kinds agentsDelete''s 409 agent_in_use names. Empty: nothing does.';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_holders text[] := app_private.agent_holders(p_workspace_id, v_agent.id);
  v_table text;
begin
  -- The 409 names what holds the agent (it said "issues or comments" whatever did, an action request's assignee
  -- included). Its runs and chat threads would go with it (they cascade): the record of its work is kept, as for
  -- issues and comments, by archiving instead.
  if cardinality(v_holders) > 0 then
    raise exception 'Agent % still has %; archive it instead', v_agent.profile_key, array_to_string(v_holders, ', ')
      using errcode = 'SV409', detail = 'agent_in_use';
  end if;
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;  -- AGENT_DELETED, and the members' pins of it go (trigger)
  exception when foreign_key_violation then
    -- A reference written since the check above (or of a kind it does not know): named by its table.
    get stacked diagnostics v_table = table_name;
    raise exception 'Agent % is still referenced (%); archive it instead', v_agent.profile_key, replace(v_table, '_', ' ')
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent nothing names (409 agent_in_use otherwise, naming the kinds that do: issues, comments, runs, chat threads, action requests, goals, execution plans, plan steps, review gates; archive it instead). Its keys are revoked; AGENT_DELETED by trigger, which also removes every member''s pins of it.';

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
    perform app_hidden.raise_not_found('Event', null);
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
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

create or replace function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (archive, restore) sees
  -- every change committed before it. FOR NO KEY UPDATE, the lock the agent's own UPDATE takes: runs opened and
  -- issues assigned to it meanwhile (KEY SHARE through their foreign keys) do not wait for it. Lock order: an
  -- archive takes the agent's issues first (as every issue write does), then this.
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id for no key update;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, locked until commit (its current row), else 404 (as find_agent).';

drop function if exists app_private.rotate_agent_webhook_secret(uuid);
-- Its answer was the secret alone (text) until migration 000125: dropped so the jsonb one can replace it.
drop function if exists app_private.rotate_agent_webhook_secret(uuid, integer);
create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  -- A secret replaced is a state change, as a webhook's rotation (WEBHOOK_UPDATED) is: AGENT_UPDATED, never the secret.
  -- The first one (create-agent, or before the first delivery) is part of the agent's making.
  if exists (select 1 from app_private.agent_webhook_secrets where agent_id = v_agent.id) then
    perform app_private.record_event(v_agent.workspace_id, 'AGENT_UPDATED', 'agent', v_agent.id, jsonb_build_object(
      'agentId', v_agent.id, 'profileKey', v_agent.profile_key, 'changes', jsonb_build_array('webhookSecret'),
      'previousSecretValidUntil', v_until));
  end if;
  -- As a webhook's rotation: the old secret signs beside the new one for the grace (0: stops at once).
  insert into app_private.agent_webhook_secrets as s (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update
  set previous_secret = case when v_until is not null then s.secret end, previous_secret_expires_at = v_until,
      secret = excluded.secret, rotated_at = now()
  returning previous_secret_expires_at into v_until;
  return jsonb_build_object('secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer) is 'Sets a new signing secret for an agent''s dispatch deliveries (a secret replaced writes AGENT_UPDATED changes [webhookSecret], never the secret) and returns {secret (shown once), previousSecretValidUntil}: the old one also signs until then (null: it stopped at once, or there was none).';

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

create or replace function app_private.take_work_from_agent(p_workspace_id uuid, p_agent_id uuid, p_reason text)
 returns uuid[]
 language plpgsql
as $$
declare v_taken uuid[];
begin
  -- The caller holds the agent's issues locked (the lock order of every issue write: issues, then runs and agent).
  perform set_config('svc.run_end_reason', p_reason, true);  -- AGENT_RUN_STATUS_CHANGED by trigger
  update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where workspace_id = p_workspace_id and agent_id = p_agent_id and status in ('ACTIVE', 'WAITING', 'STALLED');
  perform set_config('svc.run_end_reason', '', true);
  perform set_config('svc.unassign_reason', p_reason, true);  -- ISSUE_UPDATED by trigger
  with taken as (
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = p_agent_id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'))
    returning i.id)
  select coalesce(array_agg(t.id order by t.id), '{}') into v_taken from taken t;
  perform set_config('svc.unassign_reason', '', true);
  return v_taken;
end
$$;
comment on function app_private.take_work_from_agent(p_workspace_id uuid, p_agent_id uuid, p_reason text) is 'An agent that will not work any more (archived, or gone OFFLINE and silent): its open runs end (ABANDONED, AGENT_RUN_STATUS_CHANGED reason p_reason) and its unfinished issues are unassigned (ISSUE_UPDATED with unassignedAgentId and unassignReason p_reason; queued ones go back to the dispatcher). Returns the ids of the issues taken. The caller locks the agent''s issues first.';

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
  -- Decided again on the locked row: a concurrent archive (or restore) may have committed since the read above, and
  -- writing over it restamped archivedAt with an AGENT_UPDATED saying "restored" (archived: false).
  v_agent := app_private.agent_for_write(p_workspace_id, p_agent_id);
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform app_private.take_work_from_agent(p_workspace_id, v_agent.id, 'agent_archived');
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    -- Its plan steps pass to a live crew member. Their events are the workspace's (svc admin sets none).
    perform set_config('svc.workspace_id', p_workspace_id::text, true);
    perform app_private.steps_pass_over_archived_agent(p_workspace_id, v_agent.id);
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs and unassigns its unfinished issues (take_work_from_agent, reason agent_archived), passes its plan steps to a live crew member and sets it OFFLINE.';

create or replace function app_private.agent_has_live_key(p_agent_id uuid, p_at timestamp with time zone default now())
 returns boolean
 language sql
 stable
 set search_path to 'pg_catalog'
as $$
  select exists (select 1 from app_private.api_keys k
                 where k.linked_agent_id = p_agent_id and k.revoked_at is null and (k.expires_at is null or k.expires_at > p_at))
$$;
comment on function app_private.agent_has_live_key(p_agent_id uuid, p_at timestamp with time zone) is 'Whether an agent holds a key that acts at p_at (not revoked, not expired): without one it cannot heartbeat, claim or report (the revocation trigger and the presence sweep set it OFFLINE).';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row record;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. One whose keys have
  -- all expired cannot act either (a revoked last key sets it OFFLINE at once, by trigger): OFFLINE now, reason
  -- keys_expired, rather than when its silence reaches the window; one that never had a key is left to the window.
  -- SKIP LOCKED: an agent being assigned or heartbeating right now is left for the next sweep.
  for v_row in
    select a as agent, case when s.silent then 'heartbeat_timeout' else 'keys_expired' end as reason
    from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    cross join lateral (select coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes) as silent) s
    where a.status <> 'OFFLINE' and a.archived_at is null
      and (s.silent or (exists (select 1 from app_private.api_keys k where k.linked_agent_id = a.id)
                        and not app_private.agent_has_live_key(a.id, p_now)))
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    perform set_config('svc.agent_status_reason', v_row.reason, true);
    update app_public.agents set status = 'OFFLINE' where id = (v_row.agent).id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', (v_row.agent).id, 'agentId', (v_row.agent).id,
      'workspaceId', (v_row.agent).workspace_id, 'lastHeartbeatAt', (v_row.agent).last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), and those whose keys have all expired (reason keys_expired), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.sweep_offline_agents_work(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  r record;
  v_taken uuid[];
  v_fired jsonb := '[]';
begin
  -- A crashed agent's work goes back: an agent the presence sweep or its keys made OFFLINE (heartbeat_timeout,
  -- keys_expired, keys_revoked), that has not called with any of its keys since, for the workspace's
  -- offlineReclaimMinutes, loses its open runs and its unfinished issues (queued ones go back to the dispatcher),
  -- as an archived agent does. Before, they stayed assigned to it until someone archived it or unassigned them.
  -- An agent that said OFFLINE itself, or never came online, keeps what it holds: it is expected back.
  for r in
    select a.id, a.workspace_id, o.offline_at, o.reason
    from app_public.workspaces w
    join app_public.agents a on a.workspace_id = w.id and a.status = 'OFFLINE' and a.archived_at is null
    cross join lateral (
      select e.created_at as offline_at, e.payload->>'reason' as reason from app_public.activity_events e
      where e.workspace_id = a.workspace_id and e.subject_type = 'agent' and e.subject_id = a.id and e.kind = 'AGENT_STATUS_CHANGED'
      order by e.seq desc limit 1) o
    where w.offline_reclaim_minutes > 0
      and o.reason in ('heartbeat_timeout', 'keys_expired', 'keys_revoked')
      and o.offline_at <= p_now - make_interval(mins => w.offline_reclaim_minutes)
      and not exists (select 1 from app_private.api_keys k where k.linked_agent_id = a.id and k.last_used_at > o.offline_at)
      and (exists (select 1 from app_public.agent_runs ar
                   where ar.workspace_id = a.workspace_id and ar.agent_id = a.id and ar.status in ('ACTIVE', 'WAITING', 'STALLED'))
           or exists (select 1 from app_public.issues i join app_public.statuses s on s.id = i.status_id
                      where i.workspace_id = a.workspace_id and i.assigned_agent_id = a.id and i.deleted_at is null
                        and s.category not in ('DONE', 'CANCELED')))
    order by a.workspace_id, a.id
  loop
    -- Issues first, then the agent (the lock order of every assignment); then decided again on the locked agent: a
    -- heartbeat since the read above brought it back.
    perform 1 from app_public.issues i
    where i.workspace_id = r.workspace_id and i.assigned_agent_id = r.id and i.deleted_at is null
    order by i.id for update;
    perform 1 from app_public.agents a where a.id = r.id and a.status = 'OFFLINE' and a.archived_at is null for update;
    continue when not found;
    v_taken := app_private.take_work_from_agent(r.workspace_id, r.id, 'agent_offline');
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_WORK_RECLAIMED', 'subjectId', r.id, 'agentId', r.id,
      'workspaceId', r.workspace_id, 'issueIds', to_jsonb(v_taken), 'offlineSince', r.offline_at, 'offlineReason', r.reason);
  end loop;
  return v_fired;
end
$$;
comment on function app_private.sweep_offline_agents_work(p_now timestamp with time zone) is 'Reclaim sweep: an agent made OFFLINE by the presence sweep or its keys (reason heartbeat_timeout, keys_expired, keys_revoked) that has made no call with its keys for the workspace''s offlineReclaimMinutes (0 = never) at p_now loses its open runs (ABANDONED, reason agent_offline) and its unfinished issues (unassigned, unassignReason agent_offline; queued ones go back to the dispatcher). An agent that set itself OFFLINE keeps its work. Returns [{kind: AGENT_WORK_RECLAIMED, subjectId: agentId, agentId, workspaceId, issueIds, offlineSince, offlineReason}]. Run every minute with the other sweeps.';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if coalesce(p_clear_webhook_url, false) and p_webhook_url is not null then
    perform app_hidden.raise_invalid('clearWebhookUrl', 'either webhookUrl or clearWebhookUrl, not both');
  end if;
  perform app_hidden.check_profile_key(p_profile_key);
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409', column = 'profileKey';
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
comment on function app_public.agents_archive(agent_id uuid) is '@arg agentId The agent to archive.
@result The agent, archived (archivedAt set).
OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is '@arg profileKey The agent''s unique handle: 1 to 64 of a-z, 0-9, _ . - starting with a letter or digit (409 when taken).
@arg name Display name, one line of 1 to 200 characters.
@arg capabilities Tags the dispatcher matches against priority names (PRIORITY_MATCH) and label names (CAPABILITY_MATCH); at most 50 of up to 100 characters (default none).
@arg provider The agent client: CUSTOM (default), CLAUDE, CODEX or HERMES.
@arg runtimeMode PERSISTENT (default) or EPHEMERAL.
@arg maxConcurrent Open assigned issues the dispatcher may give the agent at once; 0 = unlimited (default 1).
@arg webhookUrl Where the agent''s dispatch deliveries are POSTed: an http(s) URL, checked before saving; omitted = none.
@result The new agent.
OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is '@arg agentId The agent to delete; refused (409 agent_in_use) while anything refers to it.
@result The deleted agent, as it was.
OWNER/ADMIN: deletes an agent nothing refers to (otherwise 409 agent_in_use naming what does, such as issues, comments, runs, chat threads or action requests: archive it instead). Its keys are revoked and every member''s pins of it go. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is '@arg agentId The archived agent to restore.
@result The agent, restored (archivedAt null).
OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is '@arg agentId The agent to change.
@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg profileKey New handle (409 when taken); omitted = unchanged.
@arg capabilities Replaces the capability tags; omitted = unchanged.
@arg provider CUSTOM, CLAUDE, CODEX or HERMES; omitted = unchanged.
@arg runtimeMode PERSISTENT or EPHEMERAL; omitted = unchanged.
@arg maxConcurrent Open assigned issues at once, 0 = unlimited; omitted = unchanged.
@arg webhookUrl New dispatch URL, checked before saving; omitted = unchanged.
@arg clearWebhookUrl True removes the dispatch URL (not together with webhookUrl).
@result The agent as changed.
OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
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
    perform app_hidden.raise_not_found('Event', null);
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues)
 returns boolean
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- An agent acts through its keys: it sees an issue when one of its live keys does (spec 5.6). One never given a key
  -- is driven only by its dispatch webhook, whose payload is all it gets: not limited. One whose keys are all revoked or
  -- expired sees nothing (its narrowed key revoked, it counted as keyless and so unlimited, re-test).
  with keys as (
    select k.project_ids, k.label_ids, k.revoked_at is null and (k.expires_at is null or k.expires_at > now()) as live
    from app_private.api_keys k where k.linked_agent_id = p_agent_id)
  select not exists (select 1 from keys)
      or exists (select 1 from keys
                 where keys.live
                   and ((cardinality(keys.project_ids) = 0 and cardinality(keys.label_ids) = 0)
                        or p_issue.project_id = any(keys.project_ids)
                        or p_issue.label_ids && keys.label_ids))
$$;
comment on function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues) is 'Whether the agent can read the issue through one of its live keys (their project or label narrowing), or was never given a key (driven by its dispatch webhook only); one whose keys are all revoked or expired sees none. The dispatcher gives an agent only what it can see; assigning or chatting about an issue it cannot see is refused.';
grant execute on function app_hidden.agent_sees_issue(p_agent_id uuid, p_issue app_public.issues) to svc_visitor;

create or replace function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text)
 returns void
 language plpgsql
 stable
as $$
begin
  if not app_hidden.agent_sees_issue(p_agent.id, p_issue) then
    -- Assigned, it got the dispatch and could neither read nor work the issue, and held a slot (fleet probe).
    raise exception 'Agent % cannot see %: its keys are narrowed to other projects or labels', p_agent.profile_key, p_issue.key
      using errcode = 'SV409', detail = 'agent_cannot_see_issue', column = p_field;
  end if;
end
$$;
comment on function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text) is '409 agent_cannot_see_issue (naming p_field) unless the agent can see the issue (agent_sees_issue).';
grant execute on function app_hidden.require_agent_sees_issue(p_agent app_public.agents, p_issue app_public.issues, p_field text) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included agents/tools/heartbeat.sql
-- The agents.heartbeat tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one UPDATE sets status (default ONLINE) and lastHeartbeatAt (and attaches runtimeId); the trigger writes
-- AGENT_STATUS_CHANGED only when the status changed. Keys without an agent, archived or foreign agents: 403.
create or replace function app_tools.agents_heartbeat(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_runtime app_public.runtimes;
begin
  if args->>'runtimeId' is not null then
    v_runtime := app_hidden.find_live_runtime(args->>'runtimeId');
    -- Moving the agent onto another runtime is a runtime change (the agent serves the whole workspace): a narrowed
    -- key attached its agent to a shared runtime and then rewrote that runtime's info as "its own".
    if v_runtime.id is distinct from v_agent.runtime_id then
      perform app_hidden.require_unnarrowed('Attaching the agent to another runtime changes what serves the whole workspace');
    end if;
  end if;
  update app_public.agents a
  set status = coalesce(args->>'status', 'ONLINE'), last_heartbeat_at = now(),
      runtime_id = coalesce(v_runtime.id, a.runtime_id)
  where a.id = v_agent.id
  returning * into v_agent;
  -- The key again, now that the agent's row is ours: a heartbeat that waited on it while the agent's last key was
  -- revoked (which sets it OFFLINE) brought it back ONLINE with no key to act, until the presence sweep.
  perform app_hidden.require_live_key();
  return app_hidden.agent_json(v_agent);
end
$$;
grant execute on function app_tools.agents_heartbeat(args jsonb) to svc_visitor;
comment on function app_tools.agents_heartbeat(args jsonb) is 'agents.heartbeat: Presence of the calling key''s agent: sets status (default ONLINE) and lastHeartbeatAt; runtimeId attaches it to a runtime (archived: 409). AGENT_STATUS_CHANGED when the status changes. No heartbeat for agentRunStaleMinutes (workspace.get) → OFFLINE, no dispatched work; silent offlineReclaimMinutes more → its runs end, its issues are unassigned (not if it sent OFFLINE). Presence only: runs stay ACTIVE by status lines, comments, usage. Keys without a live agent: 403.';
--! EndIncluded agents/tools/heartbeat.sql
--! Included executionPlans/tools/transitionStep.sql
-- The executionPlans.transitionStep tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves a step of a RUNNING plan: DONE cascades readiness (and completes the plan), REVIEW dispatches the judge when the plan auto-judges, BLOCKED opens a gate.
create or replace function app_tools.execution_plans_transition_step(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_step app_public.execution_steps := app_hidden.find_step(args->>'stepId');
  v_plan app_public.execution_plans;
  v_to text := args->>'status';
  v_ready uuid[] := '{}';
  v_judge uuid;
  v_gate app_public.review_gates;
  v_held app_public.review_gates;
  v_source_run uuid := app_hidden.parse_uuid(args->>'sourceRunId', 'sourceRunId');
begin
  v_plan := app_hidden.lock_plan(v_step.plan_id);
  select * into v_step from app_public.execution_steps where id = v_step.id;
  if v_plan.status <> 'RUNNING' then
    raise exception 'Plan is %; its steps move only while it runs', v_plan.status using errcode = 'SV409', detail = 'plan_not_running';
  end if;
  -- A pending gate holds the step: a person decides it (reviewGates.resolve); only canceling the step (which
  -- cancels the gate) goes around it.
  if v_to <> 'CANCELED' and exists (select 1 from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING') then
    raise exception 'A review gate holds this step: resolve it with reviewGates.resolve' using errcode = 'SV409', detail = 'gate_pending';
  end if;
  -- A step in REVIEW waits for its verdict, and a plan that judges its steps judges every one: no agent but its judge
  -- passes it (DONE); its worker moves it to REVIEW. The worker passing its own work (REVIEW → READY → DONE went around
  -- the review) or a fellow worker's is 403; a person still may. Nor does a worker cancel its own step.
  if app_hidden.current_agent_id() is not null and app_hidden.current_agent_id() is distinct from v_step.judge_agent_id then
    if v_to = 'DONE' and (v_step.status = 'REVIEW' or app_hidden.plan_auto_judges(v_plan)) then
      perform app_hidden.step_refuse_non_judge(v_step);
    end if;
    -- Otherwise an agent working in the plan moves its own steps, or any as its planner.
    perform app_hidden.plan_assert_own_step(v_plan, v_step);
  end if;
  if v_to = 'CANCELED' then
    perform app_hidden.plan_assert_may_end(v_plan, v_step);
  end if;
  if v_source_run is not null then
    -- The run the move comes from: one of this step's runs.
    if not exists (select 1 from app_public.agent_runs r where r.id = v_source_run and r.step_id = v_step.id) then
      raise exception 'Run not found among this step''s runs' using errcode = 'SV404', column = 'sourceRunId';
    end if;
    update app_public.execution_steps set source_run_id = v_source_run
    where id = v_step.id returning * into v_step;
  end if;
  if v_to = 'READY' then
    if v_step.status = 'READY' then
      perform app_hidden.assert_move('step', 'Step', v_step.status, v_to);
    end if;
    v_step := app_hidden.step_make_ready(v_step);
  elsif v_to = 'BLOCKED' then
    v_gate := app_hidden.step_block(v_step, 'STEP_BLOCKED', format('Step "%s" is blocked', v_step.title),
                                    jsonb_build_object('note', args->>'note'));
  else
    v_step := app_hidden.step_move(v_step, v_to);
    if v_to = 'REVIEW' and app_hidden.plan_auto_judges(v_plan) then
      v_judge := app_hidden.crew_agent_for_role((select g.crew_id from app_public.goals g where g.id = v_plan.goal_id), 'REVIEWER', v_step.position,
                                             (select g.issue_id from app_public.goals g where g.id = v_plan.goal_id));
      if v_judge is not null then
        perform app_hidden.step_dispatch_judge(v_step, v_judge);
      end if;
    elsif v_to in ('DONE', 'CANCELED') then
      if v_to = 'CANCELED' then
        for v_held in select * from app_public.review_gates g where g.step_id = v_step.id and g.status = 'PENDING' loop
          perform app_hidden.gate_move(v_held, 'CANCELED', 'the step was canceled');
        end loop;
      end if;
      v_ready := app_hidden.plan_cascade(v_plan.id);
    end if;
  end if;
  select * into v_step from app_public.execution_steps where id = v_step.id;
  select * into v_plan from app_public.execution_plans where id = v_plan.id;
  return jsonb_build_object('step', app_hidden.step_json(v_step), 'planStatus', v_plan.status,
    'goalStatus', (select g.status from app_public.goals g where g.id = v_plan.goal_id),
    'readyStepIds', to_jsonb(v_ready), 'judgeAgentId', v_judge, 'gateId', v_gate.id);
end
$$;
comment on function app_tools.execution_plans_transition_step(args jsonb) is 'executionPlans.transitionStep: Move a step of a RUNNING plan: READY (dependencies DONE; re-dispatches), RUNNING, REVIEW (dispatches the crew''s REVIEWER when the plan auto-judges), DONE (dependants become READY; the last step completes the plan and achieves the goal), BLOCKED (opens a review gate), CANCELED (cancels its pending gate). A step a pending gate holds moves only to CANCELED (409 gate_pending). sourceRunId: one of the step''s runs (404). Who may (else 403 own_step, not_judge, own_plan, person_required): DONE, where the plan judges steps or from REVIEW, the step''s judge or a person; other moves, the step''s worker or judge, the planner or a person; CANCELED, a person, the planner or an agent outside the plan, and under a pending gate only one who may decide it.';
grant execute on function app_tools.execution_plans_transition_step(args jsonb) to svc_visitor;
--! EndIncluded executionPlans/tools/transitionStep.sql
