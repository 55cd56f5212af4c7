/** runs.recordUsage / complete / setWaiting / resumeWork / list / kick, and the stale-run sweep. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { openSse } from '../support/sse.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let receiver: Receiver;
let coder: { id: string };
let coderKey: { token: string };
let helperKey: { token: string };
const SCOPES = ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] as const;

/** A fresh issue assigned to `profileKey` in `mode`; returns the issue and its run id. */
async function assigned(title: string, mode = 'EXECUTE', extra: object = {}, profileKey = 'coder') {
  const issue = await ok(t, ws.token, 'issues.create', { title, ...extra });
  const a = await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey, mode });
  return { issue, runId: a.currentRun.id as string };
}
const quiet = (runId: string, minutes: number) =>
  t.pools.owner.query(`update app_public.agent_runs set last_event_at = now() - make_interval(mins => $2) where id = $1`, [runId, minutes]);
const runEvents = async (issueId: string, kind: string) =>
  ((await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issueId, kinds: [kind] })).items as any[]).reverse();

beforeAll(async () => {
  t = await startTestApp({ worker: { backoffSeconds: [0.1], timeoutMs: 2000 } });
  receiver = await startReceiver();
  ws = await createWorkspace(t, 'RUN');
  other = await createWorkspace(t, 'RUO');
  coder = await createAgent(t, ws, 'coder', { 'webhook-url': `${receiver.url}/coder` });
  await createAgent(t, ws, 'helper');
  coderKey = await createKey(t, ws, { agent: 'coder', scopes: [...SCOPES] });
  helperKey = await createKey(t, ws, { agent: 'helper', scopes: [...SCOPES] });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('runs.recordUsage', () => {
  it('latest call replaces (cumulative), costUsd verbatim; only the run\'s agent; bad input; other workspace', async () => {
    const { runId } = await assigned('Usage');
    await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 100, tokensOut: 50, costUsd: 0.1 });
    const r = await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 250, tokensCached: 7, costUsd: 0.123456789012 });
    expect(r).toMatchObject({ id: runId, tokensIn: 250, tokensOut: 50, tokensCached: 7, costUsd: 0.123456789012 });
    expect((await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 250 })).tokensIn).toBe(250);
    expect((await rest(t, helperKey.token, 'runs.recordUsage', { runId, tokensIn: 1 })).body).toMatchObject({ error: 'not_run_agent' });
    expect((await rest(t, ws.token, 'runs.recordUsage', { runId, tokensIn: 1 })).status).toBe(403);
    expect((await rest(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: -1 })).body.issues).toHaveProperty('tokensIn');
    // A million dollars at most (a goal's budget is capped the same): 1e300 is a mistake, not a bill.
    expect((await rest(t, coderKey.token, 'runs.recordUsage', { runId, costUsd: 1e300 })).body.issues).toHaveProperty('costUsd');
    expect((await rest(t, coderKey.token, 'runs.recordUsage', { runId: 'x' })).body.issues).toHaveProperty('runId');
    const readOnly = await createKey(t, ws, { agent: 'coder', scopes: ['READ_ISSUES'] });
    expect((await rest(t, readOnly.token, 'runs.recordUsage', { runId })).body).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES' });
    expect((await rest(t, other.token, 'runs.recordUsage', { runId })).status).toBe(404);
    const rpcCall = await rpc(t, coderKey.token, 'tools/call', { name: 'runs.recordUsage', arguments: { runId, tokensOut: 60 } });
    expect(rpcCall.body.result.structuredContent).toMatchObject({ tokensOut: 60 });
  });

  it('currentStep: what an open run is doing now, shown by runs.get, runs.list and agents.workload; null clears; one line; not on a closed run', async () => {
    const { runId } = await assigned('Steps');
    const r = await ok(t, coderKey.token, 'runs.recordUsage', { runId, currentStep: '  Running the test suite ' });
    expect(r).toMatchObject({ id: runId, currentStep: 'Running the test suite', tokensIn: 0 });
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).currentStep).toBe('Running the test suite');
    expect((await ok(t, ws.token, 'runs.list', { agentId: coder.id })).items.find((x: any) => x.id === runId).currentStep).toBe('Running the test suite');
    const workload = await ok(t, ws.token, 'agents.workload', {});
    expect(workload.agents.find((a: any) => a.id === coder.id).currentRun).toMatchObject({ id: runId, currentStep: 'Running the test suite' });
    // Usage alone leaves the step; null clears it.
    expect((await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 5 })).currentStep).toBe('Running the test suite');
    expect((await ok(t, coderKey.token, 'runs.recordUsage', { runId, currentStep: null })).currentStep).toBeNull();
    for (const bad of ['two\nlines', '', 'x'.repeat(201), 'evil\u202etxt']) {
      const res = await rest(t, coderKey.token, 'runs.recordUsage', { runId, currentStep: bad });
      expect(res.status).toBe(400);
      expect(res.body.issues).toHaveProperty('currentStep');
    }
    expect((await rest(t, helperKey.token, 'runs.recordUsage', { runId, currentStep: 'not mine' })).status).toBe(403);
    await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'done' });
    const closed = await rest(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 9, currentStep: 'late' });
    expect(closed.status).toBe(409);
    expect(closed.body).toMatchObject({ error: 'run_closed' });
    // Nothing of the refused call was written.
    expect(await ok(t, ws.token, 'runs.get', { id: runId })).toMatchObject({ currentStep: null, tokensIn: 5 });
  });
});

