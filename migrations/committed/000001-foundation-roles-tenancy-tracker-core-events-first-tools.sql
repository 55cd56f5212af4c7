--! Previous: -
--! Hash: sha1:28b799dfd74dd8f7757120dbdfa58e34ea6b11b8
--! Message: foundation: roles, tenancy, tracker core, events, first tools

--! split: 1-roles-schemas-context.sql
-- Roles, schemas by audience, and the request-context helpers every policy uses.
-- Re-runnable while current: everything below is dropped and recreated.

drop schema if exists app_tools cascade;
drop schema if exists app_public cascade;
drop schema if exists app_hidden cascade;
drop schema if exists app_private cascade;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'svc_visitor') then
    create role svc_visitor nologin;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'svc_authenticator') then
    create role svc_authenticator login noinherit;
  end if;
end
$$;
comment on role svc_visitor is 'The request role: every API call and GraphQL operation runs as this role, under row-level security.';
comment on role svc_authenticator is 'Login role with no rights of its own; it may only switch to svc_visitor.';
grant svc_visitor to svc_authenticator;
-- The migrating owner switches API connections to the request role.
grant svc_visitor to current_user;

-- Nothing is reachable by default: grants below are explicit.
revoke all on schema public from public;
alter default privileges revoke execute on functions from public;

create schema app_public;
comment on schema app_public is 'Tables and functions exposed to GraphQL (in-app clients). Every table is under RLS.';
create schema app_hidden;
comment on schema app_hidden is 'Helpers callable by the request role but not exposed to GraphQL: request context, JSON shapers, checks.';
create schema app_tools;
comment on schema app_tools is 'One function per MCP tool, named <namespace>_<tool>(args jsonb) returns jsonb; called by the API with the caller identity set.';
create schema app_private;
comment on schema app_private is 'Secrets, key hashes, counters and security-definer internals. No request-role access.';

grant usage on schema app_public, app_hidden, app_tools to svc_visitor;

------------------------------------------------------------------------------------------
-- Request context: transaction-local settings written once per call by the API.
-- A value left from an earlier transaction reads as '', hence nullif.
------------------------------------------------------------------------------------------

create function app_hidden.current_workspace_id() returns uuid
  language sql stable parallel safe as $$ select nullif(current_setting('svc.workspace_id', true), '')::uuid $$;
comment on function app_hidden.current_workspace_id() is 'Workspace of the calling key (svc.workspace_id). NULL outside a request: every policy then denies.';

create function app_hidden.current_user_id() returns uuid
  language sql stable parallel safe as $$ select nullif(current_setting('svc.user_id', true), '')::uuid $$;
comment on function app_hidden.current_user_id() is 'User owning the calling key (NULL for plugin keys with no user).';

create function app_hidden.current_key_id() returns uuid
  language sql stable parallel safe as $$ select nullif(current_setting('svc.key_id', true), '')::uuid $$;
comment on function app_hidden.current_key_id() is 'The calling API key.';

create function app_hidden.current_agent_id() returns uuid
  language sql stable parallel safe as $$ select nullif(current_setting('svc.agent_id', true), '')::uuid $$;
comment on function app_hidden.current_agent_id() is 'Agent linked to the calling key (linkedAgentId), if any.';

create function app_hidden.current_scopes() returns text[]
  language sql stable parallel safe as $$ select coalesce(nullif(current_setting('svc.scopes', true), '')::text[], '{}') $$;
comment on function app_hidden.current_scopes() is 'Scopes of the calling key; FULL holds every scope.';

create function app_hidden.has_scope(p_scope text) returns boolean
  language sql stable parallel safe as $$
    select p_scope = any(app_hidden.current_scopes()) or 'FULL' = any(app_hidden.current_scopes())
  $$;
comment on function app_hidden.has_scope(text) is 'True when the calling key holds the scope (or FULL).';

