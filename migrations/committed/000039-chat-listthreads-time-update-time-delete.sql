--! Previous: sha1:430707141e99cecf9ad041d55c21b18df097eb3f
--! Hash: sha1:035714d053c08542be849291a1b9d2f5b2e75bbb
--! Message: chat.listThreads, time.update, time.delete

--! split: 1-current.sql
-- New tools: chat.listThreads (the threads addressed to the calling agent, latest activity first, with the
-- last message and whether it awaits a reply), time.update and time.delete (a person corrects or removes their
-- own time entries).
grant update (started_at) on app_public.time_entries to svc_visitor;
grant delete on app_public.time_entries to svc_visitor;
--! Included chat/tools/listThreads.sql
-- The chat.listThreads tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the threads addressed to the calling agent, latest activity (last message, else opening) first, keyset-paged;
-- each with its last message and whether it awaits the agent's reply (last message from a person).
create or replace function app_tools.chat_list_threads(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_limit int := coalesce((args->>'limit')::int, 20);
  v_awaiting boolean := (args->>'awaitingReply')::boolean;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'chat-threads');
begin
  return app_hidden.page_json(array(
    select (app_hidden.chat_thread_json(t) || jsonb_build_object(
              'lastMessage', case when last.id is not null then jsonb_build_object(
                'id', last.id, 'role', last.role, 'createdAt', last.created_at,
                -- A preview: getThread has the whole body.
                'body', left(last.body, 500), 'truncated', length(last.body) > 500) end,
              'awaitingReply', coalesce(last.role = 'USER', false)),
            app_hidden.ts_key(activity.at), t.id)::app_hidden.page_row
    from app_public.chat_threads t
    left join lateral (select m.id, m.role, m.body, m.created_at from app_public.chat_messages m
                       where m.workspace_id = t.workspace_id and m.thread_id = t.id
                       order by m.seq desc limit 1) last on true
    cross join lateral (select coalesce(last.created_at, t.created_at) as at) activity
    where t.workspace_id = app_hidden.current_workspace_id() and t.agent_id = v_agent.id
      and (v_awaiting is null or coalesce(last.role = 'USER', false) = v_awaiting)
      and (v_after.sort_id is null or (activity.at, t.id) < (v_after.sort_key, v_after.sort_id))
    order by activity.at desc, t.id desc limit v_limit + 1), v_limit, 'chat-threads');
end
$$;
comment on function app_tools.chat_list_threads(args jsonb) is 'chat.listThreads: Threads addressed to your agent, latest activity first, paged: each with lastMessage (a 500-character preview) and awaitingReply (the last message is a person''s). awaitingReply: true lists those only. Needs a key linked to an agent (403 otherwise).';
grant execute on function app_tools.chat_list_threads(args jsonb) to svc_visitor;
--! EndIncluded chat/tools/listThreads.sql
--! Included time/time.sql
-- time: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_time_tracking()
 returns void
 language plpgsql
 stable
as $$
begin
  if not coalesce((select w.time_tracking_enabled from app_public.workspaces w
                   where w.id = app_hidden.current_workspace_id()), false) then
    raise exception 'Time tracking is disabled for this workspace' using errcode = 'SV403', detail = 'time_tracking_disabled';
  end if;
end
$$;
comment on function app_hidden.require_time_tracking() is 'Every time tool starts here: 403 time_tracking_disabled when workspaces.time_tracking_enabled is false.';
grant execute on function app_hidden.require_time_tracking() to svc_visitor;

create or replace function app_hidden.stop_running_timer(p_user uuid)
 returns app_public.time_entries
 language sql
as $$
  update app_public.time_entries
  set ended_at = now(), duration_min = greatest(0, round(extract(epoch from now() - started_at) / 60))::int
  where workspace_id = app_hidden.current_workspace_id() and user_id = p_user and duration_min is null
  returning *
$$;
comment on function app_hidden.stop_running_timer(p_user uuid) is 'Stops the user''s running timer (durationMin = elapsed minutes, rounded); NULL row when none runs.';
grant execute on function app_hidden.stop_running_timer(p_user uuid) to svc_visitor;

create or replace function app_hidden.time_entries_filtered(args jsonb)
 returns setof app_public.time_entries
 language plpgsql
 stable
as $$
declare
  v_issue_id uuid;
  v_user_id uuid := app_hidden.parse_uuid(args->>'userId', 'userId');
  v_from date := (args->>'from')::date;
  v_to date := (args->>'to')::date;
begin
  if v_from > v_to then
    raise exception 'from must be on or before to' using errcode = 'SV400', column = 'from';
  end if;
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  return query
    select e.* from app_public.time_entries e
    where e.workspace_id = app_hidden.current_workspace_id()
      -- Lists follow issue narrowing even for the caller's own entries (select_own_time is for timers).
      and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
      -- Deleted issues are 404 everywhere, so their time is not listed or summed either.
      and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
      and (v_issue_id is null or e.issue_id = v_issue_id)
      and (v_user_id is null or e.user_id = v_user_id)
      and (v_from is null or e.started_at >= v_from::timestamp at time zone 'UTC')
      and (v_to is null or e.started_at < (v_to + 1)::timestamp at time zone 'UTC');
end
$$;
comment on function app_hidden.time_entries_filtered(args jsonb) is 'Time entries on issues the key can see and that are not deleted (a narrowed key''s own entries elsewhere included only by its timer tools), filtered by issueId (404 when invisible), userId, and from/to (inclusive UTC days of startedAt).';
grant execute on function app_hidden.time_entries_filtered(args jsonb) to svc_visitor;