describe('runs.recordUsage writes AGENT_RUN_UPDATED', () => {
  const usageEvents = async (token: string, runId: string) =>
    ((await ok(t, token, 'events.recent', { subjectType: 'agent-run', subjectId: runId, kinds: ['AGENT_RUN_UPDATED'] })).items as any[]).reverse();

  it('when a figure or the step changed, naming them; a repeated report writes none; narrowing follows the issue', async () => {
    const project = await ok(t, ws.token, 'projects.create', { name: 'Usage events' });
    const { issue, runId } = await assigned('Usage events', 'EXECUTE', { projectId: project.id });
    await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 100, costUsd: 0.5, currentStep: 'Reading' });
    await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 100, costUsd: 0.5 });  // nothing new
    await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensOut: 40 });
    const events = await usageEvents(ws.token, runId);
    expect(events.map((e) => e.payload.changes)).toEqual([['tokensIn', 'costUsd', 'currentStep'], ['tokensOut']]);
    expect(events[1]).toMatchObject({ kind: 'AGENT_RUN_UPDATED', subjectType: 'agent-run', subjectId: runId, payload: {
      runId, agentId: coder.id, issueId: issue.id, status: 'ACTIVE', tokensIn: 100, tokensOut: 40, tokensCached: 0, costUsd: 0.5, currentStep: 'Reading' } });
    // The issue's own events are not filled with usage reports.
    const issueKinds = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id })).items.map((e: any) => e.kind);
    expect(issueKinds).not.toContain('AGENT_RUN_UPDATED');
    // A key narrowed to the run's project sees them; one narrowed elsewhere and another workspace do not.
    const elsewhere = await ok(t, ws.token, 'projects.create', { name: 'Elsewhere' });
    const inside = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [project.id] });
    const outside = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [elsewhere.id] });
    expect(await usageEvents(inside.token, runId)).toHaveLength(2);
    expect(await usageEvents(outside.token, runId)).toHaveLength(0);
    expect(await usageEvents(other.token, runId)).toHaveLength(0);
    // A refused report writes no event.
    await rest(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: -1 });
    await rest(t, helperKey.token, 'runs.recordUsage', { runId, tokensIn: 7 });
    expect(await usageEvents(ws.token, runId)).toHaveLength(2);
  });
});

