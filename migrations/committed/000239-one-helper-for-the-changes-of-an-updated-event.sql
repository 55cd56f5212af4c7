--! Previous: sha1:60168921a40b5894e08a280aa292565855db00d4
--! Hash: sha1:29a7154113647ba19d9747c7137528a941b170f4
--! Message: One helper for the changes of an UPDATED event

--! split: 1-current.sql
-- One helper for the changes of an *_UPDATED event (app_hidden.changed_fields): the triggers of agents, plugins,
-- cycles, dispatch rules, initiatives, labels, projects, goals, crews and repository mappings each wrote a line per
-- field. Behaviour unchanged: the same names, in the same order.
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
  -- White space and Unicode's default-ignorable characters (zero-width ones, soft hyphen, word joiner, fillers, …) at
  -- a name's start and end; at its end not those that end emoji (variation selectors, ZWJ, tags: ❤️, a subdivision
  -- flag). Not direction overrides and isolates, which one_line refuses rather than drops. The tools' trimName
  -- (text-guard.ts) trims the same.
  select regexp_replace(regexp_replace(p_value, '^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2060-\u2065\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]+', ''), '[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u200e\u200f\u2060-\u2065\u206a-\u206f\u3164\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e001f\U000e0080-\U000e00ff\U000e01f0-\U000e0fff]+$', '')
$$;
comment on function app_hidden.trim_name(p_value text) is 'A name trimmed of white space and default-ignorable characters at its ends (at its end, not the variation selectors, ZWJ and tags that end emoji), as the tools'' trimName.';
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
  -- variation selectors, tags, fillers, …), not a format control (Cf), not the braille blank nor the object
  -- replacement character (VISIBLE in text-guard.ts).
  elsif v !~ '[^\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\u2800\ufffc]' then
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

create or replace function app_hidden.changed_fields(p_old jsonb, p_new jsonb, p_fields text[])
 returns text[]
 language sql
 immutable parallel safe
 set search_path to 'pg_catalog'
as $$
  -- Each field is a column ('label_id', said as labelId), a column with the API's name for it ('archived_at:archived'),
  -- or a path into a jsonb column ('manifest.scopes:scopes').
  select coalesce(array_agg(coalesce(nullif(split_part(f, ':', 2), ''),
                                     lower(left(split_part(f, ':', 1), 1))
                                       || substr(replace(initcap(replace(split_part(f, ':', 1), '_', ' ')), ' ', ''), 2))
                            order by n), '{}')
  from unnest(p_fields) with ordinality as u(f, n)
  where p_old #> string_to_array(split_part(f, ':', 1), '.') is distinct from p_new #> string_to_array(split_part(f, ':', 1), '.')
$$;
comment on function app_hidden.changed_fields(p_old jsonb, p_new jsonb, p_fields text[]) is 'Which of the fields differ between a row before and after an update (to_jsonb(old), to_jsonb(new)), by their API names and in the order given: the changes of an *_UPDATED event. A field is a column (label_id → labelId), column:name (archived_at:archived) or a jsonb path (manifest.scopes:scopes).';

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
--! Included agents/triggers.sql
-- Triggers of the agents tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_agents__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'AGENT_CREATED', 'agent', new.id,
      jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'name', new.name));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'AGENT_DELETED', 'agent', old.id,
      jsonb_build_object('agentId', old.id, 'profileKey', old.profile_key, 'deleted', true));
    -- Pins are personal rows of every member: nothing may keep pointing at the agent (as for a deleted cycle).
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'AGENT' and p.target_id = old.id;
  else
    if new.status is distinct from old.status then
      perform app_private.record_event(new.workspace_id, 'AGENT_STATUS_CHANGED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'from', old.status, 'to', new.status)
        -- Why, when the writer says (svc.agent_status_reason: heartbeat_timeout from the presence sweep).
        || case when current_setting('svc.agent_status_reason', true) <> ''
                then jsonb_build_object('reason', current_setting('svc.agent_status_reason', true)) else '{}' end);
    end if;
    if new.archived_at is not null and old.archived_at is null then
      perform app_private.record_event(new.workspace_id, 'AGENT_DELETED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'archived', true));
    else
      -- Which fields changed, by their API names (never the values: a webhookUrl may carry a token), as every other
      -- *_UPDATED says; a restore is `archived` (it said only agentId and profileKey).
      v_changes := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'profile_key', 'runtime_mode',
        'provider', 'capabilities', 'max_concurrent', 'webhook_url', 'runtime_id', 'archived_at:archived']);
      if cardinality(v_changes) > 0 then
        perform app_private.record_event(new.workspace_id, 'AGENT_UPDATED', 'agent', new.id,
          jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'changes', to_jsonb(v_changes))
          || case when 'archived' = any(v_changes) then jsonb_build_object('archived', false) else '{}' end);
      end if;
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__events() is 'AGENT_CREATED, AGENT_UPDATED {agentId, profileKey, changes (API names), archived: false on a restore}, AGENT_DELETED (archive or delete; a delete also removes the members'' pins of the agent), AGENT_STATUS_CHANGED {agentId, from, to, reason?} (only on an actual change; reason heartbeat_timeout from the presence sweep).';

