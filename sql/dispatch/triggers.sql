-- Triggers of the dispatch tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.dispatch_rules;
create trigger _100_updated_at before update on app_public.dispatch_rules for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_dispatch_rules__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_rule app_public.dispatch_rules := case when tg_op = 'DELETE' then old else new end;
  v_changed text[] := '{}';
  v_kind text := case tg_op when 'INSERT' then 'DISPATCH_RULE_CREATED' when 'UPDATE' then 'DISPATCH_RULE_UPDATED' else 'DISPATCH_RULE_DELETED' end;
begin
  -- Which agent gets which work is the workspace's to follow like any other change (fleet probe: rules changed
  -- without a trace). A rule deleted with the label, project or agent it names says so too.
  if tg_op = 'UPDATE' then
    v_changed := app_hidden.changed_fields(to_jsonb(old), to_jsonb(new),
      array['position', 'name', 'priority', 'label_id', 'project_id', 'target_agent_id', 'enabled']);
    if cardinality(v_changed) = 0 then
      return null;
    end if;
  end if;
  -- A workspace being deleted takes its rules with it: nothing to tell.
  if tg_op = 'DELETE' and not exists (select 1 from app_public.workspaces w where w.id = old.workspace_id) then
    return null;
  end if;
  perform app_private.record_event(v_rule.workspace_id, v_kind, 'dispatch-rule', v_rule.id,
    jsonb_build_object('ruleId', v_rule.id, 'position', v_rule.position, 'name', v_rule.name, 'priority', v_rule.priority,
      'labelId', v_rule.label_id, 'projectId', v_rule.project_id, 'targetAgentId', v_rule.target_agent_id,
      'enabled', v_rule.enabled)
    || case when tg_op = 'UPDATE' then jsonb_build_object('changes', to_jsonb(v_changed)) else '{}' end);
  return null;
end
$$;
comment on function app_private.tg_dispatch_rules__events() is 'AFTER INSERT/UPDATE/DELETE on dispatch_rules: DISPATCH_RULE_CREATED, DISPATCH_RULE_UPDATED (changes: position, name, priority, labelId, projectId, targetAgentId, enabled; nothing changed, no event; a rule moved by another''s insert, delete or a reorder too), DISPATCH_RULE_DELETED (dispatchRulesDelete, or with the label, project or agent it names). Subject dispatch-rule; read by the keys that read the rules (no narrowed key).';

drop trigger if exists _800_events on app_public.dispatch_rules;
create trigger _800_events after insert or update or delete on app_public.dispatch_rules for each row execute function app_private.tg_dispatch_rules__events();
