-- relations: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid)
 returns text
 language sql
 immutable
as $$
  select case when r.to_issue_id = p_pov and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end
$$;
comment on function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid) is 'The kind of a stored relation as seen from one of its issues: the blocked issue sees BLOCKS as BLOCKED_BY.';
grant execute on function app_hidden.relation_kind_seen(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid,
                                                     o app_public.issues, s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  -- One expression, no subquery: inlined into issue_relations_json, so 1,000 relations are one plan, not 1,000.
  -- fromIssueId kind toIssueId reads as a true sentence: a BLOCKS seen from the blocked issue is that issue
  -- BLOCKED_BY the other (the stored ends swapped with the kind; it read "B BLOCKED_BY A" of A BLOCKED_BY B), and a
  -- RELATES_TO (symmetric, stored once) starts at the issue it is seen from, as it was asked.
  select jsonb_build_object(
    'id', r.id,
    'fromIssueId', case when r.to_issue_id = p_pov and r.kind in ('BLOCKS', 'RELATES_TO') then r.to_issue_id else r.from_issue_id end,
    'toIssueId', case when r.to_issue_id = p_pov and r.kind in ('BLOCKS', 'RELATES_TO') then r.from_issue_id else r.to_issue_id end,
    'kind', app_hidden.relation_kind_seen(r, p_pov),
    'direction', case when r.from_issue_id = p_pov then 'outbound' else 'inbound' end,
    'issue', app_hidden.issue_ref_json(o, s),
    'createdAt', r.created_at)
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid, o app_public.issues, s app_public.statuses) is 'A relation seen from one issue, as issues.get include.relations shows it: kind from that issue''s point of view (B sees A BLOCKS B as BLOCKED_BY), fromIssueId kind toIssueId a true sentence (B BLOCKED_BY A), direction outbound/inbound (whether the stored link starts at this issue), issue = the other end (o, with its status s).';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid, o app_public.issues, s app_public.statuses) to svc_visitor;

create or replace function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.relation_view(r, p_pov, o, (select s from app_public.statuses s where s.id = o.status_id))
  from app_public.issues o
  where o.id = case when r.from_issue_id = p_pov then r.to_issue_id else r.from_issue_id end
$$;
comment on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) is 'relation_view of one relation, its other issue looked up (relations.add answers with it).';
grant execute on function app_hidden.relation_view(r app_public.issue_relations, p_pov uuid) to svc_visitor;

create or replace function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text default null)
 returns jsonb
 language sql
 stable
as $$
  -- Read as the caller: a link whose other end the key cannot see (narrowing) or that is deleted is left out, ids
  -- included.
  select coalesce(jsonb_agg(app_hidden.relation_view(r, p_issue.id, o, s) order by r.created_at, r.id), '[]')
  from app_public.issue_relations r
  join app_public.issues o
    on o.id = case when r.from_issue_id = p_issue.id then r.to_issue_id else r.from_issue_id end
   and o.deleted_at is null
  left join app_public.statuses s on s.id = o.status_id
  where r.workspace_id = p_issue.workspace_id
    and (r.from_issue_id = p_issue.id or r.to_issue_id = p_issue.id)
    and (p_kind is null or app_hidden.relation_kind_seen(r, p_issue.id) = p_kind)
$$;
comment on function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text) is 'Every relation of an issue, inbound and outbound, each seen from it (relation_view), oldest first, optionally of one kind as seen; links to issues the caller cannot see or that are deleted are left out. relations.listForIssue, issues.get include.relations and agent.context.bundle show this.';
grant execute on function app_hidden.issue_relations_json(p_issue app_public.issues, p_kind text) to svc_visitor;

create or replace function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid)
 returns boolean
 language sql
 stable
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a chain may pass through issues the caller's narrowing hides, and it still makes a cycle.
  -- Links of deleted issues are left out (they are gone everywhere else too).
  with recursive reach(issue_id) as (
    select p_from
    union
    select r.to_issue_id
    from reach join app_public.issue_relations r
      on r.from_issue_id = reach.issue_id and r.workspace_id = app_hidden.current_workspace_id() and r.kind = p_kind
    join app_public.issues i on i.id = r.to_issue_id and i.deleted_at is null)
  select exists (select 1 from reach where issue_id = p_to)
$$;
comment on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) is 'Whether a chain of p_kind links (BLOCKS or DUPLICATES) leads from p_from to p_to in the caller''s workspace, through any issue (definer: narrowing does not break a cycle). relations.add refuses the link that would close one.';
grant execute on function app_hidden.relation_path_exists(p_kind text, p_from uuid, p_to uuid) to svc_visitor;

create or replace function app_hidden.lock_directed_relations(p_kind text)
 returns void
 language sql
as $$
  select pg_advisory_xact_lock(hashtextextended('svc.relation:' || p_kind || ':' || app_hidden.current_workspace_id()::text, 0));
$$;
comment on function app_hidden.lock_directed_relations(p_kind text) is 'Serializes BLOCKS (or DUPLICATES) links of the caller''s workspace for the transaction, so two concurrent links cannot close a cycle between them. Take it before any issue row lock (relations.add does; accepting a close-as-duplicate request takes it first).';
grant execute on function app_hidden.lock_directed_relations(p_kind text) to svc_visitor;

create or replace function app_hidden.require_relation_room(p_issue app_public.issues, p_field text)
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Every link of the issue, seen or not by the caller (read as the owner, in the caller's workspace): the lists that
  -- show an issue's links (relations.listForIssue, issues.get include, the context bundle) return them all at once.
  if (select count(*) from app_public.issue_relations r
      where r.workspace_id = app_hidden.current_workspace_id() and (r.from_issue_id = p_issue.id or r.to_issue_id = p_issue.id)) >= 500 then
    raise exception '% already has 500 links, the most an issue may have: remove some, or group the issues under a parent', p_issue.key
      using errcode = 'SV409', detail = 'too_many_relations', column = p_field;
  end if;
end
$$;
comment on function app_hidden.require_relation_room(p_issue app_public.issues, p_field text) is 'relations.add: 409 too_many_relations (naming the field) when the issue already has 500 links, counted whoever may see them.';
grant execute on function app_hidden.require_relation_room(p_issue app_public.issues, p_field text) to svc_visitor;
