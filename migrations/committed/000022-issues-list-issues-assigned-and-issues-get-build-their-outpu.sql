--! Previous: sha1:eceb610f285e1b153449d62436ff86415a19c72a
--! Hash: sha1:1bd7f20af9c1ff0951413338473d2b6eb369a946
--! Message: issues.list, issues.assigned and issues.get build their output as json (text), not jsonb

--! split: 1-current.sql
-- issues.list (and issues.assigned, which is issues.list filtered) build their pages as json, not jsonb:
-- a page of 51 issues is built twice as fast, and the transports pass the text through unparsed; issues.get
-- returns the lean issue as built too.
drop function if exists app_tools.issues_get(jsonb);
drop function if exists app_tools.issues_assigned(jsonb);
drop function if exists app_tools.issues_list(jsonb);
drop function if exists app_hidden.issue_lean_json(app_public.issues, app_public.statuses, app_public.projects, app_public.agents, jsonb);
--! Included core/paging.sql
-- Opaque cursors of paged lists.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text)
 returns text
 language plpgsql
 immutable
as $$
declare
  v_b64 text := translate(p_cursor, '-_', '+/');
  v_token text;
begin
  v_b64 := v_b64 || repeat('=', (4 - length(v_b64) % 4) % 4);
  v_token := convert_from(decode(v_b64, 'base64'), 'utf8');
  if left(v_token, length(p_prefix) + 1) <> p_prefix || ':' then
    raise exception 'bad cursor' using errcode = 'SV400', column = p_field;
  end if;
  return substr(v_token, length(p_prefix) + 2);
exception when others then
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) is 'Reads a cursor made by cursor_encode; a foreign or damaged cursor is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.cursor_decode(p_cursor text, p_prefix text, p_field text) to svc_visitor;

create or replace function app_hidden.cursor_encode(p_token text)
 returns text
 language plpgsql
 immutable parallel safe
as $$
begin
  -- plpgsql: as `language sql` it is never inlined (convert_to is only stable) and was planned again in
  -- every statement that called it (0.15 ms).
  return rtrim(translate(encode(convert_to(p_token, 'utf8'), 'base64'), E'+/\n', '-_'), '=');
end
$$;
comment on function app_hidden.cursor_encode(p_token text) is 'Opaque cursor for keyset pagination (base64url of a small token, no padding, no line breaks).';
grant execute on function app_hidden.cursor_encode(p_token text) to svc_visitor;

create or replace function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text default 'cursor'::text, OUT sort_key text, OUT sort_id uuid)
 returns record
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix, p_field);
begin
  if length(v_token) < 38 or substr(v_token, length(v_token) - 36, 1) <> '|' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end if;
  sort_key := substr(v_token, 1, length(v_token) - 37);
  sort_id := app_hidden.parse_uuid(right(v_token, 36), p_field);
end
$$;
comment on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) is 'Reads a cursor made by keyset_encode (a null cursor gives nulls); anything else is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) to svc_visitor;

create or replace function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select app_hidden.cursor_encode(p_prefix || ':' || p_sort || '|' || p_id::text) $$;
comment on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) is 'Opaque keyset cursor for (sort key, id) ordered lists.';
grant execute on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) to svc_visitor;

-- Every paged list ends the same way: it selects up to limit + 1 rows as page_row (item = the shaped row,
-- sort_key/id = what its cursor encodes) and returns page_json(rows, limit, prefix). The look-ahead row
-- only says that there is a next page; a list shapes it lazily (item null past the limit:
-- `case when row_number() over w <= v_limit then <shape> end`), so no row is shaped for nothing.
create or replace function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text)
 returns jsonb
 language plpgsql
 immutable
as $$
declare
  v_last app_hidden.page_row;
begin
  if cardinality(p_rows) > p_limit then
    v_last := p_rows[p_limit];
  end if;
  return jsonb_build_object(
    'items', (select coalesce(jsonb_agg(r.item order by r.n), '[]')
              from unnest(p_rows[:p_limit]) with ordinality r(item, sort_key, id, n)),
    'nextCursor', case
      when v_last is null then null
      when p_prefix is null then v_last.sort_key
      when v_last.id is null then app_hidden.cursor_encode(p_prefix || ':' || v_last.sort_key)
      else app_hidden.keyset_encode(p_prefix, v_last.sort_key, v_last.id) end);
