-- Triggers of the runtimes tables.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.runtimes;
create trigger _100_updated_at before update on app_public.runtimes for each row execute function app_hidden.tg__set_updated_at();
