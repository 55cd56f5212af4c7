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