end
$$;
comment on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) is 'A page of a list: {items, nextCursor} from up to limit + 1 rows in list order. nextCursor (when a row follows the page) is the last item''s keyset_encode(prefix, sort_key, id), or cursor_encode(prefix:sort_key) when id is null, or sort_key itself when prefix is null.';
grant execute on function app_hidden.page_json(p_rows app_hidden.page_row[], p_limit integer, p_prefix text) to svc_visitor;

create or replace function app_hidden.page_json_text(p_items json[], p_sort_keys text[], p_limit integer, p_prefix text)
 returns json
 language plpgsql
 immutable
as $$
begin
  -- page_json for lists shaped as json (text): items are joined, never re-parsed (a page of 51 issues is
  -- built twice as fast as json than as jsonb).
  return json_build_object(
    'items', coalesce(array_to_json(p_items[:p_limit]), '[]'::json),
    'nextCursor', case when cardinality(p_items) > p_limit
                       then app_hidden.cursor_encode(p_prefix || ':' || p_sort_keys[p_limit]) end);
end
$$;
comment on function app_hidden.page_json_text(p_items json[], p_sort_keys text[], p_limit integer, p_prefix text) is 'page_json for lists shaped as json: {items, nextCursor} from up to limit + 1 items in list order and their sort keys; nextCursor is cursor_encode(prefix:sort_key) of the last item when one follows.';
grant execute on function app_hidden.page_json_text(p_items json[], p_sort_keys text[], p_limit integer, p_prefix text) to svc_visitor;
--! EndIncluded core/paging.sql
--! Included issues/shapes.sql
-- issues: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.issue_json(i app_public.issues, p_full boolean default false)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not sql: a `language sql` function with a FROM clause is never inlined, and PostgreSQL 17
  -- plans its body again in every statement that calls it (the joins and the RLS policies of five tables:
  -- ~1.5 ms of a 1.8 ms issues.get). plpgsql keeps the plan for the session.
  -- Joins rather than four scalar subqueries: measured 40 us per call instead of 250 us.
  -- The same joins read the issue and shape it in one query in issues.get and issue_json_after_write.
  return (
    select app_hidden.issue_lean_json(i, s, p, a, li.ids)::jsonb
           || case when p_full then app_hidden.issue_extra_json(i, lf.labels) else '{}'::jsonb end
    from (select 1) as one
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                        order by il.created_at, l.id) as labels
                       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                       where p_full and il.issue_id = i.id) lf on true);
end
$$;
comment on function app_hidden.issue_json(i app_public.issues, p_full boolean) is 'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';
grant execute on function app_hidden.issue_json(i app_public.issues, p_full boolean) to svc_visitor;

create or replace function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean default true)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_json jsonb;
begin
  -- issue_json(issue_after_write(id), true) in one query: re-read and shaped together.
  if p_has_labels then
    select app_hidden.issue_lean_json(i, s, p, a, li.ids)::jsonb || app_hidden.issue_extra_json(i, lf.labels)
    into v_json
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    left join lateral (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                        order by il.created_at, l.id) as labels
                       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                       where il.issue_id = i.id) lf on true
    where i.id = p_issue_id;
  else
    -- The writer knows the issue has no labels (a create without labelIds): the label subqueries, whose
    -- start-up is a fifth of this query, are left out.
    select app_hidden.issue_lean_json(i, s, p, a, '[]')::jsonb || app_hidden.issue_extra_json(i, '[]')
    into v_json
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    where i.id = p_issue_id;
  end if;
  if v_json is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_json;
end
$$;
comment on function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean) is 'The full issue shape re-read after a write, as issue_json(issue_after_write(id), true) in one query (without the label subqueries when the writer knows there are none): a narrowed key must still see the issue (else 403 narrowing, and the call rolls back).';
grant execute on function app_hidden.issue_json_after_write(p_issue_id uuid, p_has_labels boolean) to svc_visitor;

