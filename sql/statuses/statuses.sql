-- statuses: helper functions of the workflow tools (statuses.get/create/update/delete/reorder).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_status(p_id text, p_field text default 'id'::text)
 returns app_public.statuses
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select s from app_public.statuses s
     where s.id = app_hidden.parse_uuid(p_id, p_field) and s.workspace_id = app_hidden.current_workspace_id()), 'Status', p_field);
end
$$;
comment on function app_hidden.find_status(p_id text, p_field text) is 'A status of the caller''s workspace by id, else 404 naming the field.';
grant execute on function app_hidden.find_status(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.status_categories()
 returns text[]
 language sql
 immutable parallel safe
as $$ select array['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED'] $$;
comment on function app_hidden.status_categories() is 'The status categories in workflow order (statuses_category_check allows these): one list for what reads or names them.';
grant execute on function app_hidden.status_categories() to svc_visitor;

create or replace function app_hidden.statuses_named(p_words text, out ids uuid[], out by_category boolean)
 returns record
 language plpgsql
 stable
as $$
declare
  c_categories constant text[] := app_hidden.status_categories();
  v_category text := upper(regexp_replace(app_hidden.trim_name(p_words), '[\s-]+', '_', 'g'));
begin
  -- A category spelled as the API spells it (IN_PROGRESS, DONE) is the category, whatever a status is named; else a
  -- name (case-insensitive: "in progress" is the status In Progress), then a category however written (in_progress,
  -- "In-Review"): every status of it, in workflow order. Nothing: an empty array. issues.list and issues.transition
  -- read the same words the same way (they once differed for a status named like a category).
  by_category := p_words = any(c_categories);
  if not by_category then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(app_hidden.trim_name(p_words)));
  end if;
  if by_category or (cardinality(ids) = 0 and v_category = any(c_categories)) then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_category
                 order by s.position, s.id);
    by_category := true;
  end if;
end
$$;
comment on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) is 'The statuses a person or agent means by words: a category spelled as the API spells it (DONE) is the category; else the status of that name (case-insensitive), else every status of that category however written (in_progress, In-Review); categories in workflow order; by_category says which. Empty when neither (or a category no status has).';
grant execute on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) to svc_visitor;

create or replace function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text default 'SV400')
 returns void
 language plpgsql
 stable
as $$
begin
  -- What to send instead, in the refusal: an agent on the runtime profile has no statuses.list to look it up with.
  raise exception 'No status named %: this workspace''s statuses are %; or a category: %',
    p_words, (select string_agg(s.name, ', ' order by s.position, s.id) from app_public.statuses s
              where s.workspace_id = app_hidden.current_workspace_id()),
    array_to_string(app_hidden.status_categories(), ', ')
    using errcode = p_code, column = p_field;
end
$$;
comment on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) is 'Raises p_code (400 by default) naming p_field: no status of that name or category, listing the workspace''s status names and the categories.';
grant execute on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) to svc_visitor;

create or replace function app_hidden.raise_status_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A status named "%" already exists', p_name using errcode = 'SV409', detail = 'status_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_status_name_taken(p_name text) is 'Raises 409 status_exists (status names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_status_name_taken(p_name text) to svc_visitor;

create or replace function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb default '{}'::jsonb)
 returns uuid
 language sql
as $$
  select app_hidden.record_event(p_kind, 'status', s.id, jsonb_build_object('statusId', s.id, 'name', s.name,
    'category', s.category, 'color', s.color, 'position', s.position, 'isDefault', s.is_default) || p_extra)
$$;
comment on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) is 'STATUS_CREATED/UPDATED/DELETED about a status: its fields (as they are now) plus p_extra (changes, previous, movedIssues...).';
grant execute on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) to svc_visitor;

create or replace function app_hidden.require_other_done_status(s app_public.statuses)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Issues are finished by moving them to a DONE status (analytics, cycles, standups count those): keep one.
  if s.category = 'DONE' and not exists (select 1 from app_public.statuses o
                                         where o.workspace_id = s.workspace_id and o.category = 'DONE' and o.id <> s.id) then
    raise exception 'This is the workspace''s last DONE status; the workflow needs one to finish issues (create another first)'
      using errcode = 'SV409', detail = 'last_done_status';
  end if;
end
$$;
comment on function app_hidden.require_other_done_status(s app_public.statuses) is 'Raises 409 last_done_status when s is the only DONE status of its workspace (it may not be deleted or leave DONE).';
grant execute on function app_hidden.require_other_done_status(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.require_workflow_admin()
 returns uuid
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  -- The statuses are every member's board, and deleting one moves issues a narrowed key cannot see.
  perform app_hidden.require_unnarrowed_admin('The workflow''s statuses belong to the whole workspace');
  -- One workflow change at a time per workspace: the checks (last DONE status, the default, names) read the whole
  -- set. An advisory lock, not row locks on every status: those would block every issue write of the workspace
  -- (its foreign key takes KEY SHARE on a status) and deadlock against an issue moving while a status is deleted.
  perform pg_advisory_xact_lock(hashtextextended('svc.statuses:' || v_ws::text, 0));
  return v_ws;
end
$$;
comment on function app_hidden.require_workflow_admin() is 'Every statuses.* write starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), a key without narrowing (403 narrowing); serialises the workspace''s status writes for the transaction (advisory lock). Returns the workspace id.';
grant execute on function app_hidden.require_workflow_admin() to svc_visitor;
