-- Triggers of the repohost tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_external_links__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_row app_public.external_links := case when tg_op = 'DELETE' then old else new end;
begin
  perform app_private.record_issue_updated(v_row.workspace_id, v_row.issue_id, array['externalResources'],
    jsonb_build_object('externalLinkId', v_row.id, 'externalResourceId', v_row.resource_id, 'linkKind', v_row.kind));
  return null;
end
$$;
comment on function app_private.tg_external_links__events() is 'ISSUE_UPDATED (changes externalResources) when an issue is linked to an external issue/PR, or the link changes kind or goes.';

drop trigger if exists _800_events on app_public.external_links;
create trigger _800_events after insert or delete or update of kind on app_public.external_links for each row execute function app_private.tg_external_links__events();

create or replace function app_private.tg_external_resources__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.state is distinct from old.state or new.title is distinct from old.title then
    perform app_private.record_issue_updated(l.workspace_id, l.issue_id, array['externalResources'],
      jsonb_build_object('externalResourceId', new.id, 'externalState', new.state))
    from app_public.external_links l where l.workspace_id = new.workspace_id and l.resource_id = new.id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_external_resources__events() is 'ISSUE_UPDATED (changes externalResources) on every linked issue when a refreshed snapshot changes the external state or title.';

drop trigger if exists _800_events on app_public.external_resources;
create trigger _800_events after update on app_public.external_resources for each row execute function app_private.tg_external_resources__events();

drop trigger if exists _100_updated_at on app_public.connection_mappings;
create trigger _100_updated_at before update on app_public.connection_mappings for each row execute function app_hidden.tg__set_updated_at();
