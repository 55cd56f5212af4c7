--! Previous: sha1:1909ceb65f692b5517659db002b0a15152babcca
--! Hash: sha1:80bb258f2c405a040c30969ad1990a895cc3aa5b
--! Message: Write tools decide on the locked row

--! split: 1-current.sql
-- Write paths lock the row they decide on (an outside probe raced calls): projects, initiatives, labels, notes,
-- agents and crews were read without a lock, decided on, then written with values computed from that read, so two
-- calls at once undid each other. unlinkProject {initiativeId: I1} wiped a concurrent link to I2 (not_linked
-- expected); an initiative-narrowed key took a project out of an initiative it could not see (403 narrowing
-- expected); a rename-only projects.update reverted a concurrent link; labels.update after a concurrent delete
-- answered 200 with an empty label, and labels.delete after a concurrent merge answered 200; concurrent archives
-- (agents, initiatives, projects, crews, notes) wrote duplicate events and archivedAt values, and agent archives
-- AGENT_UPDATED "restored"; two notes.update calls lost one's field, and an edit slipped past a concurrent archive.
-- One finder per kind now locks and reads the current row: project_for_write, initiative_for_write,
-- find_label_for_write (now locked), note_for_write, crew_for_write, app_private.agent_for_write (after the agent's
-- issues, the lock order of issue writes). A uniqueness check lost to a concurrent call now answers the sequential
-- code: notes.create JOURNAL decides in one statement (journal_exists), labels.update maps the unique violation to
-- label_exists.
--! Included projects/projects.sql
-- projects: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.check_project_initiative_reachable(p_project app_public.projects)
 returns void
 language plpgsql
 stable
as $$
begin
  if p_project.initiative_id is not null
     and not exists (select 1 from app_public.initiatives i where i.id = p_project.initiative_id) then
    raise exception 'The project belongs to an initiative outside this key''s narrowing'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
end
$$;
comment on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) is 'Before moving a project between initiatives: an initiative-narrowed key may not take a project out of an initiative it cannot see (403 narrowing).';
grant execute on function app_hidden.check_project_initiative_reachable(p_project app_public.projects) to svc_visitor;

create or replace function app_hidden.find_project(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select p from app_public.projects p
                           where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()),
                          'Project', p_field);
