--! Previous: sha1:e1df27042bd15457d4a9f1e95acf8aff5a2efd72
--! Hash: sha1:db50581fa6a74f260a7b6148ba1e79508606d636
--! Message: Webhook trigger: the per-transaction delivery count only when an event has deliveries

--! split: 1-current.sql
-- The webhook trigger reads and writes its transaction's delivery count only when an event has deliveries: an event
-- no webhook hears paid ~10 µs for it (issues.create's SQL measured 0.60 of the reference, 0.72 before the count).
--! Included events/triggers.sql
-- Triggers of the events tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_activity_events__webhooks()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_delivery uuid;
  -- Jobs this transaction queued itself so far (transaction-local), read at the first delivery: an event no webhook
  -- hears (most, and every one of a workspace without webhooks) pays nothing for the count (~10 µs an event).
  v_queued int;
  v_left_over boolean := false;
begin
  for v_delivery in
    insert into app_public.webhook_deliveries (workspace_id, event_id, webhook_id, channel)
    select new.workspace_id, new.id, w.id, 'webhook:' || w.id
    from app_public.webhooks w
    where w.workspace_id = new.workspace_id and w.active
      and (cardinality(w.events) = 0 or new.kind = any(w.events))
      -- A webhook hears nothing about its own registration (the others do; its receiver may not hold a new
      -- secret yet), and WEBHOOK_TESTED goes to the tested webhook alone (app_private.webhook_test queues it).
      and not (new.subject_type = 'webhook' and new.subject_id = w.id)
      and new.kind <> 'WEBHOOK_TESTED'
    returning id
  loop
    -- A job costs the writer ~0.3 ms: a change to thousands of issues, each event fanned out to dozens of webhooks,
    -- ran past every time limit. Past the first 200 of a transaction, deliveries are written here and their jobs
    -- queued after commit by one svc_webhook_fanout job (webhook_fanout).
    v_queued := coalesce(v_queued, nullif(current_setting('svc.deliveries_queued', true), '')::int, 0);
    if v_queued < 200 then
      perform app_private.enqueue_delivery_job(v_delivery);
      v_queued := v_queued + 1;
    else
      v_left_over := true;
    end if;
  end loop;
  if v_queued is not null then
    perform set_config('svc.deliveries_queued', v_queued::text, true);
  end if;
  if v_left_over then
    perform app_private.enqueue_fanout_job(new.workspace_id);
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__webhooks() is 'AFTER INSERT on activity_events: one delivery per active webhook whose filter matches, in the event''s transaction; the first 200 deliveries of a transaction get their jobs here, the rest from one svc_webhook_fanout job after commit.';

drop trigger if exists _500_webhooks on app_public.activity_events;
create trigger _500_webhooks after insert on app_public.activity_events for each row execute function app_private.tg_activity_events__webhooks();
--! EndIncluded events/triggers.sql