create function app_hidden.narrowed_project_ids() returns uuid[]
  language sql stable parallel safe as $$ select coalesce(nullif(current_setting('svc.project_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_project_ids() is 'Project narrowing of the calling key; empty = unrestricted.';

create function app_hidden.narrowed_label_ids() returns uuid[]
  language sql stable parallel safe as $$ select coalesce(nullif(current_setting('svc.label_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_label_ids() is 'Label narrowing of the calling key; empty = unrestricted.';

create function app_hidden.narrowed_initiative_ids() returns uuid[]
  language sql stable parallel safe as $$ select coalesce(nullif(current_setting('svc.initiative_ids', true), '')::uuid[], '{}') $$;
comment on function app_hidden.narrowed_initiative_ids() is 'Initiative narrowing of the calling key; empty = unrestricted.';

create function app_hidden.issues_unrestricted() returns boolean
  language sql stable parallel safe as $$
    select cardinality(app_hidden.narrowed_project_ids()) = 0 and cardinality(app_hidden.narrowed_label_ids()) = 0
  $$;
comment on function app_hidden.issues_unrestricted() is 'True when the calling key has neither project nor label narrowing (issues are then unrestricted within the workspace).';



------------------------------------------------------------------------------------------
-- Business errors carry their own SQLSTATE; src/db/errors.ts maps each to HTTP.
--   SV400 invalid input (COLUMN names the field)   SV403 forbidden        SV404 not found
--   SV409 conflict                                 SV422 precondition     SVSCP scope required (HINT = scope)
------------------------------------------------------------------------------------------

create function app_hidden.raise_not_found(p_what text) returns void
  language plpgsql as $$
begin
  raise exception '% not found', p_what using errcode = 'SV404';
end
$$;
comment on function app_hidden.raise_not_found(text) is 'Raises SV404 "<what> not found" (HTTP 404).';

create function app_hidden.raise_invalid(p_field text, p_message text) returns void
  language plpgsql as $$
begin
  raise exception '%', p_message using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.raise_invalid(text, text) is 'Raises SV400 for one input field (HTTP 400 with issues = {field: message}).';

create function app_hidden.require_scope(p_scope text) returns void
  language plpgsql stable as $$
begin
  if not app_hidden.has_scope(p_scope) then
    raise exception 'scope % required', p_scope using errcode = 'SVSCP', hint = p_scope;
  end if;
end
$$;
comment on function app_hidden.require_scope(text) is 'Raises SVSCP (HTTP 403 scope_required) unless the calling key holds the scope.';

create function app_hidden.tg__set_updated_at() returns trigger
  language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end
$$;
comment on function app_hidden.tg__set_updated_at() is 'BEFORE UPDATE trigger: stamps updated_at.';

grant execute on all functions in schema app_hidden to svc_visitor;

--! split: 2-tenancy.sql
-- Workspaces, users, memberships, agents and API keys.

create table app_public.workspaces (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  key text not null unique check (key ~ '^[A-Z][A-Z0-9]{1,9}$'),
  name text not null check (length(name) between 1 and 200),
  cycle_length_days int not null default 14 check (cycle_length_days between 1 and 365),
  cycle_cooldown_days int not null default 0 check (cycle_cooldown_days between 0 and 365),
  time_tracking_enabled boolean not null default true,
  attachment_quota_mb int not null default 1024 check (attachment_quota_mb >= 0),
  required_ack_seconds int not null default 0 check (required_ack_seconds >= 0),
  auto_dispatch boolean not null default false,
  auto_dispatch_mode text not null default 'ROUND_ROBIN'
    check (auto_dispatch_mode in ('ROUND_ROBIN', 'PRIORITY_MATCH', 'CAPABILITY_MATCH', 'MANUAL_ONLY')),
  assignment_sla_minutes int not null default 0 check (assignment_sla_minutes >= 0),
  agent_run_stale_minutes int not null default 30 check (agent_run_stale_minutes >= 1),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table app_public.workspaces is 'A tenant. Every request is evaluated inside exactly one workspace, the one of its key.';
comment on column app_public.workspaces.key is 'Short uppercase tag; issue keys are <key>-<number>.';
comment on column app_public.workspaces.required_ack_seconds is 'Window in which an assigned agent must acknowledge (comment or move status); 0 = off.';
comment on column app_public.workspaces.assignment_sla_minutes is 'Default SLA for queued work; 0 = off.';
create trigger _100_updated_at before update on app_public.workspaces
  for each row execute function app_hidden.tg__set_updated_at();

create table app_private.workspace_counters (
  workspace_id uuid primary key references app_public.workspaces on delete cascade,
  last_issue_number int not null default 0
);
comment on table app_private.workspace_counters is 'Per-workspace issue number allocator, kept off the workspace row so reads never wait on it.';

create table app_public.users (
  id uuid primary key default gen_random_uuid(),
  email text not null check (email ~ '^[^@\s]+@[^@\s]+$'),
  name text not null default '',
  image_url text,
  timezone text not null default 'UTC',
  created_at timestamptz not null default now()
);
create unique index users_email_key on app_public.users (lower(email));
comment on table app_public.users is 'A person. Users are global; they reach a workspace through a membership.';
comment on column app_public.users.timezone is 'IANA zone used for "today" (notes.todayJournal).';

create table app_public.memberships (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  user_id uuid not null references app_public.users on delete cascade,
  role text not null default 'MEMBER' check (role in ('OWNER', 'ADMIN', 'MEMBER')),
  created_at timestamptz not null default now(),
  unique (workspace_id, user_id)
);
create index memberships_user_idx on app_public.memberships (user_id);
comment on table app_public.memberships is 'A user''s role in a workspace: OWNER, ADMIN or MEMBER.';

create table app_public.agents (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  profile_key text not null check (profile_key ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
  name text not null check (length(name) between 1 and 200),
  status text not null default 'OFFLINE' check (status in ('ONLINE', 'BUSY', 'OFFLINE')),
  runtime_mode text not null default 'PERSISTENT' check (runtime_mode in ('PERSISTENT', 'EPHEMERAL')),
  provider text not null default 'CUSTOM' check (provider in ('CUSTOM', 'CLAUDE', 'CODEX', 'HERMES')),
  capabilities text[] not null default '{}',
  max_concurrent int not null default 1 check (max_concurrent >= 0),
  webhook_url text check (webhook_url ~ '^https?://'),
  runtime_id uuid,
  last_heartbeat_at timestamptz,
  last_dispatched_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, profile_key),
  unique (workspace_id, id)
);
comment on table app_public.agents is 'A software agent working in a workspace. profileKey is its handle for handoffs and assignment.';
comment on column app_public.agents.max_concurrent is 'Open assigned issues the dispatcher may give this agent; 0 = unlimited.';
comment on column app_public.agents.runtime_id is 'Runtime the agent runs on (runtimes arrive with the runtimes namespace).';
create trigger _100_updated_at before update on app_public.agents
  for each row execute function app_hidden.tg__set_updated_at();

create table app_private.plugins (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  name text not null,
  manifest jsonb not null default '{"scopes": []}',
  approved_at timestamptz,
  created_at timestamptz not null default now()
);
comment on table app_private.plugins is 'Approved plugin records; keys issued under a plugin may hold only a subset of manifest.scopes.';

create table app_private.api_keys (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  user_id uuid references app_public.users on delete cascade,
  plugin_id uuid references app_private.plugins on delete cascade,
  kind text not null check (kind in ('AGENT', 'PERSONAL', 'SESSION')),
  linked_agent_id uuid,
  name text,
  scopes text[] not null check (scopes <@ array['READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'WRITE_PROJECTS',
    'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'WRITE_USERS', 'READ_ANALYTICS', 'SUBSCRIBE_EVENTS',
    'INVOKE_SKILLS', 'ADMIN', 'FULL']),
  project_ids uuid[] not null default '{}',
  label_ids uuid[] not null default '{}',
  initiative_ids uuid[] not null default '{}',
  token_hash bytea not null unique check (length(token_hash) = 32),
  prefix text not null check (length(prefix) = 14),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  foreign key (workspace_id, linked_agent_id) references app_public.agents (workspace_id, id) on delete cascade,
  check (kind <> 'AGENT' or linked_agent_id is not null),
  check (kind <> 'SESSION' or expires_at is not null),
  check (user_id is not null or plugin_id is not null)
);
create index api_keys_workspace_idx on app_private.api_keys (workspace_id);
comment on table app_private.api_keys is 'API keys. Only the SHA-256 of the token is stored; the raw key is shown once at creation.';
comment on column app_private.api_keys.prefix is 'First 14 characters of the raw key, for display.';
comment on column app_private.api_keys.project_ids is 'Narrowing: issues/projects outside these projects are invisible. Empty = unrestricted.';

-- Row-level security -------------------------------------------------------------------

alter table app_public.workspaces enable row level security;
alter table app_public.workspaces force row level security;
create policy select_own_workspace on app_public.workspaces for select to svc_visitor
  using (id = (select app_hidden.current_workspace_id()));
comment on policy select_own_workspace on app_public.workspaces is 'A key sees only its own workspace.';

alter table app_private.workspace_counters enable row level security;
alter table app_private.workspace_counters force row level security;

alter table app_public.users enable row level security;
alter table app_public.users force row level security;
create policy select_workspace_members on app_public.users for select to svc_visitor
  using (exists (select 1 from app_public.memberships m
                 where m.user_id = users.id and m.workspace_id = (select app_hidden.current_workspace_id())));
comment on policy select_workspace_members on app_public.users is 'Users are visible only when they are members of the caller''s workspace.';

alter table app_public.memberships enable row level security;
alter table app_public.memberships force row level security;
create policy select_in_workspace on app_public.memberships for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.memberships is 'Memberships of the caller''s workspace.';

alter table app_public.agents enable row level security;
alter table app_public.agents force row level security;
create policy select_in_workspace on app_public.agents for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.agents is 'Agents of the caller''s workspace.';
create policy update_own_agent on app_public.agents for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()) and id = (select app_hidden.current_agent_id()))
  with check (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy update_own_agent on app_public.agents is 'A key linked to an agent may update that agent (heartbeat, status).';
grant select on app_public.agents to svc_visitor;
grant update (status, last_heartbeat_at) on app_public.agents to svc_visitor;

alter table app_private.plugins enable row level security;
alter table app_private.plugins force row level security;
alter table app_private.api_keys enable row level security;
alter table app_private.api_keys force row level security;

grant select on app_public.workspaces, app_public.users, app_public.memberships to svc_visitor;

-- The owner (security-definer functions, the operator CLI, the worker) works on every row.
-- FORCE makes the owner subject to policies too, so its access is a policy that can be read here.
create policy owner_all on app_public.workspaces to current_user using (true) with check (true);
create policy owner_all on app_private.workspace_counters to current_user using (true) with check (true);
create policy owner_all on app_public.users to current_user using (true) with check (true);
create policy owner_all on app_public.memberships to current_user using (true) with check (true);
create policy owner_all on app_public.agents to current_user using (true) with check (true);
create policy owner_all on app_private.plugins to current_user using (true) with check (true);
create policy owner_all on app_private.api_keys to current_user using (true) with check (true);
comment on policy owner_all on app_public.workspaces is 'The schema owner (definer functions, operator CLI, worker) is trusted; it checks tenancy itself.';
comment on policy owner_all on app_private.workspace_counters is 'The schema owner allocates issue numbers.';
comment on policy owner_all on app_public.users is 'The schema owner manages users.';
comment on policy owner_all on app_public.memberships is 'The schema owner manages memberships.';
comment on policy owner_all on app_public.agents is 'The schema owner manages agents.';
comment on policy owner_all on app_private.plugins is 'The schema owner manages plugin records.';
comment on policy owner_all on app_private.api_keys is 'Only the schema owner reads key rows (through app_hidden.authenticate).';

-- Authentication ------------------------------------------------------------------------

create function app_hidden.authenticate(p_token_hash bytea)
returns table (
  key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[],
  project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamptz, revoked_at timestamptz,
  acting_user_id uuid
)
language sql stable security definer set search_path = pg_catalog as $$
  select k.id, k.workspace_id, k.user_id, k.kind, k.linked_agent_id, k.scopes,
         k.project_ids, k.label_ids, k.initiative_ids, k.expires_at, k.revoked_at,
         -- plugin keys with no user act as the first workspace member (spec 4.2 issues.create)
         coalesce(k.user_id, (select m.user_id from app_public.memberships m
                              where m.workspace_id = k.workspace_id order by m.created_at, m.id limit 1))
  from app_private.api_keys k
  where k.token_hash = p_token_hash
$$;
comment on function app_hidden.authenticate(bytea) is
  'Looks a key up by the SHA-256 of its token. Returns no row for an unknown hash; the API decides invalid / revoked / expired in that order.';
grant execute on function app_hidden.authenticate(bytea) to svc_visitor;

create function app_hidden.set_request_context(
  p_workspace_id uuid, p_user_id uuid, p_key_id uuid, p_agent_id uuid,
  p_scopes text[], p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[]
) returns void
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare
  v_key app_private.api_keys;
begin
  -- The API authenticates from a short-lived cache; this check in the call's own statement makes
  -- revocation and expiry exact (a revoked key fails on its very next call).
  select * into v_key from app_private.api_keys where id = p_key_id;
  if v_key.id is null or v_key.workspace_id is distinct from p_workspace_id then
    raise exception 'Invalid API key' using errcode = 'SV401', detail = 'invalid';
  elsif v_key.revoked_at is not null then
    raise exception 'API key revoked' using errcode = 'SV401', detail = 'revoked';
  elsif v_key.expires_at is not null and v_key.expires_at <= now() then
    raise exception 'API key expired' using errcode = 'SV401', detail = 'expired';
  end if;
  perform
    set_config('svc.workspace_id', p_workspace_id::text, true),
    set_config('svc.user_id', coalesce(p_user_id::text, ''), true),
    set_config('svc.key_id', p_key_id::text, true),
    set_config('svc.agent_id', coalesce(p_agent_id::text, ''), true),
    set_config('svc.scopes', coalesce(p_scopes, '{}')::text, true),
    set_config('svc.project_ids', coalesce(p_project_ids, '{}')::text, true),
    set_config('svc.label_ids', coalesce(p_label_ids, '{}')::text, true),
    set_config('svc.initiative_ids', coalesce(p_initiative_ids, '{}')::text, true);
end
$$;
comment on function app_hidden.set_request_context(uuid, uuid, uuid, uuid, text[], uuid[], uuid[], uuid[]) is
  'Checks the key is still live (401 revoked/expired otherwise) and writes the caller identity into transaction-local settings. The API calls it in the same statement as the tool function.';
grant execute on function app_hidden.set_request_context(uuid, uuid, uuid, uuid, text[], uuid[], uuid[], uuid[]) to svc_visitor;

create function app_private.touch_api_keys(p_key_ids uuid[]) returns void
language sql volatile as $$
  update app_private.api_keys set last_used_at = now() where id = any(p_key_ids)
$$;
comment on function app_private.touch_api_keys(uuid[]) is 'Best-effort lastUsedAt bump, batched by the API (not one write per call).';

create function app_private.tg_api_keys__notify_revoked() returns trigger
language plpgsql as $$
begin
  perform pg_notify('svc_keys', new.id::text);
  return null;
end
$$;
comment on function app_private.tg_api_keys__notify_revoked() is 'Tells every API process to drop its cached copy of a revoked key at once.';
create trigger _900_notify_revoked after update of revoked_at on app_private.api_keys
  for each row when (new.revoked_at is not null and old.revoked_at is null)
  execute function app_private.tg_api_keys__notify_revoked();

-- Key lookup helper for the operator and in-app procedures ------------------------------

create function app_private.create_api_key(
  p_workspace_id uuid, p_user_id uuid, p_kind text, p_linked_agent_id uuid, p_scopes text[],
  p_project_ids uuid[], p_label_ids uuid[], p_initiative_ids uuid[], p_expires_at timestamptz,
  p_token_hash bytea, p_prefix text, p_name text default null, p_plugin_id uuid default null
) returns app_private.api_keys
language plpgsql volatile as $$
declare
  v_key app_private.api_keys;
  v_kind text := coalesce(p_kind, case when p_linked_agent_id is not null then 'AGENT' else 'PERSONAL' end);
begin
  if p_user_id is not null and not exists (
    select 1 from app_public.memberships where workspace_id = p_workspace_id and user_id = p_user_id) then
    perform app_hidden.raise_invalid('user', 'user is not a member of this workspace');
  end if;
  if v_kind = 'AGENT' and p_linked_agent_id is null then
    perform app_hidden.raise_invalid('linkedAgentId', 'an AGENT key needs a linked agent');
  end if;
  if v_kind = 'PERSONAL' and p_linked_agent_id is not null then
    perform app_hidden.raise_invalid('linkedAgentId', 'a PERSONAL key has no linked agent');
  end if;
  if v_kind = 'SESSION' and p_expires_at is null then
    perform app_hidden.raise_invalid('ttlHours', 'a SESSION key needs an expiry');
  end if;
  if p_linked_agent_id is not null and not exists (
    select 1 from app_public.agents where id = p_linked_agent_id and workspace_id = p_workspace_id) then
    perform app_hidden.raise_not_found('Agent');
  end if;
  if exists (select 1 from unnest(p_project_ids) pid
             where not exists (select 1 from app_public.projects p where p.id = pid and p.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('projectIds', 'unknown project in this workspace');
  end if;
  if exists (select 1 from unnest(p_label_ids) lid
             where not exists (select 1 from app_public.labels l where l.id = lid and l.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('labelIds', 'unknown label in this workspace');
  end if;
  if exists (select 1 from unnest(p_initiative_ids) iid
             where not exists (select 1 from app_public.initiatives i where i.id = iid and i.workspace_id = p_workspace_id)) then
    perform app_hidden.raise_invalid('initiativeIds', 'unknown initiative in this workspace');
  end if;
  insert into app_private.api_keys (workspace_id, user_id, plugin_id, kind, linked_agent_id, name, scopes,
                                    project_ids, label_ids, initiative_ids, expires_at, token_hash, prefix)
  values (p_workspace_id, p_user_id, p_plugin_id, v_kind, p_linked_agent_id, p_name, p_scopes,
          coalesce(p_project_ids, '{}'), coalesce(p_label_ids, '{}'), coalesce(p_initiative_ids, '{}'),
          p_expires_at, p_token_hash, p_prefix)
  returning * into v_key;
  return v_key;
end
$$;
comment on function app_private.create_api_key(uuid, uuid, text, uuid, text[], uuid[], uuid[], uuid[], timestamptz, bytea, text, text, uuid) is
  'Stores a new key (hash and display prefix only; the token is generated by the caller and shown once). Kind is inferred: AGENT with a linked agent, else PERSONAL.';

create function app_private.revoke_api_key(p_key_id uuid) returns app_private.api_keys
language plpgsql volatile as $$
declare v_key app_private.api_keys;
begin
  update app_private.api_keys set revoked_at = coalesce(revoked_at, now()) where id = p_key_id returning * into v_key;
  if v_key.id is null then
    perform app_hidden.raise_not_found('API key');
  end if;
  return v_key;
end
$$;
comment on function app_private.revoke_api_key(uuid) is 'Revokes a key permanently (revocation cannot be undone).';

--! split: 3-tracker.sql
-- Statuses, labels, initiatives, projects and issues.
-- References inside a workspace use composite keys (workspace_id, id), so a row can never point
-- at another tenant's row, whatever a function gets wrong.

create table app_public.statuses (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  name text not null check (length(name) between 1 and 100),
  category text not null check (category in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED')),
  color text not null default '#94a3b8',
  position int not null default 0,
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  unique (workspace_id, name)
);
create unique index statuses_one_default on app_public.statuses (workspace_id) where is_default;
comment on table app_public.statuses is 'Workflow statuses of a workspace, ordered by position. A new workspace gets Backlog, Todo (default), In Progress, In Review, Done, Canceled.';

create table app_public.labels (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  name text not null check (length(name) between 1 and 100),
  color text not null default '#64748b',
  description text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
create unique index labels_workspace_name_key on app_public.labels (workspace_id, lower(name));
comment on table app_public.labels is 'Labels that can be put on issues; also a narrowing dimension for keys.';
create trigger _100_updated_at before update on app_public.labels
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.initiatives (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  name text not null check (length(name) between 1 and 200),
  description text,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.initiatives is 'A long-running objective; projects link to it through initiativeId.';
create trigger _100_updated_at before update on app_public.initiatives
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.projects (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  name text not null check (length(name) between 1 and 200),
  description text,
  initiative_id uuid,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, initiative_id) references app_public.initiatives (workspace_id, id) on delete set null (initiative_id)
);
create index projects_initiative_idx on app_public.projects (workspace_id, initiative_id);
comment on table app_public.projects is 'A body of work grouping issues. Archiving is soft (archivedAt).';
create trigger _100_updated_at before update on app_public.projects
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.issues (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  number int not null,
  key text not null,
  title text not null check (length(title) between 1 and 500),
  description text,
  priority text not null default 'NONE' check (priority in ('NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT')),
  status_id uuid not null,
  project_id uuid,
  parent_id uuid,
  assigned_agent_id uuid,
  claimed_by_id uuid references app_public.users on delete set null,
  claim_expires_at timestamptz,
  queued boolean not null default false,
  due_date date,
  estimate numeric check (estimate >= 0),
  sla_minutes int check (sla_minutes > 0),
  expected_output text,
  verification_checklist jsonb not null default '[]' check (jsonb_typeof(verification_checklist) = 'array'),
  artifact_required boolean not null default false,
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  unique (workspace_id, number),
  unique (workspace_id, id),
  foreign key (workspace_id, status_id) references app_public.statuses (workspace_id, id),
  foreign key (workspace_id, project_id) references app_public.projects (workspace_id, id),
  foreign key (workspace_id, parent_id) references app_public.issues (workspace_id, id),
  foreign key (workspace_id, assigned_agent_id) references app_public.agents (workspace_id, id),
  foreign key (workspace_id, created_by_agent_id) references app_public.agents (workspace_id, id),
  check (parent_id <> id)
);
comment on table app_public.issues is 'A unit of work. key = <workspace key>-<number>. Deletion is soft (deletedAt).';
comment on column app_public.issues.queued is 'True = in the dispatch pool; the dispatcher considers only queued, unassigned issues.';
comment on column app_public.issues.claimed_by_id is 'Human claim set by issues.claim; soft-expires at claimExpiresAt.';
comment on column app_public.issues.verification_checklist is 'Completion contract: [{id, label, done}] that an EXECUTE run must report done.';
-- Keyset pagination reads newest first by number; every filter index leads with workspace_id.
create index issues_list_idx on app_public.issues (workspace_id, number desc) where deleted_at is null;
create index issues_status_idx on app_public.issues (workspace_id, status_id, number desc) where deleted_at is null;
create index issues_project_idx on app_public.issues (workspace_id, project_id, number desc) where deleted_at is null;
create index issues_agent_idx on app_public.issues (workspace_id, assigned_agent_id, number desc) where deleted_at is null;
create index issues_priority_idx on app_public.issues (workspace_id, priority, number desc) where deleted_at is null;
create index issues_queued_idx on app_public.issues (workspace_id, number desc) where queued and deleted_at is null;
create index issues_parent_idx on app_public.issues (workspace_id, parent_id) where parent_id is not null;
create trigger _100_updated_at before update on app_public.issues
  for each row execute function app_hidden.tg__set_updated_at();

create table app_public.issue_labels (
  workspace_id uuid not null,
  issue_id uuid not null,
  label_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (issue_id, label_id),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, label_id) references app_public.labels (workspace_id, id) on delete cascade
);
create index issue_labels_label_idx on app_public.issue_labels (workspace_id, label_id, issue_id);
comment on table app_public.issue_labels is 'Labels on issues.';

-- Issue numbers: allocated per workspace by the owner, so the request role never touches counters.
create function app_private.tg_issues__assign_number() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  insert into app_private.workspace_counters as c (workspace_id, last_issue_number)
  values (new.workspace_id, 1)
  on conflict (workspace_id) do update set last_issue_number = c.last_issue_number + 1
  returning last_issue_number into new.number;
  new.key := (select w.key from app_public.workspaces w where w.id = new.workspace_id) || '-' || new.number;
  return new;
end
$$;
comment on function app_private.tg_issues__assign_number() is 'BEFORE INSERT on issues: next per-workspace number and the key <WS>-<n>.';
create trigger _200_assign_number before insert on app_public.issues
  for each row execute function app_private.tg_issues__assign_number();

-- Row-level security -------------------------------------------------------------------

create function app_hidden.issue_passes_narrowing(p_issue_id uuid, p_project_id uuid) returns boolean
language sql stable as $$
  select p_project_id = any(app_hidden.narrowed_project_ids())
      or exists (select 1 from app_public.issue_labels il
                 where il.issue_id = p_issue_id and il.label_id = any(app_hidden.narrowed_label_ids()))
$$;
comment on function app_hidden.issue_passes_narrowing(uuid, uuid) is
  'Spec 5.6: an issue passes when its project is in projectIds or any of its labels is in labelIds (OR). Only consulted for narrowed keys.';

alter table app_public.statuses enable row level security;
alter table app_public.statuses force row level security;
create policy select_in_workspace on app_public.statuses for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.statuses is 'Statuses of the caller''s workspace.';

alter table app_public.labels enable row level security;
alter table app_public.labels force row level security;
create policy select_in_workspace on app_public.labels for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.labels is 'Labels of the caller''s workspace (label narrowing restricts issues, not the label list).';

alter table app_public.initiatives enable row level security;
alter table app_public.initiatives force row level security;
create policy select_in_workspace on app_public.initiatives for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select cardinality(app_hidden.narrowed_initiative_ids())) = 0
              or id = any((select app_hidden.narrowed_initiative_ids())::uuid[])));
comment on policy select_in_workspace on app_public.initiatives is 'Initiatives of the caller''s workspace, narrowed to initiativeIds when the key has them.';

alter table app_public.projects enable row level security;
alter table app_public.projects force row level security;
create policy select_in_workspace on app_public.projects for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select cardinality(app_hidden.narrowed_project_ids())) = 0
              or id = any((select app_hidden.narrowed_project_ids())::uuid[])));
comment on policy select_in_workspace on app_public.projects is 'Projects of the caller''s workspace, narrowed to projectIds when the key has them.';

alter table app_public.issues enable row level security;
alter table app_public.issues force row level security;
create policy select_in_workspace on app_public.issues for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted()) or app_hidden.issue_passes_narrowing(id, project_id)));
comment on policy select_in_workspace on app_public.issues is 'Issues of the caller''s workspace; a narrowed key sees only issues in its projects or carrying its labels.';
create policy insert_in_workspace on app_public.issues for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id())
              and ((select app_hidden.issues_unrestricted())
                   or project_id = any((select app_hidden.narrowed_project_ids())::uuid[])
                   or cardinality((select app_hidden.narrowed_label_ids())) > 0));
