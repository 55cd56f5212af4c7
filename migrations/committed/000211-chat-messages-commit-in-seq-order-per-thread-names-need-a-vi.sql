--! Previous: sha1:99303d522a7c19717e9c6ee52ab7827c87359035
--! Hash: sha1:25c8bd320880cb8195cf858a9011f39b914053a4
--! Message: Chat messages commit in seq order per thread; names need a visible character and are trimmed of Unicode spaces; slugs transliterated; standup titles escaped; pins positions per key

--! split: 1-current.sql
-- A thread's chat messages commit in seq order (the seq trigger takes a per-thread lock held to commit), so
-- chat.listMessages paging by seq skips none when writers overlap.
--! Included chat/triggers.sql
-- Triggers of the chat tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.chat_threads;
create trigger _100_updated_at before update on app_public.chat_threads for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_chat_messages__seq()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A thread's messages commit in seq order: its writers take turns from here to their commit. chat.listMessages
  -- pages by `seq > cursor`; a message that drew a lower seq but committed after a reader passed it was never
  -- returned (an outside probe: 10 of 240 with four writers). Writers of other threads do not wait.
  perform pg_advisory_xact_lock(hashtextextended('svc.chat_thread:' || new.thread_id::text, 0));
  -- The workspace's own sequence (as its events'), not one for all workspaces: a tenant reads seq.
  new.seq := nextval(app_private.workspace_seq_sequence(new.workspace_id)::regclass);
  return new;
end
$$;
comment on function app_private.tg_chat_messages__seq() is 'BEFORE INSERT on chat_messages: seq from the workspace''s sequence (app_private.workspace_seq_sequence), drawn under a lock on the thread held to commit, so a thread''s messages commit in seq order.';

drop trigger if exists _050_seq on app_public.chat_messages;
create trigger _050_seq before insert on app_public.chat_messages for each row execute function app_private.tg_chat_messages__seq();
--! EndIncluded chat/triggers.sql
-- Names and titles the SQL takes (GraphQL, CLI, chat threads, agents, keys, workspaces, a person's name) are trimmed
-- of every Unicode space and need a visible character; standup.draft escapes the markdown in issue titles; a
-- workspace's slug keeps accented letters' base letters; pins.list counts positions among the pins the key sees.
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

-- What the tools' zod `line()` refuses (src/tools/define.ts, NOT_IN_A_LINE), for the writers GraphQL and the CLI reach
-- without the tools' validation: a name an agent or a person reads must not hide a line break or turn text around.
create or replace function app_hidden.one_line(p_value text, p_field text, p_max integer)
 returns text
 language plpgsql
 immutable
as $$
-- Trimmed of what JavaScript's trim() takes (the tools' zod trims so): every Unicode space, not only ASCII's.
declare v text := regexp_replace(p_value,
  '^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+|[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$', '', 'g');
begin
  if p_value is null then
    return null;
  elsif v = '' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  elsif v !~ '[^\s\u00a0\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2800\u3000\u3164\ufeff\uffa0]' then
    -- Only blanks and invisible characters (zero-width, Hangul fillers, braille blank): a name no one can read.
    perform app_hidden.raise_invalid(p_field, 'must have a visible character');
  elsif length(v) > p_max then
    perform app_hidden.raise_invalid(p_field, format('must be at most %s characters', p_max));
  elsif v ~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]' then
    perform app_hidden.raise_invalid(p_field, 'must be one line of text, without control or direction-override characters');
  end if;
  return v;
end
$$;
comment on function app_hidden.one_line(p_value text, p_field text, p_max integer) is 'A name or title as the tools take it (trimmed of Unicode spaces, 1 to p_max characters, at least one visible character, one line without control or direction-override characters), or a 400 naming the field. NULL stays NULL.';
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
  select regexp_replace(regexp_replace(p_text, '[\r\n]+', ' ', 'g'), '([\\`*_\[\]()<>!|~])', '\\\1', 'g')
