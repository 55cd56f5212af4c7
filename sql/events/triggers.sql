-- Triggers of the events tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_activity_events__webhooks()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_delivery uuid;
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
    perform app_private.enqueue_delivery_job(v_delivery);
  end loop;
  return null;
end
$$;
comment on function app_private.tg_activity_events__webhooks() is 'AFTER INSERT on activity_events: one delivery (and its job) per active webhook whose filter matches, in the event''s transaction.';

drop trigger if exists _500_webhooks on app_public.activity_events;
create trigger _500_webhooks after insert on app_public.activity_events for each row execute function app_private.tg_activity_events__webhooks();