comment on policy insert_in_workspace on app_public.issues is
  'Create issues in the caller''s workspace; a project-narrowed key only inside its projects (label-narrowed keys are checked once labels are set).';
create policy update_in_workspace on app_public.issues for update to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted()) or app_hidden.issue_passes_narrowing(id, project_id)))
  with check (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy update_in_workspace on app_public.issues is 'Update issues the caller can see.';

alter table app_public.issue_labels enable row level security;
alter table app_public.issue_labels force row level security;
create policy select_in_workspace on app_public.issue_labels for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy select_in_workspace on app_public.issue_labels is 'Issue labels of the caller''s workspace.';
create policy insert_in_workspace on app_public.issue_labels for insert to svc_visitor
  with check (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy insert_in_workspace on app_public.issue_labels is 'Label issues of the caller''s workspace.';
create policy delete_in_workspace on app_public.issue_labels for delete to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id()));
comment on policy delete_in_workspace on app_public.issue_labels is 'Unlabel issues of the caller''s workspace.';

grant select on app_public.statuses, app_public.labels, app_public.initiatives, app_public.projects,
  app_public.issues, app_public.issue_labels to svc_visitor;
grant insert (id, workspace_id, title, description, priority, status_id, project_id, parent_id, due_date, estimate,
              sla_minutes, expected_output, verification_checklist, artifact_required, created_by_user_id,
              created_by_agent_id)
  on app_public.issues to svc_visitor;
