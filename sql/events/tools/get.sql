-- The events.get tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one activity event whose subject the key can see.
create or replace function app_tools.events_get(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare v_event app_public.activity_events;
begin
  select * into v_event from app_public.activity_events e
  where e.id = app_hidden.parse_uuid(args->>'id', 'id') and e.workspace_id = app_hidden.current_workspace_id()
    and app_hidden.event_subject_visible(e.subject_type, e.subject_id, e.payload);
  return app_hidden.event_json(app_hidden.found(v_event, 'Event'));
end
$$;
comment on function app_tools.events_get(args jsonb) is 'events.get: One activity event by id.';
grant execute on function app_tools.events_get(args jsonb) to svc_visitor;
