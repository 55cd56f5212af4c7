/**
 * The in-app dashboards of spec 4.14 (GraphQL only): agentsPipeline, agentTimeline, agentUptime, webhookHealth,
 * dispatchSummary, dispatchTimeseries. Counts against what the test did; another workspace's agent is 404; webhook
 * health is an unnarrowed admin's; none of them is an MCP tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let worker: { id: string };
let workerKey: { token: string };

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'DSH');
  other = await createWorkspace(t, 'OTD');
  worker = await createAgent(t, ws, 'dash-worker');
  workerKey = await createKey(t, ws, { agent: 'dash-worker' });
});
afterAll(() => t.close());

describe('agent operations dashboards', () => {
  it('agentsPipeline counts open assigned issues and runs; agentTimeline lists the agent\'s events; agentUptime sums its statuses', async () => {
    const first = await ok(t, ws.token, 'issues.create', { title: 'Pipeline one' });
    const second = await ok(t, ws.token, 'issues.create', { title: 'Pipeline two' });
    const run1 = (await ok(t, ws.token, 'issues.assign', { id: first.id, agentId: worker.id })).currentRun.id;
    await ok(t, ws.token, 'issues.assign', { id: second.id, agentId: worker.id });
    await ok(t, workerKey.token, 'runs.complete', { runId: run1, summary: 'done' });
    await ok(t, ws.token, 'issues.queue', { id: (await ok(t, ws.token, 'issues.create', { title: 'Waiting in the queue' })).id });
    await ok(t, workerKey.token, 'agents.heartbeat', { status: 'ONLINE' });

    const { agentsPipeline } = await gqlOk(t, ws.token, '{ agentsPipeline }');
    const row = agentsPipeline.agents.find((a: { agentId: string }) => a.agentId === worker.id);
    expect(row).toMatchObject({ profileKey: 'dash-worker', status: 'ONLINE', assignedOpen: 2,
      runs: { active: 1, waiting: 0, stalled: 0, completed: 1, abandoned: 0 } });
    expect(agentsPipeline.queuedUnassigned).toBe(1);

    const { agentTimeline } = await gqlOk(t, ws.token, 'query($a: UUID!) { agentTimeline(agentId: $a) }', { a: worker.id });
    const kinds = agentTimeline.items.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'AGENT_ASSIGNED')).toHaveLength(2);
    expect(kinds).toContain('AGENT_STATUS_CHANGED');
    expect(kinds).toContain('AGENT_RUN_STATUS_CHANGED');
    expect(agentTimeline.items.map((e: { at: string }) => e.at)).toEqual([...agentTimeline.items.map((e: { at: string }) => e.at)].sort().reverse());
    expect((await gqlOk(t, ws.token, 'query($a: UUID!) { agentTimeline(agentId: $a, maxItems: 1) }', { a: worker.id })).agentTimeline.items).toHaveLength(1);
    // Each line names its issue; an issue taken from the agent shows too.
    expect(agentTimeline.items.find((e: { kind: string }) => e.kind === 'AGENT_ASSIGNED')).toMatchObject({ issueKey: expect.stringMatching(/^DSH-/) });
    await ok(t, ws.token, 'issues.unassign', { id: second.id });
    const after = (await gqlOk(t, ws.token, 'query($a: UUID!) { agentTimeline(agentId: $a, sinceHours: null) }', { a: worker.id })).agentTimeline;
    expect(after.items[0]).toMatchObject({ kind: 'ISSUE_UPDATED', issueKey: second.key, payload: { unassignedAgentId: worker.id } });
    await ok(t, ws.token, 'issues.assign', { id: second.id, agentId: worker.id });

    // OFFLINE for an hour, then ONLINE for the last ten minutes (the status change moved back in time).
    await t.pools.owner.query(`update app_public.activity_events set created_at = now() - interval '10 minutes'
      where kind = 'AGENT_STATUS_CHANGED' and subject_id = $1`, [worker.id]);
    await t.pools.owner.query(`update app_public.agents set created_at = now() - interval '2 hours' where id = $1`, [worker.id]);
    const { agentUptime } = await gqlOk(t, ws.token, 'query($a: UUID!) { agentUptime(agentId: $a, sinceHours: 1) }', { a: worker.id });
    expect(agentUptime).toMatchObject({ status: 'ONLINE', changes: 1 });
    expect(agentUptime.secondsByStatus.OFFLINE).toBeGreaterThan(3000 - 5);
    expect(agentUptime.secondsByStatus.ONLINE).toBeGreaterThan(600 - 5);
    expect(agentUptime.uptimeRatio).toBeGreaterThan(0.16);
    expect(agentUptime.uptimeRatio).toBeLessThan(0.18);
  });

  it('agentUptime counts from the agent\'s creation when that is inside the window (no OFFLINE time before it existed)', async () => {
    const fresh = await createAgent(t, ws, 'dash-fresh');
    const { agentUptime } = await gqlOk(t, ws.token, 'query($a: UUID!) { agentUptime(agentId: $a, sinceHours: 24) }', { a: fresh.id });
    expect(agentUptime.secondsByStatus.OFFLINE).toBeLessThan(60);
    expect(new Date(agentUptime.windowStart).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('dispatchTimeseries counts the window only, though its first bucket starts on the clock before it', async () => {
    const quiet = await createWorkspace(t);
    for (const minutesAgo of [105, 30]) {
      const { rows: [e] } = await t.pools.owner.query(`select app_private.record_event($1, 'ISSUE_QUEUED', 'issue', null, '{}') as id`, [quiet.id]);
      await t.pools.owner.query(`update app_public.activity_events set created_at = now() - make_interval(mins => $2) where id = $1`, [e.id, minutesAgo]);
    }
    const { dispatchTimeseries } = await gqlOk(t, quiet.token, '{ dispatchTimeseries(sinceHours: 1, bucketMinutes: 60) }');
    expect(dispatchTimeseries.buckets.reduce((n: number, b: { queued: number }) => n + b.queued, 0)).toBe(1);
  });

  it('bounds its arguments, and another workspace\'s agent is not there', async () => {
    const foreign = await createAgent(t, other, 'foreign-worker');
    for (const q of ['{ agentTimeline(agentId: "%") }', '{ agentUptime(agentId: "%") }']) {
      expect(await gqlError(t, ws.token, q.replace('%', foreign.id)), q).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect(await gqlError(t, ws.token, '{ agentsPipeline(sinceHours: 0) }')).toMatchObject({ code: 'invalid_input', issues: { sinceHours: expect.any(String) } });
    // Also where nothing in the window is read (no agent has finished a run; no assignment): the bound was checked
    // only when a row reached it.
    const empty = await createWorkspace(t);
    for (const q of ['{ agentsPipeline(sinceHours: -5) }', '{ agentsPipeline(sinceHours: 2000000000) }', '{ dispatchSummary(sinceHours: -5) }']) {
      expect(await gqlError(t, empty.token, q), q).toMatchObject({ code: 'invalid_input', issues: { sinceHours: expect.any(String) } });
    }
    expect(await gqlError(t, ws.token, '{ dispatchTimeseries(sinceHours: 720, bucketMinutes: 5) }')).toMatchObject({ code: 'invalid_input', issues: { bucketMinutes: expect.any(String) } });
    // The other workspace sees none of this one's agents.
    const { agentsPipeline } = await gqlOk(t, other.token, '{ agentsPipeline }');
    expect(agentsPipeline.agents.map((a: { profileKey: string }) => a.profileKey)).toEqual(['foreign-worker']);
  });

  it('webhookHealth: attempts, failures and success rate per webhook; refused to a member and a narrowed key', async () => {
    await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/health', json: true });
    const { rows: [hook] } = await t.pools.owner.query("select id from app_public.webhooks where workspace_id = $1 and url like '%/health'", [ws.id]);
    const { rows: [delivery] } = await t.pools.owner.query(
      `insert into app_public.webhook_deliveries (workspace_id, webhook_id, event_id, channel, status, delivered_at)
       select $1, $2, e.id, 'webhook', 'DELIVERED', now() from app_public.activity_events e where e.workspace_id = $1 limit 1 returning id`, [ws.id, hook.id]);
    for (const [n, status] of [[1, 500], [2, 200]] as const) {
      await t.pools.owner.query(`insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at, duration_ms, status_code)
        values ($1, $2, $3, 'https://hooks.example.com/health', now(), 40, $4)`, [ws.id, delivery.id, n, status]);
    }
    const { webhookHealth } = await gqlOk(t, ws.token, '{ webhookHealth }');
    expect(webhookHealth.webhooks.find((w: { webhookId: string }) => w.webhookId === hook.id)).toMatchObject({
      active: true, delivered: 1, attempts: 2, failedAttempts: 1, successRate: 0.5, p95DurationMs: 40, lastError: 'HTTP 500', pending: 0, deadLetters: 0 });
    await admin(t, 'add-member', { workspace: ws.key, email: 'dash-member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'dash-member@example.com' });
    const project = await ok(t, ws.token, 'projects.create', { name: 'Narrow dash' });
    const narrowed = await createKey(t, ws, { projects: [project.id] });
    // As every webhook procedure and tool says it (require_webhook_admin): the role, the narrowing, the ADMIN scope.
    expect(await gqlError(t, member.token, '{ webhookHealth }')).toMatchObject({ code: 'admin_required', status: 403 });
    expect(await gqlError(t, narrowed.token, '{ webhookHealth }')).toMatchObject({ code: 'narrowing', status: 403 });
    const noAdminScope = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    expect(await gqlError(t, noAdminScope.token, '{ webhookHealth }')).toMatchObject({ code: 'scope_required', scope: 'ADMIN' });
  });
});

describe('dispatch analytics', () => {
  it('dispatchSummary counts assignments by reason, mode and agent, and the queue-to-assignment wait; dispatchTimeseries buckets them', async () => {
    const queued = await ok(t, ws.token, 'issues.create', { title: 'Dispatched by hand of the test' });
    await ok(t, ws.token, 'issues.queue', { id: queued.id });
    // An automatic assignment as the dispatcher records it (AGENT_ASSIGNED auto, after the ISSUE_QUEUED).
    await t.pools.owner.query(`select app_private.record_event($1, 'AGENT_ASSIGNED', 'issue', $2,
      jsonb_build_object('agentId', $3::uuid, 'to', $3::uuid, 'auto', true, 'reason', 'round-robin', 'dispatch', jsonb_build_object('mode', 'ROUND_ROBIN')))`,
      [ws.id, queued.id, worker.id]);
    const { dispatchSummary } = await gqlOk(t, ws.token, '{ dispatchSummary }');
    expect(dispatchSummary).toMatchObject({ automatic: 1, byMode: { ROUND_ROBIN: 1 }, byReason: { 'round-robin': 1 } });
    expect(dispatchSummary.assignments).toBe(dispatchSummary.automatic + dispatchSummary.manual);
    expect(dispatchSummary.byAgent.find((a: { agentId: string }) => a.agentId === worker.id)).toMatchObject({ profileKey: 'dash-worker' });
    expect(dispatchSummary.queueToAssignSeconds.count).toBe(1);
    expect(dispatchSummary.queueToAssignSeconds.p50).toBeGreaterThanOrEqual(0);

    const { dispatchTimeseries } = await gqlOk(t, ws.token, '{ dispatchTimeseries(sinceHours: 2, bucketMinutes: 30) }');
    // Buckets start on the clock: the first holds the window's start, so 4 or 5 of them cover 2 hours.
    expect(dispatchTimeseries.buckets.length).toBeGreaterThanOrEqual(4);
    expect(dispatchTimeseries.buckets.length).toBeLessThanOrEqual(5);
    expect(dispatchTimeseries.buckets.every((b: { start: string }) => new Date(b.start).getTime() % 1_800_000 === 0)).toBe(true);
    const total = (k: string) => dispatchTimeseries.buckets.reduce((n: number, b: Record<string, number>) => n + b[k]!, 0);
    expect([total('assigned'), total('automatic')]).toEqual([dispatchSummary.assignments, 1]);
    expect(total('queued')).toBeGreaterThanOrEqual(2);
    // The other workspace counts none of it.
    expect((await gqlOk(t, other.token, '{ dispatchSummary }')).dispatchSummary).toMatchObject({ assignments: 0, automatic: 0 });
    // A rule's fallback names its rule (spec 6.4); the summary counts it as one reason, whichever rule.
    for (const rule of [crypto.randomUUID(), crypto.randomUUID()]) {
      await t.pools.owner.query(`select app_private.record_event($1, 'AGENT_ASSIGNED', 'issue', $2,
        jsonb_build_object('agentId', $3::uuid, 'auto', true, 'reason', 'rule:' || $4 || ':target-ineligible,round-robin pick'))`,
        [ws.id, queued.id, worker.id, rule]);
    }
    expect((await gqlOk(t, ws.token, '{ dispatchSummary(sinceHours: null) }')).dispatchSummary)
      .toMatchObject({ sinceHours: 24, byReason: { 'rule:target-ineligible,round-robin pick': 2 } });
    // Dispatch analytics are analytics: READ_ANALYTICS (spec 5.4), as analytics.* need it.
    const noAnalytics = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    for (const q of ['{ dispatchSummary }', '{ dispatchTimeseries }']) {
      expect(await gqlError(t, noAnalytics.token, q), q).toMatchObject({ code: 'scope_required', scope: 'READ_ANALYTICS' });
    }
    // Also in a workspace with nothing assigned yet (the summary's check ran only when an assignment was read).
    const quiet = await createWorkspace(t);
    const quietKey = await createKey(t, quiet, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    for (const q of ['{ dispatchSummary }', '{ dispatchTimeseries }']) {
      expect(await gqlError(t, quietKey.token, q), q).toMatchObject({ code: 'scope_required', scope: 'READ_ANALYTICS' });
    }
  });

  it('none of the dashboards is an MCP tool (spec 4.14)', async () => {
    const names = TOOLS.map((x) => x.name.toLowerCase());
    for (const word of ['pipeline', 'timeline', 'uptime', 'webhookhealth', 'dispatchsummary', 'timeseries']) {
      expect(names.filter((n) => n.includes(word)), word).toEqual([]);
    }
    expect((await gql(t, ws.token, '{ agentsPipeline }')).errors).toBeUndefined();
  });
});
