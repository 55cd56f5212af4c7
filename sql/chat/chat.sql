-- chat: shapes, the addressee check, posting messages and the in-app procedures (open a thread, post as a person).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.chat_thread_json(t app_public.chat_threads)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', t.id, 'agentId', t.agent_id,
    'agent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
              from app_public.agents a where a.id = t.agent_id),
    'createdByUserId', t.created_by_user_id,
    'createdBy', app_hidden.user_ref_json(t.created_by_user_id),
    'title', t.title, 'issueId', t.issue_id,
    'lastMessageAt', (select max(m.created_at) from app_public.chat_messages m
                      where m.workspace_id = t.workspace_id and m.thread_id = t.id),
    'createdAt', t.created_at, 'updatedAt', t.updated_at)
$$;
comment on function app_hidden.chat_thread_json(t app_public.chat_threads) is 'ChatThread: the addressee agent {id, profileKey, name}, who opened it, title, issueId, lastMessageAt.';
grant execute on function app_hidden.chat_thread_json(t app_public.chat_threads) to svc_visitor;

create or replace function app_hidden.chat_message_json(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object(
    'id', m.id, 'threadId', m.thread_id, 'role', m.role, 'body', m.body,
    -- The issue of a person's context only if the caller may see it (a narrowed agent key may not); its route then
    -- goes too, as it names the issue (/issue/ENG-2).
    'contextSnapshot', case when m.context_snapshot->>'issueId' is not null
                             and app_hidden.visible_issue_id((m.context_snapshot->>'issueId')::uuid) is null
                            then m.context_snapshot || '{"issueId": null, "route": null}'
                            else m.context_snapshot end,
    'sourceRunId', m.source_run_id, 'createdAt', m.created_at, 'finalizedDraftId', m.finalized_draft_id,
    'authorUserId', m.author_user_id, 'authorAgentId', m.author_agent_id)
$$;
comment on function app_hidden.chat_message_json(m app_public.chat_messages) is 'ChatMessage (spec 2.12): id, threadId, role, body, contextSnapshot (its issueId and route null when the caller cannot see that issue), sourceRunId, createdAt, finalizedDraftId (+ author ids).';
grant execute on function app_hidden.chat_message_json(m app_public.chat_messages) to svc_visitor;

-- GraphQL reads the context through the shape's rule, never the raw column (a narrowed key read a hidden issue's id there).
comment on column app_public.chat_messages.context_snapshot is E'@behavior -*\nUSER messages: where the person was ({route, issueId}); read by agent.context.bundle (linkedIssues). GraphQL: ChatMessage.contextSnapshot (app_public.chat_messages_context_snapshot).';
comment on column app_public.chat_messages.seq is 'Insertion order (messages of one transaction share created_at), from the workspace''s own sequence (app_private.tg_chat_messages__seq).';

create or replace function app_public.chat_messages_context_snapshot(m app_public.chat_messages)
 returns jsonb
 language sql
 stable
as $$ select app_hidden.chat_message_json(m)->'contextSnapshot' $$;
comment on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) is 'USER messages: where the person was ({route, issueId}); issueId and route are null when the key cannot see that issue.';
grant execute on function app_public.chat_messages_context_snapshot(m app_public.chat_messages) to svc_visitor;

create or replace function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text)
 returns bigint
 language plpgsql
 stable
as $$
declare v_seq bigint;
begin
  select m.seq into v_seq from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, p_field) and m.workspace_id = p_thread.workspace_id
    and m.thread_id = p_thread.id;
  if v_seq is null then
    raise exception '% must be the id of a message of this thread', p_field using errcode = 'SV400', column = p_field;
  end if;
  return v_seq;
end
$$;
comment on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) is 'The position (seq) of a message of the thread, for paging from it (chat.getThread before, chat.listMessages cursor); 400 naming the field otherwise.';
grant execute on function app_hidden.chat_message_seq(p_thread app_public.chat_threads, p_message_id text, p_field text) to svc_visitor;

