/** issues.update / delete / queue / transition / claim / release / addLabels / removeLabels / createMany / updateMany. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, insertLabel, insertProject, ok, rest, rpc, startTestApp, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let projectA: string;
let projectB: string;
let labelX: string;
let labelY: string;
let statuses: Record<string, { id: string }>;

/** Kinds of the events of one issue, oldest first. */
const issueEvents = (issueId: string, token = ws.token) => subjectEvents(t, token, 'issue', issueId);
const kinds = async (issueId: string) => (await issueEvents(issueId)).map((e) => e.kind);
async function lastEventId(token = ws.token): Promise<string | undefined> {
  return (await ok(t, token, 'events.recent', { limit: 1 })).items[0]?.id;
}

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'MUT');
  other = await createWorkspace(t, 'OTH');
  projectA = await insertProject(t, ws, 'Alpha');
  projectB = await insertProject(t, ws, 'Beta');
  labelX = await insertLabel(t, ws, 'bug');
  labelY = await insertLabel(t, ws, 'infra');
  const list = await ok(t, ws.token, 'statuses.list', {});
  statuses = Object.fromEntries(list.map((s: { category: string; id: string }) => [s.category, s]));
});
afterAll(() => t.close());

describe('issues.update', () => {
  it('changes fields, writes one ISSUE_UPDATED naming them, and returns the full issue', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Original', labelIds: [labelX] });
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent' });
    const updated = await ok(t, ws.token, 'issues.update', {
      id: issue.key, title: 'Renamed', description: 'Now with words', projectId: projectA, labelIds: [labelY],
      parentId: parent.key, dueDate: '2030-01-31', estimate: 3, slaMinutes: 90, expectedOutput: 'a PR',
      verificationChecklist: [{ id: 'c1', label: 'tests pass' }], artifactRequired: true,
    });
    expect(updated).toMatchObject({
      id: issue.id, title: 'Renamed', description: 'Now with words', projectId: projectA, labelIds: [labelY],
      parentId: parent.id, dueDate: '2030-01-31', estimate: 3, slaMinutes: 90, expectedOutput: 'a PR',
      verificationChecklist: [{ id: 'c1', label: 'tests pass', done: false }], artifactRequired: true,
    });
    // Items without an id get item-<n> (their position), so a checklist can be written by labels alone.
    const byLabel = await ok(t, ws.token, 'issues.create', { title: 'Checklist by label',
      verificationChecklist: [{ label: 'tests pass' }, { id: 'own', label: 'docs' }, { label: 'demo' }] });
    expect(byLabel.verificationChecklist ?? (await ok(t, ws.token, 'issues.get', { id: byLabel.id, include: ['description'] })).verificationChecklist)
      .toEqual([{ id: 'item-1', label: 'tests pass', done: false }, { id: 'own', label: 'docs', done: false }, { id: 'item-3', label: 'demo', done: false }]);
    const events = await issueEvents(issue.id);
    expect(events.map((e) => e.kind)).toEqual(['ISSUE_CREATED', 'ISSUE_UPDATED']);
    expect(events[1]!.payload.changes.sort()).toEqual(['artifactRequired', 'description', 'dueDate', 'estimate', 'expectedOutput',
      'labelIds', 'parentId', 'projectId', 'slaMinutes', 'title', 'verificationChecklist']);

    // null clears nullable fields
    const cleared = await ok(t, ws.token, 'issues.update', { id: issue.id, description: null, projectId: null, parentId: null, dueDate: null });
    expect(cleared).toMatchObject({ description: null, projectId: null, parentId: null, dueDate: null });
  });

  it('a status and priority change writes both events; a change that changes nothing writes none', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Both', priority: 'LOW' });
    const before = await lastEventId();
    const r = await ok(t, ws.token, 'issues.update', { id: issue.id, statusId: statuses.IN_PROGRESS!.id, priority: 'URGENT' });
    expect(r).toMatchObject({ priority: 'URGENT', status: { category: 'IN_PROGRESS' } });
    expect(r.startedAt).toBeTruthy();
    const events = await issueEvents(issue.id);
    expect(events.map((e) => e.kind)).toEqual(['ISSUE_CREATED', 'ISSUE_STATUS_CHANGED', 'ISSUE_PRIORITY_CHANGED']);
    expect(events[1]!.payload).toMatchObject({ issueId: issue.id, from: statuses.TODO!.id, to: statuses.IN_PROGRESS!.id });
    expect(events[2]!.payload).toMatchObject({ from: 'LOW', to: 'URGENT' });
    expect(before).not.toBe(await lastEventId());

    const last = await lastEventId();
    const same = await ok(t, ws.token, 'issues.update', { id: issue.id, priority: 'URGENT', title: 'Both', statusId: statuses.IN_PROGRESS!.id, labelIds: [] });
    expect(same.updatedAt).toBe(r.updatedAt);
    expect(await lastEventId()).toBe(last);
  });

  it('sets cycleId and rejects a cycle of another workspace', async () => {
    const { rows } = await t.pools.owner.query(
      `insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on) values ($1, 1, 'S1', current_date, current_date + 14) returning id`, [ws.id]);
    const { rows: foreign } = await t.pools.owner.query(
      `insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on) values ($1, 1, 'F1', current_date, current_date + 14) returning id`, [other.id]);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Sprinted' });
    expect((await ok(t, ws.token, 'issues.update', { id: issue.id, cycleId: rows[0].id })).cycleId).toBe(rows[0].id);
    expect((await ok(t, ws.token, 'issues.list', { cycleId: rows[0].id })).items.map((i: { id: string }) => i.id)).toEqual([issue.id]);
    const r = await rest(t, ws.token, 'issues.update', { id: issue.id, cycleId: foreign[0].id });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('Cycle not found');
  });

  it('rejects bad input with 400 and an issues map, changing nothing', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Stable' });
    const parent = await ok(t, ws.token, 'issues.create', { title: 'P' });
    await ok(t, ws.token, 'issues.update', { id: parent.id, parentId: issue.id });
    const last = await lastEventId();
    const cases: Array<[object, string]> = [
      [{ id: issue.id, title: '' }, 'title'],
      [{ id: issue.id, priority: 'SUPER' }, 'priority'],
      [{ id: issue.id, statusId: 'nope' }, 'statusId'],
      [{ id: issue.id, dueDate: 'soon' }, 'dueDate'],
      [{ id: issue.id, estimate: -1 }, 'estimate'],
      [{ id: issue.id, verificationChecklist: [{ id: 'x', label: 'a' }, { id: 'x', label: 'b' }] }, 'verificationChecklist'],
      // A checklist item is one line of text, as a title is: not blank, no controls or direction overrides.
      [{ id: issue.id, verificationChecklist: [{ label: ' \t\n ' }] }, 'verificationChecklist.0.label'],
      [{ id: issue.id, verificationChecklist: [{ label: 'a\u0007b\u202ec' }] }, 'verificationChecklist.0.label'],
      [{ id: issue.id, verificationChecklist: [{ id: '\u202e\u0007', label: 'ok' }] }, 'verificationChecklist.0.id'],
      [{ id: issue.id, assignedAgentId: null }, 'assignedAgentId'],
      [{ title: 'no id' }, 'id'],
      [{ id: issue.id, parentId: issue.id }, 'parentId'],
      [{ id: issue.id, parentId: parent.key }, 'parentId'], // parent is already its sub-issue: a cycle
    ];
    for (const [input, field] of cases) {
      const r = await rest(t, ws.token, 'issues.update', input);
      expect(r.status, JSON.stringify(input)).toBe(400);
      expect(Object.keys(r.body.issues), JSON.stringify(r.body)).toContain(field);
    }
    expect(await lastEventId()).toBe(last);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).parentId).toBeNull();
  });

  it('answers 404 for an issue of another workspace and changes nothing there', async () => {
    const foreign = await ok(t, other.token, 'issues.create', { title: 'Theirs' });
    for (const [tool, input] of [
      ['issues.update', { id: foreign.id, title: 'Mine now' }],
      ['issues.delete', { id: foreign.id }],
      ['issues.queue', { id: foreign.id }],
      ['issues.transition', { id: foreign.id, statusId: statuses.DONE!.id }],
      ['issues.claim', { id: foreign.id }],
      ['issues.release', { id: foreign.id }],
      ['issues.addLabels', { id: foreign.id, labelIds: [labelX] }],
      ['issues.removeLabels', { id: foreign.id, labelIds: [labelX] }],
      ['issues.updateMany', { items: [{ id: foreign.id, title: 'x' }] }],
    ] as const) {
      const r = await rest(t, ws.token, tool, input);
      expect(r.status, tool).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
    expect((await rest(t, ws.token, 'issues.update', { id: foreign.key, title: 'x' })).status).toBe(404);
    const after = await ok(t, other.token, 'issues.get', { id: foreign.id });
    expect(after).toMatchObject({ title: 'Theirs', queued: false, claimedById: null, labelIds: [] });
    expect(await kinds(foreign.id).catch(() => [])).toEqual([]); // not even visible to ws
    const theirs = await issueEvents(foreign.id, other.token);
    expect(theirs.map((e) => e.kind)).toEqual(['ISSUE_CREATED']);
  });

  it('a narrowed key updates inside its narrowing, gets 404 outside, and 403 when the change would leave it', async () => {
    const inA = await ok(t, ws.token, 'issues.create', { title: 'in A', projectId: projectA });
    const inB = await ok(t, ws.token, 'issues.create', { title: 'in B', projectId: projectB });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    expect((await ok(t, key.token, 'issues.update', { id: inA.id, title: 'in A!' })).title).toBe('in A!');
    expect((await rest(t, key.token, 'issues.update', { id: inB.id, title: 'nope' })).status).toBe(404);
    expect((await rest(t, key.token, 'issues.update', { id: inA.id, projectId: projectB })).status).toBe(404); // B invisible
    const leave = await rest(t, key.token, 'issues.update', { id: inA.id, projectId: null, title: 'gone' });
    expect(leave.status).toBe(403);
    expect(leave.body.error).toBe('narrowing');
    expect(await ok(t, ws.token, 'issues.get', { id: inA.id })).toMatchObject({ projectId: projectA, title: 'in A!' });
    // a label-narrowed key may not remove the label it sees the issue through
    const labelled = await ok(t, ws.token, 'issues.create', { title: 'labelled', labelIds: [labelX] });
    const labelKey = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], labels: [labelX] });
    expect((await rest(t, labelKey.token, 'issues.removeLabels', { id: labelled.id, labelIds: [labelX] })).status).toBe(403);
    expect((await rest(t, labelKey.token, 'issues.update', { id: labelled.id, labelIds: [labelY] })).status).toBe(403);
    expect((await ok(t, labelKey.token, 'issues.addLabels', { id: labelled.id, labelIds: [labelY] })).labelIds).toEqual([labelX, labelY]);
  });

  it('a narrowed key cannot transition, queue, claim or delete issues outside its narrowing', async () => {
    const inB = await ok(t, ws.token, 'issues.create', { title: 'outside', projectId: projectB });
    const inA = await ok(t, ws.token, 'issues.create', { title: 'inside', projectId: projectA });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    for (const [tool, input] of [
      ['issues.transition', { statusId: statuses.DONE!.id }], ['issues.queue', {}], ['issues.claim', {}],
      ['issues.release', {}], ['issues.delete', {}],
    ] as const) {
      expect((await rest(t, key.token, tool, { id: inB.id, ...input })).status, tool).toBe(404);
      expect((await rest(t, key.token, tool, { id: inA.id, ...input })).status, tool).toBe(200);
    }
    expect(await kinds(inB.id)).toEqual(['ISSUE_CREATED']);
  });

  it('answers over MCP JSON-RPC too', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'via rpc' });
    const r = await rpc(t, ws.token, 'tools/call', { name: 'issues.update', arguments: { id: issue.id, priority: 'HIGH' } });
    expect(r.body.result.isError).toBeFalsy();
    expect(r.body.result.structuredContent).toMatchObject({ id: issue.id, priority: 'HIGH' });
    const bad = await rpc(t, ws.token, 'tools/call', { name: 'issues.update', arguments: { id: issue.id, priority: 'NOPE' } });
    expect(bad.body.result.isError).toBe(true);
    expect(JSON.parse(bad.body.result.content[0].text)).toMatchObject({ status: 400, issues: { priority: expect.any(String) } });
  });
});

