/**
 * The runtime namespaces' completion: issues.history / restore / children / count, runs.cancel,
 * actionRequests.get / update, chat.getMessage / listMessages, and what the default (runtime) tools/list lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin, allPages, createAgent, createKey, insertProject, ok, rest, rpc, startWithWorkspaces, subjectEvents,
  type TestApp, type Workspace,
} from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let inside: string;
let outside: string;
/** Project-narrowed to `inside`. */
let narrowed: { token: string };
let reader: { token: string };
let writerOnly: { token: string };

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  inside = await insertProject(t, ws, 'Inside');
  outside = await insertProject(t, ws, 'Outside');
  narrowed = await createKey(t, ws, { projects: [inside] });
  reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
  writerOnly = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
});
afterAll(() => t.close());

const expect403Scope = (r: { status: number; body: any }, scope: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(403);
  expect(r.body).toMatchObject({ error: 'scope_required', scope });
};
const foreignIssue = () => ok(t, other.token, 'issues.create', { title: 'Foreign' });

describe('issues.history', () => {
  it("the issue's events and its comments' (deleted ones too), newest first, paged, shaped as events.recent", async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Storied', projectId: inside });
    await ok(t, ws.token, 'issues.update', { id: issue.id, priority: 'HIGH' });
    const c1 = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'first' });
    const c2 = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'second' });
    await ok(t, ws.token, 'comments.delete', { id: c2.id });
    // Another issue's events stay out.
    await ok(t, ws.token, 'issues.create', { title: 'Unrelated' });

    const all = await allPages(t, ws.token, 'issues.history', { id: issue.key }, 2);
    expect(all.map((e) => [e.kind, e.subjectId])).toEqual([
      ['COMMENT_UPDATED', c2.id], ['COMMENT_CREATED', c2.id], ['COMMENT_CREATED', c1.id],
      ['ISSUE_PRIORITY_CHANGED', issue.id], ['ISSUE_CREATED', issue.id],
    ]);
    expect(all[0].payload).toMatchObject({ deleted: true });
    // The same shape as events.recent (actor included).
    const recent = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, limit: 1 })).items[0];
    expect(all[3]).toEqual(recent);
    expect(recent.actor).toMatchObject({ type: 'user' });

    // A narrowed key that sees the issue sees its whole history, the deleted comment's events included.
    expect((await allPages(t, narrowed.token, 'issues.history', { id: issue.id }, 50)).map((e) => e.id)).toEqual(all.map((e) => e.id));
    // Over JSON-RPC too.
    const r = await rpc(t, ws.token, 'tools/call', { name: 'issues.history', arguments: { id: issue.id, limit: 1 } });
    expect(r.body.result.structuredContent.items[0].id).toBe(all[0].id);
  });

  it('404 outside narrowing, for another workspace and deleted issues; 403 without READ_ISSUES; 400 naming the field', async () => {
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden', projectId: outside });
    expect((await rest(t, narrowed.token, 'issues.history', { id: hidden.id })).status).toBe(404);
    expect((await rest(t, other.token, 'issues.history', { id: hidden.id })).status).toBe(404);
    const gone = await ok(t, ws.token, 'issues.create', { title: 'Gone' });
    await ok(t, ws.token, 'issues.delete', { id: gone.id });
    expect((await rest(t, ws.token, 'issues.history', { id: gone.id })).status).toBe(404);
    expect403Scope(await rest(t, writerOnly.token, 'issues.history', { id: hidden.id }), 'READ_ISSUES');
    expect400(await rest(t, ws.token, 'issues.history', {}), 'id');
    expect400(await rest(t, ws.token, 'issues.history', { id: hidden.id, limit: 0 }), 'limit');
    expect400(await rest(t, ws.token, 'issues.history', { id: hidden.id, cursor: 'garbage' }), 'cursor');
    const listCursor = (await ok(t, ws.token, 'issues.list', { limit: 1 })).nextCursor;
    expect400(await rest(t, ws.token, 'issues.history', { id: hidden.id, cursor: listCursor }), 'cursor');
  });
});