end
$$;
comment on function app_hidden.find_project(p_id text, p_field text) is 'A project the key can see (archived included), else 404 Project not found.';
grant execute on function app_hidden.find_project(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_for_write(p_id text, p_field text default 'id'::text)
 returns app_public.projects
 language plpgsql
as $$
declare v_project app_public.projects;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (a link, an unlink and its
  -- initiative check, the narrowing guard, an archive) sees every change committed before it, and none slips in
  -- between the read and the write. FOR NO KEY UPDATE, the lock the project's own UPDATE takes: issues filed in the
  -- project meanwhile (KEY SHARE through their foreign key) do not wait for it.
  select * into v_project from app_public.projects p
  where p.id = app_hidden.parse_uuid(p_id, p_field) and p.workspace_id = app_hidden.current_workspace_id()
  for no key update;
  return app_hidden.found(v_project, 'Project', p_field);
end
$$;
comment on function app_hidden.project_for_write(p_id text, p_field text) is 'A project the key can see (archived included), locked until commit (its current row), else 404 Project not found naming the field. The entry point of every project change.';
grant execute on function app_hidden.project_for_write(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.project_json(p app_public.projects)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', p.id, 'name', p.name, 'description', p.description,
    -- Under RLS: an initiative-narrowed key does not learn the id of an initiative outside its narrowing.
    'initiativeId', (select i.id from app_public.initiatives i where i.id = p.initiative_id),
    'initiative', (select jsonb_build_object('id', i.id, 'name', i.name)
                   from app_public.initiatives i where i.id = p.initiative_id),
    'archived', p.archived_at is not null, 'archivedAt', p.archived_at,
    'createdAt', p.created_at, 'updatedAt', p.updated_at)
$$;
comment on function app_hidden.project_json(p app_public.projects) is 'Project (spec 2.7): name, description, initiativeId and initiative {id, name} (both null when the key cannot see the initiative), archived state.';
grant execute on function app_hidden.project_json(p app_public.projects) to svc_visitor;
--! EndIncluded projects/projects.sql
--! Included projects/tools/update.sql
-- The projects.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description, initiativeId (null detaches); PROJECT_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.projects_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked: the initiative check below and the values written are decided on the current row.
  v_project app_public.projects := app_hidden.project_for_write(args->>'id');
  v_name text := coalesce(args->>'name', v_project.name);
  v_description text := case when args ? 'description' then args->>'description' else v_project.description end;
  v_initiative_id uuid := v_project.initiative_id;
begin
  if args ? 'initiativeId' then
    if args->>'initiativeId' is null then
      v_initiative_id := null;
    else
      v_initiative_id := (app_hidden.find_initiative(args->>'initiativeId', 'initiativeId')).id;
    end if;
    if v_initiative_id is distinct from v_project.initiative_id then
      perform app_hidden.check_project_initiative_reachable(v_project);
    end if;
  end if;
  if (v_name, v_description, v_initiative_id) is distinct from (v_project.name, v_project.description, v_project.initiative_id) then
    -- Only the fields given are written (a rename leaves initiative_id to whoever else set it).
    update app_public.projects
    set name = v_name,
        description = case when args ? 'description' then v_description else description end,
        initiative_id = case when args ? 'initiativeId' then v_initiative_id else initiative_id end
    where id = v_project.id
    returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_update(args jsonb) is 'projects.update: Change a project''s name, description (null clears) or initiativeId (null detaches it from its initiative). Only the fields given change.';
grant execute on function app_tools.projects_update(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/update.sql
--! Included projects/tools/archive.sql
-- The projects.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; PROJECT_UPDATED (archived true) by trigger. Its issues keep their
-- projectId.
create or replace function app_tools.projects_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.project_for_write(args->>'id');
begin
  if v_project.archived_at is null then
    update app_public.projects set archived_at = now() where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_archive(args jsonb) is 'projects.archive: Archive a project (soft: it leaves projects.list and new issues cannot use it; its issues keep their projectId). Idempotent.';
grant execute on function app_tools.projects_archive(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/archive.sql
--! Included projects/tools/unarchive.sql
-- The projects.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes projects.archive; idempotent; PROJECT_UPDATED (archived false) by trigger.
create or replace function app_tools.projects_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.project_for_write(args->>'id');
begin
  if v_project.archived_at is not null then
    update app_public.projects set archived_at = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_unarchive(args jsonb) is 'projects.unarchive: Restore an archived project. Idempotent.';
grant execute on function app_tools.projects_unarchive(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/unarchive.sql
--! Included initiatives/initiatives.sql
-- initiatives: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_initiative(p_id text, p_field text default 'id'::text)
 returns app_public.initiatives
 language plpgsql
 stable
as $$
begin
  return app_hidden.found((select i from app_public.initiatives i
                           where i.id = app_hidden.parse_uuid(p_id, p_field) and i.workspace_id = app_hidden.current_workspace_id()),
                          'Initiative', p_field);
end
$$;
comment on function app_hidden.find_initiative(p_id text, p_field text) is 'An initiative the key can see, else 404 Initiative not found.';
grant execute on function app_hidden.find_initiative(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.initiative_for_write(p_id text, p_field text default 'id'::text)
 returns app_public.initiatives
 language plpgsql
as $$
declare v_initiative app_public.initiatives;
begin
  -- Locked until commit and read once the lock is granted (as project_for_write): concurrent archives of one
  -- initiative take turns, and the second finds it archived.
  select * into v_initiative from app_public.initiatives i
  where i.id = app_hidden.parse_uuid(p_id, p_field) and i.workspace_id = app_hidden.current_workspace_id()
  for no key update;
  return app_hidden.found(v_initiative, 'Initiative', p_field);
end
$$;
comment on function app_hidden.initiative_for_write(p_id text, p_field text) is 'An initiative the key can see, locked until commit (its current row), else 404 Initiative not found naming the field. The entry point of every initiative change.';
grant execute on function app_hidden.initiative_for_write(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean default false)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', i.id, 'name', i.name, 'description', i.description,
    'archived', i.archived_at is not null, 'archivedAt', i.archived_at,
    'projectCount', (select count(*) from app_public.projects p where p.initiative_id = i.id and p.archived_at is null),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_with_projects then jsonb_build_object('projects', coalesce(
       (select jsonb_agg(jsonb_build_object('id', p.id, 'name', p.name, 'archived', p.archived_at is not null)
                         order by p.created_at, p.id)
        from app_public.projects p where p.initiative_id = i.id), '[]'))
     else '{}'::jsonb end
$$;
comment on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) is 'Initiative (spec 2.7): name, description, archived state, projectCount (live projects the key can see); with p_with_projects the linked projects.';
grant execute on function app_hidden.initiative_json(i app_public.initiatives, p_with_projects boolean) to svc_visitor;
--! EndIncluded initiatives/initiatives.sql
--! Included initiatives/tools/update.sql
-- The initiatives.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description; INITIATIVE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.initiatives_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if (coalesce(args->>'name', v_initiative.name), case when args ? 'description' then args->>'description' else v_initiative.description end)
     is distinct from (v_initiative.name, v_initiative.description) then
    update app_public.initiatives
    set name = coalesce(args->>'name', name),
        description = case when args ? 'description' then args->>'description' else description end
    where id = v_initiative.id
    returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_update(args jsonb) is 'initiatives.update: Change an initiative''s name or description (null clears). Only the fields given change.';
grant execute on function app_tools.initiatives_update(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/update.sql
--! Included initiatives/tools/archive.sql
-- The initiatives.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; INITIATIVE_UPDATED (archived true) by trigger. Its projects stay linked.
create or replace function app_tools.initiatives_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if v_initiative.archived_at is null then
    update app_public.initiatives set archived_at = now() where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_archive(args jsonb) is 'initiatives.archive: Archive an initiative (soft; its projects stay linked). Idempotent.';
grant execute on function app_tools.initiatives_archive(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/archive.sql
--! Included initiatives/tools/unarchive.sql
-- The initiatives.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes initiatives.archive; idempotent; INITIATIVE_UPDATED (archived false) by trigger.
create or replace function app_tools.initiatives_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.initiative_for_write(args->>'id');
begin
  if v_initiative.archived_at is not null then
    update app_public.initiatives set archived_at = null where id = v_initiative.id returning * into v_initiative;
  end if;
  return app_hidden.initiative_json(v_initiative);
end
$$;
comment on function app_tools.initiatives_unarchive(args jsonb) is 'initiatives.unarchive: Restore an archived initiative. Idempotent.';
grant execute on function app_tools.initiatives_unarchive(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/unarchive.sql
--! Included initiatives/tools/linkProject.sql
-- The initiatives.linkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId (moving it from another initiative); idempotent; PROJECT_UPDATED by
-- trigger.
create or replace function app_tools.initiatives_link_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  -- Locked: the move and the narrowing check are decided on the project's current initiative.
  v_project app_public.projects := app_hidden.project_for_write(args->>'projectId', 'projectId');
begin
  if v_project.initiative_id is distinct from v_initiative.id then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = v_initiative.id where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_link_project(args jsonb) is 'initiatives.linkProject: Attach a project to an initiative (sets the project''s initiativeId, moving it from any other initiative). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_link_project(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/linkProject.sql
--! Included initiatives/tools/unlinkProject.sql
-- The initiatives.unlinkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId to null; idempotent; 409 not_linked when initiativeId names another
-- initiative; PROJECT_UPDATED by trigger.
create or replace function app_tools.initiatives_unlink_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  -- Locked: not_linked and the narrowing check are decided on the project's current initiative (a concurrent link
  -- to another one is seen, not undone).
  v_project app_public.projects := app_hidden.project_for_write(args->>'projectId', 'projectId');
  v_initiative app_public.initiatives;
begin
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
    if v_project.initiative_id is distinct from v_initiative.id and v_project.initiative_id is not null then
      raise exception 'The project is linked to another initiative' using errcode = 'SV409', detail = 'not_linked';
    end if;
  end if;
  if v_project.initiative_id is not null then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_unlink_project(args jsonb) is 'initiatives.unlinkProject: Detach a project from its initiative (sets initiativeId null). Pass initiativeId to make sure it is detached from that one (409 not_linked if it belongs to another). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_unlink_project(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/unlinkProject.sql
--! Included labels/labels.sql
-- labels: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_label(p_id text)
 returns app_public.labels
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select l from app_public.labels l
     where l.id = app_hidden.parse_uuid(p_id, 'id') and l.workspace_id = app_hidden.current_workspace_id()), 'Label');
end
$$;
comment on function app_hidden.find_label(p_id text) is 'A label of the caller''s workspace by id, else 404 naming id.';
grant execute on function app_hidden.find_label(p_id text) to svc_visitor;

create or replace function app_hidden.find_label_for_write(p_id text)
 returns app_public.labels
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.find_label(p_id);
begin
  if not app_hidden.issues_unrestricted() then
    raise exception 'A key with project or label narrowing may not change workspace labels'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  -- Locked until commit and read again once the lock is granted: a concurrent delete or merge of the label may have
  -- removed it while this call waited (then 404, as a later call gets), and a rename writes over the current row.
  -- FOR UPDATE, as a delete takes it: labelling an issue with it (KEY SHARE) waits until this call ends.
  select * into v_label from app_public.labels l where l.id = v_label.id for update;
  return app_hidden.found(v_label, 'Label');
end
$$;
comment on function app_hidden.find_label_for_write(p_id text) is 'A label of the caller''s workspace (404 otherwise, also when a concurrent delete removed it while this waited) that the key may change (403 narrowing for narrowed keys), locked FOR UPDATE until commit.';
grant execute on function app_hidden.find_label_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text)
 returns void
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Dispatch rules are OWNER/ADMIN's (decisions: Dispatch rules) and go with the label they route by (deleted or
  -- merged away), so only those who may change the rules may remove it. Read as the owner: the rules policy hides
  -- every rule from a narrowed key (an initiative-narrowed key may change labels), which must not make the label look
  -- free of them. The caller holds the label's row lock, so no rule is added between this check and the delete.
  if exists (select 1 from app_public.dispatch_rules r where r.workspace_id = p_label.workspace_id and r.label_id = p_label.id)
     and not app_hidden.is_workspace_admin() then
    raise exception 'Dispatch rules route by label "%": only an OWNER or ADMIN key (ADMIN scope) may %', p_label.name, p_what
      using errcode = 'SV403', detail = 'admin_required';
  end if;
end
$$;
comment on function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text) is '403 admin_required when dispatch rules use the label and the key is not a workspace admin''s with ADMIN: deleting or merging it changes those rules.';
grant execute on function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text) to svc_visitor;

