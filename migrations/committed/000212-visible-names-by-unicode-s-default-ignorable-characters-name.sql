--! Previous: sha1:25c8bd320880cb8195cf858a9011f39b914053a4
--! Hash: sha1:9296c1fa27fb72c9009f3e39562dc491921562fe
--! Message: Visible names by Unicode's default-ignorable characters, names trimmed of invisible ends, status names trimmed alike in filters; standup escapes &; taken keys and the last owner name their field

--! split: 1-current.sql
-- A name's visible character is any outside white space and Unicode's default-ignorable characters (the soft hyphen,
-- variation selectors, tags, … were taken as names); names are trimmed of the invisible characters that mean nothing
-- at their ends (app_hidden.trim_name), and a status named in a filter or a transition is trimmed the same way;
-- standup.draft escapes & too. A workspace key already taken and the last owner's removal or demotion name their field
-- (the CLI then names the flag).
--! Included core/util.sql
-- Small helpers: parsing, time zones, updated_at.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.array_distinct(p_values anyarray)
 returns anyarray
 language sql
 immutable parallel safe
as $$
  select coalesce(array_agg(v order by n), p_values[0:-1])
  from (select v, min(n) as n from unnest(p_values) with ordinality u(v, n) group by v) d
$$;
comment on function app_hidden.array_distinct(p_values anyarray) is 'The array without repeats, each value where it first stood (NULL stays NULL; empty stays empty).';
grant execute on function app_hidden.array_distinct(p_values anyarray) to svc_visitor;

create or replace function app_hidden.parse_uuid(p_value text, p_field text)
 returns uuid
 language plpgsql
 immutable
as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(p_value text, p_field text) is 'UUID from tool input, or a 400 naming the field.';
grant execute on function app_hidden.parse_uuid(p_value text, p_field text) to svc_visitor;

create or replace function app_hidden.trim_name(p_value text)
 returns text
 language sql
 immutable
as $$
  -- White space and the invisible characters that mean nothing at a name's ends (zero-width space, soft hyphen, word
  -- joiner, marks, fillers); not variation selectors, ZWJ or tags, which end emoji. The tools' trimName (text-guard.ts)
  -- trims the same.
  select regexp_replace(p_value,
    '^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2060-\u2064\u3164\ufeff\uffa0]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2060-\u2064\u3164\ufeff\uffa0]+$',
    '', 'g')
$$;
comment on function app_hidden.trim_name(p_value text) is 'A name trimmed of white space and of the invisible characters that mean nothing at its ends (as the tools'' trimName).';
grant execute on function app_hidden.trim_name(p_value text) to svc_visitor;

-- What the tools' zod `line()` refuses (src/tools/define.ts, NOT_IN_A_LINE and VISIBLE), for the writers GraphQL and the
-- CLI reach without the tools' validation: a name an agent or a person reads must not hide a line break or turn text
-- around, and must show something.
create or replace function app_hidden.one_line(p_value text, p_field text, p_max integer)
 returns text
 language plpgsql
 immutable
as $$
declare v text := app_hidden.trim_name(p_value);
begin
  if p_value is null then
    return null;
  elsif v = '' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  -- A visible character: not white space, not default-ignorable (Unicode's list: zero-width characters, soft hyphen,
  -- variation selectors, tags, fillers, …), not the braille blank nor an interlinear annotation mark (VISIBLE).
  elsif v !~ '[^\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]' then
    perform app_hidden.raise_invalid(p_field, 'must have a visible character');
  elsif length(v) > p_max then
    perform app_hidden.raise_invalid(p_field, format('must be at most %s characters', p_max));
  elsif v ~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]' then
    perform app_hidden.raise_invalid(p_field, 'must be one line of text, without control or direction-override characters');
  end if;
  return v;
end
$$;
comment on function app_hidden.one_line(p_value text, p_field text, p_max integer) is 'A name or title as the tools take it (trim_name, 1 to p_max characters, at least one visible character, one line without control or direction-override characters), or a 400 naming the field. NULL stays NULL.';
grant execute on function app_hidden.one_line(p_value text, p_field text, p_max integer) to svc_visitor;

create or replace function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer)
 returns text[]
 language plpgsql
 immutable
as $$
begin
  if p_values is null then
    return null;
  elsif cardinality(p_values) > p_max_items then
    perform app_hidden.raise_invalid(p_field, format('must have at most %s entries', p_max_items));
  elsif array_position(p_values, null) is not null then
    -- one_line keeps a null as null: [null] was stored, and read back where strings were promised.
    perform app_hidden.raise_invalid(p_field || '.' || (array_position(p_values, null) - 1), 'must not be null');
  end if;
  return array(select app_hidden.one_line(v, p_field || '.' || (n - 1), p_max) from unnest(p_values) with ordinality u(v, n) order by n);
