-- The issues.children tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the live sub-issues (parentId) of an issue the key can see (id or key), those the key can see (RLS), in
-- creation order (number ascending), keyset-paged.
create or replace function app_tools.issues_children(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_parent app_public.issues := app_hidden.find_issue(args->>'id');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after int := coalesce(app_hidden.cursor_decode_int(args->>'cursor', 'issue-children'), 0);
  v_items json[];
  v_keys text[];
begin
  select array_agg(app_hidden.issue_lean_json(t.i, s, p, a) order by (t.i).number),
         array_agg((t.i).number::text order by (t.i).number)
  into v_items, v_keys
  from (select i from app_public.issues i
        where i.workspace_id = v_parent.workspace_id and i.parent_id = v_parent.id and i.deleted_at is null
          and i.number > v_after
        order by i.number limit v_limit + 1) t
  left join app_public.statuses s on s.id = (t.i).status_id
  left join app_public.projects p on p.id = (t.i).project_id
  left join app_public.agents a on a.id = (t.i).assigned_agent_id;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issue-children');
end
$$;
grant execute on function app_tools.issues_children(args jsonb) to svc_visitor;
comment on function app_tools.issues_children(args jsonb) is 'issues.children: Sub-issues of an issue, oldest first, paged.';