create or replace function app_hidden.label_json(l app_public.labels)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color, 'description', l.description,
                            'createdAt', l.created_at, 'updatedAt', l.updated_at)
$$;
comment on function app_hidden.label_json(l app_public.labels) is 'Label {id, name, color, description, createdAt, updatedAt}.';
grant execute on function app_hidden.label_json(l app_public.labels) to svc_visitor;

create or replace function app_hidden.raise_label_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A label named "%" already exists', p_name using errcode = 'SV409', detail = 'label_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_label_name_taken(p_name text) is 'Raises 409 label_exists (names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_label_name_taken(p_name text) to svc_visitor;
--! EndIncluded labels/labels.sql
--! Included labels/tools/update.sql
-- The labels.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rename, recolor or describe a label (not for narrowed keys).
create or replace function app_tools.labels_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
begin
  if args ? 'name' and lower(args->>'name') <> lower(v_label.name) and exists (
       select 1 from app_public.labels l
       where l.workspace_id = v_label.workspace_id and lower(l.name) = lower(args->>'name') and l.id <> v_label.id) then
    perform app_hidden.raise_label_name_taken(args->>'name');
  end if;
  update app_public.labels
  set name = case when args ? 'name' then args->>'name' else name end,
      color = case when args ? 'color' then args->>'color' else color end,
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_label.id
  returning * into v_label;
  return app_hidden.label_json(v_label);
exception when unique_violation then
  -- Another label took the name after the check above (a concurrent rename or create): the same answer as the check.
  perform app_hidden.raise_label_name_taken(args->>'name');
end
$$;
comment on function app_tools.labels_update(args jsonb) is 'labels.update: Rename, recolor or describe a label. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_update(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/update.sql
--! Included labels/tools/delete.sql
-- The labels.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys. Dispatch
-- rules on it go with it, so a label they use is for workspace admins only.
create or replace function app_tools.labels_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
  v_count int;
begin
  perform app_hidden.require_rules_admin_for_label(v_label, 'delete it (its rules go with it)');
  -- Take it off issues first (as the caller, so each issue records ISSUE_UPDATED), then delete it.
  delete from app_public.issue_labels where label_id = v_label.id;
  get diagnostics v_count = row_count;
  delete from app_public.labels where id = v_label.id;
  return jsonb_build_object('ok', true, 'id', v_label.id, 'removedFromIssues', v_count);
