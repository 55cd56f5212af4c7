-- The runs.complete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- closes an open run as COMPLETED after the gates of its mode; completionMeta keeps the contract version and
-- what the agent reported. Only the run's agent. AGENT_RUN_STATUS_CHANGED.
create or replace function app_tools.runs_complete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_issue app_public.issues;
  v_field text;
  v_missing text[];
  v_unknown bigint;
begin
  -- The issue is locked before the run, as the issue tools lock them (issue_for_write, then its runs on assign or
  -- delete), and its checklist is gated and marked done from that one locked row.
  select i.* into v_issue from app_public.issues i where i.id = (app_hidden.find_run(args->>'runId')).issue_id for update;
  v_run := app_hidden.run_for_agent_change(args->>'runId', true);
  -- A produced artifact is an attachment of the run's issue (a file or a link), named by its id: what the context
  -- bundle shows under artifacts. Any other string was taken as given, another workspace's id included.
  select min(a.n) - 1 into v_unknown
  from jsonb_array_elements_text(coalesce(args->'producedArtifactIds', '[]')) with ordinality a(ref, n)
  where not case when a.ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                 then exists (select 1 from app_public.attachments x where x.id = a.ref::uuid
                              and x.workspace_id = v_issue.workspace_id and x.target_type = 'issue' and x.target_id = v_issue.id)
                 else false end;
  if v_unknown is not null then
    perform app_hidden.raise_invalid('producedArtifactIds.' || v_unknown,
      'not an attachment of this issue: attach the artifact to the issue first (attachments.*), then name its id');
  end if;
  -- A verdict is a review's answer: on another run it would contradict the run's mode (an EXECUTE run "approving").
  if v_run.engagement_mode in ('EXECUTE', 'RESEARCH') and args ? 'verdict' then
    perform app_hidden.raise_invalid('verdict', 'only a REVIEW run completes with a verdict; this run is ' || v_run.engagement_mode);
  end if;
  case v_run.engagement_mode
    when 'EXECUTE' then
      if v_issue.artifact_required and coalesce(jsonb_array_length(args->'producedArtifactIds'), 0) = 0 then
        perform app_hidden.raise_invalid('producedArtifactIds', 'this issue requires an artifact: give at least one produced artifact id');
      end if;
      -- Every checklist item must be reported done: [{id | label, done: true}] in verificationResult. An entry
      -- with an id matches the item with that id; one without an id matches by label (exact, after trimming).
      select array_agg(coalesce(c->>'id', c->>'label') order by n) into v_missing
      from jsonb_array_elements(v_issue.verification_checklist) with ordinality as x(c, n)
      where not exists (
        select 1 from jsonb_array_elements(coalesce(args->'verificationResult', '[]')) v
        where coalesce(case when v->>'id' is not null then v->>'id' = c->>'id'
                            else btrim(v->>'label', E' \t\r\n') = btrim(c->>'label', E' \t\r\n') end, false)
          and coalesce((v->>'done')::boolean, false));
      if v_missing is not null then
        perform app_hidden.raise_invalid('verificationResult',
          'every verificationChecklist item must be reported done; missing: ' || array_to_string(v_missing, ', '));
      end if;
      -- Reported done, so done on the issue too (ISSUE_UPDATED, changes verificationChecklist): the checklist people
      -- read said "not done" after the run that did it.
      update app_public.issues set verification_checklist =
        (select jsonb_agg(c || '{"done": true}' order by n) from jsonb_array_elements(verification_checklist) with ordinality x(c, n))
      where id = v_issue.id
        and exists (select 1 from jsonb_array_elements(verification_checklist) c where not coalesce((c->>'done')::boolean, false));
    when 'RESEARCH' then
      if args->>'confidence' is null then
        perform app_hidden.raise_invalid('confidence', 'a RESEARCH run completes with a confidence (LOW, MEDIUM, HIGH)');
      end if;
    when 'REVIEW' then
      if args->>'verdict' is null then
        perform app_hidden.raise_invalid('verdict', 'a REVIEW run completes with a verdict (APPROVE or REQUEST_CHANGES)');
      end if;
    when 'DISCUSS' then
      foreach v_field in array array['producedArtifactIds', 'verificationResult', 'followUps', 'confidence', 'verdict'] loop
        if args ? v_field then
          perform app_hidden.raise_invalid(v_field, 'a DISCUSS run completes with a summary only');
        end if;
      end loop;
  end case;
  update app_public.agent_runs set completion_meta = jsonb_strip_nulls(jsonb_build_object(
    'contractVersion', app_hidden.run_contract_version(), 'summary', args->>'summary',
    'producedArtifactIds', args->'producedArtifactIds', 'verificationResult', args->'verificationResult',
    'followUps', args->'followUps', 'confidence', args->'confidence', 'verdict', args->'verdict',
    'completedAt', now()))
  where id = v_run.id;
  v_run := app_hidden.run_set_status(v_run, 'COMPLETED', 'completed');
  return app_hidden.run_json(v_run);
end
$$;
grant execute on function app_tools.runs_complete(args jsonb) to svc_visitor;
comment on function app_tools.runs_complete(args jsonb) is 'runs.complete: Close an open run as COMPLETED. Gates by mode: EXECUTE needs a produced artifact when the issue has artifactRequired and every verificationChecklist item reported done in verificationResult [{id | label, done}] (by id, else by label: exact after trimming); RESEARCH needs confidence; REVIEW needs verdict (which only a REVIEW run takes); DISCUSS takes a summary only. An EXECUTE completion marks the issue''s checklist items done (ISSUE_UPDATED). completionMeta keeps what was reported and the run contract version. Closes the run only: move the issue to a done status too (issues.transition; an open issue keeps your dispatch slot). A plan step''s run (stepId): executionPlans.transitionStep instead. Only a key linked to the run''s agent (403 otherwise).';
