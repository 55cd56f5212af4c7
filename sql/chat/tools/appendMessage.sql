-- The chat.appendMessage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a single-shot AGENT reply in a thread addressed to the calling agent; CHAT_MESSAGE_POSTED (chat-thread).
create or replace function app_tools.chat_append_message(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_message app_public.chat_messages := app_hidden.chat_post_agent_message(v_thread, args->>'body', args->>'sourceRunId', null);
begin
  return jsonb_build_object('messageId', v_message.id, 'threadId', v_thread.id);
end
$$;
grant execute on function app_tools.chat_append_message(args jsonb) to svc_visitor;
comment on function app_tools.chat_append_message(args jsonb) is 'chat.appendMessage: Reply in one piece: persists an AGENT message (CHAT_MESSAGE_POSTED). Per reply use this or the draft tools, never both. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