end
$$;
comment on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) is 'At most p_max_items entries, none null, each app_hidden.one_line (the 400 names field.<index>). NULL stays NULL.';
grant execute on function app_hidden.one_line_list(p_values text[], p_field text, p_max_items integer, p_max integer) to svc_visitor;

create or replace function app_hidden.tg__set_updated_at()
 returns trigger
 language plpgsql
as $$
begin
  -- Only a change is stamped: an update that writes the values the row had (a claim already running longer, a label
  -- renamed to its name, settings sent back unchanged) moved updatedAt with no event to say why (an event audit).
  -- A write meant as a touch sets updated_at itself, which differs, so it is stamped. The trigger's arguments name
  -- generated columns, which are null in NEW until the row is written (issues' search and priority_rank).
  if (case when tg_nargs = 0 then new is distinct from old
           else (to_jsonb(new) - tg_argv) is distinct from (to_jsonb(old) - tg_argv) end) then
    new.updated_at := now();
  end if;
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at when the row changed (an update that changes nothing leaves it as it was); its arguments name generated columns to leave out of the comparison.';
grant execute on function app_hidden.tg__set_updated_at() to svc_visitor;

create or replace function app_hidden.ts_key(p_ts timestamp with time zone)
 returns text
 language sql
 stable parallel safe
as $$ select to_char(p_ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;
comment on function app_hidden.ts_key(p_ts timestamp with time zone) is 'A timestamp as exact ISO text (microseconds, UTC), for keyset cursors; casts back with ::timestamptz.';
grant execute on function app_hidden.ts_key(p_ts timestamp with time zone) to svc_visitor;

create or replace function app_hidden.user_today(p_timezone text)
 returns date
 language plpgsql
 stable
as $$
declare
  v_tz text := coalesce(p_timezone,
                        (select u.timezone from app_public.users u where u.id = app_hidden.current_user_id()), 'UTC');
begin
  return (now() at time zone v_tz)::date;
exception when invalid_parameter_value then
  raise exception 'unknown time zone %', v_tz using errcode = 'SV400', column = 'timezone';
end
$$;
comment on function app_hidden.user_today(p_timezone text) is 'Today in the given IANA time zone, else the caller''s users.timezone (default UTC); 400 on field timezone for an unknown zone.';
grant execute on function app_hidden.user_today(p_timezone text) to svc_visitor;

create or replace function app_hidden.utc_today()
 returns date
 language sql
 stable parallel safe
as $$ select (now() at time zone 'UTC')::date $$;
comment on function app_hidden.utc_today() is 'Today''s date in UTC (cycle scheduling, time-entry days).';
grant execute on function app_hidden.utc_today() to svc_visitor;

create or replace function app_hidden.uuid_array(p_value jsonb, p_field text)
 returns uuid[]
 language plpgsql
 immutable
as $$
begin
  -- plpgsql: a `language sql` function with a FROM clause is never inlined and was planned again in every
  -- statement that called it (0.15 ms, for every issues.create).
  if p_value is null then
    return '{}';
  end if;
  return (select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
          from jsonb_array_elements_text(p_value) e);
end
$$;
comment on function app_hidden.uuid_array(p_value jsonb, p_field text) is 'uuid[] from a JSON array of strings.';
grant execute on function app_hidden.uuid_array(p_value jsonb, p_field text) to svc_visitor;

create or replace function app_hidden.user_ref_json(p_user_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'email', u.email)
  from app_public.users u where u.id = p_user_id
$$;
comment on function app_hidden.user_ref_json(p_user_id uuid) is 'A user as {id, name (email when unnamed), email}; NULL for no user.';
grant execute on function app_hidden.user_ref_json(p_user_id uuid) to svc_visitor;

create or replace function app_hidden.markdown_literal(p_text text)
 returns text
 language sql
 immutable
as $$
  -- One line, the markdown punctuation that acts inside a line escaped: an issue title pasted into chat as part of a
  -- draft reads as written ('**bold** [link](https://…)' became bold text and a live link).
  select regexp_replace(regexp_replace(p_text, '[\r\n]+', ' ', 'g'), '([\\`*_\[\]()<>!|~&])', '\\\1', 'g')
$$;
comment on function app_hidden.markdown_literal(p_text text) is 'Text as a markdown literal inside a line: one line, the punctuation markdown acts on there (\ ` * _ [ ] ( ) < > ! | ~ &) backslash-escaped.';
grant execute on function app_hidden.markdown_literal(p_text text) to svc_visitor;
--! EndIncluded core/util.sql
--! Included statuses/statuses.sql
-- statuses: helper functions of the workflow tools (statuses.get/create/update/delete/reorder).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.find_status(p_id text, p_field text default 'id'::text)
 returns app_public.statuses
 language plpgsql
 stable
as $$
begin
  return app_hidden.found(
    (select s from app_public.statuses s
     where s.id = app_hidden.parse_uuid(p_id, p_field) and s.workspace_id = app_hidden.current_workspace_id()), 'Status', p_field);
end
$$;
comment on function app_hidden.find_status(p_id text, p_field text) is 'A status of the caller''s workspace by id, else 404 naming the field.';
grant execute on function app_hidden.find_status(p_id text, p_field text) to svc_visitor;

create or replace function app_hidden.status_categories()
 returns text[]
 language sql
 immutable parallel safe
as $$ select array['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED'] $$;
comment on function app_hidden.status_categories() is 'The status categories in workflow order (statuses_category_check allows these): one list for what reads or names them.';
grant execute on function app_hidden.status_categories() to svc_visitor;

create or replace function app_hidden.statuses_named(p_words text, out ids uuid[], out by_category boolean)
 returns record
 language plpgsql
 stable
as $$
declare
  c_categories constant text[] := app_hidden.status_categories();
  v_category text := upper(regexp_replace(app_hidden.trim_name(p_words), '[\s-]+', '_', 'g'));
begin
  -- A category spelled as the API spells it (IN_PROGRESS, DONE) is the category, whatever a status is named; else a
  -- name (case-insensitive: "in progress" is the status In Progress), then a category however written (in_progress,
  -- "In-Review"): every status of it, in workflow order. Nothing: an empty array. issues.list and issues.transition
  -- read the same words the same way (they once differed for a status named like a category).
  by_category := p_words = any(c_categories);
  if not by_category then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and lower(s.name) = lower(app_hidden.trim_name(p_words)));
  end if;
  if by_category or (cardinality(ids) = 0 and v_category = any(c_categories)) then
    ids := array(select s.id from app_public.statuses s
                 where s.workspace_id = app_hidden.current_workspace_id() and s.category = v_category
                 order by s.position, s.id);
    by_category := true;
  end if;
end
$$;
comment on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) is 'The statuses a person or agent means by words: a category spelled as the API spells it (DONE) is the category; else the status of that name (case-insensitive), else every status of that category however written (in_progress, In-Review); categories in workflow order; by_category says which. Empty when neither (or a category no status has).';
grant execute on function app_hidden.statuses_named(p_words text, OUT ids uuid[], OUT by_category boolean) to svc_visitor;

