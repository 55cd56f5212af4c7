-- The labels.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- labels of the workspace by name (query = substring, case-insensitive), paged.
create or replace function app_tools.labels_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
  v_query text := nullif(btrim(coalesce(args->>'query', '')), '');
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'labels');
  end if;
  return app_hidden.page_json(array(
    select (app_hidden.label_json(l), lower(l.name), null)::app_hidden.page_row
    from app_public.labels l
    where l.workspace_id = app_hidden.current_workspace_id()
      and (v_after is null or lower(l.name) > v_after)
      and (v_query is null or strpos(lower(l.name), lower(v_query)) > 0)
    order by lower(l.name) limit v_limit + 1), v_limit, 'labels');
end
$$;
comment on function app_tools.labels_list(args jsonb) is 'labels.list: Labels of the workspace, by name. query matches part of the name. Use label ids with issues.addLabels / removeLabels or issues.update labelIds.';
grant execute on function app_tools.labels_list(args jsonb) to svc_visitor;
