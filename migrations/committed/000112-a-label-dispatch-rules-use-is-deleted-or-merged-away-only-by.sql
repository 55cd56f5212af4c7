--! Previous: sha1:33c044a158d16897e2dd810d8d18625e61e418f6
--! Hash: sha1:9e844adbc36bffe2f7a00719e31418ca35be42e0
--! Message: A label dispatch rules use is deleted or merged away only by a workspace admin

--! split: 1-current.sql
-- labels.delete and labels.merge take the dispatch rules that route by the label with it: a label rules use is for
-- workspace admins only (403 admin_required), as the rules are (a MEMBER's key removed them this way).
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
  return v_label;
end
$$;
comment on function app_hidden.find_label_for_write(p_id text) is 'A label of the caller''s workspace (404 otherwise) that the key may change (403 narrowing for narrowed keys).';
grant execute on function app_hidden.find_label_for_write(p_id text) to svc_visitor;

create or replace function app_hidden.require_rules_admin_for_label(p_label app_public.labels, p_what text)
 returns void
 language plpgsql
as $$
begin
  -- Dispatch rules are OWNER/ADMIN's (decisions: Dispatch rules); a label they route by takes them along when it
  -- goes (deleted with it, or moved by a merge), so only those who may change the rules may do that.
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
--! Included labels/tools/merge.sql
-- The labels.merge tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- every issue carrying the label fromId (deleted issues too: they keep their labels) gets intoId, then fromId is
-- deleted as labels.delete deletes it (dispatch rules on it go with it: only workspace admins may merge a label
-- rules use). One ISSUE_UPDATED (labelIds) per issue
-- that carried fromId, by the issue_labels triggers. Not for narrowed keys (they would relabel issues they
-- cannot see).
create or replace function app_tools.labels_merge(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_from app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'fromId', 'fromId') and l.workspace_id = v_ws),
    'Label', 'fromId');
  v_into app_public.labels := app_hidden.found(
    (select l from app_public.labels l where l.id = app_hidden.parse_uuid(args->>'intoId', 'intoId') and l.workspace_id = v_ws),
    'Label', 'intoId');
  v_carried int;
  v_added int;
begin
  if v_from.id = v_into.id then
    perform app_hidden.raise_invalid('intoId', 'must be another label than fromId');
  end if;
  perform app_hidden.require_issues_unrestricted('Merging labels');
  perform app_hidden.require_rules_admin_for_label(v_from, 'merge it away (its rules go with it)');
  -- Both labels locked, in id order: a concurrent rename, delete or merge of either waits for this one. `into`
  -- only FOR NO KEY UPDATE: labelling an issue with it takes KEY SHARE on it while holding the issue's row, and
  -- this merge then waits for that issue (a FOR UPDATE here deadlocked them).
  if v_from.id < v_into.id then
    perform from app_public.labels l where l.id = v_from.id for update;
    perform from app_public.labels l where l.id = v_into.id for no key update;
  else
    perform from app_public.labels l where l.id = v_into.id for no key update;
    perform from app_public.labels l where l.id = v_from.id for update;
  end if;
  -- Read before the locks: a concurrent merge or delete may have removed either label while this one waited.
  perform app_hidden.found((select l from app_public.labels l where l.id = v_from.id), 'Label', 'fromId');
  perform app_hidden.found((select l from app_public.labels l where l.id = v_into.id), 'Label', 'intoId');
  -- Then the issues carrying `from`, in id order, before writing any of their labels: an issue being labelled
  -- concurrently holds its row while it inserts (issue, into); taking the row first makes this merge wait for
  -- that write instead of both waiting on each other's (issue, into) row.
  perform from app_public.issues i
  where i.workspace_id = v_ws and i.id in (select il.issue_id from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id)
  order by i.id for update;
  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select il.workspace_id, il.issue_id, v_into.id from app_public.issue_labels il
  where il.workspace_id = v_ws and il.label_id = v_from.id
  on conflict do nothing;
  get diagnostics v_added = row_count;
  delete from app_public.issue_labels il where il.workspace_id = v_ws and il.label_id = v_from.id;
  get diagnostics v_carried = row_count;
  delete from app_public.labels l where l.id = v_from.id;
  return jsonb_build_object('ok', true, 'fromId', v_from.id, 'fromName', v_from.name,
                            'into', app_hidden.label_json(v_into), 'issueCount', v_carried, 'addedToIssues', v_added);
end
$$;
grant execute on function app_tools.labels_merge(args jsonb) to svc_visitor;
comment on function app_tools.labels_merge(args jsonb) is 'labels.merge: Merge label fromId into intoId: its issues get intoId, then fromId is deleted (as labels.delete). Returns the surviving label and issue counts. Keys narrowed to projects or labels may not.';
--! EndIncluded labels/tools/merge.sql
