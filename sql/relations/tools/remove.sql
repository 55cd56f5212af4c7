-- The relations.remove tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a relation whose both issues the key can see (else 404); ISSUE_UPDATED on both issues by trigger.
-- Run-mode gated on both issues.
create or replace function app_tools.relations_remove(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_rel app_public.issue_relations;
begin
  delete from app_public.issue_relations
  where id = app_hidden.parse_uuid(args->>'id', 'id') and workspace_id = app_hidden.current_workspace_id()
    -- A link to a deleted issue is not listed (listForIssue), so it is not found here either.
    and not exists (select 1 from app_public.issues i
                    where i.id in (issue_relations.from_issue_id, issue_relations.to_issue_id) and i.deleted_at is not null)
  returning * into v_rel;
  if v_rel.id is null then
    raise exception 'Relation not found' using errcode = 'SV404', column = 'id';
  end if;
  -- Run-mode gated on both issues, as relations.add (the refusal rolls the delete back).
  perform app_hidden.assert_run_mode_allows_mutation(v_rel.from_issue_id);
  perform app_hidden.assert_run_mode_allows_mutation(v_rel.to_issue_id);
  return jsonb_build_object('id', v_rel.id, 'removed', true, 'kind', v_rel.kind,
                            'fromIssueId', v_rel.from_issue_id, 'toIssueId', v_rel.to_issue_id);
end
$$;
comment on function app_tools.relations_remove(args jsonb) is 'relations.remove: Remove a relation by its id (from relations.listForIssue).';
grant execute on function app_tools.relations_remove(args jsonb) to svc_visitor;