create or replace function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text default 'SV400')
 returns void
 language plpgsql
 stable
as $$
begin
  -- What to send instead, in the refusal: an agent on the runtime profile has no statuses.list to look it up with.
  raise exception 'No status named %: this workspace''s statuses are %; or a category: %',
    p_words, (select string_agg(s.name, ', ' order by s.position, s.id) from app_public.statuses s
              where s.workspace_id = app_hidden.current_workspace_id()),
    array_to_string(app_hidden.status_categories(), ', ')
    using errcode = p_code, column = p_field;
end
$$;
comment on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) is 'Raises p_code (400 by default) naming p_field: no status of that name or category, listing the workspace''s status names and the categories.';
grant execute on function app_hidden.raise_no_status_named(p_words text, p_field text, p_code text) to svc_visitor;

create or replace function app_hidden.raise_status_name_taken(p_name text)
 returns void
 language plpgsql
as $$
begin
  raise exception 'A status named "%" already exists', p_name using errcode = 'SV409', detail = 'status_exists', column = 'name';
end
$$;
comment on function app_hidden.raise_status_name_taken(p_name text) is 'Raises 409 status_exists (status names are unique per workspace, case-insensitively).';
grant execute on function app_hidden.raise_status_name_taken(p_name text) to svc_visitor;

create or replace function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb default '{}'::jsonb)
 returns uuid
 language sql
as $$
  select app_hidden.record_event(p_kind, 'status', s.id, jsonb_build_object('statusId', s.id, 'name', s.name,
    'category', s.category, 'color', s.color, 'position', s.position, 'isDefault', s.is_default) || p_extra)
$$;
comment on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) is 'STATUS_CREATED/UPDATED/DELETED about a status: its fields (as they are now) plus p_extra (changes, previous, movedIssues...).';
grant execute on function app_hidden.record_status_event(p_kind text, s app_public.statuses, p_extra jsonb) to svc_visitor;

create or replace function app_hidden.require_other_done_status(s app_public.statuses)
 returns void
 language plpgsql
 stable
as $$
begin
  -- Issues are finished by moving them to a DONE status (analytics, cycles, standups count those): keep one.
  if s.category = 'DONE' and not exists (select 1 from app_public.statuses o
                                         where o.workspace_id = s.workspace_id and o.category = 'DONE' and o.id <> s.id) then
    raise exception 'This is the workspace''s last DONE status; the workflow needs one to finish issues (create another first)'
      using errcode = 'SV409', detail = 'last_done_status';
  end if;
