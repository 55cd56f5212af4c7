-- The plugins.reportError tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a plugin's own key reports a runtime error of the plugin (PLUGIN_ERROR, subject the plugin), e.g. a skill it
-- could not run; other keys get 403 plugin_key_required.
create or replace function app_tools.plugins_report_error(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_plugin uuid := app_hidden.current_plugin_id();
  v_invocation uuid := app_hidden.parse_uuid(args->>'invocationId', 'invocationId');
  v_invoked jsonb;
  v_event uuid;
begin
  if v_plugin is null then
    raise exception 'Only a key issued under a plugin reports its errors (plugin.issueApiKey)' using errcode = 'SV403', detail = 'plugin_key_required';
  end if;
  if v_invocation is not null then
    -- The invocation reported on: one of this plugin's, as this key sees them. The error then follows its issue for
    -- narrowed keys (a plugin's details tend to echo the input), as the SKILL_INVOKED does.
    select e.payload into v_invoked from app_public.activity_events e
    where e.workspace_id = app_hidden.current_workspace_id() and e.subject_type = 'plugin' and e.subject_id = v_plugin
      and e.kind = 'SKILL_INVOKED' and e.payload->>'invocationId' = v_invocation::text
    limit 1;
    if v_invoked is null then
      raise exception 'Invocation not found (a SKILL_INVOKED of this plugin)' using errcode = 'SV404', column = 'invocationId';
    end if;
  end if;
  v_event := app_hidden.record_event('PLUGIN_ERROR', 'plugin', v_plugin, jsonb_build_object(
    'pluginId', v_plugin, 'message', args->>'message', 'skill', coalesce(args->>'skill', v_invoked->>'skill'),
    'invocationId', v_invocation, 'issueId', v_invoked->>'issueId', 'details', args->'details'));
  return jsonb_build_object('eventId', v_event, 'pluginId', v_plugin);
end
$$;
grant execute on function app_tools.plugins_report_error(args jsonb) to svc_visitor;
comment on function app_tools.plugins_report_error(args jsonb) is 'plugins.reportError: For a plugin''s own key (plugin.issueApiKey): report a runtime error of the plugin, e.g. a skill invocation it could not carry out (skill, invocationId). Recorded as PLUGIN_ERROR (subject the plugin; an invocationId must be one of this plugin''s SKILL_INVOKED, else 404, and the error carries its issueId, so a narrowed key sees it only with that issue); other keys get 403 plugin_key_required.';