describe('runs.setWaiting / resumeWork', () => {
  it('ACTIVE → WAITING → ACTIVE with AGENT_RUN_STATUS_CHANGED; 403 for other keys; 409 once closed', async () => {
    const { issue, runId } = await assigned('Wait');
    expect((await ok(t, coderKey.token, 'runs.setWaiting', { runId, reason: 'needs input' })).status).toBe('WAITING');
    expect((await ok(t, coderKey.token, 'runs.setWaiting', { runId })).status).toBe('WAITING');
    expect((await ok(t, coderKey.token, 'runs.resumeWork', { runId })).status).toBe('ACTIVE');
    const changes = await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED');
    expect(changes.map((e) => [e.payload.from, e.payload.to, e.payload.reason])).toEqual([['ACTIVE', 'WAITING', 'needs input'], ['WAITING', 'ACTIVE', 'resumed']]);
    expect(changes[0].payload).toMatchObject({ runId, agentId: coder.id, issueId: issue.id, engagementMode: 'EXECUTE' });
    expect((await rest(t, helperKey.token, 'runs.setWaiting', { runId })).status).toBe(403);
    expect((await rest(t, helperKey.token, 'runs.resumeWork', { runId })).status).toBe(403);
    expect((await rest(t, coderKey.token, 'runs.setWaiting', { runId, extra: 1 })).body.issues).toHaveProperty('extra');
    await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'done' });
    expect((await rest(t, coderKey.token, 'runs.setWaiting', { runId })).body).toMatchObject({ error: 'run_closed' });
    expect((await rest(t, coderKey.token, 'runs.resumeWork', { runId })).status).toBe(409);
    expect((await rest(t, coderKey.token, 'runs.setWaiting', { runId })).body.message).toBe('This run is completed; you have no open run on this issue');
  });

  it('run_closed names the agent\'s open run on the issue: unassigned and assigned again, it reported on the old id', async () => {
    const { issue, runId } = await assigned('Again');
    await ok(t, ws.token, 'issues.unassign', { id: issue.id });
    const again = (await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: coder.id })).currentRun.id;
    expect(again).not.toBe(runId);
    const stale = await rest(t, coderKey.token, 'runs.setWaiting', { runId });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: 'run_closed', message: `This run is abandoned; your open run on this issue is ${again}` });
    const usage = await rest(t, coderKey.token, 'runs.recordUsage', { runId, currentStep: 'still here' });
    expect(usage.body.message).toBe(`This run is abandoned; your open run on this issue is ${again}; only an open run has a current step`);
  });

  it('a RESEARCH run may wait and complete although issue mutations are gated', async () => {
    const { issue, runId } = await assigned('Research', 'RESEARCH');
    expect((await rest(t, coderKey.token, 'issues.update', { id: issue.id, title: 'nope' })).body.error).toBe('run_mode_gated');
    expect((await ok(t, coderKey.token, 'runs.setWaiting', { runId })).status).toBe('WAITING');
    const bad = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 'found it' });
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toHaveProperty('confidence');
    const done = await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'found it', confidence: 'HIGH' });
    expect(done).toMatchObject({ status: 'COMPLETED', completionMeta: { contractVersion: '2026-11-01', summary: 'found it', confidence: 'HIGH' } });
  });

  it('a gated run covers the issue\'s links and sub-issues: relations.add/remove on either end, a sub-issue created under it or moved in or out', async () => {
    const { issue } = await assigned('Researched, not rewired', 'RESEARCH');
    const other = await ok(t, ws.token, 'issues.create', { title: 'Elsewhere' });
    const child = await ok(t, ws.token, 'issues.create', { title: 'Child', parentId: issue.id });
    const link = await ok(t, ws.token, 'relations.add', { fromIssueId: other.id, toIssueId: issue.id, kind: 'RELATES_TO' });
    const refused = async (tool: string, args: object) => {
      const r = await rest(t, coderKey.token, tool, args);
      expect([tool, r.status, r.body.error]).toEqual([tool, 403, 'run_mode_gated']);
    };
    // The refusal names the gated issue (the call named another one).
    expect((await rest(t, coderKey.token, 'issues.update', { id: other.id, parentId: issue.id })).body.message).toContain(`run on ${issue.key} may not change it`);
    await refused('relations.add', { fromIssueId: issue.id, toIssueId: other.id, kind: 'DUPLICATES' });
    await refused('relations.add', { fromIssueId: other.id, toIssueId: issue.id, kind: 'BLOCKS' });
    await refused('relations.remove', { id: link.id });
    await refused('issues.create', { title: 'Sub-task', parentId: issue.id });
    await refused('issues.update', { id: other.id, parentId: issue.id });
    await refused('issues.update', { id: child.id, parentId: null });
    await refused('issues.update', { id: child.id, parentId: other.id });
    // Nothing was written: the link stands, no sub-issue was added, the child stays.
    expect((await ok(t, ws.token, 'relations.listForIssue', { issueId: issue.id })).map((r: { id: string }) => r.id)).toEqual([link.id]);
    expect((await ok(t, ws.token, 'issues.list', { parentId: issue.id })).items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    // Issues the run is not on stay the agent's to change.
    const third = await ok(t, ws.token, 'issues.create', { title: 'Third' });
    expect((await ok(t, coderKey.token, 'relations.add', { fromIssueId: other.id, toIssueId: third.id, kind: 'RELATES_TO' })).created).toBe(true);
    expect((await ok(t, coderKey.token, 'issues.update', { id: third.id, parentId: other.id })).parentId).toBe(other.id);
  });

  it('a gated issue is not changed around the tools either: statuses deleted, labels merged or deleted, its parent or sub-issue deleted or restored', async () => {
    const adminCoder = await createKey(t, ws, { agent: 'coder' }); // every scope (ADMIN too), as the probe's agent key
    const triage = await ok(t, ws.token, 'statuses.create', { name: 'Gated triage', category: 'TODO' });
    const done = (await ok(t, ws.token, 'statuses.list', {})).find((x: { category: string }) => x.category === 'DONE');
    const [bug, defect] = [await ok(t, ws.token, 'labels.create', { name: 'gated-bug' }), await ok(t, ws.token, 'labels.create', { name: 'gated-defect' })];
    const parent = await ok(t, ws.token, 'issues.create', { title: 'Parent of the gated one' });
    const { issue } = await assigned('Gated around the tools', 'RESEARCH', { statusId: triage.id, labelIds: [bug.id], parentId: parent.id });
    const child = await ok(t, ws.token, 'issues.create', { title: 'Sub-issue of the gated one', parentId: issue.id });
    const refused = async (tool: string, args: object) => {
      const r = await rest(t, adminCoder.token, tool, args);
      expect([tool, r.status, r.body.error], JSON.stringify(r.body)).toEqual([tool, 403, 'run_mode_gated']);
      expect(r.body.message).toContain(issue.key);
    };
    await refused('statuses.delete', { id: triage.id, moveIssuesTo: done.id });
    await refused('labels.merge', { fromId: bug.id, intoId: defect.id });
    await refused('labels.delete', { id: bug.id });
    await refused('issues.delete', { id: parent.id });
    await refused('issues.delete', { id: child.id });
    await ok(t, ws.token, 'issues.delete', { id: child.id });
    await refused('issues.restore', { id: child.id });
    // Nothing moved: status, labels, parent as they were.
    expect(await ok(t, ws.token, 'issues.get', { id: issue.id })).toMatchObject({ statusId: triage.id, labelIds: [bug.id], parentId: parent.id });
  });

  it('a claim is a person\'s: an agent\'s key does not claim (it claimed as the user who made the key), nor release a person\'s live claim', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Claimed by a person' });
    const claim = await rest(t, coderKey.token, 'issues.claim', { id: issue.id });
    expect([claim.status, claim.body.error]).toEqual([403, 'person_required']);
    await ok(t, ws.token, 'issues.claim', { id: issue.id });
    const release = await rest(t, coderKey.token, 'issues.release', { id: issue.id });
    expect([release.status, release.body.error]).toEqual([403, 'not_claimer']);
    const listed = await rpc(t, coderKey.token, 'tools/list', {}, '?profile=full');
    const names = [];
    for (let page = listed.body.result; ; ) {
      names.push(...page.tools.map((x: { name: string }) => x.name));
      if (!page.nextCursor) break;
      page = (await rpc(t, coderKey.token, 'tools/list', { cursor: page.nextCursor }, '?profile=full')).body.result;
    }
    expect(names).toContain('issues.release');
    expect(names).not.toContain('issues.claim');
  });

  it('an upload begun in an EXECUTE run is not finalized onto the issue once a REVIEW run gates it', async () => {
    const { issue, runId } = await assigned('Upload, then review');
    const up = await ok(t, coderKey.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'log.txt',
      mimeType: 'text/plain', sizeBytes: 4 });
    await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'done' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'coder', mode: 'REVIEW' });
    const r = await rest(t, coderKey.token, 'attachments.finalize', { key: up.key });
    expect([r.status, r.body.error]).toEqual([403, 'run_mode_gated']);
  });
});

