-- In-app procedures, part 3 (spec 4.14): comment revision history, note restore, polymorphic pins.
-- These run as the request role: RLS on comments, notes and pins is the check.

-- Drop this file's functions whatever their current signatures (re-runnable while signatures change).
do $$
declare r record;
begin
  for r in select p.oid::regprocedure as sig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname || '.' || p.proname = any(array[
             'app_public.comments_revision_history',
             'app_public.notes_restore',
             'app_public.pins_add',
             'app_public.pins_agent',
             'app_public.pins_cycle',
             'app_public.pins_initiative',
             'app_public.pins_project',
             'app_public.pins_remove',
             'app_public.pins_reorder'])
  loop
    execute format('drop function %s cascade', r.sig);
  end loop;
end
$$;
drop type if exists app_public.comment_revision cascade;
drop type if exists app_public.pin_target_type cascade;

------------------------------------------------------------------------------------------
-- Comment revision history
------------------------------------------------------------------------------------------

create type app_public.comment_revision as (
  revision int,
  body text,
  edited_at timestamptz
);
comment on type app_public.comment_revision is 'A previous body of a comment, replaced at editedAt.';
comment on column app_public.comment_revision.revision is 'Order of the revision, 1 = the oldest kept (at most 20 are kept).';
comment on column app_public.comment_revision.edited_at is 'When this body was replaced by the next one.';

create function app_public.comments_revision_history(c app_public.comments) returns setof app_public.comment_revision
language sql stable as $$
  select row(r.n::int, r.e->>'body', (r.e->>'editedAt')::timestamptz)::app_public.comment_revision
  from jsonb_array_elements(c.revisions) with ordinality as r(e, n)
  order by r.n
$$;
comment on function app_public.comments_revision_history(app_public.comments) is
  'Previous bodies of this comment, oldest first (at most 20 kept; comments.update pushes the replaced body). In-app only.';

------------------------------------------------------------------------------------------
-- Note restore: archived notes come back only through the in-app interface (spec 3.5).
------------------------------------------------------------------------------------------

create function app_public.notes_restore(note_id uuid) returns app_public.notes
language plpgsql volatile as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  update app_public.notes n set archived_at = null
  where n.id = note_id and n.archived_at is not null
  returning * into v_note;
  if v_note.id is null then
    select * into v_note from app_public.notes n where n.id = note_id;  -- not archived: nothing to do
  end if;
  if v_note.id is null then
    raise exception 'Note not found' using errcode = 'SV404', column = 'noteId';
  end if;
  return v_note;
end
$$;
comment on function app_public.notes_restore(uuid) is
  'Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';

------------------------------------------------------------------------------------------
-- Polymorphic pins: PROJECT, INITIATIVE, SAVED_VIEW, CYCLE, AGENT (issue pins are MCP pins.*).
------------------------------------------------------------------------------------------

create type app_public.pin_target_type as enum ('PROJECT', 'INITIATIVE', 'SAVED_VIEW', 'CYCLE', 'AGENT');
comment on type app_public.pin_target_type is 'What an in-app pin points at. Issue pins are managed by the MCP pins tools.';

create function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position int default null)
returns app_public.pins
language plpgsql volatile as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
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
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(app_public.pin_target_type, uuid, int) is
  'Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition is given.';

create function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) returns app_public.pins
language plpgsql volatile as $$
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
comment on function app_public.pins_remove(app_public.pin_target_type, uuid) is 'Unpins an item of yours.';

create function app_public.pins_reorder(pin_ids uuid[]) returns setof app_public.pins
language plpgsql volatile as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  update app_public.pins p set position = o.n - 1
  from unnest(pin_ids) with ordinality as o(id, n)
  where p.id = o.id;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(uuid[]) is 'Orders your pins: pinIds first to last (pins not listed keep their positions).';

create function app_public.pins_project(p app_public.pins) returns app_public.projects
language sql stable as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(app_public.pins) is 'The pinned project (PROJECT pins).';
create function app_public.pins_initiative(p app_public.pins) returns app_public.initiatives
language sql stable as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
create function app_public.pins_cycle(p app_public.pins) returns app_public.cycles
language sql stable as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(app_public.pins) is 'The pinned cycle (CYCLE pins).';
create function app_public.pins_agent(p app_public.pins) returns app_public.agents
language sql stable as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(app_public.pins) is 'The pinned agent (AGENT pins).';

grant execute on function
  app_public.comments_revision_history(app_public.comments),
  app_public.notes_restore(uuid),
  app_public.pins_add(app_public.pin_target_type, uuid, int),
  app_public.pins_remove(app_public.pin_target_type, uuid),
  app_public.pins_reorder(uuid[]),
  app_public.pins_project(app_public.pins),
  app_public.pins_initiative(app_public.pins),
  app_public.pins_cycle(app_public.pins),
  app_public.pins_agent(app_public.pins)
to svc_visitor;
