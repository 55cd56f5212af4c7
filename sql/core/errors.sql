-- Raising the service's own SQLSTATEs (SV400, SV404 ...), mapped to HTTP in src/errors.ts.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- The finder every find_<entity> uses: it looks its row up (by id parsed with parse_uuid, so a malformed id
-- is a 400 on the field) and hands it here; nothing found, or nothing visible under RLS, reads the same.
create or replace function app_hidden.found(p_row anyelement, p_what text, p_field text default 'id'::text)
 returns anyelement
 language plpgsql
 stable
as $$
begin
  if p_row is null then
    raise exception '% not found', p_what using errcode = 'SV404', column = p_field;
  end if;
  return p_row;
end
$$;
comment on function app_hidden.found(p_row anyelement, p_what text, p_field text) is 'A looked-up row, or 404 "<what> not found" naming the field when there is none (a missing row and one RLS hides read the same).';
grant execute on function app_hidden.found(p_row anyelement, p_what text, p_field text) to svc_visitor;

create or replace function app_hidden.raise_invalid(p_field text, p_message text)
 returns void
 language plpgsql
as $$
begin
  raise exception '%', p_message using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.raise_invalid(p_field text, p_message text) is 'Raises SV400 for one input field (HTTP 400 with issues = {field: message}).';
grant execute on function app_hidden.raise_invalid(p_field text, p_message text) to svc_visitor;

create or replace function app_hidden.raise_not_found(p_what text, p_field text)
 returns void
 language plpgsql
as $$
begin
  if p_field is null then
    raise exception '% not found', p_what using errcode = 'SV404';
  end if;
  raise exception '% not found', p_what using errcode = 'SV404', column = p_field;
end
$$;
comment on function app_hidden.raise_not_found(p_what text, p_field text) is 'Raises SV404 "<what> not found" (HTTP 404) naming the input field (null: none, for a caller with no input of its own, such as the worker).';
grant execute on function app_hidden.raise_not_found(p_what text, p_field text) to svc_visitor;
