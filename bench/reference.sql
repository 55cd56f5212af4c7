-- The lean reference of `npm run bench`: the same work as the benchmarked tools, written by hand with
-- nothing but what the design needs (row-level security on a non-owner role, a per-workspace issue
-- counter, an AFTER trigger that records an activity event and NOTIFYs, row_to_json for the output).
-- It lives in a database of its own (svc_bench_reference) on the same cluster as the service, so the
-- ratio service/reference says how far the service's SQL is from what this design can do on this machine.
-- The tables keep the service's columns and indexes, so index maintenance is the same work.
--
-- Every statement the benchmark sends has the service's shape: one statement, the caller's workspace set
-- transaction-locally in a FROM subquery, the tool's arguments as one jsonb, the result as text:
--   select <call>::text from (select set_config('ref.workspace_id', $1, true)) as identity

create schema ref;
create table ref.workspaces (
  id uuid primary key,
  key text not null unique
);
create table ref.workspace_counters (
  workspace_id uuid primary key references ref.workspaces,
  last_issue_number int not null default 0
);
create table ref.issues (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references ref.workspaces,
  number int not null,
  key text not null,
  title text not null,
  description text,
  priority text not null default 'NONE',
  status_id uuid,
  project_id uuid,
  parent_id uuid,
  assigned_agent_id uuid,
  claimed_by_id uuid,
  claim_expires_at timestamptz,
  queued boolean not null default false,
  due_date date,
  estimate numeric,
  sla_minutes int,
  expected_output text,
  verification_checklist jsonb not null default '[]',
  artifact_required boolean not null default false,
  created_by_user_id uuid,
  created_by_agent_id uuid,
  started_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  cycle_id uuid,
  unique (workspace_id, number),
  unique (workspace_id, id)
);
create index on ref.issues (workspace_id, key);
create index on ref.issues (workspace_id, number desc) where deleted_at is null;
create index on ref.issues (workspace_id, status_id, number desc) where deleted_at is null;
create index on ref.issues (workspace_id, project_id, number desc) where deleted_at is null;
create index on ref.issues (workspace_id, assigned_agent_id, number desc) where deleted_at is null;
create index on ref.issues (workspace_id, priority, number desc) where deleted_at is null;
create index on ref.issues (workspace_id, number desc) where queued and deleted_at is null;
create index on ref.issues (workspace_id, parent_id) where parent_id is not null;
create index on ref.issues (workspace_id, cycle_id, number desc) where deleted_at is null;

create table ref.comments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references ref.workspaces,
  issue_id uuid not null references ref.issues,
  body text not null,
  kind text not null default 'COMMENT',
  confidence text,
  author_user_id uuid,
  authoring_agent_id uuid,
  run_id uuid,
  revisions jsonb not null default '[]',
  edited_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, id)
);
create index on ref.comments (workspace_id, issue_id, created_at desc, id desc);

create table ref.activity_events (
  id uuid primary key default gen_random_uuid(),
  seq bigint generated always as identity unique,
  workspace_id uuid not null references ref.workspaces,
  kind text not null,
  subject_type text not null,
  subject_id uuid,
  payload jsonb not null default '{}',
  actor_user_id uuid,
  actor_agent_id uuid,
  actor_key_id uuid,
  created_at timestamptz not null default now()
);
create index on ref.activity_events (workspace_id, seq desc);
create index on ref.activity_events (workspace_id, subject_type, subject_id, seq desc);
create index on ref.activity_events (workspace_id, kind, seq desc);

-- The request role: not the owner, RLS forced on every table.
do $$ begin
  if not exists (select from pg_roles where rolname = 'svc_bench_ref_visitor') then
    create role svc_bench_ref_visitor nologin;
  end if;
end $$;
grant usage on schema ref to svc_bench_ref_visitor;
grant select, insert, update on ref.issues, ref.comments to svc_bench_ref_visitor;
grant select, update on ref.workspace_counters to svc_bench_ref_visitor;
grant select on ref.workspaces to svc_bench_ref_visitor;
grant select, insert on ref.activity_events to svc_bench_ref_visitor;

