-- Triggers of the chat tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.chat_threads;
create trigger _100_updated_at before update on app_public.chat_threads for each row execute function app_hidden.tg__set_updated_at();

create or replace function app_private.tg_chat_messages__seq()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  -- A thread's messages commit in seq order: its writers take turns from here to their commit. chat.listMessages
  -- pages by `seq > cursor`; a message that drew a lower seq but committed after a reader passed it was never
  -- returned (an outside probe: 10 of 240 with four writers). Writers of other threads do not wait.
  perform pg_advisory_xact_lock(hashtextextended('svc.chat_thread:' || new.thread_id::text, 0));
  -- The workspace's own sequence (as its events'), not one for all workspaces: a tenant reads seq.
  new.seq := nextval(app_private.workspace_seq_sequence(new.workspace_id)::regclass);
  return new;
end
$$;
comment on function app_private.tg_chat_messages__seq() is 'BEFORE INSERT on chat_messages: seq from the workspace''s sequence (app_private.workspace_seq_sequence), drawn under a lock on the thread held to commit, so a thread''s messages commit in seq order.';

drop trigger if exists _050_seq on app_public.chat_messages;
create trigger _050_seq before insert on app_public.chat_messages for each row execute function app_private.tg_chat_messages__seq();
