-- The issues.removeLabels tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes labels (absent: no change). A label-narrowed key may not remove the label that makes the issue
-- visible to it (403 narrowing). Run-mode gated.
create or replace function app_tools.issues_remove_labels(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_remove uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
begin
  if (select count(*) from app_public.labels l where l.id = any(v_remove)) <> cardinality(array(select distinct unnest(v_remove))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_remove_labels(args jsonb) is 'issues.removeLabels: Remove labels from an issue (labels not on it are ignored). Returns the full issue.';
grant execute on function app_tools.issues_remove_labels(args jsonb) to svc_visitor;