drop trigger if exists _100_updated_at on app_public.agents;
create trigger _100_updated_at before update on app_public.agents for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.agents;
create trigger _800_events after insert or delete or update on app_public.agents for each row execute function app_private.tg_agents__events();

create or replace function app_private.tg_agents__notify_keys()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform pg_notify('svc_keys', k.id::text) from app_private.api_keys k
  where k.linked_agent_id = new.id and k.revoked_at is null;
  return null;
end
$$;
comment on function app_private.tg_agents__notify_keys() is 'An agent archived or restored: tells every API process to drop its cached copies of the agent''s keys (an archived agent''s key is refused at once, its streams end; a restored one works at once).';

drop trigger if exists _900_notify_keys on app_public.agents;
create trigger _900_notify_keys after update of archived_at on app_public.agents
  for each row when (new.archived_at is distinct from old.archived_at)
  execute function app_private.tg_agents__notify_keys();

create or replace function app_private.tg_agent_runs__abandoned()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, old.status,
      coalesce(nullif(current_setting('svc.run_end_reason', true), ''), 'abandoned')));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__abandoned() is 'AGENT_RUN_STATUS_CHANGED for every move of a run into ABANDONED, whoever makes it (reassignment, a canceled plan attempt, issues.delete, an operator), with the payload of the other run moves (runId, agentId, issueId, from, to, engagementMode, reason). The reason is the transaction-local svc.run_end_reason the writer sets around its update (reassigned, plan_canceled), else abandoned.';

drop trigger if exists _810_run_abandoned on app_public.agent_runs;
create trigger _810_run_abandoned after update of status on app_public.agent_runs
  for each row when (new.status = 'ABANDONED' and old.status is distinct from 'ABANDONED')
  execute function app_private.tg_agent_runs__abandoned();

create or replace function app_private.tg_agent_runs__stalled_activity()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A sign of life of a STALLED run (usage, a status line, a chat reply) is its agent at work again: back to ACTIVE,
  -- as runs.resumeWork does, so the board and the watchdogs stop calling it stalled while it reports. Before the
  -- row is written, so the report's own answer and AGENT_RUN_UPDATED say ACTIVE (after it, they said STALLED
  -- behind an AGENT_RUN_STATUS_CHANGED to ACTIVE).
  new.status := 'ACTIVE';
  perform app_private.record_event(new.workspace_id, 'AGENT_RUN_STATUS_CHANGED', 'issue', new.issue_id,
    app_hidden.run_status_payload(new, 'STALLED', 'activity'));
  return new;
end
$$;
comment on function app_private.tg_agent_runs__stalled_activity() is 'A STALLED run whose lastEventAt moves (its agent reported) goes back to ACTIVE in the same write, with AGENT_RUN_STATUS_CHANGED reason activity; it stayed STALLED until runs.resumeWork.';

drop trigger if exists _820_run_stalled_activity on app_public.agent_runs;
drop trigger if exists _120_run_stalled_activity on app_public.agent_runs;
create trigger _120_run_stalled_activity before update of last_event_at on app_public.agent_runs
  for each row when (old.status = 'STALLED' and new.status = 'STALLED' and new.last_event_at > old.last_event_at)
  execute function app_private.tg_agent_runs__stalled_activity();
--! EndIncluded agents/triggers.sql
--! Included auth/triggers.sql
-- Triggers of the auth tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_api_keys__notify_revoked()
 returns trigger
 language plpgsql