describe('issues.restore', () => {
  it('undoes issues.delete: comments, labels, watchers, relations back; detached sub-issues reattached; ISSUE_RESTORED', async () => {
    const agent = await createAgent(t, ws, 'restorer-bot');
    const label = await ok(t, ws.token, 'labels.create', { name: 'keep-me' });
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent', labelIds: [label.id] });
    const kept = await ok(t, ws.token, 'issues.create', { title: 'Child kept', parentId: parent.id });
    const moved = await ok(t, ws.token, 'issues.create', { title: 'Child moved', parentId: parent.id });
    const cleared = await ok(t, ws.token, 'issues.create', { title: 'Child cleared', parentId: parent.id });
    const elsewhere = await ok(t, ws.token, 'issues.create', { title: 'Elsewhere' });
    const neighbour = await ok(t, ws.token, 'issues.create', { title: 'Neighbour' });
    await ok(t, ws.token, 'relations.add', { fromIssueId: parent.id, toIssueId: neighbour.id, kind: 'RELATES_TO' });
    await ok(t, ws.token, 'issues.watch', { issueId: parent.id });
    await ok(t, ws.token, 'comments.create', { issueId: parent.id, body: 'still here' });
    const { currentRun } = await ok(t, ws.token, 'issues.assign', { id: parent.id, agentId: agent.id });

    await ok(t, ws.token, 'issues.delete', { id: parent.id });
    expect((await rest(t, ws.token, 'issues.get', { id: parent.id })).status).toBe(404);
    // Since the deletion: one child given another parent, one given one and cleared again (both moved on).
    await ok(t, ws.token, 'issues.update', { id: moved.id, parentId: elsewhere.id });
    await ok(t, ws.token, 'issues.update', { id: cleared.id, parentId: elsewhere.id });
    await ok(t, ws.token, 'issues.update', { id: cleared.id, parentId: null });

    const restored = await ok(t, ws.token, 'issues.restore', { id: parent.key });
    expect(restored).toMatchObject({ id: parent.id, key: parent.key, labelIds: [label.id], assignedAgentId: agent.id });
    const got = await ok(t, ws.token, 'issues.get', { id: parent.id, include: { comments: true, relations: true, currentRun: true } });
    expect(got.comments.map((c: any) => c.body)).toEqual(['still here']);
    expect(got.relations.map((r: any) => r.issue.id)).toEqual([neighbour.id]);
    expect(got.currentRun).toBeNull(); // the abandoned run stays closed
    expect((await ok(t, ws.token, 'runs.get', { id: currentRun.id })).status).toBe('ABANDONED');
    expect((await ok(t, ws.token, 'issues.listWatchers', { issueId: parent.id })).items).toHaveLength(1);
    expect((await ok(t, ws.token, 'issues.get', { id: kept.id })).parentId).toBe(parent.id);
    expect((await ok(t, ws.token, 'issues.get', { id: moved.id })).parentId).toBe(elsewhere.id);
    expect((await ok(t, ws.token, 'issues.get', { id: cleared.id })).parentId).toBeNull();
    expect((await ok(t, ws.token, 'issues.list', { parentId: parent.id })).items.map((i: any) => i.id)).toEqual([kept.id]);

    const events = await subjectEvents(t, ws.token, 'issue', parent.id);
    expect(events.map((e) => e.kind).slice(-2)).toEqual(['ISSUE_DELETED', 'ISSUE_RESTORED']);
    expect(events.at(-1)!.payload).toMatchObject({ issueId: parent.id, key: parent.key, deletedAt: expect.any(String) });
    const keptEvents = await subjectEvents(t, ws.token, 'issue', kept.id);
    expect(keptEvents.slice(-2).map((e) => [e.kind, e.payload.changes])).toEqual([['ISSUE_UPDATED', ['parentId']], ['ISSUE_UPDATED', ['parentId']]]);
    // The detachment is kept privately, not in the child's events (a key may see the child but not the parent).
    expect(JSON.stringify(keptEvents)).not.toContain('detachedFrom');

    // Once live, restoring is a conflict.
    expect((await rest(t, ws.token, 'issues.restore', { id: parent.id })).body).toMatchObject({ error: 'not_deleted' });
    expect((await rest(t, ws.token, 'issues.restore', { id: parent.id })).status).toBe(409);
  });

  it('a narrowed key restores what it can see; the children it cannot see come back too; a parent deleted meanwhile is cleared', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Visible parent', projectId: inside });
    const hiddenChild = await ok(t, ws.token, 'issues.create', { title: 'Hidden child', projectId: outside, parentId: parent.id });
    await ok(t, ws.token, 'issues.delete', { id: parent.id });
    expect((await ok(t, ws.token, 'issues.get', { id: hiddenChild.id })).parentId).toBeNull();
    await ok(t, narrowed.token, 'issues.restore', { id: parent.id });
    expect((await ok(t, ws.token, 'issues.get', { id: hiddenChild.id })).parentId).toBe(parent.id);

    const top = await ok(t, ws.token, 'issues.create', { title: 'Top' });
    const middle = await ok(t, ws.token, 'issues.create', { title: 'Middle', parentId: top.id });
    await ok(t, ws.token, 'issues.delete', { id: middle.id });
    await ok(t, ws.token, 'issues.delete', { id: top.id });
    expect((await ok(t, ws.token, 'issues.restore', { id: middle.id })).parentId).toBeNull();
    expect((await subjectEvents(t, ws.token, 'issue', middle.id)).map((e) => e.kind).slice(-2)).toEqual(['ISSUE_RESTORED', 'ISSUE_UPDATED']);
  });

  it('a key that sees a child but not its parent never reads the parent\'s id when the parent is deleted and restored', async () => {
    const hiddenParent = await ok(t, ws.token, 'issues.create', { title: 'Hidden parent', projectId: outside });
    const child = await ok(t, ws.token, 'issues.create', { title: 'Visible child', projectId: inside, parentId: hiddenParent.id });
    await ok(t, ws.token, 'issues.delete', { id: hiddenParent.id });
    await ok(t, ws.token, 'issues.restore', { id: hiddenParent.id });
    expect((await ok(t, ws.token, 'issues.get', { id: child.id })).parentId).toBe(hiddenParent.id);
    const seen = [
      await ok(t, narrowed.token, 'issues.history', { id: child.id }),
      await ok(t, narrowed.token, 'events.recent', { subjectType: 'issue', subjectId: child.id, limit: 200 }),
      await ok(t, narrowed.token, 'issues.get', { id: child.id }),
    ];
    expect(JSON.stringify(seen)).not.toContain(hiddenParent.id);
  });

  it('404 outside narrowing, for another workspace and unknown ids; 403 without WRITE_ISSUES; 400 naming the field', async () => {
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden deleted', projectId: outside });
    await ok(t, ws.token, 'issues.delete', { id: hidden.id });
    expect((await rest(t, narrowed.token, 'issues.restore', { id: hidden.id })).status).toBe(404);
    expect((await rest(t, other.token, 'issues.restore', { id: hidden.id })).status).toBe(404);
    expect((await rest(t, other.token, 'issues.restore', { id: hidden.key })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.restore', { id: crypto.randomUUID() })).status).toBe(404);
    expect403Scope(await rest(t, reader.token, 'issues.restore', { id: hidden.id }), 'WRITE_ISSUES');
    expect400(await rest(t, ws.token, 'issues.restore', {}), 'id');
    expect400(await rest(t, ws.token, 'issues.restore', { id: hidden.id, extra: 1 }), 'extra');
    // Still deleted after all that.
    expect((await rest(t, ws.token, 'issues.get', { id: hidden.id })).status).toBe(404);
  });
});

describe('issues.children', () => {
  it('live sub-issues the key can see, oldest first, paged; 404/403/400', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Epic', projectId: inside });
    const a = await ok(t, ws.token, 'issues.create', { title: 'A', parentId: parent.id, projectId: inside });
    const b = await ok(t, ws.token, 'issues.create', { title: 'B', parentId: parent.id, projectId: outside });
    const c = await ok(t, ws.token, 'issues.create', { title: 'C', parentId: parent.id, projectId: inside });
    const d = await ok(t, ws.token, 'issues.create', { title: 'D', parentId: parent.id });
    await ok(t, ws.token, 'issues.delete', { id: d.id });
    await ok(t, ws.token, 'issues.create', { title: 'Grandchild', parentId: a.id });

    expect((await allPages(t, ws.token, 'issues.children', { id: parent.key }, 1)).map((i) => i.id)).toEqual([a.id, b.id, c.id]);
    const first = await ok(t, ws.token, 'issues.children', { id: parent.id });
    expect(first.items[0]).toMatchObject({ id: a.id, key: a.key, parentId: parent.id, status: { category: expect.any(String) } });
    expect((await allPages(t, narrowed.token, 'issues.children', { id: parent.id }, 50)).map((i) => i.id)).toEqual([a.id, c.id]);

    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden epic', projectId: outside });
    expect((await rest(t, narrowed.token, 'issues.children', { id: hidden.id })).status).toBe(404);
    expect((await rest(t, other.token, 'issues.children', { id: parent.id })).status).toBe(404);
    expect403Scope(await rest(t, writerOnly.token, 'issues.children', { id: parent.id }), 'READ_ISSUES');
    expect400(await rest(t, ws.token, 'issues.children', {}), 'id');
    expect400(await rest(t, ws.token, 'issues.children', { id: parent.id, cursor: 'garbage' }), 'cursor');
    expect400(await rest(t, ws.token, 'issues.children', { id: parent.id, limit: 201 }), 'limit');
  });
});