create or replace function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'description', i.description,
    'labels', coalesce(p_labels, '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
$$;
comment on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) is 'What the full issue shape adds to the lean one (description, labels {id, name, color}, the completion contract, creator, start and completion), from rows the caller already fetched; inlined.';
grant execute on function app_hidden.issue_extra_json(i app_public.issues, p_labels jsonb) to svc_visitor;

create or replace function app_hidden.visible_parent_id(p_parent_id uuid)
 returns uuid
 language plpgsql
 stable
as $$
begin
  -- plpgsql, not SQL: called per row of every issue shape, and a SQL function with a subquery is planned again
  -- in every statement (PostgreSQL 17); most issues have no parent and most keys are not narrowed.
  if p_parent_id is null or app_hidden.issues_unrestricted() then
    return p_parent_id;
  end if;
  -- Runs as the caller: the issues policy decides whether the parent is visible.
  return (select p.id from app_public.issues p where p.id = p_parent_id);
end
$$;
comment on function app_hidden.visible_parent_id(p_parent_id uuid) is 'The parent issue id as the caller may see it: NULL for a narrowed key that cannot see the parent (its id stays hidden, docs/decisions.md).';
grant execute on function app_hidden.visible_parent_id(p_parent_id uuid) to svc_visitor;

create or replace function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb)
 returns json
 language sql
 stable
as $$
  select json_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', case when s.id is null then null else json_build_object('id', s.id, 'name', s.name, 'category', s.category) end,
    'projectId', i.project_id,
    'project', case when p.id is null then null else json_build_object('id', p.id, 'name', p.name) end,
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', case when a.id is null then null else json_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name) end,
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', app_hidden.visible_parent_id(i.parent_id), 'cycleId', i.cycle_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce(p_label_ids::json, '[]'::json),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
$$;
comment on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) is 'The lean issue shape (status, project, assignee, labelIds) from rows the caller already fetched (a project, agent or parent issue the key cannot see is null). json, built as text: lists join it as is, single issues cast it to jsonb.';
grant execute on function app_hidden.issue_lean_json(i app_public.issues, s app_public.statuses, p app_public.projects, a app_public.agents, p_label_ids jsonb) to svc_visitor;

create or replace function app_hidden.issue_ref_json(i app_public.issues)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id))
$$;
comment on function app_hidden.issue_ref_json(i app_public.issues) is 'A short issue reference (id, key, number, title, status) embedded in relations, pins and time entries.';
grant execute on function app_hidden.issue_ref_json(i app_public.issues) to svc_visitor;

create or replace function app_hidden.status_json(s app_public.statuses)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(s app_public.statuses) is 'Status (spec 2.3).';
grant execute on function app_hidden.status_json(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.watcher_json(w app_public.issue_watchers)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'issueId', w.issue_id, 'type', case when w.agent_id is not null then 'agent' else 'user' end,
    'userId', w.user_id, 'agentId', w.agent_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
             from app_public.users u where u.id = w.user_id),
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = w.agent_id),
    'createdAt', w.created_at)
