--! Previous: sha1:084deb40fae090342160b564d77b0dfa3f54b613
--! Hash: sha1:4a675a11b5797a444c5825db10db9047012075b2
--! Message: Review mends: webhook owner on reactivation, removal lock order, workspace deletion locks people

--! split: 1-current.sql
-- Review mends: a webhook turned back on is the turner's (one stopped because its owner left sent to their address
-- for good); a member's removal takes the webhook registrations' lock first (a re-pointing in flight could slip
-- past it); deleting a workspace locks its people before deleting those with no other workspace (a membership
-- being added elsewhere at that moment was taken away by the cascade).
--! Included webhooks/webhooks.sql
-- webhooks: helper functions and in-app procedures.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.require_webhook_admin()
 returns void
 language plpgsql
 stable
as $$
begin
  -- A webhook receives every event of the workspace (or every event of its kinds).
  perform app_hidden.require_unnarrowed_admin('Webhooks deliver the whole workspace''s events');
end
$$;
comment on function app_hidden.require_webhook_admin() is 'Every in-app webhook procedure and webhooks.* tool starts here: OWNER/ADMIN with the ADMIN scope (require_workspace_admin), and a key without narrowing (403 narrowing).';
grant execute on function app_hidden.require_webhook_admin() to svc_visitor;

create or replace function app_private.lock_webhook_registrations(p_workspace_id uuid)
 returns void
 language sql
as $$
  -- One registration change at a time per workspace: each records a WEBHOOK_* event that is delivered to the
  -- workspace's other webhooks, so two deletes at once each waited for the other's webhook (deadlock, then 409).
  select pg_advisory_xact_lock(hashtextextended('svc.webhooks:' || p_workspace_id::text, 0))
$$;
comment on function app_private.lock_webhook_registrations(p_workspace_id uuid) is 'Serialises the webhook registration changes of a workspace for the transaction (advisory lock, reentrant).';

create or replace function app_hidden.require_webhook_admin_for_change()
 returns void
 language plpgsql
as $$
begin
  perform app_hidden.require_webhook_admin();
  perform app_private.lock_webhook_registrations(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.require_webhook_admin_for_change() is 'require_webhook_admin, then serialises the workspace''s webhook registration changes for the transaction (advisory lock).';
grant execute on function app_hidden.require_webhook_admin_for_change() to svc_visitor;

create or replace function app_hidden.webhook_create(p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_create(app_hidden.current_workspace_id(), p_url, p_events, p_description);
end
$$;
comment on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) is 'In-app: register a webhook (OWNER/ADMIN); returns the secret once. Records WEBHOOK_CREATED (webhookId and active only).';
grant execute on function app_hidden.webhook_create(p_url text, p_events text[], p_description text) to svc_visitor;

create or replace function app_hidden.webhook_delete(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_delete(app_hidden.webhook_in_workspace(p_webhook_id, p_field));
end
$$;
comment on function app_hidden.webhook_delete(p_webhook_id uuid, p_field text) is 'In-app: delete a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_DELETED.';
grant execute on function app_hidden.webhook_delete(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_deliveries_list(p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  if p_webhook_id is not null then
    perform app_hidden.webhook_in_workspace(p_webhook_id);
  end if;
  return app_private.webhook_deliveries_list(app_hidden.current_workspace_id(), p_webhook_id, p_status, p_limit, p_before);
end
$$;
comment on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'In-app: deliveries of the calling workspace (OWNER/ADMIN).';
grant execute on function app_hidden.webhook_deliveries_list(p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) to svc_visitor;

create or replace function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', d.id, 'eventId', d.event_id,
    'eventKind', (select e.kind from app_public.activity_events e where e.id = d.event_id),
    'webhookId', d.webhook_id, 'agentId', d.agent_id, 'channel', d.channel, 'status', d.status,
    'attemptCount', d.attempt_count, 'totalAttempts', d.total_attempts,
    'nextAttemptAt', case when d.status = 'PENDING' then d.next_attempt_at end,
    'lastStatusCode', d.last_status_code, 'lastError', d.last_error,
    'deliveredAt', d.delivered_at, 'deadLetteredAt', d.dead_lettered_at, 'createdAt', d.created_at,
    'attempts', coalesce((select jsonb_agg(jsonb_build_object('attempt', a.attempt_number, 'url', a.url,
        'startedAt', a.started_at, 'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error,
        'responseBody', a.response_body) order by a.attempt_number)
      from app_public.webhook_delivery_attempts a where a.workspace_id = d.workspace_id and a.delivery_id = d.id), '[]'))
$$;
comment on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) is 'Delivery shape with every attempt (status, duration, truncated response).';
grant execute on function app_hidden.webhook_delivery_json(d app_public.webhook_deliveries) to svc_visitor;

create or replace function app_hidden.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  if not exists (select 1 from app_public.webhook_deliveries where id = p_delivery_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Delivery', 'deliveryId');
  end if;
  return app_private.webhook_delivery_retry(p_delivery_id);
end
$$;
comment on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) is 'In-app: retry a dead letter of the calling workspace (OWNER/ADMIN); spec 4.14 keeps it off MCP.';
grant execute on function app_hidden.webhook_delivery_retry(p_delivery_id uuid) to svc_visitor;

create or replace function app_hidden.webhook_event_payload(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  -- Every key of the workspace reads WEBHOOK_* events, and only admins may read webhooks: no URL, host, event
  -- filter or secret here (webhooks.get shows them to an admin).
  select jsonb_build_object('webhookId', w.id, 'active', w.active)
$$;
comment on function app_hidden.webhook_event_payload(w app_public.webhooks) is 'Payload of the WEBHOOK_* events: webhookId and active only. Every key of the workspace reads these events; the URL, host, event filter and secret stay with admins (webhooks.get).';
grant execute on function app_hidden.webhook_event_payload(w app_public.webhooks) to svc_visitor;

create or replace function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns uuid
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  if not exists (select 1 from app_public.webhooks where id = p_webhook_id and workspace_id = app_hidden.current_workspace_id()) then
    perform app_hidden.raise_not_found('Webhook', p_field);
  end if;
  return p_webhook_id;
end
$$;
comment on function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text) is 'The webhook id when it belongs to the calling workspace, else 404.';
grant execute on function app_hidden.webhook_in_workspace(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_json(w app_public.webhooks)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events), 'active', w.active,
    'description', w.description, 'deactivatedAt', w.deactivated_at, 'deactivatedReason', w.deactivated_reason,
    'ownerUserId', w.owner_user_id, 'createdAt', w.created_at, 'updatedAt', w.updated_at)
$$;
comment on function app_hidden.webhook_json(w app_public.webhooks) is 'Webhook shape (never the secret).';
grant execute on function app_hidden.webhook_json(w app_public.webhooks) to svc_visitor;

drop function if exists app_hidden.webhook_rotate_secret(uuid);
create or replace function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_rotate_secret(app_hidden.webhook_in_workspace(p_webhook_id, p_field), p_keep_previous_hours);
end
$$;
comment on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer, p_field text) is 'In-app: new signing secret for a webhook of the calling workspace (OWNER/ADMIN), shown once; the old one signs beside it for p_keep_previous_hours. Records WEBHOOK_UPDATED (changes secret, previousSecretValidUntil; never a secret).';
grant execute on function app_hidden.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_test(p_webhook_id uuid, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_test(app_hidden.webhook_in_workspace(p_webhook_id, p_field));
end
$$;
comment on function app_hidden.webhook_test(p_webhook_id uuid, p_field text) is 'In-app: queue a WEBHOOK_TESTED delivery to one webhook of the calling workspace now (OWNER/ADMIN); 409 webhook_inactive for an inactive one.';
grant execute on function app_hidden.webhook_test(p_webhook_id uuid, p_field text) to svc_visitor;

create or replace function app_hidden.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text, p_field text default 'webhookId'::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin_for_change();
  return app_private.webhook_update(app_hidden.webhook_in_workspace(p_webhook_id, p_field), p_url, p_events, p_active, p_description);
end
$$;
comment on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text, p_field text) is 'In-app: change a webhook of the calling workspace (OWNER/ADMIN). Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';
grant execute on function app_hidden.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text, p_field text) to svc_visitor;

