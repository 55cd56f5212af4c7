-- Label tools: list, create, update, delete. Labels are workspace vocabulary: any key with the scope may
-- read and create them; keys with project or label narrowing may not rename or delete them (policy in
-- 20-issue-helpers.sql), since that would change issues outside their reach.
-- No label event kinds exist (spec 6.1); deleting a label records ISSUE_UPDATED (labelIds) on each issue it was on.

create or replace function app_hidden.find_label_for_write(p_id text) returns app_public.labels
language plpgsql volatile as $$
declare v_label app_public.labels;
begin
  select * into v_label from app_public.labels
  where id = app_hidden.parse_uuid(p_id, 'id') and workspace_id = app_hidden.current_workspace_id();
  if v_label.id is null then
    raise exception 'Label not found' using errcode = 'SV404', column = 'id';
  end if;
  if not app_hidden.issues_unrestricted() then
    raise exception 'A key with project or label narrowing may not change workspace labels'
      using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_label;
end
$$;
comment on function app_hidden.find_label_for_write(text) is 'A label of the caller''s workspace (404 otherwise) that the key may change (403 narrowing for narrowed keys).';

create or replace function app_hidden.raise_label_name_taken(p_name text) returns void
language plpgsql as $$
begin
  raise exception 'A label named "%" already exists', p_name using errcode = 'SV409', detail = 'label_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_label_name_taken(text) is 'Raises 409 label_exists (names are unique per workspace, case-insensitively).';

create or replace function app_tools.labels_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 100);
  v_after text;
  v_query text := nullif(btrim(coalesce(args->>'query', '')), '');
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'labels');
  end if;
  select coalesce(jsonb_agg(app_hidden.label_json(l) order by lower(l.name)), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.labels l
        where l.workspace_id = app_hidden.current_workspace_id()
          and (v_after is null or lower(l.name) > v_after)
          and (v_query is null or strpos(lower(l.name), lower(v_query)) > 0)
        order by lower(l.name) limit v_limit + 1) l;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('labels:' || lower(v_rows->(v_limit - 1)->>'name')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.labels_list(jsonb) is 'labels.list: labels of the workspace by name (query = substring, case-insensitive), paged.';

create or replace function app_tools.labels_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare v_label app_public.labels;
begin
  if exists (select 1 from app_public.labels l
             where l.workspace_id = app_hidden.current_workspace_id() and lower(l.name) = lower(args->>'name')) then
    perform app_hidden.raise_label_name_taken(args->>'name');
  end if;
  insert into app_public.labels (workspace_id, name, color, description)
  values (app_hidden.current_workspace_id(), args->>'name', coalesce(args->>'color', '#64748b'), args->>'description')
  returning * into v_label;
  return app_hidden.label_json(v_label);
exception when unique_violation then
  perform app_hidden.raise_label_name_taken(args->>'name');
end
$$;
comment on function app_tools.labels_create(jsonb) is 'labels.create: a new label (name unique per workspace, case-insensitive: 409 label_exists).';

create or replace function app_tools.labels_update(args jsonb) returns jsonb
language plpgsql volatile as $$
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
end
$$;
comment on function app_tools.labels_update(jsonb) is 'labels.update: rename, recolor or describe a label (not for narrowed keys).';

create or replace function app_tools.labels_delete(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_label app_public.labels := app_hidden.find_label_for_write(args->>'id');
  v_count int;
begin
  -- Take it off issues first (as the caller, so each issue records ISSUE_UPDATED), then delete it.
  delete from app_public.issue_labels where label_id = v_label.id;
  get diagnostics v_count = row_count;
  delete from app_public.labels where id = v_label.id;
  return jsonb_build_object('ok', true, 'id', v_label.id, 'removedFromIssues', v_count);
end
$$;
comment on function app_tools.labels_delete(jsonb) is
  'labels.delete: deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
