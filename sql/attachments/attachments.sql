-- attachments: helper functions (targets, quota, the row behind a tool call).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
 stable
as $$
begin
  if p_type is null or p_type not in ('issue', 'initiative', 'cycle', 'comment') then
    perform app_hidden.raise_invalid('targetType', 'must be issue, initiative, cycle or comment');
  end if;
  if p_type = 'issue' then
    target_id := (app_hidden.find_issue(p_id, 'targetId')).id;
    issue_id := target_id;
  elsif p_type = 'comment' then
    select c.id, c.issue_id into target_id, issue_id from app_public.comments c
    where c.id = app_hidden.parse_uuid(p_id, 'targetId') and c.deleted_at is null
      and exists (select 1 from app_public.issues i where i.id = c.issue_id and i.deleted_at is null);
  elsif p_type = 'initiative' then
    select i.id into target_id from app_public.initiatives i where i.id = app_hidden.parse_uuid(p_id, 'targetId');
  else
    select c.id into target_id from app_public.cycles c where c.id = app_hidden.parse_uuid(p_id, 'targetId');
  end if;
  if target_id is null then
    raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
  end if;
end
$$;
comment on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'The issue (id or key), comment, initiative or cycle an attachment goes on, as the caller sees it (RLS: narrowing of the issue behind an issue or comment, initiative narrowing); 404 targetId otherwise. issue_id is the issue behind an issue or comment target.';
grant execute on function app_hidden.attachment_target(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid)
 language plpgsql
as $$
begin
  select t.target_id, t.issue_id into target_id, issue_id from app_hidden.attachment_target(p_type, p_id) t;
  -- cycles.delete refuses a cycle with attachments while it holds the cycle's row lock. This key-share lock
  -- serialises the two: the delete waits for this attachment (and then sees it: 409), or this waits for the
  -- delete (and then finds the cycle gone: 404). No attachment is left on a deleted cycle.
  if p_type = 'cycle' then
    perform 1 from app_public.cycles c where c.id = target_id for key share;
    if not found then
      raise exception 'Attachment target not found (%)', p_type using errcode = 'SV404', column = 'targetId';
    end if;
  end if;
end
$$;
comment on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) is 'attachment_target for the tools that attach (attachLink, finalize): a cycle target is also locked FOR KEY SHARE, so cycles.delete and the attaching serialise.';
grant execute on function app_hidden.attachment_target_for_write(p_type text, p_id text, out target_id uuid, out issue_id uuid) to svc_visitor;

create or replace function app_hidden.attachment_visible(p_id text)
 returns app_public.attachments
 language plpgsql
 stable
as $$
declare v_row app_public.attachments;
begin
  select * into v_row from app_public.attachments a where a.id = app_hidden.parse_uuid(p_id, 'id');
  -- Deleted issues are 404 everywhere: so are the attachments on them, on their comments, and on deleted comments.
  if v_row.id is null
     or (v_row.target_type = 'issue'
         and not exists (select 1 from app_public.issues i where i.id = v_row.target_id and i.deleted_at is null))
     or (v_row.target_type = 'comment'
         and not exists (select 1 from app_public.comments c join app_public.issues i on i.id = c.issue_id
                         where c.id = v_row.target_id and c.deleted_at is null and i.deleted_at is null)) then
    raise exception 'Attachment not found' using errcode = 'SV404', column = 'id';
  end if;
  return v_row;
end
$$;
comment on function app_hidden.attachment_visible(p_id text) is 'An attachment the caller can see (RLS follows the target it is attached to) whose issue or comment target is not soft-deleted (nor the comment''s issue), else 404: the finder of attachments.get, getInline, getDownloadUrl and delete.';
grant execute on function app_hidden.attachment_visible(p_id text) to svc_visitor;

-- (Before migration 000254 it took the workspace as an argument: a definer any caller could point at another tenant.)
drop function if exists app_hidden.attachment_bytes_used(uuid);
create or replace function app_hidden.attachment_bytes_used()
 returns bigint
 language sql
 stable security definer
 set search_path to 'pg_catalog'
as $$
  -- A deleted comment's files are deleted with it (tg_comments__drop_attachments); a deleted issue's count (issues.restore
  -- brings them back).
  select coalesce((select sum(a.size_bytes) from app_public.attachments a
                   where a.workspace_id = app_hidden.current_workspace_id() and a.kind = 'FILE'), 0)
       + coalesce((select sum(u.size_bytes) from app_public.attachment_uploads u
                   where u.workspace_id = app_hidden.current_workspace_id() and u.expires_at > now()), 0)
$$;
comment on function app_hidden.attachment_bytes_used() is 'Bytes of the caller''s workspace counted against attachmentQuotaMb: every FILE attachment plus uploads granted and not expired (whatever the caller''s narrowing lets it see). Security definer: the total, never the rows; the caller''s own workspace only.';
grant execute on function app_hidden.attachment_bytes_used() to svc_visitor;

create or replace function app_hidden.attachment_blob_ref(a app_public.attachments)
 returns jsonb
 language sql
 stable
as $$
  select jsonb_build_object('attachment', app_hidden.attachment_json(a), 'storageKey', a.storage_key)
$$;
comment on function app_hidden.attachment_blob_ref(a app_public.attachments) is 'What the Node half of getDownloadUrl/getInline/delete needs: the attachment and its object key (the key never leaves the service).';
grant execute on function app_hidden.attachment_blob_ref(a app_public.attachments) to svc_visitor;

create or replace function app_hidden.url_hostname(p_url text)
 returns text
 language sql
 immutable parallel safe
as $$
  -- A backslash ends the host as a slash does (WHATWG URL, as browsers read it): `https://evil.example\@github.com/`
  -- opens evil.example, and was named github.com.
  select lower(substring(p_url from '^[hH][tT][tT][pP][sS]?://(?:[^/?#@\\]*@)?(\[[^\]]+\]|[^/?#:\\]+)'))
$$;
comment on function app_hidden.url_hostname(p_url text) is 'The host of an http(s) URL, lowercased (null when it is not one): the title a LINK attachment falls back to.';
grant execute on function app_hidden.url_hostname(p_url text) to svc_visitor;
