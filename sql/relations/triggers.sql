-- Triggers of the relations tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_issue_relations__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.issue_relations := case when tg_op = 'DELETE' then old else new end;
begin
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.from_issue_id, array['relations']);
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.to_issue_id, array['relations']);
  return null;
end
$$;
comment on function app_private.tg_issue_relations__events() is 'ISSUE_UPDATED (changes relations) on both issues when a relation is added or removed.';

drop trigger if exists _800_events on app_public.issue_relations;
create trigger _800_events after insert or delete on app_public.issue_relations for each row execute function app_private.tg_issue_relations__events();
