/** Workspace administration over GraphQL: agents, settings, members, dispatch rules. OWNER/ADMIN only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let member: { id: string; token: string };
let adminKey: { id: string; token: string };
let adminUserId: string;
let ownerUserId: string;

async function events(kind: string): Promise<Array<{ kind: string; subjectType: string; subjectId: string; payload: any }>> {
  const data = await gqlOk(t, ws.token, `query($k: String!) { activityEvents(condition: {kind: $k}, orderBy: SEQ_DESC) { nodes { kind subjectType subjectId payload } } }`, { k: kind });
  return data.activityEvents.nodes;
}

async function userId(email: string): Promise<string> {
  const { rows } = await t.pools.owner.query('select id from app_public.users where lower(email) = lower($1)', [email]);
  return rows[0].id;
}

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: ws.key, email: 'mia@example.com', role: 'MEMBER', json: true });
  await admin(t, 'add-member', { workspace: ws.key, email: 'ada@example.com', role: 'ADMIN', json: true });
  member = await createKey(t, ws, { user: 'mia@example.com' });
  adminKey = await createKey(t, ws, { user: 'ada@example.com' });
  adminUserId = await userId('ada@example.com');
  ownerUserId = await userId(ws.ownerEmail);
});
afterAll(() => t.close());

const AGENT = 'rowId profileKey name status provider runtimeMode capabilities maxConcurrent webhookUrl archivedAt';

describe('agents', () => {
  it('create, update, archive, unarchive, delete, each with its event', async () => {
    const created = (await gqlOk(t, adminKey.token, `mutation { agentsCreate(input: {profileKey: "reviewer", name: "Reviewer", capabilities: ["HIGH", "backend"], provider: "CLAUDE", runtimeMode: "EPHEMERAL", maxConcurrent: 2}) { agent { ${AGENT} } } }`)).agentsCreate.agent;
    expect(created).toMatchObject({ profileKey: 'reviewer', name: 'Reviewer', status: 'OFFLINE', provider: 'CLAUDE', runtimeMode: 'EPHEMERAL', capabilities: ['HIGH', 'backend'], maxConcurrent: 2, archivedAt: null });
    expect((await events('AGENT_CREATED'))[0]).toMatchObject({ subjectType: 'agent', subjectId: created.rowId, payload: { profileKey: 'reviewer' } });
    // The MCP surface sees the same agent.
    const agentKey = await createKey(t, ws, { agent: 'reviewer' });
    expect(await ok(t, agentKey.token, 'agents.me')).toMatchObject({ id: created.rowId, provider: 'CLAUDE' });

    const updated = (await gqlOk(t, adminKey.token, `mutation($id: UUID!) { agentsUpdate(input: {agentId: $id, name: "Code reviewer", webhookUrl: "https://hooks.example.com/a"}) { agent { ${AGENT} } } }`, { id: created.rowId })).agentsUpdate.agent;
    expect(updated).toMatchObject({ name: 'Code reviewer', profileKey: 'reviewer', provider: 'CLAUDE', webhookUrl: 'https://hooks.example.com/a', capabilities: ['HIGH', 'backend'] });
    // It names what changed (never the URL itself).
    const change = (await events('AGENT_UPDATED'))[0]!;
    expect(change).toMatchObject({ subjectId: created.rowId, payload: { changes: ['name', 'webhookUrl'] } });
    expect(JSON.stringify(change.payload)).not.toContain('hooks.example.com');
    // The dispatch URL may carry a token: a member's key sees the agent but not the URL, here and over MCP.
    const byMember = (await gqlOk(t, member.token, `query($id: UUID!) { agent(rowId: $id) { name webhookUrl } }`, { id: created.rowId })).agent;
    expect(byMember).toEqual({ name: 'Code reviewer', webhookUrl: null });
    expect((await ok(t, member.token, 'agents.get', { id: created.rowId })).webhookUrl).toBeNull();
    expect((await ok(t, ws.token, 'agents.get', { id: created.rowId })).webhookUrl).toBe('https://hooks.example.com/a');
    // Another agent's key, even one made for the owner with every scope, does not read it; the agent's own key does.
    await createAgent(t, ws, 'scout');
    const otherAgentKey = await createKey(t, ws, { agent: 'scout', scopes: ['FULL'] });
    expect((await ok(t, otherAgentKey.token, 'agents.get', { id: created.rowId })).webhookUrl).toBeNull();
    expect((await ok(t, otherAgentKey.token, 'agents.list', {})).find((a: any) => a.id === created.rowId).webhookUrl).toBeNull();
    // Nor does the owner's key narrowed to a project: an agent serves the whole workspace, and a narrowed key reads no
    // webhook either (a roles probe read the URL and its token).
    const project = (await ok(t, ws.token, 'projects.create', { name: `Narrow ${Date.now()}` })).id;
    const narrowed = await createKey(t, ws, { projects: [project] });
    expect((await ok(t, narrowed.token, 'agents.get', { id: created.rowId })).webhookUrl).toBeNull();
    expect((await gqlOk(t, narrowed.token, `query($id: UUID!) { agent(rowId: $id) { webhookUrl } }`, { id: created.rowId })).agent.webhookUrl).toBeNull();
    // Nor may it point that agent's dispatches at itself: agents are managed with a person's key.
    const redirect = await gqlError(t, otherAgentKey.token, `mutation($id: UUID!) { agentsUpdate(input: {agentId: $id, webhookUrl: "https://evil.example.com/"}) { agent { rowId } } }`, { id: created.rowId });
    expect(redirect).toMatchObject({ code: 'admin_required', status: 403 });
    expect((await gqlError(t, otherAgentKey.token, 'mutation { agentsCreate(input: {profileKey: "rogue", name: "Rogue"}) { agent { rowId } } }')).code).toBe('admin_required');
    expect((await ok(t, ws.token, 'agents.get', { id: created.rowId })).webhookUrl).toBe('https://hooks.example.com/a');
    const ownKey = await createKey(t, ws, { agent: 'reviewer', scopes: ['READ_USERS'] });
    expect((await ok(t, ownKey.token, 'agents.me', {})).webhookUrl).toBe('https://hooks.example.com/a');
    // Nor are a runtime's endpoint, config and info in the schema (runtimes.* over MCP need ADMIN).
    expect((await gql(t, member.token, '{ runtimes { nodes { endpoint } } }')).errors?.[0]?.message).toMatch(/Cannot query field "endpoint"/);
    const cleared = (await gqlOk(t, adminKey.token, `mutation($id: UUID!) { agentsUpdate(input: {agentId: $id, clearWebhookUrl: true}) { agent { webhookUrl } } }`, { id: created.rowId })).agentsUpdate.agent;
    expect(cleared.webhookUrl).toBeNull();

    const archived = (await gqlOk(t, ws.token, `mutation($id: UUID!) { agentsArchive(input: {agentId: $id}) { agent { archivedAt } } }`, { id: created.rowId })).agentsArchive.agent;
    expect(archived.archivedAt).toBeTruthy();
    expect((await events('AGENT_DELETED'))[0]).toMatchObject({ subjectId: created.rowId, payload: { archived: true } });
    const restored = (await gqlOk(t, ws.token, `mutation($id: UUID!) { agentsUnarchive(input: {agentId: $id}) { agent { archivedAt } } }`, { id: created.rowId })).agentsUnarchive.agent;
    expect(restored.archivedAt).toBeNull();
    expect((await events('AGENT_UPDATED'))[0]).toMatchObject({ subjectId: created.rowId, payload: { changes: ['archived'], archived: false } });

    const deleted = (await gqlOk(t, ws.token, `mutation($id: UUID!) { agentsDelete(input: {agentId: $id}) { agent { rowId profileKey } } }`, { id: created.rowId })).agentsDelete.agent;
    expect(deleted).toEqual({ rowId: created.rowId, profileKey: 'reviewer' });
    expect((await events('AGENT_DELETED'))[0]).toMatchObject({ subjectId: created.rowId, payload: { deleted: true } });
    expect((await gqlOk(t, ws.token, `query($id: UUID!) { agent(rowId: $id) { rowId } }`, { id: created.rowId })).agent).toBeNull();
  });

  it('validates input and refuses to delete an agent that issues refer to', async () => {
    const dup = await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "dup", name: "A"}) { agent { rowId } } }')
      .catch(() => null);
    expect(dup).toBeNull(); // first one succeeds (gqlError throws when there is no error)
    expect(await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "dup", name: "B"}) { agent { rowId } } }')).toMatchObject({ code: 'conflict', status: 409 });
    expect(await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "x1", name: "X", provider: "SKYNET"}) { agent { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', status: 400, issues: { provider: expect.any(String) } });
    expect(await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "Bad Key!", name: "X"}) { agent { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', issues: { profileKey: expect.any(String) } });

    const busy = await createAgent(t, ws, 'busy');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Assigned work' });
    await t.pools.owner.query('update app_public.issues set assigned_agent_id = $1 where id = $2', [busy.id, issue.id]);
    const inUse = await gqlError(t, ws.token, `mutation { agentsDelete(input: {agentId: "${busy.id}"}) { agent { rowId } } }`);
    expect(inUse).toMatchObject({ code: 'agent_in_use', status: 409 });
    expect((await gqlOk(t, ws.token, `{ agent(rowId: "${busy.id}") { profileKey issuesByAssignedAgentId { totalCount } } }`)).agent)
      .toEqual({ profileKey: 'busy', issuesByAssignedAgentId: { totalCount: 1 } });
    // An agent whose run is over and whose issue went elsewhere: its run is still its record (it cascaded away).
    const worked = await createAgent(t, ws, 'worked');
    const done = await ok(t, ws.token, 'issues.create', { title: 'Worked on once' });
    await t.pools.owner.query(`insert into app_public.agent_runs (workspace_id, issue_id, agent_id, status, finished_at)
      values ($1, $2, $3, 'ABANDONED', now())`, [ws.id, done.id, worked.id]);
    expect(await gqlError(t, ws.token, `mutation { agentsDelete(input: {agentId: "${worked.id}"}) { agent { rowId } } }`))
      .toMatchObject({ code: 'agent_in_use', status: 409 });
    // A profile key taken is a 409 naming it; a URL and its clearing at once is a 400.
    expect(await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "worked", name: "Again"}) { agent { rowId } } }'))
      .toMatchObject({ code: 'conflict', status: 409, field: 'profileKey' });
    expect(await gqlError(t, ws.token, `mutation { agentsUpdate(input: {agentId: "${worked.id}", webhookUrl: "https://example.com/h", clearWebhookUrl: true}) { agent { rowId } } }`))
      .toMatchObject({ code: 'invalid_input', issues: { clearWebhookUrl: expect.any(String) } });
  });

  it('deleting an agent revokes its keys at once', async () => {
    const bot = await createAgent(t, ws, 'shortlived');
    const botKey = await createKey(t, ws, { agent: 'shortlived' });
    expect((await rest(t, botKey.token, 'agents.me')).status).toBe(200);
    await gqlOk(t, ws.token, `mutation { agentsDelete(input: {agentId: "${bot.id}"}) { agent { rowId } } }`);
    expect((await rest(t, botKey.token, 'agents.me')).status).toBe(401);
  });

  it('a MEMBER cannot create, update, archive or delete agents; nor can an ADMIN key without the ADMIN scope', async () => {
    const target = await createAgent(t, ws, 'protected');
    const mutations = [
      'mutation { agentsCreate(input: {profileKey: "m1", name: "M"}) { agent { rowId } } }',
      `mutation { agentsUpdate(input: {agentId: "${target.id}", name: "hijacked"}) { agent { rowId } } }`,
      `mutation { agentsArchive(input: {agentId: "${target.id}"}) { agent { rowId } } }`,
      `mutation { agentsUnarchive(input: {agentId: "${target.id}"}) { agent { rowId } } }`,
      `mutation { agentsDelete(input: {agentId: "${target.id}"}) { agent { rowId } } }`,
    ];
    for (const m of mutations) expect(await gqlError(t, member.token, m), m).toMatchObject({ code: 'admin_required', status: 403 });
    const noAdminScope = await createKey(t, ws, { user: 'ada@example.com', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'WRITE_ISSUES'] });
    for (const m of mutations) expect(await gqlError(t, noAdminScope.token, m), m).toMatchObject({ code: 'scope_required', scope: 'ADMIN', status: 403 });
    const still = (await gqlOk(t, ws.token, `{ agent(rowId: "${target.id}") { name archivedAt } }`)).agent;
    expect(still).toEqual({ name: 'protected', archivedAt: null });
  });
});

describe('a project-narrowed OWNER key', () => {
  it('cannot manage agents or members, nor revoke a key wider than itself; it may revoke itself (an outside probe redirected an agent\'s webhook with one)', async () => {
    const target = await createAgent(t, ws, 'narrowly-guarded');
    const project = await ok(t, ws.token, 'projects.create', { name: 'Only this' });
    const narrowed = await createKey(t, ws, { projects: [project.id] }); // the owner's, every scope
    const memberUser = await userId('mia@example.com');
    for (const m of [
      'mutation { agentsCreate(input: {profileKey: "n1", name: "N"}) { agent { rowId } } }',
      `mutation { agentsUpdate(input: {agentId: "${target.id}", webhookUrl: "https://steal.example.com/hook"}) { agent { rowId } } }`,
      `mutation { agentsArchive(input: {agentId: "${target.id}"}) { agent { rowId } } }`,
      `mutation { agentsDelete(input: {agentId: "${target.id}"}) { agent { rowId } } }`,
      'mutation { membersAdd(input: {email: "friend-of-narrow@example.com"}) { membership { rowId } } }',
      `mutation { membersSetRole(input: {userId: "${memberUser}", role: ADMIN}) { membership { rowId } } }`,
      `mutation { membersRemove(input: {userId: "${memberUser}"}) { membership { rowId } } }`,
    ]) expect(await gqlError(t, narrowed.token, m), m).toMatchObject({ code: 'narrowing', status: 403 });
    expect((await gqlOk(t, ws.token, `{ agent(rowId: "${target.id}") { webhookUrl archivedAt } }`)).agent).toEqual({ webhookUrl: null, archivedAt: null });
    // Nor a key acting as an agent (it moved that agent onto another runtime), the settings (GraphQL let it; MCP did
    // not), or a runtime: registering over one by its id, or changing its config, reached every agent on it.
    expect(await gqlError(t, narrowed.token, `mutation { accessCreate(input: {linkedAgentId: "${target.id}"}) { issuedApiKey { rowId } } }`))
      .toMatchObject({ code: 'narrowing', status: 403 });
    expect(await gqlError(t, narrowed.token, 'mutation { workspaceUpdateSettings(input: {name: "Narrowly renamed"}) { workspace { name } } }'))
      .toMatchObject({ code: 'narrowing', status: 403 });
    const runtime = await ok(t, ws.token, 'runtimes.register', { name: 'prod-rt', kind: 'REMOTE_HTTP', providersAvailable: ['CODEX'] });
    for (const [tool, input] of [['runtimes.configure', { runtimeId: runtime.id, config: {} }], ['runtimes.register', { runtimeId: runtime.id, name: 'hijacked', kind: 'REMOTE_HTTP', providersAvailable: ['CODEX'] }]] as const) {
      expect((await rest(t, narrowed.token, tool, input)).body, tool).toMatchObject({ error: 'narrowing' });
    }
    expect((await ok(t, ws.token, 'runtimes.get', { id: runtime.id })).name).toBe('prod-rt');
    // Nor what else serves the whole workspace: dispatch rules, plugins and their skills, repository mappings.
    const plugin = (await gqlOk(t, ws.token, 'mutation { pluginsCreate(input: {name: "Linter", scopes: [READ_ISSUES], skills: [{name: "lint"}]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo;
    for (const m of [
      `mutation { dispatchRulesCreate(input: {targetAgentId: "${target.id}"}) { dispatchRule { rowId } } }`,
      'mutation { pluginsCreate(input: {name: "Narrow", scopes: [READ_ISSUES]}) { clientMutationId } }',
      `mutation { pluginsSetSkills(input: {pluginId: "${plugin.rowId}", skills: [{name: "hijacked"}]}) { clientMutationId } }`,
      'mutation { repoMappingsCreate(input: {repoFullName: "acme/narrow"}) { clientMutationId } }',
    ]) expect(await gqlError(t, narrowed.token, m), m).toMatchObject({ code: 'narrowing', status: 403 });
    expect((await ok(t, ws.token, 'skills.list', { pluginId: plugin.rowId })).map((k: { name: string }) => k.name)).toEqual(['lint']);
    expect((await gqlOk(t, ws.token, `{ membershipByWorkspaceIdAndUserId: memberships(condition: {userId: "${memberUser}"}) { nodes { role } } }`)).membershipByWorkspaceIdAndUserId.nodes).toEqual([{ role: 'MEMBER' }]);

    // The owner's unnarrowed key is beyond it; the member's key is not its user's (not found).
    const revoke = 'mutation($k: UUID!) { accessRevoke(input: {keyId: $k}) { clientMutationId } }';
    const ownerKeyId = (await gqlOk(t, ws.token, '{ accessKeys(first: 100) { nodes { rowId isCurrent } } }')).accessKeys.nodes.find((k: { isCurrent: boolean }) => k.isCurrent).rowId;
    expect(await gqlError(t, narrowed.token, revoke, { k: ownerKeyId })).toMatchObject({ code: 'narrowing', status: 403 });
    expect(await gqlError(t, narrowed.token, revoke, { k: member.id })).toMatchObject({ status: 404 });
    // Nor does it read what only a workspace admin reads: every key of the workspace (only its user's), the webhooks
    // and their delivery attempts (an attempt keeps the receiver's answer, which may echo an event of a hidden issue).
    await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/narrow', json: true });
    const { rows: [hook] } = await t.pools.owner.query('select id from app_public.webhooks where workspace_id = $1 limit 1', [ws.id]);
    const { rows: [delivery] } = await t.pools.owner.query(
      `insert into app_public.webhook_deliveries (workspace_id, webhook_id, event_id, channel, status)
       select $1, $2, e.id, 'webhook', 'DELIVERED' from app_public.activity_events e where e.workspace_id = $1 limit 1 returning id`, [ws.id, hook.id]);
    await t.pools.owner.query(`insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at, duration_ms, response_body)
      values ($1, $2, 1, 'https://hooks.example.com/narrow', now(), 5, '{"title":"echoed"}')`, [ws.id, delivery.id]);
    const reads = '{ accessKeys(first: 200) { nodes { userId } } webhooks { nodes { rowId } } webhookDeliveryAttempts { nodes { responseBody } } }';
    const wide = await gqlOk(t, ws.token, reads);
    expect([wide.webhooks.nodes.length > 0, wide.webhookDeliveryAttempts.nodes.length > 0, new Set(wide.accessKeys.nodes.map((k: { userId: string }) => k.userId)).size > 1])
      .toEqual([true, true, true]);
    const seen = await gqlOk(t, narrowed.token, reads);
    expect([seen.webhooks.nodes, seen.webhookDeliveryAttempts.nodes]).toEqual([[], []]);
    expect(new Set(seen.accessKeys.nodes.map((k: { userId: string }) => k.userId))).toEqual(new Set([await userId(ws.ownerEmail)]));
    expect((await rest(t, ws.token, 'workspace.get', {})).status).toBe(200);
    expect((await rest(t, member.token, 'workspace.get', {})).status).toBe(200);
    await gqlOk(t, narrowed.token, revoke, { k: narrowed.id });
    expect((await rest(t, narrowed.token, 'workspace.get', {})).status).toBe(401);
  });
});

describe('workspace settings', () => {
  it('OWNER/ADMIN change settings; MCP workspace.get shows them', async () => {
    const r = (await gqlOk(t, adminKey.token, 'mutation { workspaceUpdateSettings(input: {cycleLengthDays: 7, autoDispatch: true, autoDispatchMode: "PRIORITY_MATCH", requiredAckSeconds: 300}) { workspace { name cycleLengthDays autoDispatch autoDispatchMode requiredAckSeconds timeTrackingEnabled } } }')).workspaceUpdateSettings.workspace;
    expect(r).toMatchObject({ cycleLengthDays: 7, autoDispatch: true, autoDispatchMode: 'PRIORITY_MATCH', requiredAckSeconds: 300, timeTrackingEnabled: true, name: `Workspace ${ws.key}` });
    expect(await ok(t, ws.token, 'workspace.get')).toMatchObject({ cycleLengthDays: 7, autoDispatch: true, autoDispatchMode: 'PRIORITY_MATCH', requiredAckSeconds: 300 });
    expect(await gqlError(t, ws.token, 'mutation { workspaceUpdateSettings(input: {cycleLengthDays: 0}) { workspace { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', issues: { cycleLengthDays: expect.any(String) } });
    expect(await gqlError(t, ws.token, 'mutation { workspaceUpdateSettings(input: {autoDispatchMode: "RANDOM"}) { workspace { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', issues: { autoDispatchMode: expect.any(String) } });
    expect(await gqlError(t, member.token, 'mutation { workspaceUpdateSettings(input: {name: "Mine now"}) { workspace { rowId } } }'))
      .toMatchObject({ code: 'admin_required', status: 403 });
    expect((await ok(t, ws.token, 'workspace.get')).name).toBe(`Workspace ${ws.key}`);
  });
});

describe('members', () => {
  it("add, set role, remove, with MEMBERSHIP_* events; a removed member's keys stop working", async () => {
    const added = (await gqlOk(t, adminKey.token, 'mutation { membersAdd(input: {email: "new@example.com"}) { membership { rowId role user { email } } } }')).membersAdd.membership;
    expect(added).toMatchObject({ role: 'MEMBER', user: { email: 'new@example.com' } });
    expect((await events('MEMBERSHIP_CREATED'))[0]).toMatchObject({ subjectType: 'membership', subjectId: added.rowId, payload: { role: 'MEMBER' } });
    expect(await gqlError(t, adminKey.token, 'mutation { membersAdd(input: {email: "NEW@example.com"}) { membership { rowId } } }'))
      .toMatchObject({ code: 'already_member', status: 409 });
    expect(await gqlError(t, adminKey.token, 'mutation { membersAdd(input: {email: "not-an-email"}) { membership { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', issues: { email: expect.any(String) } });

    const newUser = await userId('new@example.com');
    const promoted = (await gqlOk(t, adminKey.token, `mutation { membersSetRole(input: {userId: "${newUser}", role: ADMIN}) { membership { role } } }`)).membersSetRole.membership;
    expect(promoted.role).toBe('ADMIN');
    expect((await events('MEMBERSHIP_ROLE_CHANGED'))[0]).toMatchObject({ subjectId: added.rowId, payload: { from: 'MEMBER', to: 'ADMIN' } });

    const newKey = await createKey(t, ws, { user: 'new@example.com' });
    expect((await rest(t, newKey.token, 'workspace.get')).status).toBe(200);
    const removed = (await gqlOk(t, adminKey.token, `mutation { membersRemove(input: {userId: "${newUser}"}) { membership { rowId role } } }`)).membersRemove.membership;
    expect(removed).toEqual({ rowId: added.rowId, role: 'ADMIN' });
    expect((await events('MEMBERSHIP_REMOVED'))[0]).toMatchObject({ subjectId: added.rowId });
    expect((await rest(t, newKey.token, 'workspace.get')).body).toMatchObject({ error: 'revoked' });
    expect(await gqlError(t, adminKey.token, `mutation { membersRemove(input: {userId: "${newUser}"}) { membership { rowId } } }`))
      .toMatchObject({ code: 'not_found', status: 404 });
  });

  it('only an OWNER touches the OWNER role, and the last OWNER stays', async () => {
    expect(await gqlError(t, adminKey.token, 'mutation { membersAdd(input: {email: "boss2@example.com", role: OWNER}) { membership { rowId } } }'))
      .toMatchObject({ code: 'owner_required', status: 403 });
    expect(await gqlError(t, adminKey.token, `mutation { membersSetRole(input: {userId: "${ownerUserId}", role: MEMBER}) { membership { rowId } } }`))
      .toMatchObject({ code: 'owner_required' });
    expect(await gqlError(t, adminKey.token, `mutation { membersRemove(input: {userId: "${ownerUserId}"}) { membership { rowId } } }`))
      .toMatchObject({ code: 'owner_required' });
    expect(await gqlError(t, ws.token, `mutation { membersSetRole(input: {userId: "${ownerUserId}", role: ADMIN}) { membership { rowId } } }`))
      .toMatchObject({ code: 'last_owner', status: 409 });
    expect(await gqlError(t, ws.token, `mutation { membersRemove(input: {userId: "${ownerUserId}"}) { membership { rowId } } }`))
      .toMatchObject({ code: 'last_owner', status: 409 });
    // The operator's add-member on an existing member is a role change with the same guard.
    await expect(admin(t, 'add-member', { workspace: ws.key, email: ws.ownerEmail, role: 'MEMBER', json: true })).rejects.toMatchObject({ code: 'SV409' });
    expect((await t.pools.owner.query('select role from app_public.memberships where user_id = $1', [ownerUserId])).rows[0].role).toBe('OWNER');
    // An OWNER may make another OWNER, and then step down.
    const { membersSetRole } = await gqlOk(t, ws.token, `mutation { membersSetRole(input: {userId: "${adminUserId}", role: OWNER}) { membership { role } } }`);
    expect(membersSetRole.membership.role).toBe('OWNER');
    await gqlOk(t, adminKey.token, `mutation { membersSetRole(input: {userId: "${adminUserId}", role: ADMIN}) { membership { role } } }`);
  });

  it('a MEMBER cannot add, change or remove members', async () => {
    const memberUser = await userId('mia@example.com');
    for (const m of [
      'mutation { membersAdd(input: {email: "friend@example.com"}) { membership { rowId } } }',
      `mutation { membersSetRole(input: {userId: "${memberUser}", role: ADMIN}) { membership { rowId } } }`,
      `mutation { membersRemove(input: {userId: "${adminUserId}"}) { membership { rowId } } }`,
    ]) expect(await gqlError(t, member.token, m), m).toMatchObject({ code: 'admin_required', status: 403 });
    const roles = (await gqlOk(t, member.token, '{ memberships(orderBy: CREATED_AT_ASC) { nodes { role user { email } } } }')).memberships.nodes;
    expect(roles).toContainEqual({ role: 'MEMBER', user: { email: 'mia@example.com' } });
    expect(roles.map((r: { user: { email: string } }) => r.user.email)).not.toContain('friend@example.com');
  });
});

describe('dispatch rules', () => {
  let a1: string;
  let a2: string;
  let label: string;
  let project: string;
  const RULE = 'rowId position name priority labelId projectId targetAgentId enabled';
  const list = async () => (await gqlOk(t, member.token, `{ dispatchRules(orderBy: POSITION_ASC) { nodes { ${RULE} targetAgent { profileKey } } } }`)).dispatchRules.nodes;

  beforeAll(async () => {
    a1 = (await createAgent(t, ws, 'router-a')).id;
    a2 = (await createAgent(t, ws, 'router-b')).id;
    label = (await t.pools.owner.query(`insert into app_public.labels (workspace_id, name) values ($1, 'backend') returning id`, [ws.id])).rows[0].id;
    project = (await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Infra') returning id`, [ws.id])).rows[0].id;
  });

  it('create (appended or at a position), update, reorder, delete; positions stay dense', async () => {
    const create = (input: string) => gqlOk(t, adminKey.token, `mutation { dispatchRulesCreate(input: {${input}}) { dispatchRule { ${RULE} } } }`).then((d) => d.dispatchRulesCreate.dispatchRule);
    const urgent = await create(`targetAgentId: "${a1}", priority: "URGENT", name: "Urgent to A"`);
    expect(urgent).toMatchObject({ position: 0, priority: 'URGENT', labelId: null, projectId: null, targetAgentId: a1, enabled: true, name: 'Urgent to A' });
    const backend = await create(`targetAgentId: "${a2}", labelId: "${label}", projectId: "${project}"`);
    expect(backend.position).toBe(1);
    const first = await create(`targetAgentId: "${a2}", priority: "HIGH", atPosition: 0`);
    expect((await list()).map((r: { rowId: string }) => r.rowId)).toEqual([first.rowId, urgent.rowId, backend.rowId]);
    expect((await list())[0].targetAgent).toEqual({ profileKey: 'router-b' });

    const upd = (await gqlOk(t, adminKey.token, `mutation { dispatchRulesUpdate(input: {ruleId: "${backend.rowId}", clear: ["projectId"], priority: "LOW", enabled: false}) { dispatchRule { ${RULE} } } }`)).dispatchRulesUpdate.dispatchRule;
    expect(upd).toMatchObject({ projectId: null, labelId: label, priority: 'LOW', enabled: false, targetAgentId: a2 });

    const reordered = (await gqlOk(t, adminKey.token, `mutation($ids: [UUID]!) { dispatchRulesReorder(input: {ruleIds: $ids}) { dispatchRules { rowId position } } }`,
      { ids: [backend.rowId, first.rowId, urgent.rowId] })).dispatchRulesReorder.dispatchRules;
    expect(reordered).toEqual([{ rowId: backend.rowId, position: 0 }, { rowId: first.rowId, position: 1 }, { rowId: urgent.rowId, position: 2 }]);
    expect(await gqlError(t, adminKey.token, `mutation($ids: [UUID]!) { dispatchRulesReorder(input: {ruleIds: $ids}) { dispatchRules { rowId } } }`, { ids: [backend.rowId, first.rowId] }))
      .toMatchObject({ code: 'invalid_input', issues: { ruleIds: expect.any(String) } });

    const del = (await gqlOk(t, adminKey.token, `mutation { dispatchRulesDelete(input: {ruleId: "${first.rowId}"}) { dispatchRule { rowId } } }`)).dispatchRulesDelete.dispatchRule;
    expect(del.rowId).toBe(first.rowId);
    expect((await list()).map((r: { rowId: string; position: number }) => [r.rowId, r.position])).toEqual([[backend.rowId, 0], [urgent.rowId, 1]]);
    // Each change is an event (fleet probe: rules changed without a trace), read by a member as the rules are.
    const events = (await ok(t, member.token, 'events.recent', { subjectType: 'dispatch-rule', subjectId: backend.rowId, limit: 20 })).items;
    expect(events.map((e: { kind: string; payload: { changes?: string[] } }) => [e.kind, e.payload.changes ?? null]).reverse()).toEqual([
      ['DISPATCH_RULE_CREATED', null],
      ['DISPATCH_RULE_UPDATED', ['position']], // the rule added at 0 moved it down
      ['DISPATCH_RULE_UPDATED', ['priority', 'projectId', 'enabled']],
      ['DISPATCH_RULE_UPDATED', ['position']], // the reorder
    ]);
    expect(events[0].payload).toMatchObject({ ruleId: backend.rowId, position: 0, priority: 'LOW', labelId: label, projectId: null, targetAgentId: a2, enabled: false });
    const gone = (await ok(t, member.token, 'events.recent', { subjectType: 'dispatch-rule', subjectId: first.rowId, kinds: ['DISPATCH_RULE_DELETED'] })).items;
    expect(gone).toMatchObject([{ kind: 'DISPATCH_RULE_DELETED', payload: { ruleId: first.rowId } }]);
    // A narrowed key reads no rules, nor their events (re-test: it read every rule's event).
    const narrowed = await createKey(t, ws, { projects: [(await ok(t, ws.token, 'projects.create', { name: 'Narrow view' })).id] });
    expect((await ok(t, narrowed.token, 'events.recent', { subjectType: 'dispatch-rule', limit: 50 })).items).toEqual([]);
  });

  it('validates conditions and references', async () => {
    const m = (input: string) => `mutation { dispatchRulesCreate(input: {${input}}) { dispatchRule { rowId } } }`;
    expect(await gqlError(t, adminKey.token, m(`targetAgentId: "${a1}", priority: "SOON"`))).toMatchObject({ code: 'invalid_input', issues: { priority: expect.any(String) } });
    expect(await gqlError(t, adminKey.token, m(`targetAgentId: "${crypto.randomUUID()}"`))).toMatchObject({ code: 'not_found', message: 'Agent not found' });
    expect(await gqlError(t, adminKey.token, m(`targetAgentId: "${a1}", labelId: "${crypto.randomUUID()}"`))).toMatchObject({ code: 'not_found', message: 'Label not found' });
    expect(await gqlError(t, adminKey.token, m(`targetAgentId: "${a1}", atPosition: 99`))).toMatchObject({ code: 'invalid_input', issues: { atPosition: expect.any(String) } });
    expect(await gqlError(t, adminKey.token, `mutation { dispatchRulesUpdate(input: {ruleId: "${crypto.randomUUID()}", name: "x"}) { dispatchRule { rowId } } }`)).toMatchObject({ code: 'not_found' });
    // An archived agent gets no work from a rule, as from any other way of pointing work at it.
    const retired = await createAgent(t, ws, 'router-retired');
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'router-retired', json: true });
    expect(await gqlError(t, adminKey.token, m(`targetAgentId: "${retired.id}"`))).toMatchObject({ code: 'agent_archived', status: 400, issues: { targetAgentId: expect.any(String) } });
  });

  it('a MEMBER reads the rules but cannot change them', async () => {
    const before = await list();
    const someRule = before[0].rowId;
    for (const q of [
      `mutation { dispatchRulesCreate(input: {targetAgentId: "${a1}"}) { dispatchRule { rowId } } }`,
      `mutation { dispatchRulesUpdate(input: {ruleId: "${someRule}", enabled: true}) { dispatchRule { rowId } } }`,
      `mutation { dispatchRulesReorder(input: {ruleIds: ["${before.map((r: { rowId: string }) => r.rowId).reverse().join('","')}"]}) { dispatchRules { rowId } } }`,
      `mutation { dispatchRulesDelete(input: {ruleId: "${someRule}"}) { dispatchRule { rowId } } }`,
    ]) expect(await gqlError(t, member.token, q), q).toMatchObject({ code: 'admin_required', status: 403 });
    expect(await list()).toEqual(before);
    // The table itself refuses a MEMBER too (RLS), whatever a function might forget.
    const client = await t.pools.api.connect();
    try {
      await client.query('begin');
      await client.query('select app_hidden.set_request_context($1)', [member.id]);
      const del = await client.query('delete from app_public.dispatch_rules');
      expect(del.rowCount).toBe(0);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe('names GraphQL\'s own procedures write are checked as the tools check them', () => {
  const LINE = 'must be one line of text, without control or direction-override characters';
  const agentsCreate = (name: string, capabilities?: string[]) => gqlError(t, ws.token,
    'mutation($n: String!, $c: [String]) { agentsCreate(input: {profileKey: "named", name: $n, capabilities: $c}) { agent { rowId } } }', { n: name, c: capabilities });

  it('one line, bounded, trimmed: agents, capabilities, the workspace, chat threads, dispatch rules, keys, plugins', async () => {
    for (const bad of ['a\u0001b', 'a\nb', '\u202eevil', 'x\u2066y']) expect(await agentsCreate(bad), JSON.stringify(bad)).toMatchObject({ code: 'invalid_input', issues: { name: LINE } });
    expect((await agentsCreate('x'.repeat(201))).issues).toEqual({ name: 'must be at most 200 characters' });
    expect((await agentsCreate('   ')).issues).toEqual({ name: 'must not be empty' });
    expect((await agentsCreate('Named', Array.from({ length: 51 }, (_, i) => `c${i}`))).issues).toEqual({ capabilities: 'must have at most 50 entries' });
    expect((await agentsCreate('Named', ['ok', 'x'.repeat(101)])).issues).toEqual({ 'capabilities.1': 'must be at most 100 characters' });
    // A null entry was stored and read back where strings are promised.
    expect((await gqlError(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "nully", name: "N", capabilities: ["ok", null]}) { agent { rowId } } }')).issues)
      .toEqual({ 'capabilities.1': 'must not be null' });
    const trimmed = await gqlOk(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "trimmed", name: "  Trimmed  ", capabilities: [" HIGH "]}) { agent { rowId name capabilities } } }');
    expect(trimmed.agentsCreate.agent).toMatchObject({ name: 'Trimmed', capabilities: ['HIGH'] });
    const agentId = trimmed.agentsCreate.agent.rowId;
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!) { agentsUpdate(input: {agentId: $id, name: "a\\tb"}) { agent { rowId } } }', { id: agentId })).issues).toEqual({ name: LINE });
    expect((await gqlError(t, ws.token, 'mutation { workspaceUpdateSettings(input: {name: "\\u202eevil"}) { workspace { name } } }')).issues).toEqual({ name: LINE });
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!) { chatOpenThread(input: {agentId: $id, title: "two\\nlines"}) { chatThread { rowId } } }', { id: agentId })).issues).toEqual({ title: LINE });
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!, $r: String) { chatOpenThread(input: {agentId: $id, message: "hi", route: $r}) { chatThread { rowId } } }', { id: agentId, r: 'x'.repeat(501) })).issues).toEqual({ route: 'must be at most 500 characters' });
    // Without a message too: the route is checked, not let through unused.
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!, $r: String) { chatOpenThread(input: {agentId: $id, route: $r}) { chatThread { rowId } } }', { id: agentId, r: 'x'.repeat(501) })).issues).toEqual({ route: 'must be at most 500 characters' });
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!, $r: String) { chatOpenThread(input: {agentId: $id, route: $r}) { chatThread { rowId } } }', { id: agentId, r: 'a\u0007\u202e' })).issues).toEqual({ route: LINE });
    expect((await gqlError(t, ws.token, 'mutation($id: UUID!) { dispatchRulesCreate(input: {targetAgentId: $id, name: "a\\u0007"}) { dispatchRule { rowId } } }', { id: agentId })).issues).toEqual({ name: LINE });
    expect((await gqlError(t, ws.token, 'mutation($n: String) { accessCreateSession(input: {name: $n}) { issuedApiKey { rowId } } }', { n: 'k'.repeat(100_000) })).issues).toEqual({ name: 'must be at most 200 characters' });
    expect((await gqlError(t, ws.token, 'mutation { pluginsCreate(input: {name: "p\\u202e", scopes: [READ_ISSUES]}) { pluginInfo { name } } }')).issues).toEqual({ name: LINE });
    // Nothing of the refused calls was stored.
    const { rows } = await t.pools.owner.query("select count(*)::int as n from app_public.agents where workspace_id = $1 and profile_key = 'named'", [ws.id]);
    expect(rows[0].n).toBe(0);
    expect((await ok(t, ws.token, 'workspace.get', {})).name).not.toContain('evil');
  });

  it('variables holding text PostgreSQL cannot store are a 400 naming them (a lone surrogate was stored as U+FFFD)', async () => {
    const r = await gql(t, ws.token, 'mutation($n: String!) { agentsCreate(input: {profileKey: "surrogate", name: $n}) { agent { rowId } } }', { n: 'a\ud800b' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('variables.n');
    const nul = await gql(t, ws.token, 'mutation($n: String!) { agentsCreate(input: {profileKey: "nul", name: $n}) { agent { rowId } } }', { n: 'a\u0000b' });
    expect(nul.status).toBe(400);
  });

  it('a JSON variable nested past 64 levels is a 400 naming it (7,000 arrays deep overflowed the stack: a 500)', async () => {
    const deep = '['.repeat(7000) + '1' + ']'.repeat(7000);
    const payload = `{"query":"mutation($s: JSON) { pluginsCreate(input: {name: \\"D\\", scopes: [READ_ISSUES], skills: $s}) { pluginInfo { rowId } } }","variables":{"s":[{"name":"a","inputSchema":{"x":${deep}}}]}}`;
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}` }, payload });
    expect(res.statusCode).toBe(400);
    expect(Object.values(res.json().issues)).toEqual(['must not be nested deeper than 64 levels']);
  });

  it('a JSON literal written into the query nested past 64 levels is a 400 naming its argument (2,500 levels had been a 500)', async () => {
    const deep = `${'{a:'.repeat(1000)}1${'}'.repeat(1000)}`;
    const r = await gql(t, ws.token, `mutation { pluginsCreate(input: {name: "L", scopes: [READ_ISSUES], skills: ${deep}}) { pluginInfo { rowId } } }`);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('must not be nested deeper than 64 levels');
    // 60 levels is input like any other (refused or not by the procedure itself, never a 500).
    const fine = await gql(t, ws.token, `mutation { pluginsCreate(input: {name: "M", scopes: [READ_ISSUES], skills: ${'{a: '.repeat(60)}1${'}'.repeat(60)}}) { pluginInfo { rowId } } }`);
    expect(fine.status).toBeLessThan(500);
    expect(JSON.stringify(fine.body)).not.toContain('internal');
  });
});