describe('runs.complete', () => {
  it('EXECUTE: artifact and checklist gates; completionMeta keeps the contract version; finishedAt set', async () => {
    const { issue, runId } = await assigned('Ship it', 'EXECUTE', {
      artifactRequired: true, verificationChecklist: [{ id: 'tests', label: 'Tests pass', done: false }, { id: 'docs', label: 'Docs', done: false }],
    });
    const noArtifact = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's' });
    expect(noArtifact.body.issues).toHaveProperty('producedArtifactIds');
    const link = await ok(t, coderKey.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id,
      externalUrl: 'https://example.com/pr/1', linkTitle: 'PR 1' });
    const partial = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's', producedArtifactIds: [link.id],
      verificationResult: [{ id: 'tests', done: true }, { id: 'docs', done: false }] });
    expect(partial.status).toBe(400);
    expect(partial.body.issues.verificationResult).toContain('docs');
    // An artifact is an attachment of the issue: any other string, or an attachment of another issue, is refused.
    const elsewhere = await ok(t, ws.token, 'issues.create', { title: 'Elsewhere' });
    const foreign = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: elsewhere.id, externalUrl: 'https://example.com/x' });
    for (const bad of ['a1', foreign.id, crypto.randomUUID()]) {
      const r = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's', producedArtifactIds: [link.id, bad],
        verificationResult: [{ id: 'tests', done: true }, { id: 'docs', done: true }] });
      expect([r.status, Object.keys(r.body.issues ?? {})], bad).toEqual([400, ['producedArtifactIds.1']]);
    }
    const done = await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'shipped', producedArtifactIds: [link.id],
      verificationResult: [{ id: 'tests', done: true }, { id: 'docs', done: true, note: 'README' }], followUps: ['polish'] });
    expect(done).toMatchObject({ status: 'COMPLETED', finishedAt: expect.any(String), completionMeta: {
      contractVersion: '2026-11-01', summary: 'shipped', producedArtifactIds: [link.id], followUps: ['polish'] } });
    // What was reported done is done on the issue, with its ISSUE_UPDATED.
    expect((await ok(t, ws.token, 'agent.context.bundle', { issueId: issue.id })).issue.verificationChecklist)
      .toEqual([{ id: 'tests', label: 'Tests pass', done: true }, { id: 'docs', label: 'Docs', done: true }]);
    expect((await runEvents(issue.id, 'ISSUE_UPDATED')).at(-1).payload.changes).toContain('verificationChecklist');
    // The next agent's bundle lists what this run produced, each with its attachment.
    const bundle = await ok(t, ws.token, 'agent.context.bundle', { issueId: issue.id });
    expect(bundle.artifacts).toEqual([
      expect.objectContaining({ id: link.id, runId, attachment: expect.objectContaining({ id: link.id, linkTitle: 'PR 1' }) }),
    ]);
    expect((await rest(t, coderKey.token, 'runs.complete', { runId, summary: 'again' })).body.error).toBe('run_closed');
    expect((await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED')).at(-1).payload).toMatchObject({ from: 'ACTIVE', to: 'COMPLETED' });
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id, include: { currentRun: true } })).currentRun).toBeNull();
  });

  it('REVIEW needs a verdict; DISCUSS takes a summary only; summary required; only the run\'s agent', async () => {
    const review = await assigned('Review', 'REVIEW');
    expect((await rest(t, coderKey.token, 'runs.complete', { runId: review.runId, summary: 'ok' })).body.issues).toHaveProperty('verdict');
    expect((await rest(t, coderKey.token, 'runs.complete', { runId: review.runId, summary: 'ok', verdict: 'MEH' })).body.issues).toHaveProperty('verdict');
    expect((await rest(t, helperKey.token, 'runs.complete', { runId: review.runId, summary: 'ok', verdict: 'APPROVE' })).status).toBe(403);
    expect((await ok(t, coderKey.token, 'runs.complete', { runId: review.runId, summary: 'ok', verdict: 'REQUEST_CHANGES' })).completionMeta.verdict).toBe('REQUEST_CHANGES');
    // A verdict is a review's: an EXECUTE or RESEARCH run refuses one (it stored `verdict: APPROVE` on an EXECUTE run).
    const execute = await assigned('Execute, not approve');
    const research = await assigned('Research, not approve', 'RESEARCH');
    for (const [runId, extra] of [[execute.runId, {}], [research.runId, { confidence: 'HIGH' }]] as const) {
      const r = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 'done', verdict: 'APPROVE', ...extra });
      expect([r.status, Object.keys(r.body.issues ?? {})]).toEqual([400, ['verdict']]);
    }
    expect((await ok(t, coderKey.token, 'runs.complete', { runId: research.runId, summary: 'done', confidence: 'HIGH' })).completionMeta.verdict).toBeUndefined();
    const discuss = await assigned('Discuss', 'DISCUSS');
    expect((await rest(t, coderKey.token, 'runs.complete', { runId: discuss.runId, summary: 'x', confidence: 'LOW' })).body.issues).toHaveProperty('confidence');
    expect((await rest(t, coderKey.token, 'runs.complete', { runId: discuss.runId })).body.issues).toHaveProperty('summary');
    expect((await ok(t, coderKey.token, 'runs.complete', { runId: discuss.runId, summary: 'talked' })).status).toBe('COMPLETED');
  });
});

