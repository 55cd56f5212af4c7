-- The cycles.addIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- puts an issue into a PLANNED or ACTIVE cycle (moving it from another); idempotent; ISSUE_UPDATED (cycleId)
-- by trigger.
create or replace function app_tools.cycles_add_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  perform app_hidden.require_open_cycle(v_cycle);
  if v_issue.cycle_id is distinct from v_cycle.id then
    update app_public.issues set cycle_id = v_cycle.id where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_add_issue(args jsonb) is 'cycles.addIssue: Put one issue into a PLANNED or ACTIVE cycle (moving it out of any other). Idempotent. Returns the issue.';
grant execute on function app_tools.cycles_add_issue(args jsonb) to svc_visitor;
