-- Triggers of action requests: every status change records ISSUE_UPDATED with subjectType action-request.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_action_requests__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'ISSUE_UPDATED', 'action-request', new.id, jsonb_build_object(
      'actionRequestId', new.id, 'issueId', new.issue_id, 'change', 'created', 'status', new.status, 'kind', new.kind,
      'title', new.title, 'isPoll', new.options is not null, 'sourceType', new.source_type,
      -- An issue named as the source may be one a reader of this event cannot see: the request itself shows it to those who can.
      'sourceId', case when new.source_type = 'issue' then null else new.source_id end,
      'assignedUserId', new.assigned_user_id, 'assignedAgentId', new.assigned_agent_id));
  elsif new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'ISSUE_UPDATED', 'action-request', new.id, jsonb_build_object(
      'actionRequestId', new.id, 'issueId', new.issue_id, 'change', 'status', 'from', old.status, 'to', new.status,
      'kind', new.kind));
  end if;
  return null;
end
$$;
comment on function app_private.tg_action_requests__events() is 'ISSUE_UPDATED (subjectType action-request) when a request is created (change created) and on every status move (change status, from, to). Votes and closing write their own (spec 6.4 payloads).';

drop trigger if exists _100_updated_at on app_public.action_requests;
create trigger _100_updated_at before update on app_public.action_requests for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.action_requests;
create trigger _800_events after insert or update of status on app_public.action_requests for each row execute function app_private.tg_action_requests__events();
