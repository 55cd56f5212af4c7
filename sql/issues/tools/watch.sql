-- The issues.watch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller watches the issue (as its linked agent, else as its user); idempotent.
create or replace function app_tools.issues_watch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
begin
  if v_agent is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, agent_id)
    values (v_issue.workspace_id, v_issue.id, v_agent)
    on conflict (issue_id, agent_id) where agent_id is not null do nothing;
  else
    perform app_hidden.require_user_or_agent();
    perform app_hidden.hold_membership();
    insert into app_public.issue_watchers (workspace_id, issue_id, user_id)
    values (v_issue.workspace_id, v_issue.id, v_user)
    on conflict (issue_id, user_id) where user_id is not null do nothing;
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', true,
    'watcher', case when v_agent is not null then jsonb_build_object('type', 'agent', 'id', v_agent)
                    else jsonb_build_object('type', 'user', 'id', v_user) end);
end
$$;
comment on function app_tools.issues_watch(args jsonb) is 'issues.watch: Watch an issue: as the key''s linked agent when it has one, else as its user. Idempotent.';
grant execute on function app_tools.issues_watch(args jsonb) to svc_visitor;