create or replace function app_hidden.webhooks_list()
 returns jsonb
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_hidden.require_webhook_admin();
  return app_private.webhooks_list(app_hidden.current_workspace_id());
end
$$;
comment on function app_hidden.webhooks_list() is 'In-app: the calling workspace''s webhooks with health counts (OWNER/ADMIN).';
grant execute on function app_hidden.webhooks_list() to svc_visitor;

create or replace function app_private.check_webhook_input(p_url text, p_events text[])
 returns text[]
 language plpgsql
 immutable
as $$
declare v_bad text;
begin
  if p_url is not null and (p_url !~ '^https?://[^\s/?#@]+' or length(p_url) > 2048) then
    perform app_hidden.raise_invalid('url', 'url must be an http(s) URL without credentials, at most 2048 characters');
  end if;
  if p_events is null then
    return null;
  end if;
  -- As webhooks.create's input allows (GraphQL and the CLI reach here without it: 5,000 entries were taken).
  if cardinality(p_events) > 100 then
    perform app_hidden.raise_invalid('events', 'at most 100 event kinds');
  end if;
  select e into v_bad from unnest(p_events) e where e is null or not (e = any(app_hidden.event_kinds())) limit 1;
  if found then
    perform app_hidden.raise_invalid('events', format('unknown event kind %s', coalesce(v_bad, 'null')));
  end if;
  return array(select distinct e from unnest(p_events) e order by e);
end
$$;
comment on function app_private.check_webhook_input(p_url text, p_events text[]) is 'Validates a webhook URL and event filter (at most 100 known kinds; 400 naming the field); returns the events de-duplicated and sorted.';

create or replace function app_private.outbound_flags(p_workspace_id uuid)
 returns text[]
 language sql
 immutable
 set search_path to 'pg_catalog'
as $$
  select array['svc_outbound:' || p_workspace_id]
$$;
comment on function app_private.outbound_flags(p_workspace_id uuid) is 'The Graphile Worker flags of a workspace''s outbound job (a webhook or agent delivery, a link title). A worker runs at most half its slots of one workspace''s outbound jobs: while it does, it fetches none flagged so (forbiddenFlags, src/outbound/tenant-share.ts), however many of the workspace''s targets hang.';

create or replace function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone default NULL::timestamp with time zone, p_bulk boolean default false)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries d where d.id = p_delivery_id;
  -- A delivery gone with its webhook (a deferred job putting itself back) has nothing left to send; its null
  -- workspace would make a null flag, which add_job refuses (22023), failing the job ten times over.
  if v_delivery.id is not null and to_regnamespace('graphile_worker') is not null then
    perform graphile_worker.add_job('svc_webhook_deliver', json_build_object('deliveryId', p_delivery_id),
      -- And its endpoint's: one slow receiver holds at most half its workspace's places (src/outbound/tenant-share.ts).
      flags := app_private.outbound_flags(v_delivery.workspace_id) || ('svc_target:' || v_delivery.channel),
      run_at := coalesce(p_run_at, now()), max_attempts := 10, job_key := 'svc_webhook:' || p_delivery_id,
      job_key_mode := 'replace',
      -- An agent's dispatch (its assignment, a chat message) goes before the workspace's webhook deliveries: behind
      -- a dozen webhooks to hosts that never answer, each holding a slot of its share for the whole deadline, an
      -- agent waited 20 to 40 s for its work.
      -- A large change's deliveries queued after it (webhook_fanout) go after the workspace's other events: an
      -- issue created a second after a label left 560 issues waited 13.6 s behind their 11,000 deliveries.
      priority := case when v_delivery.agent_id is not null then -1 when p_bulk then 1 else 0 end);
  end if;
end
$$;
comment on function app_private.enqueue_delivery_job(p_delivery_id uuid, p_run_at timestamp with time zone, p_bulk boolean) is 'Enqueues (or reschedules) the worker job of a delivery, job_key svc_webhook:<id>, flagged as its workspace''s outbound work (outbound_flags) and its endpoint''s (svc_target:<channel>); an agent''s dispatch delivery at priority -1 (before webhook deliveries), a large change''s (p_bulk, from webhook_fanout) at 1 (after the others); nothing for a delivery that no longer exists. Runs in the caller''s transaction.';

