-- The chat.finalizeDraft tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- persists the full reply (finalizedDraftId = draftId; CHAT_MESSAGE_POSTED chat-thread) and publishes phase
-- finalized. Finalizing the same draft again returns the stored message and writes nothing.
create or replace function app_tools.chat_finalize_draft(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_draft uuid := app_hidden.parse_uuid(args->>'draftId', 'draftId');
  v_message app_public.chat_messages;
begin
  -- One finalization per draft at a time: a concurrent second call waits here, then finds the stored message
  -- (without the lock both inserted, and the loser's unique violation answered 409).
  perform pg_advisory_xact_lock(hashtextextended('svc.chat_draft:' || v_thread.id::text || v_draft::text, 0));
  select * into v_message from app_public.chat_messages m
  where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id and m.finalized_draft_id = v_draft;
  if v_message.id is null then
    v_message := app_hidden.chat_post_agent_message(v_thread, args->>'body', args->>'sourceRunId', v_draft);
    perform app_hidden.chat_publish_draft(v_thread, jsonb_build_object('phase', 'finalized', 'draftId', v_draft,
      'messageId', v_message.id));
  end if;
  return jsonb_build_object('messageId', v_message.id, 'threadId', v_thread.id, 'draftId', v_draft);
end
$$;
grant execute on function app_tools.chat_finalize_draft(args jsonb) to svc_visitor;
comment on function app_tools.chat_finalize_draft(args jsonb) is 'chat.finalizeDraft: Finish a streamed reply: persists the full body as an AGENT message (finalizedDraftId = draftId, CHAT_MESSAGE_POSTED) and publishes phase finalized. Finalizing the same draft again returns the same message. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
