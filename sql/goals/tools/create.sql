-- The goals.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a goal (OPEN), optionally tied to an issue (then it follows that issues narrowing) and a crew. GOAL_CREATED by trigger.
create or replace function app_tools.goals_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue uuid;
  v_crew app_public.agent_crews;
  v_goal app_public.goals;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  else
    perform app_hidden.require_issues_unrestricted('A goal without an issue');
  end if;
  if args->>'crewId' is not null then
    v_crew := app_hidden.find_crew(args->>'crewId', 'crewId');
    if v_crew.archived_at is not null then
      raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
    end if;
  end if;
  insert into app_public.goals (workspace_id, title, description, issue_id, crew_id, max_total_cost_usd, max_wall_time_minutes,
                                created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), args->>'title', args->>'description', v_issue, v_crew.id,
          (args->>'maxTotalCostUsd')::numeric, (args->>'maxWallTimeMinutes')::int,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_goal;
  return app_hidden.goal_json(v_goal);
end
$$;
comment on function app_tools.goals_create(args jsonb) is 'goals.create: Create a goal (OPEN), optionally tied to an issue (runs of its steps are opened on that issue, and the goal follows its narrowing) and run by a crew, with optional cost and wall-time caps. Writes GOAL_CREATED.';
grant execute on function app_tools.goals_create(args jsonb) to svc_visitor;