describe('issues.count', () => {
  it('total, byStatus and byPriority for the filters of issues.list, which it agrees with', async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'Counted' });
    const statuses = await ok(t, ws.token, 'statuses.list', {});
    const todo = statuses.find((s: any) => s.category === 'TODO');
    const done = statuses.find((s: any) => s.category === 'DONE');
    const label = await ok(t, ws.token, 'labels.create', { name: 'counted' });
    await ok(t, ws.token, 'issues.create', { title: 'zebra one', projectId: project.id, priority: 'HIGH', statusId: todo.id });
    await ok(t, ws.token, 'issues.create', { title: 'zebra two', projectId: project.id, priority: 'HIGH', statusId: done.id, labelIds: [label.id] });
    await ok(t, ws.token, 'issues.create', { title: 'lion', projectId: project.id, priority: 'URGENT', statusId: todo.id });
    const gone = await ok(t, ws.token, 'issues.create', { title: 'zebra gone', projectId: project.id });
    await ok(t, ws.token, 'issues.delete', { id: gone.id });

    const counted = await ok(t, ws.token, 'issues.count', { projectId: project.id });
    expect(counted.total).toBe(3);
    expect(counted.byStatus).toEqual([
      { statusId: todo.id, name: todo.name, category: 'TODO', count: 2 },
      { statusId: done.id, name: done.name, category: 'DONE', count: 1 },
    ].sort((x, y) => statuses.findIndex((s: any) => s.id === x.statusId) - statuses.findIndex((s: any) => s.id === y.statusId)));
    expect(counted.byPriority).toEqual([{ priority: 'URGENT', count: 1 }, { priority: 'HIGH', count: 2 }]);

    for (const filters of [{ projectId: project.id, query: 'zebra' }, { projectId: project.id, open: true }, { labelIds: [label.id] },
      { projectId: project.id, status: 'DONE' }, { projectId: project.id, priority: 'HIGH' }, {}]) {
      const listed = await allPages(t, ws.token, 'issues.list', filters, 200);
      expect((await ok(t, ws.token, 'issues.count', filters)).total, JSON.stringify(filters)).toBe(listed.length);
    }
    expect((await ok(t, ws.token, 'issues.count', { projectId: project.id, query: 'zebra' })).total).toBe(2);
    expect(await ok(t, ws.token, 'issues.count', { projectId: project.id, priority: 'LOW' })).toEqual({ total: 0, byStatus: [], byPriority: [] });
  });

  it('a narrowed key counts what it sees; 404 for a foreign parent; 403 without READ_ISSUES; 400 naming the field', async () => {
    await ok(t, ws.token, 'issues.create', { title: 'Counted inside', projectId: inside });
    await ok(t, ws.token, 'issues.create', { title: 'Counted outside', projectId: outside });
    const seen = await allPages(t, narrowed.token, 'issues.list', {}, 200);
    expect((await ok(t, narrowed.token, 'issues.count', {})).total).toBe(seen.length);
    expect((await ok(t, narrowed.token, 'issues.count', { projectId: outside })).total).toBe(0);
    const foreign = await foreignIssue();
    expect((await rest(t, ws.token, 'issues.count', { parentId: foreign.id })).status).toBe(404);
    expect403Scope(await rest(t, writerOnly.token, 'issues.count', {}), 'READ_ISSUES');
    expect400(await rest(t, ws.token, 'issues.count', { status: 'No such status' }), 'status');
    expect400(await rest(t, ws.token, 'issues.count', { priority: 'SOON' }), 'priority');
    expect400(await rest(t, ws.token, 'issues.count', { limit: 10 }), 'limit');
    expect400(await rest(t, ws.token, 'issues.count', { query: '!!!' }), 'query');
  });
});

