-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409, as is one
-- closing a longer cycle of them. Run-mode gated on both issues.
create or replace function app_tools.relations_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
  -- A link changes both issues (ISSUE_UPDATED, changes relations, on each): run-mode gated on either.
  perform app_hidden.assert_run_mode_allows_mutation(v_from.id);
  perform app_hidden.assert_run_mode_allows_mutation(v_to.id);
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;
  -- One decision at a time: two concurrent calls linking A→B and B→A would each see no reverse link and both
  -- insert. Directed kinds are serialized per workspace (a cycle can close through any pair), RELATES_TO per pair.
  if v_s_kind = 'RELATES_TO' then
    perform pg_advisory_xact_lock(hashtextextended('svc.relation:' || least(v_s_from, v_s_to)::text || greatest(v_s_from, v_s_to)::text, 0));
  else
    perform app_hidden.lock_directed_relations(v_s_kind);
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
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and app_hidden.relation_path_exists(v_s_kind, v_s_to, v_s_from) then
    -- A longer cycle (A BLOCKS B BLOCKS C, then C BLOCKS A) would leave every issue on it waiting on itself.
    raise exception '% % % would close a cycle: a chain of % links already leads from % back to %',
      (select key from app_public.issues where id = v_s_from), v_s_kind, (select key from app_public.issues where id = v_s_to),
      v_s_kind, (select key from app_public.issues where id = v_s_to), (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'relation_cycle';
  end if;
  -- The counts below take turns per issue (in one order, so two links between the same issues cannot deadlock):
  -- concurrent adds to an issue at 490 links left it at 502.
  perform pg_advisory_xact_lock(hashtextextended('svc.relations-of:' || x::text, 0))
  from unnest(array[v_from.id, v_to.id]) x order by x;
  perform app_hidden.require_relation_room(v_from, 'fromIssueId');
  perform app_hidden.require_relation_room(v_to, 'toIssueId');

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId (created false when it existed already). No self-links, no cycles of BLOCKS or DUPLICATES (409 reverse_relation_exists / relation_cycle), at most 500 links per issue (409 too_many_relations).';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