create or replace function app_hidden.chat_thread_issue_visible(p_issue_id uuid)
 returns boolean
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- The issues policy's own rule (unrestricted key, or the issue passes the narrowing), asked as the owner so
  -- that definer functions and policies get the same answer; and the issue is not deleted (a deleted issue's
  -- threads are 404, as its requests). plpgsql: its query is planned once per session.
  return p_issue_id is null or exists (
    select 1 from app_public.issues i
    where i.id = p_issue_id and i.workspace_id = app_hidden.current_workspace_id() and i.deleted_at is null
      and (app_hidden.issues_unrestricted() or app_hidden.issue_passes_narrowing(i.id, i.project_id)));
end
$$;
comment on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) is 'Whether the calling key may see a chat thread tied to this issue (null: a thread without issue, always): threads follow their issue''s narrowing, and a deleted issue''s threads are not there (policy select_as_participant, chat_thread_for_agent).';
grant execute on function app_hidden.chat_thread_issue_visible(p_issue_id uuid) to svc_visitor;

create or replace function app_hidden.chat_thread_for_agent(p_thread_id text)
 returns app_public.chat_threads
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_hidden.require_own_agent();
  v_thread app_public.chat_threads;
begin
  select * into v_thread from app_public.chat_threads t
  where t.id = app_hidden.parse_uuid(p_thread_id, 'threadId') and t.workspace_id = app_hidden.current_workspace_id();
  -- A thread about an issue outside the key's narrowing is not there for it (as the threads policy says; found
  -- here as the owner, so the same rule is asked explicitly).
  if v_thread.id is null or not app_hidden.chat_thread_issue_visible(v_thread.issue_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if v_thread.agent_id <> v_agent.id then
    raise exception 'This thread is addressed to another agent' using errcode = 'SV403', detail = 'not_addressee';
  end if;
  return v_thread;
end
$$;
comment on function app_hidden.chat_thread_for_agent(p_thread_id text) is 'Addressee gating of the chat tools: the thread (of the caller''s workspace, else 404) must be addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee).';
grant execute on function app_hidden.chat_thread_for_agent(p_thread_id text) to svc_visitor;

create or replace function app_hidden.chat_message_for_agent(p_message_id text)
 returns app_public.chat_messages
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_message app_public.chat_messages;
begin
  perform app_hidden.require_own_agent();  -- a key without an agent hears that first, as in the other chat tools
  -- Found as the owner (RLS would hide another agent's thread as a 404), then gated as chat.getThread gates its
  -- thread: 404 outside the workspace, 403 not_addressee inside it.
  select * into v_message from app_public.chat_messages m
  where m.id = app_hidden.parse_uuid(p_message_id, 'id') and m.workspace_id = app_hidden.current_workspace_id();
  if v_message.id is null then
    raise exception 'Message not found' using errcode = 'SV404', column = 'id';
  end if;
  perform app_hidden.chat_thread_for_agent(v_message.thread_id::text);
  return v_message;
end
$$;
comment on function app_hidden.chat_message_for_agent(p_message_id text) is 'Addressee gating of chat.getMessage: the message (of the caller''s workspace, else 404 on id) must be in a thread addressed to the agent linked to the calling key (403 agent_key_required / agent_archived / not_addressee, as chat_thread_for_agent).';
grant execute on function app_hidden.chat_message_for_agent(p_message_id text) to svc_visitor;

create or replace function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_run app_public.agent_runs;
  v_message app_public.chat_messages;
begin
  if p_source_run_id is not null then
    v_run := app_hidden.find_run(p_source_run_id, 'sourceRunId');
    if v_run.agent_id <> t.agent_id then
      perform app_hidden.raise_invalid('sourceRunId', 'sourceRunId must be a run of this agent');
    end if;
    update app_public.agent_runs set last_event_at = now()
    where id = v_run.id and status in ('ACTIVE', 'WAITING', 'STALLED');
  end if;
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id)
  values (t.workspace_id, t.id, 'AGENT', p_body, v_run.id, app_hidden.current_user_id(), t.agent_id, p_draft_id)
  returning * into v_message;
  perform app_hidden.record_event('CHAT_MESSAGE_POSTED', 'chat-thread', t.id, jsonb_strip_nulls(jsonb_build_object(
    'threadId', t.id, 'messageId', v_message.id, 'agentId', t.agent_id, 'openedByUserId', t.created_by_user_id,
    'role', 'AGENT', 'body', v_message.body, 'sourceRunId', v_message.source_run_id, 'draftId', p_draft_id)));
  return v_message;
end
$$;
comment on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) is 'Persists an AGENT reply in a thread (sourceRunId must be the agent''s run) and writes CHAT_MESSAGE_POSTED (chat-thread: threadId, messageId, agentId, role, body, sourceRunId?, draftId?). Agent replies are not dispatched.';
grant execute on function app_hidden.chat_post_agent_message(t app_public.chat_threads, p_body text, p_source_run_id text, p_draft_id uuid) to svc_visitor;