describe('runs.cancel', () => {
  let agent: { id: string };
  let agentKey: { token: string };
  let otherAgentKey: { token: string };
  const assigned = async (title: string, extra: object = {}) => {
    const issue = await ok(t, ws.token, 'issues.create', { title, ...extra });
    const a = await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
    return { issue, runId: a.currentRun.id as string };
  };
  beforeAll(async () => {
    agent = await createAgent(t, ws, 'canceler');
    await createAgent(t, ws, 'bystander');
    agentKey = await createKey(t, ws, { agent: 'canceler', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    otherAgentKey = await createKey(t, ws, { agent: 'bystander', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
  });

  it("the run's agent ends its open run: ABANDONED, reason canceled, cancelReason kept; the issue stays assigned", async () => {
    const { issue, runId } = await assigned('Cannot do');
    await ok(t, agentKey.token, 'runs.setWaiting', { runId });
    const run = await ok(t, agentKey.token, 'runs.cancel', { runId, reason: 'out of scope' });
    expect(run).toMatchObject({ id: runId, status: 'ABANDONED', finishedAt: expect.any(String),
      completionMeta: { cancelReason: 'out of scope', canceledAt: expect.any(String) } });
    const changes = (await subjectEvents(t, ws.token, 'issue', issue.id)).filter((e) => e.kind === 'AGENT_RUN_STATUS_CHANGED');
    expect(changes.at(-1)!.payload).toMatchObject({ runId, agentId: agent.id, issueId: issue.id, from: 'WAITING', to: 'ABANDONED', reason: 'canceled' });
    const got = await ok(t, ws.token, 'issues.get', { id: issue.id, include: { currentRun: true } });
    expect(got).toMatchObject({ assignedAgentId: agent.id, currentRun: null });
    expect((await rest(t, agentKey.token, 'runs.cancel', { runId })).body).toMatchObject({ error: 'run_closed' });
    expect((await rest(t, agentKey.token, 'runs.cancel', { runId })).status).toBe(409);
  });

  it("a person's key may cancel any run it sees; another agent's key may not (403); narrowing, workspace, scope, input", async () => {
    const { runId } = await assigned('Supervised');
    expect((await rest(t, otherAgentKey.token, 'runs.cancel', { runId })).body).toMatchObject({ error: 'not_run_agent' });
    const run = await ok(t, ws.token, 'runs.cancel', { runId });
    expect(run.status).toBe('ABANDONED');
    expect(run.completionMeta).not.toHaveProperty('cancelReason');

    const hidden = await assigned('Hidden run', { projectId: outside });
    expect((await rest(t, narrowed.token, 'runs.cancel', { runId: hidden.runId })).status).toBe(404);
    expect((await rest(t, other.token, 'runs.cancel', { runId: hidden.runId })).status).toBe(404);
    expect((await rest(t, ws.token, 'runs.cancel', { runId: crypto.randomUUID() })).status).toBe(404);
    expect403Scope(await rest(t, reader.token, 'runs.cancel', { runId: hidden.runId }), 'WRITE_ISSUES');
    expect400(await rest(t, ws.token, 'runs.cancel', { runId: 'x' }), 'runId');
    expect400(await rest(t, ws.token, 'runs.cancel', { runId: hidden.runId, reason: '  ' }), 'reason');
    expect400(await rest(t, ws.token, 'runs.cancel', { runId: hidden.runId, reason: 'x'.repeat(2001) }), 'reason');
    expect((await ok(t, ws.token, 'runs.get', { id: hidden.runId })).status).toBe('ACTIVE');
  });
});

describe('actionRequests.get / update', () => {
  let member: { token: string };
  let agentKey: { token: string };
  beforeAll(async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'member.ar@example.com', role: 'MEMBER' });
    member = await createKey(t, ws, { user: 'member.ar@example.com' });
    await createAgent(t, ws, 'requester-bot');
    agentKey = await createKey(t, ws, { agent: 'requester-bot', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
  });

  it('get: one request as list shows it; 404 for narrowing and another workspace; 403; 400', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Decide', projectId: inside });
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'Ship it?', issueId: issue.id, severity: 'WARNING' });
    const got = await ok(t, ws.token, 'actionRequests.get', { id: req.id });
    expect(got).toEqual((await ok(t, ws.token, 'actionRequests.list', { issueId: issue.id })).items[0]);
    expect(got).toMatchObject({ id: req.id, title: 'Ship it?', status: 'OPEN', issueId: issue.id });
    expect((await ok(t, narrowed.token, 'actionRequests.get', { id: req.id })).id).toBe(req.id);
    const hiddenIssue = await ok(t, ws.token, 'issues.create', { title: 'Hidden decision', projectId: outside });
    const hidden = await ok(t, ws.token, 'actionRequests.create', { title: 'Hidden', issueId: hiddenIssue.id });
    expect((await rest(t, narrowed.token, 'actionRequests.get', { id: hidden.id })).status).toBe(404);
    expect((await rest(t, other.token, 'actionRequests.get', { id: req.id })).status).toBe(404);
    expect403Scope(await rest(t, writerOnly.token, 'actionRequests.get', { id: req.id }), 'READ_ISSUES');
    expect400(await rest(t, ws.token, 'actionRequests.get', { id: 'nope' }), 'id');
  });

  it('update: the requester amends an open request (ISSUE_UPDATED, change updated); nothing changed, no event', async () => {
    const agent = await createAgent(t, ws, 'decider-bot');
    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'Pick a date', body: 'soon', kind: 'FREE_FORM' });
    const updated = await ok(t, ws.token, 'actionRequests.update', {
      id: req.id, title: 'Pick a date, please', body: null, severity: 'CRITICAL', dueAt: '2031-01-02T03:04:05Z', assignedAgentId: agent.id,
    });
    expect(updated).toMatchObject({ id: req.id, title: 'Pick a date, please', body: null, severity: 'CRITICAL', assignedAgentId: agent.id,
      kind: 'FREE_FORM', status: 'OPEN' });
    expect(new Date(updated.dueAt).toISOString()).toBe('2031-01-02T03:04:05.000Z');
    let events = await subjectEvents(t, ws.token, 'action-request', req.id);
    expect(events.map((e) => e.kind)).toEqual(['ISSUE_UPDATED', 'ISSUE_UPDATED']);
    expect(events[1]!.payload).toMatchObject({ actionRequestId: req.id, change: 'updated', assignedAgentId: agent.id });
    expect(events[1]!.payload.changes.sort()).toEqual(['assignedAgentId', 'body', 'dueAt', 'severity', 'title']);

    await ok(t, ws.token, 'actionRequests.update', { id: req.id, title: 'Pick a date, please' });
    expect(await subjectEvents(t, ws.token, 'action-request', req.id)).toHaveLength(2);
    expect((await ok(t, ws.token, 'actionRequests.update', { id: req.id, assignedAgentId: null, dueAt: null })).assignedAgentId).toBeNull();
    events = await subjectEvents(t, ws.token, 'action-request', req.id);
    expect(events.at(-1)!.payload.changes.sort()).toEqual(['assignedAgentId', 'dueAt']);

    // A snoozed request may still change; a closed one may not.
    await ok(t, ws.token, 'actionRequests.transition', { id: req.id, status: 'SNOOZED' });
    expect((await ok(t, ws.token, 'actionRequests.update', { id: req.id, severity: 'INFO' })).severity).toBe('INFO');
    await ok(t, ws.token, 'actionRequests.transition', { id: req.id, status: 'DISMISSED' });
    const closed = await rest(t, ws.token, 'actionRequests.update', { id: req.id, title: 'Too late' });
    expect(closed.status).toBe(409);
    expect(closed.body.error).toBe('request_closed');
  });

  it("update: only the requester or an OWNER/ADMIN person; an agent's own request", async () => {
    const mine = await ok(t, agentKey.token, 'actionRequests.create', { title: 'From the bot' });
    expect((await ok(t, agentKey.token, 'actionRequests.update', { id: mine.id, title: 'From the bot (edited)' })).title).toBe('From the bot (edited)');
    expect((await ok(t, ws.token, 'actionRequests.update', { id: mine.id, severity: 'ERROR' })).severity).toBe('ERROR'); // OWNER person
    const denied = await rest(t, member.token, 'actionRequests.update', { id: mine.id, title: 'Hijack' });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('not_requester');
    const byMember = await ok(t, member.token, 'actionRequests.create', { title: "Member's" });
    expect((await rest(t, agentKey.token, 'actionRequests.update', { id: byMember.id, title: 'No' })).status).toBe(403);
    expect((await ok(t, member.token, 'actionRequests.update', { id: byMember.id, title: 'Yes' })).title).toBe('Yes');
  });

  it('update: 404 for narrowing, another workspace and unknown assignees; 403 without WRITE_ISSUES; 400 naming the field', async () => {
    const hiddenIssue = await ok(t, ws.token, 'issues.create', { title: 'Hidden request issue', projectId: outside });
    const hidden = await ok(t, ws.token, 'actionRequests.create', { title: 'Hidden', issueId: hiddenIssue.id });
    expect((await rest(t, narrowed.token, 'actionRequests.update', { id: hidden.id, title: 'x' })).status).toBe(404);
    expect((await rest(t, other.token, 'actionRequests.update', { id: hidden.id, title: 'x' })).status).toBe(404);
    const unknownUser = await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, assignedUserId: crypto.randomUUID() });
    expect(unknownUser.status).toBe(404);
    const foreignAgent = await createAgent(t, other, 'foreign-bot');
    expect((await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, assignedAgentId: foreignAgent.id })).status).toBe(404);
    expect403Scope(await rest(t, reader.token, 'actionRequests.update', { id: hidden.id, title: 'x' }), 'WRITE_ISSUES');
    expect400(await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, title: ' ' }), 'title');
    expect400(await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, severity: 'HUGE' }), 'severity');
    expect400(await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, dueAt: 'tomorrow' }), 'dueAt');
    expect400(await rest(t, ws.token, 'actionRequests.update', { id: hidden.id, kind: 'TRANSITION' }), 'kind');
    expect((await ok(t, ws.token, 'actionRequests.get', { id: hidden.id })).title).toBe('Hidden');
  });
});

