-- The issues.history tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the activity of one issue (id or key, narrowing as issues.get): its own events (subjectType issue: status,
-- assignment, runs, ...) and those of its comments, deleted comments included; newest first, paged by seq;
-- the shape of events.recent.
create or replace function app_tools.issues_history(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before bigint := coalesce(app_hidden.cursor_decode_bigint(args->>'cursor', 'issue-history'), 9223372036854775807);
  v_comment_ids uuid[];
  v_items json[];
  v_keys text[];
begin
  -- A deleted comment's events (its creation, its deletion) stay part of the issue's history. The comments
  -- policy hides deleted comments, so the read of the ids sees them for this statement only (as comments.delete does).
  perform set_config('svc.include_deleted_comments', 'on', true);
  v_comment_ids := array(select c.id from app_public.comments c
                         where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id);
  -- Two index reads (activity_events_subject_idx), each at most a page, merged newest first.
  select array_agg(app_hidden.event_shape(t.e, a, u, true) order by (t.e).seq desc),
         array_agg((t.e).seq::text order by (t.e).seq desc)
  into v_items, v_keys
  from (select x.e from (
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'issue' and e.subject_id = v_issue.id
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)
          union all
          (select e from app_public.activity_events e
           where e.workspace_id = v_issue.workspace_id and e.subject_type = 'comment' and e.subject_id = any(v_comment_ids)
             and e.seq < v_before
           order by e.seq desc limit v_limit + 1)) x
        order by (x.e).seq desc limit v_limit + 1) t
  left join app_public.agents a on a.id = (t.e).actor_agent_id
  left join app_public.users u on u.id = (t.e).actor_user_id;
  perform set_config('svc.include_deleted_comments', '', true);
  return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issue-history');
end
$$;
grant execute on function app_tools.issues_history(args jsonb) to svc_visitor;
comment on function app_tools.issues_history(args jsonb) is 'issues.history: An issue''s events and its comments'', newest first, paged, as events.recent.';
