-- The runs.kick tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- an ACTIVE or STALLED run quiet for 5 minutes or more: records AGENT_RUN_KICKED (subject: the run's issue) and queues it
-- to the agent's dispatch channel (agent:dispatch:<agentId>); the run itself is unchanged. Otherwise kicked false.
create or replace function app_tools.runs_kick(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs := app_hidden.find_run(args->>'runId');
  v_quiet interval;
  v_event uuid;
begin
  -- One kick of a run at a time: two at once each saw no recent kick and both fired (two deliveries to the agent).
  -- The check below reads with a snapshot taken after the lock, so it sees the other's kick once committed.
  perform pg_advisory_xact_lock(hashtextextended('svc.run-kick:' || v_run.id::text, 0));
  v_run := app_hidden.find_run(v_run.id::text);
  v_quiet := now() - v_run.last_event_at;
  -- A kick counts as the run's latest nudge: the next one is due 5 minutes after it (each kick re-sends the
  -- agent's dispatch delivery, so repeating it at once only floods the agent).
  -- Nor is a run of a closed issue kicked (an agent that moved its issue to Done without runs.complete was sent
  -- the Done issue's dispatch again).
  -- A STALLED run is the quiet one most in need of it (kicked, it stays STALLED until its agent reports).
  if v_run.status not in ('ACTIVE', 'STALLED') or v_quiet < interval '5 minutes'
     or (select s.category from app_public.issues i join app_public.statuses s on s.id = i.status_id
         where i.id = v_run.issue_id) in ('DONE', 'CANCELED')
     or exists (
       select 1 from app_public.activity_events e
       where e.workspace_id = v_run.workspace_id and e.subject_type = 'issue' and e.subject_id = v_run.issue_id
         and e.kind = 'AGENT_RUN_KICKED' and e.payload->>'runId' = v_run.id::text
         and e.created_at > now() - interval '5 minutes') then
    return jsonb_build_object('ok', true, 'kicked', false, 'runId', v_run.id, 'status', v_run.status,
      'quietSeconds', greatest(0, floor(extract(epoch from v_quiet)))::int);
  end if;
  v_event := app_hidden.record_event('AGENT_RUN_KICKED', 'issue', v_run.issue_id, jsonb_build_object(
    'runId', v_run.id, 'agentId', v_run.agent_id, 'issueId', v_run.issue_id,
    'engagementMode', v_run.engagement_mode, 'lastEventAt', v_run.last_event_at,
    'quietMinutes', floor(extract(epoch from v_quiet) / 60)::int)
    -- What the person wants of the agent ("post where you are"), delivered with the kick.
    || case when args->>'reason' is not null then jsonb_build_object('reason', args->>'reason') else '{}' end);
  perform app_hidden.dispatch_to_agent(v_event, v_run.agent_id);
  return jsonb_build_object('ok', true, 'kicked', true, 'runId', v_run.id, 'status', v_run.status,
    'eventId', v_event, 'quietSeconds', floor(extract(epoch from v_quiet))::int);
end
$$;
grant execute on function app_tools.runs_kick(args jsonb) to svc_visitor;
comment on function app_tools.runs_kick(args jsonb) is 'runs.kick: Nudge an ACTIVE or STALLED run of an open issue that has been quiet for 5 minutes or more and not kicked in the last 5: re-fires the agent''s dispatch delivery (agent:dispatch:<agentId>) and records AGENT_RUN_KICKED (with reason, for the agent); the run itself is unchanged. Otherwise {ok: true, kicked: false}.';
