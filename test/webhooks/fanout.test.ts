/**
 * A transaction that fans out to many webhook deliveries: the first 200 get their jobs in the transaction, the rest
 * from one svc_webhook_fanout job after commit (a shapes probe's label on 2,999 issues with 40 webhooks ran past every
 * time limit, a job per delivery costing the writer ~0.3 ms). Every delivery still arrives, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createWorkspace, ok, startTestApp, type TestApp } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ worker: { backoffSeconds: [0.1], timeoutMs: 2000 } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('a large fan-out', () => {
  it('queues 200 jobs in the transaction and the rest after commit; each delivery arrives once', async () => {
    const ws = await createWorkspace(t);
    const hooks = [];
    for (let i = 0; i < 3; i++) hooks.push((await admin(t, 'create-webhook', { workspace: ws.key, url: `${receiver.url}/fan${i}`, events: 'PROJECT_UPDATED', json: true })).webhook);
    const client = await t.pools.owner.connect();
    let queuedInside: number;
    try {
      await client.query('begin');
      await client.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, jsonb_build_object('n', n)) from generate_series(1, 100) n`, [ws.id]);
      const { rows: [jobs] } = await client.query(
        `select count(*)::int as n from graphile_worker.jobs j join app_public.webhook_deliveries d on j.key = 'svc_webhook:' || d.id where d.workspace_id = $1`, [ws.id]);
      queuedInside = jobs.n;
      const { rows: [fanout] } = await client.query(`select count(*)::int as n from graphile_worker.jobs where key = 'svc_fanout:' || $1`, [ws.id]);
      expect(fanout.n).toBe(1);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(queuedInside).toBe(200);
    const delivered = await until(async () => {
      const { rows } = await t.pools.owner.query(`select count(*) filter (where status = 'DELIVERED')::int as done, count(*)::int as n from app_public.webhook_deliveries where workspace_id = $1`, [ws.id]);
      return rows[0];
    }, (r) => r.done === 300, 30_000);
    expect(delivered.n).toBe(300);
    const got = receiver.requests.filter((r) => r.url.startsWith('/fan'));
    expect(got).toHaveLength(300);
    expect(new Set(got.map((r) => `${r.url} ${r.headers['webhook-id']}`)).size).toBe(300);
  }, 60_000);

  it('a tool call that changes hundreds of issues answers, and every webhook hears of each', async () => {
    const ws = await createWorkspace(t);
    for (let i = 0; i < 4; i++) await admin(t, 'create-webhook', { workspace: ws.key, url: `${receiver.url}/wide${i}`, events: 'ISSUE_UPDATED', json: true });
    const label = await ok(t, ws.token, 'labels.create', { name: 'wide' });
    for (let i = 0; i < 3; i++) await ok(t, ws.token, 'issues.createMany', { items: Array.from({ length: 50 }, (_, j) => ({ title: `w${i}-${j}`, labelIds: [label.id] })) });
    await ok(t, ws.token, 'labels.delete', { id: label.id });
    // 150 ISSUE_UPDATED events × 4 webhooks.
    await until(async () => receiver.requests.filter((r) => r.url.startsWith('/wide') && r.headers['x-svc-event'] === 'ISSUE_UPDATED').length, (n) => n >= 600, 30_000);
  }, 60_000);
});
