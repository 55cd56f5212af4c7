/**
 * The dispatcher (decisions.md "Dispatch"): rules first, then ROUND_ROBIN / PRIORITY_MATCH /
 * CAPABILITY_MATCH with the 6.4 AGENT_ASSIGNED payload; eligibility (OFFLINE, archived, maxConcurrent);
 * triggers (queued, agent ONLINE, load drop) through a real worker; two workers never double-assign.
 */
import { spawn } from 'node:child_process';
import type { Runner } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWorkspace } from '../../src/dispatch/tasks.ts';
import { startWorker } from '../../src/worker.ts';
import { createAgent, createKey, createWorkspace, insertProject, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
const sql = (text: string, params: unknown[] = []) => t.pools.owner.query(text, params);

async function workspaceWith(mode: string, agents: { key: string; status?: string; caps?: string[]; max?: number }[]) {
  const ws = await createWorkspace(t);
  await sql("update app_public.workspaces set auto_dispatch = true, auto_dispatch_mode = $2 where id = $1", [ws.id, mode]);
  const ids: Record<string, string> = {};
  for (const a of agents) {
    const agent = await createAgent(t, ws, a.key, a.caps ? { capabilities: a.caps.join(',') } : {});
    ids[a.key] = agent.id;
    await sql('update app_public.agents set status = $2, max_concurrent = $3 where id = $1', [agent.id, a.status ?? 'ONLINE', a.max ?? 1]);
  }
  return { ws, ids };
}

/** Queues an issue and runs the dispatcher inline (no worker): what it assigned, with the event payload. */
async function queueAndDispatch(ws: Workspace, input: Record<string, unknown>) {
  const issue = await ok(t, ws.token, 'issues.create', input);
  await ok(t, ws.token, 'issues.queue', { id: issue.id });
  const client = await t.pools.owner.connect();
  try {
    await dispatchWorkspace(client, ws.id);
  } finally {
    client.release();
  }
  return { issue, assigned: await assignedEvent(ws, issue.id) };
}

async function assignedEvent(ws: Workspace, issueId: string) {
  const r = await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issueId, kinds: ['AGENT_ASSIGNED'] });
  return r.items[0]?.payload as any;
}

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('dispatcher decisions', () => {
  it('does nothing while autoDispatch is off, or in MANUAL_ONLY', async () => {
    const { ws } = await workspaceWith('MANUAL_ONLY', [{ key: 'a1' }]);
    expect((await queueAndDispatch(ws, { title: 'manual only' })).assigned).toBeUndefined();
    await sql('update app_public.workspaces set auto_dispatch = false, auto_dispatch_mode = $2 where id = $1', [ws.id, 'ROUND_ROBIN']);
    expect((await queueAndDispatch(ws, { title: 'off' })).assigned).toBeUndefined();
  });

  it('ROUND_ROBIN: least recently dispatched eligible agent, auto true, the dispatch payload, and a run', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'r1' }, { key: 'r2' }, { key: 'off', status: 'OFFLINE' }]);
    const first = await queueAndDispatch(ws, { title: 'one' });
    expect(first.assigned).toMatchObject({
      agentId: ids.r1, profileKey: 'r1', from: null, to: ids.r1, auto: true, reason: 'round-robin', rationale: null, commentId: null,
      dispatch: { mode: 'ROUND_ROBIN', chosen: ids.r1, reason: 'round-robin', ruleId: null },
    });
    expect(first.assigned.dispatch.candidates.sort()).toEqual([ids.r1, ids.r2].sort());
    const second = await queueAndDispatch(ws, { title: 'two' });
    expect(second.assigned.agentId).toBe(ids.r2);
    // Both agents are at maxConcurrent 1 now; the OFFLINE one is never eligible.
    expect((await queueAndDispatch(ws, { title: 'three' })).assigned).toBeUndefined();
    const run = await ok(t, ws.token, 'issues.get', { id: first.issue.id, include: { currentRun: true } });
    expect(run.currentRun).toMatchObject({ agentId: ids.r1, status: 'ACTIVE' });
  });

  it('a queued issue closed (DONE or CANCELED) before an agent was free is never handed out', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'c1', status: 'OFFLINE' }]);
    const closed = [];
    for (const category of ['CANCELED', 'DONE']) {
      const issue = await ok(t, ws.token, 'issues.create', { title: `closed ${category}`, priority: 'URGENT' });
      await ok(t, ws.token, 'issues.queue', { id: issue.id });
      const statusId = (await ok(t, ws.token, 'statuses.list', { category }))[0].id;
      await ok(t, ws.token, 'issues.transition', { id: issue.id, statusId });
      closed.push(issue);
    }
    await sql('update app_public.agents set status = $2 where id = $1', [ids.c1, 'ONLINE']);
    const open = await queueAndDispatch(ws, { title: 'open, less urgent', priority: 'LOW' });
    expect(open.assigned?.agentId).toBe(ids.c1);
    for (const issue of closed) {
      expect(await assignedEvent(ws, issue.id)).toBeUndefined();
      expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId).toBeNull();
    }
  });

  it('of equal priority, the issue queued longest goes first, not the oldest issue queued late', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'q1', status: 'OFFLINE' }]);
    const older = await ok(t, ws.token, 'issues.create', { title: 'created first, queued last' });
    const newer = await ok(t, ws.token, 'issues.create', { title: 'created last, queued first' });
    await ok(t, ws.token, 'issues.queue', { id: newer.id });
    await ok(t, ws.token, 'issues.queue', { id: older.id });
    await sql('update app_public.agents set status = $2 where id = $1', [ids.q1, 'ONLINE']);
    const client = await t.pools.owner.connect();
    try {
      await dispatchWorkspace(client, ws.id);
    } finally {
      client.release();
    }
    expect(await assignedEvent(ws, newer.id)).toMatchObject({ agentId: ids.q1 });
    expect(await assignedEvent(ws, older.id)).toBeUndefined();
  });

  it('load = assigned issues not DONE or CANCELED: finishing one frees the agent', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'solo' }]);
    const a = await queueAndDispatch(ws, { title: 'busy' });
    expect(a.assigned.agentId).toBe(ids.solo);
    expect((await queueAndDispatch(ws, { title: 'waits' })).assigned).toBeUndefined();
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0];
    await ok(t, ws.token, 'issues.transition', { id: a.issue.id, statusId: done.id });
    const client = await t.pools.owner.connect();
    try {
      expect(await dispatchWorkspace(client, ws.id)).toBe(1);
    } finally {
      client.release();
    }
  });

  it('PRIORITY_MATCH: an agent whose capabilities hold the priority; none → round-robin', async () => {
    const { ws, ids } = await workspaceWith('PRIORITY_MATCH', [{ key: 'gen', max: 0 }, { key: 'hot', caps: ['URGENT', 'HIGH'], max: 0 }]);
    const urgent = await queueAndDispatch(ws, { title: 'fire', priority: 'URGENT' });
    expect(urgent.assigned).toMatchObject({ agentId: ids.hot, reason: 'priority-match:urgent', dispatch: { mode: 'PRIORITY_MATCH', reason: 'priority-match:urgent' } });
    const low = await queueAndDispatch(ws, { title: 'meh', priority: 'LOW' });
    expect(low.assigned).toMatchObject({ agentId: ids.gen, reason: 'round-robin' });
  });

  it('CAPABILITY_MATCH: most overlap of label names and capabilities, reason matches/labels', async () => {
    const { ws, ids } = await workspaceWith('CAPABILITY_MATCH', [
      { key: 'fe', caps: ['frontend'], max: 0 }, { key: 'febug', caps: ['frontend', 'bug'], max: 0 }, { key: 'db', caps: ['database'], max: 0 },
    ]);
    const fe = await ok(t, ws.token, 'labels.create', { name: 'frontend' });
    const bug = await ok(t, ws.token, 'labels.create', { name: 'Bug' });
    const docs = await ok(t, ws.token, 'labels.create', { name: 'docs' });
    const both = await queueAndDispatch(ws, { title: 'button broken', labelIds: [fe.id, bug.id, docs.id] });
    expect(both.assigned).toMatchObject({ agentId: ids.febug, reason: 'capability-match:2/3' });
    const none = await queueAndDispatch(ws, { title: 'write docs', labelIds: [docs.id] });
    expect(none.assigned.reason).toBe('round-robin');
  });

  it('rules first: the first matching rule\'s target, or the mode\'s pick when the target is ineligible', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'any', max: 0 }, { key: 'oncall', max: 0 }, { key: 'sleepy', status: 'OFFLINE' }]);
    const { rows: [rule] } = await sql(
      "insert into app_public.dispatch_rules (workspace_id, position, priority, target_agent_id) values ($1, 0, 'URGENT', $2) returning id", [ws.id, ids.oncall]);
    const { rows: [asleep] } = await sql(
      "insert into app_public.dispatch_rules (workspace_id, position, priority, target_agent_id) values ($1, 1, 'HIGH', $2) returning id", [ws.id, ids.sleepy]);
    const urgent = await queueAndDispatch(ws, { title: 'page', priority: 'URGENT' });
    expect(urgent.assigned).toMatchObject({
      agentId: ids.oncall, reason: `rule:${rule.id}`,
      dispatch: { mode: 'ROUND_ROBIN', candidates: [ids.oncall], chosen: ids.oncall, reason: `rule:${rule.id}`, ruleId: rule.id },
    });
    const high = await queueAndDispatch(ws, { title: 'soon', priority: 'HIGH' });
    expect(high.assigned).toMatchObject({
      reason: `rule:${asleep.id}:target-ineligible,round-robin pick`,
      dispatch: { ruleId: asleep.id, reason: `rule:${asleep.id}:target-ineligible,round-robin pick` },
    });
    expect([ids.any, ids.oncall]).toContain(high.assigned.agentId);
  });

  it('a rule on a label matches the issues carrying it, whichever label was added first', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'generalist', max: 0 }, { key: 'dba', max: 0 }]);
    const db = await ok(t, ws.token, 'labels.create', { name: 'database' });
    const ui = await ok(t, ws.token, 'labels.create', { name: 'ui' });
    const { rows: [rule] } = await sql(
      'insert into app_public.dispatch_rules (workspace_id, position, label_id, target_agent_id) values ($1, 0, $2, $3) returning id', [ws.id, db.id, ids.dba]);
    const labelled = await queueAndDispatch(ws, { title: 'slow query', labelIds: [ui.id, db.id] });
    expect(labelled.assigned).toMatchObject({ agentId: ids.dba, reason: `rule:${rule.id}` });
    const other = await queueAndDispatch(ws, { title: 'button', labelIds: [ui.id] });
    expect(other.assigned.reason).toBe('round-robin');
  });
});

