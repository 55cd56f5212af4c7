-- The repohost.listLinked tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links of one visible issue with their resources (latest local snapshot), oldest first.
create or replace function app_tools.repohost_list_linked(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
begin
  return coalesce((select jsonb_agg(app_hidden.repo_link_json(l) order by l.created_at, l.id)
    from app_public.external_links l
    where l.workspace_id = v_issue.workspace_id and l.issue_id = v_issue.id
      and (args->>'kind' is null or l.kind = args->>'kind')), '[]');
end
$$;
grant execute on function app_tools.repohost_list_linked(args jsonb) to svc_visitor;
comment on function app_tools.repohost_list_linked(args jsonb) is 'repohost.listLinked: External issues and pull requests linked to an issue, each with its link kind and the latest local snapshot (refresh with repohost.sync).';