end
$$;
comment on function app_hidden.require_other_done_status(s app_public.statuses) is 'Raises 409 last_done_status when s is the only DONE status of its workspace (it may not be deleted or leave DONE).';
grant execute on function app_hidden.require_other_done_status(s app_public.statuses) to svc_visitor;

create or replace function app_hidden.require_workflow_admin()
 returns uuid
 language plpgsql
as $$
declare v_ws uuid := app_hidden.current_workspace_id();
begin
  -- The statuses are every member's board, and deleting one moves issues a narrowed key cannot see.
  perform app_hidden.require_unnarrowed_admin('The workflow''s statuses belong to the whole workspace');
  -- One workflow change at a time per workspace: the checks (last DONE status, the default, names) read the whole
  -- set. An advisory lock, not row locks on every status: those would block every issue write of the workspace
  -- (its foreign key takes KEY SHARE on a status) and deadlock against an issue moving while a status is deleted.
  perform pg_advisory_xact_lock(hashtextextended('svc.statuses:' || v_ws::text, 0));
  return v_ws;
end
$$;
comment on function app_hidden.require_workflow_admin() is 'Every statuses.* write starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), a key without narrowing (403 narrowing); serialises the workspace''s status writes for the transaction (advisory lock). Returns the workspace id.';
grant execute on function app_hidden.require_workflow_admin() to svc_visitor;
--! EndIncluded statuses/statuses.sql
--! Included workspace/workspace.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.workspace_json(w app_public.workspaces)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', w.id, 'slug', w.slug, 'key', w.key, 'name', w.name,
    'cycleLengthDays', w.cycle_length_days, 'cycleCooldownDays', w.cycle_cooldown_days,
    'timeTrackingEnabled', w.time_tracking_enabled, 'attachmentQuotaMb', w.attachment_quota_mb,
    'requiredAckSeconds', w.required_ack_seconds, 'autoDispatch', w.auto_dispatch,
    'autoDispatchMode', w.auto_dispatch_mode, 'assignmentSlaMinutes', w.assignment_sla_minutes,
    'agentRunStaleMinutes', w.agent_run_stale_minutes)
