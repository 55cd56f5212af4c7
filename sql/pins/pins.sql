-- pins: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.pins_json()
 returns jsonb
 language sql
 stable
as $$
  -- position counts the pins this key sees (0, 1, …): a pin hidden from a narrowed key, or of a deleted issue, leaves
  -- no gap that says one sits in front.
  select coalesce(jsonb_agg(jsonb_build_object('issueId', v.id, 'position', v.n - 1, 'pinnedAt', v.pinned_at,
                                               'issue', app_hidden.issue_json(v.i))
                            order by v.n), '[]')
  from (select i.id, i, p.created_at as pinned_at, row_number() over (order by p.position, p.created_at, p.id) as n
        from app_public.pins p
        join app_public.issues i on i.id = p.target_id and i.deleted_at is null
        where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
          and p.target_type = 'ISSUE') v
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see), position counted among them.';
grant execute on function app_hidden.pins_json() to svc_visitor;

create or replace function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer default NULL::integer)
 returns app_public.pins
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
  v_count integer;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  -- Pins are a person's: a key with no user is told so (the insert's policy said only "forbidden").
  perform app_hidden.require_user();
  if target_id is null then
    perform app_hidden.raise_invalid('targetId', 'required');
  end if;
  -- The target must be visible to the caller (RLS: workspace and narrowing). Saved views have no
  -- table yet, so their ids are taken as given.
  if (target_type = 'PROJECT' and not exists (select 1 from app_public.projects p where p.id = target_id))
     or (target_type = 'INITIATIVE' and not exists (select 1 from app_public.initiatives i where i.id = target_id))
     or (target_type = 'CYCLE' and not exists (select 1 from app_public.cycles c where c.id = target_id))
     or (target_type = 'AGENT' and not exists (select 1 from app_public.agents a where a.id = target_id)) then
    raise exception '% not found', initcap(target_type::text) using errcode = 'SV404', column = 'targetId';
  end if;
  select * into v_pin from app_public.pins p
  where p.workspace_id = v_ws and p.user_id = v_user and p.target_type = pins_add.target_type::text and p.target_id = pins_add.target_id;
  if v_pin.id is not null then
    return v_pin;  -- already pinned
  end if;
  -- Positions stay 0..n-1 (as dispatch rules'): atPosition 0 is first, n (or none) last; later pins move down. Any
  -- other value was stored as given (-3, or 2^31-1, after which appending overflowed the integer).
  v_count := (select count(*) from app_public.pins p where p.workspace_id = v_ws and p.user_id = v_user);
  if at_position is not null and (at_position < 0 or at_position > v_count) then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  if at_position is not null then
    update app_public.pins p set position = p.position + 1
    where p.workspace_id = v_ws and p.user_id = v_user and p.position >= at_position;
  end if;
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) is '@arg targetType PROJECT, INITIATIVE, SAVED_VIEW, CYCLE or AGENT (issues are pinned with the MCP pins.* tools).
@arg targetId The id of the record to pin, visible to the key (a saved view''s id is taken as given).
@arg atPosition Where to put it, 0 (first) to the number of your pins; omitted = last.
@result The pin (the existing one when the item was pinned already).
Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition (0 = first, 0 to the number of pins) is given, later pins moving down.';
grant execute on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) to svc_visitor;

create or replace function app_public.pins_agent(p app_public.pins)
 returns app_public.agents
 language sql
 stable
as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(p app_public.pins) is 'The pinned agent (AGENT pins).';
grant execute on function app_public.pins_agent(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_cycle(p app_public.pins)
 returns app_public.cycles
 language sql
 stable
as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(p app_public.pins) is 'The pinned cycle (CYCLE pins).';
grant execute on function app_public.pins_cycle(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_initiative(p app_public.pins)
 returns app_public.initiatives
 language sql
 stable
as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(p app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
grant execute on function app_public.pins_initiative(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_project(p app_public.pins)
 returns app_public.projects
 language sql
 stable
as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(p app_public.pins) is 'The pinned project (PROJECT pins).';
grant execute on function app_public.pins_project(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid)
 returns app_public.pins
 language plpgsql
as $$
declare v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  delete from app_public.pins p
  where p.target_type = pins_remove.target_type::text and p.target_id = pins_remove.target_id
    and p.user_id = app_hidden.current_user_id()
  returning * into v_pin;
  if v_pin.id is null then
    raise exception 'Pin not found' using errcode = 'SV404', column = 'targetId';
  end if;
  return v_pin;
end
$$;
comment on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) is '@arg targetType The kind of the pinned record.
@arg targetId The id of the pinned record.
@result The removed pin, as it was.
Unpins an item of yours.';
grant execute on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) to svc_visitor;

create or replace function app_public.pins_reorder(pin_ids uuid[])
 returns setof app_public.pins
 language plpgsql
as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  -- The listed pins first, in their order, then the others in theirs, numbered 0..n-1 (the others kept their
  -- numbers, so a partial list put two pins at 0).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by o.n nulls last, q.position, q.created_at, q.id) as n
        from app_public.pins q
        left join unnest(pin_ids) with ordinality as o(id, n) on o.id = q.id
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()) r
  where p.id = r.id and p.position is distinct from r.n - 1;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(pin_ids uuid[]) is '@arg pinIds Pins of yours, each once, to put first in this order; the others follow in their present order.
@result The pins listed, in their new order.
Orders your pins: pinIds first, in that order, then the pins not listed in their present order (positions 0..n-1).';
grant execute on function app_public.pins_reorder(pin_ids uuid[]) to svc_visitor;

create or replace function app_hidden.renumber_issue_pins(p_given uuid[])
 returns void
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a narrowed key's pins.set keeps the pins it cannot see, which its RLS hides from it; the caller's own
  -- issue pins become positions 0..n-1 again, the new list's order kept and the others where they stood (a kept pin
  -- before a listed one at the same place).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by q.position, q.target_id = any(p_given), q.created_at, q.id) as n
        from app_public.pins q
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()
          and q.target_type = 'ISSUE') r
  where p.id = r.id and p.position is distinct from r.n - 1
$$;
comment on function app_hidden.renumber_issue_pins(p_given uuid[]) is 'After pins.set: the caller''s issue pins numbered 0..n-1 (those it cannot see included), the listed ones (p_given) in their order, a kept one before a listed one at the same position.';
grant execute on function app_hidden.renumber_issue_pins(p_given uuid[]) to svc_visitor;