describe('issues.transition / queue / delete', () => {
  it('transition moves status, stamps completion, and is a no-op for the same status', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Move me' });
    const done = await ok(t, ws.token, 'issues.transition', { id: issue.key, statusId: statuses.DONE!.id });
    expect(done.status.category).toBe('DONE');
    expect(done.completedAt).toBeTruthy();
    await ok(t, ws.token, 'issues.transition', { id: issue.key, statusId: statuses.DONE!.id });
    const reopened = await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId: statuses.TODO!.id });
    expect(reopened.completedAt).toBeNull();
    // Canceled, then done: completed when it was done (it kept the cancel time, and throughput booked it that day).
    const canceled = await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId: statuses.CANCELED!.id });
    await new Promise((r) => setTimeout(r, 20));
    const doneAfter = await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId: statuses.DONE!.id });
    expect(Date.parse(doneAfter.completedAt)).toBeGreaterThan(Date.parse(canceled.completedAt));
    expect(Date.parse(doneAfter.completedAt)).toBeGreaterThanOrEqual(Date.parse(doneAfter.startedAt));
    await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId: statuses.TODO!.id });
    expect(await kinds(issue.id)).toEqual(['ISSUE_CREATED', ...Array(5).fill('ISSUE_STATUS_CHANGED')]);
    expect((await rest(t, ws.token, 'issues.transition', { id: issue.id })).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.transition', { id: issue.id, statusId: crypto.randomUUID() })).status).toBe(404);
    const foreignStatus = (await ok(t, other.token, 'statuses.list', {}))[0].id;
    expect((await rest(t, ws.token, 'issues.transition', { id: issue.id, statusId: foreignStatus })).status).toBe(404);
  });

  it('transition takes the status by name too (an agent that does not list statuses): one of statusId or status', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Move me by name' });
    expect((await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'in progress' })).status.category).toBe('IN_PROGRESS');
    expect((await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'Done' })).status.id).toBe(statuses.DONE!.id);
    const unknown = await rest(t, ws.token, 'issues.transition', { id: issue.id, status: 'Shipped' });
    // 400 naming status, as issues.list answers the same words (it was 404, which reads as "the issue is gone").
    expect([unknown.status, Object.keys(unknown.body.issues)]).toEqual([400, ['status']]);
    const listedUnknown = await rest(t, ws.token, 'issues.list', { status: 'Shipped' });
    expect([listedUnknown.status, listedUnknown.body.issues]).toEqual([400, unknown.body.issues]);
    // The refusal says what to send instead: the workspace's status names and the categories.
    expect(unknown.body.message).toMatch(/No status named Shipped: this workspace's statuses are Backlog, Todo, In Progress, .*Done.*; or a category: BACKLOG, TODO/);
    // A category, however written, moves to its first status in workflow order (as repohost.sync's rules do).
    expect((await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'IN_PROGRESS' })).status.category).toBe('IN_PROGRESS');
    expect((await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'in-review' })).status.category).toBe('IN_REVIEW');
    // A status named like a category: the API's spelling (IN_PROGRESS) is the category, another spelling the name;
    // issues.list and issues.transition read the same words alike (they once picked different statuses).
    const oddName = await ok(t, ws.token, 'statuses.create', { name: 'in_progress', category: 'TODO' });
    const moved = await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'IN_PROGRESS' });
    expect(moved.status).toMatchObject({ category: 'IN_PROGRESS', name: 'In Progress' });
    const listed = await ok(t, ws.token, 'issues.list', { status: 'IN_PROGRESS', limit: 200 });
    expect(listed.items.map((i: any) => i.id)).toContain(issue.id);
    expect(listed.items.every((i: any) => i.status.category === 'IN_PROGRESS')).toBe(true);
    expect((await ok(t, ws.token, 'issues.transition', { id: issue.key, status: 'In_Progress' })).status.id).toBe(oddName.id);
    expect((await ok(t, ws.token, 'issues.list', { status: 'In_Progress', limit: 200 })).items.map((i: any) => i.id)).toEqual([issue.id]);
    await ok(t, ws.token, 'statuses.delete', { id: oddName.id, moveIssuesTo: statuses.DONE!.id });
    const both = await rest(t, ws.token, 'issues.transition', { id: issue.id, status: 'Done', statusId: statuses.DONE!.id });
    expect([both.status, Object.keys(both.body.issues)]).toEqual([400, ['statusId']]);
    // Another workspace's status of the same name is not this one's.
    await ok(t, other.token, 'statuses.create', { name: 'Only There', category: 'TODO' });
    expect((await rest(t, ws.token, 'issues.transition', { id: issue.id, status: 'Only There' })).status).toBe(400);
  });

  it('queue flips queued once (ISSUE_QUEUED), queued false takes it out (ISSUE_UPDATED)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Queue me' });
    expect((await ok(t, ws.token, 'issues.queue', { id: issue.id })).queued).toBe(true);
    await ok(t, ws.token, 'issues.queue', { id: issue.id });
    expect((await ok(t, ws.token, 'issues.list', { queued: true })).items.map((i: { id: string }) => i.id)).toContain(issue.id);
    expect((await ok(t, ws.token, 'issues.queue', { id: issue.id, queued: false })).queued).toBe(false);
    expect(await kinds(issue.id)).toEqual(['ISSUE_CREATED', 'ISSUE_QUEUED', 'ISSUE_UPDATED']);
    expect((await rest(t, ws.token, 'issues.queue', { id: issue.id, queued: 'yes' })).status).toBe(400);
  });

  it('delete is soft: ISSUE_DELETED, gone from get/list, a second delete is 404, the row stays', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Delete me' });
    expect(await ok(t, ws.token, 'issues.delete', { id: issue.key })).toMatchObject({ ok: true, id: issue.id, deleted: true });
    expect((await rest(t, ws.token, 'issues.get', { id: issue.id })).status).toBe(404);
    expect((await ok(t, ws.token, 'issues.list', { limit: 200 })).items.map((i: { id: string }) => i.id)).not.toContain(issue.id);
    expect((await rest(t, ws.token, 'issues.delete', { id: issue.id })).status).toBe(404);
    const { rows } = await t.pools.owner.query('select deleted_at from app_public.issues where id = $1', [issue.id]);
    expect(rows[0].deleted_at).toBeTruthy();
    const { rows: ev } = await t.pools.owner.query(`select kind from app_public.activity_events where subject_id = $1 order by seq`, [issue.id]);
    expect(ev.map((e) => e.kind)).toEqual(['ISSUE_CREATED', 'ISSUE_DELETED']);
    expect((await rest(t, ws.token, 'issues.delete', {})).status).toBe(400);
  });

  it('delete detaches the live sub-issues (also those the deleting key cannot see), each with ISSUE_UPDATED parentId', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent to delete', projectId: projectA });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Visible child', projectId: projectA, parentId: parent.id });
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden child', projectId: projectB, parentId: parent.id });
    const grandchild = await ok(t, ws.token, 'issues.create', { title: 'Grandchild', parentId: seen.id });
    const gone = await ok(t, ws.token, 'issues.create', { title: 'Deleted child', parentId: parent.id });
    await ok(t, ws.token, 'issues.delete', { id: gone.id });
    // Another workspace cannot delete it: 404, nothing detached.
    expect((await rest(t, other.token, 'issues.delete', { id: parent.id })).status).toBe(404);
    expect((await ok(t, ws.token, 'issues.get', { id: seen.id })).parentId).toBe(parent.id);

    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    await ok(t, narrowed.token, 'issues.delete', { id: parent.key });
    for (const child of [seen, hidden]) {
      expect((await ok(t, ws.token, 'issues.get', { id: child.id })).parentId).toBeNull();
      const evs = await issueEvents(child.id);
      expect(evs.at(-1)).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['parentId'] } });
    }
    expect((await ok(t, ws.token, 'issues.get', { id: grandchild.id })).parentId).toBe(seen.id);
    const topLevel = (await ok(t, ws.token, 'issues.list', { parentId: null, limit: 200 })).items.map((i: { id: string }) => i.id);
    expect(topLevel).toEqual(expect.arrayContaining([seen.id, hidden.id]));
    expect(topLevel).not.toContain(parent.id);
    expect((await rest(t, ws.token, 'issues.list', { parentId: parent.key })).status).toBe(404);
    // The deleted child is left as it was (deleted rows are not touched again).
    const { rows } = await t.pools.owner.query('select parent_id from app_public.issues where id = $1', [gone.id]);
    expect(rows[0].parent_id).toBe(parent.id);
  });
});

