-- The relations.listForIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links
-- to issues the key cannot see or that are deleted are left out.
create or replace function app_tools.relations_list_for_issue(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
begin
  return coalesce((
    select jsonb_agg(t.v order by t.created_at, t.id)
    from (select app_hidden.relation_view(r, v_issue.id) as v, r.created_at, r.id
          from app_public.issue_relations r
          where r.workspace_id = v_issue.workspace_id
            and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)
            and exists (select 1 from app_public.issues o
                        where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end
                          and o.deleted_at is null)) t
    where args->>'kind' is null or t.v->>'kind' = args->>'kind'), '[]');
end
$$;
comment on function app_tools.relations_list_for_issue(args jsonb) is 'relations.listForIssue: Every relation of an issue, outbound and inbound, each seen from that issue: kind is its point of view (BLOCKED_BY when another issue blocks it), direction says which way the stored link goes, issue is the other end. Optional kind filter (applies to the kind as seen).';
grant execute on function app_tools.relations_list_for_issue(args jsonb) to svc_visitor;
