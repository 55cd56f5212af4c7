-- The cycles.delete tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- deletes a cycle that has not run: PLANNED (not started) or CANCELED, or any cycle holding no issue now (trashed ones count).
-- A started or ended cycle with issues is history (409 cycle_started); one with attachments keeps them until they
-- are deleted (409 cycle_has_attachments: their files live outside SQL). Its issues, deleted ones included, lose
-- the cycle (ISSUE_UPDATED cycleId each, by trigger), then CYCLE_DELETED (trigger). Needs a key without
-- project/label narrowing: it changes issues the key might not see.
create or replace function app_tools.cycles_delete(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_cycle app_public.cycles;
  v_status text;
  v_detached jsonb;
begin
  perform app_hidden.require_issues_unrestricted('Deleting a cycle');
  perform app_hidden.lock_cycles();
  v_cycle := app_hidden.find_cycle(args->>'id');
  select * into v_cycle from app_public.cycles where id = v_cycle.id for update;
  v_status := app_hidden.cycle_status(v_cycle);
  if v_status in ('ACTIVE', 'COMPLETED')
     and exists (select 1 from app_public.issues i where i.workspace_id = v_cycle.workspace_id and i.cycle_id = v_cycle.id) then
    raise exception 'Cycle % is %: a sprint that ran with issues is history and stays (only PLANNED, CANCELED or empty cycles can be deleted)',
      v_cycle.name, lower(v_status) using errcode = 'SV409', detail = 'cycle_started';
  end if;
  -- Attaching to a cycle takes a key-share lock on it (app_hidden.attachment_target_for_write): under this row
  -- lock no attachment can appear on the cycle unseen.
  if exists (select 1 from app_public.attachments a
             where a.workspace_id = v_cycle.workspace_id and a.target_type = 'cycle' and a.target_id = v_cycle.id) then
    raise exception 'Cycle % has attachments: delete them first (attachments.list, attachments.delete)', v_cycle.name
      using errcode = 'SV409', detail = 'cycle_has_attachments';
  end if;
  with moved as (
    update app_public.issues i set cycle_id = null
    where i.workspace_id = v_cycle.workspace_id and i.cycle_id = v_cycle.id
    returning i.id, i.number, i.deleted_at)
  select coalesce(jsonb_agg(id order by number) filter (where deleted_at is null), '[]') into v_detached from moved;
  delete from app_public.cycles where id = v_cycle.id;
  return jsonb_build_object('ok', true, 'id', v_cycle.id, 'number', v_cycle.number, 'name', v_cycle.name,
                            'status', v_status, 'detachedIssueIds', v_detached);
end
$$;
grant execute on function app_tools.cycles_delete(args jsonb) to svc_visitor;
comment on function app_tools.cycles_delete(args jsonb) is 'cycles.delete: Delete a PLANNED or CANCELED cycle, or any cycle holding no issue (trashed ones count); its issues lose the cycle. A sprint that ran with issues: 409 cycle_started; with attachments: 409 cycle_has_attachments. Needs a key without project/label narrowing.';