describe('what an agent can see and what it gave back (fleet probe)', () => {
  it('a narrowed agent is given only issues its keys can see, and an issue it cannot see does not hold up those behind it', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'backend-bot' }]);
    const [backend, frontend] = [await insertProject(t, ws, 'Backend'), await insertProject(t, ws, 'Frontend')];
    const botKey = await createKey(t, ws, { agent: 'backend-bot', projects: [backend] });
    // Most urgent first, but the bot cannot read it: it waits; the Backend issue behind it is handed out.
    const hidden = await queueAndDispatch(ws, { title: 'Frontend fire', priority: 'URGENT', projectId: frontend });
    expect(hidden.assigned).toBeUndefined();
    const seen = await queueAndDispatch(ws, { title: 'Backend chore', priority: 'LOW', projectId: backend });
    expect(seen.assigned).toMatchObject({ agentId: ids['backend-bot'], dispatch: { candidates: [ids['backend-bot']] } });
    expect((await ok(t, botKey.token, 'issues.assigned', {})).items.map((i: { id: string }) => i.id)).toEqual([seen.issue.id]);
    // Assigned or handed to it by a person, or chatted about with it: refused, naming the field.
    const done = (await sql("select id from app_public.statuses where workspace_id = $1 and category = 'DONE' limit 1", [ws.id])).rows[0].id;
    await ok(t, ws.token, 'issues.update', { id: seen.issue.id, statusId: done });
    const assign = await rest(t, ws.token, 'issues.assign', { id: hidden.issue.id, profileKey: 'backend-bot' });
    expect([assign.status, assign.body.error, assign.body.field]).toEqual([409, 'agent_cannot_see_issue', 'profileKey']);
    expect(assign.body.message).toMatch(/^Agent backend-bot cannot see [A-Z0-9]+-\d+/);
    const owner = (await sql('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
    const chat = await sql('select app_private.chat_open_thread($1, $2, $3, null, $4) as r', [ws.id, ids['backend-bot'], owner, hidden.issue.id])
      .catch((err: { code?: string; detail?: string; column?: string }) => err);
    expect(chat).toMatchObject({ code: 'SV409', detail: 'agent_cannot_see_issue', column: 'issueId' });
    // Nor is a plan step on a goal about such an issue given to it.
    const goal = await ok(t, ws.token, 'goals.create', { title: 'Frontend goal', issueId: hidden.issue.id });
    const plan = await ok(t, ws.token, 'executionPlans.create', { goalId: goal.id });
    const step = await rest(t, ws.token, 'plans.addSteps', { planId: plan.id, steps: [{ title: 'x', assignedAgentId: ids['backend-bot'] }] });
    expect([step.status, step.body.error, step.body.field]).toEqual([409, 'agent_cannot_see_issue', 'steps.0.assignedAgentId']);
    // Nor, as a crew's worker picked by role, a step of that goal: a crew mate that can see it gets it.
    const mate = await createAgent(t, ws, 'frontend-bot');
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Mixed', members: [
      { agentId: ids['backend-bot'], role: 'WORKER' }, { agentId: mate.id, role: 'WORKER' }] });
    const crewGoal = await ok(t, ws.token, 'goals.create', { title: 'Frontend by crew', issueId: hidden.issue.id, crewId: crew.id });
    const crewPlan = await ok(t, ws.token, 'executionPlans.create', { goalId: crewGoal.id, steps: [{ title: 'one' }, { title: 'two' }, { title: 'three' }] });
    await ok(t, ws.token, 'plans.activate', { planId: crewPlan.id });
    const workers = (await ok(t, ws.token, 'executionPlans.get', { id: crewPlan.id })).steps.map((st: { assignedAgentId: string }) => st.assignedAgentId);
    expect(workers).toEqual([mate.id, mate.id, mate.id]);
    // An issue it holds moved where it cannot see it is taken from it (its run ends, reason out_of_view).
    const moved = await ok(t, ws.token, 'issues.create', { title: 'Backend, then not', projectId: backend });
    await ok(t, ws.token, 'issues.assign', { id: moved.id, profileKey: 'backend-bot' });
    expect((await ok(t, ws.token, 'issues.update', { id: moved.id, projectId: frontend })).assignedAgent).toBeNull();
    expect((await ok(t, ws.token, 'runs.list', { issueId: moved.id })).items[0]).toMatchObject({ status: 'ABANDONED' });
    const ended = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: moved.id, kinds: ['AGENT_RUN_STATUS_CHANGED'] })).items;
    expect(ended[0].payload).toMatchObject({ to: 'ABANDONED', reason: 'out_of_view' });
    // A new key of the agent wakes the dispatcher (it may see queued issues now).
    const jobs = async () => (await sql(`select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
      where k.identifier = 'svc_dispatch' and j.payload->>'workspaceId' = $1`, [ws.id])).rows[0].n;
    const before = await jobs();
    // A key that sees it (here a second, unnarrowed key of the agent) makes it the agent's work.
    await createKey(t, ws, { agent: 'backend-bot' });
    expect(await jobs()).toBe(before + 1);
    expect((await ok(t, ws.token, 'issues.assign', { id: hidden.issue.id, profileKey: 'backend-bot' })).assignedAgent.id).toBe(ids['backend-bot']);
    // With every key revoked it sees nothing (it counted as keyless, and so unlimited); one never given a key is not limited.
    await sql('update app_private.api_keys set revoked_at = now() where linked_agent_id = $1', [ids['backend-bot']]);
    const orphan = await ok(t, ws.token, 'issues.create', { title: 'Backend again', projectId: backend });
    expect((await rest(t, ws.token, 'issues.assign', { id: orphan.id, profileKey: 'backend-bot' })).body.error).toBe('agent_cannot_see_issue');
    expect((await ok(t, ws.token, 'issues.assign', { id: orphan.id, profileKey: 'frontend-bot' })).assignedAgent.id).toBe(mate.id);
  });

  it('an agent that unassigns itself gives the issue back: the dispatcher hands it to another agent, never to it again while it stays queued', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'quitter' }, { key: 'other', status: 'OFFLINE' }]);
    const quitterKey = await createKey(t, ws, { agent: 'quitter' });
    const { issue, assigned } = await queueAndDispatch(ws, { title: 'Not for me' });
    expect(assigned.agentId).toBe(ids.quitter);
    await ok(t, quitterKey.token, 'issues.unassign', { id: issue.id });
    const runs = await ok(t, ws.token, 'runs.list', { issueId: issue.id });
    expect(runs.items[0]).toMatchObject({ status: 'ABANDONED', completionMeta: { returnedAt: expect.any(String) } });
    const dispatchNow = async () => {
      const client = await t.pools.owner.connect();
      try { await dispatchWorkspace(client, ws.id); } finally { client.release(); }
    };
    await dispatchNow();
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgent).toBeNull();
    await sql("update app_public.agents set status = 'ONLINE' where id = $1", [ids.other]);
    await dispatchNow();
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgent.id).toBe(ids.other);
    // A person may still give it to the agent that gave it back.
    expect((await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'quitter' })).assignedAgent.id).toBe(ids.quitter);
    // Completing its run and then unassigning itself gives it back too (re-test: it came straight back).
    const run = (await ok(t, ws.token, 'runs.list', { issueId: issue.id, status: 'ACTIVE' })).items[0];
    await ok(t, quitterKey.token, 'runs.complete', { runId: run.id, summary: 'Did my part' });
    await ok(t, quitterKey.token, 'issues.unassign', { id: issue.id });
    await sql("update app_public.agents set status = 'OFFLINE' where id = $1", [ids.other]);
    await dispatchNow();
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgent).toBeNull();
  });
});

