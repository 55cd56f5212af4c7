-- The goals.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- title, description (null clears it) of a goal not yet ACHIEVED or ABANDONED (409 goal_closed); GOAL_UPDATED by
-- trigger, none when nothing changes.
create or replace function app_tools.goals_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_goal app_public.goals := app_hidden.find_goal(args->>'id');
begin
  select * into v_goal from app_public.goals where id = v_goal.id for update;
  if v_goal.status in ('ACHIEVED', 'ABANDONED') then
    raise exception 'Goal is %: it can no longer change', lower(v_goal.status) using errcode = 'SV409', detail = 'goal_closed';
  end if;
  update app_public.goals
  set title = coalesce(args->>'title', title),
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_goal.id
    and (coalesce(args->>'title', title), case when args ? 'description' then args->>'description' else description end)
        is distinct from (title, description)
  returning * into v_goal;
  if not found then
    v_goal := app_hidden.find_goal(args->>'id');
  end if;
  return app_hidden.goal_json(v_goal);
end
$$;
comment on function app_tools.goals_update(args jsonb) is 'goals.update: Change the title or description (null clears it) of a goal that is not ACHIEVED or ABANDONED (409 goal_closed). Writes GOAL_UPDATED {changes}; nothing when nothing changes.';
grant execute on function app_tools.goals_update(args jsonb) to svc_visitor;
