-- The skills.invoke tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- fires a plugin skill: SKILL_INVOKED (subject the plugin) carries the invocation to the plugin, which follows the
-- stream or a webhook with its own key; the input was checked against the skill's inputSchema before this call.
create or replace function app_tools.skills_invoke(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_skill jsonb := app_hidden.plugin_skill(jsonb_build_object('pluginId', app_hidden.parse_uuid(args->>'pluginId', 'pluginId'),
                                                              'skill', args->>'skill'));
  v_issue_id uuid;
  v_invocation uuid := gen_random_uuid();
  v_event uuid;
begin
  if args->>'issueId' is not null then
    v_issue_id := (app_hidden.find_issue(args->>'issueId', 'issueId')).id;
  end if;
  v_event := app_hidden.record_event('SKILL_INVOKED', 'plugin', (v_skill->>'pluginId')::uuid, jsonb_build_object(
    'invocationId', v_invocation, 'pluginId', v_skill->>'pluginId', 'plugin', v_skill->>'plugin', 'skill', v_skill->>'name',
    'input', coalesce(args->'input', '{}'), 'issueId', v_issue_id));
  return jsonb_build_object('invocationId', v_invocation, 'eventId', v_event, 'pluginId', v_skill->>'pluginId',
                            'skill', v_skill->>'name', 'issueId', v_issue_id);
end
$$;
grant execute on function app_tools.skills_invoke(args jsonb) to svc_visitor;
comment on function app_tools.skills_invoke(args jsonb) is 'skills.invoke: Fire a plugin skill: input (checked against the skill''s inputSchema, 64 KB of JSON at most) goes to the plugin as a SKILL_INVOKED event (subject the plugin; issueId, when given, must be an issue you can see). Returns at once with the invocationId; the plugin acts through the tools and reports failures as PLUGIN_ERROR.';
