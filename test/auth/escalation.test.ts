/** Privilege escalation paths found in review, each pinned by a test. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let member: { id: string; token: string };
let agentId: string;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: 'member@example.com' });
  agentId = (await createAgent(t, ws, 'bot')).id;
});
afterAll(() => t.close());

async function pluginKey(scopes: string, token = ws.token): Promise<string> {
  const plugin = (await gqlOk(t, ws.token, `mutation { pluginsCreate(input: {name: "P${Math.random()}", scopes: [FULL]}) { pluginInfo { rowId } } }`)).pluginsCreate.pluginInfo.rowId;
  const r = await gqlOk(t, token, `mutation { pluginIssueApiKey(input: {pluginId: "${plugin}", scopes: [${scopes}]}) { issuedApiKey { rawKey projectIds expiresAt } } }`);
  return r.pluginIssueApiKey.issuedApiKey.rawKey;
}

describe('acting as an agent', () => {
  it('a MEMBER cannot mint a key linked to an agent, whatever the kind', async () => {
    for (const kind of ['SESSION', 'AGENT', 'PERSONAL']) {
      const err = await gqlError(t, member.token, `mutation { accessCreate(input: {kind: ${kind}, linkedAgentId: "${agentId}", expiresInDays: 1}) { issuedApiKey { rowId } } }`);
      expect(err.status, kind).toBeGreaterThanOrEqual(400);
    }
    await expect(createKey(t, ws, { kind: 'SESSION', agent: 'bot', ttlHours: 1 })).rejects.toThrow();
  });

  it('an agent key cannot mint a user key to shed its agent identity', async () => {
    const agentKey = await createKey(t, ws, { agent: 'bot' });
    const err = await gqlError(t, agentKey.token, 'mutation { accessCreatePersonal(input: {}) { issuedApiKey { rowId } } }');
    expect(err.code).toBe('user_key_required');
  });
});

describe('plugin keys have no user of their own', () => {
  it('cannot read the owner\'s notes or moderate members\' comments; issues they create are attributed to the first member', async () => {
    await ok(t, ws.token, 'notes.create', { title: 'private', body: 'top secret' });
    const issue = await ok(t, member.token, 'issues.create', { title: 'member issue' });
    const comment = await ok(t, member.token, 'comments.create', { issueId: issue.id, body: 'mine' });
    const key = await pluginKey('READ_ISSUES, WRITE_ISSUES, WRITE_COMMENTS, READ_COMMENTS');
    const notes = await rest(t, key, 'notes.list', {});
    expect(JSON.stringify(notes.body)).not.toContain('top secret');
    const edit = await rest(t, key, 'comments.update', { id: comment.id, body: 'rewritten by a plugin' });
    expect(edit.status).toBe(403);
    const created = await ok(t, key, 'issues.create', { title: 'from a plugin' });
    const { rows } = await t.pools.owner.query(
      `select m.user_id from app_public.memberships m where m.workspace_id = $1 order by m.created_at, m.id limit 1`, [ws.id]);
    expect(created.createdByUserId).toBe(rows[0].user_id);
    // So is the event's actor (it was null, while the issue named the first member).
    const [event] = (await ok(t, ws.token, 'events.recent', { kinds: ['ISSUE_CREATED'], subjectType: 'issue', subjectId: created.id })).items;
    expect(event.actor?.id).toBe(rows[0].user_id);
  });

  it('tools/list leaves out what a key acting for no user cannot call (notes, pins, timers, claims, votes, watching), and each refuses it', async () => {
    const key = await pluginKey('FULL');
    const listed = await rpc(t, key, 'tools/list', {}, '?tools=notes,pins,time,issues,actionRequests');
    expect(listed.body.result.nextCursor).toBeUndefined();
    const names = (listed.body.result.tools as Array<{ name: string }>).map((x) => x.name);
    const userOnly = ['notes.list', 'notes.create', 'pins.list', 'pins.set', 'time.start', 'time.running', 'time.log', 'issues.claim',
      'actionRequests.vote', 'issues.watch', 'issues.unwatch', 'issues.listWatching'];
    expect(names.filter((n) => userOnly.includes(n))).toEqual([]);
    expect(names).toContain('issues.create');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'watched by nobody' });
    for (const [tool, args] of [['issues.watch', { issueId: issue.id }], ['issues.unwatch', { issueId: issue.id }], ['issues.listWatching', {}],
      ['time.running', {}], ['notes.list', {}], ['issues.claim', { id: issue.id }]] as const) {
      const r = await rest(t, key, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'user_required']);
    }
    // A person's key and an agent's key are offered them.
    const personal = (await rpc(t, ws.token, 'tools/list', {}, '?tools=notes,pins,time,issues,actionRequests')).body.result.tools.map((x: { name: string }) => x.name);
    expect(userOnly.filter((n) => !personal.includes(n))).toEqual([]);
  });

  it('a narrowed admin cannot issue an un-narrowed plugin key', async () => {
    const { rows: [project] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'A') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { projects: [project.id] });
    const plugin = (await gqlOk(t, ws.token, `mutation { pluginsCreate(input: {name: "N", scopes: [FULL]}) { pluginInfo { rowId } } }`)).pluginsCreate.pluginInfo.rowId;
    const r = await gqlOk(t, narrowed.token, `mutation { pluginIssueApiKey(input: {pluginId: "${plugin}", scopes: [READ_ISSUES]}) { issuedApiKey { projectIds } } }`);
    expect(r.pluginIssueApiKey.issuedApiKey.projectIds).toEqual([project.id]);
  });
});

describe('narrowing and admin reads over GraphQL', () => {
  it('a narrowed key sees issue labels only of issues it can see', async () => {
    const { rows: [project] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Seen') returning id`, [ws.id]);
    const { rows: [label] } = await t.pools.owner.query(`insert into app_public.labels (workspace_id, name) values ($1, 'hidden-label') returning id`, [ws.id]);
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'hidden', labelIds: [label.id] });
    const narrowed = await createKey(t, ws, { projects: [project.id] });
    const rows = (await gqlOk(t, narrowed.token, '{ issueLabels { nodes { issueId } } }')).issueLabels.nodes;
    expect(rows.map((r: { issueId: string }) => r.issueId)).not.toContain(hidden.id);
  });

  it('webhook tables need the ADMIN scope to read', async () => {
    await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/x', json: true });
    const readOnly = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    expect((await gqlOk(t, readOnly.token, '{ webhooks { nodes { url } } }')).webhooks.nodes).toEqual([]);
    expect((await gqlOk(t, ws.token, '{ webhooks { nodes { url } } }')).webhooks.nodes.length).toBeGreaterThan(0);
  });
});