$$;
comment on function app_hidden.workspace_json(w app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';
grant execute on function app_hidden.workspace_json(w app_public.workspaces) to svc_visitor;

create or replace function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  -- As workspace.updateSettings over MCP: settings rule the whole workspace (GraphQL let a narrowed key set them).
  perform app_hidden.require_unnarrowed_admin('Workspace settings apply to the whole workspace');
  return app_private.update_workspace_settings(v_caller.workspace_id, p_name, p_cycle_length_days, p_cycle_cooldown_days,
    p_time_tracking_enabled, p_attachment_quota_mb, p_required_ack_seconds, p_auto_dispatch, p_auto_dispatch_mode,
    p_assignment_sla_minutes, p_agent_run_stale_minutes);
end
$$;
comment on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'OWNER/ADMIN: app_private.update_workspace_settings on the caller''s workspace.';
grant execute on function app_hidden.workspace_update_settings(p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) to svc_visitor;

create or replace function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  -- Letters with accents keep their base letter ('Équipe Café' is equipe-cafe, not quipe-caf): the name decomposed
  -- (NFKD), its combining marks dropped, and the few letters that do not decompose spelled out.
  v_slug text := trim(both '-' from regexp_replace(
    replace(replace(replace(replace(translate(
      regexp_replace(normalize(lower(p_name), NFKD), '[\u0300-\u036f]', '', 'g'),
      'øłđħı', 'oldhi'), 'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'þ', 'th'),
    '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409', column = 'key';
  end if;
  if v_slug = '' then v_slug := lower(p_key); end if;
  v_slug := left(v_slug, 50);
  if exists (select 1 from app_public.workspaces where slug = v_slug) then
    v_slug := v_slug || '-' || lower(p_key);
  end if;
  insert into app_public.workspaces (name, key, slug) values (p_name, p_key, v_slug) returning * into v_ws;
  v_user := app_private.ensure_user(p_owner_email);
  insert into app_public.memberships (workspace_id, user_id, role) values (v_ws.id, v_user.id, 'OWNER');
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'owner', jsonb_build_object('id', v_user.id, 'email', v_user.email));
end
$$;
comment on function app_private.create_workspace(p_name text, p_key text, p_owner_email text) is 'Creates a workspace (statuses seeded by trigger) and makes the owner email its OWNER. The operator CLI then issues the owner''s key.';

create or replace function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer)
 returns app_public.workspaces
 language plpgsql
as $$
declare v_ws app_public.workspaces;
begin
  update app_public.workspaces w set
    name = coalesce(app_hidden.one_line(p_name, 'name', 200), w.name),
    cycle_length_days = coalesce(p_cycle_length_days, w.cycle_length_days),
    cycle_cooldown_days = coalesce(p_cycle_cooldown_days, w.cycle_cooldown_days),
    time_tracking_enabled = coalesce(p_time_tracking_enabled, w.time_tracking_enabled),
    attachment_quota_mb = coalesce(p_attachment_quota_mb, w.attachment_quota_mb),
    required_ack_seconds = coalesce(p_required_ack_seconds, w.required_ack_seconds),
    auto_dispatch = coalesce(p_auto_dispatch, w.auto_dispatch),
    auto_dispatch_mode = coalesce(p_auto_dispatch_mode, w.auto_dispatch_mode),
    assignment_sla_minutes = coalesce(p_assignment_sla_minutes, w.assignment_sla_minutes),
    agent_run_stale_minutes = coalesce(p_agent_run_stale_minutes, w.agent_run_stale_minutes)
  where w.id = p_workspace_id
  returning * into v_ws;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.update_workspace_settings(p_workspace_id uuid, p_name text, p_cycle_length_days integer, p_cycle_cooldown_days integer, p_time_tracking_enabled boolean, p_attachment_quota_mb integer, p_required_ack_seconds integer, p_auto_dispatch boolean, p_auto_dispatch_mode text, p_assignment_sla_minutes integer, p_agent_run_stale_minutes integer) is 'Changes the given workspace settings (NULL = unchanged); the table''s check constraints validate them.';

create or replace function app_private.workspace_by_key(p_key text)
 returns app_public.workspaces
 language plpgsql
 stable
as $$
declare v_ws app_public.workspaces;
begin
  -- One value may be one workspace's key and another's slug (key ACME, and the slug acme of workspace ENG named
  -- Acme), or a slug spelled as another's id: an id wins, then a key, then a slug. The first row found decided, so
  -- `--workspace ACME` acted on ENG, and which one changed as rows were updated.
  select * into v_ws from app_public.workspaces
  where key = upper(p_key) or slug = lower(p_key) or id::text = lower(p_key)
  order by id::text = lower(p_key) desc, key = upper(p_key) desc
  limit 1;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(p_key text) is 'Workspace by id, key or slug (operator CLI), in that order of preference when one value names several.';

create or replace function app_public.current_workspace()
 returns app_public.workspaces
 language sql
 stable
as $$
  select w.* from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_public.current_workspace() is 'The workspace of the key making this request, with its settings.';
grant execute on function app_public.current_workspace() to svc_visitor;

create or replace function app_public.workspace_update_settings(name text default NULL::text, cycle_length_days integer default NULL::integer, cycle_cooldown_days integer default NULL::integer, time_tracking_enabled boolean default NULL::boolean, attachment_quota_mb integer default NULL::integer, required_ack_seconds integer default NULL::integer, auto_dispatch boolean default NULL::boolean, auto_dispatch_mode text default NULL::text, assignment_sla_minutes integer default NULL::integer, agent_run_stale_minutes integer default NULL::integer)
 returns app_public.workspaces
 language sql
as $$
  select app_hidden.workspace_update_settings(name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled,
    attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes,
    agent_run_stale_minutes)
$$;
comment on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) is '@arg name New display name, one line of 1 to 200 characters; omitted = unchanged.
@arg cycleLengthDays Default length of new cycles in days, 1 to 365; omitted = unchanged.
@arg cycleCooldownDays Days left free between cycles, 0 to 365; omitted = unchanged.
@arg timeTrackingEnabled Whether the time.* tools work; omitted = unchanged.
@arg attachmentQuotaMb Attachment storage in MB, 0 or more; omitted = unchanged.
@arg requiredAckSeconds Seconds an assigned agent has to answer (a comment, a status move or a run report) before AGENT_NOACK fires, 0 = off; omitted = unchanged.
@arg autoDispatch Whether the dispatcher hands queued issues to agents; omitted = unchanged.
@arg autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; omitted = unchanged.
@arg assignmentSlaMinutes Minutes an assigned open issue may go without activity before ISSUE_STALLED fires, 0 = off; omitted = unchanged.
@arg agentRunStaleMinutes Minutes without a sign of life before a run is STALLED and an agent OFFLINE, at least 1; omitted = unchanged.
@result The workspace with its settings as changed.
OWNER/ADMIN: changes the settings given (omitted = unchanged). autoDispatchMode ROUND_ROBIN, PRIORITY_MATCH, CAPABILITY_MATCH or MANUAL_ONLY; requiredAckSeconds and assignmentSlaMinutes 0 = off.';
grant execute on function app_public.workspace_update_settings(name text, cycle_length_days integer, cycle_cooldown_days integer, time_tracking_enabled boolean, attachment_quota_mb integer, required_ack_seconds integer, auto_dispatch boolean, auto_dispatch_mode text, assignment_sla_minutes integer, agent_run_stale_minutes integer) to svc_visitor;
--! EndIncluded workspace/workspace.sql
--! Included workspace/members.sql
-- workspace: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.members_add(p_email text, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_caller app_private.caller := app_private.begin_membership_change(null, p_role);
  v_result jsonb;
begin
  -- Decided after the lock: two adds of one new email both answered 200, the second changing the first's role unchecked.
  if exists (select 1 from app_public.memberships m join app_public.users u on u.id = m.user_id
             where m.workspace_id = v_caller.workspace_id and lower(u.email) = lower(p_email)) then
    raise exception '% is already a member (change the role with membersSetRole)', p_email
      using errcode = 'SV409', detail = 'already_member';
  end if;
  v_result := app_private.add_member(v_caller.workspace_id, p_email, p_role);
  return app_private.find_membership(v_caller.workspace_id, (v_result->'user'->>'id')::uuid);
end
$$;
comment on function app_hidden.members_add(p_email text, p_role text) is 'OWNER/ADMIN: app_private.add_member (the `svc admin add-member` function) for a new member; 409 already_member otherwise.';
grant execute on function app_hidden.members_add(p_email text, p_role text) to svc_visitor;

create or replace function app_hidden.members_remove(p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, null);
begin
  return app_private.remove_member(v_caller.workspace_id, p_user_id);
end
$$;
comment on function app_hidden.members_remove(p_user_id uuid) is 'OWNER/ADMIN: app_private.remove_member in the caller''s workspace.';
grant execute on function app_hidden.members_remove(p_user_id uuid) to svc_visitor;

create or replace function app_hidden.members_set_role(p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.begin_membership_change(p_user_id, p_role);
begin
  return app_private.set_member_role(v_caller.workspace_id, p_user_id, p_role);
end
$$;
comment on function app_hidden.members_set_role(p_user_id uuid, p_role text) is 'OWNER/ADMIN: app_private.set_member_role in the caller''s workspace.';
grant execute on function app_hidden.members_set_role(p_user_id uuid, p_role text) to svc_visitor;

create or replace function app_private.add_member(p_workspace_id uuid, p_email text, p_role text)
 returns jsonb
 language plpgsql
as $$
declare
  v_user app_public.users := app_private.ensure_user(p_email);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  insert into app_public.memberships (workspace_id, user_id, role) values (p_workspace_id, v_user.id, p_role)
  on conflict (workspace_id, user_id) do nothing;
  if not found then
    -- Already a member: a role change, with set_member_role's guard (the last OWNER is not demoted).
    perform app_private.set_member_role(p_workspace_id, v_user.id, p_role);
  end if;
  delete from app_public.former_members where workspace_id = p_workspace_id and user_id = v_user.id;
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member through set_member_role (the last OWNER is not demoted: 409 last_owner).';

create or replace function app_private.begin_membership_change(p_user_id uuid, p_new_role text)
 returns app_private.caller
 language plpgsql
as $$
declare
  v_caller app_private.caller;
  v_old_role text;
begin
  -- Membership changes of a workspace take turns (lock_owners), and the caller's right is judged after the lock on
  -- the member's role as it is now: an ADMIN removed an OWNER promoted a moment before, having read the role before
  -- the promotion committed.
  perform app_private.lock_owners(app_hidden.current_workspace_id());
  v_caller := app_private.current_caller();
  perform app_private.require_admin(v_caller);
  -- Members see the whole workspace: a key narrowed to some projects may not add, remove or re-role them.
  perform app_hidden.require_unnarrowed('Members belong to the whole workspace');
  if p_user_id is not null then
    v_old_role := (app_private.find_membership(v_caller.workspace_id, p_user_id)).role;
  end if;
  if (v_old_role = 'OWNER' or p_new_role = 'OWNER') and v_caller.role <> 'OWNER' then
    raise exception 'Only an OWNER may grant, change or remove the OWNER role' using errcode = 'SV403', detail = 'owner_required';
  end if;
  return v_caller;
end
$$;
comment on function app_private.begin_membership_change(p_user_id uuid, p_new_role text) is 'The prologue of members_add/remove/set_role: takes the workspace''s turn for membership changes (lock_owners), then checks the caller may make this one (OWNER/ADMIN with an unnarrowed key, 403 narrowing; only an OWNER touches the OWNER role, 403 owner_required; 404 userId for a user who is not a member). Returns the caller.';

create or replace function app_private.ensure_user(p_email text)
 returns app_public.users
 language plpgsql
as $$
declare v_user app_public.users;
begin
  if p_email !~ '^[^@\s]+@[^@\s]+$' then
    perform app_hidden.raise_invalid('email', 'not an email address');
  end if;
  select * into v_user from app_public.users where lower(email) = lower(p_email);
  if v_user.id is null then
    -- Two workspaces adding the same new person at once: the second insert waits for the first and does nothing,
    -- and the next statement reads the row it made (a unique violation was a 409 to one of them).
    insert into app_public.users (email, name) values (p_email, split_part(p_email, '@', 1))
    on conflict do nothing returning * into v_user;
    if v_user.id is null then
      select * into v_user from app_public.users where lower(email) = lower(p_email);
    end if;
  end if;
  return v_user;
end
$$;
-- Users are people across workspaces: when one signed up is not a workspace's to read (an admin adding an email
-- learned whether, and since when, it had an account elsewhere).
comment on column app_public.users.created_at is E'@behavior -*\nWhen the person first joined any workspace (not in GraphQL: it would tell one workspace about others).';

comment on function app_private.ensure_user(p_email text) is 'The user with this email (case-insensitive), created if new.';

create or replace function app_private.find_membership(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
 stable
as $$
declare v_m app_public.memberships;
begin
  select * into v_m from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id;
  if v_m.id is null then
    raise exception 'Member not found' using errcode = 'SV404', column = 'userId';
  end if;
  return v_m;
end
$$;
comment on function app_private.find_membership(p_workspace_id uuid, p_user_id uuid) is 'The membership of this user in this workspace, else 404.';

create or replace function app_private.lock_owners(p_workspace_id uuid)
 returns void
 language plpgsql
as $$
begin
  -- Two owners demoting or removing each other at once each saw the other still OWNER and both passed the
  -- last-OWNER check. Locked first, the second change waits for the first and then reads what it left.
  perform from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' order by id for update;
end
$$;
comment on function app_private.lock_owners(p_workspace_id uuid) is 'Locks the workspace''s OWNER memberships for the transaction (a workspace always has one): membership changes (members_add/remove/set_role, remove_member, set_member_role) run one after the other, each deciding on what the one before left.';

create or replace function app_private.remove_member(p_workspace_id uuid, p_user_id uuid)
 returns app_public.memberships
 language plpgsql
as $$
declare
  v_m app_public.memberships;
  v_req app_public.action_requests;
begin
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be removed' using errcode = 'SV409', detail = 'last_owner', column = 'userId';
  end if;
  -- The membership goes first: its delete waits for their claims, timers, watches and keys being written (they hold it
  -- in share mode: hold_membership), and each statement below then sees what those wrote.
  delete from app_public.memberships where id = v_m.id;
  -- A former member's keys for this workspace stop working at once, and so do the plugin keys they issued (those act
  -- for no user, and nothing else would end them).
  update app_private.api_keys set revoked_at = now()
  where workspace_id = p_workspace_id and (user_id = p_user_id or issued_by_user_id = p_user_id) and revoked_at is null;
  -- What only they could end ends with them: their claims (released, ISSUE_UPDATED each; others waited for them to
  -- expire and could not release them), their running timer (stopped, as time.stop; time entries write no event) and
  -- their watches. Requests assigned to them go back to no one (ISSUE_UPDATED each, as actionRequests.update), where
  -- a moderator can re-point them: a request could not be assigned to a non-member.
  update app_public.issues set claimed_by_id = null, claim_expires_at = null
  where workspace_id = p_workspace_id and claimed_by_id = p_user_id;
  perform app_private.stop_running_timers(p_workspace_id, p_user_id => p_user_id);
  delete from app_public.issue_watchers where workspace_id = p_workspace_id and user_id = p_user_id;
  for v_req in update app_public.action_requests set assigned_user_id = null
               where workspace_id = p_workspace_id and assigned_user_id = p_user_id returning * loop
    perform app_private.record_event(p_workspace_id, 'ISSUE_UPDATED', 'action-request', v_req.id, jsonb_build_object(
      'actionRequestId', v_req.id, 'issueId', v_req.issue_id, 'change', 'updated', 'changes', jsonb_build_array('assignedUserId'),
      'assignedUserId', null, 'assignedAgentId', v_req.assigned_agent_id, 'reason', 'member_removed'));
  end loop;
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace (the plugin keys they issued too), releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

create or replace function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text)
 returns app_public.memberships
 language plpgsql
as $$
declare v_m app_public.memberships;
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  perform app_private.lock_owners(p_workspace_id);
  v_m := app_private.find_membership(p_workspace_id, p_user_id);
  if v_m.role = 'OWNER' and p_role <> 'OWNER' and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and role = 'OWNER' and user_id <> p_user_id) then
    raise exception 'The last OWNER cannot be demoted' using errcode = 'SV409', detail = 'last_owner', column = 'role';
  end if;
  update app_public.memberships set role = p_role where id = v_m.id returning * into v_m;
  return v_m;
end
$$;
comment on function app_private.set_member_role(p_workspace_id uuid, p_user_id uuid, p_role text) is 'Changes a member''s role (MEMBERSHIP_ROLE_CHANGED by trigger when it changes); the last OWNER cannot be demoted (409 last_owner).';

create or replace function app_public.members_add(email text, role app_public.membership_role default 'MEMBER'::app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_add(email, role::text) $$;
comment on function app_public.members_add(email text, role app_public.membership_role) is '@arg email The person''s email address; the user is created if new (no invitation is sent).
@arg role OWNER, ADMIN or MEMBER (default); only an OWNER may add an OWNER.
@result The new membership.
OWNER/ADMIN: adds a person by email (the user is created if new; no invite email). Only an OWNER may add an OWNER. Emits MEMBERSHIP_CREATED.';
grant execute on function app_public.members_add(email text, role app_public.membership_role) to svc_visitor;

create or replace function app_public.members_remove(user_id uuid)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_remove(user_id) $$;
comment on function app_public.members_remove(user_id uuid) is '@arg userId The member to remove.
@result The removed membership, as it was.
OWNER/ADMIN: removes a member and revokes their keys in this workspace. Only an OWNER may remove an OWNER; the last OWNER stays. Emits MEMBERSHIP_REMOVED.';
grant execute on function app_public.members_remove(user_id uuid) to svc_visitor;

create or replace function app_public.members_set_role(user_id uuid, role app_public.membership_role)
 returns app_public.memberships
 language sql
as $$ select app_hidden.members_set_role(user_id, role::text) $$;
comment on function app_public.members_set_role(user_id uuid, role app_public.membership_role) is '@arg userId The member.
@arg role The new role; only an OWNER may grant or take away OWNER, and the last OWNER stays one.
@result The membership with its new role.
OWNER/ADMIN: changes a member''s role. Only an OWNER may grant or take away OWNER; the last OWNER stays. Emits MEMBERSHIP_ROLE_CHANGED.';
grant execute on function app_public.members_set_role(user_id uuid, role app_public.membership_role) to svc_visitor;

create or replace function app_public.viewer()
 returns app_public.users
 language sql
 stable
as $$
  select u.* from app_public.users u where u.id = app_hidden.current_user_id()
$$;
comment on function app_public.viewer() is 'The person the key making this request acts as (for a plugin key: the first member).';
grant execute on function app_public.viewer() to svc_visitor;

create or replace function app_public.viewer_role()
 returns app_public.membership_role
 language sql
 stable
as $$ select app_hidden.caller_role()::app_public.membership_role $$;
comment on function app_public.viewer_role() is 'Role of the key''s own user in this workspace (null for plugin keys). OWNER and ADMIN may use the administrative mutations.';
grant execute on function app_public.viewer_role() to svc_visitor;

create or replace function app_public.viewer_scopes()
 returns text[]
 language sql
 stable
as $$ select app_hidden.current_scopes() $$;
comment on function app_public.viewer_scopes() is 'Scopes of the key making this request (FULL holds every scope): a client shows only the controls the key may use.';
grant execute on function app_public.viewer_scopes() to svc_visitor;

create or replace function app_public.viewer_project_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_project_ids() $$;
comment on function app_public.viewer_project_ids() is 'Projects the key making this request is narrowed to (empty: not narrowed by project): a client files new issues where the key may (an issue outside them is refused).';
grant execute on function app_public.viewer_project_ids() to svc_visitor;

create or replace function app_public.viewer_label_ids()
 returns uuid[]
 language sql
 stable
as $$ select app_hidden.narrowed_label_ids() $$;
comment on function app_public.viewer_label_ids() is 'Labels the key making this request is narrowed to (empty: not narrowed by label): a client files new issues where the key may.';
grant execute on function app_public.viewer_label_ids() to svc_visitor;

create or replace function app_hidden.current_key_kind()
 returns text
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$ select k.kind from app_private.api_keys k where k.id = app_hidden.current_key_id() $$;
comment on function app_hidden.current_key_kind() is 'Kind of the calling key (AGENT, PERSONAL, SESSION, PLUGIN), read as the owner (keys are private).';
grant execute on function app_hidden.current_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_kind()
 returns text
 language sql
 stable
as $$ select app_hidden.current_key_kind() $$;
comment on function app_public.viewer_key_kind() is 'Kind of the key making this request (AGENT, PERSONAL, SESSION, PLUGIN): the web board refuses agent keys, which would act as the agent.';
grant execute on function app_public.viewer_key_kind() to svc_visitor;

create or replace function app_public.viewer_key_id()
 returns uuid
 language sql
 stable
as $$ select app_hidden.current_key_id() $$;
comment on function app_public.viewer_key_id() is 'Id of the key making this request: the web board signs out by revoking it (accessRevoke) when it is a SESSION key.';
grant execute on function app_public.viewer_key_id() to svc_visitor;
--! EndIncluded workspace/members.sql