describe('dispatcher triggers through the worker', () => {
  let worker: Runner;
  beforeAll(async () => {
    worker = await startWorker(t.pools.owner, { allowPrivate: true, concurrency: 2, pollInterval: 100 });
  });
  afterAll(() => worker.stop());

  const waitForAssignment = async (ws: Workspace, issueId: string, ms = 5_000) => {
    const until = Date.now() + ms;
    for (;;) {
      const e = await assignedEvent(ws, issueId);
      if (e || Date.now() > until) return e;
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('queuing an issue assigns an eligible agent within a second', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'w1' }]);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'go' });
    await ok(t, ws.token, 'issues.queue', { id: issue.id });
    const e = await waitForAssignment(ws, issue.id);
    const jobs = e ? [] : (await sql('select task_identifier, key, locked_at, attempts, last_error from graphile_worker.jobs')).rows;
    expect(e, `not assigned; jobs: ${JSON.stringify(jobs)}`).toBeDefined();
    expect(e).toMatchObject({ agentId: ids.w1, auto: true });
    // From the queueing's commit to the assignment's, as the events were written: the dispatcher's own delay (woken by
    // the queueing, not a poll), not this test's HTTP calls on a loaded machine (a CI run at load 8 took 1.17 s in all).
    const { rows: [gap] } = await sql(`select extract(epoch from max(created_at) filter (where kind = 'AGENT_ASSIGNED')
                                              - max(created_at) filter (where kind = 'ISSUE_QUEUED')) * 1000 as ms
                                       from app_public.activity_events where subject_id = $1`, [issue.id]);
    expect(gap.ms).not.toBeNull();
    expect(Number(gap.ms)).toBeLessThan(1_000);
  });

  it('an agent turning ONLINE and an agent\'s load dropping wake the dispatcher', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'late', status: 'OFFLINE' }]);
    const a = await ok(t, ws.token, 'issues.create', { title: 'a' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'b' });
    await ok(t, ws.token, 'issues.queue', { id: a.id });
    await ok(t, ws.token, 'issues.queue', { id: b.id });
    await new Promise((r) => setTimeout(r, 300));
    expect(await assignedEvent(ws, a.id)).toBeUndefined();
    await sql("update app_public.agents set status = 'ONLINE' where id = $1", [ids.late]);
    expect(await waitForAssignment(ws, a.id)).toMatchObject({ agentId: ids.late });
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0];
    await ok(t, ws.token, 'issues.transition', { id: a.id, statusId: done.id });
    expect(await waitForAssignment(ws, b.id)).toMatchObject({ agentId: ids.late });
  });

  it('a queued issue reopened or restored wakes the dispatcher (it waited for the minute\'s sweep)', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'back', status: 'OFFLINE' }]);
    const reopened = await ok(t, ws.token, 'issues.create', { title: 'reopened' });
    const restored = await ok(t, ws.token, 'issues.create', { title: 'restored' });
    await ok(t, ws.token, 'issues.queue', { id: reopened.id });
    await ok(t, ws.token, 'issues.queue', { id: restored.id });
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0];
    const todo = (await ok(t, ws.token, 'statuses.list', { category: 'TODO' }))[0];
    await ok(t, ws.token, 'issues.transition', { id: reopened.id, statusId: done.id });
    await ok(t, ws.token, 'issues.delete', { id: restored.id });
    await sql("update app_public.agents set status = 'ONLINE', max_concurrent = 2 where id = $1", [ids.back]);
    await new Promise((r) => setTimeout(r, 300));  // the agent coming ONLINE woke it: nothing to hand out then
    await ok(t, ws.token, 'issues.transition', { id: reopened.id, statusId: todo.id });
    expect(await waitForAssignment(ws, reopened.id, 3_000)).toMatchObject({ agentId: ids.back });
    await ok(t, ws.token, 'issues.restore', { id: restored.id });
    expect(await waitForAssignment(ws, restored.id, 3_000)).toMatchObject({ agentId: ids.back });
  });

  it('two worker processes and concurrent queue calls never assign an issue twice or exceed maxConcurrent', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [1, 2, 3, 4, 5].map((n) => ({ key: `c${n}`, max: 6 })));
    // A second worker: a real `svc worker` process on the same database, next to this process's runner.
    const other = spawn(process.execPath, ['bin/svc.js', 'worker'], {
      env: { ...process.env, DATABASE_URL: t.ownerUrl, LOG_LEVEL: 'info', SVC_WORKER_CONCURRENCY: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer) => {
        output += c.toString();
        if (output.includes('svc worker running')) resolve();
      };
      other.stdout!.on('data', onData);
      other.stderr!.on('data', onData);
      other.once('exit', (code) => reject(new Error(`svc worker exited ${code}: ${output}`)));
    });
    try {
      const issues = await ok(t, ws.token, 'issues.createMany', { items: Array.from({ length: 40 }, (_, i) => ({ title: `bulk ${i}` })) });
      await Promise.all((issues.items ?? issues).map((i: { id: string }) => ok(t, ws.token, 'issues.queue', { id: i.id })));
      const until = Date.now() + 15_000;
      let assigned = 0;
      while (Date.now() < until) {
        ({ rows: [{ n: assigned }] } = await sql('select count(*)::int as n from app_public.issues where workspace_id = $1 and assigned_agent_id is not null', [ws.id]));
        if (assigned >= 30) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300)); // anything extra would show up now
      expect(assigned).toBe(30); // 5 agents × maxConcurrent 6
      const { rows: perAgent } = await sql(
        'select assigned_agent_id, count(*)::int as n from app_public.issues where workspace_id = $1 and assigned_agent_id is not null group by 1', [ws.id]);
      expect(perAgent.every((r) => r.n <= 6)).toBe(true);
      expect(perAgent.map((r) => r.assigned_agent_id).sort()).toEqual(Object.values(ids).sort());
      const { rows: [events] } = await sql(
        "select count(*)::int as n, count(distinct subject_id)::int as issues from app_public.activity_events where workspace_id = $1 and kind = 'AGENT_ASSIGNED'", [ws.id]);
      expect(events).toEqual({ n: 30, issues: 30 });
    } finally {
      const exited = new Promise((r) => other.once('exit', r));
      other.kill('SIGTERM');
      await exited;
    }
  });
});

