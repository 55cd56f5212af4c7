--! Previous: sha1:e86fec149e69af2428e32c2c6ffb17e07baa2253
--! Hash: sha1:fb7dc58efad7a3711b2b19898c3f2ebe3cd9ee36
--! Message: sql/ holds the current definition of every function, policy and trigger; tool comments are the catalog descriptions

--! split: 1-current.sql
-- Tool descriptions now come from the catalog: re-create every tool function with its comment.
--! Included agents/tools/me.sql
-- The agents.me tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the agent linked to the calling key; 403 for keys without one, archived or cross-tenant agents.
create or replace function app_tools.agents_me(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return app_hidden.agent_json(v_agent);
end
$$;
comment on function app_tools.agents_me(args jsonb) is 'agents.me: The agent linked to the calling key (provider, runtimeMode, status, capabilities). Keys without a linked agent, or linked to an archived agent, get 403.';
grant execute on function app_tools.agents_me(args jsonb) to svc_visitor;
--! EndIncluded agents/tools/me.sql
--! Included comments/tools/create.sql
-- The comments.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a comment on a visible issue; author = the key's user, authoringAgent = its linked agent (whose open run it
-- is attached to); confidence persisted. COMMENT_CREATED by trigger. Allowed in every run mode.
create or replace function app_tools.comments_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
begin
  if v_agent is not null then
    select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
    if v_run.id is not null then
      update app_public.agent_runs set last_event_at = now() where id = v_run.id;
    end if;
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, args->>'body', 'COMMENT', args->>'confidence',
          app_hidden.current_user_id(), v_agent, v_run.id)
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_create(args jsonb) is 'comments.create: Post a comment on an issue (markdown). The author is the key''s user; an agent-linked key is recorded as authoringAgent. Allowed in every run mode.';
grant execute on function app_tools.comments_create(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/create.sql
--! Included comments/tools/delete.sql
-- The comments.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft delete (row kept for audit; hidden from every read); COMMENT_UPDATED {deleted: true}. Same
-- authorization as update.
create or replace function app_tools.comments_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
begin
  perform set_config('svc.include_deleted_comments', 'on', true);
  update app_public.comments set deleted_at = now() where id = v_comment.id;
  perform set_config('svc.include_deleted_comments', '', true);
  return jsonb_build_object('ok', true, 'id', v_comment.id, 'deleted', true);
end
$$;
comment on function app_tools.comments_delete(args jsonb) is 'comments.delete: Delete a comment (soft: hidden from lists and issue bundles, kept for audit). Same permission as comments.update.';
grant execute on function app_tools.comments_delete(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/delete.sql
--! Included comments/tools/list.sql
-- The comments.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- comments of a visible issue, newest first, soft-deleted hidden, with author and authoringAgent; before =
-- the nextCursor of the previous page.
create or replace function app_tools.comments_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'before' is not null then
    v_before := app_hidden.cursor_decode(args->>'before', 'comments');
    if v_before !~ '^[^|]+\|[0-9a-f-]{36}$' then
      perform app_hidden.raise_invalid('before', 'cursor is not one this list returned');
    end if;
  end if;
  select coalesce(jsonb_agg(app_hidden.comment_json(c) order by c.created_at desc, c.id desc), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.comments c
        where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
          and (v_before is null or (c.created_at, c.id) < (split_part(v_before, '|', 1)::timestamptz, split_part(v_before, '|', 2)::uuid))
        order by c.created_at desc, c.id desc limit v_limit + 1) c;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('comments:' ||
      (select to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || c.id
       from app_public.comments c where c.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.comments_list(args jsonb) is 'comments.list: Comments of an issue, newest first, with author {id, name, email} and authoringAgent {id, profileKey, name}. Page with before = nextCursor.';
grant execute on function app_tools.comments_list(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/list.sql
--! Included comments/tools/update.sql
-- The comments.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- new body (and confidence); the previous body goes to revisions {body, editedAt} (at most 20, oldest
-- dropped); editedAt set; COMMENT_UPDATED by trigger. Author, OWNER/ADMIN person key or ADMIN key only.
create or replace function app_tools.comments_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_comment app_public.comments := app_hidden.comment_for_write(args->>'id');
  v_body text := args->>'body';
  v_confidence text := case when args ? 'confidence' then args->>'confidence' else v_comment.confidence end;
begin
  if v_body = v_comment.body and v_confidence is not distinct from v_comment.confidence then
    return app_hidden.comment_json(v_comment);  -- nothing changed: no revision, no event
  end if;
  update app_public.comments c
  set body = v_body, confidence = v_confidence, edited_at = now(),
      revisions = case when v_body = v_comment.body then c.revisions else
        (select coalesce(jsonb_agg(e order by n), '[]') from (
           select e, n from jsonb_array_elements(c.revisions || jsonb_build_array(
             jsonb_build_object('body', v_comment.body, 'editedAt', now()))) with ordinality as t(e, n)
           order by n desc limit 20) s) end
  where c.id = v_comment.id
  returning * into v_comment;
  return app_hidden.comment_json(v_comment);
end
$$;
comment on function app_tools.comments_update(args jsonb) is 'comments.update: Edit a comment: its author, a workspace OWNER/ADMIN, or an ADMIN key. The previous body is kept in its revision history (last 20); editedAt is set.';
grant execute on function app_tools.comments_update(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/update.sql
--! Included comments/tools/upsertStatus.sql
-- The comments.upsertStatus tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the calling agent's one rolling STATUS comment for its open run on the issue: created once
-- (COMMENT_CREATED), then replaced in place (COMMENT_UPDATED only when the body changes; no revisions kept).
-- 403 agent_key_required without a linked agent, 409 no_open_run without an open run. Allowed in every run
-- mode.
create or replace function app_tools.comments_upsert_status(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_run app_public.agent_runs;
  v_comment app_public.comments;
  v_created boolean := false;
begin
  if v_agent is null then
    raise exception 'comments.upsertStatus needs a key linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_run from app_hidden.agent_open_run(v_issue.id, v_agent) r;
  if v_run.id is null then
    raise exception 'The calling agent has no open run on this issue' using errcode = 'SV409', detail = 'no_open_run';
  end if;
  update app_public.agent_runs set last_event_at = now() where id = v_run.id;
  select * into v_comment from app_public.comments c
  where c.run_id = v_run.id and c.kind = 'STATUS' and c.deleted_at is null
  for update;
  if v_comment.id is null then
    insert into app_public.comments (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id)
    values (v_issue.workspace_id, v_issue.id, args->>'body', 'STATUS', args->>'confidence',
            app_hidden.current_user_id(), v_agent, v_run.id)
    returning * into v_comment;
    v_created := true;
  elsif v_comment.body is distinct from args->>'body'
        or (args ? 'confidence' and v_comment.confidence is distinct from args->>'confidence') then
    update app_public.comments
    set body = args->>'body', edited_at = now(),
        confidence = case when args ? 'confidence' then args->>'confidence' else confidence end
    where id = v_comment.id
    returning * into v_comment;
  end if;
  return app_hidden.comment_json(v_comment) || jsonb_build_object('created', v_created);
end
$$;
comment on function app_tools.comments_upsert_status(args jsonb) is 'comments.upsertStatus: Set the calling agent''s rolling STATUS comment for its open run on an issue: created the first time, replaced in place afterwards (same body: no change). Needs an agent-linked key and an open run (assignment opens one).';
grant execute on function app_tools.comments_upsert_status(args jsonb) to svc_visitor;
--! EndIncluded comments/tools/upsertStatus.sql
--! Included cycles/tools/addIssue.sql
-- The cycles.addIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- puts an issue into a PLANNED or ACTIVE cycle (moving it from another); idempotent; ISSUE_UPDATED (cycleId)
-- by trigger.
create or replace function app_tools.cycles_add_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  perform app_hidden.require_open_cycle(v_cycle);
  if v_issue.cycle_id is distinct from v_cycle.id then
    update app_public.issues set cycle_id = v_cycle.id where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_add_issue(args jsonb) is 'cycles.addIssue: Put one issue into a PLANNED or ACTIVE cycle (moving it out of any other). Idempotent. Returns the issue.';
grant execute on function app_tools.cycles_add_issue(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/addIssue.sql
--! Included cycles/tools/create.sql
-- The cycles.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a PLANNED cycle (ACTIVE with activate: true and no other active one); dates default from cycleLengthDays /
-- cycleCooldownDays; no overlaps. CYCLE_CREATED by trigger.
create or replace function app_tools.cycles_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_starts date;
  v_ends date;
  v_status text := 'PLANNED';
  v_cycle app_public.cycles;
begin
  perform app_hidden.require_issues_unrestricted('Creating a cycle');
  v_ws := app_hidden.lock_cycles();
  v_starts := coalesce((args->>'startsOn')::date, app_hidden.next_cycle_start(v_ws));
  v_ends := coalesce((args->>'endsOn')::date, v_starts + v_ws.cycle_length_days - 1);
  perform app_hidden.check_cycle_dates(null, v_starts, v_ends);
  if coalesce((args->>'activate')::boolean, false) then
    if exists (select 1 from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE') then
      raise exception 'Another cycle is active; finish it with cycles.rollover' using errcode = 'SV409', detail = 'active_cycle_exists';
    end if;
    v_status := 'ACTIVE';
  end if;
  v_cycle := app_hidden.insert_cycle(v_ws, args->>'name', v_starts, v_ends, v_status);
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_create(args jsonb) is 'cycles.create: Create a cycle (sprint). Defaults: name "Sprint <n>", startsOn right after the last cycle plus the workspace cooldown (never before today), endsOn from the workspace cycle length. Cycles may not overlap. New cycles are PLANNED; activate: true makes it the current one when no other is active. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_create(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/create.sql
--! Included cycles/tools/current.sql
-- The cycles.current tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the ACTIVE cycle with its issues, or null.
create or replace function app_tools.cycles_current(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.cycle_json(c, true) from app_public.cycles c
  where c.workspace_id = app_hidden.current_workspace_id() and c.status = 'ACTIVE'
$$;
comment on function app_tools.cycles_current(args jsonb) is 'cycles.current: The current sprint: the ACTIVE cycle with its issues, or null when none is active.';
grant execute on function app_tools.cycles_current(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/current.sql
--! Included cycles/tools/get.sql
-- The cycles.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one cycle with its issues (those the key can see).
create or replace function app_tools.cycles_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.cycle_json(app_hidden.find_cycle(args->>'id'), true) $$;
comment on function app_tools.cycles_get(args jsonb) is 'cycles.get: One cycle (sprint) by id, with its issues.';
grant execute on function app_tools.cycles_get(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/get.sql
--! Included cycles/tools/list.sql
-- The cycles.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- cycles newest start first, keyset-paged, optionally of one status; issue counts, no issue rows.
create or replace function app_tools.cycles_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'cycles') k;
  end if;
  with page as (
    select c as r from app_public.cycles c
    where c.workspace_id = app_hidden.current_workspace_id()
      and (args->>'status' is null or c.status = args->>'status')
      and (v_after_date is null or (c.starts_on, c.id) < (v_after_date, v_after_id))
    order by c.starts_on desc, c.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).starts_on desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.cycle_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('cycles', to_char((r).starts_on, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.cycles_list(args jsonb) is 'cycles.list: Cycles (shown as Sprints), latest start date first, paged ({items, nextCursor}), with issue counts. Filter by status PLANNED, ACTIVE, COMPLETED or CANCELED.';
grant execute on function app_tools.cycles_list(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/list.sql
--! Included cycles/tools/plan.sql
-- The cycles.plan tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- bulk add/remove issues for the upcoming cycle (or cycleId), all or nothing; added/removed list the issues
-- that actually moved (one ISSUE_UPDATED each, by trigger).
create or replace function app_tools.cycles_plan(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_add uuid[] := app_hidden.resolve_issue_list(args->'add', 'add', true);
  v_remove uuid[] := app_hidden.resolve_issue_list(args->'remove', 'remove', true);
  v_added jsonb;
  v_removed jsonb;
begin
  if args->>'cycleId' is not null then
    v_cycle := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  else
    v_cycle := app_hidden.upcoming_cycle();
    if v_cycle.id is null then
      raise exception 'There is no upcoming (PLANNED) cycle; create one with cycles.create or pass cycleId'
        using errcode = 'SV409', detail = 'no_upcoming_cycle';
    end if;
  end if;
  perform app_hidden.require_open_cycle(v_cycle);
  if cardinality(v_add) + cardinality(v_remove) = 0 then
    raise exception 'give issues to add or remove' using errcode = 'SV400', column = 'add';
  end if;
  if v_add && v_remove then
    raise exception 'an issue cannot be both added and removed' using errcode = 'SV400', column = 'remove';
  end if;
  with moved as (
    update app_public.issues set cycle_id = v_cycle.id
    where id = any(v_add) and cycle_id is distinct from v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_added from moved;
  with moved as (
    update app_public.issues set cycle_id = null
    where id = any(v_remove) and cycle_id = v_cycle.id
    returning id, number)
  select coalesce(jsonb_agg(id order by number), '[]') into v_removed from moved;
  return jsonb_build_object('cycle', app_hidden.cycle_json(v_cycle, true), 'added', v_added, 'removed', v_removed);
end
$$;
comment on function app_tools.cycles_plan(args jsonb) is 'cycles.plan: Plan the upcoming sprint in one call: add and/or remove issues (ids or keys, up to 100 each). Targets the earliest PLANNED cycle unless cycleId is given (a PLANNED or ACTIVE one). All or nothing. Returns the cycle with its issues and the ids that actually moved.';
grant execute on function app_tools.cycles_plan(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/plan.sql
--! Included cycles/tools/removeIssue.sql
-- The cycles.removeIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- takes an issue out of the cycle; an issue not in it is left as is (idempotent); ISSUE_UPDATED (cycleId) by
-- trigger.
create or replace function app_tools.cycles_remove_issue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles := app_hidden.find_cycle(args->>'cycleId', 'cycleId');
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
begin
  if v_issue.cycle_id = v_cycle.id then
    update app_public.issues set cycle_id = null where id = v_issue.id returning * into v_issue;
  end if;
  return app_hidden.issue_json(v_issue);
end
$$;
comment on function app_tools.cycles_remove_issue(args jsonb) is 'cycles.removeIssue: Take one issue out of a cycle (its cycleId becomes null). An issue not in that cycle is left as it is. Returns the issue.';
grant execute on function app_tools.cycles_remove_issue(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/removeIssue.sql
--! Included cycles/tools/rollover.sql
-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the ACTIVE cycle to the upcoming one
-- (created from cycleLengthDays/cycleCooldownDays when none), completes the current and activates the next.
-- Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_current app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  select * into v_current from app_public.cycles where workspace_id = v_ws.id and status = 'ACTIVE';
  v_next := app_hidden.upcoming_cycle();
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_current.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_current.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    update app_public.cycles set status = 'COMPLETED' where id = v_current.id returning * into v_current;
  end if;
  update app_public.cycles set status = 'ACTIVE' where id = v_next.id returning * into v_next;
  return jsonb_build_object(
    'completed', case when v_current.id is null then null else app_hidden.cycle_json(v_current) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: End the current sprint: move its unfinished issues (status not Done/Canceled) to the next cycle (the earliest PLANNED one, created from the workspace cycle length and cooldown when none exists), mark the current COMPLETED and the next ACTIVE. With no active cycle it just activates the next. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/rollover.sql
--! Included cycles/tools/update.sql
-- The cycles.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, startsOn, endsOn (no overlaps); CYCLE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.cycles_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_starts date;
  v_ends date;
begin
  perform app_hidden.require_issues_unrestricted('Changing a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  v_starts := coalesce((args->>'startsOn')::date, v_cycle.starts_on);
  v_ends := coalesce((args->>'endsOn')::date, v_cycle.ends_on);
  if (v_starts, v_ends) is distinct from (v_cycle.starts_on, v_cycle.ends_on) then
    perform app_hidden.check_cycle_dates(v_cycle.id, v_starts, v_ends);
  end if;
  update app_public.cycles set name = coalesce(args->>'name', name), starts_on = v_starts, ends_on = v_ends
  where id = v_cycle.id and (coalesce(args->>'name', name), v_starts, v_ends) is distinct from (name, starts_on, ends_on)
  returning * into v_cycle;
  if not found then
    v_cycle := app_hidden.find_cycle(args->>'id');
  end if;
  return app_hidden.cycle_json(v_cycle);
end
$$;
comment on function app_tools.cycles_update(args jsonb) is 'cycles.update: Rename or re-date a cycle (name, startsOn, endsOn; no overlaps). Status moves happen through cycles.rollover. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_update(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/update.sql
--! Included events/tools/recent.sql
-- The events.recent tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first; filters subjectType, subjectId, kinds; before = the nextCursor of a previous page. Issue
-- narrowing applies to issue subjects.
create or replace function app_tools.events_recent(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_subject_id uuid := app_hidden.parse_uuid(args->>'subjectId', 'subjectId');
  v_kinds text[] := (select array_agg(k) from jsonb_array_elements_text(args->'kinds') k);
  v_before_seq bigint;
  v_rows jsonb;
  v_count int;
begin
  if args->>'subjectType' = 'issue' and v_subject_id is not null then
    -- Narrowing is enforced on the subject itself: an issue outside it is not found.
    perform app_hidden.find_issue(v_subject_id::text, 'subjectId');
  end if;
  if args->>'before' is not null then
    v_before_seq := app_hidden.cursor_decode(args->>'before', 'events')::bigint;
  end if;
  select coalesce(jsonb_agg(app_hidden.event_json(e) order by e.seq desc), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id()
          and (args->>'subjectType' is null or e.subject_type = args->>'subjectType')
          and (v_subject_id is null or e.subject_id = v_subject_id)
          and (v_kinds is null or e.kind = any(v_kinds))
          and (v_before_seq is null or e.seq < v_before_seq)
        order by e.seq desc limit v_limit + 1) e;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('events:' ||
      (select seq from app_public.activity_events where id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.events_recent(args jsonb) is 'events.recent: Recent activity events of the workspace, newest first. Filter by subject (e.g. subjectType "issue" and an issue id) or kinds; page with before = nextCursor.';
grant execute on function app_tools.events_recent(args jsonb) to svc_visitor;
--! EndIncluded events/tools/recent.sql
--! Included initiatives/tools/create.sql
-- The initiatives.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new initiative; INITIATIVE_CREATED by trigger. Initiative-narrowed keys: 403 narrowing.
create or replace function app_tools.initiatives_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives;
begin
  if cardinality(app_hidden.narrowed_initiative_ids()) > 0 then
    raise exception 'An initiative-narrowed key cannot create initiatives' using errcode = 'SV403', detail = 'narrowing';
  end if;
  insert into app_public.initiatives (workspace_id, name, description)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description')
  returning * into v_initiative;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_create(args jsonb) is 'initiatives.create: Create an initiative (name, optional description). Link projects to it with initiatives.linkProject.';
grant execute on function app_tools.initiatives_create(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/create.sql
--! Included initiatives/tools/get.sql
-- The initiatives.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one initiative with its linked projects (those the key can see).
create or replace function app_tools.initiatives_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.initiative_json(app_hidden.find_initiative(args->>'id'), true)
$$;
comment on function app_tools.initiatives_get(args jsonb) is 'initiatives.get: One initiative by id, with the projects linked to it.';
grant execute on function app_tools.initiatives_get(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/get.sql
--! Included initiatives/tools/linkProject.sql
-- The initiatives.linkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId (moving it from another initiative); idempotent; PROJECT_UPDATED by
-- trigger.
create or replace function app_tools.initiatives_link_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  v_project app_public.projects := app_hidden.find_project(args->>'projectId', 'projectId');
begin
  if v_project.initiative_id is distinct from v_initiative.id then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = v_initiative.id where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_link_project(args jsonb) is 'initiatives.linkProject: Attach a project to an initiative (sets the project''s initiativeId, moving it from any other initiative). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_link_project(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/linkProject.sql
--! Included initiatives/tools/list.sql
-- The initiatives.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- initiatives the key can see (initiative narrowing), oldest first, keyset-paged.
create or replace function app_tools.initiatives_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id
    from app_hidden.keyset_decode(args->>'cursor', 'initiatives') k;
  end if;
  with page as (
    select i as r from app_public.initiatives i
    where i.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or i.archived_at is null)
      and (v_after_ts is null or (i.created_at, i.id) > (v_after_ts, v_after_id))
    order by i.created_at, i.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.initiative_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('initiatives', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.initiatives_list(args jsonb) is 'initiatives.list: Initiatives (long-running objectives grouping projects) this key can see, oldest first, paged ({items, nextCursor}).';
grant execute on function app_tools.initiatives_list(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/list.sql
--! Included initiatives/tools/unlinkProject.sql
-- The initiatives.unlinkProject tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- sets the project's initiativeId to null; idempotent; 409 not_linked when initiativeId names another
-- initiative; PROJECT_UPDATED by trigger.
create or replace function app_tools.initiatives_unlink_project(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_project app_public.projects := app_hidden.find_project(args->>'projectId', 'projectId');
  v_initiative app_public.initiatives;
begin
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
    if v_project.initiative_id is distinct from v_initiative.id and v_project.initiative_id is not null then
      raise exception 'The project is linked to another initiative' using errcode = 'SV409', detail = 'not_linked';
    end if;
  end if;
  if v_project.initiative_id is not null then
    perform app_hidden.check_project_initiative_reachable(v_project);
    update app_public.projects set initiative_id = null where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.initiatives_unlink_project(args jsonb) is 'initiatives.unlinkProject: Detach a project from its initiative (sets initiativeId null). Pass initiativeId to make sure it is detached from that one (409 not_linked if it belongs to another). Idempotent. Returns the project.';
grant execute on function app_tools.initiatives_unlink_project(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/unlinkProject.sql
--! Included initiatives/tools/update.sql
-- The initiatives.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description; INITIATIVE_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.initiatives_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_initiative app_public.initiatives := app_hidden.find_initiative(args->>'id');
begin
  update app_public.initiatives
  set name = coalesce(args->>'name', name),
      description = case when args ? 'description' then args->>'description' else description end
  where id = v_initiative.id
    and (coalesce(args->>'name', name), case when args ? 'description' then args->>'description' else description end)
        is distinct from (name, description)
  returning * into v_initiative;
  if not found then
    v_initiative := app_hidden.find_initiative(args->>'id');
  end if;
  return app_hidden.initiative_json(v_initiative, true);
end
$$;
comment on function app_tools.initiatives_update(args jsonb) is 'initiatives.update: Change an initiative''s name or description (null clears). Only the fields given change.';
grant execute on function app_tools.initiatives_update(args jsonb) to svc_visitor;
--! EndIncluded initiatives/tools/update.sql
--! Included issues/tools/addLabels.sql
-- The issues.addLabels tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- adds labels (already present: no change, no event). Run-mode gated.
create or replace function app_tools.issues_add_labels(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  perform app_hidden.set_issue_labels(v_issue.id, app_hidden.uuid_array(args->'labelIds', 'labelIds'), null);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_add_labels(args jsonb) is 'issues.addLabels: Add labels to an issue (labels already on it are left alone). Returns the full issue.';
grant execute on function app_tools.issues_add_labels(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/addLabels.sql
--! Included issues/tools/assign.sql
-- The issues.assign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- assigns an agent (agentId or profileKey; archived → 400 agent_archived). ISSUE_ASSIGNED + AGENT_ASSIGNED
-- (reason manual, auto false); opens an ACTIVE run (mode, default EXECUTE) and abandons the previous agent's
-- open run. Run-mode gated.
create or replace function app_tools.issues_assign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_field text := case when args ? 'agentId' then 'agentId' else 'profileKey' end;
  v_agent app_public.agents := app_hidden.find_agent(args->>'agentId', args->>'profileKey', v_field);
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = v_field, detail = 'agent_archived';
  end if;
  -- Same agent with an open run: nothing to do. Same agent without one: a fresh run (re-engagement).
  if v_issue.assigned_agent_id = v_agent.id and exists (
       select 1 from app_public.agent_runs r where r.issue_id = v_issue.id and r.agent_id = v_agent.id
         and r.status in ('ACTIVE', 'WAITING', 'STALLED')) then
    null;
  else
    perform app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'manual');
  end if;
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true)
    || jsonb_build_object('currentRun', (select app_hidden.run_json(r) from app_hidden.current_run(v_issue.id) r where r.id is not null));
end
$$;
comment on function app_tools.issues_assign(args jsonb) is 'issues.assign: Assign an agent (agentId or profileKey) to an issue. Opens an ACTIVE run for it (mode, default EXECUTE) and abandons the previous agent''s open run; writes ISSUE_ASSIGNED and AGENT_ASSIGNED. Archived agents: 400.';
grant execute on function app_tools.issues_assign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/assign.sql
--! Included issues/tools/assigned.sql
-- The issues.assigned tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- issues assigned to an agent (agentId, profileKey, or the key's linked agent; 400 without any), open ones
-- unless includeClosed; paged like issues.list.
create or replace function app_tools.issues_assigned(args jsonb)
 returns jsonb
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
--! Included issues/tools/claim.sql
-- The issues.claim tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's user claims the issue until claimExpiresAt (durationMinutes, default 240). Claiming again
-- extends the claim; another user's live claim is 409 already_claimed, an expired one is taken over. Run-mode
-- gated.
create or replace function app_tools.issues_claim(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_user uuid := app_hidden.current_user_id();
begin
  if v_user is null then
    raise exception 'This key acts for no user, so it cannot claim' using errcode = 'SV403', detail = 'user_required';
  end if;
  if v_issue.claimed_by_id is not null and v_issue.claimed_by_id <> v_user and v_issue.claim_expires_at > now() then
    raise exception 'The issue is claimed by someone else until %', v_issue.claim_expires_at
      using errcode = 'SV409', detail = 'already_claimed';
  end if;
  update app_public.issues
  set claimed_by_id = v_user,
      claim_expires_at = now() + make_interval(mins => coalesce((args->>'durationMinutes')::int, 240))
  where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_claim(args jsonb) is 'issues.claim: Claim an issue for the key''s user (claimedById) until claimExpiresAt (durationMinutes, default 240). Claiming your own claim again extends it; another user''s unexpired claim is 409 already_claimed.';
grant execute on function app_tools.issues_claim(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/claim.sql
--! Included issues/tools/create.sql
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
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
  v_id uuid := gen_random_uuid();
  v_issue app_public.issues;
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
  end if;

  if (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), v_status_id, v_project_id,
          v_parent.id, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select v_ws, v_id, l from unnest(v_label_ids) l;

  v_issue := app_hidden.issue_after_write(v_id);
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_create(args jsonb) is 'issues.create: Create an issue. Returns the full issue with its key (e.g. ENG-12). Default status unless statusId is given.';
grant execute on function app_tools.issues_create(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/create.sql
--! Included issues/tools/createMany.sql
-- The issues.createMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 issues.create inputs in one transaction, all or nothing; errors name items.N.field. One
-- ISSUE_CREATED per issue.
create or replace function app_tools.issues_create_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_item jsonb;
  v_index int := 0;
  v_out jsonb := '[]';
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(args->'items') e loop
    begin
      v_out := v_out || jsonb_build_array(app_tools.issues_create(v_item));
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        perform app_hidden.raise_in_item(v_index, v_state, v_msg, v_detail, v_hint, v_col);
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return jsonb_build_object('items', v_out);
end
$$;
comment on function app_tools.issues_create_many(args jsonb) is 'issues.createMany: Create up to 100 issues in one call, all or nothing (each item is an issues.create input). A failing item fails the whole call and names its field as items.N.field.';
grant execute on function app_tools.issues_create_many(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/createMany.sql
--! Included issues/tools/delete.sql
-- The issues.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft delete (deletedAt; ISSUE_DELETED). The issue disappears from reads and lists; its open runs are
-- abandoned. Run-mode gated.
create or replace function app_tools.issues_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  update app_public.agent_runs
  set status = 'ABANDONED', finished_at = now(), last_event_at = now()
  where issue_id = v_issue.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  update app_public.issues set deleted_at = now() where id = v_issue.id;  -- ISSUE_DELETED by trigger
  return jsonb_build_object('ok', true, 'id', v_issue.id, 'key', v_issue.key, 'deleted', true);
end
$$;
comment on function app_tools.issues_delete(args jsonb) is 'issues.delete: Delete an issue (soft: it disappears from reads and lists but is kept for audit; ISSUE_DELETED). Open agent runs on it are abandoned.';
grant execute on function app_tools.issues_delete(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/delete.sql
--! Included issues/tools/get.sql
-- The issues.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the lean issue by id or key; include adds description, labels, comments (newest first, default 20, max 100,
-- soft-deleted hidden), attachments, relations (as seen from this issue) and currentRun.
create or replace function app_tools.issues_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_include jsonb := coalesce(args->'include', '{}');
  v_result jsonb := app_hidden.issue_json(v_issue, false);
  v_limit int;
begin
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
      (select jsonb_agg(app_hidden.comment_json(c) order by c.created_at desc, c.id desc)
       from (select * from app_public.comments c
             where c.workspace_id = v_issue.workspace_id and c.issue_id = v_issue.id and c.deleted_at is null
             order by c.created_at desc, c.id desc limit v_limit) c), '[]'));
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
  return v_result;
end
$$;
comment on function app_tools.issues_get(args jsonb) is 'issues.get: One issue by id or key. Lean by default (status, project, assignee, labelIds). include adds description, labels, comments (newest first; true = 20, or {limit} up to 100), attachments, relations and currentRun (the open agent run).';
grant execute on function app_tools.issues_get(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/get.sql
--! Included issues/tools/list.sql
-- The issues.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- newest first by number, keyset-paged; filters status (id, category or name), statusId, open, priority,
-- projectId, assignedAgentId, cycleId, parentId, claimedById (null = none), labelIds (any), queued. RLS
-- narrows the rows.
create or replace function app_tools.issues_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_rows jsonb;
  v_last int;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
  end if;
  if args->>'statusId' is not null then
    v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_where := v_where || format(' and i.status_id = %L::uuid', v_status);
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category = %L)', v_status);
    else
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and lower(s.name) = lower(%L))', v_status);
    end if;
  end if;
  if args->>'open' is not null then
    v_where := v_where || format(' and i.status_id %s (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category in (''DONE'', ''CANCELED''))',
                                 case when (args->>'open')::boolean then 'not in' else 'in' end);
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
    'select coalesce(jsonb_agg(app_hidden.issue_lean_json(t.i, s, p, a, coalesce(l.ids, ''[]'')) order by (t.i).number desc), ''[]''),
            min((t.i).number), count(*)
     from (select i from app_public.issues i where %s order by i.number desc limit %s) t
     left join app_public.statuses s on s.id = (t.i).status_id
     left join app_public.projects p on p.id = (t.i).project_id
     left join app_public.agents a on a.id = (t.i).assigned_agent_id
     left join lateral (select jsonb_agg(il.label_id order by il.created_at, il.label_id) as ids
                        from app_public.issue_labels il where il.issue_id = (t.i).id) l on true', v_where, v_limit + 1)
  into v_rows, v_last, v_count
  using app_hidden.current_workspace_id();

  if v_count > v_limit then
    v_rows := v_rows - v_limit;  -- drop the look-ahead row
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('issues:' || (v_rows->(v_limit - 1)->>'number')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list(args jsonb) is 'issues.list: Issues newest first, paged ({items, nextCursor}). Filters: status (id, category such as IN_PROGRESS, or name), open (not DONE/CANCELED), priority, projectId, assignedAgentId, cycleId, parentId, claimedById (null = none for each), labelIds (any of), queued.';
grant execute on function app_tools.issues_list(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/list.sql
--! Included issues/tools/listWatchers.sql
-- The issues.listWatchers tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- watchers of an issue (user or agent identity), oldest first, paged.
create or replace function app_tools.issues_list_watchers(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after text;
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_after := app_hidden.cursor_decode(args->>'cursor', 'watchers');
  end if;
  select coalesce(jsonb_agg(app_hidden.watcher_json(w) order by w.created_at, w.id), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.issue_watchers w
        where w.issue_id = v_issue.id
          and (v_after is null or (w.created_at, w.id) > (split_part(v_after, '|', 1)::timestamptz, split_part(v_after, '|', 2)::uuid))
        order by w.created_at, w.id limit v_limit + 1) w;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('watchers:' ||
      (select to_char(w.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '|' || w.id
       from app_public.issue_watchers w where w.id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list_watchers(args jsonb) is 'issues.listWatchers: Who watches an issue: users ({id, name, email}) and agents ({id, profileKey, name}), oldest first, paged.';
grant execute on function app_tools.issues_list_watchers(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/listWatchers.sql
--! Included issues/tools/listWatching.sql
-- The issues.listWatching tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- live issues the caller watches (as its agent, else as its user), newest first, paged.
create or replace function app_tools.issues_list_watching(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
  v_before int;
  v_rows jsonb;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_before := app_hidden.cursor_decode(args->>'cursor', 'watching')::int;
  end if;
  select coalesce(jsonb_agg(app_hidden.issue_json(i) order by i.number desc), '[]'), count(*)
  into v_rows, v_count
  from (select i.* from app_public.issues i
        join app_public.issue_watchers w on w.issue_id = i.id
        where i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
          and (case when v_agent is not null then w.agent_id = v_agent
                    else w.agent_id is null and w.user_id = v_user end)
          and (v_before is null or i.number < v_before)
        order by i.number desc limit v_limit + 1) i;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('watching:' || (v_rows->(v_limit - 1)->>'number')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list_watching(args jsonb) is 'issues.listWatching: Issues the caller watches (its linked agent''s watches, else its user''s), newest first, paged.';
grant execute on function app_tools.issues_list_watching(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/listWatching.sql
--! Included issues/tools/queue.sql
-- The issues.queue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- puts the issue in the dispatch pool (ISSUE_QUEUED when queued flips true); queued false takes it out
-- (ISSUE_UPDATED). Run-mode gated.
create or replace function app_tools.issues_queue(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('queued', coalesce((args->>'queued')::boolean, true)));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_queue(args jsonb) is 'issues.queue: Put an issue in the dispatch pool (queued = true; ISSUE_QUEUED). Pass queued: false to take it out again.';
grant execute on function app_tools.issues_queue(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/queue.sql
--! Included issues/tools/reassign.sql
-- The issues.reassign tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one transaction: HANDOFF comment "Handoff → @<profileKey>: <rationale>", the swap, ISSUE_ASSIGNED and
-- AGENT_ASSIGNED {reason handoff, rationale, commentId}; new ACTIVE run, previous open run abandoned. 400 for
-- an archived or the same agent, or a rationale under 10 characters. Run-mode gated.
create or replace function app_tools.issues_reassign(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'issueId', 'issueId');
  v_agent app_public.agents := app_hidden.find_agent(null, args->>'toProfileKey', 'toProfileKey');
  v_rationale text := btrim(args->>'rationale');
  v_comment_id uuid;
  v_run_id uuid;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'agent_archived';
  end if;
  if v_issue.assigned_agent_id = v_agent.id then
    raise exception 'The issue is already assigned to %', v_agent.profile_key using errcode = 'SV400', column = 'toProfileKey', detail = 'same_agent';
  end if;
  if length(coalesce(v_rationale, '')) < 10 then
    perform app_hidden.raise_invalid('rationale', 'rationale must be at least 10 characters');
  end if;
  insert into app_public.comments (workspace_id, issue_id, body, kind, author_user_id, authoring_agent_id, run_id)
  values (v_issue.workspace_id, v_issue.id, format('Handoff → @%s: %s', v_agent.profile_key, v_rationale), 'HANDOFF',
          app_hidden.current_user_id(), app_hidden.current_agent_id(),
          (select r.id from app_hidden.agent_open_run(v_issue.id, app_hidden.current_agent_id()) r))
  returning id into v_comment_id;
  v_run_id := app_hidden.assign_issue_agent(v_issue, v_agent, args->>'mode', 'handoff', v_rationale, v_comment_id);
  v_issue := app_hidden.issue_after_write(v_issue.id);
  return app_hidden.issue_json(v_issue, true) || jsonb_build_object(
    'handoffCommentId', v_comment_id,
    'currentRun', (select app_hidden.run_json(r) from app_public.agent_runs r where r.id = v_run_id));
end
$$;
comment on function app_tools.issues_reassign(args jsonb) is 'issues.reassign: Hand an issue off to another agent in one step: posts the comment "Handoff → @<profileKey>: <rationale>", swaps the assignee, opens the new agent''s run and writes AGENT_ASSIGNED (reason handoff). 400 for an archived or the same agent; rationale at least 10 characters.';
grant execute on function app_tools.issues_reassign(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/reassign.sql
--! Included issues/tools/release.sql
-- The issues.release tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- clears the human claim. The claimer may always release; another user's live claim needs OWNER/ADMIN or an
-- ADMIN key (403 not_claimer). Unclaimed: no change. Run-mode gated.
create or replace function app_tools.issues_release(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  if v_issue.claimed_by_id is null then
    return app_hidden.issue_json(v_issue, true);
  end if;
  if v_issue.claimed_by_id is distinct from app_hidden.current_user_id() and v_issue.claim_expires_at > now()
     and not app_hidden.caller_may_moderate() then
    raise exception 'Only the claimer, a workspace OWNER/ADMIN or an ADMIN key may release a live claim'
      using errcode = 'SV403', detail = 'not_claimer';
  end if;
  update app_public.issues set claimed_by_id = null, claim_expires_at = null where id = v_issue.id;
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_release(args jsonb) is 'issues.release: Clear the human claim on an issue. Your own claim, an expired claim, or (for workspace OWNER/ADMIN and ADMIN keys) anyone''s.';
grant execute on function app_tools.issues_release(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/release.sql
--! Included issues/tools/removeLabels.sql
-- The issues.removeLabels tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes labels (absent: no change). A label-narrowed key may not remove the label that makes the issue
-- visible to it (403 narrowing). Run-mode gated.
create or replace function app_tools.issues_remove_labels(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
  v_remove uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
begin
  if (select count(*) from app_public.labels l where l.id = any(v_remove)) <> cardinality(array(select distinct unnest(v_remove))) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;
  delete from app_public.issue_labels where issue_id = v_issue.id and label_id = any(v_remove);
  return app_hidden.issue_json(app_hidden.issue_after_write(v_issue.id), true);
end
$$;
comment on function app_tools.issues_remove_labels(args jsonb) is 'issues.removeLabels: Remove labels from an issue (labels not on it are ignored). Returns the full issue.';
grant execute on function app_tools.issues_remove_labels(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/removeLabels.sql
--! Included issues/tools/transition.sql
-- The issues.transition tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves the issue to another status of the workspace (any move is allowed; ISSUE_STATUS_CHANGED only on a
-- real move). Run-mode gated.
create or replace function app_tools.issues_transition(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, jsonb_build_object('statusId', args->>'statusId'));
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_transition(args jsonb) is 'issues.transition: Move an issue to another status (statusId from statuses.list). Any status may move to any other.';
grant execute on function app_tools.issues_transition(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/transition.sql
--! Included issues/tools/unwatch.sql
-- The issues.unwatch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- removes the caller's own watch (agent or user); idempotent.
create or replace function app_tools.issues_unwatch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
begin
  if v_agent is not null then
    delete from app_public.issue_watchers where issue_id = v_issue.id and agent_id = v_agent;
  else
    delete from app_public.issue_watchers
    where issue_id = v_issue.id and agent_id is null and user_id = app_hidden.current_user_id();
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', false);
end
$$;
comment on function app_tools.issues_unwatch(args jsonb) is 'issues.unwatch: Stop watching an issue (removes only the caller''s own watch). Idempotent.';
grant execute on function app_tools.issues_unwatch(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/unwatch.sql
--! Included issues/tools/update.sql
-- The issues.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- changes any of title, description, priority, statusId, projectId, parentId, cycleId, dueDate, estimate,
-- slaMinutes, expectedOutput, verificationChecklist, artifactRequired; labelIds replaces the label set.
-- Run-mode gated.
create or replace function app_tools.issues_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_issue app_public.issues := app_hidden.issue_for_write(args->>'id');
begin
  v_issue := app_hidden.update_issue(v_issue, args - 'id');
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_update(args jsonb) is 'issues.update: Change fields of an issue: only the fields given change; null clears a nullable field; labelIds replaces the label set. Writes ISSUE_STATUS_CHANGED / ISSUE_PRIORITY_CHANGED / ISSUE_UPDATED for what really changed. Returns the full issue.';
grant execute on function app_tools.issues_update(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/update.sql
--! Included issues/tools/updateMany.sql
-- The issues.updateMany tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- up to 100 patches ({id, ...issues.update fields}) in one transaction, all or nothing; errors name
-- items.N.field. One event per issue per kind.
create or replace function app_tools.issues_update_many(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_item jsonb;
  v_index int := 0;
  v_issue app_public.issues;
  v_seen uuid[] := '{}';
  v_out jsonb := '[]';
  v_state text; v_msg text; v_detail text; v_hint text; v_col text;
begin
  for v_item in select e from jsonb_array_elements(args->'items') e loop
    begin
      v_issue := app_hidden.issue_for_write(v_item->>'id');
      if v_issue.id = any(v_seen) then
        perform app_hidden.raise_invalid('id', 'this issue appears more than once in the batch');
      end if;
      v_seen := v_seen || v_issue.id;
      v_issue := app_hidden.update_issue(v_issue, v_item - 'id');
      v_out := v_out || jsonb_build_array(app_hidden.issue_json(v_issue, false));
    exception when others then
      get stacked diagnostics v_state = returned_sqlstate, v_msg = message_text, v_detail = pg_exception_detail,
                              v_hint = pg_exception_hint, v_col = column_name;
      if v_state like 'SV%' then
        perform app_hidden.raise_in_item(v_index, v_state, v_msg, v_detail, v_hint, v_col);
      end if;
      raise;
    end;
    v_index := v_index + 1;
  end loop;
  return jsonb_build_object('items', v_out);
end
$$;
comment on function app_tools.issues_update_many(args jsonb) is 'issues.updateMany: Apply up to 100 issues.update patches ({id, ...fields}) in one call, all or nothing. A failing item fails the whole call and names its field as items.N.field. Returns the lean issues.';
grant execute on function app_tools.issues_update_many(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/updateMany.sql
--! Included issues/tools/watch.sql
-- The issues.watch tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller watches the issue (as its linked agent, else as its user); idempotent.
create or replace function app_tools.issues_watch(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_agent uuid := app_hidden.current_agent_id();
  v_user uuid := app_hidden.current_user_id();
begin
  if v_agent is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, agent_id)
    values (v_issue.workspace_id, v_issue.id, v_agent)
    on conflict (issue_id, agent_id) where agent_id is not null do nothing;
  elsif v_user is not null then
    insert into app_public.issue_watchers (workspace_id, issue_id, user_id)
    values (v_issue.workspace_id, v_issue.id, v_user)
    on conflict (issue_id, user_id) where user_id is not null do nothing;
  else
    raise exception 'This key acts for no user or agent' using errcode = 'SV403', detail = 'user_required';
  end if;
  return jsonb_build_object('issueId', v_issue.id, 'watching', true,
    'watcher', case when v_agent is not null then jsonb_build_object('type', 'agent', 'id', v_agent)
                    else jsonb_build_object('type', 'user', 'id', v_user) end);
end
$$;
comment on function app_tools.issues_watch(args jsonb) is 'issues.watch: Watch an issue: as the key''s linked agent when it has one, else as its user. Idempotent.';
grant execute on function app_tools.issues_watch(args jsonb) to svc_visitor;
--! EndIncluded issues/tools/watch.sql
--! Included labels/tools/create.sql
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
--! EndIncluded labels/tools/create.sql
--! Included labels/tools/delete.sql
-- The labels.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a label and takes it off every issue (ISSUE_UPDATED labelIds on each); not for narrowed keys.
create or replace function app_tools.labels_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
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
comment on function app_tools.labels_delete(args jsonb) is 'labels.delete: Delete a label; it comes off every issue. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_delete(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/delete.sql
--! Included labels/tools/list.sql
-- The labels.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- labels of the workspace by name (query = substring, case-insensitive), paged.
create or replace function app_tools.labels_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
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
comment on function app_tools.labels_list(args jsonb) is 'labels.list: Labels of the workspace, by name. query matches part of the name. Use label ids with issues.addLabels / removeLabels or issues.update labelIds.';
grant execute on function app_tools.labels_list(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/list.sql
--! Included labels/tools/update.sql
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
end
$$;
comment on function app_tools.labels_update(args jsonb) is 'labels.update: Rename, recolor or describe a label. Keys narrowed to projects or labels may not.';
grant execute on function app_tools.labels_update(args jsonb) to svc_visitor;
--! EndIncluded labels/tools/update.sql
--! Included notes/tools/archive.sql
-- The notes.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive of one of the caller's notes; idempotent; no MCP unarchive.
create or replace function app_tools.notes_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_note app_public.notes := app_hidden.find_note(args->>'id');
begin
  if v_note.archived_at is null then
    update app_public.notes set archived_at = now() where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_archive(args jsonb) is 'notes.archive: Archive one of your notes (soft; restoring is only possible in the app). Idempotent.';
grant execute on function app_tools.notes_archive(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/archive.sql
--! Included notes/tools/create.sql
-- The notes.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a private note (kind NOTE) or a journal entry (JOURNAL, journalDate default today in the caller's zone; one
-- per day: 409 journal_exists).
create or replace function app_tools.notes_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_date date;
  v_note app_public.notes;
begin
  if v_kind = 'NOTE' and args->>'journalDate' is not null then
    raise exception 'journalDate is only for JOURNAL notes' using errcode = 'SV400', column = 'journalDate';
  end if;
  if v_kind = 'JOURNAL' then
    v_date := coalesce((args->>'journalDate')::date, app_hidden.user_today(null));
    if exists (select 1 from app_public.notes n where n.workspace_id = app_hidden.current_workspace_id()
               and n.user_id = v_user and n.kind = 'JOURNAL' and n.journal_date = v_date) then
      raise exception 'There is already a journal entry for %; use notes.update (or notes.todayJournal)', v_date
        using errcode = 'SV409', detail = 'journal_exists';
    end if;
  end if;
  insert into app_public.notes (workspace_id, user_id, title, body, pinned, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, args->>'title', args->>'body',
          coalesce((args->>'pinned')::boolean, false), v_kind, v_date)
  returning * into v_note;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_create(args jsonb) is 'notes.create: Create a private markdown note for yourself (the key''s user). kind JOURNAL makes a daily journal entry for journalDate (default today); one per day.';
grant execute on function app_tools.notes_create(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/create.sql
--! Included notes/tools/list.sql
-- The notes.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's notes, most recently updated first, keyset-paged; kind NOTE and live (not archived) by
-- default; pinned filter.
create or replace function app_tools.notes_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_archived boolean := coalesce((args->>'archived')::boolean, false);
  v_kind text := coalesce(args->>'kind', 'NOTE');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_user();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'notes') k;
  end if;
  with page as (
    select n as r from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = v_kind
      and (n.archived_at is not null) = v_archived
      and (args->>'pinned' is null or n.pinned = (args->>'pinned')::boolean)
      and (v_after_ts is null or (n.updated_at, n.id) < (v_after_ts, v_after_id))
    order by n.updated_at desc, n.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).updated_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.note_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('notes', app_hidden.ts_key((r).updated_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.notes_list(args jsonb) is 'notes.list: Your notes, most recently updated first, paged ({items, nextCursor}). Kind NOTE and not archived by default; archived: true lists archived ones; pinned filters.';
grant execute on function app_tools.notes_list(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/list.sql
--! Included notes/tools/listJournal.sql
-- The notes.listJournal tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's live journal entries, newest day first, between from and to (inclusive), limit default 30,
-- keyset-paged.
create or replace function app_tools.notes_list_journal(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 30);
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
  v_after_date date;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_user();
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'cursor' is not null then
    select k.sort_key::date, k.sort_id into v_after_date, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'journal') k;
  end if;
  with page as (
    select n as r from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = app_hidden.current_user_id()
      and n.kind = 'JOURNAL' and n.archived_at is null
      and (v_from is null or n.journal_date >= v_from)
      and (v_to is null or n.journal_date <= v_to)
      and (v_after_date is null or (n.journal_date, n.id) < (v_after_date, v_after_id))
    order by n.journal_date desc, n.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).journal_date desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.note_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('journal', to_char((r).journal_date, 'YYYY-MM-DD'), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.notes_list_journal(args jsonb) is 'notes.listJournal: Your journal entries, newest day first, between from and to (inclusive dates), paged ({items, nextCursor}); limit default 30.';
grant execute on function app_tools.notes_list_journal(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/listJournal.sql
--! Included notes/tools/todayJournal.sql
-- The notes.todayJournal tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- get-or-create the caller's JOURNAL entry for today in the given zone (else users.timezone, default UTC);
-- idempotent, created says which.
create or replace function app_tools.notes_today_journal(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_date date := app_hidden.user_today(args->>'timezone');
  v_note app_public.notes;
  v_created boolean := false;
begin
  insert into app_public.notes (workspace_id, user_id, body, kind, journal_date)
  values (app_hidden.current_workspace_id(), v_user, '', 'JOURNAL', v_date)
  on conflict (workspace_id, user_id, journal_date) where kind = 'JOURNAL' do nothing
  returning * into v_note;
  v_created := v_note.id is not null;
  if not v_created then
    select * into v_note from app_public.notes n
    where n.workspace_id = app_hidden.current_workspace_id() and n.user_id = v_user
      and n.kind = 'JOURNAL' and n.journal_date = v_date;
  end if;
  return app_hidden.note_json(v_note) || jsonb_build_object('created', v_created);
end
$$;
comment on function app_tools.notes_today_journal(args jsonb) is 'notes.todayJournal: Get or create today''s journal entry for you. "Today" is in timezone (IANA name such as Europe/Paris) if given, else your user time zone (default UTC). Idempotent; created tells whether it was just made.';
grant execute on function app_tools.notes_today_journal(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/todayJournal.sql
--! Included notes/tools/update.sql
-- The notes.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- title (null clears), body, pinned of one of the caller's live notes; archived: 409 note_archived.
create or replace function app_tools.notes_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_note app_public.notes := app_hidden.find_note(args->>'id');
  v_title text := case when args ? 'title' then args->>'title' else v_note.title end;
  v_body text := coalesce(args->>'body', v_note.body);
  v_pinned boolean := coalesce((args->>'pinned')::boolean, v_note.pinned);
begin
  if v_note.archived_at is not null then
    raise exception 'Note is archived; archived notes can be restored only in the app' using errcode = 'SV409', detail = 'note_archived';
  end if;
  if (v_title, v_body, v_pinned) is distinct from (v_note.title, v_note.body, v_note.pinned) then
    update app_public.notes set title = v_title, body = v_body, pinned = v_pinned where id = v_note.id returning * into v_note;
  end if;
  return app_hidden.note_json(v_note);
end
$$;
comment on function app_tools.notes_update(args jsonb) is 'notes.update: Edit one of your notes: title (null clears), body, pinned. Only the fields given change. Archived notes cannot be edited.';
grant execute on function app_tools.notes_update(args jsonb) to svc_visitor;
--! EndIncluded notes/tools/update.sql
--! Included notification/tools/getPreferences.sql
-- The notification.getPreferences tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the key owner's rows (global and this workspace) and the effective setting per kind (workspace row, else
-- global, else enabled).
create or replace function app_tools.notification_get_preferences(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_ws uuid := app_hidden.current_workspace_id();
  v_kinds text[] := coalesce((select array_agg(k) from jsonb_array_elements_text(args->'eventKinds') k), app_hidden.event_kinds());
begin
  return jsonb_build_object(
    'preferences', coalesce((select jsonb_agg(app_hidden.notification_preference_json(p)
                                              order by p.event_kind, p.workspace_id nulls first)
                             from app_public.notification_preferences p
                             where p.user_id = v_user and p.event_kind = any(v_kinds)
                               and (p.workspace_id is null or p.workspace_id = v_ws)), '[]'),
    'effective', (select jsonb_agg(jsonb_build_object('eventKind', k,
                    'enabled', coalesce(w.enabled, g.enabled, true),
                    'delivery', coalesce(w.delivery, g.delivery, 'INBOX_ONLY'),
                    'source', case when w.id is not null then 'workspace' when g.id is not null then 'global' else 'default' end)
                  order by k)
                  from unnest(v_kinds) k
                  left join app_public.notification_preferences w on w.user_id = v_user and w.workspace_id = v_ws and w.event_kind = k
                  left join app_public.notification_preferences g on g.user_id = v_user and g.workspace_id is null and g.event_kind = k));
end
$$;
comment on function app_tools.notification_get_preferences(args jsonb) is 'notification.getPreferences: The key''s own notification settings: the stored rows (this workspace and global) and the effective setting for each event kind (workspace row, else global row, else enabled).';
grant execute on function app_tools.notification_get_preferences(args jsonb) to svc_visitor;
--! EndIncluded notification/tools/getPreferences.sql
--! Included notification/tools/setPreference.sql
-- The notification.setPreference tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- upserts the key owner's preference for one event kind, in this workspace (default) or globally; delivery
-- kept when omitted on update.
create or replace function app_tools.notification_set_preference(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_key_user();
  v_global boolean := coalesce(args->>'scope', 'workspace') = 'global';
  v_kind text := args->>'eventKind';
  v_row app_public.notification_preferences;
begin
  if not (v_kind = any(app_hidden.event_kinds())) then
    perform app_hidden.raise_invalid('eventKind', 'unknown event kind');
  end if;
  if v_global then
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (null, v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (user_id, event_kind) where workspace_id is null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  else
    insert into app_public.notification_preferences as p (workspace_id, user_id, event_kind, enabled, delivery)
    values (app_hidden.current_workspace_id(), v_user, v_kind, (args->>'enabled')::boolean, coalesce(args->>'delivery', 'INBOX_ONLY'))
    on conflict (workspace_id, user_id, event_kind) where workspace_id is not null
    do update set enabled = excluded.enabled, delivery = coalesce(args->>'delivery', p.delivery)
    returning * into v_row;
  end if;
  return app_hidden.notification_preference_json(v_row);
end
$$;
comment on function app_tools.notification_set_preference(args jsonb) is 'notification.setPreference: Turn notifications of one event kind on or off for the key''s own user, in this workspace (scope workspace, the default) or as a default for every workspace (scope global). A workspace setting wins over the global one; without any, every kind is enabled.';
grant execute on function app_tools.notification_set_preference(args jsonb) to svc_visitor;
--! EndIncluded notification/tools/setPreference.sql
--! Included pins/tools/list.sql
-- The pins.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's pinned issues, in pin order.
create or replace function app_tools.pins_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_user();
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_list(args jsonb) is 'pins.list: The issues you (the key''s user) pinned, in pin order. Pins are personal.';
grant execute on function app_tools.pins_list(args jsonb) to svc_visitor;
--! EndIncluded pins/tools/list.sql
--! Included pins/tools/set.sql
-- The pins.set tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- makes the caller's pinned issues exactly this ordered list (idempotent); other pin types and pins outside a
-- narrowed key's reach are untouched.
create or replace function app_tools.pins_set(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid := app_hidden.require_user();
  v_ids uuid[] := app_hidden.resolve_issue_list(args->'issueIds', 'issueIds');
begin
  -- Pins on issues outside a narrowed key's reach are not this key's to change: they stay.
  delete from app_public.pins p
  where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = v_user and p.target_type = 'ISSUE'
    and not (p.target_id = any(v_ids))
    and (app_hidden.issues_unrestricted() or exists (select 1 from app_public.issues i where i.id = p.target_id));
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  select app_hidden.current_workspace_id(), v_user, 'ISSUE', t.id, t.ord - 1
  from unnest(v_ids) with ordinality t(id, ord)
  on conflict (workspace_id, user_id, target_type, target_id)
  do update set position = excluded.position where pins.position is distinct from excluded.position;
  return app_hidden.pins_json();
end
$$;
comment on function app_tools.pins_set(args jsonb) is 'pins.set: Replace your pinned issues with exactly this ordered list of issue ids or keys (empty list unpins all). Idempotent: send the full desired list. Returns the new pins.';
grant execute on function app_tools.pins_set(args jsonb) to svc_visitor;
--! EndIncluded pins/tools/set.sql
--! Included projects/tools/archive.sql
-- The projects.archive tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- soft archive (archivedAt); idempotent; PROJECT_UPDATED (archived true) by trigger. Its issues keep their
-- projectId.
create or replace function app_tools.projects_archive(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_project app_public.projects := app_hidden.find_project(args->>'id');
begin
  if v_project.archived_at is null then
    update app_public.projects set archived_at = now() where id = v_project.id returning * into v_project;
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_archive(args jsonb) is 'projects.archive: Archive a project (soft: it leaves projects.list and new issues cannot use it; its issues keep their projectId). Idempotent.';
grant execute on function app_tools.projects_archive(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/archive.sql
--! Included projects/tools/create.sql
-- The projects.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new project, optionally in an initiative the key can see; PROJECT_CREATED by trigger. Project-narrowed
-- keys: 403 narrowing.
create or replace function app_tools.projects_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_initiative app_public.initiatives;
  v_project app_public.projects;
begin
  if cardinality(app_hidden.narrowed_project_ids()) > 0 then
    raise exception 'A project-narrowed key cannot create projects' using errcode = 'SV403', detail = 'narrowing';
  end if;
  if args->>'initiativeId' is not null then
    v_initiative := app_hidden.find_initiative(args->>'initiativeId', 'initiativeId');
  end if;
  insert into app_public.projects (workspace_id, name, description, initiative_id)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description', v_initiative.id)
  returning * into v_project;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_create(args jsonb) is 'projects.create: Create a project (name, optional description and initiativeId). Returns the project; use its id as projectId on issues. Keys narrowed to projects cannot create projects.';
grant execute on function app_tools.projects_create(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/create.sql
--! Included projects/tools/list.sql
-- The projects.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- projects the key can see, oldest first, keyset-paged; archived ones only with includeArchived; initiativeId
-- filter (null = without initiative).
create or replace function app_tools.projects_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_include_archived boolean := coalesce((args->>'includeArchived')::boolean, false);
  v_initiative uuid := app_hidden.parse_uuid(args->>'initiativeId', 'initiativeId');
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id
    from app_hidden.keyset_decode(args->>'cursor', 'projects') k;
  end if;
  with page as (
    select p as r from app_public.projects p
    where p.workspace_id = app_hidden.current_workspace_id()
      and (v_include_archived or p.archived_at is null)
      and (not args ? 'initiativeId'
           or (v_initiative is null and p.initiative_id is null)
           or p.initiative_id = v_initiative)
      and (v_after_ts is null or (p.created_at, p.id) > (v_after_ts, v_after_id))
    order by p.created_at, p.id
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).created_at, (r).id) as rn from page)
  select coalesce(jsonb_agg(app_hidden.project_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('projects', app_hidden.ts_key((r).created_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.projects_list(args jsonb) is 'projects.list: Projects this key can see, oldest first, paged ({items, nextCursor}). Archived projects only with includeArchived; initiativeId filters (null = projects without an initiative).';
grant execute on function app_tools.projects_list(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/list.sql
--! Included projects/tools/update.sql
-- The projects.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description, initiativeId (null detaches); PROJECT_UPDATED by trigger, none when nothing changes.
create or replace function app_tools.projects_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_project app_public.projects := app_hidden.find_project(args->>'id');
  v_initiative_id uuid := v_project.initiative_id;
begin
  if args ? 'initiativeId' then
    if args->>'initiativeId' is null then
      v_initiative_id := null;
    else
      v_initiative_id := (app_hidden.find_initiative(args->>'initiativeId', 'initiativeId')).id;
    end if;
    if v_initiative_id is distinct from v_project.initiative_id then
      perform app_hidden.check_project_initiative_reachable(v_project);
    end if;
  end if;
  update app_public.projects
  set name = coalesce(args->>'name', name),
      description = case when args ? 'description' then args->>'description' else description end,
      initiative_id = v_initiative_id
  where id = v_project.id
    and (coalesce(args->>'name', name), case when args ? 'description' then args->>'description' else description end, v_initiative_id)
        is distinct from (name, description, initiative_id)
  returning * into v_project;
  if not found then
    v_project := app_hidden.find_project(args->>'id');
  end if;
  return app_hidden.project_json(v_project);
end
$$;
comment on function app_tools.projects_update(args jsonb) is 'projects.update: Change a project''s name, description (null clears) or initiativeId (null detaches it from its initiative). Only the fields given change.';
grant execute on function app_tools.projects_update(args jsonb) to svc_visitor;
--! EndIncluded projects/tools/update.sql
--! Included relations/tools/add.sql
-- The relations.add tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- links two visible issues (BLOCKED_BY stored as the reverse BLOCKS); an existing identical link is returned
-- with created false (idempotent); self-links 400; a reverse BLOCKS/DUPLICATES 409.
create or replace function app_tools.relations_add(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_from app_public.issues := app_hidden.find_issue(args->>'fromIssueId', 'fromIssueId');
  v_to app_public.issues := app_hidden.find_issue(args->>'toIssueId', 'toIssueId');
  v_kind text := args->>'kind';
  v_s_from uuid;
  v_s_to uuid;
  v_s_kind text;
  v_rel app_public.issue_relations;
begin
  if v_from.id = v_to.id then
    raise exception 'an issue cannot be related to itself' using errcode = 'SV400', column = 'toIssueId';
  end if;
  if v_kind = 'BLOCKED_BY' then
    v_s_from := v_to.id; v_s_to := v_from.id; v_s_kind := 'BLOCKS';
  else
    v_s_from := v_from.id; v_s_to := v_to.id; v_s_kind := v_kind;
  end if;

  select * into v_rel from app_public.issue_relations r
  where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
    and ((r.from_issue_id = v_s_from and r.to_issue_id = v_s_to)
         or (v_s_kind = 'RELATES_TO' and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from));
  if v_rel.id is not null then
    return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', false);
  end if;
  if v_s_kind in ('BLOCKS', 'DUPLICATES') and exists (
      select 1 from app_public.issue_relations r
      where r.workspace_id = v_from.workspace_id and r.kind = v_s_kind
        and r.from_issue_id = v_s_to and r.to_issue_id = v_s_from) then
    raise exception 'The reverse relation already exists (% % %)',
      (select key from app_public.issues where id = v_s_to), v_s_kind, (select key from app_public.issues where id = v_s_from)
      using errcode = 'SV409', detail = 'reverse_relation_exists';
  end if;

  insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id)
  values (v_from.workspace_id, v_s_from, v_s_to, v_s_kind, app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_rel;
  return app_hidden.relation_view(v_rel, v_from.id) || jsonb_build_object('created', true);
end
$$;
comment on function app_tools.relations_add(args jsonb) is 'relations.add: Link two issues: fromIssueId <kind> toIssueId, kind BLOCKS, BLOCKED_BY, DUPLICATES or RELATES_TO. A BLOCKS B is one link, seen from B as BLOCKED_BY A (so BLOCKED_BY A→B is stored as B BLOCKS A). Returns the link as seen from fromIssueId; one that already exists comes back with created false. No self-links.';
grant execute on function app_tools.relations_add(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/add.sql
--! Included relations/tools/listForIssue.sql
-- The relations.listForIssue tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- inbound and outbound relations of an issue, each seen from that issue (relation_view), oldest first; links
-- to issues the key cannot see or that are deleted are left out.
create or replace function app_tools.relations_list_for_issue(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_issue app_public.issues := app_hidden.find_issue(args->>'issueId', 'issueId');
begin
  return coalesce((
    select jsonb_agg(t.v order by t.created_at, t.id)
    from (select app_hidden.relation_view(r, v_issue.id) as v, r.created_at, r.id
          from app_public.issue_relations r
          where r.workspace_id = v_issue.workspace_id
            and (r.from_issue_id = v_issue.id or r.to_issue_id = v_issue.id)
            and exists (select 1 from app_public.issues o
                        where o.id = case when r.from_issue_id = v_issue.id then r.to_issue_id else r.from_issue_id end
                          and o.deleted_at is null)) t
    where args->>'kind' is null or t.v->>'kind' = args->>'kind'), '[]');
end
$$;
comment on function app_tools.relations_list_for_issue(args jsonb) is 'relations.listForIssue: Every relation of an issue, outbound and inbound, each seen from that issue: kind is its point of view (BLOCKED_BY when another issue blocks it), direction says which way the stored link goes, issue is the other end. Optional kind filter (applies to the kind as seen).';
grant execute on function app_tools.relations_list_for_issue(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/listForIssue.sql
--! Included relations/tools/remove.sql
-- The relations.remove tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a relation whose both issues the key can see (else 404); ISSUE_UPDATED on both issues by trigger.
create or replace function app_tools.relations_remove(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_rel app_public.issue_relations;
begin
  delete from app_public.issue_relations
  where id = app_hidden.parse_uuid(args->>'id', 'id') and workspace_id = app_hidden.current_workspace_id()
  returning * into v_rel;
  if v_rel.id is null then
    raise exception 'Relation not found' using errcode = 'SV404', column = 'id';
  end if;
  return jsonb_build_object('id', v_rel.id, 'removed', true, 'kind', v_rel.kind,
                            'fromIssueId', v_rel.from_issue_id, 'toIssueId', v_rel.to_issue_id);
end
$$;
comment on function app_tools.relations_remove(args jsonb) is 'relations.remove: Remove a relation by its id (from relations.listForIssue).';
grant execute on function app_tools.relations_remove(args jsonb) to svc_visitor;
--! EndIncluded relations/tools/remove.sql
--! Included statuses/tools/list.sql
-- The statuses.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- statuses ordered by position, optionally of one category.
create or replace function app_tools.statuses_list(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.status_json(s) order by s.position, s.name), '[]')
  from app_public.statuses s
  where s.workspace_id = app_hidden.current_workspace_id()
    and (args->>'category' is null or s.category = args->>'category')
$$;
comment on function app_tools.statuses_list(args jsonb) is 'statuses.list: Workflow statuses of the workspace, ordered by position. Use a status id with issues.transition.';
grant execute on function app_tools.statuses_list(args jsonb) to svc_visitor;
--! EndIncluded statuses/tools/list.sql
--! Included time/tools/list.sql
-- The time.list tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- time entries on issues the key can see (everyone's), newest start first, keyset-paged; filters userId,
-- issueId, from/to.
create or replace function app_tools.time_list(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_ts timestamptz;
  v_after_id uuid;
  v_items jsonb;
  v_count int;
  v_cursor text;
begin
  perform app_hidden.require_time_tracking();
  if args->>'cursor' is not null then
    select k.sort_key::timestamptz, k.sort_id into v_after_ts, v_after_id from app_hidden.keyset_decode(args->>'cursor', 'time') k;
  end if;
  with page as (
    select e as r from app_hidden.time_entries_filtered(args) e
    where v_after_ts is null or (e.started_at, e.id) < (v_after_ts, v_after_id)
    order by e.started_at desc, e.id desc
    limit v_limit + 1),
  numbered as (select r, row_number() over (order by (r).started_at desc, (r).id desc) as rn from page)
  select coalesce(jsonb_agg(app_hidden.time_entry_json(r) order by rn) filter (where rn <= v_limit), '[]'),
         count(*),
         max(case when rn = v_limit then app_hidden.keyset_encode('time', app_hidden.ts_key((r).started_at), (r).id) end)
  into v_items, v_count, v_cursor
  from numbered;
  return jsonb_build_object('items', v_items, 'nextCursor', case when v_count > v_limit then v_cursor end);
end
$$;
comment on function app_tools.time_list(args jsonb) is 'time.list: Time entries on issues this key can see, newest first, paged ({items, nextCursor}); filter by userId, issueId and a from/to day range. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_list(args jsonb) to svc_visitor;
--! EndIncluded time/tools/list.sql
--! Included time/tools/log.sql
-- The time.log tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a finished manual entry of durationMin on a visible issue (startedAt defaults to now minus the duration).
create or replace function app_tools.time_log(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_minutes int := (args->>'durationMin')::int;
  v_started timestamptz;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  v_started := coalesce((args->>'startedAt')::timestamptz, now() - make_interval(mins => v_minutes));
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note)
  values (v_issue.workspace_id, v_issue.id, v_user, v_started, v_started + make_interval(mins => v_minutes), v_minutes, args->>'note')
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_log(args jsonb) is 'time.log: Log time spent on an issue manually: durationMin minutes (startedAt defaults to now minus the duration). Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_log(args jsonb) to svc_visitor;
--! EndIncluded time/tools/log.sql
--! Included time/tools/running.sql
-- The time.running tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the caller's running timer, or null.
create or replace function app_tools.time_running(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  select * into v_entry from app_public.time_entries
  where workspace_id = app_hidden.current_workspace_id() and user_id = app_hidden.require_user() and duration_min is null;
  return case when v_entry.id is null then null else app_hidden.time_entry_json(v_entry) end;
end
$$;
comment on function app_tools.time_running(args jsonb) is 'time.running: Your running timer, or null. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_running(args jsonb) to svc_visitor;
--! EndIncluded time/tools/running.sql
--! Included time/tools/start.sql
-- The time.start tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- starts the caller's timer on a visible issue, stopping a running one first (returned as stopped); already
-- running on that issue: unchanged.
create or replace function app_tools.time_start(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_user uuid;
  v_issue app_public.issues;
  v_running app_public.time_entries;
  v_stopped app_public.time_entries;
  v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_user := app_hidden.require_user();
  v_issue := app_hidden.find_issue(args->>'issueId', 'issueId');
  select * into v_running from app_public.time_entries
  where workspace_id = v_issue.workspace_id and user_id = v_user and duration_min is null;
  if v_running.issue_id = v_issue.id then
    return jsonb_build_object('entry', app_hidden.time_entry_json(v_running), 'stopped', null);
  end if;
  if v_running.id is not null then
    v_stopped := app_hidden.stop_running_timer(v_user);
  end if;
  insert into app_public.time_entries (workspace_id, issue_id, user_id, started_at, note)
  values (v_issue.workspace_id, v_issue.id, v_user, now(), args->>'note')
  returning * into v_entry;
  return jsonb_build_object('entry', app_hidden.time_entry_json(v_entry),
                            'stopped', case when v_stopped.id is null then null else app_hidden.time_entry_json(v_stopped) end);
end
$$;
comment on function app_tools.time_start(args jsonb) is 'time.start: Start your timer on an issue. A timer already running on another issue is stopped first (returned as stopped); one on the same issue keeps running. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_start(args jsonb) to svc_visitor;
--! EndIncluded time/tools/start.sql
--! Included time/tools/stop.sql
-- The time.stop tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- stops the caller's running timer and returns the finished entry; 409 no_running_timer when none runs.
create or replace function app_tools.time_stop(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  v_entry := app_hidden.stop_running_timer(app_hidden.require_user());
  if v_entry.id is null then
    raise exception 'No timer is running' using errcode = 'SV409', detail = 'no_running_timer';
  end if;
  if args ? 'note' then
    update app_public.time_entries set note = args->>'note' where id = v_entry.id returning * into v_entry;
  end if;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_stop(args jsonb) is 'time.stop: Stop your running timer; returns the finished entry with durationMin. 409 no_running_timer when none runs. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_stop(args jsonb) to svc_visitor;
--! EndIncluded time/tools/stop.sql
--! Included time/tools/summary.sql
-- The time.summary tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- minutes of finished entries (running timers excluded) in total, by user, by issue and by UTC day, with the
-- time.list filters.
create or replace function app_tools.time_summary(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  perform app_hidden.require_time_tracking();
  return (
    with e as (select * from app_hidden.time_entries_filtered(args) where duration_min is not null)
    select jsonb_build_object(
      'from', args->'from', 'to', args->'to',
      'totalMin', coalesce((select sum(duration_min) from e), 0),
      'entryCount', (select count(*) from e),
      'byUser', coalesce((
        select jsonb_agg(jsonb_build_object('userId', t.user_id, 'name', t.name, 'totalMin', t.total) order by t.total desc, t.user_id)
        from (select e.user_id, (select coalesce(nullif(u.name, ''), u.email) from app_public.users u where u.id = e.user_id) as name,
                     sum(e.duration_min) as total
              from e group by e.user_id) t), '[]'),
      'byIssue', coalesce((
        select jsonb_agg(jsonb_build_object('issueId', t.issue_id, 'key', i.key, 'title', i.title, 'totalMin', t.total)
                         order by t.total desc, t.issue_id)
        from (select e.issue_id, sum(e.duration_min) as total from e group by e.issue_id) t
        left join app_public.issues i on i.id = t.issue_id), '[]'),
      'byDay', coalesce((
        select jsonb_agg(jsonb_build_object('day', t.day, 'totalMin', t.total) order by t.day)
        from (select (e.started_at at time zone 'UTC')::date as day, sum(e.duration_min) as total from e group by 1) t), '[]')));
end
$$;
comment on function app_tools.time_summary(args jsonb) is 'time.summary: Minutes logged (finished entries) in total, by user, by issue and by UTC day, with the same filters as time.list. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_summary(args jsonb) to svc_visitor;
--! EndIncluded time/tools/summary.sql
--! Included workspace/tools/get.sql
-- The workspace.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- settings of the caller's workspace.
create or replace function app_tools.workspace_get(args jsonb)
 returns jsonb
 language sql
 stable
as $$
  select app_hidden.workspace_json(w) from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_tools.workspace_get(args jsonb) is 'workspace.get: Settings of the workspace this key belongs to (cycle length, time tracking, dispatch mode, ...). No member list.';
grant execute on function app_tools.workspace_get(args jsonb) to svc_visitor;
--! EndIncluded workspace/tools/get.sql