describe('chat.getMessage / listMessages', () => {
  let agentKey: { token: string };
  let rivalKey: { token: string };
  let threadId: string;
  let userId: string;
  const postUser = async (body: string) => (await t.pools.owner.query(
    `select (app_private.chat_post_user_message($1, $2, $3, $4, '{}')).id`, [ws.id, threadId, userId, body])).rows[0].id as string;

  beforeAll(async () => {
    await createAgent(t, ws, 'chatter');
    await createAgent(t, ws, 'rival');
    agentKey = await createKey(t, ws, { agent: 'chatter', scopes: ['READ_ISSUES', 'WRITE_COMMENTS'] });
    rivalKey = await createKey(t, ws, { agent: 'rival', scopes: ['READ_ISSUES', 'WRITE_COMMENTS'] });
    await createAgent(t, other, 'chatter');
    const opened = await admin(t, 'open-chat', { workspace: ws.key, agent: 'chatter', user: ws.ownerEmail, message: 'hello', json: true });
    threadId = opened.thread.id;
    userId = (await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
  });

  it('getMessage: one message of a thread addressed to the key\'s agent, shaped as in getThread; 403/404/400', async () => {
    const reply = await ok(t, agentKey.token, 'chat.appendMessage', { threadId, body: 'hi there' });
    const thread = await ok(t, agentKey.token, 'chat.getThread', { threadId });
    const got = await ok(t, agentKey.token, 'chat.getMessage', { id: reply.messageId });
    expect(got).toEqual(thread.messages.find((m: any) => m.id === reply.messageId));
    expect(got).toMatchObject({ role: 'AGENT', body: 'hi there', threadId });
    expect((await ok(t, agentKey.token, 'chat.getMessage', { id: thread.messages[0].id })).role).toBe('USER');

    const rival = await rest(t, rivalKey.token, 'chat.getMessage', { id: reply.messageId });
    expect(rival.status).toBe(403);
    expect(rival.body.error).toBe('not_addressee');
    expect((await rest(t, ws.token, 'chat.getMessage', { id: reply.messageId })).body.error).toBe('agent_key_required');
    const foreignKey = await createKey(t, other, { agent: 'chatter', scopes: ['WRITE_COMMENTS'] });
    expect((await rest(t, foreignKey.token, 'chat.getMessage', { id: reply.messageId })).status).toBe(404);
    expect((await rest(t, agentKey.token, 'chat.getMessage', { id: crypto.randomUUID() })).status).toBe(404);
    const noWrite = await createKey(t, ws, { agent: 'chatter', scopes: ['READ_ISSUES'] });
    expect403Scope(await rest(t, noWrite.token, 'chat.getMessage', { id: reply.messageId }), 'WRITE_COMMENTS');
    expect400(await rest(t, agentKey.token, 'chat.getMessage', { id: 'nope' }), 'id');
  });

  it('listMessages: oldest first from the start or after a message (cursor), paged forward; 403/404/400', async () => {
    const { messages } = await ok(t, agentKey.token, 'chat.getThread', { threadId });
    const ids = messages.map((m: any) => m.id);
    const newer = [await postUser('one more'), await postUser('and another')];
    const all = [...ids, ...newer];

    const pages: string[][] = [];
    // nextCursor goes back as cursor, as in every other list.
    // The loop as clients write it: null on the first call.
    let cursor: string | null = null;
    do {
      const page: { items: any[]; nextCursor: string | null } = await ok(t, agentKey.token, 'chat.listMessages', { threadId, limit: 2, cursor });
      pages.push(page.items.map((m: any) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.flat()).toEqual(all);
    expect(pages[0]).toHaveLength(2);
    // Any message id of the thread is a cursor: the page starts after it.
    const since = await ok(t, agentKey.token, 'chat.listMessages', { threadId, cursor: ids.at(-1) });
    expect(since.items.map((m: any) => [m.id, m.role, m.body])).toEqual([[newer[0], 'USER', 'one more'], [newer[1], 'USER', 'and another']]);
    expect(since.nextCursor).toBeNull();
    expect((await ok(t, agentKey.token, 'chat.listMessages', { threadId, cursor: newer[1] })).items).toEqual([]);

    expect((await rest(t, rivalKey.token, 'chat.listMessages', { threadId })).body.error).toBe('not_addressee');
    const foreignKey = await createKey(t, other, { agent: 'chatter', scopes: ['WRITE_COMMENTS'] });
    expect((await rest(t, foreignKey.token, 'chat.listMessages', { threadId })).status).toBe(404);
    const noWrite = await createKey(t, ws, { agent: 'chatter', scopes: ['READ_ISSUES'] });
    expect403Scope(await rest(t, noWrite.token, 'chat.listMessages', { threadId }), 'WRITE_COMMENTS');
    expect400(await rest(t, agentKey.token, 'chat.listMessages', { threadId, cursor: crypto.randomUUID() }), 'cursor');
    expect400(await rest(t, agentKey.token, 'chat.listMessages', { threadId, cursor: 'page-2' }), 'cursor');
    expect400(await rest(t, agentKey.token, 'chat.listMessages', { threadId, after: ids[0] }), 'after');
    expect400(await rest(t, agentKey.token, 'chat.listMessages', { threadId, limit: 0 }), 'limit');
    expect400(await rest(t, agentKey.token, 'chat.listMessages', {}), 'threadId');
  });
});

describe('the default tools/list (runtime profile)', () => {
  // As an agent at work sees it (a person's key is not offered the agent-only tools: heartbeats, chat, run reports).
  let agentKey: { token: string };
  beforeAll(async () => {
    await createAgent(t, ws, 'lister');
    agentKey = await createKey(t, ws, { agent: 'lister' });
  });
  /** Every page of tools/list. */
  const names = async (query: string) => {
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await rpc(t, agentKey.token, 'tools/list', cursor ? { cursor } : {}, query);
      expect(r.status).toBe(200);
      all.push(...(r.body.result.tools as Array<{ name: string }>).map((x) => x.name));
      cursor = r.body.result.nextCursor;
    } while (cursor);
    return all;
  };

  it('lists what an agent at work needs; the rarely needed tools are under core/agents/full and callable anyway', async () => {
    const runtime = await names('');
    for (const n of ['issues.get', 'issues.list', 'runs.complete', 'chat.getThread', 'chat.getMessage', 'actionRequests.get', 'workspace.get']) {
      expect(runtime, n).toContain(n);
    }
    const leftOut = ['issues.count', 'issues.children', 'issues.history', 'issues.restore', 'runs.cancel', 'actionRequests.update', 'chat.listMessages'];
    for (const n of leftOut) expect(runtime, n).not.toContain(n);
    // Of the workspace namespace only workspace.get.
    expect(runtime.filter((n) => n.startsWith('workspace.'))).toEqual(['workspace.get']);
    const core = await names('?profile=core');
    for (const n of ['issues.count', 'issues.children', 'issues.history', 'issues.restore']) expect(core, n).toContain(n);
    const agents = await names('?profile=agents');
    for (const n of leftOut) expect(agents, n).toContain(n);
    const full = await names('?profile=full');
    for (const n of leftOut) expect(full, n).toContain(n);
    // tools/call is never restricted by the list; catalog.search finds them.
    const found = await rest(t, ws.token, 'catalog.search', { query: 'restore' });
    expect(found.body.map((x: any) => x.name)).toContain('issues.restore');
  });

  it('the tools selector takes tool names and "!" exclusions too', async () => {
    expect((await names('?tools=workspace.get,runs')).filter((n) => !n.startsWith('catalog.')).sort())
      .toEqual(['runs.cancel', 'runs.complete', 'runs.get', 'runs.kick', 'runs.list', 'runs.recordUsage', 'runs.resumeWork', 'runs.setWaiting', 'workspace.get']);
    expect(await names('?tools=runs,!runs.cancel')).not.toContain('runs.cancel');
  });
});
