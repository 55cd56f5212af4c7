--! Previous: sha1:8218e3e149b9588ed10e9d5494d811199c5e76f4
--! Hash: sha1:d64d1dbed718edba30ad9322af6a037328d14eb4
--! Message: An upgrade leaves no rule unapplied and nothing moved: plugin keys issued before 000205 get their issuer from their API_KEY_CREATED event

--! split: 1-current.sql
-- Plugin keys issued before migration 000205 named no issuer, so removing the member who had issued one left it
-- working after an upgrade (upgrade probe, twenty-eighth session). Their issuer is the person of their
-- API_KEY_CREATED event (written since migration 000162); a key older than its event stays without one. Filling in
-- who issued a key changes no access now (the key is not revoked here): removing that member from now on revokes it.
update app_private.api_keys k
set issued_by_user_id = e.actor_user_id
from app_public.activity_events e
where k.plugin_id is not null and k.issued_by_user_id is null
  and e.workspace_id = k.workspace_id and e.kind = 'API_KEY_CREATED' and e.subject_type = 'api-key' and e.subject_id = k.id
  and e.actor_user_id is not null
  and exists (select 1 from app_public.users u where u.id = e.actor_user_id);
