-- The chat.listMessages tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the messages of a thread addressed to the key's agent (gated as chat.getThread) after a message (cursor = a
-- message id of the thread: nextCursor, or the last message the agent read; none = from the first), oldest first,
-- paged forward: what arrived since. chat.getThread pages the other way, from the newest back.
create or replace function app_tools.chat_list_messages(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_after_seq bigint := 0;
begin
  if args->>'cursor' is not null then
    v_after_seq := app_hidden.chat_message_seq(v_thread, args->>'cursor', 'cursor');
  end if;
  -- The cursor is the last message id of the page (page_json with no prefix: the sort key itself).
  return app_hidden.page_json(array(
    select (app_hidden.chat_message_json(m), m.id::text, null)::app_hidden.page_row
    from app_public.chat_messages m
    where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id and m.seq > v_after_seq
    order by m.seq limit v_limit + 1), v_limit, null);
end
$$;
grant execute on function app_tools.chat_list_messages(args jsonb) to svc_visitor;
comment on function app_tools.chat_list_messages(args jsonb) is 'chat.listMessages: Messages of a thread after one (cursor = nextCursor or the id of a message of the thread, e.g. the last one you read; none = from the first), oldest first, paged forward: what came since you last read. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