grant update (title, description, priority, status_id, project_id, parent_id, assigned_agent_id, claimed_by_id,
              claim_expires_at, queued, due_date, estimate, sla_minutes, expected_output, verification_checklist,
              artifact_required, started_at, completed_at, deleted_at)
  on app_public.issues to svc_visitor;
grant insert (workspace_id, issue_id, label_id), delete on app_public.issue_labels to svc_visitor;

create policy owner_all on app_public.statuses to current_user using (true) with check (true);
create policy owner_all on app_public.labels to current_user using (true) with check (true);
create policy owner_all on app_public.initiatives to current_user using (true) with check (true);
create policy owner_all on app_public.projects to current_user using (true) with check (true);
create policy owner_all on app_public.issues to current_user using (true) with check (true);
create policy owner_all on app_public.issue_labels to current_user using (true) with check (true);
comment on policy owner_all on app_public.statuses is 'The schema owner seeds and manages statuses.';
comment on policy owner_all on app_public.labels is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.initiatives is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.projects is 'The schema owner (operator, worker) works on every row.';
comment on policy owner_all on app_public.issues is 'The schema owner (operator, worker, dispatcher) works on every row.';
comment on policy owner_all on app_public.issue_labels is 'The schema owner (operator, worker) works on every row.';

-- Seed statuses for every new workspace.
create function app_private.tg_workspaces__seed_statuses() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  insert into app_public.statuses (workspace_id, name, category, color, position, is_default) values
    (new.id, 'Backlog', 'BACKLOG', '#94a3b8', 0, false),
    (new.id, 'Todo', 'TODO', '#64748b', 1, true),
    (new.id, 'In Progress', 'IN_PROGRESS', '#f59e0b', 2, false),
    (new.id, 'In Review', 'IN_REVIEW', '#8b5cf6', 3, false),
    (new.id, 'Done', 'DONE', '#22c55e', 4, false),
    (new.id, 'Canceled', 'CANCELED', '#ef4444', 5, false);
  insert into app_private.workspace_counters (workspace_id) values (new.id);
  return null;