describe('runs.complete: checklist items reported by label', () => {
  it('an entry without an id matches the item with that label (exact, after trimming); a wrong label or case still fails', async () => {
    const { runId } = await assigned('By label', 'EXECUTE', {
      verificationChecklist: [{ id: 't1', label: 'Tests pass', done: false }, { id: 'd1', label: 'Docs', done: false }],
    });
    const wrongCase = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's',
      verificationResult: [{ label: 'tests pass', done: true }, { label: 'Docs', done: true }] });
    expect([wrongCase.status, wrongCase.body.issues?.verificationResult]).toEqual([400, expect.stringMatching(/missing: t1$/)]);
    const notDone = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's',
      verificationResult: [{ label: 'Tests pass', done: true }, { label: 'Docs', done: false }] });
    expect(notDone.body.issues?.verificationResult).toMatch(/missing: d1$/);
    // An entry with an id is matched by its id only (its label is not a second chance).
    const byWrongId = await rest(t, coderKey.token, 'runs.complete', { runId, summary: 's',
      verificationResult: [{ id: 'nope', label: 'Tests pass', done: true }, { id: 'd1', done: true }] });
    expect(byWrongId.body.issues?.verificationResult).toMatch(/missing: t1$/);
    const done = await ok(t, coderKey.token, 'runs.complete', { runId, summary: 'by label',
      verificationResult: [{ label: 'Tests pass', done: true }, { label: '  Docs ', done: true }] });
    expect(done).toMatchObject({ status: 'COMPLETED', completionMeta: { verificationResult: [{ label: 'Tests pass' }, { label: '  Docs ' }] } });
  });
});

describe('runs moving to ABANDONED write AGENT_RUN_STATUS_CHANGED', () => {
  it('issues.reassign (reason reassigned), a re-decomposed plan (plan_canceled); same payload shape as the other moves', async () => {
    const { issue, runId } = await assigned('Hand over');
    await ok(t, coderKey.token, 'runs.setWaiting', { runId });
    await ok(t, coderKey.token, 'issues.reassign', { issueId: issue.id, toProfileKey: 'helper', rationale: 'helper knows this code' });
    const changes = await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED');
    expect(changes.map((e) => [e.payload.runId, e.payload.from, e.payload.to, e.payload.reason])).toEqual([
      [runId, 'ACTIVE', 'WAITING', null], [runId, 'WAITING', 'ABANDONED', 'reassigned']]);
    expect(Object.keys(changes[1].payload).sort()).toEqual(Object.keys(changes[0].payload).sort());
    expect(changes[1].payload).toMatchObject({ agentId: coder.id, issueId: issue.id, engagementMode: 'EXECUTE' });
    expect((await ok(t, ws.token, 'runs.list', { issueId: issue.id, agentId: coder.id })).items[0].status).toBe('ABANDONED');

    // A step run on the goal's issue is abandoned when the plan is decomposed again.
    const goalIssue = await ok(t, ws.token, 'issues.create', { title: 'Goal issue' });
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Re-plan me', issueId: goalIssue.id });
    const dec = await ok(t, ws.token, 'plans.decompose', { goalId: goal.id, plannerAgentId: coder.id });
    await ok(t, ws.token, 'plans.addSteps', { planId: dec.planId, steps: [{ title: 'Work', assignedAgentId: coder.id }] });
    await ok(t, ws.token, 'plans.activate', { planId: dec.planId });
    const stepRun = (await ok(t, ws.token, 'runs.list', { issueId: goalIssue.id, status: 'ACTIVE' })).items[0];
    expect(stepRun).toBeDefined();
    await ok(t, ws.token, 'plans.decompose', { goalId: goal.id, plannerAgentId: coder.id });
    const abandoned = (await runEvents(goalIssue.id, 'AGENT_RUN_STATUS_CHANGED')).filter((e) => e.payload.runId === stepRun.id);
    expect(abandoned.map((e) => [e.payload.from, e.payload.to, e.payload.reason])).toEqual([['ACTIVE', 'ABANDONED', 'plan_canceled']]);
    expect(Object.keys(abandoned[0].payload).sort()).toEqual(Object.keys(changes[0].payload).sort());
  });
});