as $$
begin
  perform pg_notify('svc_keys', new.id::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked key at once.';

drop trigger if exists _900_notify_revoked on app_private.api_keys;
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__notify_revoked();

create or replace function app_private.tg_api_keys__events()
 returns trigger
 language plpgsql
as $$
begin
  -- Who holds access is the workspace's audit trail: issuing and revoking a key are state changes like any other.
  -- Never the token or its hash; the prefix is what lists show.
  perform app_private.record_event(new.workspace_id, case when tg_op = 'INSERT' then 'API_KEY_CREATED' else 'API_KEY_REVOKED' end,
    'api-key', new.id, jsonb_build_object('keyId', new.id, 'kind', new.kind, 'prefix', new.prefix, 'userId', new.user_id,
      'linkedAgentId', new.linked_agent_id, 'pluginId', new.plugin_id, 'expiresAt', new.expires_at, 'revokedAt', new.revoked_at));
  return null;
end
$$;
comment on function app_private.tg_api_keys__events() is 'API_KEY_CREATED when a key is issued (any path: access.*, plugins, the CLI, a new workspace''s owner key) and API_KEY_REVOKED when it is revoked (accessRevoke, svc admin revoke-key, a member removed); subject api-key, payload without secrets.';

drop trigger if exists _800_events_created on app_private.api_keys;
create trigger _800_events_created after insert on app_private.api_keys for each row execute function app_private.tg_api_keys__events();
drop trigger if exists _800_events_revoked on app_private.api_keys;
create trigger _800_events_revoked after update of revoked_at on app_private.api_keys for each row when (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) execute function app_private.tg_api_keys__events();

create or replace function app_private.tg_plugins__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_changed text[] := '{}';
begin
  -- What a plugin's keys may be given and which skills skills.invoke may call are the workspace's to follow like its
  -- webhooks and dispatch rules (the event audit's last configuration without a trace).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['name', 'manifest.scopes:scopes', 'manifest.skills:skills', 'approved_at']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  perform app_private.record_event(new.workspace_id, case tg_op when 'INSERT' then 'PLUGIN_CREATED' else 'PLUGIN_UPDATED' end,
    'plugin', new.id,
    jsonb_build_object('pluginId', new.id, 'name', new.name, 'scopes', coalesce(new.manifest->'scopes', '[]'),
      'skills', coalesce((select jsonb_agg(s->'name') from jsonb_array_elements(coalesce(new.manifest->'skills', '[]')) s), '[]'),
      'approvedAt', new.approved_at)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_plugins__events() is 'AFTER INSERT/UPDATE on plugins: PLUGIN_CREATED, PLUGIN_UPDATED (changes: name, scopes, skills, approvedAt; nothing changed, no event). Subject plugin; payload pluginId, name, scopes, skills (their names), approvedAt.';

drop trigger if exists _800_events on app_private.plugins;
create trigger _800_events after insert or update on app_private.plugins for each row execute function app_private.tg_plugins__events();
--! EndIncluded auth/triggers.sql
--! Included cycles/triggers.sql
-- Triggers of the cycles tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_cycles__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'CYCLE_DELETED', 'cycle', old.id,
      jsonb_build_object('cycleId', old.id, 'number', old.number, 'name', old.name, 'startsOn', old.starts_on,
                         'endsOn', old.ends_on, 'status', app_hidden.cycle_status(old)));
    -- Pins are personal rows of every member: nothing may keep pointing at the cycle.
    delete from app_public.pins p where p.workspace_id = old.workspace_id and p.target_type = 'CYCLE' and p.target_id = old.id;
    return null;
  end if;
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CYCLE_CREATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'startsOn', new.starts_on,
                         'endsOn', new.ends_on, 'status', app_hidden.cycle_status(new)));
    return null;
  end if;
  v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'starts_on', 'ends_on']);
  -- status as cycles.get shows it (the calendar's); the stored COMPLETED rollover writes on an ended cycle only says
  -- it was rolled over (it was COMPLETED on the calendar already).
  if app_hidden.cycle_status(new) is distinct from app_hidden.cycle_status(old) then v_changed := array_append(v_changed, 'status'); end if;
  if new.status = 'COMPLETED' and old.status is distinct from 'COMPLETED' then v_changed := array_append(v_changed, 'rolledOver'); end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'CYCLE_UPDATED', 'cycle', new.id,
      jsonb_build_object('cycleId', new.id, 'number', new.number, 'name', new.name, 'changes', to_jsonb(v_changed),
                         -- On the calendar, as cycles.get shows it (the stored PLANNED of a running sprint misled).
                         'status', app_hidden.cycle_status(new), 'previousStatus', app_hidden.cycle_status(old)));
  end if;
  return null;