end
$$;
comment on function app_private.tg_workspaces__seed_statuses() is 'AFTER INSERT on workspaces: the six default statuses and the issue counter.';
create trigger _500_seed_statuses after insert on app_public.workspaces
  for each row execute function app_private.tg_workspaces__seed_statuses();

--! split: 4-events.sql
-- ActivityEvents: written by triggers in the same transaction as the change they record.
-- The pattern every table reuses: an AFTER trigger tg_<table>__events decides which kinds a change
-- means and calls app_private.record_event; the event insert NOTIFYs listeners with ids only.

create table app_public.activity_events (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity unique,
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  kind text not null,
  subject_type text not null,
  subject_id uuid,
  payload jsonb not null default '{}',
  actor_user_id uuid,
  actor_agent_id uuid,
  actor_key_id uuid,
  created_at timestamptz not null default now()
);
comment on table app_public.activity_events is 'Append-only log of every state change; drives SSE, webhooks and the activity feed.';
comment on column app_public.activity_events.seq is 'Allocation order of events, used for stable newest-first paging.';
create index activity_events_recent_idx on app_public.activity_events (workspace_id, seq desc);
create index activity_events_subject_idx on app_public.activity_events (workspace_id, subject_type, subject_id, seq desc);
create index activity_events_kind_idx on app_public.activity_events (workspace_id, kind, seq desc);

alter table app_public.activity_events enable row level security;
alter table app_public.activity_events force row level security;
create policy select_in_workspace on app_public.activity_events for select to svc_visitor
  using (workspace_id = (select app_hidden.current_workspace_id())
         and ((select app_hidden.issues_unrestricted())
              or subject_type <> 'issue'
              or exists (select 1 from app_public.issues i where i.id = activity_events.subject_id)));
comment on policy select_in_workspace on app_public.activity_events is
  'Events of the caller''s workspace; for a narrowed key, issue-subject events only of issues it can see.';
create policy owner_all on app_public.activity_events to current_user using (true) with check (true);
comment on policy owner_all on app_public.activity_events is 'Only the owner writes events (through app_private.record_event).';
grant select on app_public.activity_events to svc_visitor;

create function app_private.record_event(
  p_workspace_id uuid, p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb
) returns uuid
language plpgsql volatile security definer set search_path = pg_catalog as $$
declare v_id uuid;
begin
  insert into app_public.activity_events (workspace_id, kind, subject_type, subject_id, payload,
                                          actor_user_id, actor_agent_id, actor_key_id)
  values (p_workspace_id, p_kind, p_subject_type, p_subject_id, coalesce(p_payload, '{}'),
          app_hidden.current_user_id(), app_hidden.current_agent_id(), app_hidden.current_key_id())
  returning id into v_id;
  return v_id;
end
$$;
comment on function app_private.record_event(uuid, text, text, uuid, jsonb) is
  'Appends an ActivityEvent with the caller as actor. Security definer: the request role cannot forge events.';

create function app_hidden.record_event(p_kind text, p_subject_type text, p_subject_id uuid, p_payload jsonb) returns uuid
language sql volatile security definer set search_path = pg_catalog as $$
  select app_private.record_event(app_hidden.current_workspace_id(), p_kind, p_subject_type, p_subject_id, p_payload)
$$;
comment on function app_hidden.record_event(text, text, uuid, jsonb) is
  'For tool functions whose event needs context a trigger cannot see (e.g. AGENT_ASSIGNED reason): records in the caller''s workspace only.';
grant execute on function app_hidden.record_event(text, text, uuid, jsonb) to svc_visitor;

create function app_private.tg_activity_events__notify() returns trigger
language plpgsql as $$
begin
  perform pg_notify('svc_events', json_build_object('id', new.id, 'seq', new.seq, 'workspaceId', new.workspace_id)::text);
  return null;
end
$$;
comment on function app_private.tg_activity_events__notify() is 'Wakes SSE fan-out and workers on commit (payload: ids only).';
create trigger _900_notify after insert on app_public.activity_events
  for each row execute function app_private.tg_activity_events__notify();

-- Issues --------------------------------------------------------------------------------

create function app_private.tg_issues__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
declare
  v_changed text[] := '{}';
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'ISSUE_CREATED', 'issue', new.id, jsonb_build_object(
      'issueId', new.id, 'key', new.key, 'number', new.number, 'title', new.title, 'priority', new.priority,
      'statusId', new.status_id, 'projectId', new.project_id));
    return null;
  end if;

  if new.deleted_at is not null and old.deleted_at is null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_DELETED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'key', new.key));
    return null;
  end if;
  if new.status_id is distinct from old.status_id then
    perform app_private.record_event(new.workspace_id, 'ISSUE_STATUS_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.status_id, 'to', new.status_id));
  end if;
  if new.priority is distinct from old.priority then
    perform app_private.record_event(new.workspace_id, 'ISSUE_PRIORITY_CHANGED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'from', old.priority, 'to', new.priority));
  end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is not null then
    perform app_private.record_event(new.workspace_id, 'ISSUE_ASSIGNED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'agentId', new.assigned_agent_id,
                         'from', old.assigned_agent_id, 'to', new.assigned_agent_id));
  end if;
  if new.queued and not old.queued then
    perform app_private.record_event(new.workspace_id, 'ISSUE_QUEUED', 'issue', new.id,
      jsonb_build_object('issueId', new.id));
  end if;
  -- Any other field of note: one ISSUE_UPDATED naming the fields.
  if new.title is distinct from old.title then v_changed := v_changed || 'title'; end if;
  if new.description is distinct from old.description then v_changed := v_changed || 'description'; end if;
  if new.project_id is distinct from old.project_id then v_changed := v_changed || 'projectId'; end if;
  if new.parent_id is distinct from old.parent_id then v_changed := v_changed || 'parentId'; end if;
  if new.due_date is distinct from old.due_date then v_changed := v_changed || 'dueDate'; end if;
  if new.estimate is distinct from old.estimate then v_changed := v_changed || 'estimate'; end if;
  if new.sla_minutes is distinct from old.sla_minutes then v_changed := v_changed || 'slaMinutes'; end if;
  if new.expected_output is distinct from old.expected_output then v_changed := v_changed || 'expectedOutput'; end if;
  if new.verification_checklist is distinct from old.verification_checklist then v_changed := v_changed || 'verificationChecklist'; end if;
  if new.artifact_required is distinct from old.artifact_required then v_changed := v_changed || 'artifactRequired'; end if;
  if new.claimed_by_id is distinct from old.claimed_by_id then v_changed := v_changed || 'claimedById'; end if;
  if new.queued is distinct from old.queued and not new.queued then v_changed := v_changed || 'queued'; end if;
  if new.assigned_agent_id is distinct from old.assigned_agent_id and new.assigned_agent_id is null then
    v_changed := v_changed || 'assignedAgentId';
  end if;
  if cardinality(v_changed) > 0 then
    perform app_private.record_event(new.workspace_id, 'ISSUE_UPDATED', 'issue', new.id,
      jsonb_build_object('issueId', new.id, 'changes', to_jsonb(v_changed)));
  end if;
  return null;
end
$$;
comment on function app_private.tg_issues__events() is
  'AFTER INSERT/UPDATE on issues: ISSUE_CREATED, ISSUE_DELETED, ISSUE_STATUS_CHANGED, ISSUE_PRIORITY_CHANGED, ISSUE_ASSIGNED, ISSUE_QUEUED, and ISSUE_UPDATED for any other field. A change that changes nothing writes nothing.';
create trigger _800_events after insert or update on app_public.issues
  for each row execute function app_private.tg_issues__events();

-- Memberships and agents ----------------------------------------------------------------

create function app_private.tg_memberships__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_CREATED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'role', new.role));
  elsif tg_op = 'UPDATE' and new.role is distinct from old.role then
    perform app_private.record_event(new.workspace_id, 'MEMBERSHIP_ROLE_CHANGED', 'membership', new.id,
      jsonb_build_object('userId', new.user_id, 'from', old.role, 'to', new.role));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'MEMBERSHIP_REMOVED', 'membership', old.id,
      jsonb_build_object('userId', old.user_id, 'role', old.role));
  end if;
  return null;
end
$$;
comment on function app_private.tg_memberships__events() is 'MEMBERSHIP_CREATED / _ROLE_CHANGED / _REMOVED.';
create trigger _800_events after insert or update or delete on app_public.memberships
  for each row execute function app_private.tg_memberships__events();

