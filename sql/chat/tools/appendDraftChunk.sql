-- The chat.appendDraftChunk tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- publishes phase delta {delta, seq} on the realtime channel; nothing persisted; seq is advisory.
create or replace function app_tools.chat_append_draft_chunk(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
begin
  perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'delta',
    'draftId', app_hidden.parse_uuid(args->>'draftId', 'draftId'), 'delta', args->>'delta', 'seq', (args->>'seq')::int));
  return jsonb_build_object('ok', true);
end
$$;
grant execute on function app_tools.chat_append_draft_chunk(args jsonb) to svc_visitor;
comment on function app_tools.chat_append_draft_chunk(args jsonb) is 'chat.appendDraftChunk: Publish the next piece of a streamed reply (phase delta {delta, seq}); ephemeral, never stored. seq is advisory: gaps and reordering are tolerated. About one chunk per 60-200 ms. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
