-- The labels.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new label (name unique per workspace, case-insensitive: 409 label_exists).
create or replace function app_tools.labels_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
comment on function app_tools.labels_create(args jsonb) is 'labels.create: Create a label (name unique in the workspace, case-insensitive; 409 label_exists).';
grant execute on function app_tools.labels_create(args jsonb) to svc_visitor;
