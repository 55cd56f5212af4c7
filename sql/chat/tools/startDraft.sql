-- The chat.startDraft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new draftId; publishes phase started on the realtime channel; nothing persisted.
create or replace function app_tools.chat_start_draft(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_draft uuid := gen_random_uuid();
begin
  perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'started', 'draftId', v_draft));
  return jsonb_build_object('draftId', v_draft, 'threadId', v_thread.id);
end
$$;
grant execute on function app_tools.chat_start_draft(args jsonb) to svc_visitor;
comment on function app_tools.chat_start_draft(args jsonb) is 'chat.startDraft: Start a streamed reply: returns a draftId and publishes phase started on the realtime channel (SSE only; nothing stored). Then appendDraftChunk… and finalizeDraft. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
