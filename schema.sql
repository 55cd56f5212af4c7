-- The current schema, generated from the database catalog by `npm run db:schema` (do not edit).
-- test/db/sql-layout.test.ts fails when it differs from what the migrations produce. Tables change in
-- migrations/; functions, policies and triggers are defined in sql/ (the file is named on each function).

-- ====================================================================================================
-- schema app_public: Tables and functions exposed to GraphQL (in-app clients). Every table is under RLS.
-- usage: svc_visitor:USAGE

create type app_public.api_key as (id uuid, name text, kind app_public.api_key_kind, prefix text, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], user_id uuid, linked_agent_id uuid, plugin_id uuid, created_at timestamp with time zone, last_used_at timestamp with time zone, expires_at timestamp with time zone, revoked_at timestamp with time zone, is_current boolean);
create type app_public.api_key_kind as enum ('AGENT', 'PERSONAL', 'SESSION');
create type app_public.api_key_scope as enum ('READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'WRITE_PROJECTS', 'READ_COMMENTS', 'WRITE_COMMENTS', 'READ_USERS', 'WRITE_USERS', 'READ_ANALYTICS', 'SUBSCRIBE_EVENTS', 'INVOKE_SKILLS', 'ADMIN', 'FULL');
create type app_public.comment_revision as (revision integer, body text, edited_at timestamp with time zone);
create type app_public.issued_api_key as (id uuid, raw_key text, prefix text, kind app_public.api_key_kind, scopes app_public.api_key_scope[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], linked_agent_id uuid, plugin_id uuid, name text, expires_at timestamp with time zone, created_at timestamp with time zone);
create type app_public.membership_role as enum ('OWNER', 'ADMIN', 'MEMBER');
create type app_public.pin_target_type as enum ('PROJECT', 'INITIATIVE', 'SAVED_VIEW', 'CYCLE', 'AGENT');
create type app_public.plugin_info as (id uuid, name text, scopes app_public.api_key_scope[], approved_at timestamp with time zone, created_at timestamp with time zone, skills jsonb);

-- One vote per user per poll; re-voting overwrites option_key and voted_at (the time of the current choice).
create table app_public.action_request_votes (
  id uuid default gen_random_uuid() not null, -- UUID of the vote.
  workspace_id uuid not null, -- The workspace the vote belongs to (the calling key's: no other is visible).
  request_id uuid not null, -- The poll (action request) voted on.
  user_id uuid not null, -- The member who voted; one vote per member per poll.
  option_key text not null, -- The option voted for (a key of the request's options); voting again replaces it until voting closes.
  voted_at timestamp with time zone default now() not null, -- When the current choice was made (voting again moves it).
  constraint action_request_votes_pkey PRIMARY KEY (id),
  constraint action_request_votes_request_id_user_id_key UNIQUE (request_id, user_id),
  constraint action_request_votes_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint action_request_votes_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint action_request_votes_workspace_id_request_id_fkey FOREIGN KEY (workspace_id, request_id) REFERENCES app_public.action_requests(workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX action_request_votes_request_idx ON app_public.action_request_votes USING btree (workspace_id, request_id, option_key);
alter table app_public.action_request_votes enable row level security;
alter table app_public.action_request_votes force row level security;
grant select on app_public.action_request_votes to svc_visitor;
grant insert (workspace_id, request_id, user_id, option_key, voted_at) on app_public.action_request_votes to svc_visitor;
grant update (option_key, voted_at) on app_public.action_request_votes to svc_visitor;
create policy insert_own_vote on app_public.action_request_votes for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.action_requests r
  WHERE (r.id = action_request_votes.request_id)))));
create policy owner_all on app_public.action_request_votes for all to current_user using (true) with check (true);
create policy select_visible_votes on app_public.action_request_votes for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.action_requests r
  WHERE (r.id = action_request_votes.request_id)))));
create policy update_own_vote on app_public.action_request_votes for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.action_requests r
  WHERE (r.id = action_request_votes.request_id))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.action_requests r
  WHERE (r.id = action_request_votes.request_id)))));

-- A recommendation card asking a person or agent to decide (spec 2.13). kind binds a dispatch run by accept (TRANSITION, SET_LABELS, ASSIGN_AGENT, CLOSE_AS_DUPLICATE; FREE_FORM runs none, except an execution-plan approval, whose acceptance activates the plan). options[] makes it a poll. Status moves only through app_hidden.action_request_move.
create table app_public.action_requests (
  id uuid default gen_random_uuid() not null, -- UUID of the action request, as the MCP tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the request belongs to (the calling key's: no other is visible).
  title text not null, -- What is to be decided, 1 to 500 characters.
  body text, -- Details of the request, at most 100,000 characters; null = none.
  severity text default 'INFO'::text not null, -- How prominently to show it: INFO (default), SUCCESS, WARNING, ERROR or CRITICAL.
  kind text default 'FREE_FORM'::text not null, -- What accepting runs: FREE_FORM nothing (a plan's approval request activates the plan), TRANSITION moves the issue to payload.statusId, SET_LABELS adds and removes its labels, ASSIGN_AGENT assigns payload.agentId, CLOSE_AS_DUPLICATE closes it as a duplicate of payload.duplicateOfIssueId.
  payload jsonb default '{}'::jsonb not null, -- @behavior -* The bound dispatch's arguments (by kind). GraphQL: ActionRequest.payload (app_public.action_requests_payload).
  assigned_user_id uuid, -- The member asked to decide, or null; cleared when that member leaves the workspace.
  assigned_agent_id uuid, -- The agent asked to decide (its own keys may accept or decline), or null.
  issue_id uuid, -- The issue the request is about, or null; a request on an issue is visible to a narrowed key only with its issue.
  comment_id uuid, -- The comment the request was posted with (comments.create with actionRequest); null otherwise.
  due_at timestamp with time zone, -- When a decision is wanted by; null = no date. Informational: nothing happens when it passes.
  source_type text, -- What kind of record the request came from (sourceId): issue, comment, goal, execution-plan, execution-step, agent-run or action-request, which must exist; any other value is the requester's own label. Null = none.
  source_id uuid, -- @behavior -* What the request came from (sourceType). GraphQL: ActionRequest.sourceId (app_public.action_requests_source_id).
  status text default 'OPEN'::text not null, -- OPEN or SNOOZED (set aside; may reopen) while undecided; RESOLVED (accepted or resolved), DISMISSED, REJECTED (declined) or SUPERSEDED (a plan approval request made moot: the plan was activated, canceled or changed, or approval was asked again) are final.
  options jsonb, -- Poll options [{key, label, description?}]; NULL = not a poll.
  voting_closed_at timestamp with time zone, -- Polls: when voting closed (closeVoting, or the request being closed); null while votes are taken, and for a request without options.
  winning_option_key text, -- Polls: the option closeVoting named the winner (most votes; a tie goes to the option voted for first, no votes to the first option); null otherwise.
  requested_by_user_id uuid, -- The person whose key created the request (for an agent's key, the key's owner); null for a plugin key.
  requested_by_agent_id uuid, -- The agent whose key created the request; null when no agent's key did.
  resolved_at timestamp with time zone, -- When the request reached a final status (RESOLVED, DISMISSED, REJECTED or SUPERSEDED); null while OPEN or SNOOZED.
  resolved_by_user_id uuid, -- The person whose key gave the request its final status (for an agent's key, the key's owner); null while undecided or when no person's key did.
  resolved_by_agent_id uuid, -- The agent whose key gave the request its final status; null while undecided or when no agent's key did.
  dispatch_result jsonb, -- @behavior -* What accept did (the bound dispatch's result), kept for audit. GraphQL: ActionRequest.dispatchResult.
  created_at timestamp with time zone default now() not null, -- When the request was created.
  updated_at timestamp with time zone default now() not null, -- When the request last changed.
  constraint action_requests_pkey PRIMARY KEY (id),
  constraint action_requests_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint action_requests_assigned_user_id_fkey FOREIGN KEY (assigned_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint action_requests_requested_by_user_id_fkey FOREIGN KEY (requested_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint action_requests_resolved_by_user_id_fkey FOREIGN KEY (resolved_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint action_requests_workspace_id_assigned_agent_id_fkey FOREIGN KEY (workspace_id, assigned_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint action_requests_workspace_id_comment_id_fkey FOREIGN KEY (workspace_id, comment_id) REFERENCES app_public.comments(workspace_id, id) ON DELETE SET NULL (comment_id),
  constraint action_requests_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint action_requests_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint action_requests_workspace_id_requested_by_agent_id_fkey FOREIGN KEY (workspace_id, requested_by_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint action_requests_workspace_id_resolved_by_agent_id_fkey FOREIGN KEY (workspace_id, resolved_by_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint action_requests_kind_check CHECK (kind = ANY (ARRAY['FREE_FORM'::text, 'TRANSITION'::text, 'SET_LABELS'::text, 'ASSIGN_AGENT'::text, 'CLOSE_AS_DUPLICATE'::text])),
  constraint action_requests_options_check CHECK (options IS NULL OR jsonb_typeof(options) = 'array'::text),
  constraint action_requests_severity_check CHECK (severity = ANY (ARRAY['INFO'::text, 'SUCCESS'::text, 'WARNING'::text, 'ERROR'::text, 'CRITICAL'::text])),
  constraint action_requests_status_check CHECK (status = ANY (ARRAY['OPEN'::text, 'RESOLVED'::text, 'DISMISSED'::text, 'SNOOZED'::text, 'REJECTED'::text, 'SUPERSEDED'::text])),
  constraint action_requests_title_check CHECK (length(title) >= 1 AND length(title) <= 500)
);
CREATE INDEX action_requests_issue_idx ON app_public.action_requests USING btree (workspace_id, issue_id) WHERE (issue_id IS NOT NULL);
CREATE INDEX action_requests_list_idx ON app_public.action_requests USING btree (workspace_id, created_at DESC, id DESC);
CREATE INDEX action_requests_source_idx ON app_public.action_requests USING btree (workspace_id, source_type, source_id) WHERE (source_id IS NOT NULL);
alter table app_public.action_requests enable row level security;
alter table app_public.action_requests force row level security;
grant select on app_public.action_requests to svc_visitor;
grant insert (workspace_id, title, body, severity, kind, payload, assigned_user_id, assigned_agent_id, issue_id, comment_id, due_at, source_type, source_id, options, requested_by_user_id, requested_by_agent_id) on app_public.action_requests to svc_visitor;
grant update (title, body, severity, assigned_user_id, assigned_agent_id, due_at, status, voting_closed_at, winning_option_key, resolved_at, resolved_by_user_id, resolved_by_agent_id, dispatch_result, updated_at) on app_public.action_requests to svc_visitor;
create policy insert_visible_requests on app_public.action_requests for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = action_requests.issue_id)))))));
create policy owner_all on app_public.action_requests for all to current_user using (true) with check (true);
create policy select_visible_requests on app_public.action_requests for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL)))))));
create policy update_visible_requests on app_public.action_requests for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL))))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = action_requests.issue_id)))) OR ((issue_id IS NULL) AND ((assigned_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR (assigned_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = action_requests.issue_id) AND (d.deleted_at IS NULL))))) AND ((comment_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE ((c.id = action_requests.comment_id) AND (c.deleted_at IS NULL)))))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.action_requests FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE OF status ON app_public.action_requests FOR EACH ROW EXECUTE FUNCTION app_private.tg_action_requests__events();

-- Append-only log of every state change; drives SSE, webhooks and the activity feed.
create table app_public.activity_events (
  id uuid default gen_random_uuid() not null, -- UUID of the event, as the event stream and webhook deliveries name it.
  seq bigint not null, -- Order of the workspace's events (their own sequence, app_private.workspace_seq_sequence), used for stable newest-first paging.
  workspace_id uuid not null, -- The workspace the event belongs to (the calling key's: no other is visible).
  kind text not null, -- What happened: an event kind such as ISSUE_CREATED, ISSUE_STATUS_CHANGED or AGENT_ASSIGNED, as the event stream and webhooks carry it.
  subject_type text not null, -- The kind of record the event is about, lowercase and hyphenated: issue, comment, project, agent, agent-run, membership, goal, execution-step, action-request, webhook, …
  subject_id uuid, -- The id of the record the event is about (subjectType says which kind).
  payload jsonb default '{}'::jsonb not null, -- @behavior -* The event's details (spec 6.4). GraphQL: ActivityEvent.payload (app_public.activity_events_payload).
  actor_user_id uuid, -- The person whose key made the change (for an agent's key, the key's owner); null when the service acted on its own (sweeps, the dispatcher) or a plugin key did (an issue a plugin creates is credited to the first member).
  actor_agent_id uuid, -- The agent whose key made the change; null when no agent's key did.
  actor_key_id uuid,
  created_at timestamp with time zone default now() not null, -- When the event was recorded (the time of the transaction that made the change).
  stream_pos bigint, -- @behavior -* Position in the event stream, handed out after commit by app_private.sequence_events (one sequencer at a time, so every snapshot sees a prefix). SSE resumes with stream_pos > the last delivered one; NULL until sequenced (moments after commit). Not in GraphQL: one sequence for all workspaces.
  constraint activity_events_pkey PRIMARY KEY (id),
  constraint activity_events_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE
);
CREATE INDEX activity_events_kind_idx ON app_public.activity_events USING btree (workspace_id, kind, seq DESC);
CREATE INDEX activity_events_subject_idx ON app_public.activity_events USING btree (workspace_id, subject_type, subject_id, seq DESC);
CREATE INDEX activity_events_unsequenced_idx ON app_public.activity_events USING btree (seq) WHERE (stream_pos IS NULL);
CREATE UNIQUE INDEX activity_events_recent_idx ON app_public.activity_events USING btree (workspace_id, seq DESC);
CREATE UNIQUE INDEX activity_events_stream_idx ON app_public.activity_events USING btree (workspace_id, stream_pos);
alter table app_public.activity_events enable row level security;
alter table app_public.activity_events force row level security;
grant select on app_public.activity_events to svc_visitor;
create policy owner_all on app_public.activity_events for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.activity_events for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((subject_type <> ALL (ARRAY['chat-thread'::text, 'api-key'::text])) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.event_subject_visible(subject_type, subject_id, payload))) OR ((subject_type = 'api-key'::text) AND (( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ((( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)) OR ((payload ->> 'userId'::text) = (( SELECT app_hidden.current_user_id() AS current_user_id))::text))) OR ((subject_type = 'chat-thread'::text) AND (((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)) OR ((payload ->> 'agentId'::text) = (( SELECT app_hidden.current_agent_id() AS current_agent_id))::text) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ((payload ->> 'openedByUserId'::text) = (( SELECT app_hidden.current_user_id() AS current_user_id))::text))) AND (( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR app_hidden.chat_event_passes_narrowing(subject_id, ((payload -> 'context'::text) ->> 'issueId'::text)))))));
CREATE TRIGGER _500_webhooks AFTER INSERT ON app_public.activity_events FOR EACH ROW EXECUTE FUNCTION app_private.tg_activity_events__webhooks();
CREATE TRIGGER _510_agent_dispatch AFTER INSERT ON app_public.activity_events FOR EACH ROW WHEN (new.kind = ANY (ARRAY['AGENT_ASSIGNED'::text, 'AGENT_RUN_STATUS_CHANGED'::text, 'ISSUE_STATUS_CHANGED'::text])) EXECUTE FUNCTION app_private.tg_activity_events__agent_dispatch();

-- An agent's role in a crew (one role per agent per crew).
create table app_public.agent_crew_members (
  id uuid default gen_random_uuid() not null, -- UUID of the membership, as agentCrews.removeMember and setMemberRole name it.
  workspace_id uuid not null, -- The workspace the membership belongs to (the calling key's: no other is visible).
  crew_id uuid not null, -- The crew.
  agent_id uuid not null, -- The agent, a member of the crew once.
  role text not null, -- PLANNER (decomposes goals into plans), WORKER (runs steps), REVIEWER (judges steps), OBSERVER or OPERATOR_PROXY.
  created_at timestamp with time zone default now() not null, -- When the agent joined the crew.
  constraint agent_crew_members_pkey PRIMARY KEY (id),
  constraint agent_crew_members_crew_id_agent_id_key UNIQUE (crew_id, agent_id),
  constraint agent_crew_members_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint agent_crew_members_workspace_id_crew_id_fkey FOREIGN KEY (workspace_id, crew_id) REFERENCES app_public.agent_crews(workspace_id, id) ON DELETE CASCADE,
  constraint agent_crew_members_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint agent_crew_members_role_check CHECK (role = ANY (ARRAY['PLANNER'::text, 'WORKER'::text, 'REVIEWER'::text, 'OBSERVER'::text, 'OPERATOR_PROXY'::text]))
);
CREATE INDEX agent_crew_members_crew_idx ON app_public.agent_crew_members USING btree (workspace_id, crew_id, role, created_at);
alter table app_public.agent_crew_members enable row level security;
alter table app_public.agent_crew_members force row level security;
grant delete on app_public.agent_crew_members to svc_visitor;
grant select on app_public.agent_crew_members to svc_visitor;
grant insert (workspace_id, crew_id, agent_id, role) on app_public.agent_crew_members to svc_visitor;
grant update (role) on app_public.agent_crew_members to svc_visitor;
create policy delete_with_admin_scope on app_public.agent_crew_members for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
create policy insert_with_admin_scope on app_public.agent_crew_members for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
create policy owner_all on app_public.agent_crew_members for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.agent_crew_members for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_with_admin_scope on app_public.agent_crew_members for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE OF role ON app_public.agent_crew_members FOR EACH ROW EXECUTE FUNCTION app_private.tg_agent_crew_members__events();

-- A team of agents for goals (spec 2.15): PLANNER decomposes, WORKERs run steps, REVIEWER judges. Archived softly. maxParallel is recorded for planners (0 = no limit); the loop does not throttle on it.
create table app_public.agent_crews (
  id uuid default gen_random_uuid() not null, -- UUID of the crew, as the MCP tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the crew belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 200 characters.
  description text, -- What the crew is for, at most 5,000 characters; null = none.
  max_parallel integer default 1 not null, -- Steps the crew should run at once, 0 (no limit) to 100, default 1: recorded for planners; the loop does not enforce it.
  archived_at timestamp with time zone, -- When the crew was archived; null = live. An archived crew takes no new goals or members; its goals keep it.
  created_at timestamp with time zone default now() not null, -- When the crew was created.
  updated_at timestamp with time zone default now() not null, -- When the crew last changed.
  constraint agent_crews_pkey PRIMARY KEY (id),
  constraint agent_crews_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint agent_crews_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint agent_crews_max_parallel_check CHECK (max_parallel >= 0 AND max_parallel <= 100),
  constraint agent_crews_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);
CREATE INDEX agent_crews_ws_idx ON app_public.agent_crews USING btree (workspace_id, created_at);
alter table app_public.agent_crews enable row level security;
alter table app_public.agent_crews force row level security;
grant select on app_public.agent_crews to svc_visitor;
grant insert (workspace_id, name, description, max_parallel) on app_public.agent_crews to svc_visitor;
grant update (name, description, max_parallel, archived_at, updated_at) on app_public.agent_crews to svc_visitor;
create policy insert_with_admin_scope on app_public.agent_crews for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
create policy owner_all on app_public.agent_crews for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.agent_crews for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_with_admin_scope on app_public.agent_crews for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.agent_crews FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_public.agent_crews FOR EACH ROW EXECUTE FUNCTION app_private.tg_agent_crews__events();

-- An agent's engagement on an issue. Assigning an agent opens an ACTIVE run and abandons the previous agent's open run. The current run of an issue is its newest run neither COMPLETED nor ABANDONED.
create table app_public.agent_runs (
  id uuid default gen_random_uuid() not null, -- UUID of the run, as the runs.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the run belongs to (the calling key's: no other is visible).
  agent_id uuid not null, -- The agent working.
  issue_id uuid not null, -- The issue worked on.
  status text default 'ACTIVE'::text not null, -- ACTIVE, WAITING (blocked on someone else), STALLED (quiet for the workspace's agentRunStaleMinutes; its next sign of life makes it ACTIVE again), or closed: COMPLETED (runs.complete) or ABANDONED (unassigned, reassigned, canceled, the issue deleted or the agent archived).
  engagement_mode text default 'EXECUTE'::text not null, -- EXECUTE (do the work, the default), RESEARCH, REVIEW or DISCUSS; in the last three the agent may comment but not change the issue.
  current_step text, -- What the run is doing now, one line for people watching: set by runs.recordUsage (a plan step's run starts with the step's title); null = not said.
  started_at timestamp with time zone default now() not null, -- When the run was opened (the assignment).
  finished_at timestamp with time zone, -- When the run was COMPLETED or ABANDONED; null while open.
  last_event_at timestamp with time zone default now() not null, -- The run's last sign of life (a report, a status change, a comment or chat reply of its agent); the stale-run sweep counts from it.
  tokens_in bigint default 0 not null, -- Input tokens used so far, as the agent last reported them (runs.recordUsage sends totals).
  tokens_out bigint default 0 not null, -- Output tokens used so far, as the agent last reported them.
  tokens_cached bigint default 0 not null, -- Cached input tokens so far, as the agent last reported them.
  cost_usd numeric default 0 not null, -- Cost in US dollars so far, exactly as the agent last reported it (a decimal string in GraphQL).
  control_state text, -- Reserved for a runtime's control state (spec 2.11); nothing sets it yet, so it is null.
  completion_meta jsonb, -- COMPLETED runs: what runs.complete reported (summary, producedArtifactIds, verificationResult, followUps, confidence, verdict) and the run contract version (contractVersion, completedAt); a run completed for its agent (a plan step accepted): {contractVersion, completedAt, reason}; a canceled run: {canceledAt, cancelReason if given}; null otherwise.
  step_id uuid, -- The execution step this run works on (opened when the step became READY); its cost counts toward the goal's budget.
  constraint agent_runs_pkey PRIMARY KEY (id),
  constraint agent_runs_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint agent_runs_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint agent_runs_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint agent_runs_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint agent_runs_workspace_id_step_id_fkey FOREIGN KEY (workspace_id, step_id) REFERENCES app_public.execution_steps(workspace_id, id) ON DELETE SET NULL (step_id),
  constraint agent_runs_engagement_mode_check CHECK (engagement_mode = ANY (ARRAY['EXECUTE'::text, 'RESEARCH'::text, 'REVIEW'::text, 'DISCUSS'::text])),
  constraint agent_runs_status_check CHECK (status = ANY (ARRAY['ACTIVE'::text, 'WAITING'::text, 'STALLED'::text, 'COMPLETED'::text, 'ABANDONED'::text]))
);
CREATE INDEX agent_runs_agent_idx ON app_public.agent_runs USING btree (workspace_id, agent_id, started_at DESC);
CREATE INDEX agent_runs_issue_idx ON app_public.agent_runs USING btree (workspace_id, issue_id, started_at DESC);
CREATE INDEX agent_runs_open_idx ON app_public.agent_runs USING btree (workspace_id, status) WHERE (status = ANY (ARRAY['ACTIVE'::text, 'WAITING'::text]));
CREATE INDEX agent_runs_step_idx ON app_public.agent_runs USING btree (workspace_id, step_id) WHERE (step_id IS NOT NULL);
alter table app_public.agent_runs enable row level security;
alter table app_public.agent_runs force row level security;
grant select on app_public.agent_runs to svc_visitor;
grant insert (workspace_id, agent_id, issue_id, status, engagement_mode, current_step, step_id) on app_public.agent_runs to svc_visitor;
grant update (status, engagement_mode, current_step, finished_at, last_event_at, tokens_in, tokens_out, tokens_cached, cost_usd, control_state, completion_meta) on app_public.agent_runs to svc_visitor;
create policy insert_on_visible_issues on app_public.agent_runs for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id)))));
create policy owner_all on app_public.agent_runs for all to current_user using (true) with check (true);
create policy select_on_visible_issues on app_public.agent_runs for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id))))));
create policy update_on_visible_issues on app_public.agent_runs for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = agent_runs.issue_id)))));
CREATE TRIGGER _120_run_stalled_activity BEFORE UPDATE OF last_event_at ON app_public.agent_runs FOR EACH ROW WHEN (old.status = 'STALLED'::text AND new.status = 'STALLED'::text AND new.last_event_at > old.last_event_at) EXECUTE FUNCTION app_private.tg_agent_runs__stalled_activity();
CREATE TRIGGER _700_plan_budget AFTER UPDATE OF cost_usd, tokens_in, tokens_out, tokens_cached, last_event_at ON app_public.agent_runs FOR EACH ROW WHEN (new.step_id IS NOT NULL) EXECUTE FUNCTION app_private.tg_agent_runs__plan_budget();
CREATE TRIGGER _810_run_abandoned AFTER UPDATE OF status ON app_public.agent_runs FOR EACH ROW WHEN (new.status = 'ABANDONED'::text AND old.status IS DISTINCT FROM 'ABANDONED'::text) EXECUTE FUNCTION app_private.tg_agent_runs__abandoned();

