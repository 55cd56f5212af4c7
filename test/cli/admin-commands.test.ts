/**
 * The operator commands of operator-interface.md added with issue 14 (lists) and issues 10/11
 * (archive/unarchive, update-workspace, --expires-in-seconds, --max-concurrent), driven through the
 * `svc` binary against a real PostgreSQL.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, rest, startTestApp, type TestApp } from '../support/harness.ts';
import { svc, svcJson } from './support.ts';

let env: Record<string, string>;
let db: pg.Client;
let t: TestApp;
let ownerToken: string;

beforeAll(async () => {
  env = { DATABASE_URL: await createTestDatabase() };
  db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  t = await startTestApp({ ownerUrl: env.DATABASE_URL });
  const ws = await svcJson(['admin', 'create-workspace', '--name', 'Ops', '--key', 'OPS', '--owner-email', 'boss@example.com'], env);
  ownerToken = ws.apiKey.rawKey;
  await svcJson(['admin', 'add-member', '--workspace', 'OPS', '--email', 'dev@example.com', '--role', 'MEMBER'], env);
  await svcJson(['admin', 'create-workspace', '--name', 'Other', '--key', 'OTH', '--owner-email', 'other@example.com'], env);
});

afterAll(async () => {
  await t?.close();
  await db?.end();
});

describe('list commands', () => {
  it('list-workspaces prints {"items":[...]} with each workspace and its settings', async () => {
    const { items } = await svcJson(['admin', 'list-workspaces'], env);
    expect(items.map((w: { key: string }) => w.key)).toEqual(['OPS', 'OTH']);
    expect(items[0]).toMatchObject({ key: 'OPS', name: 'Ops', slug: 'ops', memberCount: 2, agentCount: 0, autoDispatch: false, autoDispatchMode: 'ROUND_ROBIN' });
    const text = await svc(['admin', 'list-workspaces'], env);
    expect(text.stdout.split('\n')[0]).toMatch(/^key +name +slug/);
    expect(text.stdout).toMatch(/^OPS +Ops +ops/m);
  });

  it('list-members lists the members of one workspace with their roles', async () => {
    const { items } = await svcJson(['admin', 'list-members', '--workspace', 'OPS'], env);
    expect(items).toEqual([
      { user: { id: expect.any(String), email: 'boss@example.com', name: expect.any(String) }, role: 'OWNER', createdAt: expect.any(String) },
      { user: { id: expect.any(String), email: 'dev@example.com', name: expect.any(String) }, role: 'MEMBER', createdAt: expect.any(String) },
    ]);
    const text = await svc(['admin', 'list-members', '--workspace', 'ops'], env);
    expect(text.stdout).toMatch(/^dev@example\.com +MEMBER/m);
  });

  it('list-keys shows prefix, kind, scopes, narrowing, owner, agent and dates, never a secret', async () => {
    await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'lister', '--name', 'Lister'], env);
    const project = (await rest(t, ownerToken, 'projects.create', { name: 'Narrow' })).body;
    const created = await svcJson(['admin', 'create-key', '--workspace', 'OPS', '--user', 'dev@example.com', '--agent', 'lister',
      '--scopes', 'READ_ISSUES', '--projects', project.id, '--expires-in-days', '2'], env);
    const revoked = await svcJson(['admin', 'create-key', '--workspace', 'OPS', '--user', 'boss@example.com'], env);
    await svcJson(['admin', 'revoke-key', '--id', revoked.apiKey.id], env);
    await rest(t, ownerToken, 'workspace.get', {});

    const out = await svc(['admin', 'list-keys', '--workspace', 'OPS', '--json'], env);
    const { items } = JSON.parse(out.stdout);
    expect(items).toHaveLength(3);
    for (const k of items) {
      expect(Object.keys(k)).toEqual(expect.arrayContaining(['id', 'prefix', 'kind', 'scopes', 'projectIds', 'labelIds', 'initiativeIds',
        'userEmail', 'agentProfileKey', 'createdAt', 'lastUsedAt', 'expiresAt', 'revokedAt']));
    }
    const agentKey = items.find((k: { id: string }) => k.id === created.apiKey.id);
    expect(agentKey).toMatchObject({ prefix: created.apiKey.prefix, kind: 'AGENT', scopes: ['READ_ISSUES'], projectIds: [project.id],
      labelIds: [], initiativeIds: [], userEmail: 'dev@example.com', agentProfileKey: 'lister', revokedAt: null, lastUsedAt: null });
    expect(Date.parse(agentKey.expiresAt)).toBeGreaterThan(Date.now() + 86_400_000);
    expect(items.find((k: { id: string }) => k.id === revoked.apiKey.id).revokedAt).toEqual(expect.any(String));
    // Never a secret: no raw key, no hash, in JSON or in the table.
    const hashes = await db.query(`select encode(token_hash, 'hex') as h from app_private.api_keys`);
    for (const text of [out.stdout, (await svc(['admin', 'list-keys', '--workspace', 'OPS'], env)).stdout]) {
      expect(text).not.toContain(created.apiKey.rawKey);
      expect(text).not.toContain(ownerToken);
      expect(text).not.toMatch(/svc_sk_[A-Za-z0-9_-]{43}/);
      for (const { h } of hashes.rows) expect(text).not.toContain(h);
    }
    const table = (await svc(['admin', 'list-keys', '--workspace', 'OPS'], env)).stdout;
    expect(table).toMatch(/AGENT +active +dev@example\.com +lister +READ_ISSUES +projects:1/);
    expect(table).toMatch(/revoked/);
  });

  it('input the service refuses is exit 2 naming the flag it came from (email → --email, linkedAgentId → --agent)', async () => {
    const email = await svc(['admin', 'add-member', '--workspace', 'OPS', '--email', 'bob', '--role', 'MEMBER'], env);
    expect([email.code, email.stderr]).toEqual([2, 'svc: --email: not an email address\n']);
    // A domain with an empty label (a trailing dot) is none: it made a second person beside boss@example.com.
    const dotted = await svc(['admin', 'add-member', '--workspace', 'OPS', '--email', 'boss@example.com.', '--role', 'MEMBER'], env);
    expect([dotted.code, dotted.stderr]).toEqual([2, 'svc: --email: not an email address\n']);
    const agentless = await svc(['admin', 'create-key', '--workspace', 'OPS', '--user', 'dev@example.com', '--kind', 'AGENT'], env);
    expect(agentless.code).toBe(2);
    expect(agentless.stderr).toMatch(/^svc: --agent: an AGENT key needs a linked agent/);
  });

  it('a value that names nothing is exit 2 naming its flag, on every command (it was exit 1 on most)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['admin', 'open-chat', '--workspace', 'OPS', '--agent', 'nobody', '--user', 'boss@example.com'], /^svc: --agent: no agent with profile key nobody/],
      [['admin', 'create-dispatch-rule', '--workspace', 'OPS', '--target', 'nobody'], /^svc: --target: no agent with profile key nobody/],
      [['admin', 'revoke-key', '--id', '00000000-0000-4000-8000-000000000000'], /^svc: --id: API key not found/],
      [['admin', 'archive-agent', '--workspace', 'NOPE', '--agent', 'x'], /^svc: --workspace: no workspace/],
      [['admin', 'list-deliveries', '--workspace', 'OPS', '--webhook', '00000000-0000-4000-8000-000000000000'], /^svc: --webhook: no webhook/],
      [['admin', 'list-deliveries', '--workspace', 'OPS', '--before', 'not-a-uuid'], /^svc: --before\b/],
      [['admin', 'list-deliveries', '--workspace', 'OPS', '--limit', '300'], /^svc: --limit\b/],
      // The flag a field came from when it is named otherwise, and a value already taken (409) is exit 2 too.
      [['admin', 'create-workspace', '--name', 'Bad', '--key', 'BADMAIL', '--owner-email', 'not-an-email'], /^svc: --owner-email: /],
      // ... named by its flag (a docs probe: the README promises it; these said the message alone).
      [['admin', 'create-workspace', '--name', 'Again', '--key', 'OPS', '--owner-email', 'again@example.com'], /^svc: --key: A workspace with key OPS already exists/],
      [['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'lister', '--name', 'Again'], /^svc: --profile-key: An agent with profile key lister already exists/],
      [['admin', 'add-member', '--workspace', 'OPS', '--email', 'boss@example.com', '--role', 'MEMBER'], /^svc: --role: The last OWNER cannot be demoted/],
    ];
    for (const [args, message] of cases) {
      const r = await svc([...args, '--json'], env);
      expect([args[1], r.code, r.stdout], r.stderr).toEqual([args[1], 2, '']);
      expect(r.stderr).toMatch(message);
    }
    await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'chatty', '--name', 'Chatty'], env);
    const user = await svc(['admin', 'open-chat', '--workspace', 'OPS', '--agent', 'chatty', '--user', 'nobody@example.com', '--json'], env);
    expect([user.code, user.stderr]).toEqual([2, 'svc: --user: no user with email nobody@example.com\n']);
  });

  it('svc db url says a server that refuses the login is running, and why it refused', async () => {
    const wrong = new URL(env.DATABASE_URL!);
    wrong.password = 'wrong-password';
    const json = await svc(['db', 'url', '--json'], { ...env, DATABASE_URL: wrong.toString() });
    expect(JSON.parse(json.stdout)).toMatchObject({ embedded: false, running: true });
    const text = await svc(['db', 'url'], { ...env, DATABASE_URL: wrong.toString() });
    expect(text.stderr).toMatch(/answers but refuses the connection: password authentication failed/);
    expect(JSON.parse((await svc(['db', 'url', '--json'], env)).stdout)).toMatchObject({ running: true });
  });

  it('list-agents lists agents with archivedAt; other workspaces are not mixed in', async () => {
    const { items } = await svcJson(['admin', 'list-agents', '--workspace', 'OPS'], env);
    expect(items.map((a: { profileKey: string }) => a.profileKey)).toContain('lister');
    expect(items[0]).toMatchObject({ id: expect.any(String), name: expect.any(String), status: 'OFFLINE', archivedAt: null, maxConcurrent: 1 });
    expect((await svcJson(['admin', 'list-agents', '--workspace', 'OTH'], env)).items).toEqual([]);
    expect((await svc(['admin', 'list-agents', '--workspace', 'OTH'], env)).stdout).toBe('No agents.\n');
    const missing = await svc(['admin', 'list-agents', '--workspace', 'NOPE', '--json'], env);
    expect([missing.code, missing.stderr]).toEqual([2, 'svc: --workspace: no workspace with this key, slug or id: NOPE (see list-workspaces)\n']);
  });
});

describe('agents', () => {
  it('create-agent --max-concurrent N (0 = unlimited)', async () => {
    const { agent } = await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'wide', '--name', 'Wide',
      '--max-concurrent', '0'], env);
    expect(agent.maxConcurrent).toBe(0);
    const three = await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'three', '--name', 'Three',
      '--max-concurrent', '3'], env);
    expect(three.agent.maxConcurrent).toBe(3);
  });

  it('a name is as long as the service counts it (code points): 150 robots are 150 characters, stored composed (NFC)', async () => {
    const robots = '🤖'.repeat(150);
    const { agent } = await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'robots', '--name', robots], env);
    expect(agent.name).toBe(robots);
    // 60 smileys for a person's name (at most 100): 60 characters, not 120; a decomposed é is stored composed.
    const r = await svcJson(['admin', 'update-user', '--email', 'dev@example.com', '--name', `${'🙂'.repeat(60)} Rene\u0301`], env);
    expect(r.user.name).toBe(`${'🙂'.repeat(60)} Ren\u00e9`);
    const { rows } = await db.query("select name from app_public.users where email = 'dev@example.com'");
    expect(rows[0].name).toBe(`${'🙂'.repeat(60)} Ren\u00e9`);
  });

  it('archive-agent emits AGENT_DELETED and unarchive-agent AGENT_UPDATED, through the same SQL as GraphQL', async () => {
    const { agent } = await svcJson(['admin', 'create-agent', '--workspace', 'OPS', '--profile-key', 'retiree', '--name', 'Retiree'], env);
    const archived = await svcJson(['admin', 'archive-agent', '--workspace', 'OPS', '--agent', 'retiree'], env);
    expect(archived.agent).toMatchObject({ id: agent.id, profileKey: 'retiree', archivedAt: expect.any(String) });
    const events = async () => (await db.query(
      `select kind, payload from app_public.activity_events where subject_type = 'agent' and subject_id = $1 order by seq`, [agent.id])).rows;
    expect((await events()).map((e) => e.kind)).toEqual(['AGENT_CREATED', 'AGENT_DELETED']);
    expect((await events())[1].payload).toMatchObject({ archived: true });

    // Archiving again changes nothing and writes no event.
    const again = await svcJson(['admin', 'archive-agent', '--workspace', 'OPS', '--agent', 'retiree'], env);
    expect(again.agent.archivedAt).toBe(archived.agent.archivedAt);
    expect(await events()).toHaveLength(2);

    const restored = await svcJson(['admin', 'unarchive-agent', '--workspace', 'OPS', '--agent', 'retiree'], env);
    expect(restored.agent).toMatchObject({ id: agent.id, archivedAt: null });
    expect((await events()).map((e) => e.kind)).toEqual(['AGENT_CREATED', 'AGENT_DELETED', 'AGENT_UPDATED']);

    // The events reach API clients too (same log).
    const recent = await rest(t, ownerToken, 'events.recent', { limit: 50 });
    expect(recent.status).toBe(200);
    const kinds = (recent.body.items ?? recent.body).filter((e: { subjectId: string }) => e.subjectId === agent.id).map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['AGENT_DELETED', 'AGENT_UPDATED']));

    const unknown = await svc(['admin', 'archive-agent', '--workspace', 'OPS', '--agent', 'ghost', '--json'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^svc: --agent: no agent with profile key ghost/);
    const elsewhere = await svc(['admin', 'archive-agent', '--workspace', 'OTH', '--agent', 'retiree', '--json'], env);
    expect(elsewhere.code).toBe(2);
  });
});

describe('update-workspace', () => {
  it('changes only the settings given and prints the settings object of spec 2.8', async () => {
    const { workspace } = await svcJson(['admin', 'update-workspace', '--workspace', 'OPS', '--time-tracking', 'false', '--auto-dispatch', 'true',
      '--auto-dispatch-mode', 'capability_match', '--required-ack-seconds', '90', '--assignment-sla-minutes', '45'], env);
    expect(workspace).toEqual({
      id: expect.any(String), slug: 'ops', key: 'OPS', name: 'Ops', cycleLengthDays: 14, cycleCooldownDays: 0,
      timeTrackingEnabled: false, attachmentQuotaMb: 1024, requiredAckSeconds: 90, autoDispatch: true,
      autoDispatchMode: 'CAPABILITY_MATCH', assignmentSlaMinutes: 45, agentRunStaleMinutes: 30, offlineReclaimMinutes: 30,
    });
    // The API reads the same settings.
    const got = await rest(t, ownerToken, 'workspace.get', {});
    expect(got.body).toMatchObject({ timeTrackingEnabled: false, autoDispatch: true, autoDispatchMode: 'CAPABILITY_MATCH', requiredAckSeconds: 90 });

    const partial = await svcJson(['admin', 'update-workspace', '--workspace', 'OPS', '--auto-dispatch', 'false', '--agent-run-stale-minutes', '5'], env);
    expect(partial.workspace).toMatchObject({ autoDispatch: false, autoDispatchMode: 'CAPABILITY_MATCH', requiredAckSeconds: 90,
      assignmentSlaMinutes: 45, agentRunStaleMinutes: 5, timeTrackingEnabled: false });
    const text = await svc(['admin', 'update-workspace', '--workspace', 'OPS', '--time-tracking', 'true'], env);
    expect(text.stdout).toMatch(/^timeTrackingEnabled +true$/m);
    // The other workspace is untouched.
    const other = (await svcJson(['admin', 'list-workspaces'], env)).items.find((w: { key: string }) => w.key === 'OTH');
    expect(other).toMatchObject({ autoDispatch: false, requiredAckSeconds: 0, timeTrackingEnabled: true });
  });

  it('a value out of range fails and changes nothing, even beside a good one', async () => {
    const bad = await svc(['admin', 'update-workspace', '--workspace', 'OPS', '--name', '', '--cycle-cooldown-days', '400', '--json'], env);
    expect(bad.code).toBe(2); // caught by the declaration (max 365)
    const long = await svc(['admin', 'update-workspace', '--workspace', 'OPS', '--name', 'x'.repeat(201), '--json'], env);
    expect(long.code).toBe(2); // the declaration's text limit (200)
    const before = (await svcJson(['admin', 'update-workspace', '--workspace', 'OPS', '--json'], env)).workspace;
    const r = await svc(['admin', 'update-workspace', '--workspace', 'OPS', '--name', 'Renamed in a failed call',
      '--required-ack-seconds', '3000000000', '--json'], env);
    // Past a PostgreSQL integer: the declaration's error naming the flag (it was the database's "out of range", exit 1).
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --required-ack-seconds must be a whole number 0 or more \(at most 2147483647\)/);
    // All or nothing: the name given beside the refused value did not stick.
    expect((await svcJson(['admin', 'update-workspace', '--workspace', 'OPS', '--json'], env)).workspace.name).toBe(before.name);
  });
});

describe('create-key --expires-in-seconds', () => {
  it('issues a key that stops working N seconds later', async () => {
    const { apiKey } = await svcJson(['admin', 'create-key', '--workspace', 'OPS', '--user', 'boss@example.com', '--scopes', 'READ_ISSUES',
      '--expires-in-seconds', '2'], env);
    const expiresAt = Date.parse(apiKey.expiresAt);
    expect(expiresAt).toBeGreaterThan(Date.now() - 1000);
    expect(expiresAt).toBeLessThan(Date.now() + 3000);
    expect((await rest(t, apiKey.rawKey, 'issues.list', {})).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now()) + 300));
    expect((await rest(t, apiKey.rawKey, 'issues.list', {})).status).toBe(401);
    const listed = (await svcJson(['admin', 'list-keys', '--workspace', 'OPS'], env)).items.find((k: { id: string }) => k.id === apiKey.id);
    expect(listed.expiresAt).toBe(new Date(expiresAt).toISOString());
    expect((await svc(['admin', 'list-keys', '--workspace', 'OPS'], env)).stdout).toMatch(new RegExp(`expired.*${apiKey.id}`));
  });

  it('only one expiry flag at a time', async () => {
    const r = await svc(['admin', 'create-key', '--workspace', 'OPS', '--user', 'boss@example.com', '--expires-in-seconds', '5',
      '--ttl-hours', '1', '--json'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give one of --ttl-hours, --expires-in-days, --expires-in-seconds/);
  });
});

describe('--workspace naming several workspaces', () => {
  it('an id wins, then a key, then a slug (the first row found decided: --workspace ACME acted on the workspace whose slug is acme)', async () => {
    const named = await svcJson(['admin', 'create-workspace', '--name', 'Zorro', '--key', 'ZRA', '--owner-email', 'zorro@example.com'], env);
    const keyed = await svcJson(['admin', 'create-workspace', '--name', 'Other', '--key', 'ZORRO', '--owner-email', 'other@example.com'], env);
    const pick = async (value: string) => (await db.query('select (app_private.workspace_by_key($1)).id', [value])).rows[0].id as string;
    // Rows updated in turn change the order a scan finds them in; the answer stays.
    for (const id of [named.workspace.id, keyed.workspace.id, named.workspace.id]) {
      await db.query(`update app_public.workspaces set name = name where id = $1`, [id]);
      expect(await pick('ZORRO')).toBe(keyed.workspace.id);
      expect(await pick('zorro')).toBe(keyed.workspace.id); // a key is matched in any case, before a slug
      expect(await pick('ZRA')).toBe(named.workspace.id);
      expect(await pick(named.workspace.id)).toBe(named.workspace.id);
    }
    // A workspace named as another's id has that slug: the id still names the other.
    const lookalike = await svcJson(['admin', 'create-workspace', '--name', keyed.workspace.id, '--key', 'LOOK', '--owner-email', 'look@example.com'], env);
    expect(await pick(keyed.workspace.id)).toBe(keyed.workspace.id);
    expect(lookalike.workspace.id).not.toBe(keyed.workspace.id);
    const members = await svcJson(['admin', 'list-members', '--workspace', 'ZORRO'], env);
    expect(JSON.stringify(members)).toContain('other@example.com');
  });
});
