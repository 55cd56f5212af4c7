--! Previous: sha1:39e5aca356c3e3621049d575e7c7da227236287b
--! Hash: sha1:20dabe996dccb36d085ad22530e464de7b97585f
--! Message: issues.transition: an unknown status word is 400, as in issues.list

--! split: 1-current.sql
-- issues.transition with a status word that names no status is 400 on status, as issues.list answers the same words
-- (it was 404, which an agent read as "the issue is gone").
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
  -- By words (an agent on the runtime profile does not list statuses): the workspace's status of that name, else the
  -- first status (in workflow order) of that category, as repohost.sync's status rules pick one.
  if args->>'status' is not null then
    v_status_id := ((app_hidden.statuses_named(args->>'status')).ids)[1]::text;
    if v_status_id is null then
      -- 400, as issues.list refuses the same words: the issue is there, the input is wrong (a 404 read as "the issue
      -- is gone" to an agent).
      perform app_hidden.raise_no_status_named(args->>'status', 'status');
    end if;
  end if;
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', v_status_id));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(args jsonb) is 'issues.transition: Move an issue to another status: statusId (from statuses.list), or status, its name (case-insensitive, e.g. Done), for a key that does not list statuses. Any status may move to any other.';
grant execute on function app_tools.issues_transition(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/transition.sql