-- A software agent working in a workspace. profileKey is its handle for handoffs and assignment.
create table app_public.agents (
  id uuid default gen_random_uuid() not null, -- UUID of the agent, as the MCP tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the agent belongs to (the calling key's: no other is visible).
  profile_key text not null, -- The agent's handle, unique in the workspace: 1 to 64 of a-z, 0-9, _ . - (starting with a letter or digit); used to assign and hand off work.
  name text not null, -- Display name, 1 to 200 characters.
  status text default 'OFFLINE'::text not null, -- Presence: ONLINE, BUSY or OFFLINE, as its agents.heartbeat last said; the dispatcher skips OFFLINE agents, and one silent for the workspace's agentRunStaleMinutes goes OFFLINE.
  runtime_mode text default 'PERSISTENT'::text not null, -- PERSISTENT (a long-running agent, the default) or EPHEMERAL (a single-session one); informational, the service treats both alike.
  provider text default 'CUSTOM'::text not null, -- The agent client it runs on: CUSTOM (default), CLAUDE, CODEX or HERMES.
  capabilities text[] default '{}'::text[] not null, -- Tags the dispatcher matches: PRIORITY_MATCH against the issue's priority name, CAPABILITY_MATCH against its label names (case-insensitive); at most 50.
  max_concurrent integer default 1 not null, -- Open assigned issues the dispatcher may give this agent; 0 = unlimited.
  webhook_url text,
  runtime_id uuid, -- Runtime the agent runs on (set by agents.heartbeat {runtimeId}).
  last_heartbeat_at timestamp with time zone, -- When the agent last sent agents.heartbeat; null = never.
  last_dispatched_at timestamp with time zone, -- When the dispatcher last gave the agent an issue (round-robin picks the least recent first); null = never.
  archived_at timestamp with time zone, -- When the agent was archived; null = live. An archived agent gets no work and its keys are refused (403 agent_archived) until it is unarchived.
  created_at timestamp with time zone default now() not null, -- When the agent was created.
  updated_at timestamp with time zone default now() not null, -- When the agent last changed (heartbeats included).
  constraint agents_pkey PRIMARY KEY (id),
  constraint agents_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint agents_workspace_id_profile_key_key UNIQUE (workspace_id, profile_key),
  constraint agents_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint agents_workspace_id_runtime_id_fkey FOREIGN KEY (workspace_id, runtime_id) REFERENCES app_public.runtimes(workspace_id, id) ON DELETE SET NULL (runtime_id),
  constraint agents_max_concurrent_check CHECK (max_concurrent >= 0),
  constraint agents_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint agents_profile_key_check CHECK (profile_key ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'::text),
  constraint agents_provider_check CHECK (provider = ANY (ARRAY['CUSTOM'::text, 'CLAUDE'::text, 'CODEX'::text, 'HERMES'::text])),
  constraint agents_runtime_mode_check CHECK (runtime_mode = ANY (ARRAY['PERSISTENT'::text, 'EPHEMERAL'::text])),
  constraint agents_status_check CHECK (status = ANY (ARRAY['ONLINE'::text, 'BUSY'::text, 'OFFLINE'::text])),
  constraint agents_webhook_url_check CHECK (webhook_url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$'::text AND length(webhook_url) <= 2048) NOT VALID
);
CREATE INDEX agents_runtime_idx ON app_public.agents USING btree (workspace_id, runtime_id) WHERE (runtime_id IS NOT NULL);
alter table app_public.agents enable row level security;
alter table app_public.agents force row level security;
grant select on app_public.agents to svc_visitor;
grant update (status, runtime_id, last_heartbeat_at) on app_public.agents to svc_visitor;
create policy owner_all on app_public.agents for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.agents for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_own_agent on app_public.agents for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.agents FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.agents FOR EACH ROW EXECUTE FUNCTION app_private.tg_agents__events();
CREATE TRIGGER _850_wake_dispatcher AFTER UPDATE OF status, archived_at, max_concurrent ON app_public.agents FOR EACH ROW EXECUTE FUNCTION app_private.tg_agents__wake_dispatcher();
CREATE TRIGGER _900_notify_keys AFTER UPDATE OF archived_at ON app_public.agents FOR EACH ROW WHEN (new.archived_at IS DISTINCT FROM old.archived_at) EXECUTE FUNCTION app_private.tg_agents__notify_keys();

-- Uploads granted by attachments.initUpload and not finalized yet: their declared size counts against the quota until finalize registers the attachment or the expiry job removes the blob.
create table app_public.attachment_uploads (
  id uuid default gen_random_uuid() not null,
  workspace_id uuid not null,
  storage_key text not null, -- Object key in the blob store (<workspace id>/<upload id>/<filename>).
  target_type text not null,
  target_id uuid not null,
  filename text not null,
  mime_type text not null,
  size_bytes bigint not null,
  created_by_user_id uuid,
  created_by_agent_id uuid,
  created_at timestamp with time zone default now() not null,
  expires_at timestamp with time zone not null, -- After this the upload URL no longer works; a Graphile Worker job then deletes the row and any blob that arrived.
  constraint attachment_uploads_pkey PRIMARY KEY (id),
  constraint attachment_uploads_storage_key_key UNIQUE (storage_key),
  constraint attachment_uploads_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint attachment_uploads_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint attachment_uploads_filename_check CHECK (length(filename) >= 1 AND length(filename) <= 255),
  constraint attachment_uploads_mime_type_check CHECK (length(mime_type) >= 3 AND length(mime_type) <= 255),
  constraint attachment_uploads_size_bytes_check CHECK (size_bytes >= 1 AND size_bytes <= 26214400),
  constraint attachment_uploads_target_type_check CHECK (target_type = ANY (ARRAY['issue'::text, 'initiative'::text, 'cycle'::text, 'comment'::text]))
);
CREATE INDEX attachment_uploads_workspace_idx ON app_public.attachment_uploads USING btree (workspace_id, expires_at);
alter table app_public.attachment_uploads enable row level security;
alter table app_public.attachment_uploads force row level security;
grant delete on app_public.attachment_uploads to svc_visitor;
grant select on app_public.attachment_uploads to svc_visitor;
grant insert (id, workspace_id, storage_key, target_type, target_id, filename, mime_type, size_bytes, created_by_user_id, created_by_agent_id, expires_at) on app_public.attachment_uploads to svc_visitor;
create policy manage_in_workspace on app_public.attachment_uploads for all to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.attachment_uploads for all to current_user using (true) with check (true);
CREATE TRIGGER _900_expiry_job AFTER INSERT ON app_public.attachment_uploads FOR EACH ROW EXECUTE FUNCTION app_private.tg_attachment_uploads__expiry_job();

-- Files and links attached to issues, initiatives, cycles or comments. LINK rows: mimeType text/url, size 0.
create table app_public.attachments (
  id uuid default gen_random_uuid() not null, -- UUID of the attachment, as the attachments.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the attachment belongs to (the calling key's: no other is visible).
  kind text not null, -- FILE (an uploaded blob: attachments.initUpload, then finalize) or LINK (a URL: attachments.attachLink).
  target_type text not null, -- What it is attached to: issue, initiative, cycle or comment.
  target_id uuid not null, -- The id of the record it is attached to (targetType says which kind).
  external_url text, -- LINK: the http(s) URL; null for a FILE.
  link_title text, -- LINK: the title given, else the URL's hostname until a background job replaces it with the page's title; null for a FILE.
  filename text, -- FILE: the file name given at upload. LINK: the link's title, or its hostname until a title is known.
  mime_type text not null, -- FILE: the media type declared at upload (lowercase). LINK: text/url.
  size_bytes bigint default 0 not null, -- FILE: size in bytes (a string in GraphQL). LINK: 0.
  storage_key text,
  created_by_user_id uuid, -- The person whose key attached it (for an agent's key, the key's owner); null for a plugin key.
  created_by_agent_id uuid, -- The agent whose key attached it; null when no agent's key did.
  created_at timestamp with time zone default now() not null, -- When it was attached.
  upload_id uuid, -- FILE rows: the attachment_uploads id it was finalized from (the job that cleans unfinalized uploads leaves these blobs alone).
  constraint attachments_pkey PRIMARY KEY (id),
  constraint attachments_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint attachments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint attachments_check CHECK (kind <> 'LINK'::text OR external_url IS NOT NULL),
  constraint attachments_external_url_check CHECK (external_url ~ '^https?://'::text),
  constraint attachments_kind_check CHECK (kind = ANY (ARRAY['FILE'::text, 'LINK'::text])),
  constraint attachments_size_bytes_check CHECK (size_bytes >= 0),
  constraint attachments_target_type_check CHECK (target_type = ANY (ARRAY['issue'::text, 'initiative'::text, 'cycle'::text, 'comment'::text]))
);
CREATE INDEX attachments_storage_key_idx ON app_public.attachments USING btree (workspace_id, storage_key) WHERE (storage_key IS NOT NULL);
CREATE INDEX attachments_target_idx ON app_public.attachments USING btree (workspace_id, target_type, target_id, created_at);
alter table app_public.attachments enable row level security;
alter table app_public.attachments force row level security;
grant delete on app_public.attachments to svc_visitor;
grant select on app_public.attachments to svc_visitor;
grant insert (id, workspace_id, kind, target_type, target_id, external_url, link_title, filename, mime_type, size_bytes, storage_key, created_by_user_id, created_by_agent_id, upload_id) on app_public.attachments to svc_visitor;
create policy delete_visible on app_public.attachments for delete to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy insert_in_workspace on app_public.attachments for insert to svc_visitor with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.attachments for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.attachments for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (((target_type = ANY (ARRAY['issue'::text, 'comment'::text])) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((target_type = 'issue'::text) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = attachments.target_id)))) OR ((target_type = 'comment'::text) AND (EXISTS ( SELECT 1
   FROM app_public.comments c
  WHERE (c.id = attachments.target_id)))))) OR ((target_type = 'initiative'::text) AND ((cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0) OR (target_id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))) OR (target_type = 'cycle'::text))));
CREATE TRIGGER _200_link_title BEFORE INSERT ON app_public.attachments FOR EACH ROW EXECUTE FUNCTION app_private.tg_attachments__link_title();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE OF link_title ON app_public.attachments FOR EACH ROW EXECUTE FUNCTION app_private.tg_attachments__events();

-- An arrow between two cards of one canvas (fromNode → toNode) with an optional label. A key sees it when it sees both cards.
create table app_public.canvas_edges (
  id uuid default gen_random_uuid() not null, -- UUID of the edge, as the canvas.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the edge belongs to (the calling key's: no other is visible).
  canvas_id uuid not null, -- The canvas the edge is on.
  from_node_id uuid not null, -- The card the arrow starts at.
  to_node_id uuid not null, -- The card the arrow points to (never the card it starts at).
  label text, -- Text on the arrow, at most 200 characters; null = none.
  created_at timestamp with time zone default now() not null, -- When the edge was drawn.
  constraint canvas_edges_pkey PRIMARY KEY (id),
  constraint canvas_edges_workspace_id_canvas_id_from_node_id_to_node_id_key UNIQUE (workspace_id, canvas_id, from_node_id, to_node_id),
  constraint canvas_edges_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint canvas_edges_from_node_fkey FOREIGN KEY (workspace_id, canvas_id, from_node_id) REFERENCES app_public.canvas_nodes(workspace_id, canvas_id, id) ON DELETE CASCADE,
  constraint canvas_edges_to_node_fkey FOREIGN KEY (workspace_id, canvas_id, to_node_id) REFERENCES app_public.canvas_nodes(workspace_id, canvas_id, id) ON DELETE CASCADE,
  constraint canvas_edges_workspace_id_canvas_id_fkey FOREIGN KEY (workspace_id, canvas_id) REFERENCES app_public.canvases(workspace_id, id) ON DELETE CASCADE,
  constraint canvas_edges_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint canvas_edges_check CHECK (from_node_id <> to_node_id),
  constraint canvas_edges_label_check CHECK (length(label) <= 200)
);
CREATE INDEX canvas_edges_to_idx ON app_public.canvas_edges USING btree (workspace_id, canvas_id, to_node_id);
alter table app_public.canvas_edges enable row level security;
alter table app_public.canvas_edges force row level security;
grant delete on app_public.canvas_edges to svc_visitor;
grant select on app_public.canvas_edges to svc_visitor;
grant insert (workspace_id, canvas_id, from_node_id, to_node_id, label) on app_public.canvas_edges to svc_visitor;
create policy delete_visible on app_public.canvas_edges for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
create policy insert_visible on app_public.canvas_edges for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));
create policy owner_all on app_public.canvas_edges for all to current_user using (true) with check (true);
create policy select_visible on app_public.canvas_edges for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.from_node_id))) AND (EXISTS ( SELECT 1
   FROM app_public.canvas_nodes n
  WHERE (n.id = canvas_edges.to_node_id)))))));

-- A card on a canvas: an issue (kind issue) or free text (kind text) at x/y with a size and an optional #rrggbb color. A key sees an issue card only when it sees the issue.
create table app_public.canvas_nodes (
  id uuid default gen_random_uuid() not null, -- UUID of the card, as the canvas.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the card belongs to (the calling key's: no other is visible).
  canvas_id uuid not null, -- The canvas the card is on.
  kind text not null, -- issue (a card showing issueId) or text (a card showing text).
  issue_id uuid, -- The issue of an issue card (one card per issue and canvas); deleting the issue for good removes the card.
  text text, -- Text cards: the text, 1 to 10,000 characters; null for an issue card.
  x double precision not null, -- Horizontal position of the card on the canvas, -1,000,000 to 1,000,000.
  y double precision not null, -- Vertical position of the card on the canvas, -1,000,000 to 1,000,000.
  width double precision default 240 not null, -- Width of the card, 1 to 10,000 (default 240).
  height double precision default 120 not null, -- Height of the card, 1 to 10,000 (default 120).
  color text, -- Card color as #rrggbb (lowercase); null = the client's default.
  created_at timestamp with time zone default now() not null, -- When the card was added.
  updated_at timestamp with time zone default now() not null, -- When the card was last moved, resized, recolored or edited.
  constraint canvas_nodes_pkey PRIMARY KEY (id),
  constraint canvas_nodes_workspace_id_canvas_id_id_key UNIQUE (workspace_id, canvas_id, id),
  constraint canvas_nodes_workspace_id_canvas_id_issue_id_key UNIQUE (workspace_id, canvas_id, issue_id),
  constraint canvas_nodes_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint canvas_nodes_workspace_id_canvas_id_fkey FOREIGN KEY (workspace_id, canvas_id) REFERENCES app_public.canvases(workspace_id, id) ON DELETE CASCADE,
  constraint canvas_nodes_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint canvas_nodes_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint canvas_nodes_check CHECK (
CASE kind
    WHEN 'issue'::text THEN issue_id IS NOT NULL AND text IS NULL
    ELSE issue_id IS NULL AND text IS NOT NULL
END),
  constraint canvas_nodes_color_check CHECK (color ~ '^#[0-9a-f]{6}$'::text),
  constraint canvas_nodes_height_check CHECK (height >= 1::double precision AND height <= 10000::double precision),
  constraint canvas_nodes_kind_check CHECK (kind = ANY (ARRAY['issue'::text, 'text'::text])),
  constraint canvas_nodes_text_check CHECK (length(text) >= 1 AND length(text) <= 10000),
  constraint canvas_nodes_width_check CHECK (width >= 1::double precision AND width <= 10000::double precision),
  constraint canvas_nodes_x_check CHECK (x >= '-1000000'::numeric::double precision AND x <= '1000000'::numeric::double precision),
  constraint canvas_nodes_y_check CHECK (y >= '-1000000'::numeric::double precision AND y <= '1000000'::numeric::double precision)
);
CREATE INDEX canvas_nodes_issue_idx ON app_public.canvas_nodes USING btree (workspace_id, issue_id) WHERE (issue_id IS NOT NULL);
alter table app_public.canvas_nodes enable row level security;
alter table app_public.canvas_nodes force row level security;
grant delete on app_public.canvas_nodes to svc_visitor;
grant select on app_public.canvas_nodes to svc_visitor;
grant insert (workspace_id, canvas_id, kind, issue_id, text, x, y, width, height, color) on app_public.canvas_nodes to svc_visitor;
grant update (text, x, y, width, height, color) on app_public.canvas_nodes to svc_visitor;
create policy delete_visible on app_public.canvas_nodes for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
create policy insert_visible on app_public.canvas_nodes for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
create policy owner_all on app_public.canvas_nodes for all to current_user using (true) with check (true);
create policy select_visible on app_public.canvas_nodes for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id))))));
create policy update_visible on app_public.canvas_nodes for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = canvas_nodes.issue_id)))))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.canvas_nodes FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- @name canvas_board
-- A planning whiteboard of the workspace: issue and text cards (canvas_nodes) laid out at x/y positions, connected by edges (canvas_edges). Shared by everyone of the workspace; updatedAt moves with every card or edge change.
create table app_public.canvases (
  id uuid default gen_random_uuid() not null, -- UUID of the canvas, as the canvas.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the canvas belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 200 characters.
  description text, -- What the canvas is for, at most 10,000 characters; null = none.
  created_by_user_id uuid, -- The person whose key created it (for an agent's key, the key's owner); null for a plugin key.
  created_by_agent_id uuid, -- The agent whose key created it; null when no agent's key did.
  archived_at timestamp with time zone, -- Archived canvases leave canvas.list (unless includeArchived) and take no card or edge changes.
  created_at timestamp with time zone default now() not null, -- When the canvas was created.
  updated_at timestamp with time zone default now() not null, -- When the canvas, or any of its cards or edges, last changed.
  constraint canvases_pkey PRIMARY KEY (id),
  constraint canvases_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint canvases_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint canvases_workspace_id_created_by_agent_id_fkey FOREIGN KEY (workspace_id, created_by_agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE SET NULL (created_by_agent_id),
  constraint canvases_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint canvases_description_check CHECK (length(description) <= 10000),
  constraint canvases_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);
CREATE INDEX canvases_agent_idx ON app_public.canvases USING btree (workspace_id, created_by_agent_id) WHERE (created_by_agent_id IS NOT NULL);
CREATE INDEX canvases_created_idx ON app_public.canvases USING btree (workspace_id, created_at DESC, id DESC);
CREATE INDEX canvases_user_idx ON app_public.canvases USING btree (created_by_user_id) WHERE (created_by_user_id IS NOT NULL);
alter table app_public.canvases enable row level security;
alter table app_public.canvases force row level security;
grant delete on app_public.canvases to svc_visitor;
grant select on app_public.canvases to svc_visitor;
grant insert (workspace_id, name, description, created_by_user_id, created_by_agent_id) on app_public.canvases to svc_visitor;
grant update (name, description, archived_at, updated_at) on app_public.canvases to svc_visitor;
create policy delete_in_workspace on app_public.canvases for delete to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy insert_in_workspace on app_public.canvases for insert to svc_visitor with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.canvases for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.canvases for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_in_workspace on app_public.canvases for update to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.canvases FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- A persisted chat message: USER (a person, in-app) or AGENT (the addressee, chat.appendMessage or chat.finalizeDraft). Drafts are never stored.
create table app_public.chat_messages (
  id uuid default gen_random_uuid() not null, -- UUID of the message, as the chat tools name it (id is the GraphQL node id).
  seq bigint not null, -- Insertion order (messages of one transaction share created_at), from the workspace's own sequence (app_private.tg_chat_messages__seq).
  workspace_id uuid not null, -- The workspace the message belongs to (the calling key's: no other is visible).
  thread_id uuid not null, -- The thread the message is in.
  role text not null, -- USER (a person wrote it; it is dispatched to the agent) or AGENT (the thread's agent replied).
  body text not null, -- The message text, 1 to 100,000 characters.
  context_snapshot jsonb, -- @behavior -* USER messages: where the person was ({route, issueId}); read by agent.context.bundle (linkedIssues). GraphQL: ChatMessage.contextSnapshot (app_public.chat_messages_context_snapshot).
  source_run_id uuid, -- AGENT messages: the agent's run the reply came from, when it said so; null otherwise.
  author_user_id uuid, -- USER messages: the person who wrote it. AGENT messages: the owner of the agent's key that posted it.
  author_agent_id uuid, -- AGENT messages: the thread's agent; null for USER messages.
  finalized_draft_id uuid, -- The streaming draft this AGENT message finalized (chat.finalizeDraft); unique per thread.
  created_at timestamp with time zone default now() not null, -- When the message was posted (messages of one transaction share it; seq orders them).
  constraint chat_messages_pkey PRIMARY KEY (id),
  constraint chat_messages_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint chat_messages_author_user_id_fkey FOREIGN KEY (author_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint chat_messages_workspace_id_author_agent_id_fkey FOREIGN KEY (workspace_id, author_agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint chat_messages_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint chat_messages_workspace_id_source_run_id_fkey FOREIGN KEY (workspace_id, source_run_id) REFERENCES app_public.agent_runs(workspace_id, id) ON DELETE SET NULL (source_run_id),
  constraint chat_messages_workspace_id_thread_id_fkey FOREIGN KEY (workspace_id, thread_id) REFERENCES app_public.chat_threads(workspace_id, id) ON DELETE CASCADE,
  constraint chat_messages_body_check CHECK (length(body) >= 1 AND length(body) <= 100000),
  constraint chat_messages_role_check CHECK (role = ANY (ARRAY['USER'::text, 'AGENT'::text]))
);
CREATE INDEX chat_messages_thread_idx ON app_public.chat_messages USING btree (workspace_id, thread_id, seq DESC);
CREATE UNIQUE INDEX chat_messages_draft_idx ON app_public.chat_messages USING btree (workspace_id, thread_id, finalized_draft_id) WHERE (finalized_draft_id IS NOT NULL);
alter table app_public.chat_messages enable row level security;
alter table app_public.chat_messages force row level security;
grant select on app_public.chat_messages to svc_visitor;
grant insert (workspace_id, thread_id, role, body, source_run_id, author_user_id, author_agent_id, finalized_draft_id) on app_public.chat_messages to svc_visitor;
create policy insert_as_addressee on app_public.chat_messages for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (role = 'AGENT'::text) AND (author_agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE ((t.id = chat_messages.thread_id) AND (t.agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)))))));
create policy owner_all on app_public.chat_messages for all to current_user using (true) with check (true);
create policy select_in_visible_threads on app_public.chat_messages for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.chat_threads t
  WHERE (t.id = chat_messages.thread_id)))));
CREATE TRIGGER _050_seq BEFORE INSERT ON app_public.chat_messages FOR EACH ROW EXECUTE FUNCTION app_private.tg_chat_messages__seq();

-- A conversation between a person and one agent (the addressee). Only the addressee agent, the person who opened it and workspace admins see it.
create table app_public.chat_threads (
  id uuid default gen_random_uuid() not null, -- UUID of the thread, as the chat tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the thread belongs to (the calling key's: no other is visible).
  agent_id uuid not null, -- The agent the thread is addressed to; only its keys reply.
  created_by_user_id uuid, -- The person who opened the thread.
  title text, -- Title given when the thread was opened, at most 200 characters; null = none.
  issue_id uuid, -- Optional issue the thread is about.
  created_at timestamp with time zone default now() not null, -- When the thread was opened.
  updated_at timestamp with time zone default now() not null, -- When the thread row last changed; new messages do not move it (nothing changes a thread after it is opened today).
  constraint chat_threads_pkey PRIMARY KEY (id),
  constraint chat_threads_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint chat_threads_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint chat_threads_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint chat_threads_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint chat_threads_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE SET NULL (issue_id),
  constraint chat_threads_title_check CHECK (length(title) <= 200)
);
CREATE INDEX chat_threads_agent_idx ON app_public.chat_threads USING btree (workspace_id, agent_id, created_at DESC);
CREATE INDEX chat_threads_user_idx ON app_public.chat_threads USING btree (workspace_id, created_by_user_id, created_at DESC);
alter table app_public.chat_threads enable row level security;
alter table app_public.chat_threads force row level security;
grant select on app_public.chat_threads to svc_visitor;
create policy owner_all on app_public.chat_threads for all to current_user using (true) with check (true);
create policy select_as_participant on app_public.chat_threads for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND (created_by_user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))) OR ((( SELECT app_hidden.current_agent_id() AS current_agent_id) IS NULL) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin))) AND ((issue_id IS NULL) OR ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.chat_thread_issue_visible(issue_id)) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = chat_threads.issue_id) AND (d.deleted_at IS NULL)))))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.chat_threads FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- Comments on issues. Deletion is soft (kept for audit, hidden from lists and bundles). Previous bodies in revisions (at most 20, oldest dropped).
create table app_public.comments (
  id uuid default gen_random_uuid() not null, -- UUID of the comment, as the comments.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the comment belongs to (the calling key's: no other is visible).
  issue_id uuid not null, -- The issue commented on.
  body text not null, -- The current text, 1 to 100,000 characters (earlier bodies: revisionHistory; none are kept for STATUS comments).
  kind text default 'COMMENT'::text not null, -- COMMENT; STATUS = the rolling status comment of an agent run (comments.upsertStatus); HANDOFF = written by issues.reassign.
  confidence text, -- LOW/MEDIUM/HIGH, persisted whoever the author; rendered only for agent-authored comments.
  author_user_id uuid, -- The person whose key wrote it (for an agent's key, the key's owner); null for a plugin key.
  authoring_agent_id uuid, -- The agent whose key wrote it; null when a person's or a plugin's key did.
  run_id uuid, -- The authoring agent's open run on the issue when it was written; null otherwise.
  revisions jsonb default '[]'::jsonb not null,
  edited_at timestamp with time zone, -- When the comment was last edited (comments.update, a confidence-only change included, or comments.upsertStatus for STATUS comments); null = never.
  deleted_at timestamp with time zone, -- When the comment was deleted (soft: kept for audit, left out of lists); null = live.
  created_at timestamp with time zone default clock_timestamp() not null, -- When the comment was posted.
  updated_at timestamp with time zone default clock_timestamp() not null, -- When the comment last changed (an edit or its deletion).
  constraint comments_pkey PRIMARY KEY (id),
  constraint comments_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint comments_author_user_id_fkey FOREIGN KEY (author_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint comments_workspace_id_authoring_agent_id_fkey FOREIGN KEY (workspace_id, authoring_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint comments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint comments_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint comments_body_check CHECK (length(body) >= 1 AND length(body) <= 100000),
  constraint comments_confidence_check CHECK (confidence = ANY (ARRAY['LOW'::text, 'MEDIUM'::text, 'HIGH'::text])),
  constraint comments_kind_check CHECK (kind = ANY (ARRAY['COMMENT'::text, 'STATUS'::text, 'HANDOFF'::text])),
  constraint comments_revisions_check CHECK (jsonb_typeof(revisions) = 'array'::text AND jsonb_array_length(revisions) <= 20)
);
CREATE INDEX comments_issue_idx ON app_public.comments USING btree (workspace_id, issue_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX comments_one_status_per_run ON app_public.comments USING btree (run_id) WHERE ((kind = 'STATUS'::text) AND (deleted_at IS NULL));
alter table app_public.comments enable row level security;
alter table app_public.comments force row level security;
grant select on app_public.comments to svc_visitor;
grant insert (workspace_id, issue_id, body, kind, confidence, author_user_id, authoring_agent_id, run_id) on app_public.comments to svc_visitor;
grant update (body, confidence, revisions, edited_at, deleted_at) on app_public.comments to svc_visitor;
create policy insert_on_visible_issues on app_public.comments for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id)))));
create policy owner_all on app_public.comments for all to current_user using (true) with check (true);
create policy select_on_visible_issues on app_public.comments for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((deleted_at IS NULL) OR (current_setting('svc.include_deleted_comments'::text, true) = 'on'::text)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id))))));
create policy update_on_visible_issues on app_public.comments for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = comments.issue_id)))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.comments FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_public.comments FOR EACH ROW EXECUTE FUNCTION app_private.tg_comments__events();
CREATE TRIGGER _810_drop_attachments AFTER UPDATE OF deleted_at ON app_public.comments FOR EACH ROW WHEN (old.deleted_at IS NULL AND new.deleted_at IS NOT NULL) EXECUTE FUNCTION app_private.tg_comments__drop_attachments();

-- A workspace's link to an external repository (kind repo): the repohost tools read issues and pull requests through it, never write to the host.
create table app_public.connection_mappings (
  id uuid default gen_random_uuid() not null, -- UUID of the mapping, as repoMappingsUpdate and the repohost tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the mapping belongs to (the calling key's: no other is visible).
  kind text default 'repo'::text not null, -- Always repo: a mapping to a code repository.
  provider text default 'github'::text not null, -- The repository host; always github (GitHub or GitHub Enterprise).
  repo_full_name text not null, -- owner/name on the host.
  token_env text, -- Name of the environment variable holding the host API token (the token itself is never stored); unset = anonymous.
  api_url text, -- API base URL for GitHub Enterprise (e.g. https://ghe.example.com/api/v3); unset = https://api.github.com.
  status_rules jsonb default '{}'::jsonb not null, -- External state → status category applied by repohost.sync to linked issues (SOURCE and IMPLEMENTS links), e.g. {"closed":"DONE","merged":"DONE"}.
  sync_title boolean default false not null, -- When true, repohost.sync copies the external title onto issues linked with kind SOURCE.
  active boolean default true not null, -- False pauses the repohost tools for this repository (422 mapping_inactive) without removing it.
  created_at timestamp with time zone default now() not null, -- When the repository was mapped.
  updated_at timestamp with time zone default now() not null, -- When the mapping last changed.
  constraint connection_mappings_pkey PRIMARY KEY (id),
  constraint connection_mappings_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint connection_mappings_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint connection_mappings_api_url_check CHECK (api_url ~ '^https?://[^\s]+$'::text AND length(api_url) <= 500),
  constraint connection_mappings_kind_check CHECK (kind = 'repo'::text),
  constraint connection_mappings_provider_check CHECK (provider = 'github'::text),
  constraint connection_mappings_repo_full_name_check CHECK (repo_full_name ~ '^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$'::text),
  constraint connection_mappings_status_rules_check CHECK (jsonb_typeof(status_rules) = 'object'::text),
  constraint connection_mappings_token_env_check CHECK (token_env ~ '^[A-Za-z_][A-Za-z0-9_]{0,127}$'::text)
);
CREATE UNIQUE INDEX connection_mappings_repo_key ON app_public.connection_mappings USING btree (workspace_id, kind, lower(repo_full_name));
alter table app_public.connection_mappings enable row level security;
alter table app_public.connection_mappings force row level security;
grant delete on app_public.connection_mappings to svc_visitor;
grant select on app_public.connection_mappings to svc_visitor;
grant insert (workspace_id, kind, provider, repo_full_name, token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;
grant update (token_env, api_url, status_rules, sync_title, active) on app_public.connection_mappings to svc_visitor;
create policy manage_as_admin on app_public.connection_mappings for all to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text])))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))));
create policy owner_all on app_public.connection_mappings for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.connection_mappings for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.connection_mappings FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.connection_mappings FOR EACH ROW EXECUTE FUNCTION app_private.tg_connection_mappings__events();

