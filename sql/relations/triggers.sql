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
  v_change text := case tg_op when 'INSERT' then 'added' else 'removed' end;
begin
  -- Which link, to which issue, and what became of it, as attachments say theirs. A narrowed key reads the event
  -- only when it sees both issues (event_subject_visible), as relations.listForIssue lists only those links.
  perform app_private.record_issue_updated(v_row.workspace_id, i, array['relations'],
    jsonb_build_object('relationId', v_row.id, 'relationKind', app_hidden.relation_kind_seen(v_row, i), 'relationChange', v_change,
                       'relatedIssueId', case when i = v_row.from_issue_id then v_row.to_issue_id else v_row.from_issue_id end))
  from unnest(array[v_row.from_issue_id, v_row.to_issue_id]) i;
  return null;
end
$$;
comment on function app_private.tg_issue_relations__events() is 'ISSUE_UPDATED (changes relations; relationId, relationKind as seen from that issue, relatedIssueId the other end, relationChange added/removed) on both issues when a relation is added or removed.';

drop trigger if exists _800_events on app_public.issue_relations;
create trigger _800_events after insert or delete on app_public.issue_relations for each row execute function app_private.tg_issue_relations__events();