end
$$;
comment on function app_tools.labels_delete(args jsonb) is 'labels.delete: Delete a label; it comes off every issue. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_delete(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/delete.sql
--! Included notes/notes.sql
-- notes: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_note(p_id text)
 returns app_public.notes
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  -- manage_own_notes hides every other user's note: theirs and unknown ids read the same.
  return app_hidden.found((select n from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id')), 'Note');
end
$$;
comment on function app_hidden.find_note(p_id text) is 'One of the caller''s own notes, else 404 "Note not found" (another user''s note included).';
grant execute on function app_hidden.find_note(p_id text) to svc_visitor;

create or replace function app_hidden.note_for_write(p_id text)
 returns app_public.notes
 language plpgsql
as $$
declare v_note app_public.notes;
begin
  perform app_hidden.require_user();
  -- Locked until commit and read once the lock is granted: two edits of one note each write their own fields over
  -- the other's (not over the row both read first), an edit sees an archive that committed while it waited, and
  -- concurrent archives stamp one archivedAt.
  select * into v_note from app_public.notes n where n.id = app_hidden.parse_uuid(p_id, 'id') for no key update;
  return app_hidden.found(v_note, 'Note');
end
$$;
comment on function app_hidden.note_for_write(p_id text) is 'One of the caller''s own notes, locked until commit (its current row), else 404 "Note not found" (another user''s note included). The entry point of every note change.';
grant execute on function app_hidden.note_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.note_json(n app_public.notes)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', n.id, 'title', n.title, 'body', n.body, 'pinned', n.pinned, 'kind', n.kind,
                            'journalDate', n.journal_date, 'archived', n.archived_at is not null, 'archivedAt', n.archived_at,
                            'createdAt', n.created_at, 'updatedAt', n.updated_at)
$$;
comment on function app_hidden.note_json(n app_public.notes) is 'Note (spec 2.14): id, title, body, pinned, kind, journalDate, archived state.';
grant execute on function app_hidden.note_json(n app_public.notes) to svc_visitor;

create or replace function app_public.notes_restore(note_id uuid)
 returns app_public.notes
 language plpgsql
as $$
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
comment on function app_public.notes_restore(note_id uuid) is 'Restores one of your archived notes (idempotent). Another user''s note is "Note not found".';
grant execute on function app_public.notes_restore(note_id uuid) to svc_visitor;
--! EndIncluded notes/notes.sql
--! Included notes/tools/create.sql
-- The notes.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a private note (kind NOTE) or a journal entry (JOURNAL, journalDate default today in the caller's zone; one
-- per day: 409 journal_exists).
create or replace function app_tools.notes_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_date date;
  v_note app_public.notes;
begin
  if v_kind = 'NOTE' and args->>'journalDate' is not null then
    raise exception 'journalDate is only for JOURNAL notes' using errcode = 'SV400', column = 'journalDate';
  end if;
  if v_kind = 'JOURNAL' then
    v_date := coalesce((args->>'journalDate')::date, app_hidden.user_today(null));
  end if;
  -- One statement decides whether the day has its entry (as notes.todayJournal): a check before the insert let two
  -- calls at once both pass it, and the loser got the unique violation's generic 409 rather than journal_exists.
  insert into app_public.notes (workspace_id, user_id, title, body, pinned, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, args->>'title', args->>'body',
          coalesce((args->>'pinned')::boolean, false), v_kind, v_date)
  on conflict (workspace_id, user_id, journal_date) where kind = 'JOURNAL' do nothing
  returning * into v_note;
  if v_note.id is null then
    raise exception 'There is already a journal entry for %; use notes.update (or notes.todayJournal)', v_date
      using errcode = 'SV409', detail = 'journal_exists';
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_create(args jsonb) is 'notes.create: Create a private markdown note for yourself (the key''s user). kind JOURNAL makes a daily journal entry for journalDate (default today); one per day.';
grant execute on function app_tools.notes_create(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/create.sql
--! Included notes/tools/update.sql
-- The notes.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- title (null clears), body, pinned of one of the caller's live notes; archived: 409 note_archived.
create or replace function app_tools.notes_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_note app_public.notes := app_hidden.note_for_write(args->>'id');
  v_title text := case when args ? 'title' then args->>'title' else v_note.title end;
  v_body text := coalesce(args->>'body', v_note.body);
  v_pinned boolean := coalesce((args->>'pinned')::boolean, v_note.pinned);
begin
  if v_note.archived_at is not null then
    raise exception 'Note is archived; archived notes can be restored only in the app' using errcode = 'SV409', detail = 'note_archived';
  end if;
  if (v_title, v_body, v_pinned) is distinct from (v_note.title, v_note.body, v_note.pinned) then
    -- Only the fields given are written.
    update app_public.notes
    set title = case when args ? 'title' then v_title else title end,
        body = case when args->>'body' is not null then v_body else body end,
        pinned = case when args->>'pinned' is not null then v_pinned else pinned end
    where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_update(args jsonb) is 'notes.update: Edit one of your notes: title (null clears), body, pinned. Only the fields given change. Archived notes cannot be edited.';
grant execute on function app_tools.notes_update(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/update.sql
--! Included notes/tools/archive.sql
-- The notes.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive of one of the caller's notes; idempotent; no MCP unarchive.
create or replace function app_tools.notes_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_note app_public.notes := app_hidden.note_for_write(args->>'id');
begin
  if v_note.archived_at is null then
    update app_public.notes set archived_at = now() where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_archive(args jsonb) is 'notes.archive: Archive one of your notes (soft; restoring is only possible in the app). Idempotent.';
grant execute on function app_tools.notes_archive(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/archive.sql
--! Included agents/agents.sql
-- agents: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_public.agents_webhook_url(a app_public.agents)
 returns text
 language sql
 stable
as $$
  -- A person's admin key, not an agent's key (an agent keyed by an admin's user with FULL scope would read every
  -- other agent's URL and its token); an agent reads its own.
  select case when app_hidden.current_workspace_id() is null
                or (app_hidden.current_agent_id() is null and app_hidden.is_workspace_admin())
                or a.id = app_hidden.current_agent_id() then a.webhook_url end
$$;
comment on function app_public.agents_webhook_url(a app_public.agents) is 'Where dispatch deliveries for the agent go (signed); shown only to a workspace admin''s own key (no linked agent), the agent''s own keys and the operator (it may carry a token).';
grant execute on function app_public.agents_webhook_url(a app_public.agents) to svc_visitor;

create or replace function app_hidden.agent_json(a app_public.agents)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    -- The dispatch URL may carry a token: workspace admins only (as runtimes' endpoints), and the operator (svc
    -- admin, no caller).
    'maxConcurrent', a.max_concurrent, 'webhookUrl', app_public.agents_webhook_url(a),
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'createdAt', a.created_at,
    'runtime', (select jsonb_build_object('id', r.id, 'name', r.name, 'kind', r.kind)
                from app_public.runtimes r where r.id = a.runtime_id and r.workspace_id = a.workspace_id))
$$;
comment on function app_hidden.agent_json(a app_public.agents) is 'Agent (spec 2.9) with its runtime {id, name, kind} (null when it has none); webhookUrl only for a workspace admin''s own key, the agent''s own keys and the operator (agents_webhook_url; it may carry a token).';
grant execute on function app_hidden.agent_json(a app_public.agents) to svc_visitor;

create or replace function app_hidden.require_agent_manager()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  perform app_private.require_admin(v_caller);
  -- Agents serve the whole workspace: their dispatches and webhook carry any issue's events, so a key narrowed to
  -- some projects could point an agent's webhookUrl at itself and receive what it may not see.
  perform app_hidden.require_unnarrowed('Agents work on the whole workspace');
  -- A person's key: an agent's own key, even one made for an admin with every scope, could otherwise point another
  -- agent's webhookUrl at itself and receive that agent's dispatches.
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents are managed with a person''s key; this key acts for an agent'
      using errcode = 'SV403', detail = 'admin_required';
  end if;
  return v_caller;
end
$$;
comment on function app_hidden.require_agent_manager() is 'The caller, when it may create, change, archive or delete agents: an OWNER/ADMIN with the ADMIN scope (require_admin) acting as a person (no linked agent; else 403 admin_required) with an unnarrowed key (else 403 narrowing).';
grant execute on function app_hidden.require_agent_manager() to svc_visitor;

create or replace function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.create_agent(v_caller.workspace_id, p_profile_key, p_name, p_capabilities, p_provider,
    p_runtime_mode, p_max_concurrent, p_webhook_url);
end
$$;
comment on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.create_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_create(p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) to svc_visitor;

create or replace function app_hidden.agents_delete(p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.delete_agent(v_caller.workspace_id, p_agent_id);
end
$$;
comment on function app_hidden.agents_delete(p_agent_id uuid) is 'OWNER/ADMIN acting as a person (require_agent_manager): delete an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_delete(p_agent_id uuid) to svc_visitor;

create or replace function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.set_agent_archived(v_caller.workspace_id, p_agent_id, p_archived);
end
$$;
comment on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): archive or restore an agent of the caller''s workspace.';
grant execute on function app_hidden.agents_set_archived(p_agent_id uuid, p_archived boolean) to svc_visitor;

create or replace function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean)
 returns app_public.agents
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_hidden.require_agent_manager();
begin
  return app_private.update_agent(v_caller.workspace_id, p_agent_id, p_name, p_profile_key, p_capabilities,
    p_provider, p_runtime_mode, p_max_concurrent, p_webhook_url, p_clear_webhook_url);
end
$$;
comment on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'OWNER/ADMIN acting as a person (require_agent_manager): app_private.update_agent in the caller''s workspace.';
grant execute on function app_hidden.agents_update(p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text)
 returns app_public.agents
 language plpgsql
 stable
as $$
begin
  if p_agent_id is not null then
    return app_hidden.found((select a from app_public.agents a
                             where a.id = app_hidden.parse_uuid(p_agent_id, p_field) and a.workspace_id = app_hidden.current_workspace_id()),
                            'Agent', p_field);
  end if;
  return app_hidden.found((select a from app_public.agents a
                           where a.profile_key = lower(p_profile_key) and a.workspace_id = app_hidden.current_workspace_id()),
                          'Agent', p_field);
end
$$;
comment on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) is 'An agent of the caller''s workspace by id or profileKey; 404 naming the field otherwise.';
grant execute on function app_hidden.find_agent(p_agent_id text, p_profile_key text, p_field text) to svc_visitor;

create or replace function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text default null)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v app_public.agents := app_hidden.find_agent(p_agent_id, p_profile_key, p_field);
begin
  if v.archived_at is not null then
    raise exception 'Agent % is archived', v.profile_key using errcode = 'SV400', column = p_field, detail = 'agent_archived';
  end if;
  return v;
end
$$;
comment on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) is 'An agent of the caller''s workspace that is not archived, by id (else by profileKey, as find_agent): for what puts an agent to work (issues.assign/reassign, an action request''s assignee or bound assignment, a crew, planner, judge or step). 404 unknown, 400 agent_archived, both naming the field.';
grant execute on function app_hidden.find_live_agent(p_agent_id text, p_field text, p_profile_key text) to svc_visitor;

