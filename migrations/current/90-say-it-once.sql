-- Issue 8, "say things once": one paging helper, one finder, one bulk-item wrapper.

-- Paging: a list's rows as (shaped item, sort key, id); app_hidden.page_json turns them into {items, nextCursor}.
do $$ begin
  create type app_hidden.page_row as (item jsonb, sort_key text, id uuid);
exception when duplicate_object then null;
end $$;
comment on type app_hidden.page_row is 'One row of a paged list: the shaped item and the (sort key, id) its cursor encodes (id null: the sort key alone).';
-- Cursor decoders take the field to name in their 400 (comments.list and events.recent page with before).
drop function if exists app_hidden.cursor_decode(text, text);
drop function if exists app_hidden.keyset_decode(text, text);
--! include core/paging.sql
-- One finder: app_hidden.found (404 naming the field) behind every find_<entity>; one bulk wrapper:
-- app_hidden.each_item (it absorbs raise_in_item).
--! include core/errors.sql
--! include core/bulk.sql
--! include projects/tools/list.sql
--! include initiatives/tools/list.sql
--! include cycles/tools/list.sql
--! include notes/tools/list.sql
--! include notes/tools/listJournal.sql
--! include time/tools/list.sql
--! include labels/tools/list.sql
--! include comments/tools/list.sql
--! include events/tools/recent.sql
--! include issues/tools/list.sql
--! include issues/tools/listWatchers.sql
--! include issues/tools/listWatching.sql
--! include webhooks/webhooks.sql
--! include projects/projects.sql
--! include initiatives/initiatives.sql
--! include cycles/cycles.sql
--! include notes/notes.sql
--! include labels/labels.sql
--! include agents/agents.sql
--! include issues/write.sql
--! include issues/bulk.sql
--! include issues/tools/createMany.sql
--! include issues/tools/updateMany.sql
drop function if exists app_hidden.raise_in_item(integer, text, text, text, text, text);