create or replace function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb)
 returns void
 language sql
as $$
  select null::void from app_hidden.publish_ephemeral_event('CHAT_MESSAGE_POSTED', 'chat-thread-stream', t.id,
    jsonb_build_object('threadId', t.id, 'agentId', t.agent_id) || p_payload)
$$;
comment on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) is 'Publishes a draft phase (started, delta, finalized) as CHAT_MESSAGE_POSTED on chat-thread-stream: realtime channel only, never stored.';
grant execute on function app_hidden.chat_publish_draft(t app_public.chat_threads, p_payload jsonb) to svc_visitor;

create or replace function app_hidden.check_chat_text(p_text text, p_field text)
 returns void
 language plpgsql
 immutable
as $$
begin
  -- Blank as the tools' zod check (\S) sees it: every Unicode space, not only ASCII ones (GraphQL's chatPostMessage
  -- stored "\n\t", a no-break space or an ideographic space as a message and dispatched it).
  if p_text is null or p_text !~ '[^[:space:]\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then
    perform app_hidden.raise_invalid(p_field, 'must not be empty');
  end if;
  if length(p_text) > 100000 then
    perform app_hidden.raise_invalid(p_field, 'must be at most 100000 characters');
  end if;
end
$$;
comment on function app_hidden.check_chat_text(p_text text, p_field text) is 'A chat message''s text: not blank, at most 100,000 characters (the table''s check), else 400 on p_field (body; message for chatOpenThread).';
grant execute on function app_hidden.check_chat_text(p_text text, p_field text) to svc_visitor;

create or replace function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb)
 returns app_public.chat_messages
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
  v_context jsonb;
  v_event uuid;
begin
  select * into v_thread from app_public.chat_threads where id = p_thread_id and workspace_id = p_workspace_id;
  if v_thread.id is null then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  perform app_hidden.check_chat_text(p_body, 'body');
  -- An archived agent reads nothing (its keys are refused): a message to it would wait in a queue no one serves.
  -- Under FOR SHARE, so an archive committing meanwhile is waited for and seen (400 agent_archived).
  perform app_hidden.lock_live_agent(v_thread.agent_id);
  v_context := jsonb_build_object('route', app_hidden.one_line(p_context->>'route', 'route', 500),
                                  'issueId', coalesce(p_context->>'issueId', v_thread.issue_id::text));
  insert into app_public.chat_messages (workspace_id, thread_id, role, body, context_snapshot, author_user_id)
  values (p_workspace_id, v_thread.id, 'USER', p_body, v_context, p_user_id)
  returning * into v_message;
  v_event := app_private.record_event(p_workspace_id, 'CHAT_MESSAGE_POSTED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'messageId', v_message.id, 'agentId', v_thread.agent_id,
    'openedByUserId', v_thread.created_by_user_id, 'role', 'USER', 'body', v_message.body, 'context', v_context));
  -- Only USER messages reach the agent's dispatch channel (spec 6.3).
  perform app_private.enqueue_agent_dispatch(v_event, v_thread.agent_id);
  return v_message;