describe('agent dispatch deliveries', () => {
  it('an assignment is delivered to the agent\'s dispatch channel when it has a webhook URL', async () => {
    const ws = await createWorkspace(t);
    const agent = await createAgent(t, ws, 'hooked', { 'webhook-url': 'https://agents.example.com/inbox' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'for the hook' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
    const { rows } = await sql(
      `select d.channel, e.kind from app_public.webhook_deliveries d join app_public.activity_events e on e.id = d.event_id
       where d.agent_id = $1`, [agent.id]);
    expect(rows).toEqual([{ channel: `agent:dispatch:${agent.id}`, kind: 'AGENT_ASSIGNED' }]);
    // Its job goes before the workspace's webhook deliveries (an agent waited 20-40 s behind hanging webhooks).
    const { rows: jobs } = await sql(
      `select j.priority from graphile_worker._private_jobs j join app_public.webhook_deliveries d on j.key = 'svc_webhook:' || d.id
       where d.agent_id = $1`, [agent.id]);
    expect(jobs).toEqual([{ priority: -1 }]);
  });

  it('a run ended by someone else reaches the agent\'s dispatch channel; one it ends itself does not (fleet probe)', async () => {
    const ws = await createWorkspace(t);
    const agent = await createAgent(t, ws, 'told', { 'webhook-url': 'https://agents.example.com/told' });
    const agentKey = await createKey(t, ws, { agent: 'told' });
    const delivered = async () => (await sql(
      `select e.kind, e.payload->>'reason' as reason from app_public.webhook_deliveries d join app_public.activity_events e on e.id = d.event_id
       where d.agent_id = $1 order by e.seq`, [agent.id])).rows;
    const taken = await ok(t, ws.token, 'issues.create', { title: 'taken from it' });
    await ok(t, ws.token, 'issues.assign', { id: taken.id, agentId: agent.id });
    await ok(t, ws.token, 'issues.unassign', { id: taken.id });
    const kept = await ok(t, ws.token, 'issues.create', { title: 'it gives back' });
    await ok(t, ws.token, 'issues.assign', { id: kept.id, agentId: agent.id });
    await ok(t, agentKey.token, 'issues.unassign', { id: kept.id });
    // Its issue closed by a person is said too; one it closes itself is not.
    const done = (await sql("select id from app_public.statuses where workspace_id = $1 and category = 'DONE' limit 1", [ws.id])).rows[0].id;
    const closed = await ok(t, ws.token, 'issues.create', { title: 'closed under it' });
    await ok(t, ws.token, 'issues.assign', { id: closed.id, agentId: agent.id });
    await ok(t, ws.token, 'issues.update', { id: closed.id, statusId: done });
    const own = await ok(t, ws.token, 'issues.create', { title: 'it closes' });
    await ok(t, ws.token, 'issues.assign', { id: own.id, agentId: agent.id });
    await ok(t, agentKey.token, 'issues.update', { id: own.id, statusId: done });
    expect(await delivered()).toEqual([
      { kind: 'AGENT_ASSIGNED', reason: 'manual' },
      { kind: 'AGENT_RUN_STATUS_CHANGED', reason: 'unassigned' },
      { kind: 'AGENT_ASSIGNED', reason: 'manual' },
      { kind: 'AGENT_ASSIGNED', reason: 'manual' },
      { kind: 'ISSUE_STATUS_CHANGED', reason: null },
      { kind: 'AGENT_ASSIGNED', reason: 'manual' },
    ]);
  });
});

describe('one tenant\'s wakes', () => {
  it('a dispatcher job removes its workspace\'s other waiting jobs first, and leaves another workspace\'s and a running one alone', async () => {
    // Every wake is a job: 20 agents heartbeating and re-queueing left 3,368 of one workspace's jobs waiting, drained
    // at 6 a second, and another workspace's dispatch waited 52 s behind them (an outside probe).
    const { ws: noisy, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'busy', max: 5 }]);
    const { ws: quiet } = await workspaceWith('ROUND_ROBIN', [{ key: 'calm' }]);
    const waiting = async (w: Workspace, locked = false) => (await sql(`select count(*)::int as n from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'svc_dispatch' and j.payload->>'workspaceId' = $1 and (j.locked_at is not null) = $2`, [w.id, locked])).rows[0].n;
    const issue = await ok(t, noisy.token, 'issues.create', { title: 'handed out by the one job that runs' });
    await ok(t, noisy.token, 'issues.queue', { id: issue.id });
    await sql('select app_private.wake_dispatcher($1) from generate_series(1, 300)', [noisy.id]);
    await sql('select app_private.wake_dispatcher($1) from generate_series(1, 3)', [quiet.id]);
    // One of the noisy workspace's jobs is running on another worker.
    await sql(`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'other-worker' where id = (
      select j.id from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'svc_dispatch' and j.payload->>'workspaceId' = $1 limit 1)`, [noisy.id]);
    expect(await waiting(noisy)).toBeGreaterThan(300);
    const quietWaiting = await waiting(quiet);
    expect(quietWaiting).toBeGreaterThanOrEqual(3);
    const client = await t.pools.owner.connect();
    try {
      expect(await dispatchWorkspace(client, noisy.id)).toBe(1);
    } finally {
      client.release();
    }
    expect((await ok(t, noisy.token, 'issues.get', { id: issue.id })).assignedAgentId).toBe(ids.busy);
    expect([await waiting(noisy), await waiting(noisy, true), await waiting(quiet)]).toEqual([0, 1, quietWaiting]);
    await sql(`delete from graphile_worker._private_jobs where payload->>'workspaceId' = any($1)`, [[noisy.id, quiet.id]]);
  });
});