$$;
comment on function app_hidden.markdown_literal(p_text text) is 'Text as a markdown literal inside a line: one line, the punctuation markdown acts on there (\ ` * _ [ ] ( ) < > ! | ~) backslash-escaped.';
grant execute on function app_hidden.markdown_literal(p_text text) to svc_visitor;
--! EndIncluded core/util.sql
--! Included workspace/users.sql
-- A person's own profile: the name shown on their work and the zone their "today" is counted in.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.update_user(p_user_id uuid, p_name text, p_timezone text)
 returns app_public.users
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_old app_public.users;
  v_new app_public.users;
  v_name text := app_hidden.one_line(p_name, 'name', 100);
  v_zone text;
  v_changes text[];
  v_workspace uuid;
begin
  -- An IANA zone by its name, any case (stored as the database spells it: what notes.todayJournal reads); `at time
  -- zone` would also take POSIX strings such as 'UTC+3', whose sign is the reverse of what a person means, and
  -- 'Factory' and posix/… are not zones people live in.
  if p_timezone is not null then
    select z.name into v_zone from pg_catalog.pg_timezone_names z
    where lower(z.name) = lower(p_timezone) and z.name <> 'Factory' and z.name !~ '^(posix|right)/'
    order by z.name = p_timezone desc, z.name limit 1;
    if v_zone is null then
      perform app_hidden.raise_invalid('timezone', format('unknown time zone %s: an IANA zone name, such as Europe/Paris or America/New_York', left(p_timezone, 100)));
    end if;
  end if;
  select * into v_old from app_public.users u where u.id = p_user_id for update;
  if v_old.id is null then
    perform app_hidden.raise_not_found('User', 'userId');
  end if;
  update app_public.users u
  set name = coalesce(v_name, u.name), timezone = coalesce(v_zone, u.timezone)
  where u.id = p_user_id
  returning * into v_new;
  v_changes := array_remove(array[case when v_new.name is distinct from v_old.name then 'name' end,
                                  case when v_new.timezone is distinct from v_old.timezone then 'timezone' end], null);
  if cardinality(v_changes) > 0 then
    -- Users are global: every workspace the person belongs to shows their name, so each hears of the change.
    for v_workspace in select m.workspace_id from app_public.memberships m where m.user_id = p_user_id loop
      perform app_private.record_event(v_workspace, 'USER_UPDATED', 'user', p_user_id,
        jsonb_build_object('userId', p_user_id, 'changes', to_jsonb(v_changes), 'name', v_new.name, 'timezone', v_new.timezone));
    end loop;
  end if;
  return v_new;
end
$$;
comment on function app_private.update_user(p_user_id uuid, p_name text, p_timezone text) is 'Sets a person''s name (one line, 1 to 100 characters) and IANA time zone; NULL leaves a field as it is. Writes USER_UPDATED in each of their workspaces when something changed. For viewer_update and `svc admin update-user`.';

create or replace function app_hidden.viewer_update(p_name text, p_timezone text)
 returns app_public.users
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The person's own key only: an agent's or a plugin's key acts in the workspace, not as the person.
  if app_hidden.current_agent_id() is not null or app_hidden.current_user_id() is null
     or app_hidden.current_key_user_id() is distinct from app_hidden.current_user_id() then
    raise exception 'Only the person''s own key (PERSONAL or SESSION) may change their profile' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  -- A read-only key reads (a re-probe renamed its person with one): the profile is the person's record, as
  -- notification preferences are.
  perform app_hidden.require_scope('WRITE_USERS');
  return app_private.update_user(app_hidden.current_user_id(), p_name, p_timezone);
end
$$;
comment on function app_hidden.viewer_update(p_name text, p_timezone text) is 'viewerUpdate: app_private.update_user for the calling key''s own person; 403 person_key_required for an agent''s or a plugin''s key, scope_required without WRITE_USERS.';
grant execute on function app_hidden.viewer_update(p_name text, p_timezone text) to svc_visitor;