-- A time-boxed iteration (shown as Sprint). At most one ACTIVE cycle per workspace: the current one.
create table app_public.cycles (
  id uuid default gen_random_uuid() not null, -- UUID of the cycle (sprint), as the cycles.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the cycle belongs to (the calling key's: no other is visible).
  number integer not null, -- The cycle's number in the workspace, in order of creation.
  name text not null, -- Display name, 1 to 200 characters (default "Sprint <number>").
  starts_on date not null, -- First day of the cycle (a date, UTC).
  ends_on date not null, -- Last day of the cycle (a date, UTC; never before startsOn).
  status text default 'PLANNED'::text not null, -- The status as set: PLANNED, ACTIVE (cycles.create with activate), COMPLETED (after a rollover) or CANCELED; currentStatus gives it by the calendar.
  created_at timestamp with time zone default now() not null, -- When the cycle was created.
  updated_at timestamp with time zone default now() not null, -- When the cycle last changed.
  constraint cycles_pkey PRIMARY KEY (id),
  constraint cycles_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint cycles_workspace_id_number_key UNIQUE (workspace_id, number),
  constraint cycles_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint cycles_check CHECK (ends_on >= starts_on),
  constraint cycles_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint cycles_status_check CHECK (status = ANY (ARRAY['PLANNED'::text, 'ACTIVE'::text, 'COMPLETED'::text, 'CANCELED'::text]))
);
CREATE INDEX cycles_dates_idx ON app_public.cycles USING btree (workspace_id, starts_on);
CREATE UNIQUE INDEX cycles_one_active ON app_public.cycles USING btree (workspace_id) WHERE (status = 'ACTIVE'::text);
alter table app_public.cycles enable row level security;
alter table app_public.cycles force row level security;
grant delete on app_public.cycles to svc_visitor;
grant select on app_public.cycles to svc_visitor;
grant insert (workspace_id, number, name, starts_on, ends_on, status) on app_public.cycles to svc_visitor;
grant update (name, starts_on, ends_on, status) on app_public.cycles to svc_visitor;
create policy delete_unnarrowed on app_public.cycles for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)));
create policy insert_in_workspace on app_public.cycles for insert to svc_visitor with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.cycles for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.cycles for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_in_workspace on app_public.cycles for update to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.cycles FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.cycles FOR EACH ROW EXECUTE FUNCTION app_private.tg_cycles__events();

-- Routing rules for auto-dispatch, tried in position order before the workspace's dispatch mode: every condition that is set (priority, label, project) must match; the first matching rule names the target agent. A rule disappears with its label, project or agent.
create table app_public.dispatch_rules (
  id uuid default gen_random_uuid() not null, -- UUID of the rule, as dispatchRulesUpdate, Reorder and Delete name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the rule belongs to (the calling key's: no other is visible).
  position integer not null, -- Order in which rules are tried (0 first).
  name text, -- A label for the rule, 1 to 200 characters; null = none.
  priority text, -- Condition: the issue has this priority (unset = any).
  label_id uuid, -- Condition: the issue carries this label (unset = any).
  project_id uuid, -- Condition: the issue is in this project (unset = any).
  target_agent_id uuid not null, -- The agent a matching issue goes to (when it is eligible; else the mode picks, reason rule:<id>:target-ineligible).
  enabled boolean default true not null, -- Disabled rules are kept but skipped.
  created_at timestamp with time zone default now() not null, -- When the rule was added.
  updated_at timestamp with time zone default now() not null, -- When the rule last changed (a move in the order included).
  constraint dispatch_rules_pkey PRIMARY KEY (id),
  constraint dispatch_rules_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint dispatch_rules_workspace_id_position_key UNIQUE (workspace_id, "position") DEFERRABLE INITIALLY DEFERRED,
  constraint dispatch_rules_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint dispatch_rules_workspace_id_label_id_fkey FOREIGN KEY (workspace_id, label_id) REFERENCES app_public.labels(workspace_id, id) ON DELETE CASCADE,
  constraint dispatch_rules_workspace_id_project_id_fkey FOREIGN KEY (workspace_id, project_id) REFERENCES app_public.projects(workspace_id, id) ON DELETE CASCADE,
  constraint dispatch_rules_workspace_id_target_agent_id_fkey FOREIGN KEY (workspace_id, target_agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint dispatch_rules_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint dispatch_rules_position_check CHECK ("position" >= 0),
  constraint dispatch_rules_priority_check CHECK (priority = ANY (ARRAY['NONE'::text, 'LOW'::text, 'MEDIUM'::text, 'HIGH'::text, 'URGENT'::text]))
);
CREATE INDEX dispatch_rules_agent_idx ON app_public.dispatch_rules USING btree (workspace_id, target_agent_id);
CREATE INDEX dispatch_rules_label_idx ON app_public.dispatch_rules USING btree (workspace_id, label_id) WHERE (label_id IS NOT NULL);
CREATE INDEX dispatch_rules_project_idx ON app_public.dispatch_rules USING btree (workspace_id, project_id) WHERE (project_id IS NOT NULL);
alter table app_public.dispatch_rules enable row level security;
alter table app_public.dispatch_rules force row level security;
grant delete on app_public.dispatch_rules to svc_visitor;
grant select on app_public.dispatch_rules to svc_visitor;
grant insert (workspace_id, position, name, priority, label_id, project_id, target_agent_id, enabled) on app_public.dispatch_rules to svc_visitor;
grant update (position, name, priority, label_id, project_id, target_agent_id, enabled) on app_public.dispatch_rules to svc_visitor;
create policy hide_from_narrowed_keys on app_public.dispatch_rules as restrictive for select to svc_visitor using ((( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) AND (cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0)));
create policy manage_as_admin on app_public.dispatch_rules for all to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text])))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.caller_role() AS caller_role) = ANY (ARRAY['OWNER'::text, 'ADMIN'::text]))));
create policy owner_all on app_public.dispatch_rules for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.dispatch_rules for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.dispatch_rules FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.dispatch_rules FOR EACH ROW EXECUTE FUNCTION app_private.tg_dispatch_rules__events();
CREATE TRIGGER _850_wake_dispatcher AFTER INSERT OR UPDATE ON app_public.dispatch_rules FOR EACH ROW EXECUTE FUNCTION app_private.tg_dispatch_rules__wake_dispatcher();

-- One attempt at a goal (spec 2.15, 3.8): DRAFT → APPROVED → RUNNING ⇄ BLOCKED → COMPLETED, CANCELED from any live state. A new decompose flips earlier attempts to isActiveAttempt false (and cancels a live one). auto_judge NULL = judge automatically when the goal's crew has a REVIEWER.
create table app_public.execution_plans (
  id uuid default gen_random_uuid() not null, -- UUID of the plan, as the plans.* and executionPlans.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the plan belongs to (the calling key's: no other is visible).
  goal_id uuid not null, -- The goal this plan is an attempt at.
  attempt integer default 1 not null, -- Which attempt at the goal this is, from 1.
  status text default 'DRAFT'::text not null, -- DRAFT (steps being added), APPROVED, RUNNING, BLOCKED (held, by a review gate or by hand), or final: COMPLETED or CANCELED.
  is_active_attempt boolean default true not null, -- True for the goal's current attempt; a new decompose turns the earlier ones false.
  planner_agent_id uuid, -- The agent dispatched to plan it (plans.decompose: plannerAgentId, else the crew's PLANNER, else the calling agent; executionPlans.create: only the plannerAgentId given); null = none.
  context_set_id text, -- An opaque label of the context agents should load, passed to them with each step's dispatch (a step's own wins); null = none.
  auto_judge boolean, -- Whether a step moved to REVIEW gets a judge dispatched automatically; null = yes when the goal's crew has a REVIEWER.
  max_step_retries integer default 2 not null, -- FAIL verdicts a step may get before it is BLOCKED, 0 to 20 (default 2).
  approval_request_id uuid, -- The action request asking to approve the plan (plans.requestApproval); accepting it activates the plan. Null = none asked.
  started_at timestamp with time zone, -- When the plan first started RUNNING; null before.
  finished_at timestamp with time zone, -- When the plan was COMPLETED or CANCELED; null before.
  created_at timestamp with time zone default now() not null, -- When the plan attempt was created.
  updated_at timestamp with time zone default now() not null, -- When the plan last changed.
  constraint execution_plans_pkey PRIMARY KEY (id),
  constraint execution_plans_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint execution_plans_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint execution_plans_workspace_id_goal_id_fkey FOREIGN KEY (workspace_id, goal_id) REFERENCES app_public.goals(workspace_id, id) ON DELETE CASCADE,
  constraint execution_plans_workspace_id_planner_agent_id_fkey FOREIGN KEY (workspace_id, planner_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint execution_plans_max_step_retries_check CHECK (max_step_retries >= 0 AND max_step_retries <= 20),
  constraint execution_plans_status_check CHECK (status = ANY (ARRAY['DRAFT'::text, 'APPROVED'::text, 'RUNNING'::text, 'BLOCKED'::text, 'COMPLETED'::text, 'CANCELED'::text]))
);
CREATE INDEX execution_plans_list_idx ON app_public.execution_plans USING btree (workspace_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX execution_plans_one_active_idx ON app_public.execution_plans USING btree (workspace_id, goal_id) WHERE is_active_attempt;
alter table app_public.execution_plans enable row level security;
alter table app_public.execution_plans force row level security;
grant select on app_public.execution_plans to svc_visitor;
grant insert (workspace_id, goal_id, attempt, planner_agent_id, context_set_id, auto_judge, max_step_retries) on app_public.execution_plans to svc_visitor;
grant update (status, is_active_attempt, approval_request_id, started_at, finished_at, updated_at) on app_public.execution_plans to svc_visitor;
create policy insert_visible_plans on app_public.execution_plans for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.goals g
  WHERE (g.id = execution_plans.goal_id)))));
create policy owner_all on app_public.execution_plans for all to current_user using (true) with check (true);
create policy select_visible_plans on app_public.execution_plans for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.goals g
  WHERE (g.id = execution_plans.goal_id)))));
create policy update_visible_plans on app_public.execution_plans for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.goals g
  WHERE (g.id = execution_plans.goal_id))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.goals g
  WHERE (g.id = execution_plans.goal_id)))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.execution_plans FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE OF status ON app_public.execution_plans FOR EACH ROW EXECUTE FUNCTION app_private.tg_execution_plans__events();

-- A step of a plan (spec 2.15, 3.9): TODO (waiting on dependencies) → READY → RUNNING → REVIEW → DONE, with BLOCKED (gate) and CANCELED. A step becomes READY only when every step in depends_on_step_ids is DONE. Status moves only through app_hidden.step_move; EXECUTION_STEP_STATUS_CHANGED by trigger.
create table app_public.execution_steps (
  id uuid default gen_random_uuid() not null, -- UUID of the step, as the plans.* and executionPlans.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the step belongs to (the calling key's: no other is visible).
  plan_id uuid not null, -- The plan the step belongs to.
  position integer not null, -- Order of the step in its plan, from 0; unique within the plan.
  title text not null, -- What the step is, 1 to 500 characters.
  body text, -- Instructions for the agent doing it; null = none.
  expected_output text, -- What the step should produce; null = not said.
  verification jsonb default '[]'::jsonb not null, -- Checks the result must pass, [{label, done}] (empty = none).
  depends_on_step_ids uuid[] default '{}'::uuid[] not null, -- Steps of the same plan that must be DONE before this one becomes READY (empty = a root step).
  assigned_agent_id uuid, -- The agent that runs the step: the one named when it was added, else (once READY) the crew member in its assignedRole; null = none yet.
  assigned_role text, -- The crew role whose member runs the step when no live agent is named (PLANNER, WORKER, REVIEWER, OBSERVER, OPERATOR_PROXY); null = WORKER.
  status text default 'TODO'::text not null, -- TODO (waiting on dependencies), READY (dispatched), RUNNING, REVIEW (awaiting a verdict), DONE, BLOCKED (a review gate holds it) or CANCELED.
  retry_count integer default 0 not null, -- FAIL verdicts that sent the step back to READY since it was last unblocked (approving its review gate resets it to 0).
  last_feedback text, -- The feedback of the last FAIL verdict, given to the agent on its retry; null = none.
  judge_verdict jsonb, -- The last verdict: {verdict PASS | FAIL, feedback, score, judgedByAgentId, judgedAt}; null = not judged.
  judge_agent_id uuid, -- The agent dispatched to judge the step (plans.judge, or auto-judging); null = none.
  context_set_id text, -- An opaque label of the context the agent should load, passed with the step's dispatch; null = the plan's.
  source_run_id uuid, -- The run a move of the step was last reported from (executionPlans.transitionStep sourceRunId, one of the step's runs); null = none.
  created_at timestamp with time zone default now() not null, -- When the step was added.
  updated_at timestamp with time zone default now() not null, -- When the step last changed.
  constraint execution_steps_pkey PRIMARY KEY (id),
  constraint execution_steps_plan_id_position_key UNIQUE (plan_id, "position"),
  constraint execution_steps_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint execution_steps_workspace_id_assigned_agent_id_fkey FOREIGN KEY (workspace_id, assigned_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint execution_steps_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint execution_steps_workspace_id_judge_agent_id_fkey FOREIGN KEY (workspace_id, judge_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint execution_steps_workspace_id_plan_id_fkey FOREIGN KEY (workspace_id, plan_id) REFERENCES app_public.execution_plans(workspace_id, id) ON DELETE CASCADE,
  constraint execution_steps_assigned_role_check CHECK (assigned_role IS NULL OR (assigned_role = ANY (ARRAY['PLANNER'::text, 'WORKER'::text, 'REVIEWER'::text, 'OBSERVER'::text, 'OPERATOR_PROXY'::text]))),
  constraint execution_steps_status_check CHECK (status = ANY (ARRAY['TODO'::text, 'READY'::text, 'RUNNING'::text, 'REVIEW'::text, 'DONE'::text, 'BLOCKED'::text, 'CANCELED'::text])),
  constraint execution_steps_title_check CHECK (length(title) >= 1 AND length(title) <= 500),
  constraint execution_steps_verification_check CHECK (jsonb_typeof(verification) = 'array'::text)
);
CREATE INDEX execution_steps_plan_idx ON app_public.execution_steps USING btree (workspace_id, plan_id, "position");
alter table app_public.execution_steps enable row level security;
alter table app_public.execution_steps force row level security;
grant select on app_public.execution_steps to svc_visitor;
grant insert (workspace_id, plan_id, position, title, body, expected_output, verification, depends_on_step_ids, assigned_agent_id, assigned_role, context_set_id) on app_public.execution_steps to svc_visitor;
grant update (depends_on_step_ids, assigned_agent_id, status, retry_count, last_feedback, judge_verdict, judge_agent_id, source_run_id, updated_at) on app_public.execution_steps to svc_visitor;
create policy insert_visible_steps on app_public.execution_steps for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = execution_steps.plan_id))))));
create policy owner_all on app_public.execution_steps for all to current_user using (true) with check (true);
create policy select_visible_steps on app_public.execution_steps for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = execution_steps.plan_id))))));
create policy update_visible_steps on app_public.execution_steps for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = execution_steps.plan_id)))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = execution_steps.plan_id))))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.execution_steps FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE OF status ON app_public.execution_steps FOR EACH ROW EXECUTE FUNCTION app_private.tg_execution_steps__events();

-- An issue's link to an external issue or pull request, with its kind (SOURCE: imported from it; IMPLEMENTS, REVIEWS, RELATES_TO).
create table app_public.external_links (
  id uuid default gen_random_uuid() not null, -- UUID of the link, as the repohost tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the link belongs to (the calling key's: no other is visible).
  issue_id uuid not null, -- The issue linked.
  resource_id uuid not null, -- The external issue or pull request (its local snapshot) linked to.
  kind text not null, -- SOURCE (the issue was imported from it), IMPLEMENTS, REVIEWS or RELATES_TO; repohost.sync applies status rules to SOURCE and IMPLEMENTS links.
  created_by_user_id uuid, -- The person whose key made the link (for an agent's key, the key's owner); null for a plugin key.
  created_by_agent_id uuid, -- The agent whose key made the link; null when no agent's key did.
  created_at timestamp with time zone default now() not null, -- When the link was made.
  constraint external_links_pkey PRIMARY KEY (id),
  constraint external_links_workspace_id_issue_id_resource_id_key UNIQUE (workspace_id, issue_id, resource_id),
  constraint external_links_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint external_links_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint external_links_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint external_links_workspace_id_resource_id_fkey FOREIGN KEY (workspace_id, resource_id) REFERENCES app_public.external_resources(workspace_id, id) ON DELETE CASCADE,
  constraint external_links_kind_check CHECK (kind = ANY (ARRAY['SOURCE'::text, 'IMPLEMENTS'::text, 'REVIEWS'::text, 'RELATES_TO'::text]))
);
CREATE INDEX external_links_resource_idx ON app_public.external_links USING btree (workspace_id, resource_id);
alter table app_public.external_links enable row level security;
alter table app_public.external_links force row level security;
grant delete on app_public.external_links to svc_visitor;
grant select on app_public.external_links to svc_visitor;
grant insert (workspace_id, issue_id, resource_id, kind, created_by_user_id, created_by_agent_id) on app_public.external_links to svc_visitor;
grant update (kind) on app_public.external_links to svc_visitor;
create policy on_visible_issues on app_public.external_links for all to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = external_links.issue_id)))))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.external_links for all to current_user using (true) with check (true);
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE OF kind ON app_public.external_links FOR EACH ROW EXECUTE FUNCTION app_private.tg_external_links__events();

-- An issue or pull request on a repository host as last read (the local snapshot).
create table app_public.external_resources (
  id uuid default gen_random_uuid() not null, -- UUID of the snapshot, as the repohost tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the snapshot belongs to (the calling key's: no other is visible).
  mapping_id uuid, -- The repository mapping it was last read through; null once that mapping is deleted (repohost.sync reads it again once the repository is mapped again).
  provider text default 'github'::text not null, -- The repository host; always github.
  repo_full_name text not null, -- The repository, owner/name.
  type text not null, -- issue or pull_request.
  number integer not null, -- Its number in the repository.
  url text not null, -- Its web address on the host.
  title text, -- Its title as last read; null if the host gave none.
  state text, -- open, closed or merged, as last read from the host; null if the host gave none.
  snapshot jsonb default '{}'::jsonb not null, -- The host's fields we keep: title, state, author, labels, assignees, htmlUrl, updatedAt, closedAt, mergedAt, draft.
  synced_at timestamp with time zone, -- When it was last read from the host (import, link or repohost.sync).
  created_at timestamp with time zone default now() not null, -- When it was first read.
  constraint external_resources_pkey PRIMARY KEY (id),
  constraint external_resources_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint external_resources_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint external_resources_workspace_id_mapping_id_fkey FOREIGN KEY (workspace_id, mapping_id) REFERENCES app_public.connection_mappings(workspace_id, id) ON DELETE SET NULL (mapping_id),
  constraint external_resources_number_check CHECK (number > 0),
  constraint external_resources_state_check CHECK (state = ANY (ARRAY['open'::text, 'closed'::text, 'merged'::text])),
  constraint external_resources_type_check CHECK (type = ANY (ARRAY['issue'::text, 'pull_request'::text]))
);
CREATE INDEX external_resources_mapping_idx ON app_public.external_resources USING btree (workspace_id, mapping_id);
CREATE UNIQUE INDEX external_resources_number_key ON app_public.external_resources USING btree (workspace_id, lower(repo_full_name), number);
alter table app_public.external_resources enable row level security;
alter table app_public.external_resources force row level security;
grant select on app_public.external_resources to svc_visitor;
grant insert (workspace_id, mapping_id, provider, repo_full_name, type, number, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;
grant update (mapping_id, type, url, title, state, snapshot, synced_at) on app_public.external_resources to svc_visitor;
create policy manage_in_workspace on app_public.external_resources for all to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.external_resources for all to current_user using (true) with check (true);
CREATE TRIGGER _800_events AFTER UPDATE ON app_public.external_resources FOR EACH ROW EXECUTE FUNCTION app_private.tg_external_resources__events();

-- @behavior -*
-- People who were members of a workspace and are not now (their name stays on their comments, events and time). Not in GraphQL.
create table app_public.former_members (
  workspace_id uuid not null,
  user_id uuid not null,
  removed_at timestamp with time zone default now() not null,
  constraint former_members_pkey PRIMARY KEY (workspace_id, user_id),
  constraint former_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint former_members_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE
);
alter table app_public.former_members enable row level security;
alter table app_public.former_members force row level security;
grant select on app_public.former_members to svc_visitor;
create policy owner_all on app_public.former_members for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.former_members for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));

-- An outcome the agents pursue (spec 2.15, 3.7): OPEN → PLANNING (plans.decompose) → ACTIVE (plan activated) → ACHIEVED (every step of the active plan DONE); ABANDONED from any live state. Status moves only through app_hidden.goal_move; GOAL_STATUS_CHANGED by trigger.
create table app_public.goals (
  id uuid default gen_random_uuid() not null, -- UUID of the goal, as the goals.* and plans.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the goal belongs to (the calling key's: no other is visible).
  title text not null, -- The outcome wanted, 1 to 500 characters.
  description text, -- More about the goal, at most 100,000 characters; null = none.
  issue_id uuid, -- The issue the goal serves: its steps' runs are opened on it, and the goal follows its visibility; null = none.
  crew_id uuid, -- The crew that pursues the goal (planner, workers, reviewer); null = none.
  max_total_cost_usd numeric, -- Cost cap in US dollars over the runs of all its plans' steps: crossing it blocks the running plan behind a review gate. Null = no cap.
  max_wall_time_minutes integer, -- Time cap in minutes from when the goal became ACTIVE: the first step-run report after it passes blocks the running plan behind a review gate (no sweep checks it meanwhile); once per plan. Null = no cap.
  status text default 'OPEN'::text not null, -- OPEN, PLANNING (a plan is being drafted), ACTIVE (a plan runs), or final: ACHIEVED (every step of the active plan DONE) or ABANDONED.
  started_at timestamp with time zone, -- When the goal first became ACTIVE (a plan ran); null before.
  finished_at timestamp with time zone, -- When the goal was ACHIEVED or ABANDONED; null before.
  abandon_reason text, -- Why it was abandoned (goals.abandon reason, or a rejected review gate); null otherwise.
  archived_at timestamp with time zone, -- When the goal was archived (goals.list then leaves it out unless includeArchived); null = not archived. No tool archives goals yet.
  created_by_user_id uuid, -- The person whose key created it (for an agent's key, the key's owner); null for a plugin key.
  created_by_agent_id uuid, -- The agent whose key created it; null when no agent's key did.
  created_at timestamp with time zone default now() not null, -- When the goal was created.
  updated_at timestamp with time zone default now() not null, -- When the goal last changed.
  constraint goals_pkey PRIMARY KEY (id),
  constraint goals_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint goals_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint goals_workspace_id_created_by_agent_id_fkey FOREIGN KEY (workspace_id, created_by_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint goals_workspace_id_crew_id_fkey FOREIGN KEY (workspace_id, crew_id) REFERENCES app_public.agent_crews(workspace_id, id),
  constraint goals_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint goals_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE SET NULL (issue_id),
  constraint goals_max_total_cost_usd_check CHECK (max_total_cost_usd IS NULL OR max_total_cost_usd >= 0::numeric),
  constraint goals_max_wall_time_minutes_check CHECK (max_wall_time_minutes IS NULL OR max_wall_time_minutes > 0),
  constraint goals_status_check CHECK (status = ANY (ARRAY['OPEN'::text, 'PLANNING'::text, 'ACTIVE'::text, 'ACHIEVED'::text, 'ABANDONED'::text])),
  constraint goals_title_check CHECK (length(title) >= 1 AND length(title) <= 500)
);
CREATE INDEX goals_issue_idx ON app_public.goals USING btree (workspace_id, issue_id) WHERE (issue_id IS NOT NULL);
CREATE INDEX goals_list_idx ON app_public.goals USING btree (workspace_id, created_at DESC, id DESC);
alter table app_public.goals enable row level security;
alter table app_public.goals force row level security;
grant select on app_public.goals to svc_visitor;
grant insert (workspace_id, title, description, issue_id, crew_id, max_total_cost_usd, max_wall_time_minutes, created_by_user_id, created_by_agent_id) on app_public.goals to svc_visitor;
grant update (title, description, status, started_at, finished_at, abandon_reason, archived_at, updated_at) on app_public.goals to svc_visitor;
create policy insert_visible_goals on app_public.goals for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = goals.issue_id)))))));
create policy owner_all on app_public.goals for all to current_user using (true) with check (true);
create policy select_visible_goals on app_public.goals for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL)))))));
create policy update_visible_goals on app_public.goals for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL))))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((issue_id IS NOT NULL) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = goals.issue_id))))) AND ((issue_id IS NULL) OR (EXISTS ( SELECT 1
   FROM app_public.issues d
  WHERE ((d.id = goals.issue_id) AND (d.deleted_at IS NULL)))))));
CREATE TRIGGER _050_live_crew BEFORE INSERT OR UPDATE OF crew_id ON app_public.goals FOR EACH ROW WHEN (new.crew_id IS NOT NULL) EXECUTE FUNCTION app_private.tg_goals__live_crew();
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.goals FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE OF status, title, description ON app_public.goals FOR EACH ROW EXECUTE FUNCTION app_private.tg_goals__events();

-- A long-running objective; projects link to it through initiativeId.
create table app_public.initiatives (
  id uuid default gen_random_uuid() not null, -- UUID of the initiative, as the initiatives.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the initiative belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 200 characters.
  description text, -- What the initiative is about, at most 100,000 characters; null = none.
  archived_at timestamp with time zone, -- When the initiative was archived (soft); null = live.
  created_at timestamp with time zone default now() not null, -- When the initiative was created.
  updated_at timestamp with time zone default now() not null, -- When the initiative last changed.
  constraint initiatives_pkey PRIMARY KEY (id),
  constraint initiatives_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint initiatives_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint initiatives_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);
alter table app_public.initiatives enable row level security;
alter table app_public.initiatives force row level security;
grant select on app_public.initiatives to svc_visitor;
grant insert (workspace_id, name, description) on app_public.initiatives to svc_visitor;
grant update (name, description, archived_at) on app_public.initiatives to svc_visitor;
create policy insert_in_workspace on app_public.initiatives for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (cardinality(( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)) = 0)));
create policy owner_all on app_public.initiatives for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.initiatives for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_initiative_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))));
create policy update_visible on app_public.initiatives for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_initiative_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_initiative_ids() AS narrowed_initiative_ids)::uuid[])))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.initiatives FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_public.initiatives FOR EACH ROW EXECUTE FUNCTION app_private.tg_initiatives__events();

-- Labels on issues.
create table app_public.issue_labels (
  workspace_id uuid not null, -- The workspace the label assignment belongs to (the calling key's: no other is visible).
  issue_id uuid not null, -- The issue labeled.
  label_id uuid not null, -- The label on it.
  created_at timestamp with time zone default now() not null, -- When the label was put on the issue.
  constraint issue_labels_pkey PRIMARY KEY (issue_id, label_id),
  constraint issue_labels_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint issue_labels_workspace_id_label_id_fkey FOREIGN KEY (workspace_id, label_id) REFERENCES app_public.labels(workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX issue_labels_label_idx ON app_public.issue_labels USING btree (workspace_id, label_id, issue_id);
alter table app_public.issue_labels enable row level security;
alter table app_public.issue_labels force row level security;
grant delete on app_public.issue_labels to svc_visitor;
grant select on app_public.issue_labels to svc_visitor;
grant insert (workspace_id, issue_id, label_id) on app_public.issue_labels to svc_visitor;
create policy delete_in_workspace on app_public.issue_labels for delete to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy insert_in_workspace on app_public.issue_labels for insert to svc_visitor with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.issue_labels for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.issue_labels for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_labels.issue_id))))));
CREATE TRIGGER _700_label_ids AFTER INSERT ON app_public.issue_labels REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_private.tg_issue_labels__label_ids();
CREATE TRIGGER _701_label_ids AFTER DELETE ON app_public.issue_labels REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION app_private.tg_issue_labels__label_ids();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE ON app_public.issue_labels FOR EACH ROW EXECUTE FUNCTION app_private.tg_issue_labels__events();

