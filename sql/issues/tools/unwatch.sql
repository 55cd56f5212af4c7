-- The issues.unwatch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes the caller's own watch (agent or user); idempotent.
create or replace function app_tools.issues_unwatch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
begin
  perform app_hidden.require_user_or_agent();
  if v_agent is not null then
    delete from app_public.issue_watchers where issue_id = v_issue.id and agent_id = v_agent;
  else
    delete from app_public.issue_watchers
    where issue_id = v_issue.id and agent_id is null and user_id = app_hidden.current_user_id();
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', false);
end
$$;
comment on function app_tools.issues_unwatch(args jsonb) is 'issues.unwatch: Stop watching an issue (removes only the caller''s own watch). Idempotent.';
grant execute on function app_tools.issues_unwatch(args jsonb) to svc_visitor;