create or replace function app_private.enqueue_fanout_job(p_workspace_id uuid)
 returns void
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- Once per transaction and workspace; a job not yet started is the one that will run (replace), one running now
  -- gets a successor, which sees this transaction's deliveries once it commits.
  if to_regnamespace('graphile_worker') is not null
     and coalesce(current_setting('svc.fanout_queued', true), '') not like '%' || p_workspace_id::text || '%' then
    perform graphile_worker.add_job('svc_webhook_fanout', json_build_object('workspaceId', p_workspace_id),
      max_attempts := 25, job_key := 'svc_fanout:' || p_workspace_id, job_key_mode := 'replace');
    perform set_config('svc.fanout_queued', coalesce(current_setting('svc.fanout_queued', true), '') || p_workspace_id::text || ',', true);
  end if;
end
$$;
comment on function app_private.enqueue_fanout_job(p_workspace_id uuid) is 'Queues (once per transaction) the workspace''s svc_webhook_fanout job: deliveries a large transaction wrote without jobs get them after it commits (webhook_fanout).';

create or replace function app_private.webhook_fanout(p_workspace_id uuid, p_max integer, p_after text default null)
 returns jsonb
 language plpgsql
as $$
declare
  v_d record;
  v_queued int := 0;
  v_last text := p_after;
begin
  -- Oldest first, as they were written, from where the job's last batch stopped (each batch its own transaction);
  -- a delivery leased or with a waiting job is someone else's.
  for v_d in
    select d.id, d.created_at from app_public.webhook_deliveries d
    where d.workspace_id = p_workspace_id and d.status = 'PENDING' and d.locked_until is null and d.total_attempts = 0
      and (p_after is null or (d.created_at, d.id) > (split_part(p_after, '|', 1)::timestamptz, split_part(p_after, '|', 2)::uuid))
      and not exists (select 1 from graphile_worker.jobs j where j.key = 'svc_webhook:' || d.id)
    order by d.created_at, d.id
    limit p_max
  loop
    perform app_private.enqueue_delivery_job(v_d.id, null, true);
    v_queued := v_queued + 1;
    v_last := app_hidden.ts_key(v_d.created_at) || '|' || v_d.id;
  end loop;
  return jsonb_build_object('queued', v_queued, 'after', v_last);
end
$$;
comment on function app_private.webhook_fanout(p_workspace_id uuid, p_max integer, p_after text) is 'Job svc_webhook_fanout: queues the jobs of up to p_max of the workspace''s new PENDING deliveries that have none (those a large transaction wrote past its first 200), oldest first after p_after (the previous batch''s last, created_at|id); returns {queued, after}.';

create or replace function app_private.new_webhook_secret()
 returns text
 language sql
as $$
  -- 32 bytes from two v4 UUIDs (pg_strong_random; 244 random bits), base64: the Standard Webhooks format.
  select 'whsec_' || encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64')
$$;
comment on function app_private.new_webhook_secret() is 'A fresh signing secret, whsec_<base64 of 32 bytes> (Standard Webhooks).';

create or replace function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[] default '{}'::text[], p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := coalesce(app_private.check_webhook_input(p_url, coalesce(p_events, '{}')), '{}');
  v_webhook app_public.webhooks;
  v_secret text := app_private.new_webhook_secret();
