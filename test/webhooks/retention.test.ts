/**
 * Ended deliveries (delivered, dead-lettered, canceled) are kept SVC_DELIVERY_RETENTION_DAYS with their attempts, then
 * pruned by the worker's hourly svc_deliveries_prune; pending ones never; 0 keeps everything. They grew forever.
 */
import type { JobHelpers } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { webhookTasks } from '../../src/webhooks/tasks.ts';
import { admin, createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let hookId: string;

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  hookId = (await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/retention', json: true })).webhook.id;
});
afterAll(() => t.close());

/** A delivery of a fresh event that ended `daysAgo` days ago with the status given, with one attempt. */
async function delivery(status: string, daysAgo: number): Promise<string> {
  const { rows: [e] } = await t.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}') as id`, [ws.id]);
  const ended = `now() - make_interval(days => ${daysAgo})`;
  // updated_at (a canceled delivery's end) is stamped by a trigger: set back with the table's triggers off.
  const client = await t.pools.owner.connect();
  let d: { id: string } | undefined;
  try {
    await client.query('begin');
    await client.query('alter table app_public.webhook_deliveries disable trigger user');
    ({ rows: [d] } = await client.query<{ id: string }>(
      `update app_public.webhook_deliveries set status = $3,
         delivered_at = case when $3 = 'DELIVERED' then ${ended} end, dead_lettered_at = case when $3 = 'DEAD_LETTER' then ${ended} end,
         updated_at = ${ended}
       where webhook_id = $1 and event_id = $2 returning id`, [hookId, e.id, status]));
    await client.query('alter table app_public.webhook_deliveries enable trigger user');
    await client.query('commit');
  } finally {
    client.release();
  }
  await t.pools.owner.query(`insert into app_public.webhook_delivery_attempts (workspace_id, delivery_id, attempt_number, url, started_at, duration_ms, status_code)
    values ($1, $2, 1, 'https://hooks.example.com/retention', ${ended}, 5, 200)`, [ws.id, d!.id]);
  return d!.id;
}

const prune = (deliveryRetentionDays?: number) => webhookTasks({ allowPrivate: false, deliveryRetentionDays }).svc_deliveries_prune!(
  {}, { withPgClient: (fn: (c: unknown) => unknown) => t.pools.owner.connect().then(async (c) => { try { return await fn(c); } finally { c.release(); } }) } as unknown as JobHelpers);
const left = async (ids: string[]) => (await t.pools.owner.query('select id from app_public.webhook_deliveries where id = any($1)', [ids])).rows.map((r) => r.id).sort();

describe('delivery retention', () => {
  it('prunes deliveries that ended past the retention, with their attempts; keeps recent and pending ones', async () => {
    const old = [await delivery('DELIVERED', 40), await delivery('DEAD_LETTER', 31), await delivery('CANCELED', 60)];
    const kept = [await delivery('DELIVERED', 5), await delivery('PENDING', 90)];
    await prune(0); // 0 keeps everything
    expect(await left([...old, ...kept])).toEqual([...old, ...kept].sort());
    await prune(); // the default, 30 days
    expect(await left([...old, ...kept])).toEqual([...kept].sort());
    const { rows } = await t.pools.owner.query('select count(*)::int as n from app_public.webhook_delivery_attempts where delivery_id = any($1)', [old]);
    expect(rows[0].n).toBe(0);
  });

  it('SVC_DELIVERY_RETENTION_DAYS: 30 by default, 0 allowed, anything else a whole number of days', () => {
    expect(loadConfig({}).deliveryRetentionDays).toBe(30);
    expect(loadConfig({ SVC_DELIVERY_RETENTION_DAYS: '0' }).deliveryRetentionDays).toBe(0);
    expect(() => loadConfig({ SVC_DELIVERY_RETENTION_DAYS: '-1' })).toThrow(/SVC_DELIVERY_RETENTION_DAYS/);
  });

  it('SVC_WEBHOOK_DISABLE_AFTER_HOURS: 72 by default, 0 (never) allowed, at most a year of hours', () => {
    expect(loadConfig({}).webhookDisableAfterHours).toBe(72);
    expect(loadConfig({ SVC_WEBHOOK_DISABLE_AFTER_HOURS: '0' }).webhookDisableAfterHours).toBe(0);
    expect(() => loadConfig({ SVC_WEBHOOK_DISABLE_AFTER_HOURS: '1.5' })).toThrow(/SVC_WEBHOOK_DISABLE_AFTER_HOURS/);
    expect(() => loadConfig({ SVC_WEBHOOK_DISABLE_AFTER_HOURS: '8761' })).toThrow(/SVC_WEBHOOK_DISABLE_AFTER_HOURS/);
  });
});