end
$$;
comment on function app_private.tg_cycles__events() is 'CYCLE_CREATED (status: on the calendar, as cycles.get shows it); CYCLE_UPDATED on rename, re-dating and status moves (status and previousStatus: on the calendar after and before, as cycles.get shows them; changes names status when that moved, rolledOver when rollover finished an ended cycle); CYCLE_DELETED (status: on the calendar when deleted), and the members'' pins of a deleted cycle go. Kinds beyond spec 6.1, see docs/decisions.md.';

drop trigger if exists _100_updated_at on app_public.cycles;
create trigger _100_updated_at before update on app_public.cycles for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.cycles;
create trigger _800_events after insert or update or delete on app_public.cycles for each row execute function app_private.tg_cycles__events();
--! EndIncluded cycles/triggers.sql
--! Included dispatch/triggers.sql
-- Triggers of the dispatch tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.dispatch_rules;
create trigger _100_updated_at before update on app_public.dispatch_rules for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_dispatch_rules__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_rule app_public.dispatch_rules := case when tg_op = 'DELETE' then old else new end;
  v_changed text[] := '{}';
  v_kind text := case tg_op when 'INSERT' then 'DISPATCH_RULE_CREATED' when 'UPDATE' then 'DISPATCH_RULE_UPDATED' else 'DISPATCH_RULE_DELETED' end;
begin
  -- Which agent gets which work is the workspace's to follow like any other change (fleet probe: rules changed
  -- without a trace). A rule deleted with the label, project or agent it names says so too.
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['position', 'name', 'priority', 'label_id', 'project_id', 'target_agent_id', 'enabled']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  -- A workspace being deleted takes its rules with it: nothing to tell.
  if tg_op = 'DELETE' and not exists (select 1 from app_public.workspaces w where w.id = old.workspace_id) then
    return null;
  end if;
  perform app_private.record_event(v_rule.workspace_id, v_kind, 'dispatch-rule', v_rule.id,
    jsonb_build_object('ruleId', v_rule.id, 'position', v_rule.position, 'name', v_rule.name, 'priority', v_rule.priority,
      'labelId', v_rule.label_id, 'projectId', v_rule.project_id, 'targetAgentId', v_rule.target_agent_id,
      'enabled', v_rule.enabled)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_dispatch_rules__events() is 'AFTER INSERT/UPDATE/DELETE on dispatch_rules: DISPATCH_RULE_CREATED, DISPATCH_RULE_UPDATED (changes: position, name, priority, labelId, projectId, targetAgentId, enabled; nothing changed, no event; a rule moved by another''s insert, delete or a reorder too), DISPATCH_RULE_DELETED (dispatchRulesDelete, or with the label, project or agent it names). Subject dispatch-rule; read by the keys that read the rules (no narrowed key).';

drop trigger if exists _800_events on app_public.dispatch_rules;
create trigger _800_events after insert or update or delete on app_public.dispatch_rules for each row execute function app_private.tg_dispatch_rules__events();
--! EndIncluded dispatch/triggers.sql
--! Included initiatives/triggers.sql
-- Triggers of the initiatives tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_initiatives__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_CREATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name));
    return null;
  end if;
  v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'description', 'archived_at:archived']);
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_UPDATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_initiatives__events() is 'INITIATIVE_CREATED; INITIATIVE_UPDATED when name, description or archived state change (kinds beyond spec 6.1, see docs/decisions.md).';

drop trigger if exists _100_updated_at on app_public.initiatives;
create trigger _100_updated_at before update on app_public.initiatives for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.initiatives;
create trigger _800_events after insert or update on app_public.initiatives for each row execute function app_private.tg_initiatives__events();
--! EndIncluded initiatives/triggers.sql
--! Included labels/triggers.sql
-- Triggers of the labels tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'LABEL_CREATED', 'label', new.id,
      jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color));
  elsif tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'color', 'description']);
    if cardinality(v_changed) > 0 then
      perform app_private.record_event(new.workspace_id, 'LABEL_UPDATED', 'label', new.id,
        jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color, 'changes', to_jsonb(v_changed)));
    end if;
  else
    -- labels.delete and labels.merge (the label merged away); its issues' ISSUE_UPDATED labelIds come from the
    -- issue_labels triggers.
    perform app_private.record_event(old.workspace_id, 'LABEL_DELETED', 'label', old.id,
      jsonb_build_object('labelId', old.id, 'name', old.name));
  end if;
  return null;
