-- The chat.listThreads tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- the threads addressed to the calling agent, latest activity (last message, else opening) first, keyset-paged;
-- each with its last message and whether it awaits the agent's reply (last message from a person).
create or replace function app_tools.chat_list_threads(args jsonb)
 returns jsonb
 language plpgsql
 stable
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_limit int := coalesce((args->>'limit')::int, 20);
  v_awaiting boolean := (args->>'awaitingReply')::boolean;
  v_after record := app_hidden.keyset_decode_ts(args->>'cursor', 'chat-threads');
begin
  return app_hidden.page_json(array(
    select (app_hidden.chat_thread_json(t) || jsonb_build_object(
              'lastMessage', case when last.id is not null then jsonb_build_object(
                'id', last.id, 'role', last.role, 'createdAt', last.created_at,
                -- A preview: getThread has the whole body.
                'body', left(last.body, 500), 'truncated', length(last.body) > 500) end,
              'awaitingReply', coalesce(last.role = 'USER', false)),
            app_hidden.ts_key(activity.at), t.id)::app_hidden.page_row
    from app_public.chat_threads t
    left join lateral (select m.id, m.role, m.body, m.created_at from app_public.chat_messages m
                       where m.workspace_id = t.workspace_id and m.thread_id = t.id
                       order by m.seq desc limit 1) last on true
    cross join lateral (select coalesce(last.created_at, t.created_at) as at) activity
    where t.workspace_id = app_hidden.current_workspace_id() and t.agent_id = v_agent.id
      and (v_awaiting is null or coalesce(last.role = 'USER', false) = v_awaiting)
      and (v_after.sort_id is null or (activity.at, t.id) < (v_after.sort_key, v_after.sort_id))
    order by activity.at desc, t.id desc limit v_limit + 1), v_limit, 'chat-threads');
end
$$;
comment on function app_tools.chat_list_threads(args jsonb) is 'chat.listThreads: Threads addressed to your agent, latest activity first, paged: each with lastMessage (a 500-character preview) and awaitingReply (the last message is a person''s). awaitingReply: true lists those only. Needs a key linked to an agent (403 otherwise).';
grant execute on function app_tools.chat_list_threads(args jsonb) to svc_visitor;
