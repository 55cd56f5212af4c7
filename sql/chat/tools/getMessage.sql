-- The chat.getMessage tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- one message by id (e.g. the messageId of a CHAT_MESSAGE_POSTED delivery), in a thread addressed to the
-- key's agent (gated as chat.getThread), with the shape of chat.getThread's messages.
create or replace function app_tools.chat_get_message(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
begin
  return app_hidden.chat_message_json(app_hidden.chat_message_for_agent(args->>'id'));
end
$$;
grant execute on function app_tools.chat_get_message(args jsonb) to svc_visitor;
comment on function app_tools.chat_get_message(args jsonb) is 'chat.getMessage: One message by id (e.g. a CHAT_MESSAGE_POSTED messageId), shaped as in chat.getThread. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