describe('issues.claim / release', () => {
  it('claims for the key user with a default 4 h expiry, extends, and releases', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Claim me' });
    const claimed = await ok(t, ws.token, 'issues.claim', { id: issue.id });
    const { rows } = await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail]);
    expect(claimed.claimedById).toBe(rows[0].id);
    const minutes = (new Date(claimed.claimExpiresAt).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(235);
    expect(minutes).toBeLessThan(241);
    const extended = await ok(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 600 });
    expect(new Date(extended.claimExpiresAt).getTime()).toBeGreaterThan(new Date(claimed.claimExpiresAt).getTime());
    // A re-claim never shortens the claim (release ends it early): nothing changes, nothing is recorded.
    expect((await ok(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 5 })).claimExpiresAt).toBe(extended.claimExpiresAt);
    expect((await ok(t, ws.token, 'issues.list', { claimedById: rows[0].id })).items.map((i: { id: string }) => i.id)).toContain(issue.id);
    const released = await ok(t, ws.token, 'issues.release', { id: issue.id });
    expect(released).toMatchObject({ claimedById: null, claimExpiresAt: null });
    // Claimed, extended (changes claimExpiresAt), released.
    expect(await kinds(issue.id)).toEqual(['ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_UPDATED', 'ISSUE_UPDATED']);
    const { rows: changes } = await t.pools.owner.query(
      "select payload->'changes' as c from app_public.activity_events where subject_id = $1 and kind = 'ISSUE_UPDATED' order by seq", [issue.id]);
    expect(changes.map((r) => r.c)).toEqual([['claimedById'], ['claimExpiresAt'], ['claimedById']]);
    expect((await rest(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 0 })).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 20_000 })).status).toBe(400);
  });

  it("another user's live claim is 409 to claim and 403 to release, unless OWNER/ADMIN; an expired claim is taken over", async () => {
    await ok(t, ws.token, 'issues.create', { title: 'warm-up' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Contested' });
    const { admin } = await import('../support/harness.ts');
    await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'member@example.com', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    await ok(t, ws.token, 'issues.claim', { id: issue.id });
    const conflict = await rest(t, member.token, 'issues.claim', { id: issue.id });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('already_claimed');
    // Who holds it, and until when to the microsecond (ISO 8601, as every time the API gives: a retry in the second
    // the message named was refused).
    const claimed = await ok(t, ws.token, 'issues.get', { id: issue.id });
    expect(conflict.body.message).toMatch(new RegExp(`^The issue is claimed by .+ \\(user ${claimed.claimedById}\\) until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$`));
    expect(new Date(conflict.body.message.split('until ')[1]).getTime()).toBe(new Date(claimed.claimExpiresAt).getTime());
    const denied = await rest(t, member.token, 'issues.release', { id: issue.id });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('not_claimer');
    // the member claims; the OWNER (person key, not ADMIN-scoped) may release it
    await t.pools.owner.query(`update app_public.issues set claim_expires_at = now() - interval '1 minute' where id = $1`, [issue.id]);
    const takeover = await ok(t, member.token, 'issues.claim', { id: issue.id });
    expect(takeover.claimedById).not.toBe(issue.claimedById);
    const ownerKey = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    expect((await ok(t, ownerKey.token, 'issues.release', { id: issue.id })).claimedById).toBeNull();
  });
});

