-- The canvas.create tool (declared in src/tools/).
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

-- a new, empty canvas of the workspace (CANVAS_CREATED); the key's user and agent are its creators.
create or replace function app_tools.canvas_create(args jsonb)
 returns jsonb
 language plpgsql
as $$
declare v_canvas app_public.canvases;
begin
  insert into app_public.canvases (workspace_id, name, description, created_by_user_id, created_by_agent_id)
  values (app_hidden.current_workspace_id(), args->>'name', args->>'description',
          app_hidden.current_user_id(), app_hidden.current_agent_id())
  returning * into v_canvas;
  perform app_hidden.record_event('CANVAS_CREATED', 'canvas', v_canvas.id,
    jsonb_build_object('canvasId', v_canvas.id, 'name', v_canvas.name));
  return app_hidden.canvas_shape(v_canvas, 0, 0);
end
$$;
comment on function app_tools.canvas_create(args jsonb) is 'canvas.create: Create a canvas: a planning whiteboard of the workspace on which issue and text cards are laid out and connected.';
grant execute on function app_tools.canvas_create(args jsonb) to svc_visitor;
