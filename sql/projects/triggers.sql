-- Triggers of the projects tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_projects__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'PROJECT_CREATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id));
  elsif (new.name, new.description, new.initiative_id, new.archived_at)
        is distinct from (old.name, old.description, old.initiative_id, old.archived_at) then
    -- changes names the fields that moved, as the other *_UPDATED events do (archived: archived or restored, as INITIATIVE_UPDATED says).
    perform app_private.record_event(new.workspace_id, 'PROJECT_UPDATED', 'project', new.id,
      jsonb_build_object('projectId', new.id, 'name', new.name, 'initiativeId', new.initiative_id,
                         'archived', new.archived_at is not null,
                         'changes', to_jsonb(app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
                           array['name', 'description', 'initiative_id', 'archived_at:archived']))));
  end if;
  return null;
end
$$;
comment on function app_private.tg_projects__events() is 'PROJECT_CREATED; PROJECT_UPDATED on edit, initiative link/unlink or archive, naming the changed fields (changes).';

drop trigger if exists _100_updated_at on app_public.projects;
create trigger _100_updated_at before update on app_public.projects for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.projects;
create trigger _800_events after insert or update on app_public.projects for each row execute function app_private.tg_projects__events();
