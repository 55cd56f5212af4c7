-- issues: one item of issues.updateMany (issues.createMany items are plain issues.create inputs).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.update_many_item(p_item jsonb, p_done jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(p_item->>'id');
begin
  if p_done @> jsonb_build_array(jsonb_build_object('id', v_issue.id)) then
    perform app_hidden.raise_invalid('id', 'this issue appears more than once in the batch');
  end if;
  return app_hidden.issue_json(app_hidden.update_issue(v_issue, p_item - 'id'), false);
end
$$;
comment on function app_hidden.update_many_item(p_item jsonb, p_done jsonb) is 'issues.updateMany, one patch ({id, ...issues.update fields}): the lean issue after the update; 400 on id when an earlier item (p_done) already updated this issue.';
grant execute on function app_hidden.update_many_item(p_item jsonb, p_done jsonb) to svc_visitor;
