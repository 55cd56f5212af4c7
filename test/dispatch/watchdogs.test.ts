/**
 * Watchdogs (decisions.md "Watchdogs"): AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH with the 6.4 payloads,
 * once per (issue, kind) per 24 h, off at 0, not fired when the agent acknowledged in time. Time moves by
 * passing "now" to the sweep, not by sleeping.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchWorkspace, sweep } from '../../src/dispatch/tasks.ts';
import { createAgent, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
const sql = (text: string, params: unknown[] = []) => t.pools.owner.query(text, params);
const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
const sweepAt = async (at: Date) => {
  const client = await t.pools.owner.connect();
  try {
    return await sweep(client, at);
  } finally {
    client.release();
  }
};
const firedFor = (fired: { kind: string; subjectId: string }[], id: string) => fired.filter((f) => f.subjectId === id).map((f) => f.kind);
async function lastEvent(ws: Workspace, issueId: string, kind: string) {
  const r = await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issueId, kinds: [kind] });
  return r.items[0];
}

let ws: Workspace;
let agent: { id: string };
let agentKey: { token: string };

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  agent = await createAgent(t, ws, 'watched');
  agentKey = await createKey(t, ws, { agent: 'watched', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] });
});
afterAll(() => t.close());

describe('AGENT_NOACK', () => {
  it('fires once when the assigned agent neither comments nor moves the status within requiredAckSeconds', async () => {
    await sql('update app_public.workspaces set required_ack_seconds = 120, assignment_sla_minutes = 0 where id = $1', [ws.id]);
    const quiet = await ok(t, ws.token, 'issues.create', { title: 'nobody answers' });
    const chatty = await ok(t, ws.token, 'issues.create', { title: 'agent comments' });
    const mover = await ok(t, ws.token, 'issues.create', { title: 'agent moves it' });
    // An agent that reports on the run the assignment opened, or completes it, answered too (no comment needed).
    const reporter = await ok(t, ws.token, 'issues.create', { title: 'agent reports usage' });
    const finisher = await ok(t, ws.token, 'issues.create', { title: 'agent completes its run' });
    // A person canceling the agent's run is no answer from the agent.
    const canceled = await ok(t, ws.token, 'issues.create', { title: 'a person cancels the run' });
    for (const i of [quiet, chatty, mover, reporter, finisher, canceled]) await ok(t, ws.token, 'issues.assign', { id: i.id, agentId: agent.id });
    await ok(t, agentKey.token, 'comments.create', { issueId: chatty.id, body: 'on it' });
    const started = (await ok(t, ws.token, 'statuses.list', { category: 'IN_PROGRESS' }))[0];
    await ok(t, agentKey.token, 'issues.transition', { id: mover.id, statusId: started.id });
    const runOf = async (issueId: string) => (await ok(t, ws.token, 'runs.list', { issueId })).items[0].id;
    await ok(t, agentKey.token, 'runs.recordUsage', { runId: await runOf(reporter.id), tokensIn: 10, currentStep: 'Reading' });
    await ok(t, agentKey.token, 'runs.complete', { runId: await runOf(finisher.id), summary: 'Fixed', verificationResult: [] });
    await ok(t, ws.token, 'runs.cancel', { runId: await runOf(canceled.id) });

    expect(firedFor(await sweepAt(later(60)), quiet.id)).toEqual([]);
    const fired = await sweepAt(later(121));
    expect(firedFor(fired, quiet.id)).toEqual(['AGENT_NOACK']);
    expect(firedFor(fired, canceled.id)).toEqual(['AGENT_NOACK']);
    for (const i of [chatty, mover, reporter, finisher]) expect([i.title, firedFor(fired, i.id)]).toEqual([i.title, []]);
    expect((await lastEvent(ws, quiet.id, 'AGENT_NOACK')).payload).toMatchObject({
      agentId: agent.id, issueId: quiet.id, requiredAckSeconds: 120, reason: expect.any(String),
    });
    // At most once per 24 h.
    expect(firedFor(await sweepAt(later(3600)), quiet.id)).toEqual([]);
    // A new assignee has its own window: handed to another agent that says nothing either, it fires again, naming it.
    const second = await createAgent(t, ws, 'watched-next');
    await ok(t, ws.token, 'issues.reassign', { issueId: quiet.id, toProfileKey: 'watched-next', rationale: 'over to you' });
    expect(firedFor(await sweepAt(later(60)), quiet.id)).toEqual([]);
    expect(firedFor(await sweepAt(later(121)), quiet.id)).toEqual(['AGENT_NOACK']);
    expect((await lastEvent(ws, quiet.id, 'AGENT_NOACK')).payload.agentId).toBe(second.id);
  });

  it('AGENT_NOACK and ISSUE_STALLED also go to the assigned agent\'s dispatch channel when it has a webhookUrl', async () => {
    const hooked = await createWorkspace(t);
    const hookedAgent = await createAgent(t, hooked, 'hooked', { 'webhook-url': 'https://agents.example.com/inbox' });
    await sql('update app_public.workspaces set required_ack_seconds = 60, assignment_sla_minutes = 5 where id = $1', [hooked.id]);
    const issue = await ok(t, hooked.token, 'issues.create', { title: 'nobody home' });
    await ok(t, hooked.token, 'issues.assign', { id: issue.id, agentId: hookedAgent.id });
    expect(firedFor(await sweepAt(later(6 * 60)), issue.id).sort()).toEqual(['AGENT_NOACK', 'ISSUE_STALLED']);
    const { rows } = await sql(
      `select d.channel, e.kind from app_public.webhook_deliveries d join app_public.activity_events e on e.id = d.event_id
       where d.agent_id = $1 and e.kind in ('AGENT_NOACK', 'ISSUE_STALLED') order by e.kind`, [hookedAgent.id]);
    expect(rows).toEqual([{ channel: `agent:dispatch:${hookedAgent.id}`, kind: 'AGENT_NOACK' },
      { channel: `agent:dispatch:${hookedAgent.id}`, kind: 'ISSUE_STALLED' }]);
  });
});

describe('ISSUE_STALLED', () => {
  it('fires when nothing moved for assignmentSlaMinutes after the assignment or the last status change', async () => {
    await sql('update app_public.workspaces set required_ack_seconds = 0, assignment_sla_minutes = 30 where id = $1', [ws.id]);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'stalls', priority: 'HIGH' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
    expect(firedFor(await sweepAt(later(29 * 60)), issue.id)).toEqual([]);
    expect(firedFor(await sweepAt(later(35 * 60 + 5)), issue.id)).toEqual(['ISSUE_STALLED']);
    expect((await lastEvent(ws, issue.id, 'ISSUE_STALLED')).payload).toEqual({
      issueId: issue.id, slaMinutes: 30, breachedByMinutes: 5, priority: 'HIGH', reason: 'no activity since assignment',
    });
    expect(firedFor(await sweepAt(later(40 * 60)), issue.id)).toEqual([]);
  });

  it('counts from the last status change when there was one, and not for DONE issues', async () => {
    const moved = await ok(t, ws.token, 'issues.create', { title: 'moved once' });
    await ok(t, ws.token, 'issues.assign', { id: moved.id, agentId: agent.id });
    const review = (await ok(t, ws.token, 'statuses.list', { category: 'IN_REVIEW' }))[0];
    await ok(t, ws.token, 'issues.transition', { id: moved.id, statusId: review.id });
    const finished = await ok(t, ws.token, 'issues.create', { title: 'finished' });
    await ok(t, ws.token, 'issues.assign', { id: finished.id, agentId: agent.id });
    const done = (await ok(t, ws.token, 'statuses.list', { category: 'DONE' }))[0];
    await ok(t, ws.token, 'issues.transition', { id: finished.id, statusId: done.id });
    const fired = await sweepAt(later(31 * 60));
    expect(firedFor(fired, moved.id)).toEqual(['ISSUE_STALLED']);
    expect(firedFor(fired, finished.id)).toEqual([]);
    expect((await lastEvent(ws, moved.id, 'ISSUE_STALLED')).payload.reason).toBe('no activity since last status change');
  });

  it('counts from the assigned agent\'s last comment and its run\'s last sign of life', async () => {
    await sql('update app_public.workspaces set required_ack_seconds = 0, assignment_sla_minutes = 30 where id = $1', [ws.id]);
    const talked = await ok(t, ws.token, 'issues.create', { title: 'the agent commented' });
    await ok(t, ws.token, 'issues.assign', { id: talked.id, agentId: agent.id });
    const assignedAt = (await lastEvent(ws, talked.id, 'AGENT_ASSIGNED')).createdAt;
    // The comment and the run's move happen 20 minutes after the assignment (moved back in time: the others earlier).
    await sql(`update app_public.activity_events set created_at = created_at - interval '20 minutes' where subject_id = $1`, [talked.id]);
    await ok(t, agentKey.token, 'comments.create', { issueId: talked.id, body: 'still digging' });
    expect(firedFor(await sweepAt(later(15 * 60)), talked.id)).toEqual([]); // 35 min after assigning, 15 after the comment
    const fired = await sweepAt(later(31 * 60));
    expect(firedFor(fired, talked.id)).toEqual(['ISSUE_STALLED']);
    expect((await lastEvent(ws, talked.id, 'ISSUE_STALLED')).payload.reason).toBe('no activity since the assigned agent\'s last comment');
    expect(assignedAt).toEqual(expect.any(String));

    const waited = await ok(t, ws.token, 'issues.create', { title: 'the run waited' });
    await ok(t, ws.token, 'issues.assign', { id: waited.id, agentId: agent.id });
    await sql(`update app_public.activity_events set created_at = created_at - interval '20 minutes' where subject_id = $1`, [waited.id]);
    const runId = (await ok(t, ws.token, 'issues.get', { id: waited.id, include: { currentRun: true } })).currentRun.id;
    await ok(t, agentKey.token, 'runs.setWaiting', { runId });
    expect(firedFor(await sweepAt(later(15 * 60)), waited.id)).toEqual([]);
    expect((await sweepAt(later(31 * 60))).filter((f) => f.subjectId === waited.id).map((f) => f.kind)).toEqual(['ISSUE_STALLED']);
    expect((await lastEvent(ws, waited.id, 'ISSUE_STALLED')).payload.reason).toBe('no activity since the run\'s last report');
  });

  it('an agent reporting usage is not stalled; the stale-run sweep marking its run STALLED does not restart the clock', async () => {
    await sql('update app_public.workspaces set required_ack_seconds = 0, assignment_sla_minutes = 30, agent_run_stale_minutes = 10 where id = $1', [ws.id]);
    const working = await ok(t, ws.token, 'issues.create', { title: 'reports usage' });
    const idle = await ok(t, ws.token, 'issues.create', { title: 'says nothing' });
    const runOf = async (issueId: string) => (await ok(t, ws.token, 'issues.assign', { id: issueId, agentId: agent.id })).currentRun.id as string;
    const workingRun = await runOf(working.id);
    const idleRun = await runOf(idle.id);
    // Both assigned 40 minutes ago; the working agent reported usage a moment ago.
    for (const [issueId, runId] of [[working.id, workingRun], [idle.id, idleRun]]) {
      await sql(`update app_public.activity_events set created_at = created_at - interval '40 minutes' where subject_id = $1`, [issueId]);
      await sql(`update app_public.agent_runs set last_event_at = last_event_at - interval '40 minutes', started_at = started_at - interval '40 minutes' where id = $1`, [runId]);
    }
    await ok(t, agentKey.token, 'runs.recordUsage', { runId: workingRun, tokensIn: 10, currentStep: 'Compiling' });
    // The stale-run sweep marks the idle run STALLED now (quiet 40 minutes): that is not activity of the issue.
    const client = await t.pools.owner.connect();
    try {
      await client.query('select app_private.sweep_stale_runs()');
    } finally {
      client.release();
    }
    const fired = await sweepAt(later(5));
    expect(firedFor(fired, working.id)).toEqual([]);
    expect(firedFor(fired, idle.id)).toEqual(['ISSUE_STALLED']);
    expect((await lastEvent(ws, idle.id, 'ISSUE_STALLED')).payload.reason).toBe('no activity since assignment');
    await sql('update app_public.workspaces set agent_run_stale_minutes = 30 where id = $1', [ws.id]);
  });

  it('sweeps running at the same moment fire each watchdog once', async () => {
    await sql('update app_public.workspaces set required_ack_seconds = 60, assignment_sla_minutes = 30 where id = $1', [ws.id]);
    const issues = [];
    for (let n = 0; n < 3; n++) {
      const issue = await ok(t, ws.token, 'issues.create', { title: `raced ${n}` });
      await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
      issues.push(issue.id as string);
    }
    const at = later(31 * 60);
    // Each sweep's transaction stays open a moment after it fired, as a long sweep's would: without one sweep at a
    // time, none sees what the others are firing.
    const sweepInTransaction = async () => {
      const client = new pg.Client({ connectionString: t.ownerUrl });
      await client.connect();
      try {
        await client.query('begin');
        const fired = await sweep(client, at);
        await client.query('select pg_sleep(0.3)');
        await client.query('commit');
        return fired;
      } finally {
        await client.end();
      }
    };
    const runs = await Promise.all(Array.from({ length: 5 }, sweepInTransaction));
    for (const id of issues) {
      expect(runs.flatMap((fired) => firedFor(fired, id)).sort(), id).toEqual(['AGENT_NOACK', 'ISSUE_STALLED']);
      const { rows } = await sql(`select kind from app_public.activity_events where subject_id = $1 and kind in ('AGENT_NOACK', 'ISSUE_STALLED')`, [id]);
      expect(rows).toHaveLength(2);
    }
    await sql('update app_public.workspaces set required_ack_seconds = 0 where id = $1', [ws.id]);
  });

  it('is off when assignmentSlaMinutes is 0', async () => {
    await sql('update app_public.workspaces set assignment_sla_minutes = 0 where id = $1', [ws.id]);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'no sla' });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, agentId: agent.id });
    expect(firedFor(await sweepAt(later(10 * 24 * 3600)), issue.id)).toEqual([]);
  });
});

describe('ISSUE_SLA_BREACH', () => {
  it('fires once when a queued issue stays open past its own slaMinutes', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'has an sla', priority: 'URGENT' });
    await ok(t, ws.token, 'issues.update', { id: issue.id, slaMinutes: 15 });
    const unqueued = await ok(t, ws.token, 'issues.create', { title: 'never queued' });
    await ok(t, ws.token, 'issues.update', { id: unqueued.id, slaMinutes: 15 });
    await ok(t, ws.token, 'issues.queue', { id: issue.id });
    expect(firedFor(await sweepAt(later(14 * 60)), issue.id)).toEqual([]);
    const fired = await sweepAt(later(17 * 60 + 1));
    expect(firedFor(fired, issue.id)).toEqual(['ISSUE_SLA_BREACH']);
    expect(firedFor(fired, unqueued.id)).toEqual([]);
    expect((await lastEvent(ws, issue.id, 'ISSUE_SLA_BREACH')).payload).toEqual({
      issueId: issue.id, slaMinutes: 15, breachedByMinutes: 2, priority: 'URGENT',
    });
    expect(firedFor(await sweepAt(later(20 * 60)), issue.id)).toEqual([]);
  });

  it('watchdog events of one workspace stay in it', async () => {
    const other = await createWorkspace(t);
    const r = await ok(t, other.token, 'events.recent', { kinds: ['ISSUE_SLA_BREACH', 'ISSUE_STALLED', 'AGENT_NOACK'] });
    expect(r.items).toEqual([]);
  });
});

describe('presence', () => {
  it('an agent silent for agentRunStaleMinutes goes OFFLINE (reason heartbeat_timeout) and the dispatcher passes it by; a heartbeat brings it back', async () => {
    const other = await createWorkspace(t);
    const silent = await createAgent(t, other, 'silent');
    const silentKey = await createKey(t, other, { agent: 'silent', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const live = await createAgent(t, other, 'live');
    const liveKey = await createKey(t, other, { agent: 'live', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    await sql('update app_public.workspaces set agent_run_stale_minutes = 10 where id = $1', [other.id]);
    await ok(t, silentKey.token, 'agents.heartbeat', {});
    expect(firedFor(await sweepAt(later(9 * 60)), silent.id)).toEqual([]);
    await sql("update app_public.agents set last_heartbeat_at = now() + interval '9 minutes' where id = $1", [live.id]);
    const fired = await sweepAt(later(11 * 60));
    expect(firedFor(fired, silent.id)).toEqual(['AGENT_OFFLINE']);
    expect(firedFor(fired, live.id)).toEqual([]);  // its heartbeat is 2 minutes old then
    const [event] = (await ok(t, other.token, 'events.recent', { subjectType: 'agent', subjectId: silent.id, kinds: ['AGENT_STATUS_CHANGED'] })).items;
    expect(event.payload).toEqual({ agentId: silent.id, from: 'ONLINE', to: 'OFFLINE', reason: 'heartbeat_timeout' });
    expect((await ok(t, other.token, 'agents.get', { id: silent.id })).status).toBe('OFFLINE');
    // Queued work goes to the agent that is there.
    await ok(t, liveKey.token, 'agents.heartbeat', {});
    await sql("update app_public.workspaces set auto_dispatch = true, auto_dispatch_mode = 'ROUND_ROBIN' where id = $1", [other.id]);
    const queued = await ok(t, other.token, 'issues.create', { title: 'for whoever is there' });
    await ok(t, other.token, 'issues.queue', { id: queued.id });
    const client = await t.pools.owner.connect();
    try {
      await dispatchWorkspace(client, other.id);
    } finally {
      client.release();
    }
    expect((await ok(t, other.token, 'issues.get', { id: queued.id })).assignedAgentId).toBe(live.id);
    // Its next heartbeat, with an ordinary status change event.
    await ok(t, silentKey.token, 'agents.heartbeat', {});
    const [back] = (await ok(t, other.token, 'events.recent', { subjectType: 'agent', subjectId: silent.id, kinds: ['AGENT_STATUS_CHANGED'] })).items;
    expect(back.payload).toEqual({ agentId: silent.id, from: 'OFFLINE', to: 'ONLINE' });
  });

  it('an agent whose last live key is revoked goes OFFLINE at once (reason keys_revoked); a new key and a heartbeat bring it back', async () => {
    const { admin } = await import('../support/harness.ts');
    const other = await createWorkspace(t);
    const keyed = await createAgent(t, other, 'keyed');
    const first = await createKey(t, other, { agent: 'keyed', scopes: ['READ_ISSUES'] });
    const second = await createKey(t, other, { agent: 'keyed', scopes: ['READ_ISSUES'] });
    // Same profile key in another workspace: its keys and status are its own.
    const elsewhere = await createWorkspace(t);
    const twin = await createAgent(t, elsewhere, 'keyed');
    const twinKey = await createKey(t, elsewhere, { agent: 'keyed', scopes: ['READ_ISSUES'] });
    await ok(t, first.token, 'agents.heartbeat', {});
    await ok(t, twinKey.token, 'agents.heartbeat', {});
    const status = async (w: Workspace, id: string) => (await ok(t, w.token, 'agents.get', { id })).status;

    await admin(t, 'revoke-key', { id: first.id, json: true });
    expect(await status(other, keyed.id)).toBe('ONLINE');  // one key still works
    await admin(t, 'revoke-key', { id: second.id, json: true });
    expect(await status(other, keyed.id)).toBe('OFFLINE');
    expect(await status(elsewhere, twin.id)).toBe('ONLINE');
    const [event] = (await ok(t, other.token, 'events.recent', { subjectType: 'agent', subjectId: keyed.id, kinds: ['AGENT_STATUS_CHANGED'] })).items;
    expect(event.payload).toEqual({ agentId: keyed.id, from: 'ONLINE', to: 'OFFLINE', reason: 'keys_revoked' });

    const fresh = await createKey(t, other, { agent: 'keyed', scopes: ['READ_ISSUES'] });
    await ok(t, fresh.token, 'agents.heartbeat', {});
    expect(await status(other, keyed.id)).toBe('ONLINE');

    // A heartbeat that waits on the agent's row while its last key is being revoked is refused once it gets the row
    // (it set the agent back ONLINE, with no key left to act).
    const revoking = await t.pools.owner.connect();
    try {
      await revoking.query('begin');
      await revoking.query('update app_private.api_keys set revoked_at = now() where id = $1', [fresh.id]);
      const beat = rest(t, fresh.token, 'agents.heartbeat', {});
      await new Promise((r) => setTimeout(r, 300));
      await revoking.query('commit');
      expect((await beat).status).toBe(401);
    } finally {
      revoking.release();
    }
    expect(await status(other, keyed.id)).toBe('OFFLINE');
  });

  it('the presence sweep sets OFFLINE an agent whose keys have all expired (reason keys_expired); one that never had a key is left to the window', async () => {
    const other = await createWorkspace(t);
    const expiring = await createAgent(t, other, 'expiring');
    const key = await createKey(t, other, { agent: 'expiring', scopes: ['READ_ISSUES'], ttlHours: 1 });
    await ok(t, key.token, 'agents.heartbeat', {});
    const keyless = await createAgent(t, other, 'keyless');
    await sql("update app_public.agents set status = 'ONLINE', last_heartbeat_at = now() where id = $1", [keyless.id]);
    expect(firedFor(await sweepAt(later(60)), expiring.id)).toEqual([]);
    await sql(`update app_private.api_keys set expires_at = now() - interval '1 second' where id = $1`, [key.id]);
    const fired = await sweepAt(later(60));
    expect(firedFor(fired, expiring.id)).toEqual(['AGENT_OFFLINE']);
    expect(firedFor(fired, keyless.id)).toEqual([]);
    const [event] = (await ok(t, other.token, 'events.recent', { subjectType: 'agent', subjectId: expiring.id, kinds: ['AGENT_STATUS_CHANGED'] })).items;
    expect(event.payload).toEqual({ agentId: expiring.id, from: 'ONLINE', to: 'OFFLINE', reason: 'keys_expired' });
  });
});

describe('reclaim', () => {
  it('a crashed agent silent past offlineReclaimMinutes loses its open runs and unfinished issues; one that said OFFLINE, or still calls, keeps them', async () => {
    const other = await createWorkspace(t);
    const updated = await ok(t, other.token, 'workspace.updateSettings', { agentRunStaleMinutes: 10, offlineReclaimMinutes: 20 });
    expect(updated).toMatchObject({ agentRunStaleMinutes: 10, offlineReclaimMinutes: 20 });
    const [settingsEvent] = (await ok(t, other.token, 'events.recent', { kinds: ['WORKSPACE_UPDATED'] })).items;
    expect(settingsEvent.payload.changes).toEqual(['agentRunStaleMinutes', 'offlineReclaimMinutes']);
    const scopes: ('READ_ISSUES' | 'WRITE_ISSUES')[] = ['READ_ISSUES', 'WRITE_ISSUES'];
    const agentWithKey = async (w: Workspace, name: string) => {
      const a = await createAgent(t, w, name);
      const key = await createKey(t, w, { agent: name, scopes });
      await ok(t, key.token, 'agents.heartbeat', {});
      return { ...a, key };
    };
    const crashed = await agentWithKey(other, 'crashed');
    const resting = await agentWithKey(other, 'resting');
    const calling = await agentWithKey(other, 'calling');
    const assigned = async (w: Workspace, agentId: string, title: string) => {
      const issue = await ok(t, w.token, 'issues.create', { title });
      await ok(t, w.token, 'issues.assign', { id: issue.id, agentId });
      return issue;
    };
    const queued = await assigned(other, crashed.id, 'queued, then dispatched to the crashed agent');
    await ok(t, other.token, 'issues.queue', { id: queued.id });
    const plain = await assigned(other, crashed.id, 'assigned by hand');
    const done = await assigned(other, crashed.id, 'already done');
    const doneStatus = (await ok(t, other.token, 'statuses.list', { category: 'DONE' }))[0];
    await ok(t, other.token, 'issues.transition', { id: done.id, statusId: doneStatus.id });
    const restingIssue = await assigned(other, resting.id, 'held by an agent that signed off');
    const callingIssue = await assigned(other, calling.id, 'held by an agent that calls without heartbeats');
    await ok(t, resting.key.token, 'agents.heartbeat', { status: 'OFFLINE' });
    // The same in a workspace that turned reclaiming off.
    const off = await createWorkspace(t);
    await ok(t, off.token, 'workspace.updateSettings', { agentRunStaleMinutes: 10, offlineReclaimMinutes: 0 });
    const kept = await agentWithKey(off, 'crashed');
    const keptIssue = await assigned(off, kept.id, 'kept: reclaiming is off');

    const wentOffline = await sweepAt(later(11 * 60));
    for (const a of [crashed, calling, kept]) expect(firedFor(wentOffline, a.id)).toEqual(['AGENT_OFFLINE']);
    // Still calling after it went OFFLINE (key use is recorded in batches; written here as the batch would).
    await sql("update app_private.api_keys set last_used_at = now() + interval '1 minute' where id = $1", [calling.key.id]);
    expect(firedFor(await sweepAt(later(19 * 60)), crashed.id)).toEqual([]);

    const fired = await sweepAt(later(21 * 60));
    expect(firedFor(fired, crashed.id)).toEqual(['AGENT_WORK_RECLAIMED']);
    for (const a of [resting, calling, kept]) expect(firedFor(fired, a.id)).toEqual([]);
    const assignee = async (w: Workspace, id: string) => (await ok(t, w.token, 'issues.get', { id })).assignedAgentId;
    expect(await assignee(other, queued.id)).toBeNull();
    expect(await assignee(other, plain.id)).toBeNull();
    expect(await assignee(other, done.id)).toBe(crashed.id);  // finished work keeps its agent
    expect(await assignee(other, restingIssue.id)).toBe(resting.id);
    expect(await assignee(other, callingIssue.id)).toBe(calling.id);
    expect(await assignee(off, keptIssue.id)).toBe(kept.id);
    // The issue's event says from whom and why; the run's, why it ended.
    const updatedEvent = await lastEvent(other, plain.id, 'ISSUE_UPDATED');
    expect(updatedEvent.payload).toMatchObject({ changes: ['assignedAgentId'], unassignedAgentId: crashed.id, unassignReason: 'agent_offline' });
    const runs = (await ok(t, other.token, 'runs.list', { issueId: plain.id })).items;
    expect(runs.map((r: { status: string }) => r.status)).toEqual(['ABANDONED']);
    const runEvent = await lastEvent(other, plain.id, 'AGENT_RUN_STATUS_CHANGED');
    expect(runEvent.payload).toMatchObject({ agentId: crashed.id, to: 'ABANDONED', reason: 'agent_offline' });
    // Once: nothing is left to take.
    expect(firedFor(await sweepAt(later(22 * 60)), crashed.id)).toEqual([]);

    // The queued issue goes to an agent that is there.
    const live = await agentWithKey(other, 'live');
    await ok(t, other.token, 'workspace.updateSettings', { autoDispatch: true, autoDispatchMode: 'ROUND_ROBIN' });
    const client = await t.pools.owner.connect();
    try {
      await dispatchWorkspace(client, other.id);
    } finally {
      client.release();
    }
    expect(await assignee(other, queued.id)).toBe(live.id);
    expect(await assignee(other, plain.id)).toBeNull();  // not queued: a person decides
  });

  it('offlineReclaimMinutes is an ADMIN setting: a negative value is 400, a member key 403, and the CLI sets it', async () => {
    const { admin } = await import('../support/harness.ts');
    const w = await createWorkspace(t);
    const bad = await rest(t, w.token, 'workspace.updateSettings', { offlineReclaimMinutes: -1 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues)).toEqual(['offlineReclaimMinutes']);
    const member = await createKey(t, w, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    expect((await rest(t, member.token, 'workspace.updateSettings', { offlineReclaimMinutes: 5 })).status).toBe(403);
    const r = await admin(t, 'update-workspace', { workspace: w.key, 'offline-reclaim-minutes': '0', json: true });
    expect(r.workspace.offlineReclaimMinutes).toBe(0);
    expect((await ok(t, w.token, 'workspace.get', {})).offlineReclaimMinutes).toBe(0);
  });
});

describe('operator commands', () => {
  it('svc admin sweep prints what fired; create-dispatch-rule appends a rule the dispatcher follows', async () => {
    const { admin } = await import('../support/harness.ts');
    const w = await createWorkspace(t);
    await admin(t, 'update-workspace', { workspace: w.key, 'required-ack-seconds': '1', json: true });
    const a = await createAgent(t, w, 'cli-agent');
    const issue = await ok(t, w.token, 'issues.create', { title: 'swept' });
    await ok(t, w.token, 'issues.assign', { id: issue.id, agentId: a.id });
    await new Promise((r) => setTimeout(r, 1_100));
    const r = await admin(t, 'sweep', { json: true });
    expect(r.fired).toContainEqual({ kind: 'AGENT_NOACK', subjectId: issue.id });
    expect((await admin(t, 'sweep', { json: true })).fired).not.toContainEqual({ kind: 'AGENT_NOACK', subjectId: issue.id });

    const rule = await admin(t, 'create-dispatch-rule', { workspace: w.key, target: 'cli-agent', priority: 'HIGH', json: true });
    expect(rule.rule).toMatchObject({ position: 0, targetAgentId: a.id, priority: 'HIGH' });
    const second = await admin(t, 'create-dispatch-rule', { workspace: w.key, target: 'cli-agent', json: true });
    expect(second.rule.position).toBe(1);
    await expect(admin(t, 'create-dispatch-rule', { workspace: w.key, target: 'nobody', json: true })).rejects.toThrow(/agent/i);
    await expect(admin(t, 'create-dispatch-rule', { workspace: w.key, target: 'cli-agent', label: '00000000-0000-4000-8000-000000000000', json: true }))
      .rejects.toThrow(/label/i);
  });
});
