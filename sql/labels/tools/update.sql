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