-- Directed links between issues. BLOCKED_BY is stored as the reverse BLOCKS (A BLOCKED_BY B = B BLOCKS A), so each fact has one row; RELATES_TO is symmetric and stored once.
create table app_public.issue_relations (
  id uuid default gen_random_uuid() not null, -- UUID of the relation, as relations.remove names it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the relation belongs to (the calling key's: no other is visible).
  from_issue_id uuid not null, -- The issue the link reads from: fromIssue kind toIssue (ENG-4 BLOCKS ENG-5).
  to_issue_id uuid not null, -- The issue the link points to.
  kind text not null, -- BLOCKS, DUPLICATES or RELATES_TO (symmetric, stored once); a BLOCKED_BY link is stored as the reverse BLOCKS.
  created_by_user_id uuid, -- The person whose key made the link (for an agent's key, the key's owner); null for a plugin key.
  created_by_agent_id uuid, -- The agent whose key made the link; null when no agent's key did.
  created_at timestamp with time zone default now() not null, -- When the link was made.
  constraint issue_relations_pkey PRIMARY KEY (id),
  constraint issue_relations_from_issue_id_to_issue_id_kind_key UNIQUE (from_issue_id, to_issue_id, kind),
  constraint issue_relations_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint issue_relations_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint issue_relations_workspace_id_from_issue_id_fkey FOREIGN KEY (workspace_id, from_issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint issue_relations_workspace_id_to_issue_id_fkey FOREIGN KEY (workspace_id, to_issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint issue_relations_check CHECK (from_issue_id <> to_issue_id),
  constraint issue_relations_kind_check CHECK (kind = ANY (ARRAY['BLOCKS'::text, 'DUPLICATES'::text, 'RELATES_TO'::text]))
);
CREATE INDEX issue_relations_created_idx ON app_public.issue_relations USING btree (workspace_id, created_at, id);
CREATE INDEX issue_relations_from_idx ON app_public.issue_relations USING btree (workspace_id, from_issue_id);
CREATE INDEX issue_relations_to_idx ON app_public.issue_relations USING btree (workspace_id, to_issue_id);
CREATE UNIQUE INDEX issue_relations_relates_once ON app_public.issue_relations USING btree (LEAST(from_issue_id, to_issue_id), GREATEST(from_issue_id, to_issue_id)) WHERE (kind = 'RELATES_TO'::text);
alter table app_public.issue_relations enable row level security;
alter table app_public.issue_relations force row level security;
grant delete on app_public.issue_relations to svc_visitor;
grant select on app_public.issue_relations to svc_visitor;
grant insert (workspace_id, from_issue_id, to_issue_id, kind, created_by_user_id, created_by_agent_id) on app_public.issue_relations to svc_visitor;
create policy delete_between_visible_issues on app_public.issue_relations for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))));
create policy insert_between_visible_issues on app_public.issue_relations for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))));
create policy owner_all on app_public.issue_relations for all to current_user using (true) with check (true);
create policy select_between_visible_issues on app_public.issue_relations for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR ((EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.from_issue_id))) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_relations.to_issue_id)))))));
CREATE TRIGGER _800_events AFTER INSERT OR DELETE ON app_public.issue_relations FOR EACH ROW EXECUTE FUNCTION app_private.tg_issue_relations__events();

-- Who watches an issue: an agent (agent-linked keys) or a user.
create table app_public.issue_watchers (
  id uuid default gen_random_uuid() not null, -- UUID of the watch.
  workspace_id uuid not null, -- The workspace the watch belongs to (the calling key's: no other is visible).
  issue_id uuid not null, -- The issue watched.
  user_id uuid, -- The person watching (a person's key); null when an agent watches.
  agent_id uuid, -- The agent watching (an agent's key); null when a person watches.
  created_at timestamp with time zone default now() not null, -- When the watch began.
  constraint issue_watchers_pkey PRIMARY KEY (id),
  constraint issue_watchers_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint issue_watchers_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint issue_watchers_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint issue_watchers_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint issue_watchers_check CHECK ((user_id IS NULL) <> (agent_id IS NULL))
);
CREATE INDEX issue_watchers_agent_idx ON app_public.issue_watchers USING btree (workspace_id, agent_id);
CREATE INDEX issue_watchers_user_idx ON app_public.issue_watchers USING btree (workspace_id, user_id);
CREATE UNIQUE INDEX issue_watchers_agent_key ON app_public.issue_watchers USING btree (issue_id, agent_id) WHERE (agent_id IS NOT NULL);
CREATE UNIQUE INDEX issue_watchers_user_key ON app_public.issue_watchers USING btree (issue_id, user_id) WHERE (user_id IS NOT NULL);
alter table app_public.issue_watchers enable row level security;
alter table app_public.issue_watchers force row level security;
grant delete on app_public.issue_watchers to svc_visitor;
grant select on app_public.issue_watchers to svc_visitor;
grant insert (workspace_id, issue_id, user_id, agent_id) on app_public.issue_watchers to svc_visitor;
create policy delete_own_watch on app_public.issue_watchers for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
create policy insert_own_watch on app_public.issue_watchers for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id))) AND ((agent_id = ( SELECT app_hidden.current_agent_id() AS current_agent_id)) OR ((agent_id IS NULL) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))))));
create policy owner_all on app_public.issue_watchers for all to current_user using (true) with check (true);
create policy select_on_visible_issues on app_public.issue_watchers for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = issue_watchers.issue_id)))));

-- A unit of work. key = <workspace key>-<number>. Deletion is soft (deletedAt).
create table app_public.issues (
  id uuid default gen_random_uuid() not null, -- UUID of the issue, as the MCP tools name it (they also take its key; id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the issue belongs to (the calling key's: no other is visible).
  number integer not null, -- The issue's number in the workspace, from 1.
  key text not null, -- Human-readable handle, <workspace key>-<number> (ENG-12); the MCP tools take it in place of the issue's id.
  title text not null, -- One line, 1 to 500 characters.
  description text, -- The issue's text, at most 100,000 characters; null = none.
  priority text default 'NONE'::text not null, -- NONE (default), LOW, MEDIUM, HIGH or URGENT; priorityRank orders them by urgency.
  status_id uuid not null, -- The issue's workflow status (its category decides whether it is open, started or done).
  project_id uuid, -- The project the issue is in; null = none.
  parent_id uuid,
  assigned_agent_id uuid, -- The agent assigned to the issue; null = none (never assigned, unassigned, or its agent archived).
  claimed_by_id uuid, -- Human claim set by issues.claim; soft-expires at claimExpiresAt.
  claim_expires_at timestamp with time zone, -- When claimedById's claim lapses (another person may then claim or release it); null = not claimed.
  queued boolean default false not null, -- True = in the dispatch pool; the dispatcher considers only queued, unassigned issues.
  due_date date, -- The day the issue is due (a date); null = none.
  estimate numeric, -- Size estimate, 0 to 10,000, in a unit the team chooses (the service defines none); a decimal string in GraphQL. Null = none.
  sla_minutes integer, -- Minutes a queued issue may stay open, counted from when it was last queued; past it ISSUE_SLA_BREACH fires. Null = no SLA.
  expected_output text, -- What finishing the issue should produce, told to the agent that works on it; null = not said.
  verification_checklist jsonb default '[]'::jsonb not null, -- Completion contract: [{id, label, done}] that an EXECUTE run must report done.
  artifact_required boolean default false not null, -- When true, an EXECUTE run completes only with at least one produced artifact (an attachment).
  created_by_user_id uuid, -- The person whose key created it (for an agent's key, the key's owner; for a plugin key, the first member).
  created_by_agent_id uuid, -- The agent whose key created it; null when no agent's key did.
  started_at timestamp with time zone, -- When the issue first reached an IN_PROGRESS, IN_REVIEW or DONE status; null before.
  completed_at timestamp with time zone, -- When the issue reached a DONE or CANCELED status; null while open (cleared when reopened).
  created_at timestamp with time zone default now() not null, -- When the issue was created.
  updated_at timestamp with time zone default now() not null, -- When the issue last changed.
  deleted_at timestamp with time zone, -- When the issue was deleted (soft: hidden from reads, restorable with issues.restore); null = live.
  cycle_id uuid, -- The cycle (sprint) the issue is planned in.
  search tsvector generated always as (app_hidden.search_document(workspace_id, title, description)) stored, -- @behavior -* Full-text search document: title (weight A) and description (weight B), simple configuration, each lexeme keyed with the workspace's tag (app_hidden.search_document).
  label_ids uuid[] default '{}'::uuid[] not null, -- The ids of the issue's labels, in the order they were added (kept from issue_labels by trigger _700_label_ids; read-only copy).
  queued_at timestamp with time zone, -- When the issue last entered the dispatch pool (queued became true); null when not queued. The dispatcher hands out the most urgent, then the longest waiting.
  priority_rank smallint generated always as (
CASE priority
    WHEN 'URGENT'::text THEN 0
    WHEN 'HIGH'::text THEN 1
    WHEN 'MEDIUM'::text THEN 2
    WHEN 'LOW'::text THEN 3
    ELSE 4
END) stored not null, -- The priority as a rank, 0 URGENT, 1 HIGH, 2 MEDIUM, 3 LOW, 4 NONE: order by it (PRIORITY_RANK_ASC) for the most urgent first (PRIORITY orders the names alphabetically).
  constraint issues_pkey PRIMARY KEY (id),
  constraint issues_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint issues_workspace_id_number_key UNIQUE (workspace_id, number),
  constraint issues_claimed_by_id_fkey FOREIGN KEY (claimed_by_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint issues_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint issues_workspace_id_assigned_agent_id_fkey FOREIGN KEY (workspace_id, assigned_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint issues_workspace_id_created_by_agent_id_fkey FOREIGN KEY (workspace_id, created_by_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint issues_workspace_id_cycle_id_fkey FOREIGN KEY (workspace_id, cycle_id) REFERENCES app_public.cycles(workspace_id, id),
  constraint issues_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint issues_workspace_id_parent_id_fkey FOREIGN KEY (workspace_id, parent_id) REFERENCES app_public.issues(workspace_id, id),
  constraint issues_workspace_id_project_id_fkey FOREIGN KEY (workspace_id, project_id) REFERENCES app_public.projects(workspace_id, id),
  constraint issues_workspace_id_status_id_fkey FOREIGN KEY (workspace_id, status_id) REFERENCES app_public.statuses(workspace_id, id),
  constraint issues_check CHECK (parent_id <> id),
  constraint issues_estimate_check CHECK (estimate >= 0::numeric),
  constraint issues_priority_check CHECK (priority = ANY (ARRAY['NONE'::text, 'LOW'::text, 'MEDIUM'::text, 'HIGH'::text, 'URGENT'::text])),
  constraint issues_sla_minutes_check CHECK (sla_minutes > 0),
  constraint issues_title_check CHECK (length(title) >= 1 AND length(title) <= 500),
  constraint issues_verification_checklist_check CHECK (jsonb_typeof(verification_checklist) = 'array'::text)
);
CREATE INDEX issues_agent_idx ON app_public.issues USING btree (workspace_id, assigned_agent_id, number DESC) WHERE (deleted_at IS NULL);
CREATE INDEX issues_cycle_idx ON app_public.issues USING btree (workspace_id, cycle_id, number DESC) WHERE (deleted_at IS NULL);
CREATE INDEX issues_key_idx ON app_public.issues USING btree (workspace_id, key);
CREATE INDEX issues_parent_idx ON app_public.issues USING btree (workspace_id, parent_id) WHERE (parent_id IS NOT NULL);
CREATE INDEX issues_priority_idx ON app_public.issues USING btree (workspace_id, priority, number DESC) WHERE (deleted_at IS NULL);
CREATE INDEX issues_project_idx ON app_public.issues USING btree (workspace_id, project_id, number DESC) WHERE (deleted_at IS NULL);
CREATE INDEX issues_queued_idx ON app_public.issues USING btree (workspace_id, number DESC) WHERE (queued AND (deleted_at IS NULL));
CREATE INDEX issues_search_gin ON app_public.issues USING gin (search) WITH (gin_pending_list_limit='256');
CREATE INDEX issues_status_idx ON app_public.issues USING btree (workspace_id, status_id, number DESC) WHERE (deleted_at IS NULL);
alter table app_public.issues enable row level security;
alter table app_public.issues force row level security;
grant select on app_public.issues to svc_visitor;
grant insert (id, workspace_id, title, description, priority, status_id, project_id, parent_id, due_date, estimate, sla_minutes, expected_output, verification_checklist, artifact_required, created_by_user_id, created_by_agent_id, cycle_id) on app_public.issues to svc_visitor;
grant update (title, description, priority, status_id, project_id, parent_id, assigned_agent_id, claimed_by_id, claim_expires_at, queued, due_date, estimate, sla_minutes, expected_output, verification_checklist, artifact_required, started_at, completed_at, deleted_at, cycle_id) on app_public.issues to svc_visitor;
create policy insert_in_workspace on app_public.issues for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (project_id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])) OR (cardinality(( SELECT app_hidden.narrowed_label_ids() AS narrowed_label_ids)) > 0))));
create policy owner_all on app_public.issues for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.issues for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id))));
create policy update_in_workspace on app_public.issues for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR app_hidden.issue_passes_narrowing(id, project_id)))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _050_run_mode_gate BEFORE UPDATE ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__run_mode_gate();
CREATE TRIGGER _060_live_parent BEFORE INSERT OR UPDATE OF parent_id ON app_public.issues FOR EACH ROW WHEN (new.parent_id IS NOT NULL) EXECUTE FUNCTION app_private.tg_issues__live_parent();
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at('search', 'priority_rank');
CREATE TRIGGER _140_keep_finished_in_ended_cycle BEFORE UPDATE OF cycle_id ON app_public.issues FOR EACH ROW WHEN (old.cycle_id IS NOT NULL AND old.cycle_id IS DISTINCT FROM new.cycle_id AND old.completed_at IS NOT NULL) EXECUTE FUNCTION app_private.tg_issues__keep_finished_in_ended_cycle();
CREATE TRIGGER _150_status_timestamps BEFORE INSERT OR UPDATE OF status_id ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__status_timestamps();
CREATE TRIGGER _160_queued_at BEFORE INSERT OR UPDATE OF queued ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__queued_at();
CREATE TRIGGER _200_assign_number BEFORE INSERT ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__assign_number();
CREATE TRIGGER _210_plugin_creator BEFORE INSERT ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__plugin_creator();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__events();
CREATE TRIGGER _810_detach_children AFTER UPDATE OF deleted_at ON app_public.issues FOR EACH ROW WHEN (old.deleted_at IS NULL AND new.deleted_at IS NOT NULL) EXECUTE FUNCTION app_private.tg_issues__detach_children();
CREATE TRIGGER _811_restore_links AFTER UPDATE OF deleted_at ON app_public.issues FOR EACH ROW WHEN (old.deleted_at IS NOT NULL AND new.deleted_at IS NULL) EXECUTE FUNCTION app_private.tg_issues__restore_links();
CREATE TRIGGER _812_stop_timers AFTER UPDATE OF deleted_at ON app_public.issues FOR EACH ROW WHEN (old.deleted_at IS NULL AND new.deleted_at IS NOT NULL) EXECUTE FUNCTION app_private.tg_issues__stop_timers();
CREATE TRIGGER _820_out_of_agent_view AFTER UPDATE OF project_id, label_ids ON app_public.issues FOR EACH ROW WHEN (new.assigned_agent_id IS NOT NULL AND new.deleted_at IS NULL AND (new.project_id IS DISTINCT FROM old.project_id OR new.label_ids IS DISTINCT FROM old.label_ids)) EXECUTE FUNCTION app_private.tg_issues__out_of_agent_view();
CREATE TRIGGER _830_run_activity AFTER UPDATE ON app_public.issues FOR EACH ROW WHEN (app_hidden.current_agent_id() IS NOT NULL) EXECUTE FUNCTION app_private.tg_issues__run_activity();
CREATE TRIGGER _850_wake_dispatcher AFTER INSERT OR UPDATE OF queued, assigned_agent_id, status_id, deleted_at ON app_public.issues FOR EACH ROW EXECUTE FUNCTION app_private.tg_issues__wake_dispatcher();

-- Labels that can be put on issues; also a narrowing dimension for keys.
create table app_public.labels (
  id uuid default gen_random_uuid() not null, -- UUID of the label, as the MCP tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the label belongs to (the calling key's: no other is visible).
  name text not null, -- The label's name, 1 to 100 characters, unique in the workspace regardless of case.
  color text default '#64748b'::text not null, -- Color as #RRGGBB (default #64748b).
  description text, -- What the label means, at most 1,000 characters; null = none.
  created_at timestamp with time zone default now() not null, -- When the label was created.
  updated_at timestamp with time zone default now() not null, -- When the label last changed.
  constraint labels_pkey PRIMARY KEY (id),
  constraint labels_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint labels_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint labels_name_check CHECK (length(name) >= 1 AND length(name) <= 100)
);
CREATE UNIQUE INDEX labels_workspace_name_key ON app_public.labels USING btree (workspace_id, lower(name));
alter table app_public.labels enable row level security;
alter table app_public.labels force row level security;
grant delete on app_public.labels to svc_visitor;
grant select on app_public.labels to svc_visitor;
grant insert (workspace_id, name, color, description) on app_public.labels to svc_visitor;
grant update (name, color, description) on app_public.labels to svc_visitor;
create policy delete_in_workspace on app_public.labels for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted)));
create policy insert_in_workspace on app_public.labels for insert to svc_visitor with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy owner_all on app_public.labels for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.labels for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_in_workspace on app_public.labels for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.labels FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.labels FOR EACH ROW EXECUTE FUNCTION app_private.tg_labels__events();

-- A user's role in a workspace: OWNER, ADMIN or MEMBER.
create table app_public.memberships (
  id uuid default gen_random_uuid() not null, -- UUID of the membership.
  workspace_id uuid not null, -- The workspace (the calling key's: no other is visible).
  user_id uuid not null, -- The member.
  role text default 'MEMBER'::text not null, -- OWNER, ADMIN or MEMBER: OWNER and ADMIN may use the administrative mutations; only an OWNER may grant or take away OWNER.
  created_at timestamp with time zone default now() not null, -- When the person joined the workspace.
  constraint memberships_pkey PRIMARY KEY (id),
  constraint memberships_workspace_id_user_id_key UNIQUE (workspace_id, user_id),
  constraint memberships_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint memberships_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint memberships_role_check CHECK (role = ANY (ARRAY['OWNER'::text, 'ADMIN'::text, 'MEMBER'::text]))
);
CREATE INDEX memberships_user_idx ON app_public.memberships USING btree (user_id);
alter table app_public.memberships enable row level security;
alter table app_public.memberships force row level security;
grant select on app_public.memberships to svc_visitor;
create policy owner_all on app_public.memberships for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.memberships for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _800_events AFTER INSERT OR DELETE OR UPDATE ON app_public.memberships FOR EACH ROW EXECUTE FUNCTION app_private.tg_memberships__events();

-- A user's private markdown notes and daily journal in a workspace. Only the owner sees them.
create table app_public.notes (
  id uuid default gen_random_uuid() not null, -- UUID of the note, as the notes.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the note belongs to (the calling key's: no other is visible).
  user_id uuid not null, -- The note's owner, the only one who sees it.
  title text, -- Title, at most 500 characters; null = none.
  body text default ''::text not null, -- The note's Markdown text, at most 200,000 characters (an empty string when there is none).
  pinned boolean default false not null, -- Whether the owner pinned the note.
  kind text default 'NOTE'::text not null, -- NOTE (default) or JOURNAL (one day's journal entry, journalDate).
  journal_date date, -- JOURNAL notes: the day the entry is for; null for a NOTE.
  archived_at timestamp with time zone, -- When the note was archived (notes.archive; notesRestore undoes it); null = live.
  created_at timestamp with time zone default now() not null, -- When the note was created.
  updated_at timestamp with time zone default now() not null, -- When the note last changed.
  constraint notes_pkey PRIMARY KEY (id),
  constraint notes_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint notes_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint notes_body_check CHECK (length(body) <= 200000),
  constraint notes_check CHECK (kind <> 'JOURNAL'::text OR journal_date IS NOT NULL),
  constraint notes_kind_check CHECK (kind = ANY (ARRAY['NOTE'::text, 'JOURNAL'::text])),
  constraint notes_title_check CHECK (length(title) <= 500)
);
CREATE INDEX notes_owner_idx ON app_public.notes USING btree (workspace_id, user_id, updated_at DESC);
CREATE UNIQUE INDEX notes_one_journal_per_day ON app_public.notes USING btree (workspace_id, user_id, journal_date) WHERE (kind = 'JOURNAL'::text);
alter table app_public.notes enable row level security;
alter table app_public.notes force row level security;
grant select on app_public.notes to svc_visitor;
grant insert (workspace_id, user_id, title, body, pinned, kind, journal_date) on app_public.notes to svc_visitor;
grant update (title, body, pinned, archived_at) on app_public.notes to svc_visitor;
create policy manage_own_notes on app_public.notes for all to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
create policy owner_all on app_public.notes for all to current_user using (true) with check (true);
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.notes FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- Whether a user is notified of an event kind, and how. workspace_id NULL = the user's global default for every workspace; a workspace row wins over it; no row = enabled.
create table app_public.notification_preferences (
  id uuid default gen_random_uuid() not null, -- UUID of the preference.
  workspace_id uuid, -- NULL for a global (cross-workspace) row.
  user_id uuid not null, -- The person the preference is for (only they see it).
  event_kind text not null, -- The event kind it is about, such as ISSUE_ASSIGNED.
  enabled boolean default true not null, -- Whether the person is notified of that event kind (with no row: yes).
  delivery text default 'INBOX_ONLY'::text not null, -- INBOX_ONLY or INBOX_AND_DIGEST; today both behave the same (spec 4.13).
  created_at timestamp with time zone default now() not null, -- When the preference was first set.
  updated_at timestamp with time zone default now() not null, -- When the preference last changed.
  constraint notification_preferences_pkey PRIMARY KEY (id),
  constraint notification_preferences_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint notification_preferences_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint notification_preferences_delivery_check CHECK (delivery = ANY (ARRAY['INBOX_ONLY'::text, 'INBOX_AND_DIGEST'::text]))
);
CREATE UNIQUE INDEX notification_preferences_global_key ON app_public.notification_preferences USING btree (user_id, event_kind) WHERE (workspace_id IS NULL);
CREATE UNIQUE INDEX notification_preferences_workspace_key ON app_public.notification_preferences USING btree (workspace_id, user_id, event_kind) WHERE (workspace_id IS NOT NULL);
alter table app_public.notification_preferences enable row level security;
alter table app_public.notification_preferences force row level security;
grant delete on app_public.notification_preferences to svc_visitor;
grant select on app_public.notification_preferences to svc_visitor;
grant insert (workspace_id, user_id, event_kind, enabled, delivery) on app_public.notification_preferences to svc_visitor;
grant update (enabled, delivery) on app_public.notification_preferences to svc_visitor;
create policy delete_own_preferences on app_public.notification_preferences for delete to svc_visitor using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
create policy insert_own_preferences on app_public.notification_preferences for insert to svc_visitor with check (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
create policy owner_all on app_public.notification_preferences for all to current_user using (true) with check (true);
create policy select_own_preferences on app_public.notification_preferences for select to svc_visitor using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))));
create policy update_own_preferences on app_public.notification_preferences for update to svc_visitor using (((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((workspace_id IS NULL) OR (workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))))) with check ((user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.notification_preferences FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- A user's pinned items. MCP pins.* handle issue pins; other target types are in-app only.
create table app_public.pins (
  id uuid default gen_random_uuid() not null, -- UUID of the pin, as pinsReorder names it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the pin belongs to (the calling key's: no other is visible).
  user_id uuid not null, -- The person who pinned it (a pin is theirs alone).
  target_type text not null, -- What is pinned: ISSUE (MCP pins.*), or PROJECT, INITIATIVE, SAVED_VIEW, CYCLE or AGENT (in-app pinsAdd).
  target_id uuid not null, -- The id of the pinned record (targetType says which kind).
  position integer default 0 not null, -- Order among the person's pins, 0 first.
  created_at timestamp with time zone default now() not null, -- When it was pinned.
  constraint pins_pkey PRIMARY KEY (id),
  constraint pins_workspace_id_user_id_target_type_target_id_key UNIQUE (workspace_id, user_id, target_type, target_id),
  constraint pins_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint pins_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint pins_target_type_check CHECK (target_type = ANY (ARRAY['ISSUE'::text, 'PROJECT'::text, 'INITIATIVE'::text, 'SAVED_VIEW'::text, 'CYCLE'::text, 'AGENT'::text]))
);
alter table app_public.pins enable row level security;
alter table app_public.pins force row level security;
grant delete on app_public.pins to svc_visitor;
grant select on app_public.pins to svc_visitor;
grant insert (workspace_id, user_id, target_type, target_id, position) on app_public.pins to svc_visitor;
grant update (position) on app_public.pins to svc_visitor;
create policy manage_own_pins on app_public.pins for all to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND ((target_type <> ALL (ARRAY['ISSUE'::text, 'PROJECT'::text, 'INITIATIVE'::text])) OR ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed) OR ((target_type = 'ISSUE'::text) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = pins.target_id)))) OR ((target_type = 'PROJECT'::text) AND (EXISTS ( SELECT 1
   FROM app_public.projects p
  WHERE (p.id = pins.target_id)))) OR ((target_type = 'INITIATIVE'::text) AND (EXISTS ( SELECT 1
   FROM app_public.initiatives n
  WHERE (n.id = pins.target_id))))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
create policy owner_all on app_public.pins for all to current_user using (true) with check (true);

-- A body of work grouping issues. Archiving is soft (archivedAt).
create table app_public.projects (
  id uuid default gen_random_uuid() not null, -- UUID of the project, as the MCP tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the project belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 200 characters.
  description text, -- What the project is about, at most 100,000 characters; null = none.
  initiative_id uuid,
  archived_at timestamp with time zone, -- When the project was archived (soft: new issues cannot use it; its issues keep it); null = live.
  created_at timestamp with time zone default now() not null, -- When the project was created.
  updated_at timestamp with time zone default now() not null, -- When the project last changed.
  constraint projects_pkey PRIMARY KEY (id),
  constraint projects_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint projects_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint projects_workspace_id_initiative_id_fkey FOREIGN KEY (workspace_id, initiative_id) REFERENCES app_public.initiatives(workspace_id, id) ON DELETE SET NULL (initiative_id),
  constraint projects_name_check CHECK (length(name) >= 1 AND length(name) <= 200)
);
CREATE INDEX projects_initiative_idx ON app_public.projects USING btree (workspace_id, initiative_id);
alter table app_public.projects enable row level security;
alter table app_public.projects force row level security;
grant select on app_public.projects to svc_visitor;
grant insert (workspace_id, name, description, initiative_id) on app_public.projects to svc_visitor;
grant update (name, description, initiative_id, archived_at) on app_public.projects to svc_visitor;
create policy insert_in_workspace on app_public.projects for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (cardinality(( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)) = 0)));
create policy owner_all on app_public.projects for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.projects for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))));
create policy update_visible on app_public.projects for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ((( SELECT cardinality(app_hidden.narrowed_project_ids()) AS cardinality) = 0) OR (id = ANY (( SELECT app_hidden.narrowed_project_ids() AS narrowed_project_ids)::uuid[])))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.projects FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_public.projects FOR EACH ROW EXECUTE FUNCTION app_private.tg_projects__events();

