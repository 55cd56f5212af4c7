-- The runs.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- runs on issues the key can see, newest first by startedAt; filters agentId, issueId, status; {items, nextCursor}.
create or replace function app_tools.runs_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_issue uuid;
  v_agent uuid := app_hidden.parse_uuid(args->>'agentId', 'agentId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  if args->>'before' is not null then
    select k.sort_key, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode_ts(args->>'before', 'runs', 'before') k;
  end if;
  with page as (
    select r from app_public.agent_runs r
    where r.workspace_id = app_hidden.current_workspace_id()
      and (v_agent is null or r.agent_id = v_agent)
      and (v_issue is null or r.issue_id = v_issue)
      and (args->>'status' is null or r.status = args->>'status')
      and (v_after_ts is null or (r.started_at, r.id) < (v_after_ts, v_after_id))
      and exists (select 1 from app_public.issues i where i.id = r.issue_id and i.deleted_at is null)  -- as find_run
    order by r.started_at desc, r.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.run_list_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('runs', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
grant execute on function app_tools.runs_list(args jsonb) to svc_visitor;
comment on function app_tools.runs_list(args jsonb) is 'runs.list: Agent runs on issues the key can see, newest first by startedAt: status, currentStep, timestamps, token usage, costUsd, issue {id, key, number, title, workspace {key}}, agent {id, profileKey}. Page with before = nextCursor.';