create or replace function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}'::text[], p_provider text default 'CUSTOM'::text, p_runtime_mode text default 'PERSISTENT'::text, p_max_concurrent integer default 1, p_webhook_url text default NULL::text)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, app_hidden.one_line(p_name, 'name', 200),
          coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text) is 'Creates an agent (AGENT_CREATED by trigger).';

create or replace function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  -- Its keys stop working at once (svc_keys NOTIFY) before the rows go with the agent.
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and linked_agent_id = v_agent.id and revoked_at is null;
  begin
    delete from app_public.agents where id = v_agent.id;
  exception when foreign_key_violation then
    raise exception 'Agent % still has issues or comments; archive it instead', v_agent.profile_key
      using errcode = 'SV409', detail = 'agent_in_use';
  end;
  return v_agent;
end
$$;
comment on function app_private.delete_agent(p_workspace_id uuid, p_agent_id uuid) is 'Deletes an agent that no issue or comment refers to (409 agent_in_use otherwise: archive it). Its keys are revoked; AGENT_DELETED by trigger.';

create or replace function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event app_public.activity_events;
  v_agent app_public.agents;
  v_delivery uuid;
begin
  select * into v_event from app_public.activity_events where id = p_event_id;
  if v_event.id is null then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = v_event.workspace_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  if v_agent.webhook_url is null or v_agent.archived_at is not null then
    return null; -- no endpoint: the agent sees the event on SSE only
  end if;
  -- A secret exists before the first delivery; the operator reads it with rotate-agent-secret.
  insert into app_private.agent_webhook_secrets (agent_id, workspace_id, secret)
  values (v_agent.id, v_agent.workspace_id, app_private.new_webhook_secret())
  on conflict (agent_id) do nothing;
  insert into app_public.webhook_deliveries (workspace_id, event_id, agent_id, channel)
  values (v_event.workspace_id, v_event.id, v_agent.id, 'agent:dispatch:' || v_agent.id)
  on conflict (agent_id, event_id) do nothing
  returning id into v_delivery;
  if v_delivery is not null then
    perform app_private.enqueue_delivery_job(v_delivery);
  end if;
  return v_delivery;
