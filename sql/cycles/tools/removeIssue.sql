-- The cycles.removeIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes an issue out of the cycle; an issue not in it is left as is (idempotent); ISSUE_UPDATED (cycleId) by
-- trigger.
create or replace function app_tools.cycles_remove_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  if v_issue.cycle_id = v_cycle.id then
    update app_public.issues set cycle_id = null where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_remove_issue(args jsonb) is 'cycles.removeIssue: Take one issue out of a cycle (its cycleId becomes null). An issue not in that cycle is left as it is. Returns the issue.';
grant execute on function app_tools.cycles_remove_issue(args jsonb) to svc_visitor;