create function app_private.tg_agents__events() returns trigger
language plpgsql security definer set search_path = pg_catalog as $$
begin
  if tg_op = 'INSERT' then
    perform app_private.record_event(new.workspace_id, 'AGENT_CREATED', 'agent', new.id,
      jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'name', new.name));
  elsif tg_op = 'DELETE' then
    perform app_private.record_event(old.workspace_id, 'AGENT_DELETED', 'agent', old.id,
      jsonb_build_object('agentId', old.id, 'profileKey', old.profile_key, 'deleted', true));
  else
    if new.status is distinct from old.status then
      perform app_private.record_event(new.workspace_id, 'AGENT_STATUS_CHANGED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'from', old.status, 'to', new.status));
    end if;
    if new.archived_at is not null and old.archived_at is null then
      perform app_private.record_event(new.workspace_id, 'AGENT_DELETED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key, 'archived', true));
    elsif (new.name, new.profile_key, new.runtime_mode, new.provider, new.capabilities, new.max_concurrent,
           new.webhook_url, new.runtime_id, new.archived_at)
          is distinct from
          (old.name, old.profile_key, old.runtime_mode, old.provider, old.capabilities, old.max_concurrent,
           old.webhook_url, old.runtime_id, old.archived_at) then
      perform app_private.record_event(new.workspace_id, 'AGENT_UPDATED', 'agent', new.id,
        jsonb_build_object('agentId', new.id, 'profileKey', new.profile_key));
    end if;
  end if;
  return null;
end
$$;
comment on function app_private.tg_agents__events() is 'AGENT_CREATED, AGENT_UPDATED, AGENT_DELETED (archive or delete), AGENT_STATUS_CHANGED (only on an actual change).';
create trigger _800_events after insert or update or delete on app_public.agents
  for each row execute function app_private.tg_agents__events();

--! split: 5-first-tools.sql
-- JSON shapes (camelCase, as the spec's wire format) and the first tool functions.
-- Tool functions live in app_tools, take the validated input as jsonb and return jsonb; they run as
-- the request role, so RLS and narrowing apply to every row they touch.

create index issues_key_idx on app_public.issues (workspace_id, key);

-- Cursors are opaque to clients: base64url of a small text token.
create function app_hidden.cursor_encode(p_token text) returns text
language sql immutable parallel safe as $$
  select rtrim(translate(encode(convert_to(p_token, 'utf8'), 'base64'), '+/', '-_'), '=')
$$;
comment on function app_hidden.cursor_encode(text) is 'Opaque cursor for keyset pagination.';

create function app_hidden.cursor_decode(p_cursor text, p_prefix text) returns text
language plpgsql immutable as $$
declare
  v_b64 text := translate(p_cursor, '-_', '+/');
  v_token text;
begin
  v_b64 := v_b64 || repeat('=', (4 - length(v_b64) % 4) % 4);
  v_token := convert_from(decode(v_b64, 'base64'), 'utf8');
  if left(v_token, length(p_prefix) + 1) <> p_prefix || ':' then
    raise exception 'bad cursor' using errcode = 'SV400', column = 'cursor';
  end if;
  return substr(v_token, length(p_prefix) + 2);
exception when others then
  raise exception 'cursor is not one this list returned' using errcode = 'SV400', column = 'cursor';
end
$$;
comment on function app_hidden.cursor_decode(text, text) is 'Reads a cursor made by cursor_encode; a foreign or damaged cursor is a 400 on field cursor.';

create function app_hidden.parse_uuid(p_value text, p_field text) returns uuid
language plpgsql immutable as $$
begin
  return p_value::uuid;
exception when invalid_text_representation then
  raise exception 'must be a UUID' using errcode = 'SV400', column = p_field;
end
$$;
comment on function app_hidden.parse_uuid(text, text) is 'UUID from tool input, or a 400 naming the field.';

create function app_hidden.uuid_array(p_value jsonb, p_field text) returns uuid[]
language sql immutable as $$
  select coalesce(array_agg(app_hidden.parse_uuid(e, p_field)), '{}')
  from jsonb_array_elements_text(coalesce(p_value, '[]')) e
$$;
comment on function app_hidden.uuid_array(jsonb, text) is 'uuid[] from a JSON array of strings.';

-- Shapes ----------------------------------------------------------------------------------

create function app_hidden.workspace_json(w app_public.workspaces) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', w.id, 'slug', w.slug, 'key', w.key, 'name', w.name,
    'cycleLengthDays', w.cycle_length_days, 'cycleCooldownDays', w.cycle_cooldown_days,
    'timeTrackingEnabled', w.time_tracking_enabled, 'attachmentQuotaMb', w.attachment_quota_mb,
    'requiredAckSeconds', w.required_ack_seconds, 'autoDispatch', w.auto_dispatch,
    'autoDispatchMode', w.auto_dispatch_mode, 'assignmentSlaMinutes', w.assignment_sla_minutes,
    'agentRunStaleMinutes', w.agent_run_stale_minutes)
$$;
comment on function app_hidden.workspace_json(app_public.workspaces) is 'Workspace settings (spec 2.8); the member list is not part of it.';

create function app_hidden.status_json(s app_public.statuses) returns jsonb
language sql stable as $$
  select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category, 'color', s.color,
                            'position', s.position, 'isDefault', s.is_default)
$$;
comment on function app_hidden.status_json(app_public.statuses) is 'Status (spec 2.3).';

create function app_hidden.agent_json(a app_public.agents) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', a.id, 'profileKey', a.profile_key, 'name', a.name, 'status', a.status,
    'runtimeMode', a.runtime_mode, 'provider', a.provider, 'capabilities', to_jsonb(a.capabilities),
    'maxConcurrent', a.max_concurrent, 'webhookUrl', a.webhook_url,
    'lastHeartbeatAt', a.last_heartbeat_at, 'lastDispatchedAt', a.last_dispatched_at,
    'archivedAt', a.archived_at, 'runtime', null, 'createdAt', a.created_at)
$$;
comment on function app_hidden.agent_json(app_public.agents) is 'Agent (spec 2.9).';

create function app_hidden.issue_json(i app_public.issues, p_full boolean default false) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', i.id, 'key', i.key, 'number', i.number, 'title', i.title, 'priority', i.priority,
    'statusId', i.status_id,
    'status', (select jsonb_build_object('id', s.id, 'name', s.name, 'category', s.category)
               from app_public.statuses s where s.id = i.status_id),
    'projectId', i.project_id,
    'project', (select jsonb_build_object('id', p.id, 'name', p.name)
                from app_public.projects p where p.id = i.project_id),
    'assignedAgentId', i.assigned_agent_id,
    'assignedAgent', (select jsonb_build_object('id', a.id, 'profileKey', a.profile_key, 'name', a.name)
                      from app_public.agents a where a.id = i.assigned_agent_id),
    'claimedById', i.claimed_by_id, 'claimExpiresAt', i.claim_expires_at,
    'queued', i.queued, 'parentId', i.parent_id, 'dueDate', i.due_date, 'estimate', i.estimate,
    'labelIds', coalesce((select jsonb_agg(il.label_id order by il.created_at, il.label_id)
                          from app_public.issue_labels il where il.issue_id = i.id), '[]'),
    'createdAt', i.created_at, 'updatedAt', i.updated_at)
  || case when p_full then jsonb_build_object(
    'description', i.description,
    'labels', coalesce((select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color)
                                         order by il.created_at, l.id)
                        from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
                        where il.issue_id = i.id), '[]'),
    'slaMinutes', i.sla_minutes, 'expectedOutput', i.expected_output,
    'verificationChecklist', i.verification_checklist, 'artifactRequired', i.artifact_required,
    'createdByUserId', i.created_by_user_id, 'createdByAgentId', i.created_by_agent_id,
    'startedAt', i.started_at, 'completedAt', i.completed_at)
  else '{}'::jsonb end
$$;
comment on function app_hidden.issue_json(app_public.issues, boolean) is
  'Issue shape: lean (status, project, assignee, labelIds) by default; p_full adds description, labels and the completion contract.';

create function app_hidden.event_json(e app_public.activity_events, p_with_actor boolean default true) returns jsonb
language sql stable as $$
  select jsonb_build_object(
    'id', e.id, 'kind', e.kind, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
    'payload', e.payload, 'createdAt', e.created_at)
  || case when p_with_actor then jsonb_build_object('actor', coalesce(
       (select jsonb_build_object('id', a.id, 'name', a.name, 'image', null, 'type', 'agent')
        from app_public.agents a where a.id = e.actor_agent_id),
       (select jsonb_build_object('id', u.id, 'name', coalesce(nullif(u.name, ''), u.email), 'image', u.image_url, 'type', 'user')
        from app_public.users u where u.id = e.actor_user_id)))
     else '{}'::jsonb end
