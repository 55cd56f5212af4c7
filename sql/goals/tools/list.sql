-- The goals.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- goals the key can see, newest first, keyset-paged; status filter; archived ones only with includeArchived.
create or replace function app_tools.goals_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'goals');
  -- A crew this workspace does not have is 404, as every list's filter by id (not an empty page).
  v_crew uuid := case when args->>'crewId' is not null then (app_hidden.find_crew(args->>'crewId', 'crewId')).id end;
begin
  return app_hidden.page_json(array(
    select (app_hidden.goal_json(g), app_hidden.ts_key(g.created_at), g.id)::app_hidden.page_row
    from app_public.goals g
    where g.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or g.status = args->>'status')
      and (coalesce((args->>'includeArchived')::boolean, false) or g.archived_at is null)
      and (v_crew is null or g.crew_id = v_crew)
      and (v_after.sort_id is null or (g.created_at, g.id) < (v_after.sort_key, v_after.sort_id))
    order by g.created_at desc, g.id desc limit v_limit + 1), v_limit, 'goals');
end
$$;
comment on function app_tools.goals_list(args jsonb) is 'goals.list: Goals, newest first, paged ({items, nextCursor}), each with planCount and aggregate. Filters: status, crewId; archived goals only with includeArchived.';
grant execute on function app_tools.goals_list(args jsonb) to svc_visitor;