describe('runs.list', () => {
  it('newest first with issue and agent; filters; paging; narrowed keys see runs on their issues only', async () => {
    const { rows: [project] } = await t.pools.owner.query("insert into app_public.projects (workspace_id, name) values ($1, 'Narrow') returning id", [ws.id]);
    const inside = await assigned('Inside', 'EXECUTE', { projectId: project.id }, 'helper');
    const all = await ok(t, ws.token, 'runs.list', {});
    expect(all.items[0]).toMatchObject({ id: inside.runId, status: 'ACTIVE', currentStep: null, startedAt: expect.any(String), finishedAt: null,
      lastEventAt: expect.any(String), tokensIn: 0, tokensOut: 0, tokensCached: 0, costUsd: 0,
      issue: { id: inside.issue.id, number: inside.issue.number, title: 'Inside', workspace: { key: 'RUN' } },
      agent: { profileKey: 'helper' } });
    const started = all.items.map((r: any) => Date.parse(r.startedAt));
    expect([...started].sort((a, b) => b - a)).toEqual(started);
    expect((await ok(t, ws.token, 'runs.list', { agentId: coder.id })).items.every((r: any) => r.agentId === coder.id)).toBe(true);
    expect((await ok(t, ws.token, 'runs.list', { issueId: inside.issue.key })).items.map((r: any) => r.id)).toEqual([inside.runId]);
    expect((await ok(t, ws.token, 'runs.list', { status: 'COMPLETED' })).items.every((r: any) => r.status === 'COMPLETED')).toBe(true);
    const p1 = await ok(t, ws.token, 'runs.list', { limit: 2 });
    const p2 = await ok(t, ws.token, 'runs.list', { limit: 2, before: p1.nextCursor });
    expect(p2.items.map((r: any) => r.id)).toEqual(all.items.slice(2, 4).map((r: any) => r.id));
    expect((await rest(t, ws.token, 'runs.list', { status: 'DONE' })).body.issues).toHaveProperty('status');
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [project.id] });
    expect((await ok(t, narrowed.token, 'runs.list', {})).items.map((r: any) => r.id)).toEqual([inside.runId]);
    expect((await ok(t, other.token, 'runs.list', {})).items).toEqual([]);
    const noRead = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    expect((await rest(t, noRead.token, 'runs.list', {})).body.scope).toBe('READ_ISSUES');
  });
});