describe('recovery after a killed worker', () => {
  it('a dispatcher job a dead worker holds does not stall the queue: the worker\'s start (and each minute\'s sweep) wakes it again', async () => {
    const { ws, ids } = await workspaceWith('ROUND_ROBIN', [{ key: 'survivor', max: 5 }]);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'queued while the worker died' });
    await ok(t, ws.token, 'issues.queue', { id: issue.id });
    // The wake's job, taken by a worker that was then killed (-9): locked, and Graphile Worker frees it only after hours.
    const dispatcherJobs = `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'svc_dispatch' and j.payload->>'workspaceId' = $1 and j.locked_at is null`;
    await sql(`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'killed-worker'
      where task_id = (select id from graphile_worker._private_tasks where identifier = 'svc_dispatch') and payload->>'workspaceId' = $1`, [ws.id]);
    expect((await sql(dispatcherJobs, [ws.id])).rows[0].n).toBe(0);

    // The minute's sweep queues one job for it, and not a second while that one waits.
    await sql('select app_private.dispatch_sweep()');
    expect((await sql(dispatcherJobs, [ws.id])).rows[0].n).toBe(1);
    await sql('select app_private.dispatch_sweep()');
    expect((await sql(dispatcherJobs, [ws.id])).rows[0].n).toBe(1);

    // A worker starting up hands it out at once (the swept job dropped here, to see the start's own sweep).
    await sql(`delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'svc_dispatch')
      and payload->>'workspaceId' = $1 and locked_at is null`, [ws.id]);
    const worker = await startWorker(t.pools.owner, { allowPrivate: true, concurrency: 2, pollInterval: 100 });
    try {
      await expect.poll(async () => (await ok(t, ws.token, 'issues.get', { id: issue.id })).assignedAgentId, { timeout: 5000 }).toBe(ids.survivor);
    } finally {
      await worker.stop();
    }
  });
});
