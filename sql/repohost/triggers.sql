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

create or replace function app_private.tg_connection_mappings__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.connection_mappings := case when tg_op = 'DELETE' then old else new end;
  v_changed text[] := '{}';
  v_kind text := case tg_op when 'INSERT' then 'REPO_MAPPING_CREATED' when 'UPDATE' then 'REPO_MAPPING_UPDATED' else 'REPO_MAPPING_DELETED' end;
begin
  -- A mapping's status rules decide what repohost.sync does to linked issues: a change to them is the workspace's to
  -- follow like any other (an outside probe: mappings changed without a trace, where dispatch rules and webhooks tell).
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['repo_full_name', 'token_env', 'api_url', 'status_rules', 'sync_title', 'active']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  -- A workspace being deleted takes its mappings with it: nothing to tell.
  if tg_op = 'DELETE' and not exists (select 1 from app_public.workspaces w where w.id = old.workspace_id) then
    return null;
  end if;
  perform app_private.record_event(v_row.workspace_id, v_kind, 'repo-mapping', v_row.id,
    jsonb_build_object('mappingId', v_row.id, 'repoFullName', v_row.repo_full_name, 'tokenEnv', v_row.token_env,
      'apiUrl', v_row.api_url, 'statusRules', v_row.status_rules, 'syncTitle', v_row.sync_title, 'active', v_row.active)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_connection_mappings__events() is 'AFTER INSERT/UPDATE/DELETE on connection_mappings: REPO_MAPPING_CREATED, REPO_MAPPING_UPDATED (changes: repoFullName, tokenEnv, apiUrl, statusRules, syncTitle, active; nothing changed, no event), REPO_MAPPING_DELETED. Subject repo-mapping; payload the mapping as its readers see it (mappingId, repoFullName, tokenEnv: a variable''s name, never a token, apiUrl, statusRules, syncTitle, active); every key of the workspace reads them, as it reads the mappings.';

drop trigger if exists _800_events on app_public.connection_mappings;
create trigger _800_events after insert or update or delete on app_public.connection_mappings for each row execute function app_private.tg_connection_mappings__events();
