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
