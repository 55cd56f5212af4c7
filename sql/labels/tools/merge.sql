-- The labels.merge tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- every issue carrying the label fromId (deleted issues too: they keep their labels) gets intoId, then fromId is
-- deleted as labels.delete deletes it (dispatch rules on it go with it: only workspace admins may merge a label
-- rules use). One ISSUE_UPDATED (labelIds) per issue
-- that carried fromId, by the issue_labels triggers. Not for narrowed keys (they would relabel issues they
-- cannot see).
create or replace function app_tools.labels_merge(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_from app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'fromId', 'fromId') and l.workspace_id = v_ws),
    'Label', 'fromId');
  v_into app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'intoId', 'intoId') and l.workspace_id = v_ws),
    'Label', 'intoId');
  v_carried int;
  v_added int;
begin
  if v_from.id = v_into.id then
    perform app_hidden.raise_invalid('intoId', 'must be another label than fromId');
  end if;
  perform app_hidden.require_issues_unrestricted('Merging labels');
  -- Both labels locked, in id order: a concurrent rename, delete or merge of either waits for this one. `into`
  -- only FOR NO KEY UPDATE: labelling an issue with it takes KEY SHARE on it while holding the issue's row, and
  -- this merge then waits for that issue (a FOR UPDATE here deadlocked them).
  if v_from.id < v_into.id then
    perform from app_public.labels l where l.id = v_from.id for update;
    perform from app_public.labels l where l.id = v_into.id for no key update;
  else
    perform from app_public.labels l where l.id = v_into.id for no key update;
    perform from app_public.labels l where l.id = v_from.id for update;
  end if;
  -- Read before the locks: a concurrent merge or delete may have removed either label while this one waited.
  perform app_hidden.found((select l from app_public.labels l where l.id = v_from.id), 'Label', 'fromId');
  perform app_hidden.found((select l from app_public.labels l where l.id = v_into.id), 'Label', 'intoId');
  perform app_hidden.require_rules_admin_for_label(v_from, 'merge it away (its rules go with it)');
  -- Then the issues carrying `from`, in id order, before writing any of their labels: an issue being labelled
  -- concurrently holds its row while it inserts (issue, into); taking the row first makes this merge wait for
  -- that write instead of both waiting on each other's (issue, into) row.
  perform from app_public.issues i
  where i.workspace_id = v_ws and i.id in (select il.issue_id from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id)
  order by i.id for update;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select il.workspace_id, il.issue_id, v_into.id from app_public.issue_labels il
  where il.workspace_id = v_ws and il.label_id = v_from.id
  on conflict do nothing;
  get diagnostics v_added = row_count;
  delete from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id;
  get diagnostics v_carried = row_count;
  delete from app_public.labels l where l.id = v_from.id;
  return jsonb_build_object('ok', true, 'fromId', v_from.id, 'fromName', v_from.name,
                            'into', app_hidden.label_json(v_into), 'issueCount', v_carried, 'addedToIssues', v_added);
end
$$;
grant execute on function app_tools.labels_merge(args jsonb) to svc_visitor;
comment on function app_tools.labels_merge(args jsonb) is 'labels.merge: Merge label fromId into intoId: its issues get intoId, then fromId is deleted (as labels.delete). Returns the surviving label and issue counts. Keys narrowed to projects or labels may not.';
