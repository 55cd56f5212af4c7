-- The chat.getThread tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the thread and its latest messages (default 50, max 200) in chronological order; before = a message id
-- (or the nextCursor, the oldest message returned) pages back.
create or replace function app_tools.chat_get_thread(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_thread app_public.chat_threads := app_hidden.chat_thread_for_agent(args->>'threadId');
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_before_seq bigint;
  v_messages jsonb;
  v_count int;
begin
  if args->>'before' is not null then
    v_before_seq := app_hidden.chat_message_seq(v_thread, args->>'before', 'before');
  end if;
  select coalesce(jsonb_agg(app_hidden.chat_message_json(x.m) order by x.seq) filter (where x.rn <= v_limit), '[]'), count(*)
  into v_messages, v_count
  from (select m, m.seq, row_number() over (order by m.seq desc)
        from app_public.chat_messages m
        where m.workspace_id = v_thread.workspace_id and m.thread_id = v_thread.id
          and (v_before_seq is null or m.seq < v_before_seq)
        order by m.seq desc limit v_limit + 1) x(m, seq, rn);
  return jsonb_build_object('thread', app_hidden.chat_thread_json(v_thread), 'messages', v_messages,
    'nextCursor', case when v_count > v_limit then v_messages->0->>'id' end);
end
$$;
grant execute on function app_tools.chat_get_thread(args jsonb) to svc_visitor;
comment on function app_tools.chat_get_thread(args jsonb) is 'chat.getThread: A thread and its latest messages (default 50, max 200), oldest first: id, role, body, contextSnapshot, sourceRunId, createdAt, finalizedDraftId. before = a message id (or nextCursor) pages back. Needs a key linked to the agent the thread is addressed to (403 otherwise).';