begin
  if p_url is null then
    perform app_hidden.raise_invalid('url', 'url is required');
  end if;
  -- At most 50 per workspace (every event becomes a delivery to each of them), counted under the lock that
  -- serialises registration changes (require_webhook_admin_for_change takes it too; it is reentrant).
  perform app_private.lock_webhook_registrations(p_workspace_id);
  if (select count(*) from app_public.webhooks w where w.workspace_id = p_workspace_id) >= 50 then
    raise exception 'A workspace has at most 50 webhooks; delete one first' using errcode = 'SV409', detail = 'webhook_limit';
  end if;
  insert into app_public.webhooks (workspace_id, url, events, description, owner_user_id)
  values (p_workspace_id, p_url, v_events, p_description, app_hidden.current_user_id())
  returning * into v_webhook;
  insert into app_private.webhook_secrets (webhook_id, workspace_id, secret) values (v_webhook.id, p_workspace_id, v_secret);
  -- The workspace's other webhooks receive it; this one hears nothing about itself (the outbox trigger).
  perform app_private.record_event(p_workspace_id, 'WEBHOOK_CREATED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return app_hidden.webhook_json(v_webhook) || jsonb_build_object('secret', v_secret);
end
$$;
comment on function app_private.webhook_create(p_workspace_id uuid, p_url text, p_events text[], p_description text) is 'Registers a webhook (at most 50 per workspace: 409 webhook_limit) and records WEBHOOK_CREATED; the result carries its signing secret, shown this once.';

create or replace function app_private.webhook_deactivate(p_webhook_id uuid, p_reason text)
 returns void
 language plpgsql
as $$
declare v_hook app_public.webhooks;
begin
  update app_public.webhooks set active = false, deactivated_at = now(), deactivated_reason = p_reason
  where id = p_webhook_id and active
  returning * into v_hook;
  -- A state change, as an admin switching it off is: WEBHOOK_UPDATED (the system acting: the call's actor, if any).
  if v_hook.id is not null then
    perform app_private.record_event(v_hook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_hook.id,
      app_hidden.webhook_event_payload(v_hook) || jsonb_build_object('changes', jsonb_build_array('active'),
                                                                     'deactivatedReason', v_hook.deactivated_reason));
  end if;
end
$$;
comment on function app_private.webhook_deactivate(p_webhook_id uuid, p_reason text) is 'Stops an active webhook for a reason (its endpoint answered 410, its creator left the workspace): WEBHOOK_UPDATED {changes: [active], deactivatedReason}; an admin turns it back on with webhooks.update. Nothing for one already inactive.';

create or replace function app_private.webhook_delete(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_webhook app_public.webhooks;
begin
  perform app_private.lock_webhook_registrations((select w.workspace_id from app_public.webhooks w where w.id = p_webhook_id));
  delete from app_public.webhooks where id = p_webhook_id returning * into v_webhook;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_DELETED', 'webhook', v_webhook.id, app_hidden.webhook_event_payload(v_webhook));
  return jsonb_build_object('id', v_webhook.id, 'deleted', true);
end
$$;
comment on function app_private.webhook_delete(p_webhook_id uuid) is 'Deletes a webhook with its secret, deliveries and attempts (queued jobs find nothing and stop) and records WEBHOOK_DELETED.';

create or replace function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid default NULL::uuid, p_status text default NULL::text, p_limit integer default 50, p_before uuid default NULL::uuid)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_limit int := least(greatest(coalesce(p_limit, 50), 1), 200);
  v_before app_public.webhook_deliveries;
begin
  if p_status is not null and p_status not in ('PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED') then
    perform app_hidden.raise_invalid('status', 'status must be PENDING, DELIVERED, DEAD_LETTER or CANCELED');
  end if;
  if p_before is not null then
    select * into v_before from app_public.webhook_deliveries where id = p_before and workspace_id = p_workspace_id;
    -- Not a delivery of this workspace (any other id, or one deleted with its webhook since): said, not the first page
    -- again as if no cursor had been given.
    if v_before.id is null then
      perform app_hidden.raise_invalid('cursor', 'cursor is not one this list returned (or its delivery is gone): start again without one');
    end if;
  end if;
  -- The cursor is the last delivery's id itself (prefix null).
  return app_hidden.page_json(array(
    select (app_hidden.webhook_delivery_json(d), d.id::text, null)::app_hidden.page_row
    from app_public.webhook_deliveries d
    where d.workspace_id = p_workspace_id
      and (p_webhook_id is null or d.webhook_id = p_webhook_id)
      and (p_status is null or d.status = p_status)
      and (v_before.id is null or (d.created_at, d.id) < (v_before.created_at, v_before.id))
    order by d.created_at desc, d.id desc limit v_limit + 1), v_limit, null);
end
$$;
comment on function app_private.webhook_deliveries_list(p_workspace_id uuid, p_webhook_id uuid, p_status text, p_limit integer, p_before uuid) is 'Deliveries of a workspace, newest first, optionally of one webhook or status, with their attempts; page with p_before = nextCursor.';

create or replace function app_private.webhook_deliveries_prune(p_keep_days integer, p_batch integer default 5000)
 returns integer
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_pruned int;
begin
  -- The delivery log is kept for p_keep_days after a delivery ended (delivered, dead-lettered or canceled); pending
  -- ones are never pruned. Every event made a delivery per webhook and each attempt a row: a week of a busy workspace
  -- held millions, forever. Housekeeping, not a change of the workspace's state: no event (the events keep the facts).
  if p_keep_days is null or p_keep_days <= 0 then
    return 0;
  end if;
  with doomed as (
    select d.id from app_public.webhook_deliveries d
    where d.status in ('DELIVERED', 'DEAD_LETTER', 'CANCELED')
      and coalesce(d.delivered_at, d.dead_lettered_at, d.updated_at) < now() - make_interval(days => p_keep_days)
    limit p_batch
    for update skip locked)
  delete from app_public.webhook_deliveries d using doomed where d.id = doomed.id;  -- attempts go with them (cascade)
  get diagnostics v_pruned = row_count;
  return v_pruned;
end
$$;
comment on function app_private.webhook_deliveries_prune(p_keep_days integer, p_batch integer) is 'Deletes up to p_batch deliveries (and their attempts) that ended more than p_keep_days ago (SVC_DELIVERY_RETENTION_DAYS; 0 keeps them); returns how many. The worker runs it hourly (svc_deliveries_prune) until a batch comes back short.';

create or replace function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean default false)
 returns jsonb
 language plpgsql
as $$
declare
  v_requeued int := 0;
  v_next_lease timestamptz;
  v_id uuid;
  v_run_at timestamptz;
begin
  if to_regnamespace('graphile_worker') is null then
    return jsonb_build_object('requeued', 0);
  end if;
  -- PENDING deliveries that no live job will pick up: their lease expired (the worker died
  -- mid-attempt) or they have no waiting job (never enqueued, or its job is stuck on a dead worker).
  for v_id, v_run_at in
    select d.id, greatest(d.next_attempt_at, now()) from app_public.webhook_deliveries d
    where d.status = 'PENDING' and (d.locked_until is null or d.locked_until < now())
      -- only overdue ones: a backlog that workers are still working through costs nothing here
      and d.next_attempt_at < now() - make_interval(secs => p_stale_ms / 1000.0)
      and not exists (
        select 1 from graphile_worker.jobs j
        where j.key = 'svc_webhook:' || d.id and j.attempts < j.max_attempts
          and (j.locked_at is null or j.locked_at > now() - make_interval(secs => p_stale_ms / 1000.0)))
  loop
    perform app_private.enqueue_delivery_job(v_id, v_run_at);
    v_requeued := v_requeued + 1;
  end loop;
  -- At start-up, come back when the leases of deliveries that were in flight expire.
  if p_follow_up then
    select min(locked_until) into v_next_lease from app_public.webhook_deliveries
    where status = 'PENDING' and locked_until >= now();
    if v_next_lease is not null then
      perform graphile_worker.add_job('svc_webhooks_sweep', '{}'::json, run_at := v_next_lease + interval '100 milliseconds',
        job_key := 'svc_webhooks_sweep:follow-up', job_key_mode := 'replace');
    end if;
  end if;
  return jsonb_build_object('requeued', v_requeued, 'nextLeaseExpiry', v_next_lease);
end
$$;
comment on function app_private.webhook_deliveries_sweep(p_stale_ms integer, p_follow_up boolean) is 'Recovery: re-queues PENDING deliveries whose lease expired or whose job is missing or stuck (older than p_stale_ms). With p_follow_up (worker start-up) it also schedules itself for when the current leases expire.';

create or replace function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer)
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_url text;
  v_secret text;
  v_previous text;
  v_active boolean;
  v_takes_kind boolean := true;
  v_kind text;
  v_interrupted_at timestamptz;
