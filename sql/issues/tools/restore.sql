-- The issues.restore tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes issues.delete (no retention window: a deleted issue is kept, so any time): the issue (id or key; a
-- deleted one the key could see, else 404) is live again with its comments, labels, watchers and relations,
-- which the deletion left in place. 409 not_deleted for a live issue. ISSUE_RESTORED, and the sub-issues its
-- deletion detached are reattached: triggers _800_events and _811_restore_links. Abandoned runs stay closed.
-- Run-mode gated.
create or replace function app_tools.issues_restore(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ref text := args->>'id';
  v_issue app_public.issues;
begin
  -- Its detached sub-issues come back under it (_811_restore_links), a parent change like any other.
  perform app_hidden.lock_issue_parents();
  -- find_issue's lookup, deleted issues included (the policies still narrow).
  if v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_issue from app_public.issues i where i.id = v_ref::uuid for update;
  else
    select * into v_issue from app_public.issues i
    where i.workspace_id = app_hidden.current_workspace_id() and i.key = upper(v_ref) for update;
  end if;
  if v_issue.id is null then
    raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
  end if;
  if v_issue.deleted_at is null then
    raise exception 'Issue % is not deleted', v_issue.key using errcode = 'SV409', detail = 'not_deleted';
  end if;
  perform app_hidden.assert_run_mode_allows_mutation(v_issue.id);
  -- A sub-issue restored joins its parent's tree again.
  if v_issue.parent_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v_issue.parent_id);
  end if;
  update app_public.issues set deleted_at = null where id = v_issue.id;
  return app_hidden.issue_json_after_write(v_issue.id);
end
$$;
grant execute on function app_tools.issues_restore(args jsonb) to svc_visitor;
comment on function app_tools.issues_restore(args jsonb) is 'issues.restore: Undo issues.delete (any time): comments, labels, watchers, relations and the sub-issues it detached come back (ISSUE_RESTORED); runs stay closed; 409 if live.';
