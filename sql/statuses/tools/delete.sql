-- The statuses.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a status (OWNER/ADMIN, key without narrowing); its issues (trashed ones too) move to moveIssuesTo first,
-- each with its ISSUE_STATUS_CHANGED. Refused (409): the default status, the last DONE status, a status holding
-- issues without moveIssuesTo.
create or replace function app_tools.statuses_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_status app_public.statuses := app_hidden.find_status(args->>'id');
  v_to app_public.statuses;
  v_held int;
  v_moved int := 0;
begin
  if v_status.is_default then
    raise exception 'This is the default status (where new issues start); make another status the default first (statuses.update isDefault)'
      using errcode = 'SV409', detail = 'default_status';
  end if;
  perform app_hidden.require_other_done_status(v_status);
  if args->>'moveIssuesTo' is not null then
    v_to := app_hidden.find_status(args->>'moveIssuesTo', 'moveIssuesTo');
    if v_to.id = v_status.id then
      perform app_hidden.raise_invalid('moveIssuesTo', 'moveIssuesTo must be another status than the one deleted');
    end if;
  end if;
  -- Only this status is row-locked: no issue can enter it until the delete commits (their foreign key waits).
  perform from app_public.statuses s where s.id = v_status.id for update;
  select count(*) into v_held from app_public.issues i where i.workspace_id = v_ws and i.status_id = v_status.id;
  if v_held > 0 then
    if v_to.id is null then
      raise exception '% issue(s) are in this status (trashed ones count: they may be restored); give moveIssuesTo', v_held
        using errcode = 'SV409', detail = 'status_in_use';
    end if;
    -- As the caller: the issue triggers record ISSUE_STATUS_CHANGED and stamp startedAt/completedAt.
    update app_public.issues i set status_id = v_to.id where i.workspace_id = v_ws and i.status_id = v_status.id;
    get diagnostics v_moved = row_count;
  end if;
  delete from app_public.statuses s where s.id = v_status.id;
  -- No count in the event: every key reads it, and a narrowed one must not learn how many issues it cannot see.
  perform app_hidden.record_status_event('STATUS_DELETED', v_status, jsonb_build_object('movedIssuesTo', v_to.id));
  return jsonb_build_object('ok', true, 'id', v_status.id, 'movedIssues', v_moved, 'movedIssuesTo', v_to.id);
end
$$;
comment on function app_tools.statuses_delete(args jsonb) is 'statuses.delete: OWNER/ADMIN, unnarrowed key: delete a status, its issues moving to moveIssuesTo (required if it has any). Not the default nor the last DONE status.';
grant execute on function app_tools.statuses_delete(args jsonb) to svc_visitor;