begin
  select * into v_delivery from app_public.webhook_deliveries
  where id = p_delivery_id and status = 'PENDING'
    and (locked_until is null or locked_until < clock_timestamp())
    and next_attempt_at <= clock_timestamp() + interval '50 milliseconds'
  for update;
  if v_delivery.id is not null then
    -- Every recorded outcome clears the lease: one left behind is an attempt whose worker stopped mid-way (kill -9).
    -- It was sent, maybe received: it counts, so the receiver sees the next one as a retry (x-svc-attempt).
    v_interrupted_at := v_delivery.locked_until;
    update app_public.webhook_deliveries
    set locked_until = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0),
        attempt_count = attempt_count + (v_interrupted_at is not null)::int,
        total_attempts = total_attempts + (v_interrupted_at is not null)::int,
        last_error = case when v_interrupted_at is not null then 'the worker stopped during the attempt' else last_error end
    where id = v_delivery.id
    returning * into v_delivery;
  end if;
  if v_delivery.id is null then
    -- Delivered, dead, leased by a live worker, or not due yet (a sweep ran early): make sure a
    -- not-yet-due delivery still has its job, then let this one go.
    select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id;
    if v_delivery.status = 'PENDING' and (v_delivery.locked_until is null or v_delivery.locked_until < clock_timestamp()) then
      perform app_private.enqueue_delivery_job(v_delivery.id, v_delivery.next_attempt_at);
    end if;
    return null;
  end if;

  -- The previous secret, while a rotation's grace lasts, signs beside the current one.
  select e.kind into v_kind from app_public.activity_events e where e.id = v_delivery.event_id;
  if v_delivery.webhook_id is not null then
    -- A webhook whose events no longer name this kind takes it no more, retries included (a test delivery is sent
    -- whatever the filter).
    select w.url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end, w.active,
           cardinality(w.events) = 0 or v_kind = any(w.events) or v_kind = 'WEBHOOK_TESTED'
      into v_url, v_secret, v_previous, v_active, v_takes_kind
    from app_public.webhooks w join app_private.webhook_secrets s on s.webhook_id = w.id
    where w.id = v_delivery.webhook_id;
  else
    select a.webhook_url, s.secret, case when s.previous_secret_expires_at > clock_timestamp() then s.previous_secret end,
           a.webhook_url is not null and a.archived_at is null
      into v_url, v_secret, v_previous, v_active
    from app_public.agents a join app_private.agent_webhook_secrets s on s.agent_id = a.id
    where a.id = v_delivery.agent_id;
  end if;
  if v_interrupted_at is not null then
    insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at, duration_ms, error)
    values (v_delivery.workspace_id, v_delivery.id, v_delivery.total_attempts, coalesce(v_url, ''),
            v_interrupted_at - make_interval(secs => p_lease_ms / 1000.0), p_lease_ms,
            'no outcome recorded: the worker stopped during this attempt (its lease expired)');
  end if;
  if not coalesce(v_active, false) then
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      last_error = coalesce(last_error, 'target inactive or removed')
    where id = v_delivery.id;
    return null;
  elsif not coalesce(v_takes_kind, true) then
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      last_error = format('the webhook no longer takes %s events (its events were changed)', v_kind)
    where id = v_delivery.id;
    return null;
  end if;

  return jsonb_build_object(
    'deliveryId', v_delivery.id, 'workspaceId', v_delivery.workspace_id, 'eventId', v_delivery.event_id, 'channel', v_delivery.channel,
    'attempt', v_delivery.total_attempts + 1, 'url', v_url, 'secret', v_secret, 'previousSecret', v_previous,
    'kind', v_kind,
    'body', (select app_hidden.event_json(e, false)::text from app_public.activity_events e where e.id = v_delivery.event_id));
end
$$;
comment on function app_private.webhook_delivery_claim(p_delivery_id uuid, p_lease_ms integer) is 'Worker: leases a due PENDING delivery for p_lease_ms and returns what to POST (url, secret, exact body, attempt number) and whose it is (workspaceId: the worker spreads slow targets'' retries per workspace); CANCELED instead when its target is inactive or gone, or its webhook''s events no longer name the kind. A lease left by a worker that stopped mid-attempt is recorded as an attempt with no outcome. NULL when there is nothing to do.';

create or replace function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[])
 returns jsonb
 language plpgsql
as $$
declare
  v_delivery app_public.webhook_deliveries;
  v_code int := (p_attempt->>'statusCode')::int;
  v_error text := left(p_attempt->>'error', 1000);
  v_next timestamptz;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null or v_delivery.status <> 'PENDING' then
    return jsonb_build_object('status', coalesce(v_delivery.status, 'GONE'));
  end if;
  insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at,
                                                    duration_ms, status_code, error, response_body)
  values (v_delivery.workspace_id, v_delivery.id, v_delivery.total_attempts + 1, p_attempt->>'url',
          (p_attempt->>'startedAt')::timestamptz, (p_attempt->>'durationMs')::int, v_code, v_error,
          left(p_attempt->>'responseBody', 2048));

  if v_code between 200 and 299 then
    update app_public.webhook_deliveries set status = 'DELIVERED', delivered_at = now(), locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code, last_error = null
    where id = v_delivery.id;
    return jsonb_build_object('status', 'DELIVERED');
  end if;

  if v_code = 410 and v_delivery.webhook_id is not null then
    -- The receiver says the endpoint is gone for good: stop sending to it.
    perform app_private.webhook_deactivate(v_delivery.webhook_id, 'endpoint answered 410 Gone');
    update app_public.webhook_deliveries set status = 'CANCELED', locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = 'endpoint answered 410 Gone; webhook deactivated'
    where id = v_delivery.id;
    return jsonb_build_object('status', 'CANCELED', 'deactivated', true);
  end if;

  if v_delivery.attempt_count + 1 <= coalesce(cardinality(p_backoff_seconds), 0) then
    v_next := clock_timestamp() + make_interval(secs => p_backoff_seconds[v_delivery.attempt_count + 1]);
    update app_public.webhook_deliveries set next_attempt_at = v_next, locked_until = null,
      attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
      last_error = coalesce(v_error, format('HTTP %s', v_code))
    where id = v_delivery.id;
    perform app_private.enqueue_delivery_job(v_delivery.id, v_next);
    return jsonb_build_object('status', 'PENDING', 'nextAttemptAt', v_next);
  end if;

  update app_public.webhook_deliveries set status = 'DEAD_LETTER', dead_lettered_at = now(), locked_until = null,
    attempt_count = attempt_count + 1, total_attempts = total_attempts + 1, last_status_code = v_code,
    last_error = coalesce(v_error, format('HTTP %s', v_code))
  where id = v_delivery.id;
  return jsonb_build_object('status', 'DEAD_LETTER');
