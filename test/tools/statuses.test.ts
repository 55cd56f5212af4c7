/**
 * The workflow's statuses as tools: statuses.get (READ_ISSUES) and create/update/delete/reorder (ADMIN scope,
 * OWNER/ADMIN user, key without narrowing), each write with its STATUS_* event in the same transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, insertProject, ok, rest, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let member: { token: string };
let noAdminScope: { token: string };
let narrowed: { token: string };

interface Status { id: string; name: string; category: string; color: string; position: number; isDefault: boolean }
const list = async (w: Workspace = ws): Promise<Status[]> => ok(t, w.token, 'statuses.list', {});
const byName = async (name: string, w: Workspace = ws) => (await list(w)).find((s) => s.name === name)!;

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: 'member@example.com' });
  noAdminScope = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
  narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Narrow')] });
});
afterAll(() => t.close());

describe('statuses.get', () => {
  it('returns a status of the workspace; another workspace\'s is 404; READ_ISSUES is needed', async () => {
    const todo = await byName('Todo');
    expect(await ok(t, ws.token, 'statuses.get', { id: todo.id })).toEqual(todo);
    expect(await ok(t, member.token, 'statuses.get', { id: todo.id })).toEqual(todo);
    expect((await rest(t, other.token, 'statuses.get', { id: todo.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'statuses.get', { id: crypto.randomUUID() })).status).toBe(404);
    expect400(await rest(t, ws.token, 'statuses.get', { id: 'todo' }), 'id');
    const writeOnly = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    expect((await rest(t, writeOnly.token, 'statuses.get', { id: todo.id })).body).toMatchObject({ error: 'scope_required', scope: 'READ_ISSUES' });
  });
});

describe('statuses writes: who may', () => {
  it('a MEMBER, a key without ADMIN and a narrowed key are refused by every write tool; nothing changes', async () => {
    const todo = await byName('Todo');
    const before = await list();
    const calls: Array<[string, object]> = [
      ['statuses.create', { name: 'Nope', category: 'TODO' }],
      ['statuses.update', { id: todo.id, name: 'Nope' }],
      ['statuses.delete', { id: (await byName('Backlog')).id }],
      ['statuses.reorder', { ids: before.map((s) => s.id).reverse() }],
    ];
    for (const [tool, input] of calls) {
      expect((await rest(t, member.token, tool, input)).body, `${tool} as MEMBER`).toMatchObject({ error: 'admin_required' });
      expect((await rest(t, noAdminScope.token, tool, input)).body, `${tool} without ADMIN`).toMatchObject({ error: 'scope_required', scope: 'ADMIN' });
      const r = await rest(t, narrowed.token, tool, input);
      expect([r.status, r.body.error], `${tool} narrowed`).toEqual([403, 'narrowing']);
    }
    expect(await list()).toEqual(before);
  });

  it('another workspace\'s status is 404 to every write tool (and moveIssuesTo of another workspace too)', async () => {
    const foreign = await byName('In Review', other);
    expect((await rest(t, ws.token, 'statuses.update', { id: foreign.id, name: 'Mine' })).status).toBe(404);
    expect((await rest(t, ws.token, 'statuses.delete', { id: foreign.id })).status).toBe(404);
    const r = await rest(t, ws.token, 'statuses.delete', { id: (await byName('Backlog')).id, moveIssuesTo: foreign.id });
    expect(r.status).toBe(404);
    const ids = (await list()).map((s) => s.id);
    expect((await rest(t, ws.token, 'statuses.reorder', { ids: [...ids.slice(1), foreign.id] })).status).toBe(404);
    expect(await byName('In Review', other)).toEqual(foreign);
  });
});

describe('statuses.create', () => {
  it('adds a status last by default, with STATUS_CREATED; names are unique case-insensitively (409)', async () => {
    const w = await freshWorkspace();
    const made = await ok(t, w.token, 'statuses.create', { name: 'QA', category: 'IN_REVIEW', color: '#123abc' });
    expect(made).toMatchObject({ name: 'QA', category: 'IN_REVIEW', color: '#123abc', position: 6, isDefault: false });
    expect(await ok(t, w.token, 'statuses.get', { id: made.id })).toEqual(made);
    const [ev] = await subjectEvents(t, w.token, 'status', made.id);
    expect(ev).toMatchObject({ kind: 'STATUS_CREATED', payload: { statusId: made.id, name: 'QA', category: 'IN_REVIEW', position: 6 } });
    for (const name of ['qa', 'todo', '  Done ']) {
      const r = await rest(t, w.token, 'statuses.create', { name, category: 'TODO' });
      expect([r.status, r.body.error], name).toEqual([409, 'status_exists']);
    }
    // The same name in another workspace is fine.
    expect((await ok(t, ws.token, 'statuses.create', { name: 'QA', category: 'IN_REVIEW' })).name).toBe('QA');
  });

  it('at a position, the statuses from there move down one, each with STATUS_UPDATED (changes position)', async () => {
    const w = await freshWorkspace();
    const before = await list(w);
    const made = await ok(t, w.token, 'statuses.create', { name: 'Triage', category: 'BACKLOG', position: 1 });
    const after = await list(w);
    expect(after.map((s) => s.name)).toEqual(['Backlog', 'Triage', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled']);
    expect(made.position).toBe(1);
    const todo = before.find((s) => s.name === 'Todo')!;
    expect((await subjectEvents(t, w.token, 'status', todo.id)).map((e) => [e.kind, e.payload.changes, e.payload.previous]))
      .toEqual([['STATUS_UPDATED', ['position'], { position: 1 }]]);
    expect(await subjectEvents(t, w.token, 'status', before[0]!.id)).toEqual([]);
  });

  it('refuses bad input with 400 naming the field, and a 51st status with 409 status_limit', async () => {
    expect400(await rest(t, ws.token, 'statuses.create', { name: 'X', category: 'WAITING' }), 'category');
    expect400(await rest(t, ws.token, 'statuses.create', { name: '  ', category: 'TODO' }), 'name');
    expect400(await rest(t, ws.token, 'statuses.create', { name: 'x'.repeat(101), category: 'TODO' }), 'name');
    expect400(await rest(t, ws.token, 'statuses.create', { name: 'X', category: 'TODO', color: 'red' }), 'color');
    expect400(await rest(t, ws.token, 'statuses.create', { name: 'X', category: 'TODO', position: -1 }), 'position');
    expect400(await rest(t, ws.token, 'statuses.create', { name: 'X', category: 'TODO', isDefault: true }), 'isDefault');
    expect400(await rest(t, ws.token, 'statuses.create', { category: 'TODO' }), 'name');
    const w = await freshWorkspace();
    for (let i = 6; i < 50; i++) await ok(t, w.token, 'statuses.create', { name: `S${i}`, category: 'TODO' });
    const r = await rest(t, w.token, 'statuses.create', { name: 'One too many', category: 'TODO' });
    expect([r.status, r.body.error]).toEqual([409, 'status_limit']);
  });
});

describe('statuses.update', () => {
  it('renames and recolors with one STATUS_UPDATED naming changes and previous values; no change, no event', async () => {
    const w = await freshWorkspace();
    const review = await byName('In Review', w);
    const updated = await ok(t, w.token, 'statuses.update', { id: review.id, name: 'Code review', color: '#000000' });
    expect(updated).toMatchObject({ id: review.id, name: 'Code review', color: '#000000', category: 'IN_REVIEW', position: review.position });
    await ok(t, w.token, 'statuses.update', { id: review.id, name: 'Code review' });
    await ok(t, w.token, 'statuses.update', { id: review.id, name: 'code REVIEW' }); // its own name in another case
    const events = await subjectEvents(t, w.token, 'status', review.id);
    expect(events.map((e) => [e.kind, e.payload.changes, e.payload.previous])).toEqual([
      ['STATUS_UPDATED', ['name', 'color'], { name: 'In Review', color: review.color }],
      ['STATUS_UPDATED', ['name'], { name: 'Code review' }],
    ]);
    const r = await rest(t, w.token, 'statuses.update', { id: review.id, name: 'done' });
    expect([r.status, r.body.error, r.body.field]).toEqual([409, 'status_exists', 'name']);
    expect400(await rest(t, w.token, 'statuses.update', { id: review.id, color: '#12345' }), 'color');
    expect400(await rest(t, w.token, 'statuses.update', { id: review.id, isDefault: false }), 'isDefault');
    expect400(await rest(t, w.token, 'statuses.update', { id: review.id, position: 2 }), 'position');
  });

  it('changes the category of an empty status only (409 status_in_use), never the last DONE one', async () => {
    const w = await freshWorkspace();
    const progress = await byName('In Progress', w);
    await ok(t, w.token, 'issues.create', { title: 'Working', statusId: progress.id });
    const r = await rest(t, w.token, 'statuses.update', { id: progress.id, category: 'DONE' });
    expect([r.status, r.body.error]).toEqual([409, 'status_in_use']);
    const review = await byName('In Review', w);
    expect(await ok(t, w.token, 'statuses.update', { id: review.id, category: 'IN_PROGRESS' })).toMatchObject({ category: 'IN_PROGRESS' });
    const done = await byName('Done', w);
    const last = await rest(t, w.token, 'statuses.update', { id: done.id, category: 'CANCELED' });
    expect([last.status, last.body.error]).toEqual([409, 'last_done_status']);
    await ok(t, w.token, 'statuses.create', { name: 'Shipped', category: 'DONE' });
    expect(await ok(t, w.token, 'statuses.update', { id: done.id, category: 'CANCELED' })).toMatchObject({ category: 'CANCELED' });
  });

  it('isDefault true moves the default (both statuses record it); the default must be open', async () => {
    const w = await freshWorkspace();
    const todo = await byName('Todo', w);
    const backlog = await byName('Backlog', w);
    expect(await ok(t, w.token, 'statuses.update', { id: backlog.id, isDefault: true })).toMatchObject({ isDefault: true });
    expect((await byName('Todo', w)).isDefault).toBe(false);
    expect((await subjectEvents(t, w.token, 'status', todo.id)).map((e) => [e.payload.changes, e.payload.isDefault])).toEqual([[['isDefault'], false]]);
    expect((await subjectEvents(t, w.token, 'status', backlog.id)).map((e) => [e.payload.changes, e.payload.previous])).toEqual([[['isDefault'], { isDefault: false }]]);
    const issue = await ok(t, w.token, 'issues.create', { title: 'Lands in the default' });
    expect(issue.statusId).toBe(backlog.id);
    const done = await byName('Done', w);
    const r1 = await rest(t, w.token, 'statuses.update', { id: done.id, isDefault: true });
    expect([r1.status, r1.body.error]).toEqual([409, 'default_status_closed']);
    const r2 = await rest(t, w.token, 'statuses.update', { id: backlog.id, category: 'CANCELED' });
    expect([r2.status, r2.body.error]).toEqual([409, 'status_in_use']); // it holds the issue
    await ok(t, w.token, 'issues.transition', { id: issue.id, statusId: todo.id });
    const r3 = await rest(t, w.token, 'statuses.update', { id: backlog.id, category: 'CANCELED' });
    expect([r3.status, r3.body.error]).toEqual([409, 'default_status_closed']);
    expect((await list(w)).filter((s) => s.isDefault).map((s) => s.id)).toEqual([backlog.id]);
  });
});

describe('statuses.delete', () => {
  it('moves its issues (trashed ones too) to moveIssuesTo with their own events, then deletes it with STATUS_DELETED', async () => {
    const w = await freshWorkspace();
    const review = await byName('In Review', w);
    const done = await byName('Done', w);
    const a = await ok(t, w.token, 'issues.create', { title: 'A', statusId: review.id });
    const b = await ok(t, w.token, 'issues.create', { title: 'B', statusId: review.id });
    await ok(t, w.token, 'issues.delete', { id: b.id });
    const refused = await rest(t, w.token, 'statuses.delete', { id: review.id });
    expect([refused.status, refused.body.error]).toEqual([409, 'status_in_use']);
    expect(refused.body.message).toContain('2 issue(s)');
    expect400(await rest(t, w.token, 'statuses.delete', { id: review.id, moveIssuesTo: review.id }), 'moveIssuesTo');
    const gone = await rest(t, w.token, 'statuses.delete', { id: review.id, moveIssuesTo: crypto.randomUUID() });
    expect([gone.status, Object.keys(gone.body.issues ?? {})]).toEqual([404, []]);

    const r = await ok(t, w.token, 'statuses.delete', { id: review.id, moveIssuesTo: done.id });
    expect(r).toEqual({ ok: true, id: review.id, movedIssues: 2, movedIssuesTo: done.id });
    expect((await list(w)).map((s) => s.name)).toEqual(['Backlog', 'Todo', 'In Progress', 'Done', 'Canceled']);
    expect((await rest(t, w.token, 'statuses.get', { id: review.id })).status).toBe(404);
    expect((await ok(t, w.token, 'issues.get', { id: a.id })).statusId).toBe(done.id);
    // Moved as any status change: completedAt stamped on reaching DONE.
    const { rows: [stamped] } = await t.pools.owner.query('select completed_at from app_public.issues where id = $1', [a.id]);
    expect(stamped.completed_at).toBeInstanceOf(Date);
    expect((await subjectEvents(t, w.token, 'issue', a.id)).filter((e) => e.kind === 'ISSUE_STATUS_CHANGED').map((e) => e.payload))
      .toEqual([{ issueId: a.id, from: review.id, to: done.id }]);
    const { rows } = await t.pools.owner.query('select status_id from app_public.issues where id = $1', [b.id]);
    expect(rows[0].status_id).toBe(done.id);
    const [ev] = await subjectEvents(t, w.token, 'status', review.id);
    expect(ev).toMatchObject({ kind: 'STATUS_DELETED', payload: { statusId: review.id, name: 'In Review', movedIssuesTo: done.id } });
    expect(ev!.payload).not.toHaveProperty('movedIssues');
  });

  it('an empty status goes without moveIssuesTo; the default and the last DONE status stay (409)', async () => {
    const w = await freshWorkspace();
    const backlog = await byName('Backlog', w);
    expect(await ok(t, w.token, 'statuses.delete', { id: backlog.id })).toEqual({ ok: true, id: backlog.id, movedIssues: 0, movedIssuesTo: null });
    const todo = await byName('Todo', w);
    const r1 = await rest(t, w.token, 'statuses.delete', { id: todo.id, moveIssuesTo: (await byName('In Progress', w)).id });
    expect([r1.status, r1.body.error]).toEqual([409, 'default_status']);
    const done = await byName('Done', w);
    const r2 = await rest(t, w.token, 'statuses.delete', { id: done.id });
    expect([r2.status, r2.body.error]).toEqual([409, 'last_done_status']);
    const canceled = await byName('Canceled', w);
    await ok(t, w.token, 'statuses.delete', { id: canceled.id });
    expect((await list(w)).map((s) => s.name)).toEqual(['Todo', 'In Progress', 'In Review', 'Done']);
    expect400(await rest(t, w.token, 'statuses.delete', { id: done.id, moveIssuesTo: 'x' }), 'moveIssuesTo');
  });
});

describe('statuses.reorder', () => {
  it('sets the full order (positions 0..n-1), one STATUS_UPDATED per status that moved', async () => {
    const w = await freshWorkspace();
    const before = await list(w);
    const [backlog, todo, ...rest_] = before;
    const order = [todo!, backlog!, ...rest_];
    const after = await ok(t, w.token, 'statuses.reorder', { ids: order.map((s) => s.id) });
    expect(after.map((s: Status) => [s.name, s.position])).toEqual(order.map((s, i) => [s.name, i]));
    expect(await list(w)).toEqual(after);
    expect((await subjectEvents(t, w.token, 'status', backlog!.id)).map((e) => [e.kind, e.payload.position, e.payload.previous]))
      .toEqual([['STATUS_UPDATED', 1, { position: 0 }]]);
    expect(await subjectEvents(t, w.token, 'status', rest_[0]!.id)).toEqual([]);
  });

  it('needs every status once: 400 naming ids for a missing one or a duplicate', async () => {
    const w = await freshWorkspace();
    const ids = (await list(w)).map((s) => s.id);
    const missing = await rest(t, w.token, 'statuses.reorder', { ids: ids.slice(1) });
    expect400(missing, 'ids');
    expect(missing.body.issues.ids).toContain('Backlog');
    expect400(await rest(t, w.token, 'statuses.reorder', { ids: [...ids, ids[0]] }), 'ids');
    expect400(await rest(t, w.token, 'statuses.reorder', { ids: [] }), 'ids');
    expect400(await rest(t, w.token, 'statuses.reorder', { ids: ['nope'] }), 'ids.0');
    expect((await rest(t, w.token, 'statuses.reorder', { ids: [...ids.slice(1), crypto.randomUUID()] })).status).toBe(404);
  });
});

/** A workspace of its own (the six default statuses) for a test that changes the workflow. */
const freshWorkspace = () => createWorkspace(t);