create or replace function app_public.viewer_update(name text default null, timezone text default null)
 returns app_public.users
 language sql
as $$ select app_hidden.viewer_update(name, timezone) $$;
comment on function app_public.viewer_update(name text, timezone text) is '@arg name The name shown on your work in every workspace (one line, 1 to 100 characters); omitted: unchanged.
@arg timezone Your IANA time zone, such as Europe/Paris (notes.todayJournal counts "today" in it); omitted: unchanged.
@result You, as changed.
Changes the profile of the person the key belongs to; their own PERSONAL or SESSION key only (403 person_key_required for an agent''s or a plugin''s key), holding WRITE_USERS. Emits USER_UPDATED in each of their workspaces when something changed.';
grant execute on function app_public.viewer_update(name text, timezone text) to svc_visitor;
--! EndIncluded workspace/users.sql
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
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409';
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
--! Included pins/pins.sql
-- pins: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.pins_json()
 returns jsonb
 language sql
 stable
as $$
  -- position counts the pins this key sees (0, 1, …): a pin hidden from a narrowed key, or of a deleted issue, leaves
  -- no gap that says one sits in front.
  select coalesce(jsonb_agg(jsonb_build_object('issueId', v.id, 'position', v.n - 1, 'pinnedAt', v.pinned_at,
                                               'issue', app_hidden.issue_json(v.i))
                            order by v.n), '[]')
  from (select i.id, i, p.created_at as pinned_at, row_number() over (order by p.position, p.created_at, p.id) as n
        from app_public.pins p
        join app_public.issues i on i.id = p.target_id and i.deleted_at is null
        where p.workspace_id = app_hidden.current_workspace_id() and p.user_id = app_hidden.current_user_id()
          and p.target_type = 'ISSUE') v
$$;
comment on function app_hidden.pins_json() is 'The caller''s pinned issues in order (only live issues the key can see), position counted among them.';
grant execute on function app_hidden.pins_json() to svc_visitor;

create or replace function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer default NULL::integer)
 returns app_public.pins
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_user uuid := app_hidden.current_user_id();
  v_pin app_public.pins;
  v_count integer;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if target_id is null then
    perform app_hidden.raise_invalid('targetId', 'required');
  end if;
  -- The target must be visible to the caller (RLS: workspace and narrowing). Saved views have no
  -- table yet, so their ids are taken as given.
  if (target_type = 'PROJECT' and not exists (select 1 from app_public.projects p where p.id = target_id))
     or (target_type = 'INITIATIVE' and not exists (select 1 from app_public.initiatives i where i.id = target_id))
     or (target_type = 'CYCLE' and not exists (select 1 from app_public.cycles c where c.id = target_id))
     or (target_type = 'AGENT' and not exists (select 1 from app_public.agents a where a.id = target_id)) then
    raise exception '% not found', initcap(target_type::text) using errcode = 'SV404', column = 'targetId';
  end if;
  select * into v_pin from app_public.pins p
  where p.workspace_id = v_ws and p.user_id = v_user and p.target_type = pins_add.target_type::text and p.target_id = pins_add.target_id;
  if v_pin.id is not null then
    return v_pin;  -- already pinned
  end if;
  -- Positions stay 0..n-1 (as dispatch rules'): atPosition 0 is first, n (or none) last; later pins move down. Any
  -- other value was stored as given (-3, or 2^31-1, after which appending overflowed the integer).
  v_count := (select count(*) from app_public.pins p where p.workspace_id = v_ws and p.user_id = v_user);
  if at_position is not null and (at_position < 0 or at_position > v_count) then
    perform app_hidden.raise_invalid('atPosition', format('must be 0 to %s', v_count));
  end if;
  if at_position is not null then
    update app_public.pins p set position = p.position + 1
    where p.workspace_id = v_ws and p.user_id = v_user and p.position >= at_position;
  end if;
  insert into app_public.pins (workspace_id, user_id, target_type, target_id, position)
  values (v_ws, v_user, pins_add.target_type::text, pins_add.target_id,
          coalesce(at_position, (select coalesce(max(p.position) + 1, 0) from app_public.pins p
                                       where p.workspace_id = v_ws and p.user_id = v_user)))
  returning * into v_pin;
  return v_pin;
end
$$;
comment on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) is '@arg targetType PROJECT, INITIATIVE, SAVED_VIEW, CYCLE or AGENT (issues are pinned with the MCP pins.* tools).
@arg targetId The id of the record to pin, visible to the key (a saved view''s id is taken as given).
@arg atPosition Where to put it, 0 (first) to the number of your pins; omitted = last.
@result The pin (the existing one when the item was pinned already).
Pins a project, initiative, saved view, cycle or agent for you (idempotent); appended last unless atPosition (0 = first, 0 to the number of pins) is given, later pins moving down.';
grant execute on function app_public.pins_add(target_type app_public.pin_target_type, target_id uuid, at_position integer) to svc_visitor;

