-- relations.* (spec 2.5, 4.4). Scopes READ_ISSUES / WRITE_ISSUES. Both issues must be visible to the key.
-- Storage: one row per fact. BLOCKED_BY A→B is stored as B BLOCKS A; RELATES_TO is symmetric.
-- ISSUE_UPDATED (changes relations) on both issues is written by tg_issue_relations__events.

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
    'kind', case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', (select app_hidden.issue_ref_json(i) from app_public.issues i
              where i.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(app_public.issue_relations, uuid) is
  'A relation seen from one issue, as issues.get include.relations shows it: fromIssueId/toIssueId the stored directed link, kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), direction outbound/inbound, issue = the other end.';

create or replace function app_tools.relations_add(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(jsonb) is
  'relations.add: links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409.';

create or replace function app_tools.relations_remove(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_rel app_public.issue_relations;
begin
  delete from app_public.issue_relations
  where id = app_hidden.parse_uuid(args->>'id', 'id') and workspace_id = app_hidden.current_workspace_id()
  returning * into v_rel;
  if v_rel.id is null then
    raise exception 'Relation not found' using errcode = 'SV404', column = 'id';
  end if;
  return jsonb_build_object('id', v_rel.id, 'removed', true, 'kind', v_rel.kind,
                            'fromIssueId', v_rel.from_issue_id, 'toIssueId', v_rel.to_issue_id);
end
$$;
comment on function app_tools.relations_remove(jsonb) is
  'relations.remove: deletes a relation whose both issues the key can see (else 404); ISSUE_UPDATED on both issues by trigger.';

create or replace function app_tools.relations_list_for_issue(args jsonb) returns jsonb
language plpgsql stable as $$
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
comment on function app_tools.relations_list_for_issue(jsonb) is
  'relations.listForIssue: inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links to issues the key cannot see or that are deleted are left out.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
