/** GraphQL authentication, key management (access.*) and plugin keys, over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';
import { openSse } from '../support/sse.ts';

const READS = ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] as const;
const KEY_FIELDS = 'rowId rawKey prefix kind scopes projectIds labelIds initiativeIds linkedAgentId pluginId expiresAt createdAt';
const TOKEN = /^svc_sk_[A-Za-z0-9_-]{43}$/;

let t: TestApp;
let ws: Workspace;
let member: { id: string; token: string };
const memberEmail = 'member@example.com';

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: ws.key, email: memberEmail, role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: memberEmail });
});
afterAll(() => t.close());

describe('POST /graphql authentication', () => {
  it('answers 401 without a key, with an unknown key, and with a revoked one', async () => {
    const none = await gql(t, undefined, '{ viewerRole }');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'invalid' });
    const unknown = await gql(t, `svc_sk_${'x'.repeat(43)}`, '{ viewerRole }');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: 'invalid' });
    const key = await createKey(t, ws);
    await admin(t, 'revoke-key', { id: key.id, json: true });
    const revoked = await gql(t, key.token, '{ viewerRole }');
    expect(revoked.status).toBe(401);
    expect(revoked.body).toMatchObject({ error: 'revoked' });
  });

  it('answers introspection without a key (GraphiQL loads schema and docs at once), and nothing else', async () => {
    const schema = await gql(t, undefined, '{ __schema { queryType { name } } }');
    expect(schema.status).toBe(200);
    expect(schema.data.__schema.queryType.name).toBe('Query');
    const named = await gql(t, 'Bearer-placeholder', 'query IntrospectionQuery { __type(name: "Issue") { name } __typename }');
    expect(named.status).toBe(200);
    expect(named.data.__type.name).toBe('Issue');
    // Data next to introspection, a fragment spread at the top or a mutation: the key is needed.
    for (const query of ['{ __schema { queryType { name } } viewerRole }', '{ ...F } fragment F on Query { viewerRole }',
      'mutation { __typename }', '{ currentWorkspace { key } }']) {
      const r = await gql(t, undefined, query);
      expect(r.status, query).toBe(401);
      expect(r.body).toMatchObject({ error: 'invalid' });
    }
    const narrow = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await gql(t, narrow.token, '{ __schema { queryType { name } } }')).status).toBe(200);
    expect((await gql(t, narrow.token, '{ viewerRole }')).status).toBe(403);
  });

  it('needs the read scopes the exposed data needs over MCP (403 scope_required otherwise)', async () => {
    const narrow = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const r = await gql(t, narrow.token, '{ viewerRole }');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'scope_required', scope: 'READ_PROJECTS' });
    // Every missing one is named at once (the board's sign-in showed one per try).
    expect(r.body.message).toMatch(/READ_PROJECTS, READ_COMMENTS, READ_USERS scopes/);
    const reader = await createKey(t, ws, { scopes: [...READS] });
    expect((await gqlOk(t, reader.token, '{ viewerRole }')).viewerRole).toBe('OWNER');
  });

  it('a key without the read scopes may still ask what it is (kind, scopes), and nothing more', async () => {
    await createAgent(t, ws, 'scoped-bot');
    const bot = await createKey(t, ws, { agent: 'scoped-bot', scopes: ['READ_ISSUES'] });
    expect(await gqlOk(t, bot.token, '{ viewerKeyKind viewerScopes __typename }')).toEqual({ viewerKeyKind: 'AGENT', viewerScopes: ['READ_ISSUES'], __typename: 'Query' });
    for (const q of ['{ viewerKeyKind viewerRole }', '{ viewerKeyKind currentWorkspace { key } }', 'mutation { __typename }']) {
      const r = await gql(t, bot.token, q);
      expect([q, r.status, r.body.error]).toEqual([q, 403, 'scope_required']);
    }
    expect((await gql(t, 'svc_sk_nope', '{ viewerKeyKind }')).status).toBe(401);
  });

  it('serves introspection; every mutation and exposed function is described', async () => {
    const data = await gqlOk(t, ws.token, `{ __schema { queryType { name } mutationType { fields { name description } } } }`);
    expect(data.__schema.queryType.name).toBe('Query');
    const fields = data.__schema.mutationType.fields as Array<{ name: string; description: string | null }>;
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining([
      'accessCreate', 'accessCreatePersonal', 'accessCreateSession', 'accessRevoke', 'pluginsCreate', 'pluginIssueApiKey',
      'agentsCreate', 'agentsUpdate', 'agentsArchive', 'agentsDelete', 'workspaceUpdateSettings', 'membersAdd',
      'membersSetRole', 'membersRemove', 'dispatchRulesCreate', 'dispatchRulesUpdate', 'dispatchRulesReorder',
      'dispatchRulesDelete', 'notesRestore', 'pinsAdd', 'pinsRemove', 'pinsReorder',
    ]));
    expect(fields.filter((f) => !f.description).map((f) => f.name)).toEqual([]);
    // No generated table CRUD: rows change only through the procedures above.
    expect(fields.filter((f) => /^(create|update|delete)[A-Z]/.test(f.name)).map((f) => f.name)).toEqual([]);
  });
});

describe('access.create / createPersonal / createSession', () => {
  it('access.create infers PERSONAL, inherits the caller scopes, and returns a raw key once that works on MCP', async () => {
    const { accessCreate: { issuedApiKey: k } } = await gqlOk(t, ws.token, `mutation { accessCreate(input: {name: "laptop"}) { issuedApiKey { ${KEY_FIELDS} } } }`);
    expect(k).toMatchObject({ kind: 'PERSONAL', scopes: ['FULL'], linkedAgentId: null, expiresAt: null, projectIds: [] });
    expect(k.rawKey).toMatch(TOKEN);
    expect(k.prefix).toBe(k.rawKey.slice(0, 14));
    expect((await rest(t, k.rawKey, 'workspace.get')).status).toBe(200);
    // Listed afterwards by prefix only.
    const { accessKeys } = await gqlOk(t, ws.token, '{ accessKeys { nodes { rowId prefix name kind isCurrent } } }');
    expect(accessKeys.nodes).toContainEqual({ rowId: k.rowId, prefix: k.prefix, name: 'laptop', kind: 'PERSONAL', isCurrent: false });
  });

  it('access.create infers AGENT from linkedAgentId (OWNER/ADMIN only)', async () => {
    const agent = await createAgent(t, ws, 'builder');
    const q = `mutation($a: UUID!) { accessCreate(input: {linkedAgentId: $a, expiresInDays: 30}) { issuedApiKey { ${KEY_FIELDS} } } }`;
    const { accessCreate: { issuedApiKey: k } } = await gqlOk(t, ws.token, q, { a: agent.id });
    expect(k).toMatchObject({ kind: 'AGENT', linkedAgentId: agent.id });
    expect(new Date(k.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect((await rest(t, k.rawKey, 'agents.me')).body).toMatchObject({ id: agent.id });
    expect(await gqlError(t, member.token, q, { a: agent.id })).toMatchObject({ code: 'admin_required', status: 403 });
    const bad = await gqlError(t, ws.token, `mutation { accessCreate(input: {kind: PERSONAL, linkedAgentId: "${agent.id}"}) { issuedApiKey { rowId } } }`);
    expect(bad).toMatchObject({ code: 'invalid_input', issues: { linkedAgentId: expect.any(String) } });
    const range = await gqlError(t, ws.token, 'mutation { accessCreate(input: {expiresInDays: 0}) { issuedApiKey { rowId } } }');
    expect(range).toMatchObject({ code: 'invalid_input', status: 400, issues: { expiresInDays: 'must be 1 to 3650' } });
  });

  it('access.createPersonal: PERSONAL, no agent link; any member may create one for themselves', async () => {
    const { accessCreatePersonal: { issuedApiKey: k } } = await gqlOk(t, member.token,
      `mutation { accessCreatePersonal(input: {expiresInDays: 7}) { issuedApiKey { ${KEY_FIELDS} } } }`);
    expect(k).toMatchObject({ kind: 'PERSONAL', linkedAgentId: null, scopes: ['FULL'] });
    expect(new Date(k.expiresAt).getTime()).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000 + 5_000);
    const { viewer } = await gqlOk(t, k.rawKey, '{ viewer { email } }');
    expect(viewer.email).toBe(memberEmail);
  });

  it('access.createSession: ttlHours 1-168, default 24', async () => {
    const q = (input: string) => `mutation { accessCreateSession(input: {${input}}) { issuedApiKey { ${KEY_FIELDS} } } }`;
    const { accessCreateSession: { issuedApiKey: k } } = await gqlOk(t, ws.token, q(''));
    expect(k.kind).toBe('SESSION');
    const hours = (new Date(k.expiresAt).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const week = (await gqlOk(t, ws.token, q('ttlHours: 168'))).accessCreateSession.issuedApiKey;
    expect(new Date(week.expiresAt).getTime()).toBeGreaterThan(Date.now() + 167 * 3_600_000);
    for (const bad of [0, 169, -1]) {
      expect(await gqlError(t, ws.token, q(`ttlHours: ${bad}`))).toMatchObject({ code: 'invalid_input', status: 400, issues: { ttlHours: 'must be 1 to 168' } });
    }
    // A key never outlives the key that made it.
    const fromSession = (await gqlOk(t, k.rawKey, q('ttlHours: 48'))).accessCreateSession.issuedApiKey;
    expect(new Date(fromSession.expiresAt).getTime()).toBeLessThanOrEqual(new Date(k.expiresAt).getTime());
    const personal = (await gqlOk(t, k.rawKey, 'mutation { accessCreatePersonal(input: {}) { issuedApiKey { expiresAt } } }')).accessCreatePersonal.issuedApiKey;
    expect(new Date(personal.expiresAt).getTime()).toBeLessThanOrEqual(new Date(k.expiresAt).getTime());
  });

  it('a SESSION key lives at most 168 hours on every path (access.create with a kind, the CLI), and repeats are stored once', async () => {
    const long = await gqlError(t, ws.token, 'mutation { accessCreate(input: {kind: SESSION, expiresInDays: 30}) { issuedApiKey { rowId } } }');
    // Named on the field this caller gave (it named ttlHours, an argument accessCreate does not have).
    expect(long).toMatchObject({ code: 'invalid_input', status: 400, issues: { expiresInDays: expect.stringMatching(/within 7 days/) } });
    expect(Object.keys(long.issues ?? {})).toEqual(['expiresInDays']);
    const week = (await gqlOk(t, ws.token, 'mutation { accessCreate(input: {kind: SESSION, expiresInDays: 7}) { issuedApiKey { kind expiresAt } } }')).accessCreate.issuedApiKey;
    expect(week.kind).toBe('SESSION');
    await expect(admin(t, 'create-key', { workspace: ws.key, user: ws.ownerEmail, kind: 'SESSION', 'expires-in-days': '30', json: true }))
      .rejects.toThrow(/--expires-in-days: a SESSION key expires within 168 hours/);
    const dup = (await gqlOk(t, ws.token, 'mutation { accessCreate(input: {scopes: [READ_ISSUES, WRITE_ISSUES, READ_ISSUES]}) { issuedApiKey { scopes } } }')).accessCreate.issuedApiKey;
    expect(dup.scopes).toEqual(['READ_ISSUES', 'WRITE_ISSUES']);
    const cli = await admin(t, 'create-key', { workspace: ws.key, user: ws.ownerEmail, scopes: 'READ_ISSUES,READ_ISSUES', json: true });
    expect(cli.apiKey.scopes).toEqual(['READ_ISSUES']);
    // A SESSION key acts as a person: a linked agent is refused naming the field (it was a bare constraint violation).
    await createAgent(t, ws, 'session-bot');
    await expect(admin(t, 'create-key', { workspace: ws.key, user: ws.ownerEmail, kind: 'SESSION', agent: 'session-bot', json: true }))
      .rejects.toThrow(/a SESSION key has no linked agent/);
  });

  it('a person holds at most 50 live keys of their own in a workspace (409 too_many_keys); a revoked or expired one frees a place', async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'minter@example.com', role: 'MEMBER', json: true });
    const minter = await createKey(t, ws, { user: 'minter@example.com' });
    const mint = () => gqlOk(t, minter.token, 'mutation { accessCreateSession(input: {ttlHours: 1}) { issuedApiKey { rowId } } }');
    const made: string[] = [];
    for (let i = 0; i < 49; i++) made.push((await mint()).accessCreateSession.issuedApiKey.rowId);
    expect(await gqlError(t, minter.token, 'mutation { accessCreateSession(input: {ttlHours: 1}) { issuedApiKey { rowId } } }'))
      .toMatchObject({ code: 'too_many_keys', status: 409 });
    await t.pools.owner.query('update app_private.api_keys set revoked_at = now() where id = $1', [made[0]]);
    await mint();
    await t.pools.owner.query("update app_private.api_keys set expires_at = now() - interval '1 minute' where id = $1", [made[1]]);
    await mint();
    expect((await gqlError(t, minter.token, 'mutation { accessCreatePersonal(input: {}) { issuedApiKey { rowId } } }')).code).toBe('too_many_keys');
  });

  it('never grants more than the caller holds: scopes and narrowing', async () => {
    const reader = await createKey(t, ws, { scopes: [...READS, 'WRITE_ISSUES'] });
    const escalate = await gqlError(t, reader.token, 'mutation { accessCreate(input: {scopes: [ADMIN]}) { issuedApiKey { rowId } } }');
    expect(escalate).toMatchObject({ code: 'scope_escalation', status: 403 });
    expect(escalate.message).toMatch(/ADMIN/);
    const sub = (await gqlOk(t, reader.token, 'mutation { accessCreate(input: {scopes: [READ_ISSUES]}) { issuedApiKey { scopes } } }')).accessCreate.issuedApiKey;
    expect(sub.scopes).toEqual(['READ_ISSUES']);

    const { rows: [p1] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'P1') returning id`, [ws.id]);
    const { rows: [p2] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'P2') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { projects: [p1.id] });
    const inherited = (await gqlOk(t, narrowed.token, 'mutation { accessCreatePersonal(input: {}) { issuedApiKey { projectIds labelIds } } }')).accessCreatePersonal.issuedApiKey;
    expect(inherited).toEqual({ projectIds: [p1.id], labelIds: [] });
    const widen = await gqlError(t, narrowed.token, `mutation { accessCreatePersonal(input: {projectIds: ["${p2.id}"]}) { issuedApiKey { rowId } } }`);
    expect(widen).toMatchObject({ code: 'narrowing', status: 403 });
  });
});

describe('keys: list and revoke', () => {
  it('lists prefix and metadata only: a MEMBER sees their own keys, an OWNER every key', async () => {
    const apiKeyFields = await gqlOk(t, ws.token, '{ __type(name: "ApiKey") { fields { name } } }');
    const names = apiKeyFields.__type.fields.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['prefix', 'kind', 'scopes', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt']));
    expect(names.filter((n: string) => /hash|raw|token|secret/i.test(n))).toEqual([]);

    const mine = (await gqlOk(t, member.token, '{ accessKeys { nodes { rowId userId isCurrent } } }')).accessKeys.nodes;
    const { rows: [memberUser] } = await t.pools.owner.query('select id from app_public.users where email = $1', [memberEmail]);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((k: { userId: string }) => k.userId === memberUser.id)).toBe(true);
    expect(mine.filter((k: { isCurrent: boolean }) => k.isCurrent).map((k: { rowId: string }) => k.rowId)).toEqual([member.id]);
    const all = (await gqlOk(t, ws.token, '{ accessKeys { nodes { rowId } } }')).accessKeys.nodes.map((k: { rowId: string }) => k.rowId);
    expect(all).toContain(member.id);
  });

  it('a key revoked through GraphQL gets 401 revoked on its very next MCP call', async () => {
    const victim = await createKey(t, ws, { user: memberEmail });
    expect((await rest(t, victim.token, 'workspace.get')).status).toBe(200); // cached as valid now
    const foreign = await gqlError(t, member.token, `mutation { accessRevoke(input: {keyId: "${(await createKey(t, ws)).id}"}) { apiKey { rowId } } }`);
    expect(foreign).toMatchObject({ code: 'not_found', status: 404 });

    const { accessRevoke } = await gqlOk(t, ws.token, `mutation { accessRevoke(input: {keyId: "${victim.id}"}) { apiKey { rowId revokedAt prefix } } }`);
    expect(accessRevoke.apiKey.rowId).toBe(victim.id);
    expect(accessRevoke.apiKey.revokedAt).toBeTruthy();
    // No waiting: REST, JSON-RPC and GraphQL all refuse it at once.
    const restCall = await rest(t, victim.token, 'workspace.get');
    expect(restCall.status).toBe(401);
    expect(restCall.body).toMatchObject({ error: 'revoked' });
    const rpcCall = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', headers: { authorization: `Bearer ${victim.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'workspace.get', arguments: {} } }) });
    expect(rpcCall.statusCode).toBe(401);
    expect(rpcCall.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { error: 'revoked', status: 401 } } }); // JSON-RPC envelope (issue 9)
    expect((await gql(t, victim.token, '{ viewerRole }')).body).toMatchObject({ error: 'revoked' });
  });

  it('only an OWNER signs an OWNER out; an agent\'s key revokes only its agent\'s keys (a roles probe)', async () => {
    // An ADMIN revoked every OWNER key, though refused the OWNER's demotion; agent keys signed people out.
    const w = await createWorkspace(t);
    await admin(t, 'add-member', { workspace: w.key, email: `admin-${w.key}@example.com`, role: 'ADMIN', json: true });
    await admin(t, 'add-member', { workspace: w.key, email: `second-owner-${w.key}@example.com`, role: 'OWNER', json: true });
    const adminKey = await createKey(t, w, { user: `admin-${w.key}@example.com` });
    const ownerKey = await createKey(t, w);
    const secondOwner = await createKey(t, w, { user: `second-owner-${w.key}@example.com` });
    const revoke = (by: string, id: string) => gql(t, by, 'mutation($k: UUID!) { accessRevoke(input: {keyId: $k}) { apiKey { rowId } } }', { k: id });
    const refused = await revoke(adminKey.token, ownerKey.id);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'owner_required', status: 403 });
    expect((await rest(t, ownerKey.token, 'workspace.get')).status).toBe(200);
    // An OWNER may; so may the OWNER for their own keys, and an ADMIN for a MEMBER's or their own.
    expect((await revoke(secondOwner.token, ownerKey.id)).errors).toBeUndefined();
    expect((await rest(t, ownerKey.token, 'workspace.get')).status).toBe(401);
    const adminOwn = await createKey(t, w, { user: `admin-${w.key}@example.com` });
    expect((await revoke(adminKey.token, adminOwn.id)).errors).toBeUndefined();

    // An agent's key (made for the ADMIN, FULL): not its person's keys, nor anyone's; its agent's other keys, and itself.
    await createAgent(t, w, 'revoker');
    const agentKey = await createKey(t, w, { user: `admin-${w.key}@example.com`, agent: 'revoker' });
    const sibling = await createKey(t, w, { user: `admin-${w.key}@example.com`, agent: 'revoker' });
    for (const target of [adminKey.id, secondOwner.id]) {
      const r = await revoke(agentKey.token, target);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: "not_found", status: 404 });
    }
    // A key with no user (a plugin's) is no one's own: a MEMBER's key may not revoke it (the null made the test pass).
    await admin(t, 'add-member', { workspace: w.key, email: `member-${w.key}@example.com`, role: 'MEMBER', json: true });
    const memberKey = await createKey(t, w, { user: `member-${w.key}@example.com` });
    const plugin = (await gqlOk(t, secondOwner.token, 'mutation { pluginsCreate(input: {name: "Bot", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo.rowId;
    const pluginKey = (await gqlOk(t, secondOwner.token, 'mutation($p: UUID!) { pluginIssueApiKey(input: {pluginId: $p, scopes: [READ_ISSUES]}) { issuedApiKey { rowId rawKey } } }', { p: plugin })).pluginIssueApiKey.issuedApiKey;
    expect((await revoke(memberKey.token, pluginKey.rowId)).errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    expect((await revoke(agentKey.token, pluginKey.rowId)).errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    expect((await rest(t, pluginKey.rawKey, 'issues.list', {})).status).toBe(200);
    expect((await revoke(agentKey.token, sibling.id)).errors).toBeUndefined();
    expect((await revoke(agentKey.token, agentKey.id)).errors).toBeUndefined();
    expect((await rest(t, adminKey.token, 'workspace.get')).status).toBe(200);
  });

  it('revocation is exact even when this process still has the key cached', async () => {
    const k = await createKey(t, ws);
    expect((await gql(t, k.token, '{ viewerRole }')).status).toBe(200);
    expect((await rest(t, k.token, 'workspace.get')).status).toBe(200); // in the key cache now
    // Revoke behind the cache's back (no NOTIFY reaches this process's cache in time).
    await t.pools.owner.query('alter table app_private.api_keys disable trigger _900_notify_revoked');
    try {
      await t.pools.owner.query('update app_private.api_keys set revoked_at = now() where id = $1', [k.id]);
    } finally {
      await t.pools.owner.query('alter table app_private.api_keys enable trigger _900_notify_revoked');
    }
    // MCP re-checks the key in the call's own statement (app_hidden.set_request_context): over JSON-RPC too that is
    // the whole request's 401 (it was a tool result with HTTP 200 while the cache still held the key), and the key
    // leaves the cache.
    const rpcCall = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', headers: { authorization: `Bearer ${k.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'workspace.get', arguments: {} } }) });
    expect(rpcCall.statusCode).toBe(401);
    expect(rpcCall.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { error: 'revoked', status: 401 } } });
    expect((await rest(t, k.token, 'workspace.get')).body).toMatchObject({ error: 'revoked' });
    // GraphQL looks the key up afresh on every request.
    const r = await gql(t, k.token, '{ viewerRole }');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'revoked' });
  });

  it('a key may revoke itself (sign out)', async () => {
    const session = (await gqlOk(t, member.token, 'mutation { accessCreateSession(input: {}) { issuedApiKey { rowId rawKey } } }')).accessCreateSession.issuedApiKey;
    await gqlOk(t, session.rawKey, `mutation { accessRevoke(input: {keyId: "${session.rowId}"}) { apiKey { revokedAt } } }`);
    expect((await gql(t, session.rawKey, '{ viewerRole }')).status).toBe(401);
  });
});

describe('an archived agent\'s keys', () => {
  const rpcCall = (token: string, method: string, params: object) => t.app.inject({ method: 'POST', url: '/api/mcp/rpc',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params }) });

  it('are refused everywhere at once (403 agent_archived: REST, MCP, GraphQL, SSE), their streams end; restored, they work at once', async () => {
    const agent = await createAgent(t, ws, 'retiree');
    const key = await createKey(t, ws, { agent: 'retiree' });
    const sibling = await createAgent(t, ws, 'stays');
    const siblingKey = await createKey(t, ws, { agent: 'stays' });
    const issue = (await rest(t, key.token, 'issues.create', { title: 'Before the archive' })).body;
    expect(issue.key).toBeTruthy();
    const sse = await openSse(await t.listen(), key.token);
    await sse.waitForComment((c) => c === 'connected');

    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'retiree', json: true });
    // No waiting for the key cache (30 s): the archive tells it, and the stream ends.
    await sse.ended;
    for (const [tool, args] of [['issues.create', { title: 'After' }], ['comments.create', { issueId: issue.id, body: 'x' }],
      ['issues.list', {}], ['agents.me', {}]] as const) {
      const r = await rest(t, key.token, tool, args);
      expect([r.status, r.body.error], tool).toEqual([403, 'agent_archived']);
    }
    for (const [method, params] of [['tools/list', {}], ['tools/call', { name: 'issues.list', arguments: {} }]] as const) {
      const r = await rpcCall(key.token, method, params);
      expect([r.statusCode, r.json().error?.data?.error], method).toEqual([403, 'agent_archived']);
    }
    const g = await gql(t, key.token, '{ viewerRole }');
    expect([g.status, g.body.error]).toEqual([403, 'agent_archived']);
    const refusedStream = await openSse(await t.listen(), key.token);
    expect(refusedStream.status).toBe(403);
    await refusedStream.ended;
    // Nothing was written; another agent's key is untouched.
    expect((await rest(t, ws.token, 'issues.list', { query: 'After' })).body.items).toHaveLength(0);
    expect((await rest(t, siblingKey.token, 'agents.me', {})).body.id).toBe(sibling.id);

    // Restored: it works on its very next call.
    await admin(t, 'unarchive-agent', { workspace: ws.key, agent: 'retiree', json: true });
    expect((await rest(t, key.token, 'agents.me', {})).body.id).toBe(agent.id);
    expect((await rpcCall(key.token, 'tools/list', {})).statusCode).toBe(200);
    // A 400 agent_archived about another agent (assigning to an archived one) is the tool's error, not the key's.
    await createAgent(t, ws, 'gone-for-good');
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'gone-for-good', json: true });
    const assign = await rpcCall(key.token, 'tools/call', { name: 'issues.assign', arguments: { id: issue.id, profileKey: 'gone-for-good' } });
    expect(assign.statusCode).toBe(200);
    expect(assign.json().result.isError).toBe(true);
    expect(assign.json().result.content[0].text).toContain('agent_archived');
  });

  it('a key whose agent was archived behind the cache\'s back is refused by the call\'s own check, the whole JSON-RPC request too', async () => {
    await createAgent(t, ws, 'quiet-retiree');
    const key = await createKey(t, ws, { agent: 'quiet-retiree' });
    expect((await rest(t, key.token, 'agents.me', {})).status).toBe(200);  // cached now
    await t.pools.owner.query('alter table app_public.agents disable trigger _900_notify_keys');
    try {
      await t.pools.owner.query("update app_public.agents set archived_at = now() where workspace_id = $1 and profile_key = 'quiet-retiree'", [ws.id]);
    } finally {
      await t.pools.owner.query('alter table app_public.agents enable trigger _900_notify_keys');
    }
    const r = await rpcCall(key.token, 'tools/call', { name: 'issues.create', arguments: { title: 'Sneaked in' } });
    expect([r.statusCode, r.json().error?.data?.error]).toEqual([403, 'agent_archived']);
    expect((await rest(t, key.token, 'issues.list', {})).body.error).toBe('agent_archived');
    expect((await rest(t, ws.token, 'issues.list', { query: 'Sneaked' })).body.items).toHaveLength(0);
  });
});

describe('revoking another of your keys: only one that does not exceed the revoking key', () => {
  const revoke = async (token: string, id: string) =>
    (await gqlOk(t, token, `mutation { accessRevoke(input: {keyId: "${id}"}) { apiKey { rowId revokedAt } } }`)).accessRevoke.apiKey;
  // Still usable: anything but 401 (revoked) from a call it makes.
  const alive = async (token: string) => (await rest(t, token, 'workspace.get')).status !== 401;

  it('a read-only key cannot revoke its owner\'s FULL key (403 scope_escalation), a narrowed key no unnarrowed one (403 narrowing)', async () => {
    const full = await createKey(t, ws, { user: memberEmail });
    const reader = await createKey(t, ws, { user: memberEmail, scopes: [...READS] });
    const denied = await gqlError(t, reader.token, `mutation { accessRevoke(input: {keyId: "${full.id}"}) { apiKey { rowId } } }`);
    expect(denied).toMatchObject({ code: 'scope_escalation', status: 403 });
    expect(denied.message).toMatch(/cannot revoke.*FULL/);
    expect(await alive(full.token)).toBe(true);
    // A scope beyond the reader's, even with the rest held, is refused too.
    const writer = await createKey(t, ws, { user: memberEmail, scopes: [...READS, 'WRITE_ISSUES'] });
    expect(await gqlError(t, reader.token, `mutation { accessRevoke(input: {keyId: "${writer.id}"}) { apiKey { rowId } } }`))
      .toMatchObject({ code: 'scope_escalation', status: 403 });
    expect(await alive(writer.token)).toBe(true);

    const { rows: [p1] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'R1') returning id`, [ws.id]);
    const { rows: [p2] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'R2') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { user: memberEmail, scopes: [...READS], projects: [p1.id] });
    const elsewhere = await createKey(t, ws, { user: memberEmail, scopes: [...READS], projects: [p2.id] });
    for (const target of [reader, elsewhere]) {
      expect(await gqlError(t, narrowed.token, `mutation { accessRevoke(input: {keyId: "${target.id}"}) { apiKey { rowId } } }`))
        .toMatchObject({ code: 'narrowing', status: 403 });
      expect(await alive(target.token)).toBe(true);
    }
    // An OWNER's key without the ADMIN scope is not an admin key: the same rule holds for its owner's keys.
    const ownerFull = await createKey(t, ws);
    const ownerReader = await createKey(t, ws, { scopes: [...READS] });
    expect(await gqlError(t, ownerReader.token, `mutation { accessRevoke(input: {keyId: "${ownerFull.id}"}) { apiKey { rowId } } }`))
      .toMatchObject({ code: 'scope_escalation', status: 403 });
    expect(await alive(ownerFull.token)).toBe(true);
  });

  it('allows keys within the revoking key\'s scopes and narrowing, the key itself, and admins any key; another workspace\'s key is 404', async () => {
    const { rows: [p1] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'A1') returning id`, [ws.id]);
    const reader = await createKey(t, ws, { user: memberEmail, scopes: [...READS] });
    const sameScopes = await createKey(t, ws, { user: memberEmail, scopes: [...READS] });
    const fewer = await createKey(t, ws, { user: memberEmail, scopes: ['READ_ISSUES'] });
    const narrower = await createKey(t, ws, { user: memberEmail, scopes: [...READS], projects: [p1.id] });
    for (const target of [sameScopes, fewer, narrower]) {
      expect(await revoke(reader.token, target.id)).toMatchObject({ rowId: target.id, revokedAt: expect.any(String) });
      expect(await alive(target.token)).toBe(false);
    }
    // A narrowed key revokes a key within its narrowing.
    const narrowed = await createKey(t, ws, { user: memberEmail, scopes: [...READS], projects: [p1.id] });
    const inside = await createKey(t, ws, { user: memberEmail, scopes: ['READ_ISSUES'], projects: [p1.id] });
    expect((await revoke(narrowed.token, inside.id)).revokedAt).toBeTruthy();
    // FULL covers everything: it revokes a narrowed key and another FULL key of its user.
    const full = await createKey(t, ws, { user: memberEmail });
    const otherFull = await createKey(t, ws, { user: memberEmail });
    expect((await revoke(full.token, narrowed.id)).revokedAt).toBeTruthy();
    expect((await revoke(full.token, otherFull.id)).revokedAt).toBeTruthy();
    // Any key may revoke itself, whatever it holds.
    expect((await revoke(reader.token, reader.id)).revokedAt).toBeTruthy();
    expect(await alive(reader.token)).toBe(false);
    // A workspace admin (OWNER with a FULL key) still revokes any key of the workspace.
    expect((await revoke(ws.token, full.id)).revokedAt).toBeTruthy();
    expect(await alive(full.token)).toBe(false);
    // Another workspace's key: 404, untouched.
    const elsewhere = await createWorkspace(t);
    const theirs = await createKey(t, elsewhere);
    expect(await gqlError(t, ws.token, `mutation { accessRevoke(input: {keyId: "${theirs.id}"}) { apiKey { rowId } } }`))
      .toMatchObject({ code: 'not_found', status: 404 });
    expect(await alive(theirs.token)).toBe(true);
  });
});

describe('plugins: manifest.scopes and plugin.issueApiKey', () => {
  let pluginId: string;

  it('OWNER/ADMIN record plugins; everyone sees only manifest.scopes', async () => {
    const q = 'mutation { pluginsCreate(input: {name: "Linter", scopes: [READ_ISSUES, READ_PROJECTS, READ_COMMENTS, READ_USERS, WRITE_COMMENTS]}) { pluginInfo { rowId name scopes approvedAt } } }';
    expect(await gqlError(t, member.token, q)).toMatchObject({ code: 'admin_required', status: 403 });
    const { pluginsCreate: { pluginInfo } } = await gqlOk(t, ws.token, q);
    expect(pluginInfo).toMatchObject({ name: 'Linter', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'WRITE_COMMENTS'] });
    expect(pluginInfo.approvedAt).toBeTruthy();
    pluginId = pluginInfo.rowId;
    const listed = (await gqlOk(t, member.token, '{ plugins { nodes { rowId scopes } } }')).plugins.nodes;
    expect(listed).toContainEqual({ rowId: pluginId, scopes: pluginInfo.scopes });
  });

  it('issues keys whose scopes are a subset of manifest.scopes, else a clear error', async () => {
    const issue = (scopes: string) => `mutation { pluginIssueApiKey(input: {pluginId: "${pluginId}", scopes: [${scopes}]}) { issuedApiKey { ${KEY_FIELDS} } } }`;
    const tooMuch = await gqlError(t, ws.token, issue('READ_ISSUES, ADMIN, WRITE_ISSUES'));
    expect(tooMuch).toMatchObject({ code: 'invalid_input', status: 400, issues: { scopes: expect.stringMatching(/subset.*manifest\.scopes.*not allowed: ADMIN, WRITE_ISSUES/) } });
    expect(await gqlError(t, member.token, issue('READ_ISSUES'))).toMatchObject({ code: 'admin_required' });
    expect(await gqlError(t, ws.token, `mutation { pluginIssueApiKey(input: {pluginId: "${crypto.randomUUID()}", scopes: [READ_ISSUES]}) { issuedApiKey { rowId } } }`))
      .toMatchObject({ code: 'not_found', status: 404, message: 'Plugin not found' });

    const k = (await gqlOk(t, ws.token, issue('READ_ISSUES, READ_PROJECTS, READ_COMMENTS, READ_USERS'))).pluginIssueApiKey.issuedApiKey;
    expect(k).toMatchObject({ pluginId, kind: 'PERSONAL', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    expect(k.rawKey).toMatch(TOKEN);
    expect((await rest(t, k.rawKey, 'issues.list', {})).status).toBe(200);
    expect((await rest(t, k.rawKey, 'issues.create', { title: 'x' })).body).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES' });
    // A plugin key has no user of its own: it neither administers nor makes more keys.
    expect((await gqlOk(t, k.rawKey, '{ viewerRole }')).viewerRole).toBeNull();
    expect(await gqlError(t, k.rawKey, 'mutation { accessCreatePersonal(input: {}) { issuedApiKey { rowId } } }')).toMatchObject({ code: 'user_key_required' });
    expect(await gqlError(t, k.rawKey, 'mutation { agentsCreate(input: {profileKey: "p", name: "P"}) { agent { rowId } } }')).toMatchObject({ code: 'admin_required' });
  });

  it("a plugin key holding ADMIN revokes only itself: another key is 404 (its null role let it revoke the owner's)", async () => {
    const q = 'mutation { pluginsCreate(input: {name: "Revoker", scopes: [READ_ISSUES, READ_PROJECTS, READ_COMMENTS, READ_USERS, ADMIN]}) { pluginInfo { rowId } } }';
    const revoker = (await gqlOk(t, ws.token, q)).pluginsCreate.pluginInfo.rowId;
    const pk = (await gqlOk(t, ws.token, `mutation { pluginIssueApiKey(input: {pluginId: "${revoker}", scopes: [READ_ISSUES, READ_PROJECTS, READ_COMMENTS, READ_USERS, ADMIN]}) { issuedApiKey { rowId rawKey } } }`))
      .pluginIssueApiKey.issuedApiKey;
    const victim = await createKey(t, ws);
    const revoke = (keyId: string) => `mutation { accessRevoke(input: {keyId: "${keyId}"}) { apiKey { rowId revokedAt } } }`;
    expect(await gqlError(t, pk.rawKey, revoke(victim.id))).toMatchObject({ code: 'not_found', status: 404 });
    expect((await rest(t, victim.token, 'workspace.get', {})).status).toBe(200);
    // Itself, as any key may.
    expect((await gqlOk(t, pk.rawKey, revoke(pk.rowId))).accessRevoke.apiKey.revokedAt).toBeTruthy();
  });

  it('a null among scopes is refused; a manifest holding one (stored before) still bounds the keys (it let ADMIN and FULL through)', async () => {
    expect(await gqlError(t, ws.token, 'mutation { pluginsCreate(input: {name: "Nully", scopes: [READ_ISSUES, null]}) { pluginInfo { rowId } } }'))
      .toMatchObject({ code: 'invalid_input', issues: { scopes: 'must not contain null' } });
    const made = (await gqlOk(t, ws.token, 'mutation { pluginsCreate(input: {name: "Old nully", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }')).pluginsCreate.pluginInfo.rowId;
    await t.pools.owner.query(`update app_private.plugins set manifest = '{"scopes": ["READ_ISSUES", null]}' where id = $1`, [made]);
    const issue = (scopes: string) => `mutation { pluginIssueApiKey(input: {pluginId: "${made}", scopes: [${scopes}]}) { issuedApiKey { rowId scopes } } }`;
    expect(await gqlError(t, ws.token, issue('ADMIN'))).toMatchObject({ code: 'invalid_input', issues: { scopes: expect.stringMatching(/not allowed: ADMIN$/) } });
    expect(await gqlError(t, ws.token, issue('FULL'))).toMatchObject({ code: 'invalid_input', issues: { scopes: expect.stringMatching(/not allowed: FULL$/) } });
    expect(await gqlError(t, ws.token, issue('READ_ISSUES, null'))).toMatchObject({ code: 'invalid_input', issues: { scopes: 'must not contain null' } });
    expect((await gqlOk(t, ws.token, issue('READ_ISSUES'))).pluginIssueApiKey.issuedApiKey.scopes).toEqual(['READ_ISSUES']);
  });
});
