--! Previous: sha1:5f9970991d7fde0965ee5de7995f7e4843ea26fa
--! Hash: sha1:33c044a158d16897e2dd810d8d18625e61e418f6
--! Message: cycles.rollover does not empty a sprint that began today; attachment CYCLE_UPDATED carries the calendar's status

--! split: 1-current.sql
-- cycles.rollover: a sprint that began today is not the source (a repeat of a late rollover emptied the sprint the
-- first run had started into a new one); the unfinished issues of an ended sprint go to the running one when it
-- started after it.
--! Included cycles/tools/rollover.sql
-- The cycles.rollover tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- moves unfinished issues (status category not DONE/CANCELED) from the current cycle (current_cycle: dates include
-- today; unless it began today), or else from the last ended cycle not rolled over yet, to the next cycle (the earliest
-- non-canceled one not ended that starts after the source, created from cycleLengthDays/cycleCooldownDays when none). Cycles keep following the calendar:
-- nothing is activated or completed early; only an ended source cycle gets its stored COMPLETED (= rolled over).
-- Repeating it the same day moves what is still unfinished and changes nothing else. Needs an unnarrowed key.
create or replace function app_tools.cycles_rollover(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws app_public.workspaces;
  v_from app_public.cycles;
  v_next app_public.cycles;
  v_created boolean := false;
  v_moved jsonb := '[]';
begin
  perform app_hidden.require_issues_unrestricted('Rolling over the cycle');
  v_ws := app_hidden.lock_cycles();
  -- Where the issues come from: the current cycle, unless it began today (nothing ran in it yet: a rollover on a
  -- sprint's first day is about the one that just ended, and a repeat of a late rollover must not empty the sprint
  -- it started), else the latest one that ran to its end without a rollover.
  v_from := app_hidden.current_cycle();
  if v_from.id is null or v_from.starts_on >= app_hidden.utc_today() then
    select * into v_from from app_public.cycles
    where workspace_id = v_ws.id and status not in ('CANCELED', 'COMPLETED') and ends_on < app_hidden.utc_today()
    order by ends_on desc limit 1;
  end if;
  -- Where they go: the earliest non-canceled cycle that has not ended and starts after the source ends (for an ended
  -- source, the running one included).
  select * into v_next from app_public.cycles c
  where c.workspace_id = v_ws.id and c.status <> 'CANCELED' and c.ends_on >= app_hidden.utc_today()
    and (case when v_from.id is null then c.starts_on >= app_hidden.utc_today()
              else c.id <> v_from.id and c.starts_on > v_from.ends_on end)
  order by c.starts_on, c.number limit 1;
  if v_next.id is null then
    v_next := app_hidden.insert_cycle(v_ws, null, app_hidden.next_cycle_start(v_ws), null, 'PLANNED');
    v_created := true;
  end if;
  if v_from.id is not null then
    with moved as (
      update app_public.issues i set cycle_id = v_next.id
      where i.workspace_id = v_ws.id and i.cycle_id = v_from.id and i.deleted_at is null
        and i.status_id in (select s.id from app_public.statuses s
                            where s.workspace_id = v_ws.id and s.category not in ('DONE', 'CANCELED'))
      returning i.id, i.number)
    select coalesce(jsonb_agg(id order by number), '[]') into v_moved from moved;
    -- An ended cycle is COMPLETED on the calendar already; the stored value records that it was rolled over.
    if v_from.ends_on < app_hidden.utc_today() and v_from.status <> 'COMPLETED' then
      update app_public.cycles set status = 'COMPLETED' where id = v_from.id returning * into v_from;
    end if;
  end if;
  return jsonb_build_object(
    'completed', case when v_from.id is null or v_from.ends_on >= app_hidden.utc_today() then null else app_hidden.cycle_json(v_from) end,
    'current', app_hidden.cycle_json(v_next),
    'movedIssueIds', v_moved,
    'createdNext', v_created);
end
$$;
comment on function app_tools.cycles_rollover(args jsonb) is 'cycles.rollover: Move the unfinished issues (status not Done/Canceled) of the current sprint (the cycle whose dates include today; when none runs, or it began today, the last one that ended without a rollover) to the next cycle (the earliest one not ended that starts after it, the running one for an ended sprint; created from the workspace cycle length and cooldown when none exists). It never changes which sprint is current: cycles stay ACTIVE while their dates include today and become COMPLETED when they end. Returns completed: the cycle the issues came from when it has ended (null while it still runs), current: the cycle they moved to, movedIssueIds, createdNext. Running it again the same day only moves what is still unfinished. Needs a key without project/label narrowing.';
grant execute on function app_tools.cycles_rollover(args jsonb) to svc_visitor;
--! EndIncluded cycles/tools/rollover.sql
-- CYCLE_UPDATED for an attachment of a cycle carries the calendar's status, as the other CYCLE_UPDATED do.
--! Included attachments/triggers.sql
-- Triggers of the attachments tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

create or replace function app_private.tg_attachments__events()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
declare
  v_row app_public.attachments := case when tg_op = 'DELETE' then old else new end;
  v_extra jsonb := jsonb_build_object('attachmentId', v_row.id, 'attachmentChange',
    case tg_op when 'INSERT' then 'added' when 'DELETE' then 'removed' else 'updated' end);
  v_issue_id uuid;
begin
  if tg_op = 'UPDATE' and new.link_title is not distinct from old.link_title then
    return null;
  end if;
  if v_row.target_type = 'issue' then
    v_issue_id := v_row.target_id;
  elsif v_row.target_type = 'comment' then
    select c.issue_id into v_issue_id from app_public.comments c where c.id = v_row.target_id;
    v_extra := v_extra || jsonb_build_object('commentId', v_row.target_id);
  end if;
  if v_issue_id is not null then
    perform app_private.record_issue_updated(v_row.workspace_id, v_issue_id, array['attachments'], v_extra);
  elsif v_row.target_type = 'initiative' then
    perform app_private.record_event(v_row.workspace_id, 'INITIATIVE_UPDATED', 'initiative', i.id,
      jsonb_build_object('initiativeId', i.id, 'name', i.name, 'changes', jsonb_build_array('attachments'),
                         'archived', i.archived_at is not null) || v_extra)
    from app_public.initiatives i where i.id = v_row.target_id;
  elsif v_row.target_type = 'cycle' then
    perform app_private.record_event(v_row.workspace_id, 'CYCLE_UPDATED', 'cycle', c.id,
      jsonb_build_object('cycleId', c.id, 'number', c.number, 'name', c.name, 'changes', jsonb_build_array('attachments'),
                         -- The status cycles.get shows (the calendar's), as every CYCLE_UPDATED carries.
                         'status', app_hidden.cycle_status(c), 'previousStatus', app_hidden.cycle_status(c)) || v_extra)
    from app_public.cycles c where c.id = v_row.target_id;
  end if;
  return null;
end
$$;
comment on function app_private.tg_attachments__events() is 'An attachment added, removed or given its scraped title is a change of its target: ISSUE_UPDATED (changes attachments) of the issue (also for comment attachments), INITIATIVE_UPDATED or CYCLE_UPDATED; payload attachmentId and attachmentChange added/removed/updated.';

drop trigger if exists _800_events on app_public.attachments;
create trigger _800_events after insert or delete or update of link_title on app_public.attachments for each row execute function app_private.tg_attachments__events();

create or replace function app_private.tg_attachments__link_title()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  if new.kind = 'LINK' and new.link_title is null then
    new.link_title := app_hidden.url_hostname(new.external_url);
    perform app_private.attachments_enqueue('svc_attachment_link_title', json_build_object('attachmentId', new.id),
      p_flags := app_private.outbound_flags(new.workspace_id));
  end if;
  return new;
end
$$;
comment on function app_private.tg_attachments__link_title() is 'A LINK attachment without a title gets its URL''s hostname now and a svc_attachment_link_title job that replaces it with the page title.';

drop trigger if exists _200_link_title on app_public.attachments;
create trigger _200_link_title before insert on app_public.attachments for each row execute function app_private.tg_attachments__link_title();

create or replace function app_private.tg_attachment_uploads__expiry_job()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'pg_catalog'
as $$
begin
  perform app_private.attachments_enqueue('svc_attachment_upload_expire', json_build_object('uploadId', new.id),
                                          new.expires_at + interval '1 minute');
  return null;
end
$$;
comment on function app_private.tg_attachment_uploads__expiry_job() is 'Schedules svc_attachment_upload_expire a minute after the upload URL expires: an upload never finalized loses its row and its blob.';

drop trigger if exists _900_expiry_job on app_public.attachment_uploads;
create trigger _900_expiry_job after insert on app_public.attachment_uploads for each row execute function app_private.tg_attachment_uploads__expiry_job();
--! EndIncluded attachments/triggers.sql