end
$$;
comment on function app_private.enqueue_agent_dispatch(p_event_id uuid, p_agent_id uuid) is 'Queues a signed POST of an event to an agent''s webhookUrl on channel agent:dispatch:<agentId>, in the caller''s transaction. NULL when the agent has no webhookUrl (it still sees the event on SSE).';

create or replace function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.find_agent(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, else 404 (never a hint that it exists elsewhere).';

create or replace function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents;
begin
  -- Locked until commit and read once the lock is granted: a change decided on this row (archive, restore) sees
  -- every change committed before it. FOR NO KEY UPDATE, the lock the agent's own UPDATE takes: runs opened and
  -- issues assigned to it meanwhile (KEY SHARE through their foreign keys) do not wait for it. Lock order: an
  -- archive takes the agent's issues first (as every issue write does), then this.
  select * into v_agent from app_public.agents where id = p_agent_id and workspace_id = p_workspace_id for no key update;
  if v_agent.id is null then
    raise exception 'Agent not found' using errcode = 'SV404', column = 'agentId';
  end if;
  return v_agent;
end
$$;
comment on function app_private.agent_for_write(p_workspace_id uuid, p_agent_id uuid) is 'The agent with this id in this workspace, locked until commit (its current row), else 404 (as find_agent).';

drop function if exists app_private.rotate_agent_webhook_secret(uuid);
-- Its answer was the secret alone (text) until migration 000125: dropped so the jsonb one can replace it.
drop function if exists app_private.rotate_agent_webhook_secret(uuid, integer);
create or replace function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_agent app_public.agents;
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  select * into v_agent from app_public.agents where id = p_agent_id;
  if v_agent.id is null then
    perform app_hidden.raise_not_found('Agent', null);
  end if;
  -- As a webhook's rotation: the old secret signs beside the new one for the grace (0: stops at once).
  insert into app_private.agent_webhook_secrets as s (agent_id, workspace_id, secret) values (v_agent.id, v_agent.workspace_id, v_secret)
  on conflict (agent_id) do update
  set previous_secret = case when v_until is not null then s.secret end, previous_secret_expires_at = v_until,
      secret = excluded.secret, rotated_at = now()
  returning previous_secret_expires_at into v_until;
  return jsonb_build_object('secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.rotate_agent_webhook_secret(p_agent_id uuid, p_keep_previous_hours integer) is 'Sets a new signing secret for an agent''s dispatch deliveries and returns {secret (shown once), previousSecretValidUntil}: the old one also signs until then (null: it stopped at once, or there was none).';

create or replace function app_hidden.lock_live_agent(p_agent_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- FOR SHARE waits for an archive in progress (its row lock is taken after the agent's issues', the order of every
  -- issue write), then sees whether it committed. As the owner: the agents policy lets keys lock only their own agent.
  if (select a.archived_at from app_public.agents a
      where a.id = p_agent_id and a.workspace_id = coalesce(app_hidden.current_workspace_id(), a.workspace_id) for share) is not null then
    raise exception 'The agent is archived' using errcode = 'SV400', detail = 'agent_archived';
  end if;
end
$$;
comment on function app_hidden.lock_live_agent(p_agent_id uuid) is 'Before an assignment: locks the agent FOR SHARE (waiting for an archive in progress) and raises 400 agent_archived if it is archived.';
grant execute on function app_hidden.lock_live_agent(p_agent_id uuid) to svc_visitor;

create or replace function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;  -- already so: no event
  end if;
  if p_archived then
    -- The lock order of every issue write: its issue first, then the runs and the agent (assign_issue_agent). An
    -- issue assigned meanwhile is found by the statements below (each sees what committed before it).
    perform 1 from app_public.issues i
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
    order by i.id for update;
  end if;
  -- Decided again on the locked row: a concurrent archive (or restore) may have committed since the read above, and
  -- writing over it restamped archivedAt with an AGENT_UPDATED saying "restored" (archived: false).
  v_agent := app_private.agent_for_write(p_workspace_id, p_agent_id);
  if (v_agent.archived_at is not null) = p_archived then
    return v_agent;
  end if;
  update app_public.agents set archived_at = case when p_archived then now() end
  where id = v_agent.id returning * into v_agent;
  if p_archived then
    -- An archived agent works no more: its open runs end (AGENT_RUN_STATUS_CHANGED by trigger, reason
    -- agent_archived), its unfinished issues are unassigned (ISSUE_UPDATED by trigger, changes assignedAgentId;
    -- queued ones go back to the dispatcher), and it is OFFLINE (AGENT_STATUS_CHANGED). Left as they were, its issues stayed assigned
    -- to nobody who would work on them.
    perform set_config('svc.run_end_reason', 'agent_archived', true);
    update app_public.agent_runs set status = 'ABANDONED', finished_at = now(), last_event_at = now()
    where workspace_id = p_workspace_id and agent_id = v_agent.id and status in ('ACTIVE', 'WAITING', 'STALLED');
    perform set_config('svc.run_end_reason', '', true);
    update app_public.issues i set assigned_agent_id = null
    where i.workspace_id = p_workspace_id and i.assigned_agent_id = v_agent.id and i.deleted_at is null
      and not exists (select 1 from app_public.statuses s where s.id = i.status_id and s.category in ('DONE', 'CANCELED'));
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id and status <> 'OFFLINE';
    -- Its plan steps pass to a live crew member. Their events are the workspace's (svc admin sets none).
    perform set_config('svc.workspace_id', p_workspace_id::text, true);
    perform app_private.steps_pass_over_archived_agent(p_workspace_id, v_agent.id);
    v_agent := app_private.find_agent(p_workspace_id, p_agent_id);
  end if;
  return v_agent;
end
$$;
comment on function app_private.set_agent_archived(p_workspace_id uuid, p_agent_id uuid, p_archived boolean) is 'Archives (AGENT_DELETED with archived: true) or restores (AGENT_UPDATED) an agent. Idempotent. Archiving ends the agent''s open runs (reason agent_archived), unassigns its unfinished issues (queued ones return to the dispatcher), passes its plan steps to a live crew member and sets it OFFLINE.';

create or replace function app_private.sweep_silent_agents(p_now timestamp with time zone default now())
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents;
  v_fired jsonb := '[]';
begin
  -- Presence expires: an agent ONLINE or BUSY that has not sent a heartbeat for the workspace's
  -- agentRunStaleMinutes is OFFLINE (AGENT_STATUS_CHANGED by trigger, reason heartbeat_timeout), so the
  -- dispatcher stops handing work to an agent that crashed. Its next heartbeat brings it back. SKIP LOCKED: an
  -- agent being assigned or heartbeating right now is left for the next sweep.
  perform set_config('svc.agent_status_reason', 'heartbeat_timeout', true);
  for v_agent in
    select a.* from app_public.agents a join app_public.workspaces w on w.id = a.workspace_id
    where a.status <> 'OFFLINE' and a.archived_at is null
      and coalesce(a.last_heartbeat_at, a.created_at) < p_now - make_interval(mins => w.agent_run_stale_minutes)
    order by a.workspace_id, a.id
    for update of a skip locked
  loop
    update app_public.agents set status = 'OFFLINE' where id = v_agent.id;
    v_fired := v_fired || jsonb_build_object('kind', 'AGENT_OFFLINE', 'subjectId', v_agent.id, 'agentId', v_agent.id,
      'workspaceId', v_agent.workspace_id, 'lastHeartbeatAt', v_agent.last_heartbeat_at);
  end loop;
  perform set_config('svc.agent_status_reason', '', true);
  return v_fired;
end
$$;
comment on function app_private.sweep_silent_agents(p_now timestamp with time zone) is 'Presence sweep: ONLINE or BUSY agents without a heartbeat for the workspace''s agentRunStaleMinutes at p_now go OFFLINE (AGENT_STATUS_CHANGED, reason heartbeat_timeout), so the dispatcher skips them. Returns [{kind: AGENT_OFFLINE, subjectId: agentId, agentId, workspaceId, lastHeartbeatAt}]. Run every minute with the other sweeps (svc_watchdog_sweep, svc admin sweep).';

create or replace function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean default false)
 returns app_public.agents
 language plpgsql
as $$
declare v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
begin
  if p_profile_key is not null and p_profile_key <> v_agent.profile_key and exists (
    select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  update app_public.agents a set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), a.name),
    profile_key = coalesce(p_profile_key, a.profile_key),
    capabilities = coalesce(app_hidden.one_line_list(p_capabilities, 'capabilities', 50, 100), a.capabilities),
    provider = coalesce(p_provider, a.provider),
    runtime_mode = coalesce(p_runtime_mode, a.runtime_mode),
    max_concurrent = coalesce(p_max_concurrent, a.max_concurrent),
    webhook_url = case when coalesce(p_clear_webhook_url, false) then null else coalesce(p_webhook_url, a.webhook_url) end
  where a.id = v_agent.id
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.update_agent(p_workspace_id uuid, p_agent_id uuid, p_name text, p_profile_key text, p_capabilities text[], p_provider text, p_runtime_mode text, p_max_concurrent integer, p_webhook_url text, p_clear_webhook_url boolean) is 'Changes the given fields of an agent (NULL = unchanged; p_clear_webhook_url removes the webhook). AGENT_UPDATED by trigger.';

create or replace function app_public.agents_archive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, true) $$;
comment on function app_public.agents_archive(agent_id uuid) is 'OWNER/ADMIN: archives an agent (no new assignments or dispatch; its history stays). Emits AGENT_DELETED with archived: true.';
grant execute on function app_public.agents_archive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_create(profile_key text, name text, capabilities text[] default '{}'::text[], provider text default 'CUSTOM'::text, runtime_mode text default 'PERSISTENT'::text, max_concurrent integer default 1, webhook_url text default NULL::text)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_create(profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
$$;
comment on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) is 'OWNER/ADMIN: creates an agent. profileKey is its unique handle (a-z, 0-9, _ . -); provider CUSTOM, CLAUDE, CODEX or HERMES; runtimeMode PERSISTENT or EPHEMERAL; maxConcurrent 0 = unlimited. Emits AGENT_CREATED.';
grant execute on function app_public.agents_create(profile_key text, name text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text) to svc_visitor;