-- An approval checkpoint of the loop: opened when a step is BLOCKED (it holds the step) or a budget is breached (it holds the plan), or by hand. PENDING → APPROVED (continue) | REJECTED (abandon the goal) | CANCELED (its plan ended first).
create table app_public.review_gates (
  id uuid default gen_random_uuid() not null, -- UUID of the gate, as the reviewGates.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the gate belongs to (the calling key's: no other is visible).
  plan_id uuid not null, -- The plan the gate holds (or whose step it holds).
  step_id uuid, -- The step the gate holds (BLOCKED until resolved); null when it holds the whole plan.
  reason text not null, -- Why it opened: STEP_BLOCKED (a step failed review too often or was blocked), BUDGET_COST or BUDGET_WALL_TIME (the goal's cap was crossed), MANUAL (reviewGates.open).
  status text default 'PENDING'::text not null, -- PENDING, or final: APPROVED (the step or plan continues), REJECTED (the goal is abandoned) or CANCELED (its plan ended first).
  title text not null, -- What is to be reviewed (given to reviewGates.open, or written by the loop).
  details jsonb default '{}'::jsonb not null, -- Facts behind it, by reason: {feedback, retryCount}, {note}, or {totalCostUsd, maxTotalCostUsd, maxWallTimeMinutes, startedAt, runId}.
  resolution_note text, -- The note given when it was resolved; null = none.
  opened_by_user_id uuid, -- The person whose key opened it, by hand or by a call that tripped it (for an agent's key, the key's owner); null when no person's key did.
  opened_by_agent_id uuid, -- The agent whose key opened it; null when no agent's key did.
  resolved_by_user_id uuid, -- The person whose key resolved or canceled it (for an agent's key, the key's owner); null while PENDING or when no person's key did.
  resolved_at timestamp with time zone, -- When it left PENDING; null while pending.
  created_at timestamp with time zone default now() not null, -- When the gate opened.
  updated_at timestamp with time zone default now() not null, -- When the gate last changed.
  constraint review_gates_pkey PRIMARY KEY (id),
  constraint review_gates_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint review_gates_opened_by_user_id_fkey FOREIGN KEY (opened_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint review_gates_resolved_by_user_id_fkey FOREIGN KEY (resolved_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint review_gates_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint review_gates_workspace_id_opened_by_agent_id_fkey FOREIGN KEY (workspace_id, opened_by_agent_id) REFERENCES app_public.agents(workspace_id, id),
  constraint review_gates_workspace_id_plan_id_fkey FOREIGN KEY (workspace_id, plan_id) REFERENCES app_public.execution_plans(workspace_id, id) ON DELETE CASCADE,
  constraint review_gates_workspace_id_step_id_fkey FOREIGN KEY (workspace_id, step_id) REFERENCES app_public.execution_steps(workspace_id, id) ON DELETE CASCADE,
  constraint review_gates_reason_check CHECK (reason = ANY (ARRAY['STEP_BLOCKED'::text, 'BUDGET_COST'::text, 'BUDGET_WALL_TIME'::text, 'MANUAL'::text])),
  constraint review_gates_status_check CHECK (status = ANY (ARRAY['PENDING'::text, 'APPROVED'::text, 'REJECTED'::text, 'CANCELED'::text]))
);
CREATE INDEX review_gates_list_idx ON app_public.review_gates USING btree (workspace_id, created_at DESC, id DESC);
CREATE INDEX review_gates_plan_idx ON app_public.review_gates USING btree (workspace_id, plan_id, status);
alter table app_public.review_gates enable row level security;
alter table app_public.review_gates force row level security;
grant select on app_public.review_gates to svc_visitor;
grant insert (workspace_id, plan_id, step_id, reason, title, details, opened_by_user_id, opened_by_agent_id) on app_public.review_gates to svc_visitor;
grant update (status, resolution_note, resolved_by_user_id, resolved_at, updated_at) on app_public.review_gates to svc_visitor;
create policy insert_visible_gates on app_public.review_gates for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = review_gates.plan_id)))));
create policy owner_all on app_public.review_gates for all to current_user using (true) with check (true);
create policy select_visible_gates on app_public.review_gates for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = review_gates.plan_id)))));
create policy update_visible_gates on app_public.review_gates for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = review_gates.plan_id))))) with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (EXISTS ( SELECT 1
   FROM app_public.execution_plans p
  WHERE (p.id = review_gates.plan_id)))));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.review_gates FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE OF status ON app_public.review_gates FOR EACH ROW EXECUTE FUNCTION app_private.tg_review_gates__events();

-- A machine or service that runs agents (spec 2.10). Registered by ADMIN keys; agents attach with agents.heartbeat {runtimeId}.
create table app_public.runtimes (
  id uuid default gen_random_uuid() not null, -- UUID of the runtime, as the runtimes.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the runtime belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 200 characters.
  kind text not null, -- LOCAL_DAEMON, REMOTE_HTTP or CLOUD.
  endpoint text,
  providers_available text[] default '{}'::text[] not null, -- The agent clients it can run: CUSTOM, CLAUDE, CODEX, HERMES.
  info jsonb default '{}'::jsonb not null, -- Sanitized metadata: only runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot are kept.
  config jsonb default '{}'::jsonb not null, -- Adapter configuration (runtimes.configure); keys are whitelisted per adapter.
  owner_id uuid, -- The user of the key that registered it; NULL when an AGENT key registered it.
  heartbeat_at timestamp with time zone, -- Its last runtimes.heartbeat (or re-registration); null = none yet.
  archived_at timestamp with time zone, -- When the runtime was archived; null = live (no tool archives one today; runtimes.register with its runtimeId restores one).
  created_at timestamp with time zone default now() not null, -- When the runtime was registered.
  updated_at timestamp with time zone default now() not null, -- When the runtime last changed.
  constraint runtimes_pkey PRIMARY KEY (id),
  constraint runtimes_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint runtimes_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint runtimes_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint runtimes_config_check CHECK (jsonb_typeof(config) = 'object'::text),
  constraint runtimes_endpoint_check CHECK (endpoint ~ '^https?://'::text AND length(endpoint) <= 2048),
  constraint runtimes_info_check CHECK (jsonb_typeof(info) = 'object'::text),
  constraint runtimes_kind_check CHECK (kind = ANY (ARRAY['LOCAL_DAEMON'::text, 'REMOTE_HTTP'::text, 'CLOUD'::text])),
  constraint runtimes_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint runtimes_providers_available_check CHECK (providers_available <@ ARRAY['CUSTOM'::text, 'CLAUDE'::text, 'CODEX'::text, 'HERMES'::text])
);
CREATE INDEX runtimes_list_idx ON app_public.runtimes USING btree (workspace_id, created_at DESC, id DESC);
alter table app_public.runtimes enable row level security;
alter table app_public.runtimes force row level security;
grant select on app_public.runtimes to svc_visitor;
grant insert (workspace_id, name, kind, endpoint, providers_available, info, config, owner_id) on app_public.runtimes to svc_visitor;
grant update (name, kind, endpoint, providers_available, info, config, heartbeat_at, archived_at) on app_public.runtimes to svc_visitor;
create policy insert_with_admin_scope on app_public.runtimes for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope)));
create policy owner_all on app_public.runtimes for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.runtimes for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_with_admin_scope on app_public.runtimes for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.has_scope('ADMIN'::text) AS has_scope))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.runtimes FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- Workflow statuses of a workspace, ordered by position. A new workspace gets Backlog, Todo (default), In Progress, In Review, Done, Canceled.
create table app_public.statuses (
  id uuid default gen_random_uuid() not null, -- UUID of the status (issues.transition takes it; id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the status belongs to (the calling key's: no other is visible).
  name text not null, -- Display name, 1 to 100 characters, unique in the workspace regardless of case.
  category text not null, -- What the status means to the service: BACKLOG, TODO, IN_PROGRESS, IN_REVIEW, DONE or CANCELED (DONE and CANCELED close an issue).
  color text default '#94a3b8'::text not null, -- Color as #RRGGBB (default #94a3b8).
  position integer default 0 not null, -- Order on the board, 0 first.
  is_default boolean default false not null, -- The status a new issue gets when none is given; exactly one per workspace.
  created_at timestamp with time zone default now() not null, -- When the status was created.
  constraint statuses_pkey PRIMARY KEY (id),
  constraint statuses_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint statuses_workspace_id_name_key UNIQUE (workspace_id, name),
  constraint statuses_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint statuses_category_check CHECK (category = ANY (ARRAY['BACKLOG'::text, 'TODO'::text, 'IN_PROGRESS'::text, 'IN_REVIEW'::text, 'DONE'::text, 'CANCELED'::text])),
  constraint statuses_name_check CHECK (length(name) >= 1 AND length(name) <= 100)
);
CREATE UNIQUE INDEX statuses_one_default ON app_public.statuses USING btree (workspace_id) WHERE is_default;
CREATE UNIQUE INDEX statuses_workspace_id_lower_name_key ON app_public.statuses USING btree (workspace_id, lower(name));
alter table app_public.statuses enable row level security;
alter table app_public.statuses force row level security;
grant delete on app_public.statuses to svc_visitor;
grant select on app_public.statuses to svc_visitor;
grant insert (workspace_id, name, category, color, position, is_default) on app_public.statuses to svc_visitor;
grant update (name, category, color, position, is_default) on app_public.statuses to svc_visitor;
create policy delete_as_workspace_admin on app_public.statuses for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
create policy insert_as_workspace_admin on app_public.statuses for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin)));
create policy owner_all on app_public.statuses for all to current_user using (true) with check (true);
create policy select_in_workspace on app_public.statuses for select to svc_visitor using ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
create policy update_as_workspace_admin on app_public.statuses for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin))) with check ((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));

-- Time spent on issues: a running timer (duration_min null) or a finished/logged entry. One running timer per user per workspace.
create table app_public.time_entries (
  id uuid default gen_random_uuid() not null, -- UUID of the entry, as the time.* tools name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the entry belongs to (the calling key's: no other is visible).
  issue_id uuid not null,
  user_id uuid not null, -- The person whose time it is.
  started_at timestamp with time zone, -- When the timer started, or the logged work began.
  ended_at timestamp with time zone, -- When the work ended; null while the timer runs.
  duration_min integer, -- Whole minutes spent; null while the timer runs.
  note text, -- What the time was spent on; null = none.
  created_at timestamp with time zone default now() not null, -- When the entry was created.
  constraint time_entries_pkey PRIMARY KEY (id),
  constraint time_entries_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint time_entries_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint time_entries_workspace_id_issue_id_fkey FOREIGN KEY (workspace_id, issue_id) REFERENCES app_public.issues(workspace_id, id) ON DELETE CASCADE,
  constraint time_entries_check CHECK (duration_min IS NOT NULL OR started_at IS NOT NULL AND ended_at IS NULL),
  constraint time_entries_duration_min_check CHECK (duration_min >= 0)
);
CREATE INDEX time_entries_issue_idx ON app_public.time_entries USING btree (workspace_id, issue_id);
CREATE INDEX time_entries_user_idx ON app_public.time_entries USING btree (workspace_id, user_id, created_at DESC);
CREATE UNIQUE INDEX time_entries_one_running ON app_public.time_entries USING btree (workspace_id, user_id) WHERE (duration_min IS NULL);
alter table app_public.time_entries enable row level security;
alter table app_public.time_entries force row level security;
grant delete on app_public.time_entries to svc_visitor;
grant select on app_public.time_entries to svc_visitor;
grant insert (workspace_id, issue_id, user_id, started_at, ended_at, duration_min, note) on app_public.time_entries to svc_visitor;
grant update (started_at, ended_at, duration_min, note) on app_public.time_entries to svc_visitor;
create policy delete_own_time on app_public.time_entries for delete to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
create policy insert_own_time on app_public.time_entries for insert to svc_visitor with check (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id)) AND (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id)))));
create policy owner_all on app_public.time_entries for all to current_user using (true) with check (true);
create policy select_on_visible_issues on app_public.time_entries for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (( SELECT app_hidden.issues_unrestricted() AS issues_unrestricted) OR (EXISTS ( SELECT 1
   FROM app_public.issues i
  WHERE (i.id = time_entries.issue_id))))));
create policy select_own_time on app_public.time_entries for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));
create policy update_own_time on app_public.time_entries for update to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND (user_id = ( SELECT app_hidden.current_user_id() AS current_user_id))));

-- A person. Users are global; they reach a workspace through a membership.
create table app_public.users (
  id uuid default gen_random_uuid() not null, -- UUID of the person (userId elsewhere).
  email text not null, -- The person's email address, unique regardless of case.
  name text default ''::text not null, -- Display name (the part of the email before @ when the person was added).
  image_url text, -- Address of the person's avatar image; null = none (the service sets none itself).
  timezone text default 'UTC'::text not null, -- IANA zone used for "today" (notes.todayJournal).
  created_at timestamp with time zone default now() not null, -- @behavior -* When the person first joined any workspace (not in GraphQL: it would tell one workspace about others).
  constraint users_pkey PRIMARY KEY (id),
  constraint users_email_check CHECK (email ~ '^[^@\s]+@[^@\s]+$'::text)
);
CREATE UNIQUE INDEX users_email_key ON app_public.users USING btree (lower(email));
alter table app_public.users enable row level security;
alter table app_public.users force row level security;
grant select on app_public.users to svc_visitor;
create policy owner_all on app_public.users for all to current_user using (true) with check (true);
create policy select_workspace_members on app_public.users for select to svc_visitor using (((EXISTS ( SELECT 1
   FROM app_public.memberships m
  WHERE ((m.user_id = users.id) AND (m.workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id))))) OR (EXISTS ( SELECT 1
   FROM app_public.former_members f
  WHERE ((f.user_id = users.id) AND (f.workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)))))));

