--! Previous: sha1:5556ea390a2811468947fc5b1a847bbf556abeb2
--! Hash: sha1:77001ee64af47dbea547e64b2549252350f2ff9e
--! Message: issues.transition takes the status by name too

--! split: 1-current.sql
-- issues.transition takes the status by name too (status, case-insensitive): an agent on the runtime profile, which
-- does not list statuses, could not move an issue (an agent-loop probe).
--! Included issues/tools/transition.sql
-- The issues.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves the issue to another status of the workspace (any move is allowed; ISSUE_STATUS_CHANGED only on a
-- real move). Run-mode gated.
create or replace function app_tools.issues_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_status_id text := args->>'statusId';
begin
  -- By name (an agent on the runtime profile does not list statuses): the workspace's status of that name.
  if args->>'status' is not null then
    select s.id::text into v_status_id from app_public.statuses s
    where s.workspace_id = v_issue.workspace_id and lower(s.name) = lower(args->>'status');
    if v_status_id is null then
      raise exception 'No status named %', args->>'status' using errcode = 'SV404', column = 'status';
    end if;
  end if;
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status_id));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(args jsonb) is 'issues.transition: Move an issue to another status: statusId (from statuses.list), or status, its name (case-insensitive, e.g. Done), for a key that does not list statuses. Any status may move to any other.';
grant execute on function app_tools.issues_transition(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/transition.sql
