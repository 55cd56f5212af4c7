-- Triggers of the events tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_activity_events__sequence()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_pos bigint;
begin
  -- Held until this transaction ends: the next event-writing commit of the workspace waits here, so
  -- a lower position can never become visible after a higher one. Hash collisions between
  -- workspaces only serialise a little more.
  perform pg_advisory_xact_lock(1398161490, hashtext(new.workspace_id::text));
  update app_public.activity_events set stream_pos = nextval('app_private.activity_event_stream_pos')
  where id = new.id
  returning stream_pos into v_pos;
  if v_pos is not null then
    perform pg_notify('svc_events', json_build_object(
      'id', new.id, 'seq', new.seq, 'pos', v_pos, 'workspaceId', new.workspace_id)::text);
  end if;
  return null;
end
$$;
comment on function app_private.tg_activity_events__sequence() is 'Deferred (commit-time) trigger: allocates stream_pos under a per-workspace advisory lock, so positions follow commit order, then NOTIFYs svc_events with {id, seq, pos, workspaceId} (ids only).';

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

drop trigger if exists _900_sequence_and_notify on app_public.activity_events;
CREATE CONSTRAINT TRIGGER _900_sequence_and_notify after insert on app_public.activity_events DEFERRABLE INITIALLY DEFERRED for each row execute function app_private.tg_activity_events__sequence();