create or replace function app_public.pins_agent(p app_public.pins)
 returns app_public.agents
 language sql
 stable
as $$ select x.* from app_public.agents x where p.target_type = 'AGENT' and x.id = p.target_id $$;
comment on function app_public.pins_agent(p app_public.pins) is 'The pinned agent (AGENT pins).';
grant execute on function app_public.pins_agent(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_cycle(p app_public.pins)
 returns app_public.cycles
 language sql
 stable
as $$ select x.* from app_public.cycles x where p.target_type = 'CYCLE' and x.id = p.target_id $$;
comment on function app_public.pins_cycle(p app_public.pins) is 'The pinned cycle (CYCLE pins).';
grant execute on function app_public.pins_cycle(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_initiative(p app_public.pins)
 returns app_public.initiatives
 language sql
 stable
as $$ select x.* from app_public.initiatives x where p.target_type = 'INITIATIVE' and x.id = p.target_id $$;
comment on function app_public.pins_initiative(p app_public.pins) is 'The pinned initiative (INITIATIVE pins).';
grant execute on function app_public.pins_initiative(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_project(p app_public.pins)
 returns app_public.projects
 language sql
 stable
as $$ select x.* from app_public.projects x where p.target_type = 'PROJECT' and x.id = p.target_id $$;
comment on function app_public.pins_project(p app_public.pins) is 'The pinned project (PROJECT pins).';
grant execute on function app_public.pins_project(p app_public.pins) to svc_visitor;

create or replace function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid)
 returns app_public.pins
 language plpgsql
as $$
declare v_pin app_public.pins;
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  delete from app_public.pins p
  where p.target_type = pins_remove.target_type::text and p.target_id = pins_remove.target_id
    and p.user_id = app_hidden.current_user_id()
  returning * into v_pin;
  if v_pin.id is null then
    raise exception 'Pin not found' using errcode = 'SV404', column = 'targetId';
  end if;
  return v_pin;
end
$$;
comment on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) is '@arg targetType The kind of the pinned record.
@arg targetId The id of the pinned record.
@result The removed pin, as it was.
Unpins an item of yours.';
grant execute on function app_public.pins_remove(target_type app_public.pin_target_type, target_id uuid) to svc_visitor;

create or replace function app_public.pins_reorder(pin_ids uuid[])
 returns setof app_public.pins
 language plpgsql
as $$
begin
  perform app_hidden.require_scope('WRITE_ISSUES');
  if pin_ids is null or cardinality(pin_ids) <> (select count(distinct x) from unnest(pin_ids) x)
     or (select count(*) from app_public.pins p where p.id = any(pin_ids)) <> cardinality(pin_ids) then
    perform app_hidden.raise_invalid('pinIds', 'must list pins of yours, each once');
  end if;
  -- The listed pins first, in their order, then the others in theirs, numbered 0..n-1 (the others kept their
  -- numbers, so a partial list put two pins at 0).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by o.n nulls last, q.position, q.created_at, q.id) as n
        from app_public.pins q
        left join unnest(pin_ids) with ordinality as o(id, n) on o.id = q.id
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()) r
  where p.id = r.id and p.position is distinct from r.n - 1;
  return query select * from app_public.pins p where p.id = any(pin_ids) order by p.position;
