-- Triggers of the labels tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_labels__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'LABEL_CREATED', 'label', new.id,
      jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color));
  elsif tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new), array['name', 'color', 'description']);
    if cardinality(v_changed) > 0 then
      perform app_private.record_event(new.workspace_id, 'LABEL_UPDATED', 'label', new.id,
        jsonb_build_object('labelId', new.id, 'name', new.name, 'color', new.color, 'changes', to_jsonb(v_changed)));
    end if;
  else
    -- labels.delete and labels.merge (the label merged away); its issues' ISSUE_UPDATED labelIds come from the
    -- issue_labels triggers.
    perform app_private.record_event(old.workspace_id, 'LABEL_DELETED', 'label', old.id,
      jsonb_build_object('labelId', old.id, 'name', old.name));
  end if;
  return null;
end
$$;
comment on function app_private.tg_labels__events() is 'AFTER INSERT/UPDATE/DELETE on labels: LABEL_CREATED, LABEL_UPDATED (changes: name, color, description; nothing changed, no event), LABEL_DELETED (labels.delete, labels.merge). Labels are visible to every key of the workspace (label narrowing restricts issues), so are their events.';

drop trigger if exists _100_updated_at on app_public.labels;

create trigger _100_updated_at before update on app_public.labels for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _800_events on app_public.labels;
create trigger _800_events after insert or update or delete on app_public.labels for each row execute function app_private.tg_labels__events();
