-- Triggers of the webhooks tables and their functions.
-- Current definition; re-runnable. Change it here and --! include it from migrations/current/.

drop trigger if exists _100_updated_at on app_public.webhook_deliveries;
create trigger _100_updated_at before update on app_public.webhook_deliveries for each row execute function app_hidden.tg__set_updated_at();

drop trigger if exists _100_updated_at on app_public.webhooks;
-- failing_since is the delivery worker's bookkeeping, not a change to the webhook: it leaves updatedAt alone.
create trigger _100_updated_at before update on app_public.webhooks for each row execute function app_hidden.tg__set_updated_at('failing_since');
