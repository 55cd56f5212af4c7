-- The issues.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new issue (default status unless statusId), labels attached; ISSUE_CREATED is written by trigger. A
-- narrowed key may only create inside its narrowing.
create or replace function app_tools.issues_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_label_ids uuid[] := app_hidden.label_id_list(args->'labelIds');
  v_id uuid := gen_random_uuid();
  v_refs jsonb;
begin
  v_refs := app_hidden.issue_create_refs(args);
  -- Everything that can fail is checked above, so the number the insert takes (trigger _200_assign_number,
  -- from the workspace's sequence) is not lost to a failure after it.
  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), (v_refs->>'statusId')::uuid,
          (v_refs->>'projectId')::uuid, (v_refs->>'parentId')::uuid, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  if cardinality(v_label_ids) > 0 then
    insert into app_public.issue_labels (workspace_id, issue_id, label_id)
    select v_ws, v_id, l from unnest(v_label_ids) l;
  end if;

  return app_hidden.issue_json_after_write(v_id);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