$$;
comment on function app_hidden.event_json(app_public.activity_events, boolean) is
  'ActivityEvent (spec 2.17); actor {id, name, image} is the agent when an agent key acted, else the user; null for the system.';

-- Lookups that raise 404 ------------------------------------------------------------------

create function app_hidden.find_issue(p_ref text, p_field text default 'id') returns app_public.issues
language plpgsql stable as $$
declare v_issue app_public.issues;
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v_issue from app_public.issues where id = p_ref::uuid and deleted_at is null;
  else
    select * into v_issue from app_public.issues
    where workspace_id = app_hidden.current_workspace_id() and key = upper(p_ref) and deleted_at is null;
  end if;
  if v_issue.id is null then
    raise exception 'Issue not found' using errcode = 'SV404', column = p_field;
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.find_issue(text, text) is 'A live issue the caller can see, by id or by key (ABC-12); otherwise 404 (never a hint that it exists elsewhere).';

-- Tools: workspace, statuses, agents --------------------------------------------------------

create function app_tools.workspace_get(args jsonb) returns jsonb
language sql stable as $$
  select app_hidden.workspace_json(w) from app_public.workspaces w where w.id = app_hidden.current_workspace_id()
$$;
comment on function app_tools.workspace_get(jsonb) is 'workspace.get: settings of the caller''s workspace.';

create function app_tools.statuses_list(args jsonb) returns jsonb
language sql stable as $$
  select coalesce(jsonb_agg(app_hidden.status_json(s) order by s.position, s.name), '[]')
  from app_public.statuses s
  where s.workspace_id = app_hidden.current_workspace_id()
    and (args->>'category' is null or s.category = args->>'category')
$$;
comment on function app_tools.statuses_list(jsonb) is 'statuses.list: statuses ordered by position, optionally of one category.';

create function app_tools.agents_me(args jsonb) returns jsonb
language plpgsql stable as $$
declare v_agent app_public.agents;
begin
  if app_hidden.current_agent_id() is null then
    raise exception 'This key is not linked to an agent' using errcode = 'SV403', detail = 'agent_key_required';
  end if;
  select * into v_agent from app_public.agents where id = app_hidden.current_agent_id();
  if v_agent.id is null or v_agent.workspace_id <> app_hidden.current_workspace_id() then
    raise exception 'The linked agent is not in this workspace' using errcode = 'SV403', detail = 'agent_forbidden';
  end if;
  if v_agent.archived_at is not null then
    raise exception 'The linked agent is archived' using errcode = 'SV403', detail = 'agent_archived';
  end if;
  return app_hidden.agent_json(v_agent);
end
$$;
comment on function app_tools.agents_me(jsonb) is 'agents.me: the agent linked to the calling key; 403 for keys without one, archived or cross-tenant agents.';

-- Tools: issues -------------------------------------------------------------------------------

create function app_hidden.issue_after_write(p_issue_id uuid) returns app_public.issues
language plpgsql stable as $$
declare v_issue app_public.issues;
begin
  select * into v_issue from app_public.issues where id = p_issue_id;
  if v_issue.id is null then
    raise exception 'The issue would fall outside this key''s narrowing' using errcode = 'SV403', detail = 'narrowing';
  end if;
  return v_issue;
end
$$;
comment on function app_hidden.issue_after_write(uuid) is
  'Re-reads an issue after a write: a narrowed key must still see it (else 403 narrowing, and the call rolls back).';

create function app_tools.issues_create(args jsonb) returns jsonb
language plpgsql volatile as $$
declare
  v_ws uuid := app_hidden.current_workspace_id();
  v_status_id uuid;
  v_project_id uuid;
  v_parent app_public.issues;
  v_label_ids uuid[] := app_hidden.uuid_array(args->'labelIds', 'labelIds');
  v_id uuid := gen_random_uuid();
  v_issue app_public.issues;
begin
  if args ? 'statusId' and args->>'statusId' is not null then
    select id into v_status_id from app_public.statuses
    where id = app_hidden.parse_uuid(args->>'statusId', 'statusId') and workspace_id = v_ws;
    if v_status_id is null then
      raise exception 'Status not found' using errcode = 'SV404', column = 'statusId';
    end if;
  else
    select id into v_status_id from app_public.statuses where workspace_id = v_ws and is_default;
  end if;

  if args->>'projectId' is not null then
    select id into v_project_id from app_public.projects
    where id = app_hidden.parse_uuid(args->>'projectId', 'projectId') and archived_at is null;
    if v_project_id is null then
      raise exception 'Project not found' using errcode = 'SV404', column = 'projectId';
    end if;
  end if;

  if args->>'parentId' is not null then
    v_parent := app_hidden.find_issue(args->>'parentId', 'parentId');
  end if;

  if (select count(*) from app_public.labels where id = any(v_label_ids)) <> cardinality(v_label_ids) then
    raise exception 'Label not found' using errcode = 'SV404', column = 'labelIds';
  end if;

  -- No RETURNING: it would demand the row pass the SELECT policy before its labels exist.
  insert into app_public.issues (id, workspace_id, title, description, priority, status_id, project_id, parent_id,
                                 due_date, estimate, sla_minutes, expected_output, verification_checklist,
                                 artifact_required, created_by_user_id, created_by_agent_id)
  values (v_id, v_ws, args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'), v_status_id, v_project_id,
          v_parent.id, (args->>'dueDate')::date, (args->>'estimate')::numeric, (args->>'slaMinutes')::int,
          args->>'expectedOutput', coalesce(args->'verificationChecklist', '[]'),
          coalesce((args->>'artifactRequired')::boolean, false),
          app_hidden.current_user_id(), app_hidden.current_agent_id());

  insert into app_public.issue_labels (workspace_id, issue_id, label_id)
  select v_ws, v_id, l from unnest(v_label_ids) l;

  v_issue := app_hidden.issue_after_write(v_id);
  return app_hidden.issue_json(v_issue, true);
end
$$;
comment on function app_tools.issues_create(jsonb) is
  'issues.create: a new issue (default status unless statusId), labels attached; ISSUE_CREATED is written by trigger. A narrowed key may only create inside its narrowing.';

create function app_tools.issues_get(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_issue app_public.issues := app_hidden.find_issue(args->>'id');
  v_include jsonb := coalesce(args->'include', '{}');
  v_result jsonb := app_hidden.issue_json(v_issue, false);
begin
  if (v_include->>'description')::boolean then
    v_result := v_result || jsonb_build_object('description', v_issue.description);
  end if;
  if (v_include->>'labels')::boolean then
    v_result := v_result || jsonb_build_object('labels', coalesce(
      (select jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) order by il.created_at, l.id)
       from app_public.issue_labels il join app_public.labels l on l.id = il.label_id
       where il.issue_id = v_issue.id), '[]'));
  end if;
  return v_result;
end
$$;
comment on function app_tools.issues_get(jsonb) is 'issues.get: the lean issue by id or key; include adds description and labels.';

