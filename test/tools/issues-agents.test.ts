/** issues.assign / reassign / assigned, runs opened by assignment, run-mode gating, the watch family, issues.get includes, list filters. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createKey, createWorkspace, insertProject, ok, rest, startTestApp, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let coder: { id: string; profileKey: string };
let reviewer: { id: string; profileKey: string };
let retired: { id: string; profileKey: string };
let coderKey: { token: string };
let reviewerKey: { token: string };
let projectA: string;
let projectB: string;

async function runs(issueId: string) {
  const { rows } = await t.pools.owner.query(
    'select agent_id, status, engagement_mode, finished_at from app_public.agent_runs where issue_id = $1 order by started_at, id', [issueId]);
  return rows as Array<{ agent_id: string; status: string; engagement_mode: string; finished_at: Date | null }>;
}
const issueEvents = (issueId: string, token = ws.token) => subjectEvents(t, token, 'issue', issueId);
const lastEventId = async () => (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0]?.id;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'AGT');
  other = await createWorkspace(t, 'OTA');
  coder = await createAgent(t, ws, 'coder');
  reviewer = await createAgent(t, ws, 'reviewer');
  retired = await createAgent(t, ws, 'retired');
  await t.pools.owner.query('update app_public.agents set archived_at = now() where id = $1', [retired.id]);
  coderKey = await createKey(t, ws, { agent: 'coder', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] });
  reviewerKey = await createKey(t, ws, { agent: 'reviewer', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] });
  projectA = await insertProject(t, ws, 'Alpha');
  projectB = await insertProject(t, ws, 'Beta');
});
afterAll(() => t.close());

describe('issues.assign', () => {
  it('assigns by profileKey or agentId, opens an ACTIVE run, abandons the previous agent\'s run, writes ISSUE_ASSIGNED + AGENT_ASSIGNED', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Assign me' });
    const a = await ok(t, ws.token, 'issues.assign', { id: issue.key, profileKey: 'coder' });
    expect(a).toMatchObject({ assignedAgentId: coder.id, assignedAgent: { profileKey: 'coder' } });
    expect(a.currentRun).toMatchObject({ agentId: coder.id, status: 'ACTIVE', engagementMode: 'EXECUTE' });
    const b = await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: reviewer.id, mode: 'REVIEW' });
    expect(b.currentRun).toMatchObject({ agentId: reviewer.id, status: 'ACTIVE', engagementMode: 'REVIEW' });
    expect((await runs(issue.id)).map((r) => [r.agent_id, r.status, r.engagement_mode])).toEqual([
      [coder.id, 'ABANDONED', 'EXECUTE'], [reviewer.id, 'ACTIVE', 'REVIEW'],
    ]);
    const events = await issueEvents(issue.id);
    // The previous agent's run moving to ABANDONED writes AGENT_RUN_STATUS_CHANGED (reason reassigned) first.
    expect(events.map((e) => e.kind)).toEqual(['ISSUE_CREATED', 'ISSUE_ASSIGNED', 'AGENT_ASSIGNED', 'AGENT_RUN_STATUS_CHANGED',
      'ISSUE_ASSIGNED', 'AGENT_ASSIGNED']);
    expect(events[2]!.payload).toMatchObject({
      agentId: coder.id, profileKey: 'coder', from: null, to: coder.id, auto: false, reason: 'manual',
      rationale: null, commentId: null, dispatch: null,
    });
    expect(events[3]!.payload).toMatchObject({ runId: a.currentRun.id, agentId: coder.id, issueId: issue.id, from: 'ACTIVE',
      to: 'ABANDONED', engagementMode: 'EXECUTE', reason: 'reassigned' });
    expect(events[5]!.payload).toMatchObject({ from: coder.id, to: reviewer.id, reason: 'manual' });
    // the same agent again, run still open: nothing happens
    const last = await lastEventId();
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'reviewer' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'reviewer', mode: 'REVIEW' });
    expect(await lastEventId()).toBe(last);
    expect(await runs(issue.id)).toHaveLength(2);
    // ... but another mode than the open run's is a conflict to hear about, not a success that keeps the REVIEW run.
    const other = await rest(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'reviewer', mode: 'RESEARCH' });
    expect([other.status, other.body.error]).toEqual([409, 'run_open']);
    expect(other.body.message).toMatch(/open REVIEW run/);
    expect(await lastEventId()).toBe(last);
  });

  it('rejects archived agents (400), unknown agents (404), bad input (400) and other workspaces (404)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Assign bad' });
    const archived = await rest(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'retired' });
    expect(archived.status).toBe(400);
    expect(archived.body).toMatchObject({ error: 'agent_archived', issues: { profileKey: expect.any(String) } });
    expect((await rest(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'ghost' })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.assign', { id: issue.id })).body.issues).toHaveProperty('agentId');
    expect((await rest(t, ws.token, 'issues.assign', { id: issue.id, agentId: coder.id, profileKey: 'coder' })).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder', mode: 'PLAY' })).body.issues).toHaveProperty('mode');
    const foreignAgent = await createAgent(t, other, 'foreign');
    expect((await rest(t, ws.token, 'issues.assign', { id: issue.id, agentId: foreignAgent.id })).status).toBe(404);
    const foreignIssue = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    expect((await rest(t, ws.token, 'issues.assign', { id: foreignIssue.id, profileKey: 'coder' })).status).toBe(404);
    expect((await ok(t, other.token, 'issues.get', { id: foreignIssue.id })).assignedAgentId).toBeNull();
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBeNull();
  });

  it('a narrowed key assigns only issues it can see', async () => {
    const inA = await ok(t, ws.token, 'issues.create', { title: 'A', projectId: projectA });
    const inB = await ok(t, ws.token, 'issues.create', { title: 'B', projectId: projectB });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    expect((await ok(t, key.token, 'issues.assign', { id: inA.id, profileKey: 'coder' })).assignedAgentId).toBe(coder.id);
    expect((await rest(t, key.token, 'issues.assign', { id: inB.id, profileKey: 'coder' })).status).toBe(404);
    expect((await rest(t, key.token, 'issues.reassign', { issueId: inB.id, toProfileKey: 'coder', rationale: 'ten chars at least' })).status).toBe(404);
  });
});

describe('issues.unassign', () => {
  it('takes the issue from its agent: its open run ends (reason unassigned), ISSUE_UPDATED names assignedAgentId, a queued issue is back in the pool', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Give it back' });
    await ok(t, ws.token, 'issues.queue', { id: issue.id });
    const run = (await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder' })).currentRun;
    const done = await ok(t, ws.token, 'issues.unassign', { id: issue.key });
    expect([done.assignedAgentId, done.queued]).toEqual([null, true]);
    expect((await ok(t, ws.token, 'runs.get', { id: run.id })).status).toBe('ABANDONED');
    const events = await subjectEvents(t, ws.token, 'issue', issue.id);
    expect(events.find((e) => e.kind === 'AGENT_RUN_STATUS_CHANGED')?.payload).toMatchObject({ runId: run.id, to: 'ABANDONED', reason: 'unassigned' });
    expect(events.find((e) => e.kind === 'ISSUE_UPDATED' && e.payload.changes?.includes('assignedAgentId'))).toBeTruthy();
    expect((await ok(t, ws.token, 'issues.list', { queued: true, assignedAgentId: null, open: true })).items.map((i: { id: string }) => i.id)).toContain(issue.id);
    // Not assigned: unchanged, nothing written.
    const before = (await subjectEvents(t, ws.token, 'issue', issue.id)).length;
    expect((await ok(t, ws.token, 'issues.unassign', { id: issue.id })).assignedAgentId).toBeNull();
    expect((await subjectEvents(t, ws.token, 'issue', issue.id)).length).toBe(before);
  });

  it('another workspace\'s key and a key narrowed away from the issue get 404; bad input 400', async () => {
    const inB = await ok(t, ws.token, 'issues.create', { title: 'B', projectId: projectB });
    await ok(t, ws.token, 'issues.assign', { id: inB.id, profileKey: 'coder' });
    expect((await rest(t, other.token, 'issues.unassign', { id: inB.id })).status).toBe(404);
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectA] });
    expect((await rest(t, narrowed.token, 'issues.unassign', { id: inB.id })).status).toBe(404);
    expect((await ok(t, ws.token, 'issues.get', { id: inB.id })).assignedAgentId).toBe(coder.id);
    const bad = await rest(t, ws.token, 'issues.unassign', { id: '', extra: 1 });
    expect([bad.status, Object.keys(bad.body.issues).sort()]).toEqual([400, ['extra', 'id']]);
  });
});

describe('issues.reassign', () => {
  it('posts the handoff comment, swaps the agent, moves the run and writes AGENT_ASSIGNED (handoff) in one call', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Hand me off' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder' });
    const r = await ok(t, coderKey.token, 'issues.reassign', { issueId: issue.key, toProfileKey: 'reviewer', rationale: 'Needs a second pair of eyes', mode: 'REVIEW' });
    expect(r).toMatchObject({ assignedAgentId: reviewer.id, currentRun: { agentId: reviewer.id, engagementMode: 'REVIEW', status: 'ACTIVE' } });
    const comments = await ok(t, ws.token, 'comments.list', { issueId: issue.id });
    expect(comments.items[0]).toMatchObject({
      id: r.handoffCommentId, kind: 'HANDOFF', body: 'Handoff → @reviewer: Needs a second pair of eyes',
      authoringAgent: { id: coder.id, profileKey: 'coder' },
    });
    const events = await issueEvents(issue.id);
    const assigned = events.filter((e) => e.kind === 'AGENT_ASSIGNED').at(-1)!;
    expect(assigned.payload).toEqual(expect.objectContaining({
      agentId: reviewer.id, profileKey: 'reviewer', from: coder.id, to: reviewer.id, auto: false, reason: 'handoff',
      rationale: 'Needs a second pair of eyes', commentId: r.handoffCommentId, dispatch: null,
    }));
    expect((await runs(issue.id)).map((x) => x.status)).toEqual(['ABANDONED', 'ACTIVE']);
    const commentEvents = await ok(t, ws.token, 'events.recent', { subjectType: 'comment', subjectId: r.handoffCommentId });
    expect(commentEvents.items.map((e: { kind: string }) => e.kind)).toEqual(['COMMENT_CREATED']);
  });

  it('400 for the same agent, an archived agent or a short rationale; 404 for an unknown agent; nothing written', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'No handoff' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder' });
    const last = await lastEventId();
    const same = await rest(t, ws.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'coder', rationale: 'same agent again please' });
    expect(same.status).toBe(400);
    expect(same.body).toMatchObject({ error: 'same_agent', issues: { toProfileKey: expect.any(String) } });
    const archived = await rest(t, ws.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'retired', rationale: 'retired agent handoff' });
    expect(archived.status).toBe(400);
    expect(archived.body.error).toBe('agent_archived');
    const short = await rest(t, ws.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'reviewer', rationale: 'too short' });
    expect(short.status).toBe(400);
    expect(short.body.issues).toHaveProperty('rationale');
    const padded = await rest(t, ws.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'reviewer', rationale: '   short   ' });
    expect(padded.status).toBe(400);
    expect((await rest(t, ws.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'ghost', rationale: 'a ghost agent here' })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.reassign', { id: issue.id, toProfileKey: 'reviewer', rationale: 'wrong field name' })).status).toBe(400);
    expect(await lastEventId()).toBe(last);
    expect((await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items).toEqual([]);
  });
});

describe('issues.assigned', () => {
  it('lists by agentId, profileKey or the linked agent; open only unless includeClosed; 400 with no agent at all', async () => {
    const fresh = await createAgent(t, ws, 'lister');
    const key = await createKey(t, ws, { agent: 'lister', scopes: ['READ_ISSUES'] });
    const a = await ok(t, ws.token, 'issues.create', { title: 'mine 1' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'mine 2' });
    await ok(t, ws.token, 'issues.assign', { id: a.id, agentId: fresh.id });
    await ok(t, ws.token, 'issues.assign', { id: b.id, agentId: fresh.id });
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0].id;
    await ok(t, ws.token, 'issues.transition', { id: b.id, statusId: done });
    const ids = (r: { items: Array<{ id: string }> }) => r.items.map((i) => i.id);
    // A person moved b to done; the agent's run there is still open, so b is still its work to report on.
    const mine = await ok(t, key.token, 'issues.assigned', {});
    expect(ids(mine)).toEqual([b.id, a.id]);
    const runOf = async (issueId: string) => (await ok(t, ws.token, 'runs.list', { issueId })).items[0].id;
    expect(mine.items.map((i: { openRunId: string }) => i.openRunId)).toEqual([await runOf(b.id), await runOf(a.id)]);
    await ok(t, ws.token, 'runs.cancel', { runId: await runOf(b.id) });
    expect(ids(await ok(t, key.token, 'issues.assigned', {}))).toEqual([a.id]);
    expect(ids(await ok(t, ws.token, 'issues.assigned', { profileKey: 'lister' }))).toEqual([a.id]);
    expect(ids(await ok(t, ws.token, 'issues.assigned', { agentId: fresh.id, includeClosed: true }))).toEqual([b.id, a.id]);
    const page1 = await ok(t, ws.token, 'issues.assigned', { agentId: fresh.id, includeClosed: true, limit: 1 });
    expect(ids(await ok(t, ws.token, 'issues.assigned', { agentId: fresh.id, includeClosed: true, limit: 1, cursor: page1.nextCursor }))).toEqual([a.id]);
    const none = await rest(t, ws.token, 'issues.assigned', {});
    expect(none.status).toBe(400);
    expect(none.body.issues).toHaveProperty('agentId');
    expect((await rest(t, ws.token, 'issues.assigned', { profileKey: 'ghost' })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.assigned', { agentId: 'x' })).status).toBe(400);
    const foreignAgent = await createAgent(t, other, 'elsewhere');
    expect((await rest(t, ws.token, 'issues.assigned', { agentId: foreignAgent.id })).status).toBe(404);
  });
});

describe('run-mode gating (spec 3.2)', () => {
  it('an agent in a REVIEW run may comment and upsert status but not change the issue (403 run_mode_gated)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Gated' });
    const label = (await ok(t, ws.token, 'labels.create', { name: 'gated-label' })).id;
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'reviewer', mode: 'REVIEW' });
    const todo = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0].id;
    const last = await lastEventId();
    for (const [tool, input] of [
      ['issues.update', { id: issue.id, title: 'changed' }],
      ['issues.transition', { id: issue.id, statusId: todo }],
      ['issues.assign', { id: issue.id, profileKey: 'coder' }],
      ['issues.reassign', { issueId: issue.id, toProfileKey: 'coder', rationale: 'handing this back' }],
      ['issues.addLabels', { id: issue.id, labelIds: [label] }],
      ['issues.removeLabels', { id: issue.id, labelIds: [label] }],
      ['issues.queue', { id: issue.id }],
      ['issues.delete', { id: issue.id }],
      ['issues.updateMany', { items: [{ id: issue.id, priority: 'HIGH' }] }],
    ] as const) {
      const r = await rest(t, reviewerKey.token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body.error, tool).toBe('run_mode_gated');
    }
    // Spec 3.2: issue-linked artifact writes and action-request acceptance are issue mutations too.
    const request = await ok(t, ws.token, 'actionRequests.create', { title: 'Ship it?', issueId: issue.id, kind: 'FREE_FORM', assignedAgentId: reviewer.id });
    for (const [tool, input] of [
      ['attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://example.com/x', linkTitle: 'x' }],
      ['attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 3 }],
      ['actionRequests.accept', { id: request.id }],
      ['actionRequests.decline', { id: request.id }],
    ] as const) {
      const r = await rest(t, reviewerKey.token, tool, input);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'run_mode_gated']);
    }
    const linked = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://example.com/y', linkTitle: 'y' });
    const del = await rest(t, reviewerKey.token, 'attachments.delete', { id: linked.id });
    expect([del.status, del.body.error]).toEqual([403, 'run_mode_gated']);
    // Allowed: comments and the rolling status; other agents and people are not gated.
    await ok(t, reviewerKey.token, 'comments.create', { issueId: issue.id, body: 'LGTM so far' });
    await ok(t, reviewerKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'reviewing' });
    expect((await ok(t, coderKey.token, 'issues.update', { id: issue.id, priority: 'LOW' })).priority).toBe('LOW');
    // A WAITING run still gates; a completed one does not.
    await t.pools.owner.query(`update app_public.agent_runs set status = 'WAITING' where issue_id = $1 and status = 'ACTIVE'`, [issue.id]);
    expect((await rest(t, reviewerKey.token, 'issues.update', { id: issue.id, title: 'x' })).status).toBe(403);
    await t.pools.owner.query(`update app_public.agent_runs set status = 'COMPLETED' where issue_id = $1`, [issue.id]);
    expect((await ok(t, reviewerKey.token, 'issues.update', { id: issue.id, title: 'reviewed' })).title).toBe('reviewed');
  });

  it('EXECUTE runs are not gated', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Execute' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder' });
    expect((await ok(t, coderKey.token, 'issues.update', { id: issue.id, title: 'done by coder' })).title).toBe('done by coder');
  });
});

describe('watch family', () => {
  it('agent keys watch as the agent, person keys as the user; idempotent; listWatchers and listWatching', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Watch me' });
    const w1 = await ok(t, coderKey.token, 'issues.watch', { issueId: issue.key });
    expect(w1).toMatchObject({ issueId: issue.id, watching: true, watcher: { type: 'agent', id: coder.id } });
    await ok(t, coderKey.token, 'issues.watch', { issueId: issue.id });
    const w2 = await ok(t, ws.token, 'issues.watch', { issueId: issue.id });
    expect(w2.watcher.type).toBe('user');
    const watchers = await ok(t, ws.token, 'issues.listWatchers', { issueId: issue.id });
    expect(watchers.items).toHaveLength(2);
    expect(watchers.items[0]).toMatchObject({ type: 'agent', agent: { id: coder.id, profileKey: 'coder', name: 'coder' }, user: null });
    expect(watchers.items[1]).toMatchObject({ type: 'user', user: { email: ws.ownerEmail }, agent: null });
    const page = await ok(t, ws.token, 'issues.listWatchers', { issueId: issue.id, limit: 1 });
    expect(page.items).toHaveLength(1);
    const rest2 = await ok(t, ws.token, 'issues.listWatchers', { issueId: issue.id, limit: 1, cursor: page.nextCursor });
    expect(rest2.items[0].id).toBe(watchers.items[1].id);
    expect(rest2.nextCursor).toBeNull();

    expect((await ok(t, coderKey.token, 'issues.listWatching', {})).items.map((i: { id: string }) => i.id)).toContain(issue.id);
    const reviewerWatching = await ok(t, reviewerKey.token, 'issues.listWatching', {});
    expect(reviewerWatching.items.map((i: { id: string }) => i.id)).not.toContain(issue.id);

    expect(await ok(t, coderKey.token, 'issues.unwatch', { issueId: issue.id })).toEqual({ issueId: issue.id, watching: false });
    await ok(t, coderKey.token, 'issues.unwatch', { issueId: issue.id });
    expect((await ok(t, ws.token, 'issues.listWatchers', { issueId: issue.id })).items.map((w: { type: string }) => w.type)).toEqual(['user']);
    expect((await ok(t, coderKey.token, 'issues.listWatching', {})).items.map((i: { id: string }) => i.id)).not.toContain(issue.id);
  });

  it('bad input 400; other workspace and narrowed-away issues 404', async () => {
    expect((await rest(t, ws.token, 'issues.watch', {})).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.listWatchers', { issueId: 'ENG-1', limit: 0 })).status).toBe(400);
    expect((await rest(t, ws.token, 'issues.listWatching', { cursor: 'bad' })).status).toBe(400);
    const foreign = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    for (const tool of ['issues.watch', 'issues.unwatch', 'issues.listWatchers']) {
      expect((await rest(t, ws.token, tool, { issueId: foreign.id })).status, tool).toBe(404);
    }
    const inB = await ok(t, ws.token, 'issues.create', { title: 'B', projectId: projectB });
    await ok(t, ws.token, 'issues.watch', { issueId: inB.id });
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [projectA] });
    expect((await rest(t, narrowed.token, 'issues.watch', { issueId: inB.id })).status).toBe(404);
    expect((await ok(t, narrowed.token, 'issues.listWatching', {})).items.map((i: { id: string }) => i.id)).not.toContain(inB.id);
  });
});

describe('issues.get include', () => {
  it('adds comments (newest first, limit, deleted hidden), attachments, relations, currentRun, labels and description', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Bundle', description: 'desc' });
    const blocker = await ok(t, ws.token, 'issues.create', { title: 'Blocker' });
    for (let i = 0; i < 3; i++) await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: `c${i}` });
    const gone = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'to delete' });
    await ok(t, ws.token, 'comments.delete', { id: gone.id });
    await t.pools.owner.query(
      `insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind) values ($1, $2, $3, 'BLOCKS')`, [ws.id, blocker.id, issue.id]);
    await t.pools.owner.query(
      `insert into app_public.attachments (workspace_id, kind, target_type, target_id, external_url, link_title, mime_type) values ($1, 'LINK', 'issue', $2, 'https://example.com', 'Example', 'text/url')`, [ws.id, issue.id]);

    const lean = await ok(t, ws.token, 'issues.get', { id: issue.id });
    for (const k of ['comments', 'attachments', 'relations', 'currentRun', 'description']) expect(lean).not.toHaveProperty(k);

    const full = await ok(t, ws.token, 'issues.get', { id: issue.id, include: {
      description: true, comments: true, attachments: true, relations: true, currentRun: true, labels: true } });
    expect(full.description).toBe('desc');
    expect(full.comments.map((c: { body: string }) => c.body)).toEqual(['c2', 'c1', 'c0']);
    expect(full.attachments).toEqual([expect.objectContaining({ kind: 'LINK', externalUrl: 'https://example.com', mimeType: 'text/url', size: 0 })]);
    expect(full.relations).toEqual([expect.objectContaining({ kind: 'BLOCKED_BY', direction: 'inbound', issue: expect.objectContaining({ id: blocker.id }) })]);
    expect(full.currentRun).toBeNull();
    expect(full.labels).toEqual([]);
    const fromBlocker = await ok(t, ws.token, 'issues.get', { id: blocker.id, include: { relations: true } });
    expect(fromBlocker.relations[0]).toMatchObject({ kind: 'BLOCKS', direction: 'outbound' });

    const limited = await ok(t, ws.token, 'issues.get', { id: issue.id, include: { comments: { limit: 2 } } });
    expect(limited.comments.map((c: { body: string }) => c.body)).toEqual(['c2', 'c1']);
    // How many there are in all, so a reader knows the newest two are not all of them.
    expect([full.commentCount, limited.commentCount]).toEqual([3, 3]);
    expect(await ok(t, ws.token, 'agent.context.bundle', { issueId: issue.id })).toMatchObject({ commentCount: 3 });
    expect((await rest(t, ws.token, 'issues.get', { id: issue.id, include: { comments: { limit: 101 } } })).status).toBe(400);
    // A bad limit inside the object form is named where it is, not as the union's bare "Invalid input".
    for (const limit of [1.5, '5', null]) {
      const bad = await rest(t, ws.token, 'issues.get', { id: issue.id, include: { comments: { limit } } });
      expect([bad.status, Object.keys(bad.body.issues)]).toEqual([400, ['include.comments.limit']]);
    }
    expect(Object.keys((await rest(t, ws.token, 'issues.get', { id: issue.id, include: { comments: 'yes' } })).body.issues)).toEqual(['include.comments']);
    expect((await rest(t, ws.token, 'issues.get', { id: issue.id, include: { everything: true } })).status).toBe(400);

    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder', mode: 'RESEARCH' });
    const withRun = await ok(t, ws.token, 'issues.get', { id: issue.id, include: { currentRun: true } });
    expect(withRun.currentRun).toMatchObject({ agentId: coder.id, status: 'ACTIVE', engagementMode: 'RESEARCH', agent: { profileKey: 'coder' } });
    await t.pools.owner.query(`update app_public.agent_runs set status = 'COMPLETED' where issue_id = $1`, [issue.id]);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id, include: { currentRun: true } })).currentRun).toBeNull();
  });
});

describe('issues.list filters', () => {
  it('filters by parentId (id or key, null = top level), open, and rejects unknown parents', async () => {
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Epic' });
    const child = await ok(t, ws.token, 'issues.create', { title: 'Child', parentId: parent.key });
    const ids = async (input: object) => (await ok(t, ws.token, 'issues.list', { limit: 200, ...input })).items.map((i: { id: string }) => i.id);
    expect(await ids({ parentId: parent.key })).toEqual([child.id]);
    expect(await ids({ parentId: parent.id })).toEqual([child.id]);
    expect(await ids({ parentId: null })).not.toContain(child.id);
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0].id;
    await ok(t, ws.token, 'issues.transition', { id: child.id, statusId: done });
    expect(await ids({ open: true })).not.toContain(child.id);
    expect(await ids({ open: false })).toContain(child.id);
    expect((await rest(t, ws.token, 'issues.list', { parentId: 'NOPE-9' })).status).toBe(404);
    expect((await rest(t, ws.token, 'issues.list', { claimedById: 'x' })).status).toBe(400);
  });
});
