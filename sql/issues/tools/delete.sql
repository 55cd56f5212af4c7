-- The issues.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft delete (deletedAt; ISSUE_DELETED). The issue disappears from reads and lists; its open runs are
-- abandoned; its live sub-issues are detached (parentId null, ISSUE_UPDATED) by the _810_detach_children trigger.
-- Run-mode gated.
create or replace function app_tools.issues_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  -- A sub-issue deleted leaves its parent's tree, as one moved out does: run-mode gated on the parent too (its
  -- children detached are gated by the issues trigger).
  if v_issue.parent_id is not null then
    perform app_hidden.assert_run_mode_allows_mutation(v_issue.parent_id);
  end if;
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where issue_id = v_issue.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  update app_public.issues set deleted_at = now() where id = v_issue.id;  -- ISSUE_DELETED, children detached: triggers
  return jsonb_build_object('ok', true, 'id', v_issue.id, 'key', v_issue.key, 'deleted', true);
end
$$;
comment on function app_tools.issues_delete(args jsonb) is 'issues.delete: Delete an issue (soft: it disappears from reads and lists but is kept for audit; ISSUE_DELETED). Open agent runs on it are abandoned; its sub-issues become top-level (parentId null, ISSUE_UPDATED each).';
grant execute on function app_tools.issues_delete(args jsonb) to svc_visitor;
