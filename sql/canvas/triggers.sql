-- Triggers of the canvas tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.canvases;
create trigger _100_updated_at before update on app_public.canvases for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _100_updated_at on app_public.canvas_nodes;
create trigger _100_updated_at before update on app_public.canvas_nodes for each row execute function app_hidden.tg__set_updated_at();
