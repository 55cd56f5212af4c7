-- The canvas.update tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- name, description (null clears), archived of a canvas; only the fields given change. CANVAS_UPDATED
-- {change: 'canvas_updated', changes} when something did, nothing otherwise. The row is locked before the patch is
-- computed, so a concurrent change of another field is kept and `changes` names only what this call changed.
create or replace function app_tools.canvas_update(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare
  v_canvas app_public.canvases := app_hidden.find_canvas_locked(args->>'id');
  v_name text := coalesce(args->>'name', v_canvas.name);
  v_description text := case when args ? 'description' then args->>'description' else v_canvas.description end;
  v_archived_at timestamptz := case
    when args->>'archived' is null then v_canvas.archived_at
    when (args->>'archived')::boolean then coalesce(v_canvas.archived_at, now())
    else null end;
  v_changes text[] := '{}';
begin
  if v_name is distinct from v_canvas.name then v_changes := array_append(v_changes, 'name'); end if;
  if v_description is distinct from v_canvas.description then v_changes := array_append(v_changes, 'description'); end if;
  if v_archived_at is distinct from v_canvas.archived_at then v_changes := array_append(v_changes, 'archived'); end if;
  if cardinality(v_changes) = 0 then
    return app_hidden.canvas_json(v_canvas);
  end if;
  update app_public.canvases set name = v_name, description = v_description, archived_at = v_archived_at
  where id = v_canvas.id
  returning * into v_canvas;
  perform app_hidden.record_event('CANVAS_UPDATED', 'canvas', v_canvas.id, jsonb_build_object(
    'canvasId', v_canvas.id, 'change', 'canvas_updated', 'changes', to_jsonb(v_changes),
    'name', v_canvas.name, 'archived', v_canvas.archived_at is not null));
  return app_hidden.canvas_json(v_canvas);
end
$$;
comment on function app_tools.canvas_update(args jsonb) is 'canvas.update: Rename or describe a canvas (description null clears), or archive / unarchive it (archived canvases take no card or edge changes). Only the fields given change.';
grant execute on function app_tools.canvas_update(args jsonb) to svc_visitor;