end
$$;
comment on function app_private.webhook_delivery_record(p_delivery_id uuid, p_attempt jsonb, p_backoff_seconds numeric[]) is 'Worker: records one attempt and moves the delivery on: 2xx DELIVERED; 410 deactivates the webhook (CANCELED); otherwise the next retry after p_backoff_seconds[n], or DEAD_LETTER when the schedule is spent.';

create or replace function app_private.webhook_delivery_retry(p_delivery_id uuid)
 returns jsonb
 language plpgsql
as $$
declare v_delivery app_public.webhook_deliveries;
begin
  select * into v_delivery from app_public.webhook_deliveries where id = p_delivery_id for update;
  if v_delivery.id is null then
    perform app_hidden.raise_not_found('Delivery', null);
  end if;
  if v_delivery.status not in ('DEAD_LETTER', 'CANCELED') then
    raise exception 'Only DEAD_LETTER or CANCELED deliveries can be retried (this one is %)', v_delivery.status
      using errcode = 'SV409', detail = 'not_dead_letter';
  end if;
  if v_delivery.webhook_id is not null and not exists (
    select 1 from app_public.webhooks w where w.id = v_delivery.webhook_id and w.active) then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  update app_public.webhook_deliveries set status = 'PENDING', attempt_count = 0, next_attempt_at = now(),
    locked_until = null, dead_lettered_at = null
  where id = p_delivery_id
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_delivery_retry(p_delivery_id uuid) is 'Puts a DEAD_LETTER (or CANCELED) delivery back in the queue with a fresh retry schedule; same event, same webhook-id.';

drop function if exists app_private.webhook_rotate_secret(uuid);
create or replace function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer default 24)
 returns jsonb
 language plpgsql
as $$
declare
  v_secret text := app_private.new_webhook_secret();
  v_until timestamptz := app_private.previous_secret_until(p_keep_previous_hours);
begin
  -- The old secret keeps signing beside the new one (webhook-signature carries both) until the receiver has the new
  -- one: a rotation no longer breaks a live integration. 0 ends it at once (a leaked secret).
  update app_private.webhook_secrets
  set previous_secret = case when v_until is not null then secret end, previous_secret_expires_at = v_until,
      secret = v_secret, rotated_at = now()
  where webhook_id = p_webhook_id;
  if not found then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  -- Whoever holds its new secret answers for it (null: the operator), as whoever re-points it does.
  update app_public.webhooks set owner_user_id = app_hidden.current_user_id()
  where id = p_webhook_id and owner_user_id is distinct from app_hidden.current_user_id();
  perform app_private.record_event(w.workspace_id, 'WEBHOOK_UPDATED', 'webhook', w.id, app_hidden.webhook_event_payload(w)
    || jsonb_build_object('changes', jsonb_build_array('secret'), 'previousSecretValidUntil', v_until))
  from app_public.webhooks w where w.id = p_webhook_id;
  return jsonb_build_object('id', p_webhook_id, 'secret', v_secret, 'previousSecretValidUntil', v_until);
end
$$;
comment on function app_private.webhook_rotate_secret(p_webhook_id uuid, p_keep_previous_hours integer) is 'Replaces a webhook''s signing secret and returns the new one (shown once); the old one also signs deliveries for p_keep_previous_hours (0: stops at once; previousSecretValidUntil says until when). Records WEBHOOK_UPDATED (changes secret; never a secret).';

drop function if exists app_private.check_keep_previous_hours(integer);
create or replace function app_private.previous_secret_until(p_hours integer)
 returns timestamptz
 language plpgsql
 stable
as $$
begin
  if p_hours is null or p_hours < 0 or p_hours > 168 then
    perform app_hidden.raise_invalid('keepPreviousHours', 'keepPreviousHours must be from 0 (the old secret stops at once) to 168 (a week)');
  end if;
  return case when p_hours > 0 then now() + make_interval(hours => p_hours) end;
end
$$;
comment on function app_private.previous_secret_until(p_hours integer) is 'A rotation''s grace for the old secret (webhooks and agent dispatch): until when it still signs, null for 0 hours (it stops at once); 0 to 168, else 400 on keepPreviousHours.';

create or replace function app_private.webhook_test(p_webhook_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_webhook app_public.webhooks;
  v_event uuid;
  v_delivery app_public.webhook_deliveries;
begin
  select * into v_webhook from app_public.webhooks where id = p_webhook_id;
  if v_webhook.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  if not v_webhook.active then
    raise exception 'The webhook is inactive; activate it first' using errcode = 'SV409', detail = 'webhook_inactive';
  end if;
  -- A stored event (the audit trail says who tested which webhook; deliveries need one), which the outbox
  -- trigger fans out to no webhook: only this one gets it, whatever its event filter.
  v_event := app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_TESTED', 'webhook', v_webhook.id,
    app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('test', true));
  insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
  values (v_webhook.workspace_id, v_event, v_webhook.id, 'webhook:' || v_webhook.id)
  returning * into v_delivery;
  perform app_private.enqueue_delivery_job(v_delivery.id);
  return app_hidden.webhook_delivery_json(v_delivery);
end
$$;
comment on function app_private.webhook_test(p_webhook_id uuid) is 'Records WEBHOOK_TESTED about a webhook and queues its delivery to that webhook only (signed and retried like any delivery); 409 webhook_inactive.';

create or replace function app_private.webhook_update(p_webhook_id uuid, p_url text default NULL::text, p_events text[] default NULL::text[], p_active boolean default NULL::boolean, p_description text default NULL::text)
 returns jsonb
 language plpgsql