describe('issues.addLabels / removeLabels', () => {
  it('adds and removes idempotently, one ISSUE_UPDATED per call, nothing when nothing changes', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labels' });
    expect((await ok(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [labelX, labelY] })).labelIds.sort()).toEqual([labelX, labelY].sort());
    const last = await lastEventId();
    await ok(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [labelX] });
    await ok(t, ws.token, 'issues.removeLabels', { id: issue.id, labelIds: [labelX] });
    expect((await ok(t, ws.token, 'issues.removeLabels', { id: issue.id, labelIds: [labelX] })).labelIds).toEqual([labelY]);
    const events = await issueEvents(issue.id);
    expect(events.map((e) => e.kind)).toEqual(['ISSUE_CREATED', 'ISSUE_UPDATED', 'ISSUE_UPDATED']);
    expect(events[2]!.payload.changes).toEqual(['labelIds']);
    expect(last).not.toBe(await lastEventId());
  });

  it('rejects bad input (400) and labels of another workspace (404)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labels bad' });
    expect((await rest(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [] })).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: ['x'] })).body.issues).toHaveProperty('labelIds.0');
    const foreign = await insertLabel(t, other, 'foreign');
    const r = await rest(t, ws.token, 'issues.addLabels', { id: issue.id, labelIds: [foreign] });
    expect(r.status).toBe(404);
    expect((await rest(t, ws.token, 'issues.removeLabels', { id: issue.id, labelIds: [foreign] })).status).toBe(404);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).labelIds).toEqual([]);
  });
});