describe('runs.kick', () => {
  it('ACTIVE and quiet 5+ minutes: AGENT_RUN_KICKED (events.recent, webhook) and a re-fired dispatch delivery; otherwise kicked false', async () => {
    const { issue, runId } = await assigned('Kick me');
    expect(await ok(t, ws.token, 'runs.kick', { runId })).toMatchObject({ ok: true, kicked: false });
    await quiet(runId, 6);
    const before = (await t.pools.owner.query('select last_event_at from app_public.agent_runs where id = $1', [runId])).rows[0].last_event_at;
    const k = await ok(t, ws.token, 'runs.kick', { runId });
    expect(k).toMatchObject({ ok: true, kicked: true, runId, status: 'ACTIVE' });
    const kicked = await runEvents(issue.id, 'AGENT_RUN_KICKED');
    expect(kicked).toHaveLength(1);
    expect(kicked[0]).toMatchObject({ id: k.eventId, subjectType: 'issue', payload: { runId, agentId: coder.id, issueId: issue.id, quietMinutes: 6 } });
    const [req] = await receiver.waitFor((rs) => rs.some((r) => r.url === '/coder' && JSON.parse(r.body).id === k.eventId));
    expect(req).toBeDefined();
    const delivered = receiver.requests.find((r) => r.url === '/coder' && JSON.parse(r.body).id === k.eventId)!;
    expect(delivered.headers['x-svc-channel']).toBe(`agent:dispatch:${coder.id}`);
    expect(JSON.parse(delivered.body)).toMatchObject({ kind: 'AGENT_RUN_KICKED', payload: { runId } });
    // the run is unchanged
    const after = (await t.pools.owner.query('select status, last_event_at from app_public.agent_runs where id = $1', [runId])).rows[0];
    expect(after).toEqual({ status: 'ACTIVE', last_event_at: before });
    // kicked a moment ago: not again (each kick is a new delivery to the agent)
    expect(await ok(t, ws.token, 'runs.kick', { runId })).toMatchObject({ ok: true, kicked: false });
    expect(await runEvents(issue.id, 'AGENT_RUN_KICKED')).toHaveLength(1);
    // not ACTIVE → not kicked
    await ok(t, coderKey.token, 'runs.setWaiting', { runId });
    await quiet(runId, 60);
    expect(await ok(t, ws.token, 'runs.kick', { runId })).toMatchObject({ ok: true, kicked: false, status: 'WAITING' });
    expect((await rest(t, ws.token, 'runs.kick', {})).body.issues).toHaveProperty('runId');
    expect((await rest(t, other.token, 'runs.kick', { runId })).status).toBe(404);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'runs.kick', { runId })).body.scope).toBe('WRITE_ISSUES');
    const r = await rpc(t, ws.token, 'tools/call', { name: 'runs.kick', arguments: { runId } });
    expect(r.body.result.structuredContent).toMatchObject({ ok: true, kicked: false });
  });

  it('a STALLED run is kicked (the quiet run most in need of it) and stays STALLED until its agent reports', async () => {
    const { issue, runId } = await assigned('Stalled and kicked');
    await quiet(runId, 40);
    await t.pools.owner.query(`select app_private.sweep_stale_runs(now())`);
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('STALLED');
    expect(await ok(t, ws.token, 'runs.kick', { runId, reason: 'Post where you are, please' })).toMatchObject({ ok: true, kicked: true, status: 'STALLED' });
    const kicks = await runEvents(issue.id, 'AGENT_RUN_KICKED');
    expect(kicks.map((e) => e.payload.reason)).toEqual(['Post where you are, please']);
    expect(Object.keys((await rest(t, ws.token, 'runs.kick', { runId, reason: 'two\nlines' })).body.issues)).toEqual(['reason']);
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('STALLED');
  });

  it('a run of a closed issue is not kicked (an agent moved its issue to Done without runs.complete and was sent it again)', async () => {
    const { issue, runId } = await assigned('Closed under its run');
    const done = (await ok(t, ws.token, 'statuses.list', {})).find((s: { category: string }) => s.category === 'DONE');
    await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId: done.id });
    await quiet(runId, 6);
    expect(await ok(t, ws.token, 'runs.kick', { runId })).toMatchObject({ ok: true, kicked: false, status: 'ACTIVE' });
    expect(await runEvents(issue.id, 'AGENT_RUN_KICKED')).toHaveLength(0);
  });

  it('kicks sent at the same moment fire once', async () => {
    for (let round = 0; round < 3; round++) {
      const { issue, runId } = await assigned(`Kicked at once ${round}`);
      await quiet(runId, 6);
      const answers = await Promise.all(Array.from({ length: 4 }, () => ok(t, ws.token, 'runs.kick', { runId })));
      expect(answers.filter((a) => a.kicked)).toHaveLength(1);
      expect(await runEvents(issue.id, 'AGENT_RUN_KICKED')).toHaveLength(1);
    }
  });
});

describe('stale-run sweep', () => {
  it('marks ACTIVE runs quiet longer than agentRunStaleMinutes STALLED, once; resumeWork brings them back', async () => {
    const { issue, runId } = await assigned('Going quiet');
    const sweep = async (minutesAhead: number) =>
      (await t.pools.owner.query(`select app_private.sweep_stale_runs(now() + make_interval(mins => $1)) as f`, [minutesAhead])).rows[0].f as any[];
    expect((await sweep(29)).map((f) => f.subjectId)).not.toContain(runId);
    const fired = await sweep(31);
    expect(fired).toContainEqual(expect.objectContaining({ kind: 'AGENT_RUN_STALLED', subjectId: runId, issueId: issue.id }));
    expect((await sweep(31)).map((f) => f.subjectId)).not.toContain(runId);
    const stalled = (await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED')).at(-1);
    expect(stalled.payload).toMatchObject({ runId, from: 'ACTIVE', to: 'STALLED', reason: 'stale' });
    expect((await ok(t, coderKey.token, 'runs.resumeWork', { runId })).status).toBe('ACTIVE');
    await t.pools.owner.query('update app_public.workspaces set agent_run_stale_minutes = 5 where id = $1', [ws.id]);
    expect((await sweep(6)).map((f) => f.subjectId)).toContain(runId);
    // Its agent reporting again (usage, a status line) is the run at work: ACTIVE again, said in an event.
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('STALLED');
    await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 5, currentStep: 'Back at it' });
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('ACTIVE');
    expect((await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED')).at(-1).payload).toMatchObject({ runId, from: 'STALLED', to: 'ACTIVE', reason: 'activity' });
  });

  it("its agent changing the issue is run activity (a STALLED run ACTIVE again); a person's change is not", async () => {
    const { issue, runId } = await assigned('Moved along without a comment');
    const statuses = await ok(t, ws.token, 'statuses.list', {});
    const started = statuses.find((s: { category: string }) => s.category === 'IN_PROGRESS');
    const lastEventAt = async () => Date.parse((await ok(t, ws.token, 'runs.get', { id: runId })).lastEventAt);
    await quiet(runId, 20);
    const before = await lastEventAt();
    await ok(t, ws.token, 'issues.update', { id: issue.id, priority: 'HIGH' }); // a person
    expect(await lastEventAt()).toBe(before);
    await ok(t, coderKey.token, 'issues.transition', { id: issue.id, statusId: started.id });
    expect(await lastEventAt()).toBeGreaterThan(before + 15 * 60_000);
    await quiet(runId, 60);
    await t.pools.owner.query('select app_private.sweep_stale_runs(now())');
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('STALLED');
    await ok(t, coderKey.token, 'issues.update', { id: issue.id, title: 'Moved along, renamed' });
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('ACTIVE');
    expect((await runEvents(issue.id, 'AGENT_RUN_STATUS_CHANGED')).at(-1).payload).toMatchObject({ runId, from: 'STALLED', to: 'ACTIVE', reason: 'activity' });
    const bundle = await ok(t, coderKey.token, 'agent.context.bundle', { issueId: issue.id });
    expect(bundle.runProtocol.protocolInstruction).toContain('changes to its issue');
  });

  it('a STALLED run still gates its agent: a RESEARCH run gone quiet does not let the agent change the issue', async () => {
    const { issue, runId } = await assigned('Quiet research', 'RESEARCH');
    await quiet(runId, 60 * 24);
    await t.pools.owner.query('select app_private.sweep_stale_runs(now())');
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).status).toBe('STALLED');
    const r = await rest(t, coderKey.token, 'issues.update', { id: issue.id, title: 'changed while stalled' });
    expect([r.status, r.body.error]).toEqual([403, 'run_mode_gated']);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe('Quiet research');
    expect((await ok(t, coderKey.token, 'agent.context.bundle', { issueId: issue.id })).runProtocol.mayMutateIssue).toBe(false);
  });
});

