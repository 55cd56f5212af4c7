-- Opaque cursors of paged lists.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.cursor_decode(p_cursor text, p_prefix text)
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
    raise exception 'bad cursor' using errcode = 'SV400', column = 'cursor';
  end if;
  return substr(v_token, length(p_prefix) + 2);
exception when others then
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
end
$$;
comment on function app_hidden.cursor_decode(p_cursor text, p_prefix text) is 'Reads a cursor made by cursor_encode; a foreign or damaged cursor is a 400 on field cursor.';
grant execute on function app_hidden.cursor_decode(p_cursor text, p_prefix text) to svc_visitor;

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

create or replace function app_hidden.keyset_decode(p_cursor text, p_prefix text, OUT sort_key text, OUT sort_id uuid)
 returns record
 language plpgsql
 immutable
as $$
declare v_token text := app_hidden.cursor_decode(p_cursor, p_prefix);
begin
  if length(v_token) < 38 or substr(v_token, length(v_token) - 36, 1) <> '|' then
    raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
  end if;
  sort_key := substr(v_token, 1, length(v_token) - 37);
  sort_id := app_hidden.parse_uuid(right(v_token, 36), 'cursor');
end
$$;
comment on function app_hidden.keyset_decode(p_cursor text, p_prefix text, OUT sort_key text, OUT sort_id uuid) is 'Reads a cursor made by keyset_encode; anything else is a 400 on field cursor.';
grant execute on function app_hidden.keyset_decode(p_cursor text, p_prefix text, OUT sort_key text, OUT sort_id uuid) to svc_visitor;

create or replace function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid)
 returns text
 language sql
 immutable parallel safe
as $$ select app_hidden.cursor_encode(p_prefix || ':' || p_sort || '|' || p_id::text) $$;
comment on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) is 'Opaque keyset cursor for (sort key, id) ordered lists.';
grant execute on function app_hidden.keyset_encode(p_prefix text, p_sort text, p_id uuid) to svc_visitor;