end
$$;
comment on function app_public.pins_reorder(pin_ids uuid[]) is '@arg pinIds Pins of yours, each once, to put first in this order; the others follow in their present order.
@result The pins listed, in their new order.
Orders your pins: pinIds first, in that order, then the pins not listed in their present order (positions 0..n-1).';
grant execute on function app_public.pins_reorder(pin_ids uuid[]) to svc_visitor;

create or replace function app_hidden.renumber_issue_pins(p_given uuid[])
 returns void
 language sql
 security definer
 set search_path to 'pg_catalog'
as $$
  -- Definer: a narrowed key's pins.set keeps the pins it cannot see, which its RLS hides from it; the caller's own
  -- issue pins become positions 0..n-1 again, the new list's order kept and the others where they stood (a kept pin
  -- before a listed one at the same place).
  update app_public.pins p set position = r.n - 1
  from (select q.id, row_number() over (order by q.position, q.target_id = any(p_given), q.created_at, q.id) as n
        from app_public.pins q
        where q.workspace_id = app_hidden.current_workspace_id() and q.user_id = app_hidden.current_user_id()
          and q.target_type = 'ISSUE') r
  where p.id = r.id and p.position is distinct from r.n - 1
$$;
comment on function app_hidden.renumber_issue_pins(p_given uuid[]) is 'After pins.set: the caller''s issue pins numbered 0..n-1 (those it cannot see included), the listed ones (p_given) in their order, a kept one before a listed one at the same position.';
grant execute on function app_hidden.renumber_issue_pins(p_given uuid[]) to svc_visitor;
--! EndIncluded pins/pins.sql
--! Included standup/tools/draft.sql
-- The standup.draft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- what moved in the last sinceHours among the issues the key can see: done (completed), started (work began,
-- not done), opened (created), blocked (open and blocked by an open issue, whenever). Up to 50 rows per
-- group; counts are the full numbers. Markdown for chat.
create or replace function app_tools.standup_draft(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_hours int := coalesce((args->>'sinceHours')::int, 24);
  v_since timestamptz := now() - make_interval(hours => v_hours);
  v_key text := (select w.key from app_public.workspaces w where w.id = v_ws);
  v_groups jsonb := '{}';
  v_counts jsonb := '{}';
  v_group text;
  v_ids uuid[];
  v_md text;
  v_labels jsonb := '{"done":"Done","started":"Started","opened":"Opened","blocked":"Blocked"}';
begin
  foreach v_group in array array['done', 'started', 'opened', 'blocked'] loop
    select array_agg(i.id order by i.number desc) into v_ids
    from app_public.issues i join app_public.statuses s on s.id = i.status_id
    where i.workspace_id = v_ws and i.deleted_at is null and case v_group
      when 'done' then s.category = 'DONE' and i.completed_at >= v_since
      when 'started' then s.category in ('IN_PROGRESS', 'IN_REVIEW') and i.started_at >= v_since
      when 'opened' then i.created_at >= v_since
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

  v_md := format('**Standup — %s — last %s h**', v_key, v_hours);
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

  return jsonb_build_object('markdown', v_md, 'sinceHours', v_hours, 'since', v_since, 'workspaceKey', v_key,
    'counts', v_counts, 'groups', v_groups);
end
$$;
grant execute on function app_tools.standup_draft(args jsonb) to svc_visitor;
comment on function app_tools.standup_draft(args jsonb) is 'standup.draft: A standup draft for the last sinceHours (default 24, max 168): issues done, started, opened, and currently blocked (by an open issue), as groups of {id, number, key, title} (up to 50 each; counts are the totals) and as markdown that pastes well into chat.';
--! EndIncluded standup/tools/draft.sql