end
$$;
comment on function app_private.chat_post_user_message(p_workspace_id uuid, p_thread_id uuid, p_user_id uuid, p_body text, p_context jsonb) is 'Persists a USER message (contextSnapshot {route, issueId}; 400 agent_archived when the thread''s agent is archived), writes CHAT_MESSAGE_POSTED (chat-thread, with context) and queues that event to the addressee''s dispatch channel agent:dispatch:<agentId>.';

create or replace function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text default NULL::text, p_issue_id uuid default NULL::uuid, p_message text default NULL::text, p_route text default NULL::text)
 returns jsonb
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_agent app_public.agents := app_private.find_agent(p_workspace_id, p_agent_id);
  v_issue app_public.issues;
  v_thread app_public.chat_threads;
  v_message app_public.chat_messages;
begin
  if v_agent.archived_at is not null then
    raise exception 'Agent % is archived', v_agent.profile_key using errcode = 'SV400', column = 'agentId', detail = 'agent_archived';
  end if;
  if not exists (select 1 from app_public.memberships m where m.workspace_id = p_workspace_id and m.user_id = p_user_id) then
    raise exception 'Not a member of this workspace' using errcode = 'SV400', column = 'user';
  end if;
  -- A thread about an issue the agent cannot see: it would be sent the messages (its webhook) and could neither read
  -- the thread nor answer (fleet probe).
  select * into v_issue from app_public.issues i where i.workspace_id = p_workspace_id and i.id = p_issue_id;
  if v_issue.id is not null then
    perform app_hidden.require_agent_sees_issue(v_agent, v_issue, 'issueId');
  end if;
  -- route is the first message's context; checked as there even when no message comes (else bad input passed silently).
  perform app_hidden.one_line(p_route, 'route', 500);
  if p_message is not null then
    perform app_hidden.check_chat_text(p_message, 'message');
  end if;
  insert into app_public.chat_threads (workspace_id, agent_id, created_by_user_id, title, issue_id)
  values (p_workspace_id, v_agent.id, p_user_id, app_hidden.one_line(nullif(btrim(p_title), ''), 'title', 200), p_issue_id)
  returning * into v_thread;
  -- Ours (the spec has no kind for it): a thread opened without a message was a state change no one heard of.
  perform app_private.record_event(p_workspace_id, 'CHAT_THREAD_OPENED', 'chat-thread', v_thread.id, jsonb_build_object(
    'threadId', v_thread.id, 'agentId', v_thread.agent_id, 'openedByUserId', p_user_id, 'title', v_thread.title,
    'issueId', v_thread.issue_id));
  if p_message is not null then
    v_message := app_private.chat_post_user_message(p_workspace_id, v_thread.id, p_user_id, p_message,
      jsonb_build_object('route', p_route, 'issueId', p_issue_id));
  end if;
  return jsonb_build_object('thread', jsonb_build_object('id', v_thread.id, 'agentId', v_thread.agent_id),
    'message', case when v_message.id is not null then jsonb_build_object('id', v_message.id) end);
end
$$;
comment on function app_private.chat_open_thread(p_workspace_id uuid, p_agent_id uuid, p_user_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'Opens a new thread addressed to an agent (not archived) for a member (CHAT_THREAD_OPENED), optionally with a first USER message. Returns {thread: {id, agentId}, message: {id} | null}. svc admin open-chat and the in-app procedures call it.';

create or replace function app_private.chat_person_caller()
 returns app_private.caller
 language plpgsql
 stable security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.current_caller();
begin
  if app_hidden.current_agent_id() is not null then
    raise exception 'Agents reply with the chat tools; people post USER messages' using errcode = 'SV403', detail = 'person_key_required';
  end if;
  if v_caller.user_id is null then
    raise exception 'This key has no user of its own' using errcode = 'SV403', detail = 'user_key_required';
  end if;
  perform app_hidden.require_scope('WRITE_COMMENTS');
  return v_caller;
end
$$;
comment on function app_private.chat_person_caller() is 'The in-app chat procedures act for a person: a key with its own user, no linked agent (403 person_key_required) and WRITE_COMMENTS.';

create or replace function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_open_thread(v_caller.workspace_id, p_agent_id, v_caller.user_id, p_title, p_issue_id,
                                       p_message, p_route)->'thread'->>'id')::uuid;