-- Outbox: one row per (event, webhook) or (event, agent dispatch), written in the event's transaction. PENDING until a 2xx (DELIVERED), retries exhausted (DEAD_LETTER) or the target is gone (CANCELED).
create table app_public.webhook_deliveries (
  id uuid default gen_random_uuid() not null, -- UUID of the delivery (webhookDeliveriesRetry takes it; id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the delivery belongs to (the calling key's: no other is visible).
  event_id uuid not null, -- The event delivered.
  webhook_id uuid, -- The webhook it goes to; null for an agent's dispatch delivery.
  agent_id uuid, -- Agent dispatch deliveries: the agent whose webhookUrl it goes to; null for a webhook's delivery.
  channel text not null, -- webhook:<webhookId> or agent:dispatch:<agentId> (spec 6.6).
  status text default 'PENDING'::text not null, -- PENDING (queued or retrying), DELIVERED (a 2xx answer), DEAD_LETTER (every retry failed; webhookDeliveriesRetry requeues it) or CANCELED (its target became inactive or gone).
  attempt_count integer default 0 not null, -- Attempts in the current round (a dead-letter retry starts a new round); drives the backoff.
  total_attempts integer default 0 not null, -- Attempts made in all, across retry rounds.
  next_attempt_at timestamp with time zone default now() not null, -- PENDING: when the next attempt is due (retries after 5 s, 1 min, 10 min, 1 h, 6 h and 24 h).
  locked_until timestamp with time zone, -- Lease of the worker attempting it now; an expired lease on a PENDING row means that worker died, and the sweep re-queues it.
  last_status_code integer, -- HTTP status of the last answer; null when there was none (a network error or timeout) or no attempt yet.
  last_error text, -- What went wrong last (an HTTP status, a network error, a deactivated target); null after success, or before any attempt unless the delivery was canceled.
  delivered_at timestamp with time zone, -- When a 2xx answer came; null until delivered.
  dead_lettered_at timestamp with time zone, -- When the retries ran out; null unless DEAD_LETTER.
  created_at timestamp with time zone default now() not null, -- When the delivery was queued (with its event).
  updated_at timestamp with time zone default now() not null, -- When the delivery last changed.
  constraint webhook_deliveries_pkey PRIMARY KEY (id),
  constraint webhook_deliveries_agent_id_event_id_key UNIQUE (agent_id, event_id),
  constraint webhook_deliveries_webhook_id_event_id_key UNIQUE (webhook_id, event_id),
  constraint webhook_deliveries_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint webhook_deliveries_event_id_fkey FOREIGN KEY (event_id) REFERENCES app_public.activity_events(id) ON DELETE CASCADE,
  constraint webhook_deliveries_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint webhook_deliveries_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint webhook_deliveries_workspace_id_webhook_id_fkey FOREIGN KEY (workspace_id, webhook_id) REFERENCES app_public.webhooks(workspace_id, id) ON DELETE CASCADE,
  constraint webhook_deliveries_check CHECK (num_nonnulls(webhook_id, agent_id) = 1),
  constraint webhook_deliveries_status_check CHECK (status = ANY (ARRAY['PENDING'::text, 'DELIVERED'::text, 'DEAD_LETTER'::text, 'CANCELED'::text]))
);
CREATE INDEX webhook_deliveries_event_idx ON app_public.webhook_deliveries USING btree (event_id);
CREATE INDEX webhook_deliveries_pending_idx ON app_public.webhook_deliveries USING btree (next_attempt_at) WHERE (status = 'PENDING'::text);
CREATE INDEX webhook_deliveries_status_idx ON app_public.webhook_deliveries USING btree (workspace_id, status, created_at DESC);
CREATE INDEX webhook_deliveries_webhook_idx ON app_public.webhook_deliveries USING btree (workspace_id, webhook_id, created_at DESC);
alter table app_public.webhook_deliveries enable row level security;
alter table app_public.webhook_deliveries force row level security;
grant select on app_public.webhook_deliveries to svc_visitor;
create policy owner_all on app_public.webhook_deliveries for all to current_user using (true) with check (true);
create policy select_as_workspace_admin on app_public.webhook_deliveries for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.webhook_deliveries FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();

-- Every delivery attempt: URL, HTTP status (or error), duration and the first 2 kB of the response.
create table app_public.webhook_delivery_attempts (
  id uuid default gen_random_uuid() not null, -- UUID of the attempt.
  workspace_id uuid not null, -- The workspace the attempt belongs to (the calling key's: no other is visible).
  delivery_id uuid not null, -- The delivery attempted.
  attempt_number integer not null, -- Which attempt of the delivery this was, from 1, across retry rounds.
  url text not null, -- The URL POSTed to.
  started_at timestamp with time zone not null, -- When the request was sent.
  duration_ms integer not null, -- How long the attempt took, in milliseconds.
  status_code integer, -- The HTTP status answered; null when no answer came (see error).
  error text, -- Why the attempt failed without an answer (network error, timeout, the worker stopping), at most 1,000 characters; null otherwise.
  response_body text, -- The first 2,048 characters of the answer's body; null = none.
  created_at timestamp with time zone default now() not null, -- When the attempt was recorded.
  constraint webhook_delivery_attempts_pkey PRIMARY KEY (id),
  constraint webhook_delivery_attempts_workspace_id_delivery_id_fkey FOREIGN KEY (workspace_id, delivery_id) REFERENCES app_public.webhook_deliveries(workspace_id, id) ON DELETE CASCADE,
  constraint webhook_delivery_attempts_response_body_check CHECK (length(response_body) <= 2048)
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON app_public.webhook_delivery_attempts USING btree (workspace_id, delivery_id, attempt_number);
alter table app_public.webhook_delivery_attempts enable row level security;
alter table app_public.webhook_delivery_attempts force row level security;
grant select on app_public.webhook_delivery_attempts to svc_visitor;
create policy owner_all on app_public.webhook_delivery_attempts for all to current_user using (true) with check (true);
create policy select_as_workspace_admin on app_public.webhook_delivery_attempts for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));

-- A registered webhook: every event of the workspace whose kind is in events (empty = all) is POSTed, signed, to url while active.
create table app_public.webhooks (
  id uuid default gen_random_uuid() not null, -- UUID of the webhook, as webhooksUpdate, Delete and RotateSecret name it (id is the GraphQL node id).
  workspace_id uuid not null, -- The workspace the webhook belongs to (the calling key's: no other is visible).
  url text not null, -- Where deliveries are POSTed: an http(s) URL without credentials, at most 2,048 characters.
  events text[] default '{}'::text[] not null, -- Event kinds delivered; empty = every kind.
  active boolean default true not null, -- Inactive webhooks get no new deliveries; an endpoint answering 410 Gone is deactivated.
  description text, -- A note about the webhook, at most 500 characters; null = none.
  deactivated_at timestamp with time zone, -- When it was last made inactive (by an admin, or because the endpoint answered 410 Gone); null while active.
  deactivated_reason text, -- Why it was made inactive: deactivated by an admin, the endpoint answered 410 Gone, or its owner left the workspace; null while active.
  created_at timestamp with time zone default now() not null, -- When the webhook was registered.
  updated_at timestamp with time zone default now() not null, -- When the webhook last changed.
  owner_user_id uuid, -- Whose webhook it is: the person who registered it, or last changed its URL or rotated its secret (null: the operator, or they were deleted); it is deactivated when they leave the workspace.
  failing_since timestamp with time zone, -- When the first of the delivery attempts that have all failed since the last success was made (null: the last attempt succeeded, or none yet). Kept by the delivery worker; past SVC_WEBHOOK_DISABLE_AFTER_HOURS the webhook is deactivated.
  constraint webhooks_pkey PRIMARY KEY (id),
  constraint webhooks_workspace_id_id_key UNIQUE (workspace_id, id),
  constraint webhooks_created_by_user_id_fkey FOREIGN KEY (owner_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint webhooks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint webhooks_description_check CHECK (length(description) <= 500),
  constraint webhooks_url_check CHECK (url ~ '^https?://[^\s/?#@]+([/?#]\S*)?$'::text AND length(url) <= 2048) NOT VALID
);
CREATE INDEX webhooks_active_idx ON app_public.webhooks USING btree (workspace_id) WHERE active;
alter table app_public.webhooks enable row level security;
alter table app_public.webhooks force row level security;
grant select on app_public.webhooks to svc_visitor;
create policy owner_all on app_public.webhooks for all to current_user using (true) with check (true);
create policy select_as_workspace_admin on app_public.webhooks for select to svc_visitor using (((workspace_id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)) AND ( SELECT app_hidden.is_workspace_admin() AS is_workspace_admin) AND ( SELECT app_hidden.key_unnarrowed() AS key_unnarrowed)));
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.webhooks FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at('failing_since');

-- A tenant. Every request is evaluated inside exactly one workspace, the one of its key.
create table app_public.workspaces (
  id uuid default gen_random_uuid() not null, -- UUID of the workspace.
  slug text not null, -- URL-friendly name: 1 to 63 of a-z, 0-9 and -, starting with a letter or digit; unique.
  key text not null, -- Short uppercase tag; issue keys are <key>-<number>.
  name text not null, -- Display name, 1 to 200 characters.
  cycle_length_days integer default 14 not null, -- Default length of a new cycle in days, 1 to 365 (default 14).
  cycle_cooldown_days integer default 0 not null, -- Days left free between cycles when the next one is scheduled, 0 to 365 (default 0).
  time_tracking_enabled boolean default true not null, -- Whether the time.* tools work; false makes them fail with 403 time_tracking_disabled.
  attachment_quota_mb integer default 1024 not null, -- Attachment storage of the workspace in MB (finalized files and open uploads), default 1,024; 0 allows no uploads.
  required_ack_seconds integer default 0 not null, -- Seconds an assigned agent has to answer (a comment, a status move or a report on its run) before AGENT_NOACK fires; 0 = off.
  auto_dispatch boolean default false not null, -- Whether the dispatcher hands queued, unassigned issues to agents (default false).
  auto_dispatch_mode text default 'ROUND_ROBIN'::text not null, -- How the dispatcher picks an agent when no dispatch rule decides: ROUND_ROBIN (least recently dispatched), PRIORITY_MATCH (capabilities include the priority), CAPABILITY_MATCH (most labels among the capabilities); MANUAL_ONLY turns automatic dispatch off, rules included.
  assignment_sla_minutes integer default 0 not null, -- Minutes an assigned open issue may go without activity (a status change, a comment or run report of its agent) before ISSUE_STALLED fires; 0 = off.
  agent_run_stale_minutes integer default 30 not null, -- Minutes without a sign of life after which an ACTIVE run becomes STALLED and an ONLINE or BUSY agent OFFLINE (at least 1, default 30).
  created_at timestamp with time zone default now() not null, -- When the workspace was created.
  updated_at timestamp with time zone default now() not null, -- When the workspace last changed.
  offline_reclaim_minutes integer default 30 not null, -- Minutes an agent made OFFLINE by a heartbeat timeout or its keys may stay silent before its open runs end and its unfinished issues are unassigned; 0 = never.
  constraint workspaces_pkey PRIMARY KEY (id),
  constraint workspaces_key_key UNIQUE (key),
  constraint workspaces_slug_key UNIQUE (slug),
  constraint workspaces_agent_run_stale_minutes_check CHECK (agent_run_stale_minutes >= 1),
  constraint workspaces_assignment_sla_minutes_check CHECK (assignment_sla_minutes >= 0),
  constraint workspaces_attachment_quota_mb_check CHECK (attachment_quota_mb >= 0),
  constraint workspaces_auto_dispatch_mode_check CHECK (auto_dispatch_mode = ANY (ARRAY['ROUND_ROBIN'::text, 'PRIORITY_MATCH'::text, 'CAPABILITY_MATCH'::text, 'MANUAL_ONLY'::text])),
  constraint workspaces_cycle_cooldown_days_check CHECK (cycle_cooldown_days >= 0 AND cycle_cooldown_days <= 365),
  constraint workspaces_cycle_length_days_check CHECK (cycle_length_days >= 1 AND cycle_length_days <= 365),
  constraint workspaces_key_check CHECK (key ~ '^[A-Z][A-Z0-9]{1,9}$'::text),
  constraint workspaces_name_check CHECK (length(name) >= 1 AND length(name) <= 200),
  constraint workspaces_offline_reclaim_minutes_check CHECK (offline_reclaim_minutes >= 0),
  constraint workspaces_required_ack_seconds_check CHECK (required_ack_seconds >= 0),
  constraint workspaces_slug_check CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'::text)
);
alter table app_public.workspaces enable row level security;
alter table app_public.workspaces force row level security;
grant select on app_public.workspaces to svc_visitor;
create policy owner_all on app_public.workspaces for all to current_user using (true) with check (true);
create policy select_own_workspace on app_public.workspaces for select to svc_visitor using ((id = ( SELECT app_hidden.current_workspace_id() AS current_workspace_id)));
CREATE TRIGGER _000_deleting BEFORE DELETE ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_private.tg_workspaces__deleting();
CREATE TRIGGER _100_updated_at BEFORE UPDATE ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_hidden.tg__set_updated_at();
CREATE TRIGGER _500_seed_statuses AFTER INSERT ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_private.tg_workspaces__seed_statuses();
CREATE TRIGGER _800_events AFTER UPDATE OF name, cycle_length_days, cycle_cooldown_days, time_tracking_enabled, attachment_quota_mb, required_ack_seconds, auto_dispatch, auto_dispatch_mode, assignment_sla_minutes, agent_run_stale_minutes, offline_reclaim_minutes ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_private.tg_workspaces__events();
CREATE TRIGGER _810_stop_timers AFTER UPDATE OF time_tracking_enabled ON app_public.workspaces FOR EACH ROW WHEN (old.time_tracking_enabled AND NOT new.time_tracking_enabled) EXECUTE FUNCTION app_private.tg_workspaces__stop_timers();
CREATE TRIGGER _850_wake_dispatcher AFTER UPDATE OF auto_dispatch, auto_dispatch_mode ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_private.tg_workspaces__wake_dispatcher();
CREATE TRIGGER _900_drop_number_sequence AFTER DELETE ON app_public.workspaces FOR EACH ROW EXECUTE FUNCTION app_private.tg_workspaces__drop_number_sequence();

-- functions of app_public (definitions in sql/)
-- app_public.access_create(app_public.api_key_kind,uuid,integer,app_public.api_key_scope[],uuid[],uuid[],uuid[],text) returns app_public.issued_api_key; plpgsql volatile; execute: svc_visitor; auth/keys.sql
-- app_public.access_create_personal(integer,app_public.api_key_scope[],uuid[],uuid[],uuid[],text) returns app_public.issued_api_key; sql volatile; execute: svc_visitor; auth/keys.sql
-- app_public.access_create_session(integer,text) returns app_public.issued_api_key; plpgsql volatile; execute: svc_visitor; auth/keys.sql
-- app_public.access_keys() returns SETOF app_public.api_key; sql stable; execute: svc_visitor; auth/keys.sql
-- app_public.access_revoke(uuid) returns app_public.api_key; sql volatile; execute: svc_visitor; auth/keys.sql
-- app_public.action_requests_dispatch_result(app_public.action_requests) returns jsonb; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.action_requests_payload(app_public.action_requests) returns jsonb; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.action_requests_source_id(app_public.action_requests) returns uuid; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.action_requests_viewer_may_decide(app_public.action_requests) returns boolean; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.action_requests_viewer_vote(app_public.action_requests) returns text; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.action_requests_vote_counts(app_public.action_requests) returns jsonb; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_public.activity_events_payload(app_public.activity_events) returns jsonb; sql stable; execute: svc_visitor; events/record.sql
-- app_public.agent_timeline(uuid,integer,integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.agent_uptime(uuid,integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.agents_archive(uuid) returns app_public.agents; sql volatile; execute: svc_visitor; agents/agents.sql
-- app_public.agents_create(text,text,text[],text,text,integer,text) returns app_public.agents; sql volatile; execute: svc_visitor; agents/agents.sql
-- app_public.agents_delete(uuid) returns app_public.agents; sql volatile; execute: svc_visitor; agents/agents.sql
-- app_public.agents_pipeline(integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.agents_unarchive(uuid) returns app_public.agents; sql volatile; execute: svc_visitor; agents/agents.sql
-- app_public.agents_update(uuid,text,text,text[],text,text,integer,text,boolean) returns app_public.agents; sql volatile; execute: svc_visitor; agents/agents.sql
-- app_public.agents_webhook_url(app_public.agents) returns text; sql stable; execute: svc_visitor; agents/agents.sql
-- app_public.chat_messages_context_snapshot(app_public.chat_messages) returns jsonb; sql stable; execute: svc_visitor; chat/chat.sql
-- app_public.chat_open_thread(uuid,text,text,uuid,text) returns app_public.chat_threads; plpgsql volatile; execute: svc_visitor; chat/chat.sql
-- app_public.chat_post_message(uuid,text,text,uuid) returns app_public.chat_messages; plpgsql volatile; execute: svc_visitor; chat/chat.sql
-- app_public.comments_revision_history(app_public.comments) returns SETOF app_public.comment_revision; sql stable; execute: svc_visitor; comments/comments.sql
-- app_public.current_workspace() returns app_public.workspaces; sql stable; execute: svc_visitor; workspace/workspace.sql
-- app_public.cycles_current_status(app_public.cycles) returns text; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_public.dispatch_rules_create(uuid,text,uuid,uuid,text,integer,boolean) returns app_public.dispatch_rules; plpgsql volatile; execute: svc_visitor; dispatch/rules.sql
-- app_public.dispatch_rules_delete(uuid) returns app_public.dispatch_rules; plpgsql volatile; execute: svc_visitor; dispatch/rules.sql
-- app_public.dispatch_rules_reorder(uuid[]) returns SETOF app_public.dispatch_rules; plpgsql volatile; execute: svc_visitor; dispatch/rules.sql
-- app_public.dispatch_rules_update(uuid,uuid,text,uuid,uuid,text,boolean,text[]) returns app_public.dispatch_rules; plpgsql volatile; execute: svc_visitor; dispatch/rules.sql
-- app_public.dispatch_summary(integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.dispatch_timeseries(integer,integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.members_add(text,app_public.membership_role) returns app_public.memberships; sql volatile; execute: svc_visitor; workspace/members.sql
-- app_public.members_remove(uuid) returns app_public.memberships; sql volatile; execute: svc_visitor; workspace/members.sql
-- app_public.members_set_role(uuid,app_public.membership_role) returns app_public.memberships; sql volatile; execute: svc_visitor; workspace/members.sql
-- app_public.notes_restore(uuid) returns app_public.notes; plpgsql volatile; execute: svc_visitor; notes/notes.sql
-- app_public.pins_add(app_public.pin_target_type,uuid,integer) returns app_public.pins; plpgsql volatile; execute: svc_visitor; pins/pins.sql
-- app_public.pins_agent(app_public.pins) returns app_public.agents; sql stable; execute: svc_visitor; pins/pins.sql
-- app_public.pins_cycle(app_public.pins) returns app_public.cycles; sql stable; execute: svc_visitor; pins/pins.sql
-- app_public.pins_initiative(app_public.pins) returns app_public.initiatives; sql stable; execute: svc_visitor; pins/pins.sql
-- app_public.pins_project(app_public.pins) returns app_public.projects; sql stable; execute: svc_visitor; pins/pins.sql
-- app_public.pins_remove(app_public.pin_target_type,uuid) returns app_public.pins; plpgsql volatile; execute: svc_visitor; pins/pins.sql
-- app_public.pins_reorder(uuid[]) returns SETOF app_public.pins; plpgsql volatile; execute: svc_visitor; pins/pins.sql
-- app_public.plugin_issue_api_key(uuid,app_public.api_key_scope[],uuid[],uuid[],uuid[],integer,text) returns app_public.issued_api_key; plpgsql volatile; execute: svc_visitor; auth/plugins.sql
-- app_public.plugins() returns SETOF app_public.plugin_info; sql stable; execute: svc_visitor; auth/plugins.sql
-- app_public.plugins_create(text,app_public.api_key_scope[],jsonb) returns app_public.plugin_info; sql volatile; execute: svc_visitor; auth/plugins.sql
-- app_public.plugins_set_skills(uuid,jsonb) returns app_public.plugin_info; sql volatile; execute: svc_visitor; auth/plugins.sql
-- app_public.repo_mappings_create(text,text,text,jsonb,boolean) returns app_public.connection_mappings; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_public.repo_mappings_delete(uuid) returns app_public.connection_mappings; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_public.repo_mappings_update(uuid,text,text,jsonb,boolean,boolean,boolean,boolean) returns app_public.connection_mappings; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_public.viewer() returns app_public.users; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_key_id() returns uuid; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_key_kind() returns text; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_label_ids() returns uuid[]; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_project_ids() returns uuid[]; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_role() returns app_public.membership_role; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_scopes() returns text[]; sql stable; execute: svc_visitor; workspace/members.sql
-- app_public.viewer_update(text,text) returns app_public.users; sql volatile; execute: svc_visitor; workspace/users.sql
-- app_public.webhook_deliveries_retry(uuid) returns jsonb; sql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.webhook_health(integer) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_public.webhooks_create(text,text[],text) returns jsonb; sql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.webhooks_delete(uuid) returns jsonb; sql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.webhooks_overview() returns jsonb; sql stable; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.webhooks_rotate_secret(uuid,integer) returns jsonb; sql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.webhooks_update(uuid,text,text[],boolean,text) returns jsonb; sql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_public.workspace_update_settings(text,integer,integer,boolean,integer,integer,boolean,text,integer,integer,integer) returns app_public.workspaces; sql volatile; execute: svc_visitor; workspace/workspace.sql

-- ====================================================================================================
-- schema app_hidden: Helpers callable by the request role but not exposed to GraphQL: request context, JSON shapers, checks.
-- usage: svc_visitor:USAGE

create type app_hidden.page_row as (item jsonb, sort_key text, id uuid);

-- functions of app_hidden (definitions in sql/)
-- app_hidden.access_create_key(text,uuid,text[],uuid[],uuid[],uuid[],timestamp with time zone,text) returns app_public.issued_api_key; plpgsql volatile security definer; execute: svc_visitor; auth/keys.sql
-- app_hidden.access_keys() returns SETOF app_public.api_key; sql stable security definer; execute: svc_visitor; auth/keys.sql
-- app_hidden.access_revoke(uuid) returns app_public.api_key; plpgsql volatile security definer; execute: svc_visitor; auth/keys.sql
-- app_hidden.action_request_assert_may_act(app_public.action_requests,boolean,text) returns void; plpgsql stable; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_caller_is_requester(app_public.action_requests) returns boolean; sql stable; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_dispatch(app_public.action_requests) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_for_decision(text,text) returns app_public.action_requests; plpgsql volatile; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_insert(jsonb,uuid,uuid,text) returns app_public.action_requests; plpgsql volatile; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_json(app_public.action_requests) returns jsonb; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_hidden.action_request_may_decide(app_public.action_requests) returns boolean; sql stable; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_move(app_public.action_requests,text) returns app_public.action_requests; plpgsql volatile; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_self_decision(app_public.action_requests) returns text; sql stable; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_request_source_visible(text,uuid) returns boolean; plpgsql stable; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.action_requests_supersede(text,uuid) returns void; plpgsql volatile security definer; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.add_plan_steps(app_public.execution_plans,jsonb,text) returns uuid[]; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.agent_json(app_public.agents) returns jsonb; sql stable; execute: svc_visitor; agents/agents.sql
-- app_hidden.agent_open_run(uuid,uuid) returns app_public.agent_runs; sql stable; execute: svc_visitor; agents/runs.sql
-- app_hidden.agent_sees_issue(uuid,app_public.issues) returns boolean; sql stable security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.agents_create(text,text,text[],text,text,integer,text) returns app_public.agents; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.agents_delete(uuid) returns app_public.agents; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.agents_set_archived(uuid,boolean) returns app_public.agents; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.agents_update(uuid,text,text,text[],text,text,integer,text,boolean) returns app_public.agents; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.array_distinct(anyarray) returns anyarray; sql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.assert_move(text,text,text,text) returns void; plpgsql immutable; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.assert_run_mode_allows_mutation(uuid) returns void; plpgsql stable; execute: svc_visitor; issues/write.sql
-- app_hidden.assign_issue_agent(app_public.issues,app_public.agents,text,text,text,uuid,jsonb) returns uuid; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.attachment_blob_ref(app_public.attachments) returns jsonb; sql stable; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.attachment_bytes_used() returns bigint; sql stable security definer; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.attachment_json(app_public.attachments) returns jsonb; sql stable; execute: svc_visitor; attachments/shapes.sql
-- app_hidden.attachment_target(text,text) returns record; plpgsql stable; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.attachment_target_for_write(text,text) returns record; plpgsql volatile; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.attachment_visible(text) returns app_public.attachments; plpgsql stable; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.authenticate(bytea) returns TABLE(key_id uuid, workspace_id uuid, user_id uuid, kind text, linked_agent_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone, revoked_at timestamp with time zone, acting_user_id uuid, agent_archived boolean, workspace_admin boolean); sql stable security definer; execute: svc_visitor; auth/keys.sql
-- app_hidden.caller_json() returns jsonb; sql stable security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.caller_may_moderate() returns boolean; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.caller_role() returns text; sql stable security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.caller_works_in_plan(uuid) returns boolean; sql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.canvas_changed(uuid,jsonb,uuid[]) returns void; plpgsql volatile; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_edge_json(app_public.canvas_edges) returns jsonb; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_json(app_public.canvases) returns jsonb; plpgsql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_node_edge_ids(uuid) returns uuid[]; sql stable security definer; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_node_json(app_public.canvas_nodes,app_public.issues,app_public.statuses) returns jsonb; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_node_neighbour_issue_ids(uuid) returns uuid[]; sql stable security definer; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_node_shown(uuid) returns boolean; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_node_view(app_public.canvas_nodes) returns jsonb; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_require_room(uuid,text) returns void; plpgsql volatile; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_shape(app_public.canvases,integer,integer) returns jsonb; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_shown_node_ids(uuid) returns uuid[]; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_shows_node(app_public.canvas_nodes) returns boolean; sql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.canvas_size(uuid) returns record; sql stable security definer; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.changed_fields(jsonb,jsonb,text[]) returns text[]; sql immutable; execute: owner only; core/util.sql
-- app_hidden.chat_event_passes_narrowing(uuid,text) returns boolean; plpgsql stable; execute: svc_visitor; events/visibility.sql
-- app_hidden.chat_event_visible(uuid,text) returns boolean; plpgsql stable; execute: svc_visitor; events/visibility.sql
-- app_hidden.chat_message_for_agent(text) returns app_public.chat_messages; plpgsql stable security definer; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_message_json(app_public.chat_messages) returns jsonb; sql stable; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_message_seq(app_public.chat_threads,text,text) returns bigint; plpgsql stable; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_open_thread(uuid,text,uuid,text,text) returns uuid; plpgsql volatile security definer; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_post_agent_message(app_public.chat_threads,text,text,uuid) returns app_public.chat_messages; plpgsql volatile; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_post_user_message(uuid,text,text,uuid) returns uuid; plpgsql volatile security definer; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_publish_draft(app_public.chat_threads,jsonb) returns void; sql volatile; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_thread_for_agent(text) returns app_public.chat_threads; plpgsql stable security definer; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_thread_issue_visible(uuid) returns boolean; plpgsql stable security definer; execute: svc_visitor; chat/chat.sql
-- app_hidden.chat_thread_json(app_public.chat_threads) returns jsonb; sql stable; execute: svc_visitor; chat/chat.sql
-- app_hidden.check_chat_text(text,text) returns void; plpgsql immutable; execute: svc_visitor; chat/chat.sql
-- app_hidden.check_cycle_dates(uuid,date,date,text) returns void; plpgsql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.check_one_active_cycle(uuid,date,date,text) returns void; plpgsql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.check_profile_key(text) returns void; plpgsql immutable; execute: svc_visitor; agents/agents.sql
-- app_hidden.check_project_initiative_reachable(app_public.projects) returns void; plpgsql stable; execute: svc_visitor; projects/projects.sql
-- app_hidden.check_repo_full_name(text,text) returns void; plpgsql immutable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.comment_for_write(text) returns app_public.comments; plpgsql volatile; execute: svc_visitor; comments/comments.sql
-- app_hidden.comment_json(app_public.comments) returns jsonb; plpgsql stable; execute: svc_visitor; comments/comments.sql
-- app_hidden.comment_shape(app_public.comments,app_public.users,app_public.agents) returns jsonb; sql stable; execute: svc_visitor; comments/comments.sql
-- app_hidden.crew_agent_for_role(uuid,text,integer,uuid) returns uuid; sql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.crew_assert_not_own(uuid) returns void; plpgsql stable; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.crew_for_write(text,text) returns app_public.agent_crews; plpgsql volatile; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.crew_json(app_public.agent_crews) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.crew_member_json(app_public.agent_crew_members) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.current_agent_id() returns uuid; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.current_cycle() returns app_public.cycles; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.current_key_id() returns uuid; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.current_key_kind() returns text; sql stable security definer; execute: svc_visitor; workspace/members.sql
-- app_hidden.current_key_user_id() returns uuid; sql stable security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.current_plugin_id() returns uuid; sql stable security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.current_run(uuid) returns app_public.agent_runs; sql stable; execute: svc_visitor; agents/runs.sql
-- app_hidden.current_scopes() returns text[]; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.current_user_id() returns uuid; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.current_workspace_id() returns uuid; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.cursor_decode(text,text,text) returns text; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.cursor_decode_bigint(text,text,text) returns bigint; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.cursor_decode_int(text,text,text) returns integer; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.cursor_encode(text) returns text; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.cycle_json(app_public.cycles,boolean) returns jsonb; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.cycle_status(app_public.cycles) returns text; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.dashboard_window(integer) returns timestamp with time zone; plpgsql stable; execute: svc_visitor; analytics/dashboards.sql
-- app_hidden.dispatch_rules_check_refs(uuid,uuid,uuid,uuid,text) returns void; plpgsql stable; execute: svc_visitor; dispatch/rules.sql
-- app_hidden.dispatch_rules_insert(uuid,uuid,text,uuid,uuid,text,integer,boolean) returns app_public.dispatch_rules; plpgsql volatile; execute: svc_visitor; dispatch/rules.sql
-- app_hidden.dispatch_to_agent(uuid,uuid) returns uuid; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.each_item(jsonb,regprocedure) returns jsonb; plpgsql volatile; execute: svc_visitor; core/bulk.sql
-- app_hidden.end_agent_runs_on_issue(app_public.issues,uuid,text) returns void; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.event_json(app_public.activity_events,boolean) returns jsonb; sql stable; execute: svc_visitor; events/record.sql
-- app_hidden.event_kinds() returns text[]; sql immutable; execute: svc_visitor; events/record.sql
-- app_hidden.event_shape(app_public.activity_events,app_public.agents,app_public.users,boolean) returns json; sql stable; execute: svc_visitor; events/record.sql
-- app_hidden.event_subject_visible(text,uuid,jsonb) returns boolean; plpgsql stable; execute: svc_visitor; events/visibility.sql
-- app_hidden.find_action_request(text,text,boolean) returns app_public.action_requests; plpgsql volatile; execute: svc_visitor; actionRequests/machine.sql
-- app_hidden.find_agent(text,text,text) returns app_public.agents; plpgsql stable; execute: svc_visitor; agents/agents.sql
-- app_hidden.find_canvas(text,text) returns app_public.canvases; plpgsql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.find_canvas_edge(text,text) returns app_public.canvas_edges; plpgsql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.find_canvas_for_change(text,text) returns app_public.canvases; plpgsql volatile; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.find_canvas_locked(text,text) returns app_public.canvases; plpgsql volatile; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.find_canvas_node(text,text) returns app_public.canvas_nodes; plpgsql stable; execute: svc_visitor; canvas/canvas.sql
-- app_hidden.find_comment(text,text) returns app_public.comments; plpgsql stable; execute: svc_visitor; comments/find.sql
-- app_hidden.find_crew(text,text) returns app_public.agent_crews; plpgsql stable; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.find_crew_member(text,text) returns app_public.agent_crew_members; plpgsql stable; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.find_cycle(text,text) returns app_public.cycles; plpgsql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.find_gate(text,text) returns app_public.review_gates; plpgsql stable; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.find_goal(text,text) returns app_public.goals; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.find_initiative(text,text) returns app_public.initiatives; plpgsql stable; execute: svc_visitor; initiatives/initiatives.sql
-- app_hidden.find_issue(text,text) returns app_public.issues; plpgsql stable; execute: svc_visitor; issues/write.sql
-- app_hidden.find_label(text) returns app_public.labels; plpgsql stable; execute: svc_visitor; labels/labels.sql
-- app_hidden.find_label_for_write(text) returns app_public.labels; plpgsql volatile; execute: svc_visitor; labels/labels.sql
-- app_hidden.find_live_agent(text,text,text) returns app_public.agents; plpgsql stable; execute: svc_visitor; agents/agents.sql
-- app_hidden.find_live_runtime(text,text) returns app_public.runtimes; plpgsql stable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.find_note(text) returns app_public.notes; plpgsql stable; execute: svc_visitor; notes/notes.sql
-- app_hidden.find_plan(text,text) returns app_public.execution_plans; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.find_plugin(text,text) returns app_public.plugin_info; plpgsql stable; execute: svc_visitor; auth/plugins.sql
-- app_hidden.find_project(text,text) returns app_public.projects; plpgsql stable; execute: svc_visitor; projects/projects.sql
-- app_hidden.find_run(text,text) returns app_public.agent_runs; plpgsql stable; execute: svc_visitor; runs/runs.sql
-- app_hidden.find_runtime(text,text) returns app_public.runtimes; plpgsql stable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.find_status(text,text) returns app_public.statuses; plpgsql stable; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.find_step(text,text) returns app_public.execution_steps; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.found(anyelement,text,text) returns anyelement; plpgsql stable; execute: svc_visitor; core/errors.sql
-- app_hidden.gate_assert_may_decide(uuid) returns void; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.gate_json(app_public.review_gates) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.gate_move(app_public.review_gates,text,text) returns app_public.review_gates; plpgsql volatile; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.gate_resolve(app_public.review_gates,text,text) returns app_public.review_gates; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.gates_cancel(uuid) returns void; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.goal_abandon(app_public.goals,text) returns app_public.goals; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.goal_aggregate(uuid) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.goal_cost(uuid) returns numeric; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.goal_json(app_public.goals) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.goal_move(app_public.goals,text,text) returns app_public.goals; plpgsql volatile; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.goal_status_payload(app_public.goals,text,text) returns jsonb; sql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.has_scope(text) returns boolean; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.hold_membership() returns uuid; plpgsql volatile security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.idempotent_claim(uuid,text,text,text) returns text; plpgsql volatile security definer; execute: svc_visitor; core/idempotency.sql
-- app_hidden.idempotent_remember(text,text) returns text; plpgsql volatile security definer; execute: svc_visitor; core/idempotency.sql
-- app_hidden.initiative_for_write(text,text) returns app_public.initiatives; plpgsql volatile; execute: svc_visitor; initiatives/initiatives.sql
-- app_hidden.initiative_json(app_public.initiatives,boolean) returns jsonb; sql stable; execute: svc_visitor; initiatives/initiatives.sql
-- app_hidden.insert_cycle(app_public.workspaces,text,date,date,text) returns app_public.cycles; plpgsql volatile; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.is_workspace_admin() returns boolean; sql stable security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.issue_after_write(uuid) returns app_public.issues; plpgsql stable; execute: svc_visitor; issues/write.sql
-- app_hidden.issue_create_refs(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; issues/write.sql
-- app_hidden.issue_extra_json(app_public.issues,jsonb) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_for_write(text,text) returns app_public.issues; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.issue_has_ancestor(uuid,uuid) returns boolean; sql stable security definer; execute: svc_visitor; issues/write.sql
-- app_hidden.issue_json(app_public.issues,boolean) returns jsonb; plpgsql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_json_after_write(uuid) returns jsonb; plpgsql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_labels_json(uuid[]) returns jsonb; plpgsql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_lean_json(app_public.issues,app_public.statuses,app_public.projects,app_public.agents) returns json; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_passes_narrowing(uuid,uuid) returns boolean; plpgsql stable security definer; execute: svc_visitor; core/narrowing.sql
-- app_hidden.issue_progress_json(uuid[]) returns jsonb; sql stable; execute: svc_visitor; projects/progress.sql
-- app_hidden.issue_ref_json(app_public.issues) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_ref_json(app_public.issues,app_public.statuses) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.issue_relations_json(app_public.issues,text) returns jsonb; sql stable; execute: svc_visitor; relations/relations.sql
-- app_hidden.issue_search_matches(tsquery,real,integer,integer,integer,text) returns TABLE(id uuid, number integer, rank real, floor integer); plpgsql stable security definer; execute: svc_visitor; issues/search.sql
-- app_hidden.issues_filter(jsonb) returns record; plpgsql stable; execute: svc_visitor; issues/filters.sql
-- app_hidden.issues_unrestricted() returns boolean; sql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.key_unnarrowed() returns boolean; sql stable; execute: svc_visitor; events/visibility.sql
-- app_hidden.keyset_decode(text,text,text) returns record; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.keyset_decode_date(text,text,text) returns record; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.keyset_decode_ts(text,text,text) returns record; plpgsql stable; execute: svc_visitor; core/paging.sql
-- app_hidden.keyset_encode(text,text,uuid) returns text; sql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.label_id_list(jsonb) returns uuid[]; plpgsql immutable; execute: svc_visitor; issues/write.sql
-- app_hidden.label_json(app_public.labels) returns jsonb; sql stable; execute: svc_visitor; labels/labels.sql
-- app_hidden.lock_cycles() returns app_public.workspaces; sql volatile; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.lock_directed_relations(text) returns void; sql volatile; execute: svc_visitor; relations/relations.sql
-- app_hidden.lock_issue_parents() returns void; sql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.lock_issues_in_order(jsonb,text) returns void; sql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.lock_live_agent(uuid) returns void; plpgsql volatile security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.lock_plan(uuid) returns app_public.execution_plans; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.markdown_literal(text) returns text; sql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.member_json(app_public.memberships) returns jsonb; sql stable; execute: svc_visitor; members/members.sql
-- app_hidden.members_add(text,text) returns app_public.memberships; plpgsql volatile security definer; execute: svc_visitor; workspace/members.sql
-- app_hidden.members_remove(uuid) returns app_public.memberships; plpgsql volatile security definer; execute: svc_visitor; workspace/members.sql
-- app_hidden.members_set_role(uuid,text) returns app_public.memberships; plpgsql volatile security definer; execute: svc_visitor; workspace/members.sql
-- app_hidden.narrowed_initiative_ids() returns uuid[]; sql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.narrowed_issue_payload(jsonb) returns jsonb; sql stable; execute: svc_visitor; events/record.sql
-- app_hidden.narrowed_label_ids() returns uuid[]; sql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.narrowed_project_ids() returns uuid[]; sql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.next_cycle_start(app_public.workspaces) returns date; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.note_for_write(text) returns app_public.notes; plpgsql volatile; execute: svc_visitor; notes/notes.sql
-- app_hidden.note_json(app_public.notes) returns jsonb; sql stable; execute: svc_visitor; notes/notes.sql
-- app_hidden.notification_preference_json(app_public.notification_preferences) returns jsonb; sql stable; execute: svc_visitor; notification/preferences.sql
-- app_hidden.one_line(text,text,integer) returns text; plpgsql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.one_line_list(text[],text,integer,integer) returns text[]; plpgsql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.open_gate(app_public.execution_plans,uuid,text,text,jsonb) returns app_public.review_gates; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.orchestration_allows(text,text,text) returns boolean; sql immutable; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.own_time_entry_for_write(text) returns app_public.time_entries; plpgsql volatile; execute: svc_visitor; time/time.sql
-- app_hidden.page_json(app_hidden.page_row[],integer,text) returns jsonb; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.page_json_text(json[],text[],integer,text) returns json; plpgsql immutable; execute: svc_visitor; core/paging.sql
-- app_hidden.parse_uuid(text,text) returns uuid; plpgsql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.pins_json() returns jsonb; sql stable; execute: svc_visitor; pins/pins.sql
-- app_hidden.plan_activate(app_public.execution_plans) returns uuid[]; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_assert_may_approve(app_public.execution_plans) returns void; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_assert_may_end(app_public.execution_plans,app_public.execution_steps) returns void; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_assert_own_step(app_public.execution_plans,app_public.execution_steps) returns void; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_auto_judges(app_public.execution_plans) returns boolean; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.plan_cancel(app_public.execution_plans) returns app_public.execution_plans; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_cascade(uuid) returns uuid[]; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_end_step_runs(app_public.execution_plans,text) returns void; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_json(app_public.execution_plans,boolean) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.plan_move(app_public.execution_plans,text) returns app_public.execution_plans; plpgsql volatile; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.plan_new_attempt(app_public.goals,uuid,text,boolean,integer) returns app_public.execution_plans; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plan_resume(app_public.execution_plans) returns uuid[]; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.plugin_issue_api_key(uuid,text[],uuid[],uuid[],uuid[],timestamp with time zone,text) returns app_public.issued_api_key; plpgsql volatile security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.plugin_skill(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; auth/plugins.sql
-- app_hidden.plugin_skills_list(jsonb) returns jsonb; sql stable security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.plugins() returns SETOF app_public.plugin_info; sql stable security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.plugins_create(text,text[],jsonb) returns app_public.plugin_info; plpgsql volatile security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.plugins_set_skills(uuid,jsonb) returns app_public.plugin_info; plpgsql volatile security definer; execute: svc_visitor; auth/plugins.sql
-- app_hidden.poll_tally(uuid,jsonb) returns TABLE(option_key text, label text, ord bigint, votes bigint, first_vote_at timestamp with time zone); sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_hidden.poll_winner(uuid,jsonb) returns text; sql stable; execute: svc_visitor; actionRequests/shapes.sql
-- app_hidden.project_event_payload(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; events/record.sql
-- app_hidden.project_for_write(text,text) returns app_public.projects; plpgsql volatile; execute: svc_visitor; projects/projects.sql
-- app_hidden.project_json(app_public.projects) returns jsonb; sql stable; execute: svc_visitor; projects/projects.sql
-- app_hidden.publish_ephemeral_event(text,text,uuid,jsonb) returns jsonb; sql volatile security definer; execute: svc_visitor; events/record.sql
-- app_hidden.raise_invalid(text,text) returns void; plpgsql volatile; execute: svc_visitor; core/errors.sql
-- app_hidden.raise_label_name_taken(text) returns void; plpgsql volatile; execute: svc_visitor; labels/labels.sql
-- app_hidden.raise_no_status_named(text,text,text) returns void; plpgsql stable; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.raise_not_found(text,text) returns void; plpgsql volatile; execute: svc_visitor; core/errors.sql
-- app_hidden.raise_status_name_taken(text) returns void; plpgsql volatile; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.rate_limit_reserve(uuid,uuid,text,integer,integer) returns record; plpgsql volatile security definer; execute: svc_visitor; core/rate_limits.sql
-- app_hidden.record_event(text,text,uuid,jsonb) returns uuid; sql volatile security definer; execute: svc_visitor; events/record.sql
-- app_hidden.record_status_event(text,app_public.statuses,jsonb) returns uuid; sql volatile; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.relation_kind_seen(app_public.issue_relations,uuid) returns text; sql immutable; execute: svc_visitor; relations/relations.sql
-- app_hidden.relation_path_exists(text,uuid,uuid) returns boolean; sql stable security definer; execute: svc_visitor; relations/relations.sql
-- app_hidden.relation_view(app_public.issue_relations,uuid) returns jsonb; sql stable; execute: svc_visitor; relations/relations.sql
-- app_hidden.relation_view(app_public.issue_relations,uuid,app_public.issues,app_public.statuses) returns jsonb; sql stable; execute: svc_visitor; relations/relations.sql
-- app_hidden.renumber_issue_pins(uuid[]) returns void; sql volatile security definer; execute: svc_visitor; pins/pins.sql
-- app_hidden.repo_apply_rules(app_public.external_resources) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_check_host_settings(text,text) returns void; plpgsql immutable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_check_status_rules(jsonb) returns jsonb; plpgsql immutable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_link_json(app_public.external_links) returns jsonb; sql stable; execute: svc_visitor; repohost/shapes.sql
-- app_hidden.repo_mapping_insert(uuid,text,text,text,jsonb,boolean) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_mapping_json(app_public.connection_mappings) returns jsonb; sql stable; execute: svc_visitor; repohost/shapes.sql
-- app_hidden.repo_mapping_resolve(text,text,text) returns app_public.connection_mappings; plpgsql stable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_parse_url(text,text) returns jsonb; plpgsql immutable; execute: svc_visitor; repohost/shapes.sql
-- app_hidden.repo_refuse_token_env(boolean) returns void; plpgsql stable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_resource_imported(uuid) returns boolean; sql stable security definer; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_resource_json(app_public.external_resources) returns jsonb; sql stable; execute: svc_visitor; repohost/shapes.sql
-- app_hidden.repo_resource_record(app_public.connection_mappings,jsonb) returns app_public.external_resources; plpgsql volatile; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repo_web_hosts(app_public.connection_mappings) returns text[]; sql immutable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.repohost_prepare(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; repohost/mappings.sql
-- app_hidden.require_agent_manager() returns app_private.caller; plpgsql stable security definer; execute: svc_visitor; agents/agents.sql
-- app_hidden.require_agent_sees_issue(app_public.agents,app_public.issues,text) returns void; plpgsql stable; execute: svc_visitor; agents/agents.sql
-- app_hidden.require_crew_admin() returns void; plpgsql stable; execute: svc_visitor; orchestration/crews.sql
-- app_hidden.require_issues_unrestricted(text) returns void; plpgsql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.require_key_user() returns uuid; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_live_key() returns void; plpgsql volatile security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.require_open_cycle(app_public.cycles) returns void; plpgsql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.require_other_done_status(app_public.statuses) returns void; plpgsql stable; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.require_own_agent() returns app_public.agents; plpgsql stable; execute: svc_visitor; agents/agents.sql
-- app_hidden.require_relation_room(app_public.issues,text) returns void; plpgsql stable security definer; execute: svc_visitor; relations/relations.sql
-- app_hidden.require_rules_admin_for_label(app_public.labels,text) returns void; plpgsql stable security definer; execute: svc_visitor; labels/labels.sql
-- app_hidden.require_scope(text) returns void; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_time_tracking() returns void; plpgsql stable; execute: svc_visitor; time/time.sql
-- app_hidden.require_unnarrowed(text) returns void; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_unnarrowed_admin(text) returns void; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_user() returns uuid; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_user_or_agent() returns void; plpgsql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_webhook_admin() returns void; plpgsql stable; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.require_webhook_admin_for_change() returns void; plpgsql volatile; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.require_workflow_admin() returns uuid; plpgsql volatile; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.require_workspace_admin() returns void; sql stable; execute: svc_visitor; core/caller.sql
-- app_hidden.require_workspace_admin_key() returns void; plpgsql stable security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.resolve_issue_list(jsonb,text,boolean) returns uuid[]; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.run_closed_message(app_public.agent_runs) returns text; sql stable; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_contract_version() returns text; sql immutable; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_for_agent_change(text,boolean) returns app_public.agent_runs; plpgsql volatile; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_json(app_public.agent_runs) returns jsonb; sql stable; execute: svc_visitor; agents/runs.sql
-- app_hidden.run_list_json(app_public.agent_runs) returns jsonb; sql stable; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_protocol(app_public.agent_runs,app_public.issues) returns jsonb; sql stable; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_set_status(app_public.agent_runs,text,text) returns app_public.agent_runs; plpgsql volatile; execute: svc_visitor; runs/runs.sql
-- app_hidden.run_status_payload(app_public.agent_runs,text,text) returns jsonb; sql stable; execute: svc_visitor; runs/runs.sql
-- app_hidden.runtime_assert_may_report(app_public.runtimes) returns void; plpgsql stable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.runtime_config_check(app_public.runtimes,jsonb) returns void; plpgsql stable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.runtime_has_secret(uuid) returns boolean; sql stable security definer; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.runtime_info_sanitize(jsonb) returns jsonb; sql immutable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.runtime_json(app_public.runtimes) returns jsonb; sql stable; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.runtime_set_secret(uuid,text) returns void; plpgsql volatile security definer; execute: svc_visitor; runtimes/runtimes.sql
-- app_hidden.scope_passes_narrowing(uuid,jsonb) returns boolean; sql stable; execute: svc_visitor; core/narrowing.sql
-- app_hidden.search_document(uuid,text,text) returns tsvector; plpgsql immutable; execute: svc_visitor; issues/search.sql
-- app_hidden.search_keyed_query(uuid,tsquery) returns tsquery; sql immutable; execute: svc_visitor; issues/search.sql
-- app_hidden.search_parts(text) returns tsvector; plpgsql immutable; execute: svc_visitor; issues/search.sql
-- app_hidden.search_tag(uuid) returns text; sql immutable; execute: svc_visitor; issues/search.sql
-- app_hidden.search_tsquery(text,text) returns tsquery; plpgsql immutable; execute: svc_visitor; issues/search.sql
-- app_hidden.set_issue_labels(uuid,uuid[],uuid[]) returns void; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.set_request_context(uuid) returns uuid; plpgsql volatile security definer; execute: svc_visitor; core/caller.sql
-- app_hidden.spent_end(timestamp with time zone,integer) returns timestamp with time zone; plpgsql stable; execute: svc_visitor; time/time.sql
-- app_hidden.spent_start(text) returns timestamp with time zone; plpgsql stable; execute: svc_visitor; time/time.sql
-- app_hidden.status_categories() returns text[]; sql immutable; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.status_json(app_public.statuses) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.statuses_named(text) returns record; plpgsql stable; execute: svc_visitor; statuses/statuses.sql
-- app_hidden.step_block(app_public.execution_steps,text,text,jsonb) returns app_public.review_gates; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.step_dependencies_done(app_public.execution_steps) returns boolean; sql stable; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.step_dispatch_judge(app_public.execution_steps,uuid) returns app_public.execution_steps; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.step_dispatch_work(app_public.execution_steps) returns app_public.execution_steps; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.step_json(app_public.execution_steps) returns jsonb; sql stable; execute: svc_visitor; orchestration/shapes.sql
-- app_hidden.step_make_ready(app_public.execution_steps) returns app_public.execution_steps; plpgsql volatile; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.step_move(app_public.execution_steps,text) returns app_public.execution_steps; plpgsql volatile; execute: svc_visitor; orchestration/machine.sql
-- app_hidden.step_refuse_non_judge(app_public.execution_steps) returns void; plpgsql stable; execute: svc_visitor; orchestration/loop.sql
-- app_hidden.stop_running_timer(uuid) returns app_public.time_entries; sql volatile; execute: svc_visitor; time/time.sql
-- app_hidden.stream_backlog(bigint,integer) returns integer; sql stable; execute: svc_visitor; events/stream.sql
-- app_hidden.stream_events(uuid[]) returns jsonb; sql stable; execute: svc_visitor; events/stream.sql
-- app_hidden.stream_events_after(bigint,integer) returns jsonb; sql stable; execute: svc_visitor; events/stream.sql
-- app_hidden.stream_head() returns bigint; sql stable; execute: svc_visitor; events/stream.sql
-- app_hidden.stream_position(uuid,interval) returns bigint; sql stable security definer; execute: svc_visitor; events/stream.sql
-- app_hidden.subject_issue_id(text,uuid) returns uuid; plpgsql stable security definer; execute: svc_visitor; events/visibility.sql
-- app_hidden.tg__set_updated_at() returns trigger; plpgsql volatile; execute: svc_visitor; core/util.sql
-- app_hidden.time_entries_filtered(jsonb) returns SETOF app_public.time_entries; plpgsql stable; execute: svc_visitor; time/time.sql
-- app_hidden.time_entry_json(app_public.time_entries) returns jsonb; sql stable; execute: svc_visitor; time/time.sql
-- app_hidden.timer_minutes(timestamp with time zone) returns integer; sql stable; execute: svc_visitor; time/time.sql
-- app_hidden.trim_name(text) returns text; sql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.ts_key(timestamp with time zone) returns text; sql stable; execute: svc_visitor; core/util.sql
-- app_hidden.unassign_issue_agent(app_public.issues,text) returns void; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.upcoming_cycle() returns app_public.cycles; sql stable; execute: svc_visitor; cycles/cycles.sql
-- app_hidden.update_issue(app_public.issues,jsonb) returns app_public.issues; plpgsql volatile; execute: svc_visitor; issues/write.sql
-- app_hidden.update_many_item(jsonb,jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/bulk.sql
-- app_hidden.url_hostname(text) returns text; sql immutable; execute: svc_visitor; attachments/attachments.sql
-- app_hidden.user_ref_json(uuid) returns jsonb; sql stable; execute: svc_visitor; core/util.sql
-- app_hidden.user_today(text) returns date; plpgsql stable; execute: svc_visitor; core/util.sql
-- app_hidden.utc_today() returns date; sql stable; execute: svc_visitor; core/util.sql
-- app_hidden.uuid_array(jsonb,text) returns uuid[]; plpgsql immutable; execute: svc_visitor; core/util.sql
-- app_hidden.viewer_update(text,text) returns app_public.users; plpgsql volatile security definer; execute: svc_visitor; workspace/users.sql
-- app_hidden.visible_issue_id(uuid) returns uuid; plpgsql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.watcher_json(app_public.issue_watchers) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.webhook_create(text,text[],text) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_delete(uuid,text) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_deliveries_list(uuid,text,integer,uuid) returns jsonb; plpgsql stable security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_delivery_json(app_public.webhook_deliveries) returns jsonb; sql stable; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_delivery_retry(uuid) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_event_payload(app_public.webhooks) returns jsonb; sql stable; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_in_workspace(uuid,text) returns uuid; plpgsql stable security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_json(app_public.webhooks) returns jsonb; sql stable; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_rotate_secret(uuid,integer,text) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_test(uuid,text) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhook_update(uuid,text,text[],boolean,text,text) returns jsonb; plpgsql volatile security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.webhooks_list() returns jsonb; plpgsql stable security definer; execute: svc_visitor; webhooks/webhooks.sql
-- app_hidden.with_visible_issue(jsonb,text) returns jsonb; sql stable; execute: svc_visitor; issues/shapes.sql
-- app_hidden.workspace_json(app_public.workspaces) returns jsonb; sql stable; execute: svc_visitor; workspace/workspace.sql
-- app_hidden.workspace_update_settings(text,integer,integer,boolean,integer,integer,boolean,text,integer,integer,integer) returns app_public.workspaces; plpgsql volatile security definer; execute: svc_visitor; workspace/workspace.sql

-- ====================================================================================================
-- schema app_private: Secrets, key hashes, counters and security-definer internals. No request-role access.

create type app_private.caller as (key_id uuid, workspace_id uuid, user_id uuid, role text, kind text, plugin_id uuid, scopes text[], project_ids uuid[], label_ids uuid[], initiative_ids uuid[], expires_at timestamp with time zone);

-- Signing secret for agent dispatch deliveries to an agent's webhookUrl; obtained (and replaced) with svc admin rotate-agent-secret.
create table app_private.agent_webhook_secrets (
  agent_id uuid not null,
  workspace_id uuid not null,
  secret text not null,
  rotated_at timestamp with time zone default now() not null,
  previous_secret text, -- The secret the last rotation replaced: it also signs dispatch deliveries until previous_secret_expires_at.
  previous_secret_expires_at timestamp with time zone,
  constraint agent_webhook_secrets_pkey PRIMARY KEY (agent_id),
  constraint agent_webhook_secrets_workspace_id_agent_id_fkey FOREIGN KEY (workspace_id, agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint agent_webhook_secrets_previous_secret_check CHECK (previous_secret ~ '^whsec_[A-Za-z0-9+/]+=*$'::text),
  constraint agent_webhook_secrets_secret_check CHECK (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'::text)
);
alter table app_private.agent_webhook_secrets enable row level security;
alter table app_private.agent_webhook_secrets force row level security;
create policy owner_all on app_private.agent_webhook_secrets for all to current_user using (true) with check (true);

-- API keys. Only the SHA-256 of the token is stored; the raw key is shown once at creation.
create table app_private.api_keys (
  id uuid default gen_random_uuid() not null,
  workspace_id uuid not null,
  user_id uuid,
  plugin_id uuid,
  kind text not null,
  linked_agent_id uuid,
  name text,
  scopes text[] not null,
  project_ids uuid[] default '{}'::uuid[] not null, -- Narrowing: issues/projects outside these projects are invisible. Empty = unrestricted.
  label_ids uuid[] default '{}'::uuid[] not null,
  initiative_ids uuid[] default '{}'::uuid[] not null,
  token_hash bytea not null,
  prefix text not null, -- First 14 characters of the raw key, for display.
  created_at timestamp with time zone default now() not null,
  last_used_at timestamp with time zone,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  issued_by_user_id uuid, -- For a plugin's key: the member who issued it (pluginIssueApiKey); removing them revokes it. Null for other keys and for plugin keys issued before migration 000205.
  constraint api_keys_pkey PRIMARY KEY (id),
  constraint api_keys_token_hash_key UNIQUE (token_hash),
  constraint api_keys_issued_by_user_id_fkey FOREIGN KEY (issued_by_user_id) REFERENCES app_public.users(id) ON DELETE SET NULL,
  constraint api_keys_plugin_id_fkey FOREIGN KEY (plugin_id) REFERENCES app_private.plugins(id) ON DELETE CASCADE,
  constraint api_keys_user_id_fkey FOREIGN KEY (user_id) REFERENCES app_public.users(id) ON DELETE CASCADE,
  constraint api_keys_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint api_keys_workspace_id_linked_agent_id_fkey FOREIGN KEY (workspace_id, linked_agent_id) REFERENCES app_public.agents(workspace_id, id) ON DELETE CASCADE,
  constraint api_keys_agent_link_matches_kind CHECK ((kind = 'AGENT'::text) = (linked_agent_id IS NOT NULL)),
  constraint api_keys_check CHECK (kind <> 'AGENT'::text OR linked_agent_id IS NOT NULL),
  constraint api_keys_check1 CHECK (kind <> 'SESSION'::text OR expires_at IS NOT NULL),
  constraint api_keys_check2 CHECK (user_id IS NOT NULL OR plugin_id IS NOT NULL),
  constraint api_keys_kind_check CHECK (kind = ANY (ARRAY['AGENT'::text, 'PERSONAL'::text, 'SESSION'::text])),
  constraint api_keys_prefix_check CHECK (length(prefix) = 14),
  constraint api_keys_scopes_check CHECK (scopes <@ ARRAY['READ_ISSUES'::text, 'WRITE_ISSUES'::text, 'READ_PROJECTS'::text, 'WRITE_PROJECTS'::text, 'READ_COMMENTS'::text, 'WRITE_COMMENTS'::text, 'READ_USERS'::text, 'WRITE_USERS'::text, 'READ_ANALYTICS'::text, 'SUBSCRIBE_EVENTS'::text, 'INVOKE_SKILLS'::text, 'ADMIN'::text, 'FULL'::text]),
  constraint api_keys_token_hash_check CHECK (length(token_hash) = 32)
);
CREATE INDEX api_keys_issued_by_idx ON app_private.api_keys USING btree (workspace_id, issued_by_user_id) WHERE (issued_by_user_id IS NOT NULL);
CREATE INDEX api_keys_workspace_idx ON app_private.api_keys USING btree (workspace_id);
alter table app_private.api_keys enable row level security;
alter table app_private.api_keys force row level security;
create policy owner_all on app_private.api_keys for all to current_user using (true) with check (true);
CREATE TRIGGER _100_identity_fixed BEFORE UPDATE ON app_private.api_keys FOR EACH ROW WHEN (old.workspace_id IS DISTINCT FROM new.workspace_id OR old.user_id IS DISTINCT FROM new.user_id OR old.plugin_id IS DISTINCT FROM new.plugin_id OR old.kind IS DISTINCT FROM new.kind OR old.linked_agent_id IS DISTINCT FROM new.linked_agent_id OR old.scopes IS DISTINCT FROM new.scopes OR old.project_ids IS DISTINCT FROM new.project_ids OR old.label_ids IS DISTINCT FROM new.label_ids OR old.initiative_ids IS DISTINCT FROM new.initiative_ids OR old.token_hash IS DISTINCT FROM new.token_hash) EXECUTE FUNCTION app_private.tg_api_keys__identity_fixed();
CREATE TRIGGER _800_events_created AFTER INSERT ON app_private.api_keys FOR EACH ROW EXECUTE FUNCTION app_private.tg_api_keys__events();
CREATE TRIGGER _800_events_revoked AFTER UPDATE OF revoked_at ON app_private.api_keys FOR EACH ROW WHEN (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) EXECUTE FUNCTION app_private.tg_api_keys__events();
CREATE TRIGGER _850_agent_offline AFTER UPDATE OF revoked_at ON app_private.api_keys FOR EACH ROW WHEN (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL AND new.linked_agent_id IS NOT NULL) EXECUTE FUNCTION app_private.tg_api_keys__agent_offline();
CREATE TRIGGER _850_wake_dispatcher AFTER INSERT ON app_private.api_keys FOR EACH ROW WHEN (new.linked_agent_id IS NOT NULL) EXECUTE FUNCTION app_private.tg_api_keys__wake_dispatcher();
CREATE TRIGGER _900_notify_deleted AFTER DELETE ON app_private.api_keys FOR EACH ROW EXECUTE FUNCTION app_private.tg_api_keys__notify_revoked();
CREATE TRIGGER _900_notify_revoked AFTER UPDATE OF revoked_at ON app_private.api_keys FOR EACH ROW WHEN (new.revoked_at IS NOT NULL AND old.revoked_at IS NULL) EXECUTE FUNCTION app_private.tg_api_keys__notify_revoked();

-- Write calls made with an idempotency key in the last 24 hours: the tool, a hash of its arguments and the answer given (sql/core/idempotency.sql).
create table app_private.idempotent_calls (
  workspace_id uuid not null,
  key_id uuid not null,
  idempotency_key text not null,
  tool text not null,
  request_hash text not null,
  response text,
  created_at timestamp with time zone default now() not null,
  constraint idempotent_calls_pkey PRIMARY KEY (key_id, idempotency_key),
  constraint idempotent_calls_key_id_fkey FOREIGN KEY (key_id) REFERENCES app_private.api_keys(id) ON DELETE CASCADE,
  constraint idempotent_calls_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE,
  constraint idempotent_calls_idempotency_key_check CHECK (length(idempotency_key) >= 1 AND length(idempotency_key) <= 255)
);
CREATE INDEX idempotent_calls_created_at_idx ON app_private.idempotent_calls USING btree (created_at);
CREATE INDEX idempotent_calls_workspace_id_idx ON app_private.idempotent_calls USING btree (workspace_id);
alter table app_private.idempotent_calls enable row level security;
alter table app_private.idempotent_calls force row level security;
create policy owner_all on app_private.idempotent_calls for all to current_user using (true) with check (true);

-- Sub-issues a soft delete made top-level, by parent: issues.restore reattaches those still live and top-level. A child's row goes when its parentId changes again.
create table app_private.issue_detachments (
  workspace_id uuid not null,
  parent_id uuid not null,
  child_id uuid not null,
  detached_at timestamp with time zone default now() not null,
  constraint issue_detachments_pkey PRIMARY KEY (parent_id, child_id),
  constraint issue_detachments_child_id_fkey FOREIGN KEY (child_id) REFERENCES app_public.issues(id) ON DELETE CASCADE,
  constraint issue_detachments_parent_id_fkey FOREIGN KEY (parent_id) REFERENCES app_public.issues(id) ON DELETE CASCADE,
  constraint issue_detachments_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE
);
CREATE INDEX issue_detachments_child_idx ON app_private.issue_detachments USING btree (child_id);
alter table app_private.issue_detachments enable row level security;
alter table app_private.issue_detachments force row level security;
create policy owner_all on app_private.issue_detachments for all to current_user using (true) with check (true);

-- Outbound targets (a webhook's or agent's delivery channel with the URL's origin, or a workspace's link fetches) that timed out, and until when they cool off; the workspace is the tenant whose channel or links it is; shared by every worker process. Unlogged: lost on a crash, which only ends the cool-offs.
create unlogged table app_private.outbound_cool_offs (
  target text not null,
  workspace_id uuid not null,
  until timestamp with time zone not null,
  constraint outbound_cool_offs_pkey PRIMARY KEY (target),
  constraint outbound_cool_offs_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE
);
alter table app_private.outbound_cool_offs enable row level security;
alter table app_private.outbound_cool_offs force row level security;
create policy owner_all on app_private.outbound_cool_offs for all to current_user using (true) with check (true);

-- Approved plugin records; keys issued under a plugin may hold only a subset of manifest.scopes.
create table app_private.plugins (
  id uuid default gen_random_uuid() not null,
  workspace_id uuid not null,
  name text not null,
  manifest jsonb default '{"scopes": []}'::jsonb not null,
  approved_at timestamp with time zone,
  created_at timestamp with time zone default now() not null,
  constraint plugins_pkey PRIMARY KEY (id),
  constraint plugins_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES app_public.workspaces(id) ON DELETE CASCADE
);
alter table app_private.plugins enable row level security;
alter table app_private.plugins force row level security;
create policy owner_all on app_private.plugins for all to current_user using (true) with check (true);
CREATE TRIGGER _800_events AFTER INSERT OR UPDATE ON app_private.plugins FOR EACH ROW EXECUTE FUNCTION app_private.tg_plugins__events();

-- Calls per API key and surface (rpc = JSON-RPC, rest = REST aliases and GraphQL) in the current one-minute window; shared by all API processes. Unlogged: lost on a crash, which only resets the limits.
create unlogged table app_private.rate_limit_counters (
  key_id uuid not null,
  surface text not null,
  workspace_id uuid not null,
  window_start timestamp with time zone not null,
  calls integer not null,
  constraint rate_limit_counters_pkey PRIMARY KEY (key_id, surface),
  constraint rate_limit_counters_calls_check CHECK (calls >= 0),
  constraint rate_limit_counters_surface_check CHECK (surface = ANY (ARRAY['rpc'::text, 'rest'::text]))
);
alter table app_private.rate_limit_counters enable row level security;
alter table app_private.rate_limit_counters force row level security;
create policy owner_all on app_private.rate_limit_counters for all to current_user using (true) with check (true);

-- SHA-256 of a runtime's shared secret (given once at runtimes.register); shown only as hasSecret.
create table app_private.runtime_secrets (
  runtime_id uuid not null,
  workspace_id uuid not null,
  secret_hash bytea not null,
  created_at timestamp with time zone default now() not null,
  constraint runtime_secrets_pkey PRIMARY KEY (runtime_id),
  constraint runtime_secrets_workspace_id_runtime_id_fkey FOREIGN KEY (workspace_id, runtime_id) REFERENCES app_public.runtimes(workspace_id, id) ON DELETE CASCADE
);
CREATE INDEX runtime_secrets_workspace_idx ON app_private.runtime_secrets USING btree (workspace_id, runtime_id);
alter table app_private.runtime_secrets enable row level security;
alter table app_private.runtime_secrets force row level security;
create policy owner_all on app_private.runtime_secrets for all to current_user using (true) with check (true);

-- Signing secret of each webhook (whsec_<base64>, Standard Webhooks format). Shown once at creation or rotation; never readable by the request role.
create table app_private.webhook_secrets (
  webhook_id uuid not null,
  workspace_id uuid not null,
  secret text not null,
  rotated_at timestamp with time zone default now() not null,
  previous_secret text, -- The secret the last rotation replaced: it also signs deliveries until previous_secret_expires_at.
  previous_secret_expires_at timestamp with time zone,
  constraint webhook_secrets_pkey PRIMARY KEY (webhook_id),
  constraint webhook_secrets_workspace_id_webhook_id_fkey FOREIGN KEY (workspace_id, webhook_id) REFERENCES app_public.webhooks(workspace_id, id) ON DELETE CASCADE,
  constraint webhook_secrets_previous_secret_check CHECK (previous_secret ~ '^whsec_[A-Za-z0-9+/]+=*$'::text),
  constraint webhook_secrets_secret_check CHECK (secret ~ '^whsec_[A-Za-z0-9+/]+=*$'::text)
);
alter table app_private.webhook_secrets enable row level security;
alter table app_private.webhook_secrets force row level security;
create policy owner_all on app_private.webhook_secrets for all to current_user using (true) with check (true);

-- functions of app_private (definitions in sql/)
-- app_private.add_member(uuid,text,text) returns jsonb; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.agent_for_write(uuid,uuid) returns app_public.agents; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.agent_has_live_key(uuid,timestamp with time zone) returns boolean; sql stable; execute: owner only; agents/agents.sql
-- app_private.agent_holders(uuid,uuid) returns text[]; sql stable; execute: owner only; agents/agents.sql
-- app_private.api_key_info(app_private.api_keys,uuid) returns app_public.api_key; sql stable; execute: owner only; auth/keys.sql
-- app_private.attachment_set_link_title(uuid,text) returns void; sql volatile; execute: owner only; attachments/jobs.sql
-- app_private.attachment_upload_expire(uuid) returns text; sql volatile; execute: owner only; attachments/jobs.sql
-- app_private.attachment_upload_open(text) returns boolean; sql stable; execute: owner only; attachments/jobs.sql
-- app_private.attachments_enqueue(text,json,timestamp with time zone,text[]) returns void; plpgsql volatile security definer; execute: owner only; attachments/jobs.sql
-- app_private.begin_membership_change(uuid,text) returns app_private.caller; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.blob_link_key_live(uuid,uuid) returns boolean; sql stable; execute: owner only; attachments/jobs.sql
-- app_private.chat_open_thread(uuid,uuid,uuid,text,uuid,text,text) returns jsonb; plpgsql volatile security definer; execute: owner only; chat/chat.sql
-- app_private.chat_person_caller() returns app_private.caller; plpgsql stable security definer; execute: owner only; chat/chat.sql
-- app_private.chat_post_user_message(uuid,uuid,uuid,text,jsonb) returns app_public.chat_messages; plpgsql volatile security definer; execute: owner only; chat/chat.sql
-- app_private.check_webhook_input(text,text[]) returns text[]; plpgsql immutable; execute: owner only; webhooks/webhooks.sql
-- app_private.create_agent(uuid,text,text,text[],text,text,integer,text) returns app_public.agents; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.create_api_key(uuid,uuid,text,uuid,text[],uuid[],uuid[],uuid[],timestamp with time zone,bytea,text,text,uuid) returns app_private.api_keys; plpgsql volatile; execute: owner only; auth/keys.sql
-- app_private.create_dispatch_rule(uuid,uuid,text,uuid,uuid,text) returns jsonb; plpgsql volatile; execute: owner only; dispatch/rules.sql
-- app_private.create_plugin(uuid,text,text[],jsonb) returns app_private.plugins; plpgsql volatile; execute: owner only; auth/plugins.sql
-- app_private.create_workspace(text,text,text) returns jsonb; plpgsql volatile; execute: owner only; workspace/workspace.sql
-- app_private.current_caller() returns app_private.caller; plpgsql stable; execute: owner only; core/caller.sql
-- app_private.delete_agent(uuid,uuid) returns app_public.agents; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.delete_workspace(uuid) returns jsonb; plpgsql volatile; execute: owner only; workspace/workspace.sql
-- app_private.dispatch_coalesce(uuid) returns integer; plpgsql volatile security definer; execute: owner only; dispatch/dispatcher.sql
-- app_private.dispatch_next(uuid) returns jsonb; plpgsql volatile; execute: owner only; dispatch/dispatcher.sql
-- app_private.dispatch_pick(app_public.issues,text,app_public.agents[]) returns record; plpgsql stable; execute: owner only; dispatch/dispatcher.sql
-- app_private.dispatch_sweep() returns integer; plpgsql volatile security definer; execute: owner only; dispatch/dispatcher.sql
-- app_private.enqueue_agent_dispatch(uuid,uuid) returns uuid; plpgsql volatile security definer; execute: owner only; agents/agents.sql
-- app_private.enqueue_delivery_job(uuid,timestamp with time zone,boolean) returns void; plpgsql volatile security definer; execute: owner only; webhooks/webhooks.sql
-- app_private.enqueue_fanout_job(uuid) returns void; plpgsql volatile security definer; execute: owner only; webhooks/webhooks.sql
-- app_private.ensure_user(text) returns app_public.users; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.find_agent(uuid,uuid) returns app_public.agents; plpgsql stable; execute: owner only; agents/agents.sql
-- app_private.find_membership(uuid,uuid) returns app_public.memberships; plpgsql stable; execute: owner only; workspace/members.sql
-- app_private.generate_api_token() returns record; plpgsql volatile; execute: owner only; auth/keys.sql
-- app_private.issue_api_key(uuid,uuid,text,uuid,text[],uuid[],uuid[],uuid[],timestamp with time zone,text,uuid) returns app_public.issued_api_key; plpgsql volatile; execute: owner only; auth/keys.sql
-- app_private.issue_last_event_at(uuid,uuid,text) returns timestamp with time zone; sql stable; execute: owner only; dispatch/watchdogs.sql
-- app_private.issue_number_sequence(uuid) returns text; sql immutable; execute: owner only; issues/triggers.sql
-- app_private.lock_owners(uuid) returns void; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.lock_webhook_registrations(uuid) returns void; sql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.narrowing_within(app_private.caller,uuid[],uuid[],uuid[]) returns boolean; sql stable; execute: owner only; auth/keys.sql
-- app_private.new_webhook_secret() returns text; sql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.notification_preference_effective(uuid,uuid,text) returns TABLE(enabled boolean, delivery text, source text); sql stable; execute: owner only; notification/preferences.sql
-- app_private.outbound_cool_off_set(uuid,text,timestamp with time zone) returns void; plpgsql volatile; execute: owner only; core/outbound.sql
-- app_private.outbound_cool_off_until(text) returns timestamp with time zone; sql stable; execute: owner only; core/outbound.sql
-- app_private.outbound_flags(uuid) returns text[]; sql immutable; execute: owner only; webhooks/webhooks.sql
-- app_private.plugin_info(app_private.plugins) returns app_public.plugin_info; sql stable; execute: owner only; auth/plugins.sql
-- app_private.plugin_skills(jsonb) returns jsonb; plpgsql immutable; execute: owner only; auth/plugins.sql
-- app_private.previous_secret_until(integer) returns timestamp with time zone; plpgsql stable; execute: owner only; webhooks/webhooks.sql
-- app_private.publish_ephemeral_event(uuid,text,text,uuid,jsonb) returns jsonb; plpgsql volatile; execute: owner only; events/record.sql
-- app_private.purge_idempotent_calls() returns integer; sql volatile; execute: owner only; core/idempotency.sql
-- app_private.record_event(uuid,text,text,uuid,jsonb) returns uuid; plpgsql volatile security definer; execute: owner only; events/record.sql
-- app_private.record_issue_updated(uuid,uuid,text[],jsonb) returns void; plpgsql volatile security definer; execute: owner only; events/record.sql
-- app_private.remove_member(uuid,uuid) returns app_public.memberships; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.require_admin(app_private.caller) returns void; plpgsql stable; execute: owner only; core/caller.sql
-- app_private.require_narrowing_current(uuid,uuid[],uuid[],uuid[]) returns void; plpgsql stable; execute: owner only; auth/keys.sql
-- app_private.require_plugin_manager(app_private.caller) returns void; plpgsql stable; execute: owner only; auth/plugins.sql
-- app_private.require_scopes_within(app_private.caller,text[]) returns void; plpgsql stable; execute: owner only; auth/keys.sql
-- app_private.revoke_api_key(uuid) returns app_private.api_keys; plpgsql volatile; execute: owner only; auth/keys.sql
-- app_private.rotate_agent_webhook_secret(uuid,integer) returns jsonb; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.scopes_not_held(app_private.caller,text[]) returns text[]; sql stable; execute: owner only; auth/keys.sql
-- app_private.sequence_events(integer) returns integer; plpgsql volatile security definer; execute: owner only; events/stream.sql
-- app_private.set_agent_archived(uuid,uuid,boolean) returns app_public.agents; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.set_member_role(uuid,uuid,text) returns app_public.memberships; plpgsql volatile; execute: owner only; workspace/members.sql
-- app_private.steps_pass_over_archived_agent(uuid,uuid) returns void; plpgsql volatile; execute: owner only; orchestration/loop.sql
-- app_private.stop_running_timers(uuid,uuid,uuid) returns void; sql volatile; execute: owner only; time/time.sql
-- app_private.sweep_offline_agents_work(timestamp with time zone) returns jsonb; plpgsql volatile security definer; execute: owner only; agents/agents.sql
-- app_private.sweep_silent_agents(timestamp with time zone) returns jsonb; plpgsql volatile security definer; execute: owner only; agents/agents.sql
-- app_private.sweep_stale_runs(timestamp with time zone) returns jsonb; plpgsql volatile security definer; execute: owner only; runs/runs.sql
-- app_private.take_work_from_agent(uuid,uuid,text) returns uuid[]; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.tg_action_requests__events() returns trigger; plpgsql volatile security definer; execute: owner only; actionRequests/triggers.sql
-- app_private.tg_activity_events__agent_dispatch() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.tg_activity_events__webhooks() returns trigger; plpgsql volatile security definer; execute: owner only; events/triggers.sql
-- app_private.tg_agent_crew_members__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_agent_crews__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_agent_runs__abandoned() returns trigger; plpgsql volatile security definer; execute: owner only; agents/triggers.sql
-- app_private.tg_agent_runs__plan_budget() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_agent_runs__stalled_activity() returns trigger; plpgsql volatile security definer; execute: owner only; agents/triggers.sql
-- app_private.tg_agents__events() returns trigger; plpgsql volatile security definer; execute: owner only; agents/triggers.sql
-- app_private.tg_agents__notify_keys() returns trigger; plpgsql volatile security definer; execute: owner only; agents/triggers.sql
-- app_private.tg_agents__wake_dispatcher() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.tg_api_keys__agent_offline() returns trigger; plpgsql volatile security definer; execute: owner only; auth/triggers.sql
-- app_private.tg_api_keys__events() returns trigger; plpgsql volatile; execute: owner only; auth/triggers.sql
-- app_private.tg_api_keys__identity_fixed() returns trigger; plpgsql volatile; execute: owner only; auth/triggers.sql
-- app_private.tg_api_keys__notify_revoked() returns trigger; plpgsql volatile; execute: owner only; auth/triggers.sql
-- app_private.tg_api_keys__wake_dispatcher() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.tg_attachment_uploads__expiry_job() returns trigger; plpgsql volatile security definer; execute: owner only; attachments/triggers.sql
-- app_private.tg_attachments__events() returns trigger; plpgsql volatile security definer; execute: owner only; attachments/triggers.sql
-- app_private.tg_attachments__link_title() returns trigger; plpgsql volatile security definer; execute: owner only; attachments/triggers.sql
-- app_private.tg_chat_messages__seq() returns trigger; plpgsql volatile security definer; execute: owner only; chat/triggers.sql
-- app_private.tg_comments__drop_attachments() returns trigger; plpgsql volatile security definer; execute: owner only; comments/triggers.sql
-- app_private.tg_comments__events() returns trigger; plpgsql volatile security definer; execute: owner only; comments/triggers.sql
-- app_private.tg_connection_mappings__events() returns trigger; plpgsql volatile security definer; execute: owner only; repohost/triggers.sql
-- app_private.tg_cycles__events() returns trigger; plpgsql volatile security definer; execute: owner only; cycles/triggers.sql
-- app_private.tg_dispatch_rules__events() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/triggers.sql
-- app_private.tg_dispatch_rules__wake_dispatcher() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.tg_execution_plans__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_execution_steps__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_external_links__events() returns trigger; plpgsql volatile security definer; execute: owner only; repohost/triggers.sql
-- app_private.tg_external_resources__events() returns trigger; plpgsql volatile security definer; execute: owner only; repohost/triggers.sql
-- app_private.tg_goals__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_goals__live_crew() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_initiatives__events() returns trigger; plpgsql volatile security definer; execute: owner only; initiatives/triggers.sql
-- app_private.tg_issue_labels__events() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issue_labels__label_ids() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issue_relations__events() returns trigger; plpgsql volatile security definer; execute: owner only; relations/triggers.sql
-- app_private.tg_issues__assign_number() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__detach_children() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__events() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__keep_finished_in_ended_cycle() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__live_parent() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__out_of_agent_view() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__plugin_creator() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__queued_at() returns trigger; plpgsql volatile; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__restore_links() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__run_activity() returns trigger; plpgsql volatile; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__run_mode_gate() returns trigger; plpgsql volatile; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__status_timestamps() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__stop_timers() returns trigger; plpgsql volatile security definer; execute: owner only; issues/triggers.sql
-- app_private.tg_issues__wake_dispatcher() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.tg_labels__events() returns trigger; plpgsql volatile security definer; execute: owner only; labels/triggers.sql
-- app_private.tg_memberships__events() returns trigger; plpgsql volatile security definer; execute: owner only; workspace/triggers.sql
-- app_private.tg_plugins__events() returns trigger; plpgsql volatile security definer; execute: owner only; auth/triggers.sql
-- app_private.tg_projects__events() returns trigger; plpgsql volatile security definer; execute: owner only; projects/triggers.sql
-- app_private.tg_review_gates__events() returns trigger; plpgsql volatile security definer; execute: owner only; orchestration/triggers.sql
-- app_private.tg_workspaces__deleting() returns trigger; plpgsql volatile security definer; execute: owner only; workspace/triggers.sql
-- app_private.tg_workspaces__drop_number_sequence() returns trigger; plpgsql volatile security definer; execute: owner only; workspace/triggers.sql
-- app_private.tg_workspaces__events() returns trigger; plpgsql volatile; execute: owner only; workspace/triggers.sql
-- app_private.tg_workspaces__seed_statuses() returns trigger; plpgsql volatile security definer; execute: owner only; workspace/triggers.sql
-- app_private.tg_workspaces__stop_timers() returns trigger; plpgsql volatile security definer; execute: owner only; workspace/triggers.sql
-- app_private.tg_workspaces__wake_dispatcher() returns trigger; plpgsql volatile security definer; execute: owner only; dispatch/wake.sql
-- app_private.touch_api_keys(uuid[],timestamp with time zone[]) returns void; sql volatile; execute: owner only; auth/keys.sql
-- app_private.update_agent(uuid,uuid,text,text,text[],text,text,integer,text,boolean) returns app_public.agents; plpgsql volatile; execute: owner only; agents/agents.sql
-- app_private.update_user(uuid,text,text) returns app_public.users; plpgsql volatile security definer; execute: owner only; workspace/users.sql
-- app_private.update_workspace_settings(uuid,text,integer,integer,boolean,integer,integer,boolean,text,integer,integer,integer) returns app_public.workspaces; plpgsql volatile; execute: owner only; workspace/workspace.sql
-- app_private.waiting_dispatch_jobs(uuid) returns SETOF bigint; plpgsql stable; execute: owner only; dispatch/dispatcher.sql
-- app_private.wake_dispatcher(uuid) returns void; plpgsql volatile security definer; execute: owner only; dispatch/dispatcher.sql
-- app_private.watchdog_fired_recently(uuid,uuid,text,timestamp with time zone,timestamp with time zone) returns boolean; sql stable; execute: owner only; dispatch/watchdogs.sql
-- app_private.watchdog_sweep(timestamp with time zone) returns jsonb; plpgsql volatile; execute: owner only; dispatch/watchdogs.sql
-- app_private.webhook_create(uuid,text,text[],text) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_deactivate(uuid,text) returns void; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_delete(uuid) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_deliveries_list(uuid,uuid,text,integer,uuid) returns jsonb; plpgsql stable; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_deliveries_prune(integer,integer) returns integer; plpgsql volatile security definer; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_deliveries_sweep(integer,boolean) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_delivery_claim(uuid,integer) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_delivery_record(uuid,jsonb,numeric[],numeric) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_delivery_retry(uuid) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_fanout(uuid,integer,text) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_rotate_secret(uuid,integer) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_test(uuid) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhook_update(uuid,text,text[],boolean,text) returns jsonb; plpgsql volatile; execute: owner only; webhooks/webhooks.sql
-- app_private.webhooks_list(uuid) returns jsonb; sql stable; execute: owner only; webhooks/webhooks.sql
-- app_private.workspace_by_key(text) returns app_public.workspaces; plpgsql stable; execute: owner only; workspace/workspace.sql
-- app_private.workspace_seq_sequence(uuid) returns text; sql immutable; execute: owner only; events/record.sql

-- ====================================================================================================
-- schema app_tools: One function per MCP tool, named <namespace>_<tool>(args jsonb) returns jsonb; called by the API with the caller identity set.
-- usage: svc_visitor:USAGE

-- functions of app_tools (definitions in sql/)
-- app_tools.action_requests_accept(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/accept.sql
-- app_tools.action_requests_close_voting(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/closeVoting.sql
-- app_tools.action_requests_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/create.sql
-- app_tools.action_requests_decline(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/decline.sql
-- app_tools.action_requests_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; actionRequests/tools/get.sql
-- app_tools.action_requests_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; actionRequests/tools/list.sql
-- app_tools.action_requests_results(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; actionRequests/tools/results.sql
-- app_tools.action_requests_transition(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/transition.sql
-- app_tools.action_requests_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/update.sql
-- app_tools.action_requests_vote(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; actionRequests/tools/vote.sql
-- app_tools.agent_context_bundle(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agent/tools/contextBundle.sql
-- app_tools.agent_crews_add_member(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/addMember.sql
-- app_tools.agent_crews_archive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/archive.sql
-- app_tools.agent_crews_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/create.sql
-- app_tools.agent_crews_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agentCrews/tools/get.sql
-- app_tools.agent_crews_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agentCrews/tools/list.sql
-- app_tools.agent_crews_remove_member(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/removeMember.sql
-- app_tools.agent_crews_set_member_role(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/setMemberRole.sql
-- app_tools.agent_crews_unarchive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/unarchive.sql
-- app_tools.agent_crews_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agentCrews/tools/update.sql
-- app_tools.agents_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agents/tools/get.sql
-- app_tools.agents_heartbeat(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; agents/tools/heartbeat.sql
-- app_tools.agents_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agents/tools/list.sql
-- app_tools.agents_me(jsonb) returns jsonb; sql stable; execute: svc_visitor; agents/tools/me.sql
-- app_tools.agents_workload(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; agents/tools/workload.sql
-- app_tools.analytics_summary(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; analytics/tools/summary.sql
-- app_tools.attachments_attach_link(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; attachments/tools/attachLink.sql
-- app_tools.attachments_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; attachments/tools/delete.sql
-- app_tools.attachments_finalize(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; attachments/tools/finalize.sql
-- app_tools.attachments_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; attachments/tools/get.sql
-- app_tools.attachments_get_download_url(jsonb) returns jsonb; sql stable; execute: svc_visitor; attachments/tools/getDownloadUrl.sql
-- app_tools.attachments_get_inline(jsonb) returns jsonb; sql stable; execute: svc_visitor; attachments/tools/getInline.sql
-- app_tools.attachments_init_upload(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; attachments/tools/initUpload.sql
-- app_tools.attachments_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; attachments/tools/list.sql
-- app_tools.attachments_upload(jsonb) returns jsonb; sql volatile; execute: svc_visitor; attachments/tools/upload.sql
-- app_tools.canvas_add_node(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/addNode.sql
-- app_tools.canvas_connect(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/connect.sql
-- app_tools.canvas_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/create.sql
-- app_tools.canvas_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/delete.sql
-- app_tools.canvas_disconnect(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/disconnect.sql
-- app_tools.canvas_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; canvas/tools/get.sql
-- app_tools.canvas_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; canvas/tools/list.sql
-- app_tools.canvas_remove_node(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/removeNode.sql
-- app_tools.canvas_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/update.sql
-- app_tools.canvas_update_node(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; canvas/tools/updateNode.sql
-- app_tools.chat_append_draft_chunk(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; chat/tools/appendDraftChunk.sql
-- app_tools.chat_append_message(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; chat/tools/appendMessage.sql
-- app_tools.chat_finalize_draft(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; chat/tools/finalizeDraft.sql
-- app_tools.chat_get_message(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; chat/tools/getMessage.sql
-- app_tools.chat_get_thread(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; chat/tools/getThread.sql
-- app_tools.chat_list_messages(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; chat/tools/listMessages.sql
-- app_tools.chat_list_threads(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; chat/tools/listThreads.sql
-- app_tools.chat_start_draft(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; chat/tools/startDraft.sql
-- app_tools.comments_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; comments/tools/create.sql
-- app_tools.comments_create_many(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; comments/tools/createMany.sql
-- app_tools.comments_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; comments/tools/delete.sql
-- app_tools.comments_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; comments/tools/get.sql
-- app_tools.comments_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; comments/tools/list.sql
-- app_tools.comments_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; comments/tools/update.sql
-- app_tools.comments_upsert_status(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; comments/tools/upsertStatus.sql
-- app_tools.cycles_add_issue(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/addIssue.sql
-- app_tools.cycles_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/create.sql
-- app_tools.cycles_current(jsonb) returns jsonb; sql stable; execute: svc_visitor; cycles/tools/current.sql
-- app_tools.cycles_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/delete.sql
-- app_tools.cycles_get(jsonb) returns jsonb; sql stable; execute: svc_visitor; cycles/tools/get.sql
-- app_tools.cycles_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; cycles/tools/list.sql
-- app_tools.cycles_plan(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/plan.sql
-- app_tools.cycles_remove_issue(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/removeIssue.sql
-- app_tools.cycles_rollover(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/rollover.sql
-- app_tools.cycles_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; cycles/tools/update.sql
-- app_tools.events_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; events/tools/get.sql
-- app_tools.events_recent(jsonb) returns json; plpgsql stable; execute: svc_visitor; events/tools/recent.sql
-- app_tools.execution_plans_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; executionPlans/tools/create.sql
-- app_tools.execution_plans_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; executionPlans/tools/get.sql
-- app_tools.execution_plans_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; executionPlans/tools/list.sql
-- app_tools.execution_plans_transition(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; executionPlans/tools/transition.sql
-- app_tools.execution_plans_transition_step(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; executionPlans/tools/transitionStep.sql
-- app_tools.goals_abandon(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; goals/tools/abandon.sql
-- app_tools.goals_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; goals/tools/create.sql
-- app_tools.goals_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; goals/tools/get.sql
-- app_tools.goals_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; goals/tools/list.sql
-- app_tools.goals_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; goals/tools/update.sql
-- app_tools.initiatives_archive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/archive.sql
-- app_tools.initiatives_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/create.sql
-- app_tools.initiatives_get(jsonb) returns jsonb; sql stable; execute: svc_visitor; initiatives/tools/get.sql
-- app_tools.initiatives_link_project(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/linkProject.sql
-- app_tools.initiatives_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; initiatives/tools/list.sql
-- app_tools.initiatives_summary(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; initiatives/tools/summary.sql
-- app_tools.initiatives_unarchive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/unarchive.sql
-- app_tools.initiatives_unlink_project(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/unlinkProject.sql
-- app_tools.initiatives_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; initiatives/tools/update.sql
-- app_tools.issues_add_labels(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/addLabels.sql
-- app_tools.issues_assign(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/assign.sql
-- app_tools.issues_assigned(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; issues/tools/assigned.sql
-- app_tools.issues_children(jsonb) returns json; plpgsql stable; execute: svc_visitor; issues/tools/children.sql
-- app_tools.issues_claim(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/claim.sql
-- app_tools.issues_count(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; issues/tools/count.sql
-- app_tools.issues_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/create.sql
-- app_tools.issues_create_many(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/createMany.sql
-- app_tools.issues_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/delete.sql
-- app_tools.issues_get(jsonb) returns json; plpgsql stable; execute: svc_visitor; issues/tools/get.sql
-- app_tools.issues_history(jsonb) returns json; plpgsql stable; execute: svc_visitor; issues/tools/history.sql
-- app_tools.issues_list(jsonb) returns json; plpgsql stable; execute: svc_visitor; issues/tools/list.sql
-- app_tools.issues_list_watchers(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; issues/tools/listWatchers.sql
-- app_tools.issues_list_watching(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; issues/tools/listWatching.sql
-- app_tools.issues_queue(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/queue.sql
-- app_tools.issues_reassign(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/reassign.sql
-- app_tools.issues_release(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/release.sql
-- app_tools.issues_remove_labels(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/removeLabels.sql
-- app_tools.issues_restore(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/restore.sql
-- app_tools.issues_transition(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/transition.sql
-- app_tools.issues_unassign(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/unassign.sql
-- app_tools.issues_unwatch(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/unwatch.sql
-- app_tools.issues_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/update.sql
-- app_tools.issues_update_many(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/updateMany.sql
-- app_tools.issues_watch(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; issues/tools/watch.sql
-- app_tools.labels_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; labels/tools/create.sql
-- app_tools.labels_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; labels/tools/delete.sql
-- app_tools.labels_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; labels/tools/get.sql
-- app_tools.labels_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; labels/tools/list.sql
-- app_tools.labels_merge(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; labels/tools/merge.sql
-- app_tools.labels_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; labels/tools/update.sql
-- app_tools.members_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; members/tools/get.sql
-- app_tools.members_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; members/tools/list.sql
-- app_tools.notes_archive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notes/tools/archive.sql
-- app_tools.notes_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notes/tools/create.sql
-- app_tools.notes_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; notes/tools/get.sql
-- app_tools.notes_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; notes/tools/list.sql
-- app_tools.notes_list_journal(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; notes/tools/listJournal.sql
-- app_tools.notes_today_journal(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notes/tools/todayJournal.sql
-- app_tools.notes_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notes/tools/update.sql
-- app_tools.notification_get_preferences(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; notification/tools/getPreferences.sql
-- app_tools.notification_reset_preference(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notification/tools/resetPreference.sql
-- app_tools.notification_set_preference(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; notification/tools/setPreference.sql
-- app_tools.pins_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; pins/tools/list.sql
-- app_tools.pins_set(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; pins/tools/set.sql
-- app_tools.plans_activate(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/activate.sql
-- app_tools.plans_add_steps(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/addSteps.sql
-- app_tools.plans_decompose(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/decompose.sql
-- app_tools.plans_judge(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/judge.sql
-- app_tools.plans_record_verdict(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/recordVerdict.sql
-- app_tools.plans_request_approval(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plans/tools/requestApproval.sql
-- app_tools.plugins_report_error(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; plugins/tools/reportError.sql
-- app_tools.projects_archive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; projects/tools/archive.sql
-- app_tools.projects_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; projects/tools/create.sql
-- app_tools.projects_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; projects/tools/get.sql
-- app_tools.projects_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; projects/tools/list.sql
-- app_tools.projects_summary(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; projects/tools/summary.sql
-- app_tools.projects_unarchive(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; projects/tools/unarchive.sql
-- app_tools.projects_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; projects/tools/update.sql
-- app_tools.relations_add(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; relations/tools/add.sql
-- app_tools.relations_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; relations/tools/list.sql
-- app_tools.relations_list_for_issue(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; relations/tools/listForIssue.sql
-- app_tools.relations_remove(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; relations/tools/remove.sql
-- app_tools.repohost_import_issue(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/tools/importIssue.sql
-- app_tools.repohost_link(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/tools/link.sql
-- app_tools.repohost_list_linked(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; repohost/tools/listLinked.sql
-- app_tools.repohost_parse_url(jsonb) returns jsonb; sql immutable; execute: svc_visitor; repohost/tools/parseUrl.sql
-- app_tools.repohost_search(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; repohost/tools/search.sql
-- app_tools.repohost_sync(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/tools/sync.sql
-- app_tools.repohost_unlink(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; repohost/tools/unlink.sql
-- app_tools.review_gates_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; reviewGates/tools/get.sql
-- app_tools.review_gates_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; reviewGates/tools/list.sql
-- app_tools.review_gates_open(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; reviewGates/tools/open.sql
-- app_tools.review_gates_resolve(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; reviewGates/tools/resolve.sql
-- app_tools.runs_cancel(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/cancel.sql
-- app_tools.runs_complete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/complete.sql
-- app_tools.runs_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; runs/tools/get.sql
-- app_tools.runs_kick(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/kick.sql
-- app_tools.runs_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; runs/tools/list.sql
-- app_tools.runs_record_usage(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/recordUsage.sql
-- app_tools.runs_resume_work(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/resumeWork.sql
-- app_tools.runs_set_waiting(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runs/tools/setWaiting.sql
-- app_tools.runtimes_configure(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runtimes/tools/configure.sql
-- app_tools.runtimes_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; runtimes/tools/get.sql
-- app_tools.runtimes_heartbeat(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runtimes/tools/heartbeat.sql
-- app_tools.runtimes_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; runtimes/tools/list.sql
-- app_tools.runtimes_register(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runtimes/tools/register.sql
-- app_tools.runtimes_report_info(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; runtimes/tools/reportInfo.sql
-- app_tools.skills_invoke(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; skills/tools/invoke.sql
-- app_tools.skills_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; skills/tools/list.sql
-- app_tools.standup_draft(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; standup/tools/draft.sql
-- app_tools.statuses_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; statuses/tools/create.sql
-- app_tools.statuses_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; statuses/tools/delete.sql
-- app_tools.statuses_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; statuses/tools/get.sql
-- app_tools.statuses_list(jsonb) returns jsonb; sql stable; execute: svc_visitor; statuses/tools/list.sql
-- app_tools.statuses_reorder(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; statuses/tools/reorder.sql
-- app_tools.statuses_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; statuses/tools/update.sql
-- app_tools.time_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; time/tools/delete.sql
-- app_tools.time_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; time/tools/get.sql
-- app_tools.time_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; time/tools/list.sql
-- app_tools.time_log(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; time/tools/log.sql
-- app_tools.time_running(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; time/tools/running.sql
-- app_tools.time_start(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; time/tools/start.sql
-- app_tools.time_stop(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; time/tools/stop.sql
-- app_tools.time_summary(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; time/tools/summary.sql
-- app_tools.time_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; time/tools/update.sql
-- app_tools.webhooks_create(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; webhooks/tools/create.sql
-- app_tools.webhooks_delete(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; webhooks/tools/delete.sql
-- app_tools.webhooks_get(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; webhooks/tools/get.sql
-- app_tools.webhooks_list(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; webhooks/tools/list.sql
-- app_tools.webhooks_list_deliveries(jsonb) returns jsonb; plpgsql stable; execute: svc_visitor; webhooks/tools/listDeliveries.sql
-- app_tools.webhooks_rotate_secret(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; webhooks/tools/rotateSecret.sql
-- app_tools.webhooks_test(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; webhooks/tools/test.sql
-- app_tools.webhooks_update(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; webhooks/tools/update.sql
-- app_tools.workspace_get(jsonb) returns jsonb; sql stable; execute: svc_visitor; workspace/tools/get.sql
-- app_tools.workspace_update_settings(jsonb) returns jsonb; plpgsql volatile; execute: svc_visitor; workspace/tools/updateSettings.sql
