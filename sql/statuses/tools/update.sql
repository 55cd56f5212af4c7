-- The statuses.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- rename, recolor, recategorize or make default a status (OWNER/ADMIN, key without narrowing). One STATUS_UPDATED
-- with changes and previous values; none when nothing changed. The former default gets its own STATUS_UPDATED.
create or replace function app_tools.statuses_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_old app_public.statuses := app_hidden.find_status(args->>'id');
  v_status app_public.statuses;
  v_former app_public.statuses;
  v_category text := coalesce(args->>'category', v_old.category);
  v_make_default boolean := coalesce((args->>'isDefault')::boolean, false) and not v_old.is_default;
  v_changes jsonb := '[]';
  v_previous jsonb := '{}';
begin
  if args->>'name' is not null and lower(args->>'name') <> lower(v_old.name) and exists (
       select 1 from app_public.statuses s
       where s.workspace_id = v_ws and lower(s.name) = lower(args->>'name') and s.id <> v_old.id) then
    perform app_hidden.raise_status_name_taken(args->>'name');
  end if;
  if v_category <> v_old.category then
    -- The issues in it would change category without moving (no ISSUE_STATUS_CHANGED, startedAt/completedAt
    -- not stamped, the dispatcher not told): only an empty status changes category. Row-locked first, so no
    -- issue enters it before this commits.
    perform from app_public.statuses s where s.id = v_old.id for update;
    if exists (select 1 from app_public.issues i where i.workspace_id = v_ws and i.status_id = v_old.id) then
      raise exception 'Issues are in this status; move them first (or create a status of the new category and delete this one with moveIssuesTo)'
        using errcode = 'SV409', detail = 'status_in_use';
    end if;
    perform app_hidden.require_other_done_status(v_old);
  end if;
  if (v_old.is_default or v_make_default) and v_category in ('DONE', 'CANCELED') then
    raise exception 'The default status (where new issues start) must be open, not DONE or CANCELED'
      using errcode = 'SV409', detail = 'default_status_closed';
  end if;
  if v_make_default then
    -- Two statements: the one-default index is checked row by row.
    update app_public.statuses s set is_default = false where s.workspace_id = v_ws and s.is_default returning s.* into v_former;
    if v_former.id is not null then
      perform app_hidden.record_status_event('STATUS_UPDATED', v_former,
        jsonb_build_object('changes', jsonb_build_array('isDefault'), 'previous', jsonb_build_object('isDefault', true)));
    end if;
  end if;
  update app_public.statuses s
  set name = coalesce(args->>'name', s.name), color = coalesce(args->>'color', s.color),
      category = v_category, is_default = s.is_default or v_make_default
  where s.id = v_old.id
  returning s.* into v_status;

  if v_status.name is distinct from v_old.name then
    v_changes := v_changes || '["name"]'; v_previous := v_previous || jsonb_build_object('name', v_old.name);
  end if;
  if v_status.color is distinct from v_old.color then
    v_changes := v_changes || '["color"]'; v_previous := v_previous || jsonb_build_object('color', v_old.color);
  end if;
  if v_status.category is distinct from v_old.category then
    v_changes := v_changes || '["category"]'; v_previous := v_previous || jsonb_build_object('category', v_old.category);
  end if;
  if v_status.is_default is distinct from v_old.is_default then
    v_changes := v_changes || '["isDefault"]'; v_previous := v_previous || jsonb_build_object('isDefault', v_old.is_default);
  end if;
  if jsonb_array_length(v_changes) > 0 then
    perform app_hidden.record_status_event('STATUS_UPDATED', v_status, jsonb_build_object('changes', v_changes, 'previous', v_previous));
  end if;
  return app_hidden.status_json(v_status);
exception when unique_violation then
  perform app_hidden.raise_status_name_taken(args->>'name');
end
$$;
comment on function app_tools.statuses_update(args jsonb) is 'statuses.update: OWNER/ADMIN, unnarrowed key: rename, recolor, recategorize (only while it has no issues) or make it the default (must be open).';
grant execute on function app_tools.statuses_update(args jsonb) to svc_visitor;
