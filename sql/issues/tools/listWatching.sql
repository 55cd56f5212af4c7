-- The issues.listWatching tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- live issues the caller watches (as its agent, else as its user), newest first, paged.
create or replace function app_tools.issues_list_watching(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
  v_before int;
begin
  perform app_hidden.require_user_or_agent();
  if args->>'cursor' is not null then
    v_before := app_hidden.cursor_decode_int(args->>'cursor', 'watching');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.issue_json(i), i.number::text, null)::app_hidden.page_row
    from app_public.issues i
    join app_public.issue_watchers w on w.issue_id = i.id
    where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
      and (case when v_agent is not null then w.agent_id = v_agent
                else w.agent_id is null and w.user_id = v_user end)
      and (v_before is null or i.number < v_before)
    order by i.number desc limit v_limit + 1), v_limit, 'watching');
end
$$;
comment on function app_tools.issues_list_watching(args jsonb) is 'issues.listWatching: Issues the caller watches (its linked agent''s watches, else its user''s), newest first, paged.';
grant execute on function app_tools.issues_list_watching(args jsonb) to svc_visitor;
