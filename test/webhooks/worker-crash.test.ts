/**
 * At-least-once delivery across a worker crash: `svc worker` runs as a child process, is killed with
 * SIGKILL while it is in the middle of deliveries, and a new `svc worker` still delivers every committed
 * event, with the event id as webhook-id, as a retry (x-svc-attempt 2) of the attempt the dead worker left unfinished.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

const SVC = path.resolve('bin/svc.js');
let t: TestApp;
let ws: Workspace;
let receiver: Receiver;
const children: ChildProcess[] = [];

function startWorkerProcess(): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn('node', [SVC, 'worker'], {
    env: { ...process.env, DATABASE_URL: t.ownerUrl, SVC_EGRESS_ALLOW_PRIVATE: '1', SVC_WEBHOOK_TIMEOUT_MS: '1500', SVC_WORKER_CONCURRENCY: '4' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('svc worker running')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`svc worker exited ${code}: ${out}`)));
  });
  return { child, ready };
}

beforeAll(async () => {
  t = await startTestApp(); // API and database only; deliveries are the child processes' job
  ws = await createWorkspace(t);
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await receiver.close();
  await t.close();
});

describe('a worker killed mid-delivery', () => {
  it('leaves nothing undelivered once a worker runs again', async () => {
    const hook = (await admin(t, 'create-webhook', { workspace: ws.key, url: `${receiver.url}/crash`, json: true })).webhook;
    // While the first worker lives, the receiver accepts requests and never answers them.
    let phase: 'hold' | 'answer' = 'hold';
    receiver.respond = () => (phase === 'hold' ? 'hang' : { status: 200, body: 'ok' });

    const first = startWorkerProcess();
    await first.ready;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { rows } = await t.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, $2) as id`, [ws.id, { i }]);
      ids.push(rows[0].id);
    }
    await receiver.waitFor((rs) => rs.length >= 1);
    first.child.kill('SIGKILL'); // in the middle of delivering
    await new Promise((resolve) => first.child.once('exit', resolve));
    const { rows: inFlight } = await t.pools.owner.query(
      `select count(*)::int as n from app_public.webhook_deliveries where webhook_id = $1 and status = 'PENDING' and locked_until > now()`, [hook.id]);
    expect(inFlight[0].n).toBeGreaterThan(0); // the dead worker left leased deliveries behind
    const heldBeforeCrash = receiver.requests.map((r) => r.headers['webhook-id']);

    phase = 'answer';
    const second = startWorkerProcess();
    await second.ready;
    // Requests from now on are answered 200.
    await receiver.waitFor((rs) => {
      const answered = new Set(rs.slice(heldBeforeCrash.length).map((r) => r.headers['webhook-id']));
      return ids.every((id) => answered.has(id));
    }, 30_000);
    const { rows } = await t.pools.owner.query(
      `select event_id, status from app_public.webhook_deliveries where webhook_id = $1`, [hook.id]);
    await expect.poll(async () => (await t.pools.owner.query(
      `select count(*)::int as n from app_public.webhook_deliveries where webhook_id = $1 and status = 'DELIVERED'`, [hook.id])).rows[0].n,
    { timeout: 10_000 }).toBe(ids.length);
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    // Every event that was in flight at the crash was sent again with the same webhook-id.
    const after = receiver.requests.slice(heldBeforeCrash.length).map((r) => r.headers['webhook-id']);
    for (const id of heldBeforeCrash) expect(after).toContain(id);
    // ... as a retry: the attempt the dead worker never finished counts, and the history says what became of it.
    for (const r of receiver.requests.slice(heldBeforeCrash.length)) {
      if (heldBeforeCrash.includes(r.headers['webhook-id'])) expect(r.headers['x-svc-attempt']).toBe('2');
    }
    for (const r of receiver.requests.slice(0, heldBeforeCrash.length)) expect(r.headers['x-svc-attempt']).toBe('1');
    const { rows: attempts } = await t.pools.owner.query(
      `select a.attempt_number, a.error, a.url, d.total_attempts from app_public.webhook_delivery_attempts a
         join app_public.webhook_deliveries d on d.id = a.delivery_id
        where d.webhook_id = $1 and d.event_id = $2 order by a.attempt_number`, [hook.id, heldBeforeCrash[0]]);
    expect(attempts).toEqual([
      { attempt_number: 1, error: expect.stringContaining('worker stopped during this attempt'), url: `${receiver.url}/crash`, total_attempts: 2 },
      { attempt_number: 2, error: null, url: `${receiver.url}/crash`, total_attempts: 2 },
    ]);
    for (const r of receiver.requests) expect(ids).toContain(r.headers['webhook-id']);
    second.child.kill('SIGTERM');
    expect(await new Promise((resolve) => second.child.once('exit', resolve))).toBe(0);
  }, 60_000);
});
