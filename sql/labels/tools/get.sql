-- The labels.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one label of the workspace.
create or replace function app_tools.labels_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.label_json(app_hidden.find_label(args->>'id'));
end
$$;
comment on function app_tools.labels_get(args jsonb) is 'labels.get: One label by id.';
grant execute on function app_tools.labels_get(args jsonb) to svc_visitor;