describe('issues.createMany / updateMany', () => {
  it('creates up to 100 in one call, one ISSUE_CREATED each', async () => {
    const fresh = await createWorkspace(t);
    const items = Array.from({ length: 100 }, (_, i) => ({ title: `bulk ${i}`, priority: i % 2 ? 'HIGH' : 'LOW' }));
    const r = await ok(t, fresh.token, 'issues.createMany', { items });
    expect(r.items).toHaveLength(100);
    expect(r.items.map((i: { number: number }) => i.number)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const ev = await ok(t, fresh.token, 'events.recent', { limit: 200 });
    expect(ev.items.filter((e: { kind: string }) => e.kind === 'ISSUE_CREATED')).toHaveLength(100);
    expect((await rest(t, fresh.token, 'issues.createMany', { items: [...items, { title: 'one too many' }] })).status).toBe(400);
    expect((await rest(t, fresh.token, 'issues.createMany', { items: [] })).status).toBe(400);
  });

  it('labels set at creation belong to ISSUE_CREATED (no ISSUE_UPDATED), also in bulk', async () => {
    const r = await ok(t, ws.token, 'issues.createMany', { items: [{ title: 'l1', labelIds: [labelX] }, { title: 'l2', labelIds: [labelX, labelY] }] });
    for (const issue of r.items) expect(await kinds(issue.id)).toEqual(['ISSUE_CREATED']);
    expect(r.items[1].labelIds.sort()).toEqual([labelX, labelY].sort());
  });

  it('is all or nothing: a failing item writes nothing and names items.N.field', async () => {
    const fresh = await createWorkspace(t);
    const shape = await rest(t, fresh.token, 'issues.createMany', { items: [{ title: 'ok' }, { title: '' }] });
    expect(shape.status).toBe(400);
    expect(shape.body.issues).toHaveProperty('items.1.title');
    const missing = await rest(t, fresh.token, 'issues.createMany', { items: [{ title: 'ok' }, { title: 'bad', projectId: projectA }] });
    expect(missing.status).toBe(404);
    const missingLabel = await rest(t, fresh.token, 'issues.createMany', { items: [{ title: 'ok' }, { title: 'ok2' }, { title: 'bad', parentId: 'NOPE-1' }] });
    expect(missingLabel.status).toBe(404);
    expect((await ok(t, fresh.token, 'issues.list', {})).items).toEqual([]);
    expect((await ok(t, fresh.token, 'events.recent', { subjectType: 'issue' })).items).toEqual([]);
    // the issue counter did not move either
    expect((await ok(t, fresh.token, 'issues.create', { title: 'first' })).number).toBe(1);
  });

  it('two updateMany calls over the same issues in opposite orders both land: the issues are locked in one order first', async () => {
    const issues = [];
    for (let i = 0; i < 6; i++) issues.push(await ok(t, ws.token, 'issues.create', { title: `order ${i}` }));
    for (let round = 0; round < 5; round++) {
      const forward = issues.map((x) => ({ id: x.id, title: `forward ${round}` }));
      const results = await Promise.all([
        rest(t, ws.token, 'issues.updateMany', { items: forward }),
        rest(t, ws.token, 'issues.updateMany', { items: [...forward].reverse().map((x) => ({ ...x, title: `backward ${round}` })) }),
      ]);
      for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    // The order, seen from outside: while another transaction holds the later issue, a call naming it first has
    // already locked the earlier one (it locked in the order given, and two such calls deadlocked: 409s after retries).
    const [early, late] = [...issues].sort((x, y) => (x.id < y.id ? -1 : 1)).filter((_, i) => i === 0 || i === 5);
    const holder = await t.pools.owner.connect();
    const prober = await t.pools.owner.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from app_public.issues where id = $1 for update', [late.id]);
      const call = rest(t, ws.token, 'issues.updateMany', { items: [{ id: late.id, title: 'late first' }, { id: early.id, title: 'early second' }] });
      await expect.poll(async () => {
        try {
          await prober.query('begin');
          await prober.query('select 1 from app_public.issues where id = $1 for update nowait', [early.id]);
          return 'free';
        } catch (err) {
          return (err as { code?: string }).code;
        } finally {
          await prober.query('rollback');
        }
      }).toBe('55P03');
      await holder.query('rollback');
      expect((await call).status).toBe(200);
    } finally {
      holder.release();
      prober.release();
    }
  });

  it('updates many, one event per issue per kind, and rolls back entirely on a failing item', async () => {
    const a = await ok(t, ws.token, 'issues.create', { title: 'many a' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'many b' });
    const r = await ok(t, ws.token, 'issues.updateMany', { items: [
      { id: a.id, priority: 'HIGH', title: 'many a!', labelIds: [labelX] },
      { id: b.key, statusId: statuses.DONE!.id },
    ] });
    expect(r.items.map((i: { id: string }) => i.id)).toEqual([a.id, b.id]);
    expect((await kinds(a.id)).sort()).toEqual(['ISSUE_CREATED', 'ISSUE_PRIORITY_CHANGED', 'ISSUE_UPDATED']);
    expect(await kinds(b.id)).toEqual(['ISSUE_CREATED', 'ISSUE_STATUS_CHANGED']);

    const last = await lastEventId();
    const fail = await rest(t, ws.token, 'issues.updateMany', { items: [
      { id: a.id, title: 'should not stick' },
      { id: b.id, statusId: crypto.randomUUID() },
    ] });
    expect(fail.status).toBe(404);
    expect(fail.body.issues ?? {}).toEqual({});
    // A 404 (or 409) has no issues map: its message names the item.
    expect(fail.body.message).toMatch(/^items\.1: Status not found/);
    const dup = await rest(t, ws.token, 'issues.updateMany', { items: [{ id: a.id, title: 'x' }, { id: a.key, title: 'y' }] });
    expect(dup.status).toBe(400);
    expect(dup.body.issues).toHaveProperty('items.1.id');
    const badParent = await rest(t, ws.token, 'issues.updateMany', { items: [{ id: a.id, title: 'x' }, { id: b.id, parentId: b.id }] });
    expect(badParent.body.issues).toHaveProperty('items.1.parentId');
    expect((await ok(t, ws.token, 'issues.get', { id: a.id })).title).toBe('many a!');
    expect(await lastEventId()).toBe(last);
  });
});

describe('parents never make a cycle', () => {
  /** The parent chain from an issue upwards, stopping at a repeat (a cycle) or the top. */
  async function chainHasCycle(id: string) {
    const seen = new Set<string>();
    let at: string | null = id;
    while (at) {
      if (seen.has(at)) return true;
      seen.add(at);
      const found: { rows: Array<{ parent_id: string | null }> } = await t.pools.owner.query('select parent_id from app_public.issues where id = $1', [at]);
      at = found.rows[0]?.parent_id ?? null;
    }
    return false;
  }

  it('four parent changes at once that would close a ring: at least one is refused, and no cycle is made', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const four = (await ok(t, ws.token, 'issues.createMany', { items: [0, 1, 2, 3].map((n) => ({ title: `ring ${trial}.${n}` })) })).items;
      const answers = await Promise.all(four.map((issue: { id: string }, n: number) =>
        rest(t, ws.token, n === 1 ? 'issues.updateMany' : 'issues.update',
          n === 1 ? { items: [{ id: issue.id, parentId: four[2].id }] } : { id: issue.id, parentId: four[(n + 1) % 4].id })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 400]);
      for (const issue of four) expect(await chainHasCycle(issue.id)).toBe(false);
    }
  });

  it('a parent chain deeper than the check walks (1,000) is refused rather than assumed acyclic', async () => {
    const { rows } = await t.pools.owner.query(
      `with made as (
         insert into app_public.issues (workspace_id, title, status_id)
         select $1, 'deep ' || g, (select id from app_public.statuses where workspace_id = $1 order by position limit 1)
         from generate_series(1, 1005) g returning id, number)
       select id from made order by number`, [ws.id]);
    const ids: string[] = rows.map((r: { id: string }) => r.id);
    // ids[n]'s parent is ids[n - 1]: ids[0] is the root, ids[1004] the deepest leaf.
    await t.pools.owner.query(
      'update app_public.issues i set parent_id = c.parent from unnest($1::uuid[], $2::uuid[]) c(id, parent) where i.id = c.id',
      [ids.slice(1), ids.slice(0, -1)]);
    const r = await rest(t, ws.token, 'issues.update', { id: ids[0], parentId: ids[1004] });
    expect([r.status, r.body.issues?.parentId]).toEqual([400, expect.stringMatching(/cycle/)]);
    expect(await chainHasCycle(ids[1004]!)).toBe(false);
  });
});

describe('null for an optional field', () => {
  it('is "none" in a create tool (as leaving it out), and stays refused where an update cannot clear the field', async () => {
    const created = await ok(t, ws.token, 'issues.create', { title: 'Nulls for none', projectId: null, description: null, priority: null, labelIds: null });
    expect(created).toMatchObject({ title: 'Nulls for none', projectId: null, priority: 'NONE' });
    const comment = await ok(t, ws.token, 'comments.create', { issueId: created.id, body: 'Unsure', confidence: null });
    expect(comment.body).toBe('Unsure');
    expect((await ok(t, ws.token, 'goals.create', { title: 'No crew', issueId: created.id, crewId: null })).title).toBe('No crew');
    // An update's null clears where the field can be cleared, and is refused where it cannot (a title).
    const title = await rest(t, ws.token, 'issues.update', { id: created.id, title: null });
    expect([title.status, Object.keys(title.body.issues ?? {})]).toEqual([400, ['title']]);
    // Another workspace's id is still not found, null or not around it.
    const foreign = await insertProject(t, other, 'Elsewhere');
    expect((await rest(t, ws.token, 'issues.create', { title: 'x', projectId: foreign, description: null })).status).toBe(404);
  });
});
