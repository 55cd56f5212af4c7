import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/auth/keys.ts';
import { EVENT_KINDS } from '../../src/events/kinds.ts';
import { admin, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let second: Workspace;
let mineHere: string;
let mineThere: string;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  second = await createWorkspace(t);
  // The same person in two workspaces, a key in each.
  await admin(t, 'add-member', { workspace: second.key, email: ws.ownerEmail, role: 'MEMBER', json: true });
  mineHere = (await createKey(t, ws, { scopes: ['READ_USERS', 'WRITE_USERS'] })).token;
  mineThere = (await createKey(t, second, { scopes: ['READ_USERS', 'WRITE_USERS'], user: ws.ownerEmail })).token;
});
afterAll(() => t.close());

const effective = (r: { effective: Array<{ eventKind: string }> }, kind: string) => r.effective.find((e) => e.eventKind === kind);

describe('notification.setPreference / getPreferences', () => {
  it('defaults to enabled with no rows; a workspace row wins over a global row', async () => {
    const none = await ok(t, mineHere, 'notification.getPreferences', {});
    expect(none.preferences).toEqual([]);
    expect(none.effective).toHaveLength(EVENT_KINDS.length);
    expect(none.effective.every((e: { enabled: boolean; source: string }) => e.enabled && e.source === 'default')).toBe(true);

    const global = await ok(t, mineHere, 'notification.setPreference', { eventKind: 'ISSUE_ASSIGNED', enabled: false, scope: 'global' });
    expect(global).toMatchObject({ eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_ONLY', workspaceId: null, scope: 'global', userId: expect.any(String) });
    let here = await ok(t, mineHere, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] });
    expect(here.effective).toEqual([{ eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_ONLY', source: 'global' }]);

    const local = await ok(t, mineHere, 'notification.setPreference', { eventKind: 'ISSUE_ASSIGNED', enabled: true, delivery: 'INBOX_AND_DIGEST' });
    expect(local).toMatchObject({ workspaceId: ws.id, scope: 'workspace', enabled: true, delivery: 'INBOX_AND_DIGEST' });
    here = await ok(t, mineHere, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] });
    expect(here.effective).toEqual([{ eventKind: 'ISSUE_ASSIGNED', enabled: true, delivery: 'INBOX_AND_DIGEST', source: 'workspace' }]);
    expect(here.preferences.map((p: { scope: string }) => p.scope)).toEqual(['global', 'workspace']);

    // The global row reaches the user's other workspace; the workspace row does not.
    const there = await ok(t, mineThere, 'notification.getPreferences', { eventKinds: ['ISSUE_ASSIGNED'] });
    expect(there.effective).toEqual([{ eventKind: 'ISSUE_ASSIGNED', enabled: false, delivery: 'INBOX_ONLY', source: 'global' }]);
    expect(there.preferences).toHaveLength(1);
  });

  it('updates in place and keeps delivery when it is not given', async () => {
    const a = await ok(t, mineHere, 'notification.setPreference', { eventKind: 'COMMENT_CREATED', enabled: true, delivery: 'INBOX_AND_DIGEST' });
    const b = await ok(t, mineHere, 'notification.setPreference', { eventKind: 'COMMENT_CREATED', enabled: false });
    expect(b).toMatchObject({ id: a.id, enabled: false, delivery: 'INBOX_AND_DIGEST' });
  });

  it("keeps each user's preferences to themselves", async () => {
    const other = await createKey(t, second, { scopes: ['READ_USERS', 'WRITE_USERS'] }); // second's owner
    await ok(t, other.token, 'notification.setPreference', { eventKind: 'ISSUE_STALLED', enabled: false, scope: 'global' });
    const mine = await ok(t, mineThere, 'notification.getPreferences', { eventKinds: ['ISSUE_STALLED'] });
    expect(mine.effective[0]).toMatchObject({ enabled: true, source: 'default' });
    expect(mine.preferences).toEqual([]);
  });

  it('validates input: unknown kind, missing enabled, unknown fields, bad scope', async () => {
    const cases: Array<[unknown, string]> = [
      [{ eventKind: 'NOPE', enabled: true }, 'eventKind'],
      [{ eventKind: 'ISSUE_CREATED' }, 'enabled'],
      [{ eventKind: 'ISSUE_CREATED', enabled: true, extra: 1 }, 'extra'],
      [{ eventKind: 'ISSUE_CREATED', enabled: true, scope: 'everywhere' }, 'scope'],
      [{ eventKind: 'ISSUE_CREATED', enabled: true, delivery: 'EMAIL' }, 'delivery'],
    ];
    for (const [input, field] of cases) {
      const r = await rest(t, mineHere, 'notification.setPreference', input);
      expect(r.status, JSON.stringify(input)).toBe(400);
      expect(Object.keys(r.body.issues)).toContain(field);
    }
    expect((await rest(t, mineHere, 'notification.getPreferences', { eventKinds: ['NOPE'] })).status).toBe(400);
  });

  it('needs WRITE_USERS to set and READ_USERS to read; works over JSON-RPC', async () => {
    const reader = await createKey(t, ws, { scopes: ['READ_USERS'] });
    const denied = await rest(t, reader.token, 'notification.setPreference', { eventKind: 'ISSUE_CREATED', enabled: false });
    expect(denied).toMatchObject({ status: 403, body: { error: 'scope_required', scope: 'WRITE_USERS' } });
    expect((await rest(t, reader.token, 'notification.getPreferences', {})).status).toBe(200);
    const m = await rpc(t, mineHere, 'tools/call', { name: 'notification.setPreference', arguments: { eventKind: 'ISSUE_QUEUED', enabled: false } });
    expect(m.body.result.structuredContent).toMatchObject({ eventKind: 'ISSUE_QUEUED', enabled: false });
  });

  it('refuses plugin keys that have no user of their own', async () => {
    const { rows: [plugin] } = await t.pools.owner.query(
      `insert into app_private.plugins (workspace_id, name, manifest, approved_at) values ($1, 'p', '{"scopes":["READ_USERS","WRITE_USERS"]}', now()) returning id`, [ws.id]);
    const client = await t.pools.owner.connect();
    const key = await issueKey(client, { workspaceId: ws.id, userId: null, pluginId: plugin.id, scopes: ['READ_USERS', 'WRITE_USERS'] })
      .finally(() => client.release());
    const r = await rest(t, key.rawKey, 'notification.setPreference', { eventKind: 'ISSUE_CREATED', enabled: false });
    expect(r).toMatchObject({ status: 403, body: { error: 'user_key_required' } });
  });
});

describe('event kinds', () => {
  it('the TypeScript list equals app_hidden.event_kinds()', async () => {
    const { rows } = await t.pools.owner.query('select app_hidden.event_kinds() as k');
    expect(rows[0].k).toEqual([...EVENT_KINDS]);
  });

  it('every kind a function records is a listed kind (so webhooks and preferences can name it)', async () => {
    const { rows } = await t.pools.owner.query(`select p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('app_public', 'app_hidden', 'app_private', 'app_tools')`);
    const recorded = new Set<string>();
    for (const { prosrc } of rows) for (const m of (prosrc as string).matchAll(/record_event\((?:[^,;()]+,\s*)?'([A-Z_]+)'/g)) recorded.add(m[1]!);
    expect(recorded.size).toBeGreaterThan(25);
    expect([...recorded].filter((k) => !(EVENT_KINDS as readonly string[]).includes(k))).toEqual([]);
    expect(await ok(t, mineHere, 'notification.setPreference', { eventKind: 'CYCLE_CREATED', enabled: false }))
      .toMatchObject({ eventKind: 'CYCLE_CREATED' });
  });
});