end
$$;
comment on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) is 'A person opens a thread with an agent of their workspace (app_private.chat_open_thread); returns the thread id.';
grant execute on function app_hidden.chat_open_thread(p_agent_id uuid, p_title text, p_issue_id uuid, p_message text, p_route text) to svc_visitor;

create or replace function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid)
 returns uuid
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare v_caller app_private.caller := app_private.chat_person_caller();
begin
  return (app_private.chat_post_user_message(v_caller.workspace_id, p_thread_id, v_caller.user_id, p_body,
    jsonb_build_object('route', p_route, 'issueId', p_issue_id))).id;
end
$$;
comment on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) is 'A person posts a USER message (app_private.chat_post_user_message); the caller checked that the thread is theirs to see.';
grant execute on function app_hidden.chat_post_user_message(p_thread_id uuid, p_body text, p_route text, p_issue_id uuid) to svc_visitor;

create or replace function app_public.chat_open_thread(agent_id uuid, message text default NULL::text, title text default NULL::text, issue_id uuid default NULL::uuid, route text default NULL::text)
 returns app_public.chat_threads
 language plpgsql
as $$
declare
  v_issue uuid;
  v_thread uuid;
begin
  if chat_open_thread.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_open_thread.issue_id::text, 'issueId')).id;  -- visible to this key, else 404
  end if;
  v_thread := app_hidden.chat_open_thread(chat_open_thread.agent_id, chat_open_thread.title, v_issue,
                                          chat_open_thread.message, chat_open_thread.route);
  return (select t from app_public.chat_threads t where t.id = v_thread);
end
$$;
comment on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) is '@arg agentId The agent to talk to (not archived).
@arg message A first USER message, dispatched to the agent; 1 to 100,000 characters; omitted = none.
@arg title A title for the thread, one line of up to 200 characters.
@arg issueId An issue the thread is about (visible to the key): kept on the thread and as the first message''s context.
@arg route Where in the app the person is, one line of up to 500 characters: the first message''s context.
@result The new thread.
Opens a chat thread addressed to an agent, optionally with a first USER message (which is dispatched to the agent). issueId (visible to the key) and route are the context of the message. Needs a person''s key with WRITE_COMMENTS. Emits CHAT_MESSAGE_POSTED for the message.';
grant execute on function app_public.chat_open_thread(agent_id uuid, message text, title text, issue_id uuid, route text) to svc_visitor;

create or replace function app_public.chat_post_message(thread_id uuid, body text, route text default NULL::text, issue_id uuid default NULL::uuid)
 returns app_public.chat_messages
 language plpgsql
as $$
declare
  v_issue uuid;
  v_message uuid;
begin
  if not exists (select 1 from app_public.chat_threads t where t.id = chat_post_message.thread_id) then
    raise exception 'Thread not found' using errcode = 'SV404', column = 'threadId';
  end if;
  if chat_post_message.issue_id is not null then
    v_issue := (app_hidden.find_issue(chat_post_message.issue_id::text, 'issueId')).id;
  end if;
  v_message := app_hidden.chat_post_user_message(chat_post_message.thread_id, chat_post_message.body,
                                                 chat_post_message.route, v_issue);
  return (select m from app_public.chat_messages m where m.id = v_message);
end
$$;
comment on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) is '@arg threadId The thread to post in: one you opened (a workspace admin: any).
@arg body The message, 1 to 100,000 characters.
@arg route Where in the app you are, one line of up to 500 characters, kept as the message''s context.
@arg issueId An issue the message is about (visible to the key), kept as its context; omitted = the thread''s issue.
@result The new USER message.
Posts a USER message in a thread the caller opened (or, for workspace admins, any thread); it is dispatched to the addressee agent (agent:dispatch:<agentId>). route and issueId are stored as the message''s context. Emits CHAT_MESSAGE_POSTED.';
grant execute on function app_public.chat_post_message(thread_id uuid, body text, route text, issue_id uuid) to svc_visitor;