create or replace function app_hidden.time_entry_json(e app_public.time_entries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', e.id, 'issueId', e.issue_id,
    'issue', (select jsonb_build_object('id', i.id, 'key', i.key, 'title', i.title)
              from app_public.issues i where i.id = e.issue_id),
    'userId', e.user_id,
    'user', (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email))
             from app_public.users u where u.id = e.user_id),
    'startedAt', e.started_at, 'endedAt', e.ended_at, 'durationMin', e.duration_min,
    'running', e.duration_min is null, 'note', e.note, 'createdAt', e.created_at)
$$;
comment on function app_hidden.time_entry_json(e app_public.time_entries) is 'Time entry (spec 2.7): issueId (+ issue when visible), user, startedAt, endedAt, durationMin (null while running), running.';
grant execute on function app_hidden.time_entry_json(e app_public.time_entries) to svc_visitor;

create or replace function app_hidden.own_time_entry_for_write(p_id text)
 returns app_public.time_entries
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  -- Only the caller's own entries (select_own_time), and not those of deleted issues (404 there as everywhere).
  select e.* into v_entry from app_public.time_entries e
  where e.id = app_hidden.parse_uuid(p_id, 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and e.user_id = app_hidden.current_user_id()
    -- Within the key's narrowing, as time.list (the timer tools alone reach a timer outside it).
    and ((select app_hidden.issues_unrestricted()) or exists (select 1 from app_public.issues i where i.id = e.issue_id))
    and not exists (select 1 from app_public.issues i where i.id = e.issue_id and i.deleted_at is not null)
  for update;
  return app_hidden.found(v_entry, 'Time entry');
end
$$;
comment on function app_hidden.own_time_entry_for_write(p_id text) is 'time.update / time.delete: the caller''s own entry, locked (another person''s entry, one on a deleted issue or on an issue outside the key''s narrowing is 404 Time entry not found).';
grant execute on function app_hidden.own_time_entry_for_write(p_id text) to svc_visitor;
--! EndIncluded time/time.sql
--! Included time/tools/update.sql
-- The time.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- corrects one of the caller's entries: note, and for a finished entry durationMin and startedAt (endedAt follows);
-- a running timer's times are the clock's (409 timer_running).
create or replace function app_tools.time_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_entry app_public.time_entries;
  v_minutes int;
  v_started timestamptz;
begin
  perform app_hidden.require_time_tracking();
  perform app_hidden.require_user();
  v_entry := app_hidden.own_time_entry_for_write(args->>'id');
  if v_entry.duration_min is null and (args ? 'durationMin' or args ? 'startedAt') then
    raise exception 'This timer is running: stop it first, then correct its duration or start'
      using errcode = 'SV409', detail = 'timer_running';
  end if;
  v_minutes := coalesce((args->>'durationMin')::int, v_entry.duration_min);
  v_started := coalesce((args->>'startedAt')::timestamptz, v_entry.started_at);
  update app_public.time_entries
  set duration_min = v_minutes, started_at = v_started,
      ended_at = case when v_minutes is null then null else v_started + make_interval(mins => v_minutes) end,
      note = case when args ? 'note' then args->>'note' else note end
  where id = v_entry.id
  returning * into v_entry;
  return app_hidden.time_entry_json(v_entry);
end
$$;
comment on function app_tools.time_update(args jsonb) is 'time.update: Correct one of your time entries: note, and for a finished entry durationMin and startedAt (endedAt follows). A running timer''s times come from the clock (409 timer_running). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_update(args jsonb) to svc_visitor;
--! EndIncluded time/tools/update.sql
--! Included time/tools/delete.sql
-- The time.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes one of the caller's entries (a running timer is discarded).
create or replace function app_tools.time_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_entry app_public.time_entries;
begin
  perform app_hidden.require_time_tracking();
  perform app_hidden.require_user();
  v_entry := app_hidden.own_time_entry_for_write(args->>'id');
  delete from app_public.time_entries where id = v_entry.id;
  return jsonb_build_object('id', v_entry.id, 'deleted', true);
end
$$;
comment on function app_tools.time_delete(args jsonb) is 'time.delete: Delete one of your time entries (a running timer is discarded). Another person''s entry is 404. Fails with 403 time_tracking_disabled when the workspace has time tracking off.';
grant execute on function app_tools.time_delete(args jsonb) to svc_visitor;
--! EndIncluded time/tools/delete.sql
--! Included time/policies.sql
-- Row-level security policies of the time tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists insert_own_time on app_public.time_entries;
create policy insert_own_time on app_public.time_entries for insert to svc_visitor
  with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id)))));
comment on policy insert_own_time on app_public.time_entries is 'A user logs and starts timers only as themselves.';

drop policy if exists owner_all on app_public.time_entries;
create policy owner_all on app_public.time_entries for all to current_user
  using (true)
  with check (true);
comment on policy owner_all on app_public.time_entries is 'The schema owner (operator) works on every row.';

drop policy if exists select_on_visible_issues on app_public.time_entries;
create policy select_on_visible_issues on app_public.time_entries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id))))));
comment on policy select_on_visible_issues on app_public.time_entries is 'Time logged on issues the caller can see (everyone''s, for summaries).';

drop policy if exists select_own_time on app_public.time_entries;
create policy select_own_time on app_public.time_entries for select to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy select_own_time on app_public.time_entries is 'A user sees their own time entries (so time.running / time.stop find their timer whatever key they use).';

drop policy if exists update_own_time on app_public.time_entries;
create policy update_own_time on app_public.time_entries for update to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy update_own_time on app_public.time_entries is 'A user stops only their own timers.';

drop policy if exists delete_own_time on app_public.time_entries;
create policy delete_own_time on app_public.time_entries for delete to svc_visitor
  using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
comment on policy delete_own_time on app_public.time_entries is 'A user deletes only their own time entries (time.delete).';
--! EndIncluded time/policies.sql
