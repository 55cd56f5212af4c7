-- The relations.listForIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links
-- to issues the key cannot see or that are deleted are left out.
create or replace function app_tools.relations_list_for_issue(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.issue_relations_json(app_hidden.find_issue(args->>'issueId', 'issueId'), args->>'kind');
end
$$;
comment on function app_tools.relations_list_for_issue(args jsonb) is 'relations.listForIssue: Every relation of an issue, outbound and inbound, each seen from that issue: kind is its point of view (BLOCKED_BY when another issue blocks it), direction says which way the stored link goes, issue is the other end. Optional kind filter (applies to the kind as seen).';
grant execute on function app_tools.relations_list_for_issue(args jsonb) to svc_visitor;
