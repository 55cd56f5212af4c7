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
