--! Previous: sha1:7c5330db157436f63436120bdfc9c6ccda60bfe8
--! Hash: sha1:ff59a488484f725d47e799f620fa3ba8d56cd243
--! Message: crew_archived names crewId on every path; a RELATES_TO starts where it is seen from

--! split: 1-current.sql
-- crew_archived names crewId on every path (it did only from the race trigger); a RELATES_TO seen from either issue
-- starts there (relations.add of one existing the other way answered the stored direction; re-probe).
--! Included goals/tools/create.sql
-- The goals.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a goal (OPEN), optionally tied to an issue (then it follows that issues narrowing) and a crew. GOAL_CREATED by trigger.
create or replace function app_tools.goals_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue uuid;
  v_crew app_public.agent_crews;
  v_goal app_public.goals;
begin
  if args->>'issueId' is not null then
    v_issue := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  else
    perform app_hidden.require_issues_unrestricted('A goal without an issue');
  end if;
  if args->>'crewId' is not null then
    v_crew := app_hidden.find_crew(args->>'crewId', 'crewId');
    if v_crew.archived_at is not null then
      raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
    end if;
  end if;
  insert into app_public.goals (workspace_id, title, description, issue_id, crew_id, max_total_cost_usd, max_wall_time_minutes,
                                created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), args->>'title', args->>'description', v_issue, v_crew.id,
          (args->>'maxTotalCostUsd')::numeric, (args->>'maxWallTimeMinutes')::int,
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_goal;
  return app_hidden.goal_json(v_goal);
end
$$;
comment on function app_tools.goals_create(args jsonb) is 'goals.create: Create a goal (OPEN), optionally tied to an issue (runs of its steps are opened on that issue, and the goal follows its narrowing) and run by a crew, with optional cost and wall-time caps. Writes GOAL_CREATED.';
grant execute on function app_tools.goals_create(args jsonb) to svc_visitor;
--! EndIncluded goals/tools/create.sql
--! Included agentCrews/tools/addMember.sql
-- The agentCrews.addMember tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds an agent in a role (ADMIN); an agent is in a crew once (409 already_member).
create or replace function app_tools.agent_crews_add_member(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'crewId', 'crewId');
  v_agent app_public.agents := app_hidden.find_live_agent(args->>'agentId', 'agentId');
  v_member app_public.agent_crew_members;
begin
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
  end if;
  -- One statement decides: two adds at once both passed a check before the insert, and the loser got the unique
  -- violation's generic 409 rather than already_member.
  insert into app_public.agent_crew_members (workspace_id, crew_id, agent_id, role)
  values (v_crew.workspace_id, v_crew.id, v_agent.id, args->>'role')
  on conflict (crew_id, agent_id) do nothing
  returning * into v_member;
  if v_member.id is null then
    raise exception 'Agent % is already in this crew (use setMemberRole)', v_agent.profile_key using errcode = 'SV409', detail = 'already_member';
  end if;
  return app_hidden.crew_member_json(v_member);
end
$$;
comment on function app_tools.agent_crews_add_member(args jsonb) is 'agentCrews.addMember: Add an agent to a crew in a role (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan). An agent is in a crew once (409 already_member; change roles with setMemberRole).';
grant execute on function app_tools.agent_crews_add_member(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/addMember.sql
--! Included relations/relations.sql
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
--! EndIncluded relations/relations.sql
