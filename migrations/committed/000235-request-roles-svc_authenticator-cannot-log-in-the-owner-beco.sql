--! Previous: sha1:57ebb163637df8836d16d29f35284fe443028c1e
--! Hash: sha1:af842feb09249aa59e499941d42a539d2f52fa67
--! Message: Request roles: svc_authenticator cannot log in; the owner becomes svc_visitor without inheriting its grants

--! split: 1-current.sql
-- Roles of the whole server, as an outside probe on a shared server found them:
-- svc_authenticator: nothing logs in as it (the API connects as the owner and sets role svc_visitor); a LOGIN role
-- without a password was a way in wherever pg_hba trusts local users.
alter role svc_authenticator nologin;
-- The owner becomes svc_visitor on its API connections (SET) but needs none of its grants: with INHERIT and
-- BYPASSRLS, the owner of one installation read and wrote another installation's tables on the same server.
grant svc_visitor to current_user with inherit false, set true;
