-- The statuses.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new workflow status (OWNER/ADMIN, key without narrowing): name unique case-insensitively (409 status_exists),
-- at most 50 per workspace; at `position` the statuses from there on move down one (each STATUS_UPDATED), else last.
create or replace function app_tools.statuses_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_ws uuid := app_hidden.require_workflow_admin();
  v_position int := (args->>'position')::int;
  v_status app_public.statuses;
  v_moved app_public.statuses;
begin
  if (select count(*) from app_public.statuses s where s.workspace_id = v_ws) >= 50 then
    raise exception 'A workspace has at most 50 statuses' using errcode = 'SV409', detail = 'status_limit';
  end if;
  if exists (select 1 from app_public.statuses s where s.workspace_id = v_ws and lower(s.name) = lower(args->>'name')) then
    perform app_hidden.raise_status_name_taken(args->>'name');
  end if;
  if v_position is null then
    v_position := coalesce((select max(s.position) + 1 from app_public.statuses s where s.workspace_id = v_ws), 0);
  else
    for v_moved in
      update app_public.statuses s set position = s.position + 1
      where s.workspace_id = v_ws and s.position >= v_position
      returning s.*
    loop
      perform app_hidden.record_status_event('STATUS_UPDATED', v_moved,
        jsonb_build_object('changes', jsonb_build_array('position'), 'previous', jsonb_build_object('position', v_moved.position - 1)));
    end loop;
  end if;
  insert into app_public.statuses (workspace_id, name, category, color, position)
  values (v_ws, args->>'name', args->>'category', coalesce(args->>'color', '#94a3b8'), v_position)
  returning * into v_status;
  perform app_hidden.record_status_event('STATUS_CREATED', v_status);
  return app_hidden.status_json(v_status);
exception when unique_violation then
  perform app_hidden.raise_status_name_taken(args->>'name');
end
$$;
comment on function app_tools.statuses_create(args jsonb) is 'statuses.create: OWNER/ADMIN, unnarrowed key: add a status (unique name, at most 50). position: 0 = first, the ones from there move down; default last.';
grant execute on function app_tools.statuses_create(args jsonb) to svc_visitor;