end
$$;
comment on function app_private.tg_labels__events() is 'AFTER INSERT/UPDATE/DELETE on labels: LABEL_CREATED, LABEL_UPDATED (changes: name, color, description; nothing changed, no event), LABEL_DELETED (labels.delete, labels.merge). Labels are visible to every key of the workspace (label narrowing restricts issues), so are their events.';

drop trigger if exists _100_updated_at on app_public.labels;

create trigger _100_updated_at before update on app_public.labels for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.labels;
create trigger _800_events after insert or update or delete on app_public.labels for each row execute function app_private.tg_labels__events();
--! EndIncluded labels/triggers.sql
--! Included projects/triggers.sql
-- Triggers of the projects tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_projects__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'PROJECT_CREATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id));
  elsif (new.name, new.description, new.initiative_id, new.archived_at)
        is distinct from (old.name, old.description, old.initiative_id, old.archived_at) then
    -- changes names the fields that moved, as the other *_UPDATED events do (archived: archived or restored, as INITIATIVE_UPDATED says).
    perform app_private.record_event(new.workspace_id, 'PROJECT_UPDATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id,
                         'archived', new.archived_at is not null,
                         'changes', to_jsonb(app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
                           array['name', 'description', 'initiative_id', 'archived_at:archived']))));
  end if;
  return null;
end
$$;
comment on function app_private.tg_projects__events() is 'PROJECT_CREATED; PROJECT_UPDATED on edit, initiative link/unlink or archive, naming the changed fields (changes).';

drop trigger if exists _100_updated_at on app_public.projects;
create trigger _100_updated_at before update on app_public.projects for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.projects;
create trigger _800_events after insert or update on app_public.projects for each row execute function app_private.tg_projects__events();
--! EndIncluded projects/triggers.sql
--! Included orchestration/triggers.sql
-- Triggers of the orchestration tables (goals, plans, steps, gates, crews) and the budget stop on agent runs.
-- Every status change records its ActivityEvent here, in the same transaction.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_goals__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_event uuid;
  v_payload jsonb;
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'GOAL_CREATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'issueId', new.issue_id, 'crewId', new.crew_id, 'status', new.status,
      'maxTotalCostUsd', new.max_total_cost_usd, 'maxWallTimeMinutes', new.max_wall_time_minutes));
  elsif new.status is not distinct from old.status then
    -- goals.update: the text changed (ours; the spec has no kind for it).
    if (new.title, new.description) is not distinct from (old.title, old.description) then
      return null;
    end if;
    perform app_private.record_event(new.workspace_id, 'GOAL_UPDATED', 'goal', new.id, jsonb_build_object(
      'goalId', new.id, 'title', new.title, 'status', new.status,
      'changes', to_jsonb(app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['title', 'description']))));
  else
    v_payload := app_hidden.goal_status_payload(new, old.status, new.status);
    v_event := app_private.record_event(new.workspace_id, 'GOAL_STATUS_CHANGED', 'goal', new.id, v_payload);
    -- Planning starts: the planner of the new attempt is dispatched.
    if new.status = 'PLANNING' and v_payload->>'plannerAgentId' is not null then
      perform app_private.enqueue_agent_dispatch(v_event, (v_payload->>'plannerAgentId')::uuid);
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_goals__events() is 'GOAL_CREATED on insert; GOAL_STATUS_CHANGED {from, to, planId, plannerAgentId} on every status move, dispatched to the planner when planning starts; GOAL_UPDATED {goalId, title, status, changes} when goals.update changes the title or description.';

create or replace function app_private.tg_execution_plans__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_PLAN_STATUS_CHANGED', 'execution-plan', new.id, jsonb_build_object(
      'planId', new.id, 'goalId', new.goal_id, 'attempt', new.attempt,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_plans__events() is 'EXECUTION_PLAN_STATUS_CHANGED {planId, goalId, attempt, from, to} when a plan is created (from null) and on every status move.';

