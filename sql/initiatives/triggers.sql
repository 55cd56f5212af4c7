-- Triggers of the initiatives tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_initiatives__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_CREATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name));
    return null;
  end if;
  v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'description', 'archived_at:archived']);
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'INITIATIVE_UPDATED', 'initiative', new.id,
      jsonb_build_object('initiativeId', new.id, 'name', new.name, 'changes', to_jsonb(v_changed),
                         'archived', new.archived_at is not null));
  end if;
  return null;
end
$$;
comment on function app_private.tg_initiatives__events() is 'INITIATIVE_CREATED; INITIATIVE_UPDATED when name, description or archived state change (kinds beyond spec 6.1, see docs/decisions.md).';

drop trigger if exists _100_updated_at on app_public.initiatives;
create trigger _100_updated_at before update on app_public.initiatives for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.initiatives;
create trigger _800_events after insert or update on app_public.initiatives for each row execute function app_private.tg_initiatives__events();
