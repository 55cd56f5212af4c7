-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.agent_id = p_agent_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) is 'The newest open (neither COMPLETED nor ABANDONED) run of one agent on an issue, or NULL.';
grant execute on function app_hidden.agent_open_run(p_issue_id uuid, p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.current_run(p_issue_id uuid)
 returns app_public.agent_runs
 language sql
 stable
as $$
  select r.* from app_public.agent_runs r
  where r.issue_id = p_issue_id and r.workspace_id = app_hidden.current_workspace_id()
    and r.status not in ('COMPLETED', 'ABANDONED')
  order by r.started_at desc, r.id desc
  limit 1
$$;
comment on function app_hidden.current_run(p_issue_id uuid) is 'The current run of an issue (spec 3.3): its newest run that is neither COMPLETED nor ABANDONED, or NULL.';
grant execute on function app_hidden.current_run(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.run_json(r app_public.agent_runs)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', r.id, 'agentId', r.agent_id, 'issueId', r.issue_id, 'stepId', r.step_id, 'status', r.status,
    'engagementMode', r.engagement_mode, 'currentStep', r.current_step,
    'startedAt', r.started_at, 'finishedAt', r.finished_at, 'lastEventAt', r.last_event_at,
    'tokensIn', r.tokens_in, 'tokensOut', r.tokens_out, 'tokensCached', r.tokens_cached, 'costUsd', r.cost_usd,
    'controlState', r.control_state, 'completionMeta', r.completion_meta,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = r.agent_id))
$$;
comment on function app_hidden.run_json(r app_public.agent_runs) is 'AgentRun (spec 2.11) with its agent {id, profileKey, name} and stepId (the execution step it works on, else null).';
grant execute on function app_hidden.run_json(r app_public.agent_runs) to svc_visitor;