create or replace function app_private.tg_execution_steps__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' or new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'EXECUTION_STEP_STATUS_CHANGED', 'execution-step', new.id, jsonb_build_object(
      'planId', new.plan_id, 'stepId', new.id, 'title', new.title,
      'from', case when tg_op = 'UPDATE' then old.status end, 'to', new.status, 'retryCount', new.retry_count));
  end if;
  return null;
end
$$;
comment on function app_private.tg_execution_steps__events() is 'EXECUTION_STEP_STATUS_CHANGED {planId, stepId, from, to, retryCount} when a step is added (from null) and on every status move (READY also writes EXECUTION_STEP_READY, judging EXECUTION_STEP_JUDGED).';

create or replace function app_private.tg_review_gates__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_goal uuid := (select p.goal_id from app_public.execution_plans p where p.id = new.plan_id);
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_OPENED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'title', new.title, 'details', new.details));
  elsif new.status is distinct from old.status then
    perform app_private.record_event(new.workspace_id, 'REVIEW_GATE_RESOLVED', 'review-gate', new.id, jsonb_build_object(
      'gateId', new.id, 'planId', new.plan_id, 'goalId', v_goal, 'stepId', new.step_id, 'reason', new.reason,
      'from', old.status, 'to', new.status, 'note', new.resolution_note));
  end if;
  return null;
end
$$;
comment on function app_private.tg_review_gates__events() is 'REVIEW_GATE_OPENED when a gate opens, REVIEW_GATE_RESOLVED {from, to, note} when it is approved, rejected or canceled.';

