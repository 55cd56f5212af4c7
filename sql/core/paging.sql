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
  begin
    sort_id := right(v_token, 36)::uuid;
  exception when invalid_text_representation then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end;
end
$$;
comment on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) is 'Reads a cursor made by keyset_encode (a null cursor gives nulls); anything else is a 400 on the field (cursor unless named).';
grant execute on function app_hidden.keyset_decode(p_cursor text, p_prefix text, p_field text, OUT sort_key text, OUT sort_id uuid) to svc_visitor;

-- Typed readers: every list reads its cursor through one of these, never a bare cast of cursor_decode's or
-- keyset_decode's text (a forged `issues:abc` or `comments:2026-02-30…` must be the same clean 400 on the
-- field as any other foreign cursor, not PostgreSQL's cast error).
create or replace function app_hidden.cursor_decode_int(p_cursor text, p_prefix text, p_field text default 'cursor'::text)
 returns integer
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix, p_field);
begin
  if v_token is null then
    return null;
  elsif v_token ~ '^[0-9]{1,10}$' and v_token::bigint <= 2147483647 then
    return v_token::integer;
  end if;
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.cursor_decode_int(p_cursor text, p_prefix text, p_field text) is 'cursor_decode of a cursor whose token is a non-negative integer (e.g. an issue number); anything else, out of range included, is a 400 on the field.';
grant execute on function app_hidden.cursor_decode_int(p_cursor text, p_prefix text, p_field text) to svc_visitor;

create or replace function app_hidden.cursor_decode_bigint(p_cursor text, p_prefix text, p_field text default 'cursor'::text)
 returns bigint
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix, p_field);
begin
  if v_token is null then
    return null;
  elsif v_token ~ '^[0-9]{1,19}$' and v_token::numeric <= 9223372036854775807 then
    return v_token::bigint;
  end if;
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.cursor_decode_bigint(p_cursor text, p_prefix text, p_field text) is 'cursor_decode of a cursor whose token is a non-negative bigint (e.g. an event seq); anything else, out of range included, is a 400 on the field.';
grant execute on function app_hidden.cursor_decode_bigint(p_cursor text, p_prefix text, p_field text) to svc_visitor;

create or replace function app_hidden.keyset_decode_ts(p_cursor text, p_prefix text, p_field text default 'cursor'::text, OUT sort_key timestamp with time zone, OUT sort_id uuid)
 returns record
 language plpgsql
 stable
as $$
declare v_key text;
begin
  select k.sort_key, k.sort_id into v_key, sort_id from app_hidden.keyset_decode(p_cursor, p_prefix, p_field) k;
  if v_key is null then
    return;
  end if;
  -- ts_key writes exactly this; the cast then only has impossible values (2026-02-30, year 0) to refuse.
  if v_key !~ '^[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z$' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end if;
  begin
    sort_key := v_key::timestamptz;
  exception when data_exception then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end;
end
$$;
comment on function app_hidden.keyset_decode_ts(p_cursor text, p_prefix text, p_field text, OUT sort_key timestamp with time zone, OUT sort_id uuid) is 'keyset_decode of a cursor whose sort key is a timestamp (app_hidden.ts_key); a null cursor gives nulls, anything else (impossible dates included) is a 400 on the field.';
grant execute on function app_hidden.keyset_decode_ts(p_cursor text, p_prefix text, p_field text, OUT sort_key timestamp with time zone, OUT sort_id uuid) to svc_visitor;

create or replace function app_hidden.keyset_decode_date(p_cursor text, p_prefix text, p_field text default 'cursor'::text, OUT sort_key date, OUT sort_id uuid)
 returns record
 language plpgsql
 immutable
as $$
declare v_key text;
begin
  select k.sort_key, k.sort_id into v_key, sort_id from app_hidden.keyset_decode(p_cursor, p_prefix, p_field) k;
  if v_key is null then
    return;
  end if;
  if v_key !~ '^[0-9]{4,6}-[0-9]{2}-[0-9]{2}$' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end if;
  begin
    sort_key := v_key::date;
  exception when data_exception then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = p_field;
  end;
end
$$;
comment on function app_hidden.keyset_decode_date(p_cursor text, p_prefix text, p_field text, OUT sort_key date, OUT sort_id uuid) is 'keyset_decode of a cursor whose sort key is a date (YYYY-MM-DD); a null cursor gives nulls, anything else (2026-02-30, year 0) is a 400 on the field.';
grant execute on function app_hidden.keyset_decode_date(p_cursor text, p_prefix text, p_field text, OUT sort_key date, OUT sort_id uuid) to svc_visitor;

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

