/**
 * The worker through a database outage: a delivery whose attempt ends while PostgreSQL is unreachable can neither
 * record its outcome nor fail its job. Graphile Worker 0.18 did not await that write when unbatched, and its rejection
 * took the whole process down (API included); batched, the failure stops the worker's pool, superviseWorker starts it
 * again, and its start-up sweep sends the delivery once the database is back.
 */
import { EventEmitter } from 'node:events';
import type { Runner } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPools, type Pools } from '../../src/db/database.ts';
import { createLogger } from '../../src/log.ts';
import { startWorker, superviseWorker } from '../../src/worker.ts';
import { startDbProxy, type DbProxy } from '../support/db-proxy.ts';
import { admin, createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

let t: TestApp;
let ws: Workspace;
let receiver: Receiver;
let proxy: DbProxy;
let pools: Pools;
let worker: Awaited<ReturnType<typeof superviseWorker>>;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
const logged: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
  receiver = await startReceiver();
  proxy = await startDbProxy(t.ownerUrl);
  pools = createPools(proxy.url, { apiMax: 1, ownerMax: 6 });
  process.on('unhandledRejection', onRejection);
  const logger = createLogger('error', { write: (line: string) => void logged.push(line) });
  worker = await superviseWorker(() => startWorker(pools.owner, {
    allowPrivate: true, concurrency: 2, pollInterval: 100, timeoutMs: 1000, leaseGraceMs: 200, backoffSeconds: [0.2], logger,
  }), logger, 500);
});
afterAll(async () => {
  process.off('unhandledRejection', onRejection);
  proxy?.restore();
  await worker?.stop();
  await pools?.end();
  await proxy?.close();
  await receiver?.close();
  await t?.close();
});

describe('a database outage under the worker', () => {
  it('ends with the event delivered and nothing unhandled, though the attempt ended while the database was away', async () => {
    const hook = (await admin(t, 'create-webhook', { workspace: ws.key, url: `${receiver.url}/outage`, json: true })).webhook;
    let hang = true;
    receiver.respond = () => (hang ? 'hang' : { status: 200, body: 'ok' });
    await t.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [ws.id]);
    await receiver.waitFor((rs) => rs.length >= 1);
    // The attempt times out (1 s) while the database is gone (2.5 s): recording it fails, the job fails, and failing
    // the job needs the database too.
    proxy.cut();
    await new Promise((r) => setTimeout(r, 2500));
    hang = false;
    proxy.restore();
    const { rows } = await until(
      () => t.pools.owner.query('select status from app_public.webhook_deliveries where webhook_id = $1', [hook.id]),
      (r) => r.rows[0]?.status === 'DELIVERED', 30_000);
    expect(rows[0].status).toBe('DELIVERED');
    expect(rejections).toEqual([]);
    expect(logged.join('\n')).toMatch(/the background worker stopped .*starting it again/);
  }, 45_000);

  it('a pool that starts shutting down on its own is replaced without waiting for its end (which may never come)', async () => {
    const started: Array<{ events: EventEmitter; stopped: boolean }> = [];
    const fake = async () => {
      const events = new EventEmitter();
      const entry = { events, stopped: false };
      started.push(entry);
      // A shutdown that hangs: it releases jobs through a database that does not answer.
      return { events, promise: new Promise<void>(() => {}), stop: async () => { entry.stopped = true; } } as unknown as Runner;
    };
    const supervised = await superviseWorker(fake, createLogger('silent'), 50);
    started[0]!.events.emit('pool:gracefulShutdown', { message: 'Could not failJobs; queue is in an inconsistent state; aborting.' });
    await until(async () => started.length, (n) => n === 2, 2000);
    expect(supervised.runner()).not.toBeUndefined();
    await supervised.stop();
    expect(started[1]!.stopped).toBe(true);
    // Our own stop is not an outage: nothing starts after it.
    started[1]!.events.emit('pool:gracefulShutdown', { message: 'stopping' });
    await new Promise((r) => setTimeout(r, 150));
    expect(started).toHaveLength(2);
  });
});