create function ref.current_workspace_id() returns uuid language sql stable
as $$ select nullif(current_setting('ref.workspace_id', true), '')::uuid $$;

alter table ref.workspaces enable row level security;
alter table ref.workspaces force row level security;
alter table ref.workspace_counters enable row level security;
alter table ref.workspace_counters force row level security;
alter table ref.issues enable row level security;
alter table ref.issues force row level security;
alter table ref.comments enable row level security;
alter table ref.comments force row level security;
alter table ref.activity_events enable row level security;
alter table ref.activity_events force row level security;
create policy owner_all on ref.workspaces to postgres using (true) with check (true);
create policy owner_all on ref.workspace_counters to postgres using (true) with check (true);
create policy owner_all on ref.issues to postgres using (true) with check (true);
create policy owner_all on ref.comments to postgres using (true) with check (true);
create policy owner_all on ref.activity_events to postgres using (true) with check (true);
create policy in_workspace on ref.workspaces to svc_bench_ref_visitor
  using (id = (select ref.current_workspace_id()));
create policy in_workspace on ref.workspace_counters to svc_bench_ref_visitor
  using (workspace_id = (select ref.current_workspace_id()));
create policy in_workspace on ref.issues to svc_bench_ref_visitor
  using (workspace_id = (select ref.current_workspace_id()));
create policy on_visible_issues on ref.comments to svc_bench_ref_visitor
  using (workspace_id = (select ref.current_workspace_id()))
  with check (workspace_id = (select ref.current_workspace_id())
              and exists (select 1 from ref.issues i where i.id = issue_id));
create policy in_workspace on ref.activity_events to svc_bench_ref_visitor
  using (workspace_id = (select ref.current_workspace_id()));

-- Triggers record: every write leaves an activity event and a NOTIFY with ids only.
create function ref.tg_record_event() returns trigger language plpgsql as $$
declare v_id uuid;
begin
  insert into ref.activity_events (workspace_id, kind, subject_type, subject_id, payload)
  values (new.workspace_id, tg_argv[0] || case when tg_op = 'INSERT' then '_CREATED' else '_UPDATED' end,
          tg_argv[1], new.id, jsonb_build_object('id', new.id))
  returning id into v_id;
  perform pg_notify('svc_bench_ref_events', json_build_object('id', v_id, 'workspaceId', new.workspace_id)::text);
  return null;
end $$;
create trigger record_event after insert or update on ref.issues
  for each row execute function ref.tg_record_event('ISSUE', 'issue');
create trigger record_event after insert on ref.comments
  for each row execute function ref.tg_record_event('COMMENT', 'comment');

-- Writes: a plpgsql function per tool (plans cached per session), as the design has.
create function ref.issues_create(args jsonb) returns json language plpgsql as $$
declare
  v_ws uuid := ref.current_workspace_id();
  v_number int;
  v_issue ref.issues;
begin
  update ref.workspace_counters set last_issue_number = last_issue_number + 1
  where workspace_id = v_ws returning last_issue_number into v_number;
  insert into ref.issues (workspace_id, number, key, title, description, priority)
  values (v_ws, v_number, (select w.key from ref.workspaces w where w.id = v_ws) || '-' || v_number,
          args->>'title', args->>'description', coalesce(args->>'priority', 'NONE'))
  returning * into v_issue;
  return row_to_json(v_issue);
end $$;

create function ref.issues_update(args jsonb) returns json language plpgsql as $$
declare v_issue ref.issues;
begin
  update ref.issues
  set title = coalesce(args->>'title', title), priority = coalesce(args->>'priority', priority), updated_at = now()
  where id = (args->>'id')::uuid
  returning * into v_issue;
  return row_to_json(v_issue);
end $$;

create function ref.comments_create(args jsonb) returns json language plpgsql as $$
declare v_comment ref.comments;
begin
  insert into ref.comments (workspace_id, issue_id, body)
  values (ref.current_workspace_id(), (args->>'issueId')::uuid, args->>'body')
  returning * into v_comment;
  return row_to_json(v_comment);
end $$;

grant execute on function ref.issues_create(jsonb), ref.issues_update(jsonb), ref.comments_create(jsonb) to svc_bench_ref_visitor;