describe('runs of a deleted issue', () => {
  it('are 404 to runs.get and the run tools, and gone from runs.list, until the issue is restored', async () => {
    const { issue, runId } = await assigned('Deleted with its runs');
    await ok(t, ws.token, 'issues.delete', { id: issue.id });
    expect((await rest(t, ws.token, 'runs.get', { id: runId })).status).toBe(404);
    expect((await rest(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 1 })).status).toBe(404);
    expect((await rest(t, ws.token, 'runs.kick', { runId })).status).toBe(404);
    expect((await ok(t, ws.token, 'runs.list', { agentId: coder.id, limit: 200 })).items.map((x: any) => x.id)).not.toContain(runId);
    await ok(t, ws.token, 'issues.restore', { id: issue.id });
    expect((await ok(t, ws.token, 'runs.get', { id: runId })).id).toBe(runId);
    expect((await ok(t, ws.token, 'runs.list', { agentId: coder.id, limit: 200 })).items.map((x: any) => x.id)).toContain(runId);
  });
});

describe('every event of this namespace family reaches events.recent, SSE and webhooks', () => {
  it('AGENT_STATUS_CHANGED, RUNTIME_REGISTERED, RUNTIME_UPDATED, AGENT_RUN_STATUS_CHANGED, AGENT_RUN_KICKED, AGENT_RUN_UPDATED', async () => {
    const hooks = await startReceiver();
    try {
      await admin(t, 'create-webhook', { workspace: ws.key, url: `${hooks.url}/all`, json: true });
      const sse = await openSse(await t.listen(), ws.token);
      await sse.waitForComment((c) => c === 'connected');
      await ok(t, coderKey.token, 'agents.heartbeat', { status: 'BUSY' });
      const rt = await ok(t, ws.token, 'runtimes.register', { name: 'ev', kind: 'CLOUD', providersAvailable: [] });
      await ok(t, ws.token, 'runtimes.configure', { runtimeId: rt.id, config: { workspaceRoot: '/w' } });
      const { runId } = await assigned('Events');
      await ok(t, coderKey.token, 'runs.setWaiting', { runId });
      await ok(t, coderKey.token, 'runs.resumeWork', { runId });
      await quiet(runId, 10);
      await ok(t, ws.token, 'runs.kick', { runId });
      await ok(t, coderKey.token, 'runs.recordUsage', { runId, tokensIn: 12 });
      const kinds = ['AGENT_STATUS_CHANGED', 'RUNTIME_REGISTERED', 'RUNTIME_UPDATED', 'AGENT_RUN_STATUS_CHANGED', 'AGENT_RUN_KICKED', 'AGENT_RUN_UPDATED'];
      const recent = (await ok(t, ws.token, 'events.recent', { kinds, limit: 20 })).items as Array<{ id: string; kind: string }>;
      expect(new Set(recent.map((e) => e.kind))).toEqual(new Set(kinds));
      for (const e of recent.slice(0, 7)) {
        await sse.waitFor((m) => m.id === e.id);
        await hooks.waitFor((rs) => rs.some((r) => JSON.parse(r.body).id === e.id));
      }
      sse.close();
    } finally {
      await hooks.close();
    }
  });
});
