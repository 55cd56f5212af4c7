-- Raising the service's own SQLSTATEs (SV400, SV404 ...), mapped to HTTP in src/errors.ts.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.raise_in_item(p_index integer, p_state text, p_message text, p_detail text, p_hint text, p_column text)
 returns void
 language plpgsql
as $$
begin
  raise exception using errcode = p_state, message = p_message, detail = coalesce(p_detail, ''),
    hint = coalesce(p_hint, ''),
    column = 'items.' || p_index || case when coalesce(p_column, '') <> '' then '.' || p_column else '' end;
end
$$;
comment on function app_hidden.raise_in_item(p_index integer, p_state text, p_message text, p_detail text, p_hint text, p_column text) is 'Bulk tools: re-raises a business error (SV…) of item N with its field named items.N.<field>; the whole call rolls back.';
grant execute on function app_hidden.raise_in_item(p_index integer, p_state text, p_message text, p_detail text, p_hint text, p_column text) to svc_visitor;

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

create or replace function app_hidden.raise_not_found(p_what text)
 returns void
 language plpgsql
as $$
begin
  raise exception '% not found', p_what using errcode = 'SV404';
end
$$;
comment on function app_hidden.raise_not_found(p_what text) is 'Raises SV404 "<what> not found" (HTTP 404).';
grant execute on function app_hidden.raise_not_found(p_what text) to svc_visitor;