as $$
declare
  v_events text[] := app_private.check_webhook_input(p_url, p_events);
  v_old app_public.webhooks;
  v_webhook app_public.webhooks;
  v_changes text[] := '{}';
begin
  select * into v_old from app_public.webhooks where id = p_webhook_id for update;
  if v_old.id is null then
    perform app_hidden.raise_not_found('Webhook', null);
  end if;
  -- A change that changes nothing writes nothing (updatedAt moved, with no event).
  update app_public.webhooks set
    url = coalesce(p_url, url),
    events = coalesce(v_events, events),
    description = coalesce(p_description, description),
    -- Whoever points it elsewhere answers for where it sends (null: the operator): it stops when they leave (an
    -- admin re-pointed the operator's webhook at themselves, left, and kept receiving).
    -- (And whoever turns it back on: one stopped because its owner left would send to their address for good.)
    owner_user_id = case when coalesce(p_url, url) is distinct from url or (p_active and not active)
                         then app_hidden.current_user_id() else owner_user_id end,
    active = coalesce(p_active, active),
    deactivated_at = case when p_active then null when p_active = false and active then now() else deactivated_at end,
    deactivated_reason = case when p_active then null when p_active = false and active then 'deactivated by an admin' else deactivated_reason end
  where id = p_webhook_id
    and (coalesce(p_url, url) is distinct from url or coalesce(v_events, events) is distinct from events
         or coalesce(p_description, description) is distinct from description or coalesce(p_active, active) is distinct from active)
  returning * into v_webhook;
  if v_webhook.id is null then
    return app_hidden.webhook_json(v_old);
  end if;
  if v_webhook.url is distinct from v_old.url then v_changes := array_append(v_changes, 'url'); end if;
  if v_webhook.events is distinct from v_old.events then v_changes := array_append(v_changes, 'events'); end if;
  if v_webhook.active is distinct from v_old.active then v_changes := array_append(v_changes, 'active'); end if;
  if v_webhook.description is distinct from v_old.description then v_changes := array_append(v_changes, 'description'); end if;
  -- A change that changes nothing records nothing. The event names what changed, never the values.
  if cardinality(v_changes) > 0 then
    perform app_private.record_event(v_webhook.workspace_id, 'WEBHOOK_UPDATED', 'webhook', v_webhook.id,
      app_hidden.webhook_event_payload(v_webhook) || jsonb_build_object('changes', to_jsonb(v_changes)));
  end if;
  return app_hidden.webhook_json(v_webhook);
end
$$;
comment on function app_private.webhook_update(p_webhook_id uuid, p_url text, p_events text[], p_active boolean, p_description text) is 'Changes url, events, description or active (NULL = unchanged). Reactivating clears the deactivation reason; pending deliveries of an inactive webhook, or of a kind its events no longer name, are canceled when their turn comes. Records WEBHOOK_UPDATED naming the changed fields (none changed: no event).';

create or replace function app_private.webhooks_list(p_workspace_id uuid)
 returns jsonb
 language sql
 stable
as $$
  select coalesce(jsonb_agg(app_hidden.webhook_json(w) || jsonb_build_object(
      'pending', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'PENDING'),
      'deadLetters', (select count(*) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id and d.status = 'DEAD_LETTER'),
      'lastDeliveredAt', (select max(d.delivered_at) from app_public.webhook_deliveries d where d.workspace_id = w.workspace_id and d.webhook_id = w.id))
    order by w.created_at, w.id), '[]')
  from app_public.webhooks w where w.workspace_id = p_workspace_id
$$;
comment on function app_private.webhooks_list(p_workspace_id uuid) is 'The workspace''s webhooks with pending and dead-letter counts (no secrets).';

create or replace function app_public.webhook_deliveries_retry(delivery_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delivery_retry(delivery_id) $$;
comment on function app_public.webhook_deliveries_retry(delivery_id uuid) is '@arg deliveryId A DEAD_LETTER or CANCELED delivery whose target is active (409 otherwise).
@result The delivery, PENDING again, as JSON: {id, eventId, eventKind, webhookId, agentId, channel, status, attemptCount, totalAttempts, nextAttemptAt, lastStatusCode, lastError, deliveredAt, deadLetteredAt, createdAt, attempts}.
OWNER/ADMIN: puts a dead-lettered delivery back in the queue (same event, same webhook-id).';
grant execute on function app_public.webhook_deliveries_retry(delivery_id uuid) to svc_visitor;

create or replace function app_public.webhooks_create(url text, events text[] default '{}'::text[], description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_create(url, events, description) $$;
comment on function app_public.webhooks_create(url text, events text[], description text) is '@arg url Where deliveries go: an http(s) URL without credentials, at most 2,048 characters, checked (DNS included) before saving.
@arg events Event kinds to deliver, at most 100; omitted or empty = every kind.
@arg description A note about the webhook, at most 500 characters.
@result The webhook as JSON, {id, url, events, active, description, deactivatedAt, deactivatedReason, createdAt, updatedAt, secret}: the signing secret is shown only here.
OWNER/ADMIN: registers a webhook for the given event kinds (empty = all). Returns {id, url, events, active, secret}; the secret is shown only here.';
grant execute on function app_public.webhooks_create(url text, events text[], description text) to svc_visitor;

create or replace function app_public.webhooks_delete(webhook_id uuid)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_delete(webhook_id) $$;
comment on function app_public.webhooks_delete(webhook_id uuid) is '@arg webhookId The webhook to delete.
@result {id, deleted: true} as JSON.
OWNER/ADMIN: deletes a webhook with its secret and all its deliveries and their attempts.';
grant execute on function app_public.webhooks_delete(webhook_id uuid) to svc_visitor;

create or replace function app_public.webhooks_overview()
 returns jsonb
 language sql
 stable
as $$ select app_hidden.webhooks_list() $$;
comment on function app_public.webhooks_overview() is 'OWNER/ADMIN: the workspace''s webhooks with delivery health counts.';
grant execute on function app_public.webhooks_overview() to svc_visitor;

drop function if exists app_public.webhooks_rotate_secret(uuid);
create or replace function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer default 24)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_rotate_secret(webhook_id, coalesce(keep_previous_hours, 24)) $$;
comment on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) is '@arg webhookId The webhook whose signing secret to replace.
@arg keepPreviousHours Hours the old secret keeps signing beside the new one, 0 (it stops at once) to 168; default 24.
@result {id, secret, previousSecretValidUntil} as JSON: the new secret is shown only here.
OWNER/ADMIN: replaces the signing secret and returns the new one (shown once); the old one also signs deliveries for keepPreviousHours (default 24, 0 to 168; 0 stops it at once).';
grant execute on function app_public.webhooks_rotate_secret(webhook_id uuid, keep_previous_hours integer) to svc_visitor;

