-- The issues.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the lean issue by id or key; include adds full (the shape a write answers), description, labels, comments (newest first, default 20, max 100,
-- soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.
create or replace function app_tools.issues_get(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_ref text := args->>'id';
  v_include jsonb := args->'include';
  v_json json;
  v_issue app_public.issues;
  v_result jsonb;
  v_limit int;
begin
  if v_include is null and v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- The common read (by id, lean): found and shaped in one query, the joins of issue_json, and returned as
    -- built (no jsonb round trip, no row kept for the includes).
    select app_hidden.issue_lean_json(i, s, p, a)
    into v_json
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    where i.id = v_ref::uuid and i.deleted_at is null;
    if v_json is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
    end if;
    return v_json;
  end if;
  v_issue := app_hidden.find_issue(v_ref);
  v_result := app_hidden.issue_json(v_issue, false);
  if v_include is null then
    return v_result::json;
  end if;
  if (v_include->>'full')::boolean then
    -- What a write answers: description, labels, the completion contract, creator, start and completion.
    v_result := v_result || app_hidden.issue_extra_json(v_issue, app_hidden.issue_labels_json(v_issue.label_ids));
  end if;
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', app_hidden.issue_labels_json(v_issue.label_ids));
  end if;
  if jsonb_typeof(v_include->'comments') = 'object' or (v_include->>'comments')::boolean then
    v_limit := coalesce((v_include->'comments'->>'limit')::int, 20);
    v_result := v_result || jsonb_build_object('comments', coalesce(
      (select jsonb_agg(app_hidden.comment_shape(t.c, u, a) order by (t.c).created_at desc, (t.c).id desc)
       from (select c from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) t
       left join app_public.users u on u.id = (t.c).author_user_id
       left join app_public.agents a on a.id = (t.c).authoring_agent_id), '[]'),
      -- So a reader knows when the newest `limit` are not all of them.
      'commentCount', (select count(*) from app_public.comments c
                       where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null));
  end if;
  if (v_include->>'attachments')::boolean then
    v_result := v_result || jsonb_build_object('attachments', coalesce(
      (select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
       from app_public.attachments a
       where a.workspace_id = v_issue.workspace_id and a.target_type = 'issue' and a.target_id = v_issue.id), '[]'));
  end if;
  if (v_include->>'relations')::boolean then
    v_result := v_result || jsonb_build_object('relations', app_hidden.issue_relations_json(v_issue));
  end if;
  if (v_include->>'currentRun')::boolean then
    v_result := v_result || jsonb_build_object('currentRun',
      (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
  end if;
  return v_result::json;
end
$$;
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds full (what a write answers: description, labels, slaMinutes, expectedOutput, verificationChecklist, artifactRequired, creator, startedAt, completedAt), description, labels, comments (newest first; true = 20, or {limit} up to 100; commentCount says how many there are in all), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