create or replace function app_private.tg_agent_crews__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changes text[];
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'CREW_CREATED', 'crew', new.id,
      jsonb_build_object('crewId', new.id, 'name', new.name, 'maxParallel', new.max_parallel));
    return null;
  end if;
  v_changes := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'description', 'max_parallel', 'archived_at:archived']);
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(new.workspace_id, 'CREW_UPDATED', 'crew', new.id, jsonb_build_object(
      'crewId', new.id, 'name', new.name, 'changes', to_jsonb(v_changes), 'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_agent_crews__events() is 'CREW_CREATED on insert; CREW_UPDATED {changes} when name, description, maxParallel or the archived state change.';

create or replace function app_private.tg_agent_crew_members__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.agent_crew_members := case when tg_op = 'DELETE' then old else new end;
begin
  if tg_op = 'INSERT' and exists (select 1 from app_public.agent_crews c where c.id = new.crew_id and c.created_at = now()) then
    return null;  -- members given to agentCrews.create belong to its CREW_CREATED
  end if;
  perform app_private.record_event(v_row.workspace_id, 'CREW_UPDATED', 'crew', v_row.crew_id, jsonb_build_object(
    'crewId', v_row.crew_id, 'changes', jsonb_build_array('members'), 'memberId', v_row.id, 'agentId', v_row.agent_id,
    'role', v_row.role, 'previousRole', case when tg_op = 'UPDATE' then old.role end,
    'action', case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'role_changed' end));
  return null;
end
$$;
comment on function app_private.tg_agent_crew_members__events() is 'CREW_UPDATED {changes: [members], action added|removed|role_changed} for member changes of an existing crew.';

create or replace function app_private.tg_agent_runs__plan_budget()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_plan app_public.execution_plans;
  v_goal app_public.goals;
  v_total numeric;
  v_started timestamptz;
  v_reason text;
  v_gate app_public.review_gates;
begin
  select p.* into v_plan from app_public.execution_steps s join app_public.execution_plans p on p.id = s.plan_id
  where s.id = new.step_id for update of p;
  if v_plan.id is null or v_plan.status <> 'RUNNING' then
    return null;
  end if;
  select * into v_goal from app_public.goals where id = v_plan.goal_id;
  if v_goal.max_total_cost_usd is null and v_goal.max_wall_time_minutes is null then
    return null;
  end if;
  v_total := app_hidden.goal_cost(v_goal.id);
  v_started := coalesce(v_goal.started_at, v_plan.started_at);
  -- Each cap stops a plan once: approving the gate lets that attempt continue past it.
  if v_goal.max_total_cost_usd is not null and v_total > v_goal.max_total_cost_usd
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_COST') then
    v_reason := 'cost';
  elsif v_goal.max_wall_time_minutes is not null and now() > v_started + make_interval(mins => v_goal.max_wall_time_minutes)
     and not exists (select 1 from app_public.review_gates g where g.plan_id = v_plan.id and g.reason = 'BUDGET_WALL_TIME') then
    v_reason := 'wall_time';
  end if;
  if v_reason is null then
    return null;
  end if;
  v_plan := app_hidden.plan_move(v_plan, 'BLOCKED');
  v_gate := app_hidden.open_gate(v_plan, null, case v_reason when 'cost' then 'BUDGET_COST' else 'BUDGET_WALL_TIME' end,
    case v_reason when 'cost' then format('Budget exceeded: $%s spent of $%s', v_total, v_goal.max_total_cost_usd)
                  else format('Wall time exceeded: running since %s, cap %s minutes', v_started, v_goal.max_wall_time_minutes) end,
    jsonb_build_object('totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
                       'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'startedAt', v_started, 'runId', new.id));
  perform app_private.record_event(v_plan.workspace_id, 'PLAN_BUDGET_EXCEEDED', 'execution-plan', v_plan.id, jsonb_build_object(
    'planId', v_plan.id, 'goalId', v_goal.id, 'totalCostUsd', v_total, 'maxTotalCostUsd', v_goal.max_total_cost_usd,
    'maxWallTimeMinutes', v_goal.max_wall_time_minutes, 'reason', v_reason, 'gateId', v_gate.id, 'runId', new.id,
    'elapsedMinutes', floor(extract(epoch from now() - v_started) / 60)));
  return null;
end
$$;
comment on function app_private.tg_agent_runs__plan_budget() is 'Budget stop (spec 3.8): when a step run''s usage is updated (runs.recordUsage or any writer) and its RUNNING plan''s goal is past maxTotalCostUsd (sum of its step runs) or maxWallTimeMinutes (since the goal started), the plan becomes BLOCKED, a review gate opens and PLAN_BUDGET_EXCEEDED is written. Once per cap per plan.';

create or replace function app_private.tg_goals__live_crew()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_crew app_public.agent_crews;
begin
  -- goals.create checked the crew live, but an archive committing meanwhile would leave an OPEN goal run by an
  -- archived crew. Held in share mode until commit (definer: any key that may create a goal, not only an ADMIN,
  -- may hold it): the archive (FOR NO KEY UPDATE) waits for this insert, or this insert waits and finds it archived.
  select * into v_crew from app_public.agent_crews c where c.id = new.crew_id and c.workspace_id = new.workspace_id for share;
  if v_crew.archived_at is not null then
    raise exception 'Crew % is archived', v_crew.name using errcode = 'SV409', detail = 'crew_archived', column = 'crewId';
  end if;
  return new;
end
$$;
comment on function app_private.tg_goals__live_crew() is 'BEFORE INSERT or UPDATE OF crew_id on goals, with a crew: locks the crew (share) and 409 crew_archived when it is archived, so no goal is created for a crew archived at the same moment whatever commits first.';

drop trigger if exists _050_live_crew on app_public.goals;
create trigger _050_live_crew before insert or update of crew_id on app_public.goals for each row
  when (new.crew_id is not null) execute function app_private.tg_goals__live_crew();
drop trigger if exists _100_updated_at on app_public.goals;
create trigger _100_updated_at before update on app_public.goals for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.goals;
create trigger _800_events after insert or update of status, title, description on app_public.goals for each row execute function app_private.tg_goals__events();

drop trigger if exists _100_updated_at on app_public.execution_plans;
create trigger _100_updated_at before update on app_public.execution_plans for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_plans;
create trigger _800_events after insert or update of status on app_public.execution_plans for each row execute function app_private.tg_execution_plans__events();

drop trigger if exists _100_updated_at on app_public.execution_steps;
create trigger _100_updated_at before update on app_public.execution_steps for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.execution_steps;
create trigger _800_events after insert or update of status on app_public.execution_steps for each row execute function app_private.tg_execution_steps__events();

drop trigger if exists _100_updated_at on app_public.review_gates;
create trigger _100_updated_at before update on app_public.review_gates for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.review_gates;
create trigger _800_events after insert or update of status on app_public.review_gates for each row execute function app_private.tg_review_gates__events();

drop trigger if exists _100_updated_at on app_public.agent_crews;
create trigger _100_updated_at before update on app_public.agent_crews for each row execute function app_hidden.tg__set_updated_at();
drop trigger if exists _800_events on app_public.agent_crews;
create trigger _800_events after insert or update on app_public.agent_crews for each row execute function app_private.tg_agent_crews__events();
drop trigger if exists _800_events on app_public.agent_crew_members;
create trigger _800_events after insert or update of role or delete on app_public.agent_crew_members for each row execute function app_private.tg_agent_crew_members__events();

drop trigger if exists _700_plan_budget on app_public.agent_runs;
create trigger _700_plan_budget after update of cost_usd, tokens_in, tokens_out, tokens_cached, last_event_at on app_public.agent_runs
  for each row when (new.step_id is not null) execute function app_private.tg_agent_runs__plan_budget();
--! EndIncluded orchestration/triggers.sql
--! Included repohost/triggers.sql
-- Triggers of the repohost tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_external_links__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.external_links := case when tg_op = 'DELETE' then old else new end;
begin
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['externalResources'],
    jsonb_build_object('externalLinkId', v_row.id, 'externalResourceId', v_row.resource_id, 'linkKind', v_row.kind));
  return null;
end
$$;
comment on function app_private.tg_external_links__events() is 'ISSUE_UPDATED (changes externalResources) when an issue is linked to an external issue/PR, or the link changes kind or goes.';

drop trigger if exists _800_events on app_public.external_links;
create trigger _800_events after insert or delete or update of kind on app_public.external_links for each row execute function app_private.tg_external_links__events();

create or replace function app_private.tg_external_resources__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.state is distinct from old.state or new.title is distinct from old.title then
    perform app_private.record_issue_updated(l.workspace_id, l.issue_id, array['externalResources'],
      jsonb_build_object('externalResourceId', new.id, 'externalState', new.state))
    from app_public.external_links l where l.workspace_id = new.workspace_id and l.resource_id = new.id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_external_resources__events() is 'ISSUE_UPDATED (changes externalResources) on every linked issue when a refreshed snapshot changes the external state or title.';

drop trigger if exists _800_events on app_public.external_resources;
create trigger _800_events after update on app_public.external_resources for each row execute function app_private.tg_external_resources__events();

drop trigger if exists _100_updated_at on app_public.connection_mappings;
create trigger _100_updated_at before update on app_public.connection_mappings for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_connection_mappings__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.connection_mappings := case when tg_op = 'DELETE' then old else new end;
  v_changed text[] := '{}';
  v_kind text := case tg_op when 'INSERT' then 'REPO_MAPPING_CREATED' when 'UPDATE' then 'REPO_MAPPING_UPDATED' else 'REPO_MAPPING_DELETED' end;
begin
  -- A mapping's status rules decide what repohost.sync does to linked issues: a change to them is the workspace's to
  -- follow like any other (an outside probe: mappings changed without a trace, where dispatch rules and webhooks tell).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['repo_full_name', 'token_env', 'api_url', 'status_rules', 'sync_title', 'active']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  -- A workspace being deleted takes its mappings with it: nothing to tell.
  if tg_op = 'DELETE' and not exists (select 1 from app_public.workspaces w where w.id = old.workspace_id) then
    return null;
  end if;
  perform app_private.record_event(v_row.workspace_id, v_kind, 'repo-mapping', v_row.id,
    jsonb_build_object('mappingId', v_row.id, 'repoFullName', v_row.repo_full_name, 'tokenEnv', v_row.token_env,
      'apiUrl', v_row.api_url, 'statusRules', v_row.status_rules, 'syncTitle', v_row.sync_title, 'active', v_row.active)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_connection_mappings__events() is 'AFTER INSERT/UPDATE/DELETE on connection_mappings: REPO_MAPPING_CREATED, REPO_MAPPING_UPDATED (changes: repoFullName, tokenEnv, apiUrl, statusRules, syncTitle, active; nothing changed, no event), REPO_MAPPING_DELETED. Subject repo-mapping; payload the mapping as its readers see it (mappingId, repoFullName, tokenEnv: a variable''s name, never a token, apiUrl, statusRules, syncTitle, active); every key of the workspace reads them, as it reads the mappings.';

drop trigger if exists _800_events on app_public.connection_mappings;
create trigger _800_events after insert or update or delete on app_public.connection_mappings for each row execute function app_private.tg_connection_mappings__events();
--! EndIncluded repohost/triggers.sql