create function app_tools.issues_list(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_where text := 'i.workspace_id = $1 and i.deleted_at is null';
  v_status text := args->>'status';
  v_rows jsonb;
  v_last int;
  v_count int;
begin
  if args->>'cursor' is not null then
    v_where := v_where || format(' and i.number < %s', app_hidden.cursor_decode(args->>'cursor', 'issues')::int);
  end if;
  if args->>'statusId' is not null then
    v_where := v_where || format(' and i.status_id = %L', app_hidden.parse_uuid(args->>'statusId', 'statusId'));
  end if;
  if v_status is not null then
    if v_status ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      v_where := v_where || format(' and i.status_id = %L::uuid', v_status);
    elsif v_status in ('BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED') then
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and s.category = %L)', v_status);
    else
      v_where := v_where || format(' and i.status_id in (select s.id from app_public.statuses s where s.workspace_id = $1 and lower(s.name) = lower(%L))', v_status);
    end if;
  end if;
  if args->>'priority' is not null then
    v_where := v_where || format(' and i.priority = %L', args->>'priority');
  end if;
  if args ? 'projectId' then
    v_where := v_where || case when args->>'projectId' is null then ' and i.project_id is null'
      else format(' and i.project_id = %L::uuid', app_hidden.parse_uuid(args->>'projectId', 'projectId')) end;
  end if;
  if args ? 'assignedAgentId' then
    v_where := v_where || case when args->>'assignedAgentId' is null then ' and i.assigned_agent_id is null'
      else format(' and i.assigned_agent_id = %L::uuid', app_hidden.parse_uuid(args->>'assignedAgentId', 'assignedAgentId')) end;
  end if;
  if jsonb_array_length(coalesce(args->'labelIds', '[]')) > 0 then
    v_where := v_where || format(' and exists (select 1 from app_public.issue_labels il where il.issue_id = i.id and il.label_id = any(%L::uuid[]))',
                                 app_hidden.uuid_array(args->'labelIds', 'labelIds'));
  end if;
  if args->>'queued' is not null then
    v_where := v_where || format(' and i.queued = %L', (args->>'queued')::boolean);
  end if;

  execute format(
    'select coalesce(jsonb_agg(app_hidden.issue_json(t) order by t.number desc), ''[]''), min(t.number), count(*)
     from (select i.* from app_public.issues i where %s order by i.number desc limit %s) t', v_where, v_limit + 1)
  into v_rows, v_last, v_count
  using app_hidden.current_workspace_id();

  if v_count > v_limit then
    v_rows := v_rows - v_limit;  -- drop the look-ahead row
    return jsonb_build_object('items', v_rows,
      'nextCursor', app_hidden.cursor_encode('issues:' || (v_rows->(v_limit - 1)->>'number')));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.issues_list(jsonb) is
  'issues.list: newest first by number, keyset-paged; filters status (id, category or name), statusId, priority, projectId, assignedAgentId, labelIds (any), queued. RLS narrows the rows.';

-- Tools: events -------------------------------------------------------------------------------

create function app_tools.events_recent(args jsonb) returns jsonb
language plpgsql stable as $$
declare
  v_limit int := coalesce((args->>'limit')::int, 50);
  v_subject_id uuid := app_hidden.parse_uuid(args->>'subjectId', 'subjectId');
  v_kinds text[] := (select array_agg(k) from jsonb_array_elements_text(args->'kinds') k);
  v_before_seq bigint;
  v_rows jsonb;
  v_count int;
begin
  if args->>'subjectType' = 'issue' and v_subject_id is not null then
    -- Narrowing is enforced on the subject itself: an issue outside it is not found.
    perform app_hidden.find_issue(v_subject_id::text, 'subjectId');
  end if;
  if args->>'before' is not null then
    v_before_seq := app_hidden.cursor_decode(args->>'before', 'events')::bigint;
  end if;
  select coalesce(jsonb_agg(app_hidden.event_json(e) order by e.seq desc), '[]'), count(*)
  into v_rows, v_count
  from (select * from app_public.activity_events e
        where e.workspace_id = app_hidden.current_workspace_id()
          and (args->>'subjectType' is null or e.subject_type = args->>'subjectType')
          and (v_subject_id is null or e.subject_id = v_subject_id)
          and (v_kinds is null or e.kind = any(v_kinds))
          and (v_before_seq is null or e.seq < v_before_seq)
        order by e.seq desc limit v_limit + 1) e;
  if v_count > v_limit then
    v_rows := v_rows - v_limit;
    return jsonb_build_object('items', v_rows, 'nextCursor', app_hidden.cursor_encode('events:' ||
      (select seq from app_public.activity_events where id = (v_rows->(v_limit - 1)->>'id')::uuid)));
  end if;
  return jsonb_build_object('items', v_rows, 'nextCursor', null);
end
$$;
comment on function app_tools.events_recent(jsonb) is
  'events.recent: newest first; filters subjectType, subjectId, kinds; before = the nextCursor of a previous page. Issue narrowing applies to issue subjects.';

grant execute on all functions in schema app_hidden to svc_visitor;
grant execute on all functions in schema app_tools to svc_visitor;
-- Security-definer helpers in app_hidden were granted above on purpose: authenticate and record_event
-- are the request role's only doors into app_private, and each checks what it needs itself.

-- Operator (CLI) and in-app procedures ------------------------------------------------------

create function app_private.create_workspace(p_name text, p_key text, p_owner_email text)
returns jsonb
language plpgsql volatile as $$
declare
  v_ws app_public.workspaces;
  v_user app_public.users;
  v_slug text := trim(both '-' from regexp_replace(lower(p_name), '[^a-z0-9]+', '-', 'g'));
begin
  if p_key !~ '^[A-Z][A-Z0-9]{1,9}$' then
    perform app_hidden.raise_invalid('key', 'key must be 2-10 characters A-Z/0-9, starting with a letter');
  end if;
  if exists (select 1 from app_public.workspaces where key = p_key) then
    raise exception 'A workspace with key % already exists', p_key using errcode = 'SV409';
  end if;
  if v_slug = '' then v_slug := lower(p_key); end if;
  v_slug := left(v_slug, 50);
  if exists (select 1 from app_public.workspaces where slug = v_slug) then
    v_slug := v_slug || '-' || lower(p_key);
  end if;
  insert into app_public.workspaces (name, key, slug) values (p_name, p_key, v_slug) returning * into v_ws;
  v_user := app_private.ensure_user(p_owner_email);
  insert into app_public.memberships (workspace_id, user_id, role) values (v_ws.id, v_user.id, 'OWNER');
  return jsonb_build_object(
    'workspace', jsonb_build_object('id', v_ws.id, 'key', v_ws.key, 'slug', v_ws.slug, 'name', v_ws.name),
    'owner', jsonb_build_object('id', v_user.id, 'email', v_user.email));
end
$$;

create function app_private.ensure_user(p_email text) returns app_public.users
language plpgsql volatile as $$
declare v_user app_public.users;
begin
  if p_email !~ '^[^@\s]+@[^@\s]+$' then
    perform app_hidden.raise_invalid('email', 'not an email address');
  end if;
  select * into v_user from app_public.users where lower(email) = lower(p_email);
  if v_user.id is null then
    insert into app_public.users (email, name) values (p_email, split_part(p_email, '@', 1)) returning * into v_user;
  end if;
  return v_user;
end
$$;
comment on function app_private.ensure_user(text) is 'The user with this email (case-insensitive), created if new.';
comment on function app_private.create_workspace(text, text, text) is
  'Creates a workspace (statuses seeded by trigger) and makes the owner email its OWNER. The operator CLI then issues the owner''s key.';

create function app_private.workspace_by_key(p_key text) returns app_public.workspaces
language plpgsql stable as $$
declare v_ws app_public.workspaces;
begin
  select * into v_ws from app_public.workspaces where key = upper(p_key) or slug = lower(p_key) or id::text = p_key;
  if v_ws.id is null then
    perform app_hidden.raise_not_found('Workspace');
  end if;
  return v_ws;
end
$$;
comment on function app_private.workspace_by_key(text) is 'Workspace by key, slug or id (operator CLI).';

create function app_private.add_member(p_workspace_id uuid, p_email text, p_role text) returns jsonb
language plpgsql volatile as $$
declare
  v_user app_public.users := app_private.ensure_user(p_email);
begin
  if p_role not in ('OWNER', 'ADMIN', 'MEMBER') then
    perform app_hidden.raise_invalid('role', 'role must be OWNER, ADMIN or MEMBER');
  end if;
  insert into app_public.memberships (workspace_id, user_id, role) values (p_workspace_id, v_user.id, p_role)
  on conflict (workspace_id, user_id) do update set role = excluded.role;
  return jsonb_build_object('user', jsonb_build_object('id', v_user.id, 'email', v_user.email), 'role', p_role);
end
$$;
comment on function app_private.add_member(uuid, text, text) is 'Adds a user (created if new) to a workspace, or changes the role of an existing member.';

create function app_private.create_agent(
  p_workspace_id uuid, p_profile_key text, p_name text, p_capabilities text[] default '{}',
  p_provider text default 'CUSTOM', p_runtime_mode text default 'PERSISTENT', p_max_concurrent int default 1,
  p_webhook_url text default null
) returns app_public.agents
language plpgsql volatile as $$
declare v_agent app_public.agents;
begin
  if exists (select 1 from app_public.agents where workspace_id = p_workspace_id and profile_key = p_profile_key) then
    raise exception 'An agent with profile key % already exists', p_profile_key using errcode = 'SV409';
  end if;
  insert into app_public.agents (workspace_id, profile_key, name, capabilities, provider, runtime_mode, max_concurrent, webhook_url)
  values (p_workspace_id, p_profile_key, p_name, coalesce(p_capabilities, '{}'), coalesce(p_provider, 'CUSTOM'),
          coalesce(p_runtime_mode, 'PERSISTENT'), coalesce(p_max_concurrent, 1), p_webhook_url)
  returning * into v_agent;
  return v_agent;
end
$$;
comment on function app_private.create_agent(uuid, text, text, text[], text, text, int, text) is 'Creates an agent (AGENT_CREATED by trigger).';
