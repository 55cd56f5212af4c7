-- Issue 13: attachments on an object store, repository links, analytics and standup.
-- Re-runnable while current.

---------------------------------------------------------------------------------------------------
-- Attachments: uploads in flight (initUpload → PUT to the blob store → finalize).

create table if not exists app_public.attachment_uploads (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  storage_key text not null unique,
  target_type text not null check (target_type in ('issue', 'initiative', 'cycle', 'comment')),
  target_id uuid not null,
  filename text not null check (length(filename) between 1 and 255),
  mime_type text not null check (length(mime_type) between 3 and 255),
  size_bytes bigint not null check (size_bytes between 1 and 26214400),
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
comment on table app_public.attachment_uploads is 'Uploads granted by attachments.initUpload and not finalized yet: their declared size counts against the quota until finalize registers the attachment or the expiry job removes the blob.';
comment on column app_public.attachment_uploads.storage_key is 'Object key in the blob store (<workspace id>/<upload id>/<filename>).';
comment on column app_public.attachment_uploads.expires_at is 'After this the upload URL no longer works; a Graphile Worker job then deletes the row and any blob that arrived.';
create index if not exists attachment_uploads_workspace_idx on app_public.attachment_uploads (workspace_id, expires_at);
alter table app_public.attachment_uploads enable row level security;
alter table app_public.attachment_uploads force row level security;
revoke all on app_public.attachment_uploads from svc_visitor;
grant select, delete on app_public.attachment_uploads to svc_visitor;
grant insert (id, workspace_id, storage_key, target_type, target_id, filename, mime_type, size_bytes, created_by_user_id, created_by_agent_id, expires_at)
  on app_public.attachment_uploads to svc_visitor;

alter table app_public.attachments add column if not exists upload_id uuid;
comment on column app_public.attachments.upload_id is 'FILE rows: the attachment_uploads id it was finalized from (the job that cleans unfinalized uploads leaves these blobs alone).';
create index if not exists attachments_storage_key_idx on app_public.attachments (workspace_id, storage_key) where storage_key is not null;
revoke all on app_public.attachments from svc_visitor;
grant select, delete on app_public.attachments to svc_visitor;
grant insert (id, workspace_id, kind, target_type, target_id, external_url, link_title, filename, mime_type, size_bytes, storage_key, created_by_user_id, created_by_agent_id, upload_id)
  on app_public.attachments to svc_visitor;

---------------------------------------------------------------------------------------------------
-- Repository links (spec 4.5): mappings, resources seen on the host, links to issues.

create table if not exists app_public.connection_mappings (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  kind text not null default 'repo' check (kind in ('repo')),
  provider text not null default 'github' check (provider in ('github')),
  repo_full_name text not null check (repo_full_name ~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$'),
  token_env text check (token_env ~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$'),
  api_url text check (api_url ~ '^https?://[^\s]+$' and length(api_url) <= 500),
  status_rules jsonb not null default '{}' check (jsonb_typeof(status_rules) = 'object'),
  sync_title boolean not null default false,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
comment on table app_public.connection_mappings is 'A workspace''s link to an external repository (kind repo): the repohost tools read issues and pull requests through it, never write to the host.';
comment on column app_public.connection_mappings.repo_full_name is 'owner/name on the host.';
comment on column app_public.connection_mappings.token_env is 'Name of the environment variable holding the host API token (the token itself is never stored); unset = anonymous.';
comment on column app_public.connection_mappings.api_url is 'API base URL for GitHub Enterprise (e.g. https://ghe.example.com/api/v3); unset = https://api.github.com.';
comment on column app_public.connection_mappings.status_rules is 'External state → status category applied by repohost.sync to linked issues (SOURCE and IMPLEMENTS links), e.g. {"closed":"DONE","merged":"DONE"}.';
comment on column app_public.connection_mappings.sync_title is 'When true, repohost.sync copies the external title onto issues linked with kind SOURCE.';
create unique index if not exists connection_mappings_repo_key on app_public.connection_mappings (workspace_id, kind, lower(repo_full_name));
alter table app_public.connection_mappings enable row level security;
alter table app_public.connection_mappings force row level security;
revoke all on app_public.connection_mappings from svc_visitor;
grant select, delete on app_public.connection_mappings to svc_visitor;
grant insert (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;
grant update (token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;

create table if not exists app_public.external_resources (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  mapping_id uuid,
  provider text not null default 'github',
  repo_full_name text not null,
  type text not null check (type in ('issue', 'pull_request')),
  number integer not null check (number > 0),
  url text not null,
  title text,
  state text check (state in ('open', 'closed', 'merged')),
  snapshot jsonb not null default '{}',
  synced_at timestamptz,
  created_at timestamptz not null default now(),
  unique (workspace_id, id),
  foreign key (workspace_id, mapping_id) references app_public.connection_mappings (workspace_id, id) on delete set null (mapping_id)
);
comment on table app_public.external_resources is 'An issue or pull request on a repository host as last read (the local snapshot).';
comment on column app_public.external_resources.snapshot is 'The host''s fields we keep: title, state, author, labels, assignees, htmlUrl, updatedAt, closedAt, mergedAt, draft.';
create unique index if not exists external_resources_number_key on app_public.external_resources (workspace_id, lower(repo_full_name), number);
create index if not exists external_resources_mapping_idx on app_public.external_resources (workspace_id, mapping_id);
alter table app_public.external_resources enable row level security;
alter table app_public.external_resources force row level security;
revoke all on app_public.external_resources from svc_visitor;
grant select on app_public.external_resources to svc_visitor;
grant insert (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;
grant update (mapping_id, type, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;

create table if not exists app_public.external_links (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references app_public.workspaces on delete cascade,
  issue_id uuid not null,
  resource_id uuid not null,
  kind text not null check (kind in ('SOURCE', 'IMPLEMENTS', 'REVIEWS', 'RELATES_TO')),
  created_by_user_id uuid references app_public.users on delete set null,
  created_by_agent_id uuid,
  created_at timestamptz not null default now(),
  unique (workspace_id, issue_id, resource_id),
  foreign key (workspace_id, issue_id) references app_public.issues (workspace_id, id) on delete cascade,
  foreign key (workspace_id, resource_id) references app_public.external_resources (workspace_id, id) on delete cascade
);
comment on table app_public.external_links is 'An issue''s link to an external issue or pull request, with its kind (SOURCE: imported from it; IMPLEMENTS, REVIEWS, RELATES_TO).';
create index if not exists external_links_resource_idx on app_public.external_links (workspace_id, resource_id);
alter table app_public.external_links enable row level security;
alter table app_public.external_links force row level security;
revoke all on app_public.external_links from svc_visitor;
grant select on app_public.external_links to svc_visitor;
grant insert (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id) on app_public.external_links to svc_visitor;
grant update (kind) on app_public.external_links to svc_visitor;

---------------------------------------------------------------------------------------------------
-- Functions, policies, triggers (sql/).

--! include attachments/shapes.sql
--! include attachments/attachments.sql
--! include attachments/policies.sql
--! include attachments/triggers.sql
--! include attachments/jobs.sql
--! include attachments/tools/initUpload.sql
--! include attachments/tools/finalize.sql
--! include attachments/tools/list.sql
--! include attachments/tools/getDownloadUrl.sql
--! include attachments/tools/getInline.sql
--! include attachments/tools/delete.sql
--! include attachments/tools/attachLink.sql

--! include repohost/shapes.sql
--! include repohost/mappings.sql
--! include repohost/policies.sql
--! include repohost/triggers.sql
--! include repohost/tools/parseUrl.sql
--! include repohost/tools/listLinked.sql
--! include repohost/tools/link.sql
--! include repohost/tools/importIssue.sql
--! include repohost/tools/sync.sql
--! include repohost/tools/search.sql

--! include analytics/tools/summary.sql
--! include standup/tools/draft.sql
