-- The issues.reassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one transaction: HANDOFF comment "Handoff → @<profileKey>: <rationale>", the swap, ISSUE_ASSIGNED and
-- AGENT_ASSIGNED {reason handoff, rationale, commentId}; new ACTIVE run, previous open run abandoned. 400 for
-- an archived or the same agent, or a rationale under 10 characters. Run-mode gated.
create or replace function app_tools.issues_reassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_agent app_public.agents := app_hidden.find_live_agent(null, 'toProfileKey', args->>'toProfileKey');
  v_rationale text := btrim(args->>'rationale');
  v_comment_id uuid;
  v_run_id uuid;
begin
  if v_issue.assigned_agent_id = v_agent.id then
    raise exception 'The issue is already assigned to %', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'same_agent';
  end if;
  perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'toProfileKey');
  if length(coalesce(v_rationale, '')) < 10 then
    perform app_hidden.raise_invalid('rationale', 'rationale must be at least 10 characters');
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, format('Handoff → @%s: %s', v_agent.profile_key, v_rationale), 'HANDOFF',
          app_hidden.current_user_id(), app_hidden.current_agent_id(),
          (select r.id from app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id()) r))
  returning id into v_comment_id;
  v_run_id := app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'handoff', v_rationale, v_comment_id);
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true) || jsonb_build_object(
    'handoffCommentId', v_comment_id,
    'currentRun', (select app_hidden.run_json(r) from app_public.agent_runs r where r.id = v_run_id));
end
$$;
comment on function app_tools.issues_reassign(args jsonb) is 'issues.reassign: Hand an issue off to another agent in one step: posts the comment "Handoff → @<profileKey>: <rationale>", swaps the assignee, opens the new agent''s run and writes AGENT_ASSIGNED (reason handoff). 400 for an archived or the same agent; 409 agent_cannot_see_issue if its keys cannot see the issue; rationale at least 10 characters.';
grant execute on function app_tools.issues_reassign(args jsonb) to svc_visitor;
