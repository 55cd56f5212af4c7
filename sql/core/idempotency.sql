-- Idempotency keys of write calls (REST `Idempotency-Key`, JSON-RPC `_meta.idempotencyKey`): the table is in the
-- migrations. Re-runnable. Change it here and --! include it from migrations/current/.

drop policy if exists owner_all on app_private.idempotent_calls;
create policy owner_all on app_private.idempotent_calls to current_user using (true) with check (true);
comment on policy owner_all on app_private.idempotent_calls is
  'Only the schema owner (app_hidden.idempotent_claim / _remember, security definers) reads and writes them.';

create or replace function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text)
 returns text
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_tool text;
  v_hash text;
  v_response text;
  v_claimed boolean;
begin
  -- p_key_id is set_request_context's answer: taking it makes the statement run that first (idempotent_claim reads
  -- the workspace it set).
  if p_key_id is null or p_key_id is distinct from app_hidden.current_key_id() then
    raise exception 'idempotent_claim runs after set_request_context, with the key it returned';
  end if;
  -- The key's claim on this idempotency key, in the call's own transaction. A call with the same key in flight holds
  -- the row: this waits for it, and then sees its answer (DO UPDATE reads the latest version, whatever the
  -- statement's snapshot), or, when it failed and rolled back, claims the key itself.
  insert into app_private.idempotent_calls as c (workspace_id, key_id, idempotency_key, tool, request_hash)
  values (app_hidden.current_workspace_id(), p_key_id, p_idempotency_key, p_tool, p_request_hash)
  on conflict (key_id, idempotency_key) do update set key_id = c.key_id
  returning c.tool, c.request_hash, c.response, (c.xmax = 0) into v_tool, v_hash, v_response, v_claimed;
  if v_claimed then
    return null;  -- a new key: the call runs, and idempotent_remember keeps its answer
  end if;
  if v_tool <> p_tool or v_hash <> p_request_hash then
    raise exception 'This idempotency key was used for another request in the last 24 hours (%): use a new key for a new request', v_tool
      using errcode = 'SV422', detail = 'idempotency_key_reused', column = 'idempotencyKey';
  end if;
  return v_response;
end
$$;
comment on function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text) is 'Claims an idempotency key of the calling API key (p_key_id: what set_request_context returned in the same statement) for one write call: NULL when the call is to run (new key, or the earlier call with it failed), else the answer the earlier call gave; 422 idempotency_key_reused when the key came with another tool or other arguments. Waits for a call with the same key in flight.';
grant execute on function app_hidden.idempotent_claim(p_key_id uuid, p_idempotency_key text, p_tool text, p_request_hash text) to svc_visitor;

create or replace function app_hidden.idempotent_remember(p_idempotency_key text, p_response text)
 returns text
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  update app_private.idempotent_calls set response = p_response
  where key_id = app_hidden.current_key_id() and idempotency_key = p_idempotency_key;
  return p_response;
end
$$;
comment on function app_hidden.idempotent_remember(p_idempotency_key text, p_response text) is 'Keeps the answer of a write call made with an idempotency key (in its transaction: kept only if it commits) and returns it.';
grant execute on function app_hidden.idempotent_remember(p_idempotency_key text, p_response text) to svc_visitor;

create or replace function app_private.purge_idempotent_calls()
 returns integer
 language sql
as $$
  with gone as (delete from app_private.idempotent_calls where created_at < now() - interval '24 hours' returning 1)
  select count(*)::int from gone
$$;
comment on function app_private.purge_idempotent_calls() is 'Forgets idempotency keys older than 24 hours (the worker''s sweep, every minute); returns how many.';
