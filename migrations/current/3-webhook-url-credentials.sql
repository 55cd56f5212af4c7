-- Webhook targets never carry credentials (issue 9): `http://user:secret@host/x` is refused by the tables
-- themselves, whatever path writes them (CLI, GraphQL, SQL). The authority part may not contain '@' and
-- nothing may contain whitespace. NOT VALID: rows written before are left as they are (new and updated
-- rows are checked). Node checks first with a clearer message and private-address rules
-- (src/webhooks/registration.ts). Re-runnable while current.

alter table app_public.webhooks drop constraint if exists webhooks_url_check;
alter table app_public.webhooks add constraint webhooks_url_check
  check (url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$' and length(url) <= 2048) not valid;
comment on constraint webhooks_url_check on app_public.webhooks is
  'An http(s) URL of at most 2048 characters, without credentials (no user:password@) and without whitespace.';

alter table app_public.agents drop constraint if exists agents_webhook_url_check;
alter table app_public.agents add constraint agents_webhook_url_check
  check (webhook_url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$' and length(webhook_url) <= 2048) not valid;
comment on constraint agents_webhook_url_check on app_public.agents is
  'An agent''s dispatch webhook is an http(s) URL of at most 2048 characters, without credentials or whitespace.';
