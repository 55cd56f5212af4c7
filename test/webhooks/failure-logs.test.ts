/** Background failures reach the log (pino) with ids, never secrets: failed and dead-lettered deliveries, failed jobs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { LogThrottle } from '../../src/log.ts';
import { admin, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let ws: Workspace;
let receiver: Receiver;
const lines: string[] = [];
const logged = () => lines.map((l) => JSON.parse(l) as Record<string, any>);

beforeAll(async () => {
  const logger = createLogger('debug', { write: (s: string) => void lines.push(s) });
  t = await startTestApp({ worker: { backoffSeconds: [0.1], timeoutMs: 2000, logger } });
  ws = await createWorkspace(t);
  receiver = await startReceiver(() => ({ status: 500, body: 'receiver broke' }));
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('the retry lines of one endpoint', () => {
  it('go out at warn once a minute, the next counting those held back (a tenant\'s broken receivers wrote 12,842 in 20 minutes)', () => {
    const throttle = new LogThrottle(60_000);
    const at = (s: number) => throttle.take('webhook:a', 1_000_000 + s * 1000);
    expect([at(0), at(1), at(30), at(59)]).toEqual([
      { warn: true, suppressed: 0 }, { warn: false, suppressed: 0 }, { warn: false, suppressed: 0 }, { warn: false, suppressed: 0 }]);
    expect(at(60)).toEqual({ warn: true, suppressed: 3 });
    expect(throttle.take('webhook:b', 1_000_000 + 61_000)).toEqual({ warn: true, suppressed: 0 }); // each endpoint its own
  });
});

describe('background failure logs', () => {
  it('logs each failed attempt and the dead letter with delivery and event ids, the host only, no secret', async () => {
    const url = `${receiver.url}/hooks/PATH-TOKEN-123?token=QUERY-TOKEN-456`;
    const { webhook } = await admin(t, 'create-webhook', { workspace: ws.key, url, json: true });
    await ok(t, ws.token, 'issues.create', { title: 'Will not arrive' });
    const { rows: [delivery] } = await until(
      () => t.pools.owner.query(`select id, event_id, status from app_public.webhook_deliveries where webhook_id = $1`, [webhook.id]),
      (r) => r.rows[0]?.status === 'DEAD_LETTER');
    const entries = await until(logged, (es) => es.some((e) => e.deliveryId === delivery.id && e.deliveryStatus === 'DEAD_LETTER'));
    const mine = entries.filter((e) => e.deliveryId === delivery.id);
    const retry = mine.find((e) => e.deliveryStatus === 'PENDING')!;
    expect(retry).toMatchObject({ level: 40, eventId: delivery.event_id, attempt: 1, statusCode: 500, host: new URL(receiver.url).host, nextAttemptAt: expect.any(String) });
    expect(retry.msg).toMatch(/will retry/);
    const dead = mine.find((e) => e.deliveryStatus === 'DEAD_LETTER')!;
    expect(dead).toMatchObject({ level: 50, eventId: delivery.event_id, attempt: 2, statusCode: 500 });
    expect(dead.msg).toMatch(/dead-lettered/);
    const text = lines.join('\n');
    for (const secret of [webhook.secret, 'PATH-TOKEN-123', 'QUERY-TOKEN-456', 'receiver broke', ws.token]) expect(text).not.toContain(secret);
  });

  it('logs a job that throws with its job id and task, never its payload', async () => {
    const { rows: [job] } = await t.pools.owner.query(
      `select id from graphile_worker.add_job('svc_webhook_deliver', '{"deliveryId":"not-a-uuid-SECRET-PAYLOAD"}'::json, max_attempts := 1)`);
    const entry = (await until(logged, (es) => es.some((e) => String(e.jobId) === String(job.id) && e.msg?.includes('failed for good'))))
      .find((e) => String(e.jobId) === String(job.id) && e.msg.includes('failed for good'))!;
    expect(entry).toMatchObject({ level: 50, task: 'svc_webhook_deliver', attempt: 1, maxAttempts: 1, error: expect.any(String) });
    await new Promise((r) => setTimeout(r, 200)); // Graphile Worker's own lines about the job come after ours
    expect(lines.join('\n')).not.toContain('SECRET-PAYLOAD');
  });
});