create or replace function app_public.webhooks_update(webhook_id uuid, url text default NULL::text, events text[] default NULL::text[], active boolean default NULL::boolean, description text default NULL::text)
 returns jsonb
 language sql
as $$ select app_hidden.webhook_update(webhook_id, url, events, active, description) $$;
comment on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) is '@arg webhookId The webhook to change.
@arg url New URL, checked before saving; omitted = unchanged.
@arg events New event filter (empty = every kind); omitted = unchanged.
@arg active False stops deliveries (pending ones are canceled), true resumes them; omitted = unchanged.
@arg description New note; omitted = unchanged.
@result The webhook as JSON, without its secret: {id, url, events, active, description, deactivatedAt, deactivatedReason, createdAt, updatedAt}.
OWNER/ADMIN: changes the fields given of a webhook (omitted = unchanged); active false pauses deliveries.';
grant execute on function app_public.webhooks_update(webhook_id uuid, url text, events text[], active boolean, description text) to svc_visitor;
--! EndIncluded webhooks/webhooks.sql
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
  -- The domain's labels: none empty (owner@a.test. made a second person beside owner@a.test).
  if p_email !~ '^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*$' then
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
  -- Before the membership row, in the order webhook changes take them (the registrations' lock, then the member's
  -- row): their webhooks are stopped below.
  perform app_private.lock_webhook_registrations(p_workspace_id);
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
  -- The webhooks that are theirs (registered, re-pointed or re-keyed by them) stop (an admin may turn them back on):
  -- a person who left kept receiving the workspace's events, titles and all, at an address of their choosing. Under
  -- the registrations' lock (taken above), so a re-pointing of theirs in flight is seen, or waits and finds them gone.
  perform app_private.webhook_deactivate(w.id, 'its owner left the workspace')
  from app_public.webhooks w where w.workspace_id = p_workspace_id and w.owner_user_id = p_user_id and w.active;
  -- Their name stays on what they did (comments, events, time): users are visible to a workspace's keys while members
  -- and after (the users policy).
  insert into app_public.former_members (workspace_id, user_id) values (p_workspace_id, p_user_id)
  on conflict (workspace_id, user_id) do update set removed_at = now();
  return v_m;
end
$$;
comment on function app_private.remove_member(p_workspace_id uuid, p_user_id uuid) is 'Removes a member (MEMBERSHIP_REMOVED by trigger), revokes their keys in the workspace (the plugin keys they issued too), releases their claims, stops their running timer, drops their watches, unassigns requests assigned to them, stops the webhooks that are theirs (owner_user_id), and keeps them as a former member (their name stays on their work); the last OWNER stays (409 last_owner).';

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

create or replace function app_private.delete_workspace(p_workspace_id uuid)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_counts jsonb;
  v_key text;
  v_files int := 0;
  v_members uuid[];
  v_users jsonb;
begin
  select * into v_ws from app_public.workspaces w where w.id = p_workspace_id for update;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace', null);
  end if;
  v_counts := jsonb_build_object(
    'issues', (select count(*) from app_public.issues i where i.workspace_id = p_workspace_id),
    'comments', (select count(*) from app_public.comments c where c.workspace_id = p_workspace_id),
    'events', (select count(*) from app_public.activity_events e where e.workspace_id = p_workspace_id),
    'keys', (select count(*) from app_private.api_keys k where k.workspace_id = p_workspace_id));
  -- The files' bytes go once this commits (a worker job each, as for a deleted comment's files): the rows go now.
  for v_key in
    select a.storage_key from app_public.attachments a where a.workspace_id = p_workspace_id and a.storage_key is not null
    union
    select u.storage_key from app_public.attachment_uploads u where u.workspace_id = p_workspace_id
  loop
    perform app_private.attachments_enqueue('svc_attachment_blob_delete', json_build_object('storageKey', v_key));
    v_files := v_files + 1;
  end loop;
  v_members := array(select m.user_id from app_public.memberships m where m.workspace_id = p_workspace_id
                     union select f.user_id from app_public.former_members f where f.workspace_id = p_workspace_id);
  -- Everything of the workspace goes with its row (every reference to it cascades); its keys' streams and cached
  -- copies end on every process (api_keys' delete trigger notifies), and the rows deleted in the cascade write no
  -- events (tg_workspaces__deleting).
  delete from app_public.workspaces w where w.id = p_workspace_id;
  -- People whose only workspace it was, as member or former member, go too (their email is personal data); those
  -- who belong elsewhere stay, with their work there. Their rows are locked first, so a membership elsewhere being
  -- added at this moment is seen by the delete below (else its cascade took that membership away, with no event).
  perform 1 from app_public.users u where u.id = any(v_members) order by u.id for update;
  with gone as (
    delete from app_public.users u
    where u.id = any(v_members)
      and not exists (select 1 from app_public.memberships m where m.user_id = u.id)
      and not exists (select 1 from app_public.former_members f where f.user_id = u.id)
    returning u.email)
  select coalesce(jsonb_agg(g.email order by g.email), '[]') into v_users from gone g;
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'deleted', v_counts || jsonb_build_object('files', v_files, 'users', v_users));
end
$$;
comment on function app_private.delete_workspace(p_workspace_id uuid) is 'Deletes a workspace and everything in it (svc admin delete-workspace): every row that references it (by cascade, writing no events), its keys (their streams end), its files (a svc_attachment_blob_delete job each, once this commits), and the users whose only workspace it was. Returns the workspace and what went: issues, comments, events, keys, files, users (emails).';
--! EndIncluded workspace/workspace.sql