$$;
comment on function app_hidden.watcher_json(w app_public.issue_watchers) is 'Watcher: type user or agent, with user {id, name, email} or agent {id, profileKey, name}.';
grant execute on function app_hidden.watcher_json(w app_public.issue_watchers) to svc_visitor;
--! EndIncluded issues/shapes.sql
--! Included issues/tools/get.sql
-- The issues.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the lean issue by id or key; include adds description, labels, comments (newest first, default 20, max 100,
-- soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.
create or replace function app_tools.issues_get(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_ref text := args->>'id';
  v_include jsonb := args->'include';
  v_found record;
  v_issue app_public.issues;
  v_result jsonb;
  v_limit int;
begin
  if v_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    -- By id (the common case): found and shaped in one query, the joins of issue_json.
    select i as issue, app_hidden.issue_lean_json(i, s, p, a, li.ids) as json
    into v_found
    from app_public.issues i
    left join app_public.statuses s on s.id = i.status_id
    left join app_public.projects p on p.id = i.project_id
    left join app_public.agents a on a.id = i.assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = i.id) li on true
    where i.id = v_ref::uuid and i.deleted_at is null;
    if v_found.json is null then
      raise exception 'Issue not found' using errcode = 'SV404', column = 'id';
    end if;
    if v_include is null then
      return v_found.json;  -- json as built: no jsonb round trip for the common read
    end if;
    v_issue := v_found.issue;
    v_result := v_found.json::jsonb;
  else
    v_issue := app_hidden.find_issue(v_ref);
    v_result := app_hidden.issue_json(v_issue, false);
    if v_include is null then
      return v_result::json;
    end if;
  end if;
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', coalesce(
      (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) order by il.created_at, l.id)
       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
       where il.issue_id = v_issue.id), '[]'));
  end if;
  if jsonb_typeof(v_include->'comments') = 'object' or (v_include->>'comments')::boolean then
    v_limit := coalesce((v_include->'comments'->>'limit')::int, 20);
    v_result := v_result || jsonb_build_object('comments', coalesce(
      (select jsonb_agg(app_hidden.comment_shape(t.c, u, a) order by (t.c).created_at desc, (t.c).id desc)
       from (select c from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) t
       left join app_public.users u on u.id = (t.c).author_user_id
       left join app_public.agents a on a.id = (t.c).authoring_agent_id), '[]'));
  end if;
  if (v_include->>'attachments')::boolean then
    v_result := v_result || jsonb_build_object('attachments', coalesce(
      (select jsonb_agg(app_hidden.attachment_json(a) order by a.created_at, a.id)
       from app_public.attachments a
       where a.workspace_id = v_issue.workspace_id and a.target_type = 'issue' and a.target_id = v_issue.id), '[]'));
  end if;
  if (v_include->>'relations')::boolean then
    -- Seen from this issue: BLOCKS stored from another issue to this one reads BLOCKED_BY.
    v_result := v_result || jsonb_build_object('relations', coalesce(
      (select jsonb_agg(jsonb_build_object(
          'id', r.id, 'fromIssueId', r.from_issue_id, 'toIssueId', r.to_issue_id,
          'kind', case when r.to_issue_id = v_issue.id and r.kind = 'BLOCKS' then 'BLOCKED_BY' else r.kind end,
          'direction', case when r.from_issue_id = v_issue.id then 'outbound' else 'inbound' end,
          'issue', (select jsonb_build_object('id', o.id, 'key', o.key, 'title', o.title, 'statusId', o.status_id)
                    from app_public.issues o
                    where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end),
          'createdAt', r.created_at) order by r.created_at, r.id)
       from app_public.issue_relations r
       where r.workspace_id = v_issue.workspace_id and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)), '[]'));
  end if;
  if (v_include->>'currentRun')::boolean then
    v_result := v_result || jsonb_build_object('currentRun',
      (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
  end if;
  return v_result::json;
end
$$;
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds description, labels, comments (newest first; true = 20, or {limit} up to 100), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/get.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number (with query: best match first, then newest), keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_items json[];
  v_keys text[];
  v_before int := 2147483647;
  v_query tsquery;
  v_order text := 'i.number desc';
  v_outer_order text := '(t.i).number desc';
  v_sort text := '(t.i).number::text';
  v_after text[];
  v_from text := 'app_public.issues i';
  v_rank text := 'null::real';
  v_status_ids uuid[];
begin
  if args - 'limit' - 'cursor' = '{}'::jsonb then
    -- No filter (the most common call, and every further page of it): a static query, planned once per
    -- session, reading the (workspace_id, number) index from the cursor down.
    if args->>'cursor' is not null then
      v_before := app_hidden.cursor_decode(args->>'cursor', 'issues')::int;
    end if;
    select array_agg(app_hidden.issue_lean_json(t.i, s, p, a, l.ids) order by (t.i).number desc),
           array_agg((t.i).number::text order by (t.i).number desc)
    into v_items, v_keys
    from (select i from app_public.issues i
          where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null and i.number < v_before
          order by i.number desc limit v_limit + 1) t
    left join app_public.statuses s on s.id = (t.i).status_id
    left join app_public.projects p on p.id = (t.i).project_id
    left join app_public.agents a on a.id = (t.i).assigned_agent_id
    left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                       from app_public.issue_labels il where il.issue_id = (t.i).id) l on true;
  else
    -- Filters: the query is built for them (planned per call, so each filter gets its own index).
    if args->>'query' is not null then
      -- Full-text search (issues_search_gin): ranked, paged by (rank, number) from the cursor on.
      v_query := app_hidden.search_tsquery(args->>'query');
      -- The matches come from a definer function (the index is unusable under RLS, see issue_search_matches);
      -- joined back to issues, the policies apply.
      v_rank := 'm.rank';
      v_order := 'm.rank desc, i.number desc';
      v_outer_order := 't.rank desc, (t.i).number desc';
      v_sort := 't.rank::text || '':'' || (t.i).number::text';
      if args->>'cursor' is not null then
        v_after := string_to_array(app_hidden.cursor_decode(args->>'cursor', 'issues-search'), ':');
        begin
          v_after := array[v_after[1]::real::text, v_after[2]::int::text, v_after[3]];
        exception when others then
          v_after := null;
        end;
        if v_after is null or v_after[1] is null or v_after[2] is null or v_after[3] is not null then
          raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
        end if;
      end if;
      if args - 'limit' - 'cursor' - 'query' = '{}'::jsonb and app_hidden.issues_unrestricted() then
        -- Nothing else filters and no narrowing hides a row (the common search): the matches function pages
        -- itself (no join of every match), and the page is read by a static query, planned once per session
        -- (planning the built query cost ~5 ms of every search).
        select array_agg(app_hidden.issue_lean_json(i, s, p, a, l.ids) order by m.rank desc, m.number desc),
               array_agg(m.rank::text || ':' || m.number::text order by m.rank desc, m.number desc)
        into v_items, v_keys
        from app_hidden.issue_search_matches(v_query, v_after[1]::real, v_after[2]::int, v_limit + 1) m
        join app_public.issues i on i.id = m.id
        left join app_public.statuses s on s.id = i.status_id
        left join app_public.projects p on p.id = i.project_id
        left join app_public.agents a on a.id = i.assigned_agent_id
        left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                           from app_public.issue_labels il where il.issue_id = i.id) l on true;
        return app_hidden.page_json_text(v_items, v_keys, v_limit, 'issues-search');
      else
        v_from := 'app_hidden.issue_search_matches($2) m join app_public.issues i on i.id = m.id';
        if v_after is not null then
          v_where := v_where || format(' and (m.rank, i.number) < (%L::real, %s)', v_after[1], v_after[2]::int);
        end if;
      end if;
    elsif args->>'cursor' is not null then
      v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
    end if;
    if args->>'statusId' is not null then
      v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
    end if;
    -- Status filters are resolved to ids here and written into the query as constants: as a subquery the
    -- planner could not see that a workspace's statuses hold most of its issues (estimate 35 rows, actual
    -- 20,000 at 100k issues) and sorted a bitmap scan instead of reading an index in list order.
    if v_status is not null then
      if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
        v_status_ids := array[v_status::uuid];
      elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_status);
      else
        v_status_ids := array(select s.id from app_public.statuses s
                              where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(v_status));
      end if;
      v_where := v_where || case cardinality(v_status_ids)
        when 0 then ' and false'
        when 1 then format(' and i.status_id = %L::uuid', v_status_ids[1])
        else format(' and i.status_id = any(%L::uuid[])', v_status_ids) end;
    end if;
    if args->>'open' is not null then
      v_status_ids := array(select s.id from app_public.statuses s
                            where s.workspace_id = app_hidden.current_workspace_id() and s.category in ('DONE', 'CANCELED'));
      v_where := v_where || format(case when (args->>'open')::boolean then ' and i.status_id <> all(%L::uuid[])'
                                        else ' and i.status_id = any(%L::uuid[])' end, v_status_ids);
    end if;
    if args->>'priority' is not null then
      v_where := v_where || format(' and i.priority = %L', args->>'priority');
    end if;
    if args ? 'projectId' then
      v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
        else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
    end if;
    if args ? 'assignedAgentId' then
      v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
        else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
    end if;
    if args ? 'cycleId' then
      v_where := v_where || case when args->>'cycleId' is null then ' and i.cycle_id is null'
        else format(' and i.cycle_id = %L::uuid', app_hidden.parse_uuid(args->>'cycleId', 'cycleId')) end;
    end if;
    if args ? 'parentId' then
      v_where := v_where || case when args->>'parentId' is null then ' and i.parent_id is null'
        else format(' and i.parent_id = %L::uuid', (app_hidden.find_issue(args->>'parentId', 'parentId')).id) end;
    end if;
    if args ? 'claimedById' then
      v_where := v_where || case when args->>'claimedById' is null then ' and i.claimed_by_id is null'
        else format(' and i.claimed_by_id = %L::uuid', app_hidden.parse_uuid(args->>'claimedById', 'claimedById')) end;
    end if;
    if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
      v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                   app_hidden.uuid_array(args->'labelIds', 'labelIds'));
    end if;
    if args->>'queued' is not null then
      v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
    end if;

    -- The page's rows first (index order, limit), then their status/project/agent/labels by join: one pass,
    -- instead of four subqueries per row inside issue_json (3x faster at 50 rows).
    execute format(
      'select array_agg(app_hidden.issue_lean_json(t.i, s, p, a, l.ids) order by %s), array_agg(%s order by %s)
       from (select i, %s as rank from %s where %s order by %s limit %s) t
       left join app_public.statuses s on s.id = (t.i).status_id
       left join app_public.projects p on p.id = (t.i).project_id
       left join app_public.agents a on a.id = (t.i).assigned_agent_id
       left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                          from app_public.issue_labels il where il.issue_id = (t.i).id) l on true',
      v_outer_order, v_sort, v_outer_order, v_rank, v_from, v_where, v_order, v_limit + 1)
    into v_items, v_keys
    using app_hidden.current_workspace_id(), v_query;
  end if;
  return app_hidden.page_json_text(v_items, v_keys, v_limit, case when v_query is null then 'issues' else 'issues-search' end);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). query: full-text search over title and description (every word, the last as a prefix), best match first (title before description), then newest. Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included issues/tools/assigned.sql