create or replace function app_public.agents_delete(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_delete(agent_id) $$;
comment on function app_public.agents_delete(agent_id uuid) is 'OWNER/ADMIN: deletes an agent no issue or comment refers to (otherwise 409 agent_in_use: archive it instead). Its keys are revoked. Emits AGENT_DELETED.';
grant execute on function app_public.agents_delete(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_unarchive(agent_id uuid)
 returns app_public.agents
 language sql
as $$ select app_hidden.agents_set_archived(agent_id, false) $$;
comment on function app_public.agents_unarchive(agent_id uuid) is 'OWNER/ADMIN: restores an archived agent. Emits AGENT_UPDATED.';
grant execute on function app_public.agents_unarchive(agent_id uuid) to svc_visitor;

create or replace function app_public.agents_update(agent_id uuid, name text default NULL::text, profile_key text default NULL::text, capabilities text[] default NULL::text[], provider text default NULL::text, runtime_mode text default NULL::text, max_concurrent integer default NULL::integer, webhook_url text default NULL::text, clear_webhook_url boolean default false)
 returns app_public.agents
 language sql
as $$
  select app_hidden.agents_update(agent_id, name, profile_key, capabilities, provider, runtime_mode, max_concurrent,
                                  webhook_url, clear_webhook_url)
$$;
comment on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) is 'OWNER/ADMIN: changes the fields given (omitted = unchanged; clearWebhookUrl removes the webhook). Emits AGENT_UPDATED.';
grant execute on function app_public.agents_update(agent_id uuid, name text, profile_key text, capabilities text[], provider text, runtime_mode text, max_concurrent integer, webhook_url text, clear_webhook_url boolean) to svc_visitor;

create or replace function app_hidden.require_own_agent()
 returns app_public.agents
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return v_agent;
end
$$;
comment on function app_hidden.require_own_agent() is 'The agent linked to the calling key; 403 agent_key_required (no linked agent), agent_forbidden (another workspace) or agent_archived.';
grant execute on function app_hidden.require_own_agent() to svc_visitor;

create or replace function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if p_agent_id is null then
    return null;  -- nobody to deliver to (e.g. a step with no agent yet)
  end if;
  if not exists (select 1 from app_public.activity_events e
                 where e.id = p_event_id and e.workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Event', null);
  end if;
  return app_private.enqueue_agent_dispatch(p_event_id, p_agent_id);
end
$$;
comment on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) is 'For tool functions: queues an event of the caller''s workspace to an agent''s dispatch channel (app_private.enqueue_agent_dispatch): chat USER messages, kicks, ready steps and judges. NULL when there is no agent or it has no webhookUrl (it sees the event on SSE).';
grant execute on function app_hidden.dispatch_to_agent(p_event_id uuid, p_agent_id uuid) to svc_visitor;
--! EndIncluded agents/agents.sql
--! Included orchestration/crews.sql
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
--! EndIncluded orchestration/crews.sql
--! Included agentCrews/tools/update.sql
-- The agentCrews.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes name, description, maxParallel (ADMIN); only the fields given. CREW_UPDATED by trigger on a real change.
create or replace function app_tools.agent_crews_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  update app_public.agent_crews
  set name = case when args ? 'name' then args->>'name' else name end,
      description = case when args ? 'description' then args->>'description' else description end,
      max_parallel = case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end
  where id = v_crew.id
    and (name, description, max_parallel) is distinct from (
      case when args ? 'name' then args->>'name' else name end,
      case when args ? 'description' then args->>'description' else description end,
      case when args ? 'maxParallel' then (args->>'maxParallel')::int else max_parallel end)
  returning * into v_crew;
  return app_hidden.crew_json(app_hidden.find_crew(args->>'id'));
end
$$;
comment on function app_tools.agent_crews_update(args jsonb) is 'agentCrews.update: Change a crew''s name, description or maxParallel (ADMIN, unnarrowed key; not an agent working in a live plan of the crew: 403 own_plan); only the fields given.';
grant execute on function app_tools.agent_crews_update(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/update.sql
--! Included agentCrews/tools/archive.sql
-- The agentCrews.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (ADMIN), idempotent; archived crews keep their goals but get no new ones or members.
create or replace function app_tools.agent_crews_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  if v_crew.archived_at is null then
    update app_public.agent_crews set archived_at = now() where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_archive(args jsonb) is 'agentCrews.archive: Archive a crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; soft, idempotent). Its goals keep it; it takes no new goals or members.';
grant execute on function app_tools.agent_crews_archive(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/archive.sql
--! Included agentCrews/tools/unarchive.sql
-- The agentCrews.unarchive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- undoes agentCrews.archive (ADMIN; idempotent); CREW_UPDATED by trigger.
create or replace function app_tools.agent_crews_unarchive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_crew app_public.agent_crews := app_hidden.crew_for_write(args->>'id');
begin
  if v_crew.archived_at is not null then
    update app_public.agent_crews set archived_at = null where id = v_crew.id returning * into v_crew;
  end if;
  return app_hidden.crew_json(v_crew);
end
$$;
comment on function app_tools.agent_crews_unarchive(args jsonb) is 'agentCrews.unarchive: Restore an archived crew (ADMIN, unnarrowed key, not an agent working in a live plan of the crew: 403 own_plan; idempotent).';
grant execute on function app_tools.agent_crews_unarchive(args jsonb) to svc_visitor;
--! EndIncluded agentCrews/tools/unarchive.sql
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
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived';
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
