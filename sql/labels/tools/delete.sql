-- The labels.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys. Dispatch
-- rules on it go with it, so a label they use is for workspace admins only.
create or replace function app_tools.labels_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
  v_count int;
begin
  perform app_hidden.require_rules_admin_for_label(v_label, 'delete it (its rules go with it)');
  -- Take it off issues first (as the caller, so each issue records ISSUE_UPDATED), then delete it.
  delete from app_public.issue_labels where label_id = v_label.id;
  get diagnostics v_count = row_count;
  delete from app_public.labels where id = v_label.id;
  return jsonb_build_object('ok', true, 'id', v_label.id, 'removedFromIssues', v_count);
end
$$;
comment on function app_tools.labels_delete(args jsonb) is 'labels.delete: Delete a label; it comes off every issue. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_delete(args jsonb) to svc_visitor;
