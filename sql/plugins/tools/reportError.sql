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
  v_event uuid;
begin
  if v_plugin is null then
    raise exception 'Only a key issued under a plugin reports its errors (plugin.issueApiKey)' using errcode = 'SV403', detail = 'plugin_key_required';
  end if;
  v_event := app_hidden.record_event('PLUGIN_ERROR', 'plugin', v_plugin, jsonb_build_object(
    'pluginId', v_plugin, 'message', args->>'message', 'skill', args->>'skill',
    'invocationId', app_hidden.parse_uuid(args->>'invocationId', 'invocationId'), 'details', args->'details'));
  return jsonb_build_object('eventId', v_event, 'pluginId', v_plugin);
end
$$;
grant execute on function app_tools.plugins_report_error(args jsonb) to svc_visitor;
comment on function app_tools.plugins_report_error(args jsonb) is 'plugins.reportError: For a plugin''s own key (plugin.issueApiKey): report a runtime error of the plugin, e.g. a skill invocation it could not carry out (skill, invocationId). Recorded as PLUGIN_ERROR (subject the plugin); other keys get 403 plugin_key_required.';
