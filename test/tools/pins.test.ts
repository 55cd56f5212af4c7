import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, ok, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

const ids = (pins: Array<{ issueId: string }>) => pins.map((p) => p.issueId);

describe('pins', () => {
  it('set replaces the whole ordered list, idempotently, and writes no event', async () => {
    const [a, b, c] = [await ok(t, ws.token, 'issues.create', { title: 'a' }), await ok(t, ws.token, 'issues.create', { title: 'b' }),
      await ok(t, ws.token, 'issues.create', { title: 'c' })];
    expect(await ok(t, ws.token, 'pins.list', {})).toEqual([]);
    const before = (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id;
    const set = await ok(t, ws.token, 'pins.set', { issueIds: [c.key, a.id] });
    expect(set).toEqual([
      expect.objectContaining({ issueId: c.id, position: 0, pinnedAt: expect.any(String), issue: expect.objectContaining({ id: c.id, key: c.key }) }),
      expect.objectContaining({ issueId: a.id, position: 1 }),
    ]);
    expect(await ok(t, ws.token, 'pins.set', { issueIds: [c.key, a.id] })).toEqual(set);
    expect(ids(await ok(t, ws.token, 'pins.set', { issueIds: [b.id, c.id] }))).toEqual([b.id, c.id]);
    expect(ids(await ok(t, ws.token, 'pins.list', {}))).toEqual([b.id, c.id]);
    expect((await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
    expect(await ok(t, ws.token, 'pins.set', { issueIds: [] })).toEqual([]);
  });

  it('parallel sets leave one of the lists sent, never a merge of them', async () => {
    const made = [];
    for (let i = 0; i < 6; i++) made.push((await ok(t, ws.token, 'issues.create', { title: `p${i}` })).id);
    const lists = [[made[0], made[1]], [made[2]], [made[3], made[4], made[5]]];
    for (let round = 0; round < 3; round++) {
      await Promise.all(lists.map((issueIds) => ok(t, ws.token, 'pins.set', { issueIds })));
      const pins = await ok(t, ws.token, 'pins.list', {});
      expect(lists.map((l) => JSON.stringify(l))).toContain(JSON.stringify(ids(pins)));
      expect(pins.map((p: { position: number }) => p.position)).toEqual(pins.map((_: unknown, n: number) => n));
    }
    await ok(t, ws.token, 'pins.set', { issueIds: [] });
  });

  it('pins are personal: another user has their own, and deleted issues drop out', async () => {
    const email = `pinner-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
    const theirKey = await createKey(t, ws, { user: email, scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const x = await ok(t, ws.token, 'issues.create', { title: 'x' });
    const y = await ok(t, ws.token, 'issues.create', { title: 'y' });
    await ok(t, ws.token, 'pins.set', { issueIds: [x.id, y.id] });
    await ok(t, theirKey.token, 'pins.set', { issueIds: [y.id] });
    expect(ids(await ok(t, ws.token, 'pins.list', {}))).toEqual([x.id, y.id]);
    expect(ids(await ok(t, theirKey.token, 'pins.list', {}))).toEqual([y.id]);
    await ok(t, ws.token, 'issues.delete', { id: x.id });
    expect(ids(await ok(t, ws.token, 'pins.list', {}))).toEqual([y.id]);
  });

  it('rejects bad input with 400 and unknown issues with 404, changing nothing', async () => {
    const a = await ok(t, ws.token, 'issues.create', { title: 'kept' });
    await ok(t, ws.token, 'pins.set', { issueIds: [a.id] });
    for (const [input, field] of [[{}, 'issueIds'], [{ issueIds: 'ENG-1' }, 'issueIds'], [{ issueIds: [''] }, 'issueIds.0'],
      [{ issueIds: Array.from({ length: 101 }, () => a.id) }, 'issueIds'], [{ issueIds: [a.id, a.key] }, 'issueIds.1']] as const) {
      const r = await rest(t, ws.token, 'pins.set', input);
      expect(r.status, JSON.stringify(input)).toBe(400);
      expect(Object.keys(r.body.issues)).toContain(field);
    }
    expect((await rest(t, ws.token, 'pins.list', { extra: 1 })).status).toBe(400);
    const missing = await rest(t, ws.token, 'pins.set', { issueIds: [a.id, crypto.randomUUID()] });
    expect(missing.status).toBe(404);
    expect(missing.body.issues).toBeUndefined();
    expect(ids(await ok(t, ws.token, 'pins.list', {}))).toEqual([a.id]);
  });

  it('another workspace cannot pin these issues (404)', async () => {
    const a = await ok(t, ws.token, 'issues.create', { title: 'home' });
    expect((await rest(t, other.token, 'pins.set', { issueIds: [a.id] })).status).toBe(404);
    expect(await ok(t, other.token, 'pins.list', {})).toEqual([]);
  });

  it('a narrowed key sees and replaces only pins within its reach; others stay', async () => {
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Pin P']);
    const inside = await ok(t, ws.token, 'issues.create', { title: 'in', projectId: rows[0].id });
    const inside2 = await ok(t, ws.token, 'issues.create', { title: 'in 2', projectId: rows[0].id });
    const outside = await ok(t, ws.token, 'issues.create', { title: 'out' });
    await ok(t, ws.token, 'pins.set', { issueIds: [outside.id, inside.id] });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    expect(ids(await ok(t, key.token, 'pins.list', {}))).toEqual([inside.id]);
    expect((await rest(t, key.token, 'pins.set', { issueIds: [outside.id] })).status).toBe(404);
    expect(ids(await ok(t, key.token, 'pins.set', { issueIds: [inside2.id] }))).toEqual([inside2.id]);
    expect(ids(await ok(t, ws.token, 'pins.list', {})).sort()).toEqual([outside.id, inside2.id].sort());

    // Among pins it cannot see, the key's list keeps its order and no two pins share a position.
    const outside2 = await ok(t, ws.token, 'issues.create', { title: 'out 2' });
    await ok(t, ws.token, 'pins.set', { issueIds: [outside.id, inside.id, outside2.id, inside2.id] });
    await ok(t, key.token, 'pins.set', { issueIds: [inside2.id, inside.id] });
    const all = await ok(t, ws.token, 'pins.list', {});
    expect(all.map((p: { position: number }) => p.position)).toEqual([0, 1, 2, 3]);
    expect(ids(all)).toEqual([outside.id, inside2.id, inside.id, outside2.id]);
  });
});