-- The issues.assigned tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- issues assigned to an agent (agentId, profileKey, or the key's linked agent; 400 without any), open ones
-- unless includeClosed; paged like issues.list.
create or replace function app_tools.issues_assigned(args jsonb)
 returns json
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents;
begin
  if args->>'agentId' is not null or args->>'profileKey' is not null then
    v_agent := app_hidden.find_agent(args->>'agentId', args->>'profileKey',
                                     case when args ? 'agentId' then 'agentId' else 'profileKey' end);
  elsif app_hidden.current_agent_id() is not null then
    v_agent := app_hidden.find_agent(app_hidden.current_agent_id()::text, null, 'agentId');
  else
    perform app_hidden.raise_invalid('agentId', 'pass agentId or profileKey, or call with a key linked to an agent');
  end if;
  return app_tools.issues_list(jsonb_build_object(
    'assignedAgentId', v_agent.id, 'limit', coalesce((args->>'limit')::int, 50), 'cursor', args->>'cursor')
    || case when coalesce((args->>'includeClosed')::boolean, false) then '{}'::jsonb else '{"open": true}'::jsonb end);
end
$$;
comment on function app_tools.issues_assigned(args jsonb) is 'issues.assigned: Issues assigned to an agent: agentId or profileKey, or nothing for the key''s own linked agent (400 when the key has none). Open issues only unless includeClosed. Paged like issues.list.';
grant execute on function app_tools.issues_assigned(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/assigned.sql
