-- The agent.context.bundle tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- everything an agent needs in one call. issueId: workspace, issue (full), description, comments (last 50,
-- oldest first), attachments, relations, currentRun, artifacts, completionContract, runProtocol,
-- externalResources. threadId: workspace, thread, messages (last 50, oldest first), agent, linkedIssues.
create or replace function app_tools.agent_context_bundle(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_workspace jsonb := (select app_hidden.workspace_json(w) from app_public.workspaces w
                        where w.id = app_hidden.current_workspace_id());
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_run app_public.agent_runs;
  v_own_run app_public.agent_runs;
  v_get jsonb;
begin
  if (args->>'issueId' is null) = (args->>'threadId' is null) then
    perform app_hidden.raise_invalid(case when args->>'issueId' is null then 'issueId' else 'threadId' end,
      'give exactly one of issueId or threadId');
  end if;
  if args->>'issueId' is not null then
    v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
    -- currentRun: the caller's own run when it is an agent with one on this issue, else the issue's current run.
    -- The contract and the run protocol are the caller's own: another agent's RESEARCH run does not make this
    -- caller read-only (spec 3.2), and its runs.complete is not this caller's to call.
    if app_hidden.current_agent_id() is not null then
      v_own_run := app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id());
    end if;
    v_run := case when v_own_run.id is not null then v_own_run else app_hidden.current_run(v_issue.id) end;
    v_get := app_tools.issues_get(jsonb_build_object('id', v_issue.id,
      'include', jsonb_build_object('attachments', true, 'relations', true)));
    return jsonb_build_object(
      'workspace', v_workspace,
      'issue', app_hidden.issue_json(v_issue, true),
      'description', v_issue.description,
      'comments', coalesce((select jsonb_agg(app_hidden.comment_json(c) order by c.created_at, c.id)
                            from (select * from app_public.comments c
                                  where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
                                  order by c.created_at desc, c.id desc limit 50) c), '[]'),
      'commentCount', (select count(*) from app_public.comments c
                       where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null),
      'attachments', v_get->'attachments',
      'relations', v_get->'relations',
      'currentRun', case when v_run.id is not null then app_hidden.run_json(v_run) end,
      -- What earlier runs on this issue reported producing (runs.complete producedArtifactIds), newest run
      -- first; an id that names one of the issue's attachments carries that attachment.
      'artifacts', coalesce((select jsonb_agg(jsonb_build_object(
                                 'id', x.artifact_id, 'runId', r.id, 'agentId', r.agent_id,
                                 'completedAt', r.completion_meta->'completedAt',
                                 'attachment', (select app_hidden.attachment_json(a) from app_public.attachments a
                                                where a.workspace_id = r.workspace_id and a.target_type = 'issue' and a.target_id = r.issue_id
                                                  and a.id::text = x.artifact_id))
                               order by r.started_at desc, r.id, x.n)
                             from (select * from app_public.agent_runs r
                                   where r.workspace_id = v_issue.workspace_id and r.issue_id = v_issue.id
                                     and r.status = 'COMPLETED'
                                     and jsonb_typeof(r.completion_meta->'producedArtifactIds') = 'array'
                                   order by r.started_at desc limit 50) r,
                                  jsonb_array_elements_text(r.completion_meta->'producedArtifactIds') with ordinality x(artifact_id, n)), '[]'),
      'completionContract', jsonb_build_object(
        'engagementMode', coalesce(v_own_run.engagement_mode, 'EXECUTE'),
        'expectedOutput', v_issue.expected_output,
        'verificationChecklist', v_issue.verification_checklist,
        'artifactRequired', v_issue.artifact_required,
        'requires', case coalesce(v_own_run.engagement_mode, 'EXECUTE')
          when 'EXECUTE' then to_jsonb(array_remove(array['summary',
            case when v_issue.artifact_required then 'producedArtifactIds' end,
            case when jsonb_array_length(v_issue.verification_checklist) > 0 then 'verificationResult' end], null))
          when 'RESEARCH' then '["summary", "confidence"]'::jsonb
          when 'REVIEW' then '["summary", "verdict"]'::jsonb
          else '["summary"]'::jsonb end),
      'runProtocol', app_hidden.run_protocol(v_own_run, v_issue),
      -- Linked external issues and pull requests (repohost.link / importIssue), with their latest local snapshot.
      'externalResources', coalesce((select jsonb_agg(app_hidden.repo_link_json(l) order by l.created_at, l.id)
                                     from app_public.external_links l
                                     where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id), '[]'));
  end if;

  if app_hidden.current_agent_id() is not null then
    v_thread := app_hidden.chat_thread_for_agent(args->>'threadId');  -- addressee gating
  else
    select * into v_thread from app_public.chat_threads t
    where t.id = app_hidden.parse_uuid(args->>'threadId', 'threadId');
    if v_thread.id is null then
      raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
    end if;
  end if;
  return jsonb_build_object(
    'workspace', v_workspace,
    'thread', app_hidden.chat_thread_json(v_thread),
    'messages', coalesce((select jsonb_agg(app_hidden.chat_message_json(m) order by m.seq)
                          from (select * from app_public.chat_messages m
                                where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                order by m.seq desc limit 50) m), '[]'),
    'messageCount', (select count(*) from app_public.chat_messages m
                     where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id),
    'agent', (select app_hidden.agent_json(a) from app_public.agents a where a.id = v_thread.agent_id),
    'linkedIssues', coalesce((select jsonb_agg(app_hidden.issue_ref_json(i, s) order by i.number)
                              from app_public.issues i left join app_public.statuses s on s.id = i.status_id
                              where i.workspace_id = v_thread.workspace_id and i.deleted_at is null
                                and (i.id = v_thread.issue_id or i.id::text in (
                                  select m.context_snapshot->>'issueId' from app_public.chat_messages m
                                  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
                                    and m.context_snapshot->>'issueId' is not null))), '[]'));
end
$$;
grant execute on function app_tools.agent_context_bundle(args jsonb) to svc_visitor;
comment on function app_tools.agent_context_bundle(args jsonb) is 'agent.context.bundle: Everything needed to work in one call. With issueId: workspace, issue (full), description, comments (last 50, oldest first) and commentCount (all there are), attachments, relations, currentRun (the caller''s own open run, else the issue''s), artifacts (what earlier runs produced), completionContract, runProtocol {contractVersion, runId, engagementMode, modeInstruction, stepId, protocolInstruction, mayMutateIssue}, externalResources. With threadId: workspace, thread, messages (last 50) and messageCount, agent, linkedIssues (issues named in the messages'' context). Exactly one of issueId or threadId.';
