--! Previous: sha1:3d14cb946738658bc056ca2731a230518eb9c912
--! Hash: sha1:946b17ad47f215557a3e8c1945907566a3d7dc96
--! Message: standup.draft for one day in a time zone

--! split: 1-current.sql
-- standup.draft for one day in a time zone (day, timezone: default the person's), beside sinceHours: a lead in Tokyo
-- could not ask for "yesterday" (a reports probe).
--! Included standup/tools/draft.sql
-- The standup.draft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- what moved in the last sinceHours (or on one day in a time zone) among the issues the key can see: done (completed), started (work began,
-- not done), opened (created), blocked (open and blocked by an open issue, whenever). Up to 50 rows per
-- group; counts are the full numbers. Markdown for chat.
create or replace function app_tools.standup_draft(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_day date := (args->>'day')::date;
  v_tz text;
  v_hours int := case when args->>'day' is null then coalesce((args->>'sinceHours')::int, 24) end;
  v_since timestamptz := now() - make_interval(hours => coalesce(v_hours, 0));
  v_until timestamptz;
  v_key text := (select w.key from app_public.workspaces w where w.id = v_ws);
  v_groups jsonb := '{}';
  v_counts jsonb := '{}';
  v_group text;
  v_ids uuid[];
  v_md text;
  v_labels jsonb := '{"done":"Done","started":"Started","opened":"Opened","blocked":"Blocked"}';
begin
  -- One day in a zone (a person's "yesterday" in Tokyo is not UTC's), from its midnight to the next.
  if v_day is not null then
    if args->>'sinceHours' is not null then
      perform app_hidden.raise_invalid('day', 'give day or sinceHours, not both');
    end if;
    v_tz := coalesce(args->>'timezone', (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
    v_since := v_day::timestamp at time zone v_tz;
    v_until := (v_day + 1)::timestamp at time zone v_tz;
  elsif args->>'timezone' is not null then
    perform app_hidden.raise_invalid('timezone', 'a time zone goes with day');
  end if;
  foreach v_group in array array['done', 'started', 'opened', 'blocked'] loop
    select array_agg(i.id order by i.number desc) into v_ids
    from app_public.issues i join app_public.statuses s on s.id = i.status_id
    where i.workspace_id = v_ws and i.deleted_at is null and case v_group
      when 'done' then s.category = 'DONE' and i.completed_at >= v_since and (v_until is null or i.completed_at < v_until)
      when 'started' then s.category in ('IN_PROGRESS', 'IN_REVIEW') and i.started_at >= v_since and (v_until is null or i.started_at < v_until)
      when 'opened' then i.created_at >= v_since and (v_until is null or i.created_at < v_until)
      else s.category not in ('DONE', 'CANCELED') and exists (
        select 1 from app_public.issue_relations r
        join app_public.issues b on b.id = r.from_issue_id and b.deleted_at is null
        join app_public.statuses bs on bs.id = b.status_id and bs.category not in ('DONE', 'CANCELED')
        where r.workspace_id = v_ws and r.kind = 'BLOCKS' and r.to_issue_id = i.id)
    end;
    v_counts := v_counts || jsonb_build_object(v_group, coalesce(cardinality(v_ids), 0));
    v_groups := v_groups || jsonb_build_object(v_group, coalesce((
      select jsonb_agg(jsonb_build_object('id', i.id, 'number', i.number, 'key', i.key, 'title', i.title) order by i.number desc)
      from app_public.issues i where i.id = any(v_ids[1:50])), '[]'));
  end loop;

  v_md := case when v_day is null then format('**Standup — %s — last %s h**', v_key, v_hours)
               else format('**Standup — %s — %s (%s)**', v_key, v_day, v_tz) end;
  foreach v_group in array array['done', 'started', 'opened', 'blocked'] loop
    v_md := v_md || E'\n\n' || format('*%s (%s)*', v_labels->>v_group, v_counts->>v_group);
    if jsonb_array_length(v_groups->v_group) = 0 then
      v_md := v_md || E'\n_nothing_';
    else
      v_md := v_md || coalesce((select string_agg(E'\n• `' || (r->>'key') || '` ' || app_hidden.markdown_literal(r->>'title'), '')
                                from jsonb_array_elements(v_groups->v_group) r), '');
      if (v_counts->>v_group)::int > 50 then
        v_md := v_md || E'\n• …and ' || ((v_counts->>v_group)::int - 50) || ' more';
      end if;
    end if;
  end loop;

  return jsonb_build_object('markdown', v_md, 'sinceHours', v_hours, 'since', v_since, 'until', v_until,
    'day', v_day, 'timezone', v_tz, 'workspaceKey', v_key,
    'counts', v_counts, 'groups', v_groups);
end
$$;
grant execute on function app_tools.standup_draft(args jsonb) to svc_visitor;
comment on function app_tools.standup_draft(args jsonb) is 'standup.draft: A standup draft for the last sinceHours (default 24, max 168), or for one day (YYYY-MM-DD) in a time zone (default the person''s, else UTC): issues done, started, opened, and currently blocked (by an open issue), as groups of {id, number, key, title} (up to 50 each; counts are the totals) and as markdown that pastes well into chat.';
--! EndIncluded standup/tools/draft.sql
