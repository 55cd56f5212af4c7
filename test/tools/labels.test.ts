/** labels.list / create / update / delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, rest, rpc, startTestApp, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'LAB');
  other = await createWorkspace(t, 'OTL');
});
afterAll(() => t.close());

describe('labels', () => {
  it('creates, lists by name with query and paging, updates and deletes', async () => {
    const bug = await ok(t, ws.token, 'labels.create', { name: 'Bug', color: '#ff0000', description: 'Something broken' });
    expect(bug).toMatchObject({ id: expect.any(String), name: 'Bug', color: '#ff0000', description: 'Something broken' });
    const infra = await ok(t, ws.token, 'labels.create', { name: 'infra' });
    expect(infra.color).toBe('#64748b');
    await ok(t, ws.token, 'labels.create', { name: 'api' });
    const all = await ok(t, ws.token, 'labels.list', {});
    expect(all.items.map((l: { name: string }) => l.name)).toEqual(['api', 'Bug', 'infra']);
    expect((await ok(t, ws.token, 'labels.list', { query: 'BU' })).items.map((l: { name: string }) => l.name)).toEqual(['Bug']);
    const p1 = await ok(t, ws.token, 'labels.list', { limit: 2 });
    expect(p1.items).toHaveLength(2);
    const p2 = await ok(t, ws.token, 'labels.list', { limit: 2, cursor: p1.nextCursor });
    expect(p2.items.map((l: { name: string }) => l.name)).toEqual(['infra']);
    expect(p2.nextCursor).toBeNull();

    const renamed = await ok(t, ws.token, 'labels.update', { id: bug.id, name: 'Defect', description: null });
    expect(renamed).toMatchObject({ name: 'Defect', color: '#ff0000', description: null });
    expect((await ok(t, ws.token, 'labels.update', { id: bug.id, name: 'defect' })).name).toBe('defect'); // case change of itself
    expect((await ok(t, ws.token, 'labels.list', { limit: 200 })).items).toHaveLength(3);
    expect((await ok(t, other.token, 'labels.list', {})).items).toEqual([]);
  });

  it('pages through labels whose names are long in UTF-8 (the cursor carries the name: it outgrew the cursor field at 200)', async () => {
    const w = await createWorkspace(t, 'LCJ');
    for (const tail of ['一', '二', '三']) await ok(t, w.token, 'labels.create', { name: '𝔸'.repeat(99) + tail });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { name: string }[]; nextCursor: string | null } = await ok(t, w.token, 'labels.list', { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((l) => l.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(3);
  });

  it('duplicate names (case-insensitive) are 409 label_exists; bad input 400', async () => {
    await ok(t, ws.token, 'labels.create', { name: 'Unique' });
    const dup = await rest(t, ws.token, 'labels.create', { name: 'UNIQUE' });
    expect(dup.status).toBe(409);
    expect([dup.body.error, dup.body.field]).toEqual(['label_exists', 'name']);
    const x = await ok(t, ws.token, 'labels.create', { name: 'Another' });
    expect((await rest(t, ws.token, 'labels.update', { id: x.id, name: 'unique' })).status).toBe(409);
    expect((await ok(t, other.token, 'labels.create', { name: 'Unique' })).name).toBe('Unique'); // per workspace
    for (const [tool, input, field] of [
      ['labels.create', {}, 'name'],
      ['labels.create', { name: '  ' }, 'name'],
      ['labels.create', { name: 'c', color: 'red' }, 'color'],
      ['labels.create', { name: 'x'.repeat(101) }, 'name'],
      ['labels.update', { id: 'nope' }, 'id'],
      ['labels.delete', {}, 'id'],
      ['labels.list', { limit: 201 }, 'limit'],
    ] as const) {
      const r = await rest(t, ws.token, tool, input);
      expect(r.status, `${tool} ${JSON.stringify(input)}`).toBe(400);
      expect(r.body.issues).toHaveProperty(field);
    }
  });

  it('deleting a label takes it off every issue, recording ISSUE_UPDATED on each', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'temporary' });
    const keep = await ok(t, ws.token, 'labels.create', { name: 'keeper' });
    const a = await ok(t, ws.token, 'issues.create', { title: 'a', labelIds: [label.id, keep.id] });
    const b = await ok(t, ws.token, 'issues.create', { title: 'b', labelIds: [label.id] });
    expect(await ok(t, ws.token, 'labels.delete', { id: label.id })).toEqual({ ok: true, id: label.id, removedFromIssues: 2 });
    expect((await ok(t, ws.token, 'issues.get', { id: a.id })).labelIds).toEqual([keep.id]);
    expect((await ok(t, ws.token, 'issues.get', { id: b.id })).labelIds).toEqual([]);
    for (const id of [a.id, b.id]) {
      const ev = await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: id });
      expect(ev.items[0]).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['labelIds'] } });
    }
    expect((await rest(t, ws.token, 'labels.delete', { id: label.id })).status).toBe(404);
  });

  it('labels of another workspace are 404 and stay unchanged', async () => {
    const theirs = await ok(t, other.token, 'labels.create', { name: 'theirs' });
    expect((await rest(t, ws.token, 'labels.update', { id: theirs.id, name: 'mine' })).status).toBe(404);
    expect((await rest(t, ws.token, 'labels.delete', { id: theirs.id })).status).toBe(404);
    expect((await ok(t, other.token, 'labels.list', { query: 'theirs' })).items).toHaveLength(1);
  });

  it('narrowed keys may read and create labels but not rename or delete them (403 narrowing)', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'scoped' });
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], labels: [label.id] });
    expect((await ok(t, narrowed.token, 'labels.list', { query: 'scoped' })).items).toHaveLength(1);
    expect((await ok(t, narrowed.token, 'labels.create', { name: 'made by narrowed' })).name).toBe('made by narrowed');
    const upd = await rest(t, narrowed.token, 'labels.update', { id: label.id, name: 'renamed' });
    expect(upd.status).toBe(403);
    expect(upd.body.error).toBe('narrowing');
    expect((await rest(t, narrowed.token, 'labels.delete', { id: label.id })).status).toBe(403);
    expect((await ok(t, ws.token, 'labels.list', { query: 'scoped' })).items[0].name).toBe('scoped');
  });

  it("an issue's labelIds follow every change of its labels, in the order they were added", async () => {
    const [a, b, c] = [await ok(t, ws.token, 'labels.create', { name: 'order-a' }), await ok(t, ws.token, 'labels.create', { name: 'order-b' }),
      await ok(t, ws.token, 'labels.create', { name: 'order-c' })];
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled', labelIds: [a.id] });
    expect(issue.labelIds).toEqual([a.id]);
    expect(issue.labels.map((l: { name: string }) => l.name)).toEqual(['order-a']);
    await ok(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [c.id] });
    const added = await ok(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [b.id] });
    expect(added.labelIds).toEqual([a.id, c.id, b.id]);
    expect(added.labels.map((l: { name: string }) => l.name)).toEqual(['order-a', 'order-c', 'order-b']);
    expect((await ok(t, ws.token, 'issues.removeLabels', { id: issue.id, labelIds: [c.id] })).labelIds).toEqual([a.id, b.id]);
    await ok(t, ws.token, 'labels.delete', { id: a.id });
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).labelIds).toEqual([b.id]);
    expect((await ok(t, ws.token, 'issues.list', { labelIds: [b.id] })).items.map((i: { id: string }) => i.id)).toContain(issue.id);
    expect((await ok(t, ws.token, 'issues.update', { id: issue.id, labelIds: [] })).labelIds).toEqual([]);
  });

  it('two transactions labelling one issue at once both land in its labelIds', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled twice at once' });
    const [x, y] = [await ok(t, ws.token, 'labels.create', { name: 'race-x' }), await ok(t, ws.token, 'labels.create', { name: 'race-y' })];
    const [first, second] = [await t.pools.owner.connect(), await t.pools.owner.connect()];
    try {
      const add = (client: typeof first, label: string) =>
        client.query('insert into app_public.issue_labels (workspace_id, issue_id, label_id) values ($1, $2, $3)', [ws.id, issue.id, label]);
      await first.query('begin');
      await add(first, x.id);
      await second.query('begin');
      const waiting = add(second, y.id); // waits for the first transaction's lock on the issue
      await new Promise((r) => setTimeout(r, 200));
      await first.query('commit');
      await waiting;
      await second.query('commit');
    } finally {
      first.release();
      second.release();
    }
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).labelIds).toEqual([x.id, y.id]);
  });

  it('answers over MCP JSON-RPC', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'labels.create', arguments: { name: 'from rpc' } });
    expect(r.body.result.structuredContent).toMatchObject({ name: 'from rpc' });
    const list = await rpc(t, ws.token, 'tools/list', {}, '?tools=labels');
    expect(list.body.result.tools.map((x: { name: string }) => x.name).sort()).toEqual(['catalog.call', 'catalog.describe', 'catalog.search',
      'labels.create', 'labels.delete', 'labels.get', 'labels.list', 'labels.merge', 'labels.update']);
  });
});

describe('label events', () => {
  it('LABEL_CREATED, LABEL_UPDATED naming the changes (none when nothing changed), LABEL_DELETED on delete and on merge', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'evented', color: '#112233' });
    await ok(t, ws.token, 'labels.update', { id: label.id, name: 'evented-2' });
    await ok(t, ws.token, 'labels.update', { id: label.id, name: 'evented-2' });
    await ok(t, ws.token, 'labels.delete', { id: label.id });
    const events = await subjectEvents(t, ws.token, 'label', label.id);
    expect(events.map((e) => [e.kind, e.payload.name, e.payload.changes ?? null])).toEqual([
      ['LABEL_CREATED', 'evented', null], ['LABEL_UPDATED', 'evented-2', ['name']], ['LABEL_DELETED', 'evented-2', null],
    ]);
    // Merging away a label no issue carries still leaves its trace.
    const unused = await ok(t, ws.token, 'labels.create', { name: 'unused' });
    const into = await ok(t, ws.token, 'labels.create', { name: 'kept' });
    await ok(t, ws.token, 'labels.merge', { fromId: unused.id, intoId: into.id });
    expect((await subjectEvents(t, ws.token, 'label', unused.id)).map((e) => e.kind)).toEqual(['LABEL_CREATED', 'LABEL_DELETED']);
    // Another workspace reads none of them.
    expect(await subjectEvents(t, other.token, 'label', label.id)).toEqual([]);
  });

  it('concurrent merges of two labels into each other: one merges, the others are 404, one LABEL_DELETED', async () => {
    const a = await ok(t, ws.token, 'labels.create', { name: 'race-a' });
    const b = await ok(t, ws.token, 'labels.create', { name: 'race-b' });
    await ok(t, ws.token, 'issues.create', { title: 'Raced', labelIds: [a.id] });
    const calls = Array.from({ length: 8 }, (_, k) => rest(t, ws.token, 'labels.merge', k % 2 ? { fromId: a.id, intoId: b.id } : { fromId: b.id, intoId: a.id }));
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 404)).toHaveLength(7);
    const deleted = (await t.pools.owner.query(
      `select count(*)::int as n from app_public.activity_events where kind = 'LABEL_DELETED' and subject_id = any($1)`, [[a.id, b.id]])).rows[0].n;
    expect(deleted).toBe(1);
  });
});
