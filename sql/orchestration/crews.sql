-- orchestration: finding crews, members and review gates.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_crew(p_id text, p_field text default 'id'::text)
 returns app_public.agent_crews
 language plpgsql
 stable
as $$
declare v app_public.agent_crews;
begin
  select * into v from app_public.agent_crews
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew(p_id text, p_field text) is 'A crew of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.crew_for_write(p_id text, p_field text default 'id'::text)
 returns app_public.agent_crews
 language plpgsql
as $$
declare v app_public.agent_crews := app_hidden.find_crew(p_id, p_field);
begin
  perform app_hidden.require_crew_admin();
  perform app_hidden.crew_assert_not_own(v.id);
  -- Locked until commit and read again once the lock is granted: concurrent archives take turns (one CREW_UPDATED,
  -- one archivedAt), and a member is not added to a crew archived meanwhile. FOR NO KEY UPDATE, the lock the crew's
  -- own UPDATE takes (goals naming the crew, KEY SHARE, do not wait).
  select * into v from app_public.agent_crews where id = v.id for no key update;
  return app_hidden.found(v, 'Crew', p_field);
end
$$;
comment on function app_hidden.crew_for_write(p_id text, p_field text) is 'A crew of the caller''s workspace (else 404 naming the field) that the key may change (require_crew_admin, crew_assert_not_own), locked until commit (its current row). The entry point of agentCrews.update, archive, unarchive and addMember.';
grant execute on function app_hidden.crew_for_write(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_crew_member(p_id text, p_field text default 'memberId'::text)
 returns app_public.agent_crew_members
 language plpgsql
 stable
as $$
declare v app_public.agent_crew_members;
begin
  select * into v from app_public.agent_crew_members
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Crew member not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_crew_member(p_id text, p_field text) is 'A crew membership of the caller''s workspace, else 404 naming the field.';
grant execute on function app_hidden.find_crew_member(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.find_gate(p_id text, p_field text default 'id'::text)
 returns app_public.review_gates
 language plpgsql
 stable
as $$
declare v app_public.review_gates;
begin
  select * into v from app_public.review_gates
  where id = app_hidden.parse_uuid(p_id, p_field) and workspace_id = app_hidden.current_workspace_id();
  if v.id is null then
    raise exception 'Review gate not found' using errcode = 'SV404', column = p_field;
  end if;
  return v;
end
$$;
comment on function app_hidden.find_gate(p_id text, p_field text) is 'A review gate the key can see (through its plan and goal), else 404 naming the field.';
grant execute on function app_hidden.find_gate(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.require_crew_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_scope('ADMIN');
  -- Crews pick who plans, works and judges every goal of the workspace, those the key cannot see included: a key
  -- narrowed to some projects, labels or initiatives may not rewire them (as it may not create a goal without an issue).
  perform app_hidden.require_unnarrowed('Crews serve every goal of the workspace');
end
$$;
comment on function app_hidden.require_crew_admin() is 'The check of every crew change: 403 scope_required without the ADMIN scope, 403 narrowing for a narrowed key.';
grant execute on function app_hidden.require_crew_admin() to svc_visitor;

create or replace function app_hidden.crew_assert_not_own(p_crew_id uuid)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Who judges a plan's steps, and who works them, is its crew: a worker removed the crew's REVIEWER (or made it a
  -- WORKER), and the plan no longer judged its steps, so it passed its own.
  if app_hidden.current_agent_id() is not null and exists (
       select 1 from app_public.execution_plans p join app_public.goals g on g.id = p.goal_id
       where g.crew_id = p_crew_id and p.is_active_attempt and p.status in ('DRAFT', 'APPROVED', 'RUNNING', 'BLOCKED')
         and app_hidden.caller_works_in_plan(p.id)) then
    raise exception 'An agent working in a live plan of this crew does not change the crew: a person (or another key) does'
      using errcode = 'SV403', detail = 'own_plan';
  end if;
end
$$;
comment on function app_hidden.crew_assert_not_own(p_crew_id uuid) is 'Before a crew''s members, roles, limits or state change: not by an agent working in a live plan of one of the crew''s goals (its planner, a worker or judge of a step): 403 own_plan.';
grant execute on function app_hidden.crew_assert_not_own(p_crew_id uuid) to svc_visitor;
