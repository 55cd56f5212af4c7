/**
 * Webhooks against a real local HTTP receiver, with the worker running in this process. Signatures are
 * checked by independent verifiers: the `standardwebhooks` package and node:crypto.
 */
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { startReceiver, type Receiver, type Received } from '../support/receiver.ts';
import { until } from '../support/until.ts';
import { createLogger } from '../../src/log.ts';
import { startWorker } from '../../src/worker.ts';

let t: TestApp;
let ws: Workspace;
let receiver: Receiver;

beforeAll(async () => {
  // Short retry schedule so retries and dead letters happen within a test.
  t = await startTestApp({ worker: { backoffSeconds: [0.1, 0.1, 0.1], timeoutMs: 2000 } });
  ws = await createWorkspace(t);
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

/** A fresh receiver path per test so requests can be told apart. */
function path(name: string) {
  return `${receiver.url}/${name}`;
}
const at = (name: string) => (r: Received) => r.url === `/${name}`;

async function createWebhook(w: Workspace, url: string, events?: string[]) {
  const flags: Record<string, string | boolean> = { workspace: w.key, url, json: true };
  if (events) flags.events = events.join(',');
  return (await admin(t, 'create-webhook', flags)).webhook as { id: string; url: string; events: string[]; secret: string };
}

async function recordEvent(w: Workspace, kind = 'PROJECT_UPDATED', payload: object = {}): Promise<string> {
  const { rows } = await t.pools.owner.query(`select app_private.record_event($1, $2, 'project', null, $3) as id`, [w.id, kind, payload]);
  return rows[0].id;
}

/**
 * The worker's own sweep runs at each minute (its crontab) and re-queues a delivery whose job is gone: a test that
 * loses a job on purpose starts clear of the minute, or the sweep may beat it to its first look.
 */
async function clearOfTheMinute() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 56_000 || intoMinute < 2_000) await new Promise((r) => setTimeout(r, (62_000 - intoMinute) % 60_000));
}

/** Records an event whose delivery to the hook has no job yet (as if lost), due now. Returns the delivery's id. */
async function eventWithLostJob(w: Workspace, hookId: string): Promise<string> {
  const client = await t.pools.owner.connect();
  try {
    await client.query('begin');
    await client.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
    const { rows: [d] } = await client.query('select id from app_public.webhook_deliveries where webhook_id = $1', [hookId]);
    await client.query(`select graphile_worker.remove_job('svc_webhook:' || $1)`, [d.id]);
    await client.query(`update app_public.webhook_deliveries set next_attempt_at = now() - interval '1 minute' where id = $1`, [d.id]);
    await client.query('commit');
    return d.id;
  } finally {
    client.release();
  }
}

async function deliveriesOf(webhookId: string) {
  const { rows } = await t.pools.owner.query(
    `select d.*, (select json_agg(a order by a.attempt_number) from app_public.webhook_delivery_attempts a where a.delivery_id = d.id) as attempts
     from app_public.webhook_deliveries d where d.webhook_id = $1 order by d.created_at`, [webhookId]);
  return rows;
}

const hmacHex = (key: string, message: string) => crypto.createHmac('sha256', key).update(message).digest('hex');

describe('a delivery', () => {
  it('arrives with the event JSON and signatures that independent verifiers accept', async () => {
    const hook = await createWebhook(ws, path('signed'));
    expect(hook).toMatchObject({ url: path('signed'), events: [], secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/) });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'hello webhook' });
    const [req] = await receiver.waitFor((rs) => rs.some(at('signed')));
    const got = receiver.requests.filter(at('signed'));
    expect(got).toHaveLength(1);
    expect(req!.method).toBe('POST');
    const event = JSON.parse(got[0]!.body);
    expect(Object.keys(event).sort()).toEqual(['createdAt', 'id', 'kind', 'payload', 'subjectId', 'subjectType']);
    expect(event).toMatchObject({ kind: 'ISSUE_CREATED', subjectType: 'issue', subjectId: issue.id, payload: { key: issue.key } });
    const h = got[0]!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['webhook-id']).toBe(event.id);

    // Standard Webhooks headers, verified by the standardwebhooks package.
    expect(new Webhook(hook.secret).verify(got[0]!.body, h)).toEqual(event);
    expect(() => new Webhook(hook.secret).verify(got[0]!.body.replace('hello', 'HELLO'), h)).toThrow();

    // Our headers, verified with node:crypto.
    const ts = h['x-svc-timestamp']!;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(30);
    expect(h['webhook-timestamp']).toBe(ts);
    expect(h['x-svc-signature']).toBe(hmacHex(hook.secret, `${ts}.${got[0]!.body}`));
    expect(h['x-webhook-signature']).toBe(hmacHex(hook.secret, got[0]!.body));
    expect(h['x-svc-signature']).not.toBe(hmacHex('whsec_other', `${ts}.${got[0]!.body}`));

    const [d] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'DELIVERED');
    expect(d.event_id).toBe(event.id);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attempt_number: 1, status_code: 200, url: path('signed'), response_body: 'ok' });
    expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('honours the event filter, the active flag and the workspace', async () => {
    const filtered = await createWebhook(ws, path('filtered'), ['ISSUE_CREATED']);
    const off = await createWebhook(ws, path('off'));
    await admin(t, 'update-webhook', { id: off.id, active: 'false', json: true });
    const other = await createWorkspace(t);
    await recordEvent(other);
    await recordEvent(ws, 'PROJECT_UPDATED');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'filtered in' });
    await receiver.waitFor((rs) => rs.some(at('filtered')));
    const got = receiver.requests.filter(at('filtered')).map((r) => JSON.parse(r.body));
    expect(got.map((e) => e.kind)).toEqual(['ISSUE_CREATED']);
    expect(got[0].subjectId).toBe(issue.id);
    expect(await deliveriesOf(off.id)).toEqual([]);
    expect(receiver.requests.filter(at('off'))).toEqual([]);
    // An unknown kind is a usage mistake of the CLI (exit 2), and SQL refuses it too (the in-app procedures).
    await expect(admin(t, 'create-webhook', { workspace: ws.key, url: path('x'), events: 'NOT_A_KIND', json: true }))
      .rejects.toThrow('--events: unknown event kind NOT_A_KIND');
    await expect(t.pools.owner.query(`select app_private.webhook_create($1, $2, array['NOT_A_KIND'], null)`, [ws.id, path('x')]))
      .rejects.toMatchObject({ code: 'SV400' });
    // A URL of the wrong shape too (exit 2), and SQL refuses it as well.
    await expect(admin(t, 'create-webhook', { workspace: ws.key, url: 'ftp://example.com', json: true })).rejects.toThrow(/--url must be an http\(s\) URL/);
    await expect(t.pools.owner.query(`select app_private.webhook_create($1, $2, '{}', null)`, [ws.id, 'ftp://example.com']))
      .rejects.toMatchObject({ code: 'SV400' });
    // Only the filtered hook and the catch-all ones of this workspace got the event.
    const { rows } = await t.pools.owner.query('select count(*)::int as n from app_public.webhook_deliveries where workspace_id = $1', [other.id]);
    expect(rows[0].n).toBe(0);
  });

  it('is written in the event transaction: a rolled-back event has no delivery and sends nothing', async () => {
    const w = await createWorkspace(t);
    const hook = await createWebhook(w, path('tx'));
    const client = await t.pools.owner.connect();
    try {
      await client.query('begin');
      await client.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{"rolledBack":true}')`, [w.id]);
      const { rows } = await client.query('select count(*)::int as n from app_public.webhook_deliveries where webhook_id = $1', [hook.id]);
      expect(rows[0].n).toBe(1);
      const jobs = await client.query(`select count(*)::int as n from graphile_worker.jobs where key like 'svc_webhook:%' and task_identifier = 'svc_webhook_deliver'
                                       and key = 'svc_webhook:' || (select id from app_public.webhook_deliveries where webhook_id = $1)`, [hook.id]);
      expect(jobs.rows[0].n).toBe(1);
      await client.query('rollback');
    } finally {
      client.release();
    }
    const id = await recordEvent(w);
    await receiver.waitFor((rs) => rs.some(at('tx')));
    await new Promise((r) => setTimeout(r, 300));
    const got = receiver.requests.filter(at('tx'));
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([id]);
  });
});

describe('recovery', () => {
  it('the sweep re-queues a PENDING delivery whose job went missing', async () => {
    await clearOfTheMinute();
    const w = await createWorkspace(t);
    const hook = await createWebhook(w, path('lost'));
    // Lose the job (as if graphile_worker had not been installed when the event was written).
    await eventWithLostJob(w, hook.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(at('lost'))).toEqual([]);
    const { rows: [swept] } = await t.pools.owner.query('select app_private.webhook_deliveries_sweep(5000, false) as r');
    expect(swept.r.requeued).toBe(1);
    await receiver.waitFor((rs) => rs.some(at('lost')));
    await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'DELIVERED');
    const { rows: [again] } = await t.pools.owner.query('select app_private.webhook_deliveries_sweep(5000, false) as r');
    expect(again.r.requeued).toBe(0);
  });
});

describe('a webhook whose events changed', () => {
  it('takes no more of a kind it no longer names: its pending delivery is canceled when its turn comes, retries included', async () => {
    await clearOfTheMinute();
    const w = await createWorkspace(t);
    const hook = await createWebhook(w, path('refiltered'), ['PROJECT_UPDATED']);
    const pending = await eventWithLostJob(w, hook.id);
    await admin(t, 'update-webhook', { id: hook.id, events: 'ISSUE_CREATED', json: true });
    await t.pools.owner.query('select app_private.webhook_deliveries_sweep(5000, false)');
    const [d] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'CANCELED');
    expect(d).toMatchObject({ id: pending, last_error: 'the webhook no longer takes PROJECT_UPDATED events (its events were changed)', attempts: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter(at('refiltered'))).toEqual([]);
    // A test delivery still goes, whatever the filter.
    await ok(t, w.token, 'webhooks.test', { id: hook.id });
    await receiver.waitFor((rs) => rs.some(at('refiltered')));
  });
});

describe('a deleted webhook', () => {
  it('a delivery job put back after its webhook (and delivery) went is dropped, not failed ten times over', async () => {
    // The worker puts a job back when its workspace's share of slots is full; by then the delivery may be gone with
    // its webhook. Its workspace was read from the missing row: a null flag, which add_job refused (22023).
    const missing = crypto.randomUUID();
    await t.pools.owner.query(`select app_private.enqueue_delivery_job($1, now() + interval '1 hour')`, [missing]);
    const { rows } = await t.pools.owner.query(`select 1 from graphile_worker.jobs where key = 'svc_webhook:' || $1`, [missing]);
    expect(rows).toEqual([]);
  });
});

describe('failures', () => {
  it('retries a receiver answering 500 with backoff, then dead-letters; an admin retry delivers it with the same webhook-id', async () => {
    let healthy = false;
    receiver.respond = (r) => (r.url === '/flaky' && !healthy ? { status: 500, body: `broken ${'x'.repeat(5000)}` } : { status: 200, body: 'ok' });
    const hook = await createWebhook(ws, path('flaky'), ['PROJECT_UPDATED']);
    const id = await recordEvent(ws);
    const [d] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'DEAD_LETTER');
    // 1 attempt + 3 retries (the schedule has three entries), each recorded
    expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500]);
    expect(d.attempts[0].response_body).toHaveLength(2048);
    expect(d.attempts[0].response_body.startsWith('broken')).toBe(true);
    expect(d.last_status_code).toBe(500);
    const sent = receiver.requests.filter(at('flaky'));
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    const gaps = sent.slice(1).map((r, i) => r.at - sent[i]!.at);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(80);

    const listed = await admin(t, 'list-deliveries', { workspace: ws.key, status: 'DEAD_LETTER', json: true });
    expect(listed.items.map((x: { id: string }) => x.id)).toContain(d.id);
    const webhooks = await admin(t, 'list-webhooks', { workspace: ws.key, json: true });
    expect(webhooks.items.find((w: { id: string }) => w.id === hook.id)).toMatchObject({ deadLetters: 1, pending: 0 });
    expect(JSON.stringify(webhooks)).not.toContain('whsec_');

    healthy = true;
    const retried = await admin(t, 'retry-delivery', { id: d.id, json: true });
    expect(retried.delivery).toMatchObject({ id: d.id, status: 'PENDING', attemptCount: 0 });
    const [again] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'DELIVERED');
    expect(again.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500, 200]);
    const last = receiver.requests.filter(at('flaky')).at(-1)!;
    expect(last.headers['webhook-id']).toBe(id);
    expect(new Webhook(hook.secret).verify(last.body, last.headers)).toMatchObject({ id });
    await expect(admin(t, 'retry-delivery', { id: d.id, json: true })).rejects.toMatchObject({ code: 'SV409' });
  });

  it('deactivates a webhook whose endpoint answers 410 Gone', async () => {
    receiver.respond = (r) => (r.url === '/gone' ? { status: 410 } : { status: 200, body: 'ok' });
    const hook = await createWebhook(ws, path('gone'), ['PROJECT_UPDATED']);
    await recordEvent(ws);
    const [d] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'CANCELED');
    expect(d.attempts).toHaveLength(1);
    const { rows: [w] } = await t.pools.owner.query('select active, deactivated_reason from app_public.webhooks where id = $1', [hook.id]);
    expect(w).toEqual({ active: false, deactivated_reason: 'endpoint answered 410 Gone' });
    // Switched off by the system: a state change with its event, as an admin's switching off is.
    const { rows: events } = await t.pools.owner.query(
      `select kind, payload, actor_user_id from app_public.activity_events where subject_type = 'webhook' and subject_id = $1 and kind = 'WEBHOOK_UPDATED'`, [hook.id]);
    expect(events).toEqual([{ kind: 'WEBHOOK_UPDATED', actor_user_id: null,
      payload: { webhookId: hook.id, active: false, changes: ['active'], deactivatedReason: 'endpoint answered 410 Gone' } }]);
    await recordEvent(ws);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);
    // Reactivated by an admin, it receives again.
    receiver.respond = () => ({ status: 200, body: 'ok' });
    await admin(t, 'update-webhook', { id: hook.id, active: 'true', json: true });
    await recordEvent(ws);
    await until(() => deliveriesOf(hook.id), (ds) => ds.length === 2 && ds[1].status === 'DELIVERED');
  });

  it('deactivates a webhook whose every attempt has failed for longer than the limit; a success in between, or an admin turning it back on, starts the count again', async () => {
    // One second stands for SVC_WEBHOOK_DISABLE_AFTER_HOURS.
    const quick = await startTestApp({ worker: { backoffSeconds: [0.1, 0.1], timeoutMs: 2000, disableAfterHours: 1 / 3600 } });
    try {
      const w = await createWorkspace(quick);
      let deadUp = false;
      receiver.respond = (r) => (r.url === '/dead' && !deadUp ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
      const dead = (await admin(quick, 'create-webhook', { workspace: w.key, url: path('dead'), events: 'PROJECT_UPDATED', json: true })).webhook;
      const state = async () => (await quick.pools.owner.query(
        'select active, failing_since, deactivated_reason, updated_at from app_public.webhooks where id = $1', [dead.id])).rows[0];
      const created = await state();
      const record = () => quick.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const deliveries = async () => (await quick.pools.owner.query(
        'select status, last_error from app_public.webhook_deliveries where webhook_id = $1 order by created_at', [dead.id])).rows;

      // Failing for less than the limit: retried, dead-lettered, still active, failing since its first attempt.
      await record();
      await until(deliveries, (ds) => ds[0]?.status === 'DEAD_LETTER');
      const failing = await state();
      expect(failing).toMatchObject({ active: true, deactivated_reason: null, failing_since: expect.any(Date) });
      // Bookkeeping of deliveries, not a change to the webhook: updatedAt stays, no event.
      expect(failing.updated_at).toEqual(created.updated_at);
      const listed = (await ok(quick, w.token, 'webhooks.list', {})).items.find((x: { id: string }) => x.id === dead.id);
      expect(new Date(listed.failingSince)).toEqual(failing.failing_since);

      // Past the limit with no success: the next failure deactivates it, with its event, and cancels that delivery.
      await new Promise((r) => setTimeout(r, 1100));
      await record();
      await until(deliveries, (ds) => ds[1]?.status === 'CANCELED');
      expect((await deliveries())[1].last_error).toMatch(/^HTTP 500; webhook deactivated: failing since \d{4}-\d\d-\d\dT/);
      const off = await state();
      expect(off).toMatchObject({ active: false, failing_since: failing.failing_since });
      expect(off.deactivated_reason).toMatch(/^every delivery attempt failed since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(last: HTTP 500\)$/);
      const { rows: events } = await quick.pools.owner.query(
        `select payload from app_public.activity_events where subject_id = $1 and kind = 'WEBHOOK_UPDATED'`, [dead.id]);
      expect(events).toEqual([{ payload: expect.objectContaining({ active: false, changes: ['active'], deactivatedReason: off.deactivated_reason }) }]);

      // Turned back on by an admin: the failures before say nothing of what comes. One more failure does not stop it.
      await admin(quick, 'update-webhook', { id: dead.id, active: 'true', json: true });
      expect(await state()).toMatchObject({ active: true, failing_since: null, deactivated_reason: null });
      await record();
      await until(deliveries, (ds) => ds[2]?.status === 'DEAD_LETTER');
      expect(await state()).toMatchObject({ active: true, failing_since: expect.any(Date) });
      // A success clears it: failures after it count from their own start.
      deadUp = true;
      await record();
      await until(deliveries, (ds) => ds[3]?.status === 'DELIVERED');
      expect(await state()).toMatchObject({ active: true, failing_since: null });
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await quick.close();
    }
  });

  it('records an answer holding NUL bytes (stored with U+FFFD), so the delivery ends DELIVERED rather than being sent every minute', async () => {
    receiver.respond = (r) => (r.url === '/nul' ? { status: 200, body: 'ok\0x' } : { status: 200, body: 'ok' });
    const hook = await createWebhook(ws, path('nul'), ['PROJECT_UPDATED']);
    await recordEvent(ws);
    const [d] = await until(() => deliveriesOf(hook.id), (ds) => ds[0]?.status === 'DELIVERED');
    expect(d.attempts).toHaveLength(1);
    const { rows } = await t.pools.owner.query(
      `select a.response_body from app_public.webhook_delivery_attempts a join app_public.webhook_deliveries d on d.id = a.delivery_id where d.webhook_id = $1`, [hook.id]);
    expect(rows).toEqual([{ response_body: 'ok\uFFFDx' }]);
    receiver.respond = () => ({ status: 200, body: 'ok' });
  });

  it('records a timeout as a failed attempt', async () => {
    const slow = await startTestApp({ worker: { backoffSeconds: [], timeoutMs: 300 } });
    try {
      const w = await createWorkspace(slow);
      receiver.respond = (r) => (r.url === '/hang' ? 'hang' : { status: 200, body: 'ok' });
      const hook = (await admin(slow, 'create-webhook', { workspace: w.key, url: path('hang'), json: true })).webhook;
      await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const { rows } = await until(
        () => slow.pools.owner.query(`select d.status, a.error, a.duration_ms from app_public.webhook_deliveries d
                                      join app_public.webhook_delivery_attempts a on a.delivery_id = d.id where d.webhook_id = $1`, [hook.id]),
        (r) => r.rows[0]?.status === 'DEAD_LETTER');
      expect(rows[0].error).toMatch(/timeout after 300 ms/);
      expect(rows[0].duration_ms).toBeGreaterThanOrEqual(290);
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await slow.close();
    }
  });

  it('an endpoint that timed out is not waited on again at once: its next deliveries fail fast and retry; another webhook\'s go on', async () => {
    const slow = await startTestApp({ worker: { backoffSeconds: [60], timeoutMs: 300, concurrency: 2 } });
    try {
      const w = await createWorkspace(slow);
      receiver.respond = (r) => (r.url === '/hang-twice' ? 'hang' : { status: 200, body: 'ok' });
      const hanging = (await admin(slow, 'create-webhook', { workspace: w.key, url: path('hang-twice'), events: 'PROJECT_UPDATED', json: true })).webhook;
      const fine = (await admin(slow, 'create-webhook', { workspace: w.key, url: path('fine-beside'), events: 'PROJECT_UPDATED', json: true })).webhook;
      const attempts = (hook: string) => slow.pools.owner.query(
        `select a.error from app_public.webhook_deliveries d join app_public.webhook_delivery_attempts a on a.delivery_id = d.id
         where d.webhook_id = $1 order by a.started_at`, [hook]);
      await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      await until(() => attempts(hanging.id), (r) => r.rows.length === 1);
      for (let i = 0; i < 5; i++) await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const { rows } = await until(() => attempts(hanging.id), (r) => r.rows.length === 6);
      expect(rows[0].error).toMatch(/timeout after 300 ms/);
      expect(rows.slice(1).map((r: { error: string }) => r.error)).toEqual(Array(5).fill('not tried: this endpoint timed out in the last 30 s'));
      await until(() => attempts(fine.id), (r) => r.rows.length === 6 && r.rows.every((a: { error: string | null }) => a.error === null));
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await slow.close();
    }
  });

  it('a cool-off one worker process started holds in another: the endpoint is not waited on there either (two-process probe)', async () => {
    const slow = await startTestApp();
    const worker = () => startWorker(slow.pools.owner,
      { allowPrivate: true, pollInterval: 100, logger: createLogger('silent'), backoffSeconds: [60], timeoutMs: 300, concurrency: 2 });
    const first = await worker();
    let second: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      const w = await createWorkspace(slow);
      receiver.respond = (r) => (r.url === '/hang-elsewhere' ? 'hang' : { status: 200, body: 'ok' });
      const hanging = (await admin(slow, 'create-webhook', { workspace: w.key, url: path('hang-elsewhere'), events: 'PROJECT_UPDATED', json: true })).webhook;
      const attempts = () => slow.pools.owner.query(
        `select a.error from app_public.webhook_deliveries d join app_public.webhook_delivery_attempts a on a.delivery_id = d.id
         where d.webhook_id = $1 order by a.started_at`, [hanging.id]);
      await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      await until(attempts, (r) => r.rows.length === 1);
      // The first process is gone (and its memory with it); another process's worker takes the next deliveries.
      await first.stop();
      second = await worker();
      for (let i = 0; i < 3; i++) await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const { rows } = await until(attempts, (r) => r.rows.length === 4);
      expect(rows[0].error).toMatch(/timeout after 300 ms/);
      expect(rows.slice(1).map((r: { error: string }) => r.error)).toEqual(Array(3).fill('not tried: this endpoint timed out in the last 30 s'));
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await first.stop().catch(() => {});
      await second?.stop();
      await slow.close();
    }
  });

  it('a workspace\'s hanging endpoints hold at most four of the worker\'s eight slots: another workspace\'s delivery goes at once', async () => {
    const slow = await startTestApp({ worker: { backoffSeconds: [], timeoutMs: 3000, concurrency: 8 } });
    try {
      const noisy = await createWorkspace(slow);
      const other = await createWorkspace(slow);
      receiver.respond = (r) => (r.url.startsWith('/never-') ? 'hang' : { status: 200, body: 'ok' });
      // Eight endpoints it never called before (a cooled-off one would fail fast): each attempt holds a slot 3 s.
      for (let i = 0; i < 8; i++) await admin(slow, 'create-webhook', { workspace: noisy.key, url: path(`never-${i}`), events: 'PROJECT_UPDATED', json: true });
      await admin(slow, 'create-webhook', { workspace: other.key, url: path('other-workspace'), events: 'PROJECT_UPDATED', json: true });
      await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [noisy.id]);
      const hanging = () => receiver.requests.filter((r) => r.url.startsWith('/never-')).length;
      await receiver.waitFor(() => hanging() >= 1);
      await new Promise((r) => setTimeout(r, 300));
      const sent = Date.now();
      await slow.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [other.id]);
      const [delivered] = (await receiver.waitFor((rs) => rs.some(at('other-workspace')))).filter(at('other-workspace'));
      expect(delivered!.at - sent).toBeLessThan(1500); // with every slot taken it waited for the 3 s deadline
      expect(hanging()).toBeLessThanOrEqual(4);
      // The jobs say whose they are (the worker fetches none of a workspace's while its share runs).
      const jobs = await slow.pools.owner.query(`select j.flags from graphile_worker._private_jobs j
        join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'svc_webhook_deliver'`);
      expect(jobs.rows.length).toBeGreaterThan(0);
      for (const { flags } of jobs.rows) {
        const workspace = Object.keys(flags).filter((f) => f.startsWith('svc_outbound:'));
        expect([[`svc_outbound:${noisy.id}`], [`svc_outbound:${other.id}`]]).toContainEqual(workspace);
        expect(Object.keys(flags).filter((f) => f.startsWith('svc_target:webhook:'))).toHaveLength(1);
      }
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await slow.close();
    }
  });

  it('a slow endpoint holds at most half its workspace\'s places: the workspace\'s other webhook keeps its pace', async () => {
    const app = await startTestApp({ worker: { backoffSeconds: [], timeoutMs: 5000, concurrency: 8 } });
    try {
      const w = await createWorkspace(app);
      // Each attempt holds a place until the 5 s deadline (a receiver slow but under the deadline never cools off and
      // held every place of its workspace's share).
      receiver.respond = (r) => (r.url === '/sluggish' ? 'hang' : { status: 200, body: 'ok' });
      await admin(app, 'create-webhook', { workspace: w.key, url: path('sluggish'), events: 'PROJECT_UPDATED', json: true });
      const fast = (await admin(app, 'create-webhook', { workspace: w.key, url: path('brisk'), events: 'PROJECT_UPDATED', json: true })).webhook;
      for (let i = 0; i < 12; i++) await app.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const started = Date.now();
      await until(async () => (await app.pools.owner.query(`select status from app_public.webhook_deliveries where webhook_id = $1`, [fast.id])).rows,
        (ds) => ds.length === 12 && ds.every((d) => d.status === 'DELIVERED'), 8000);
      // With the sluggish endpoint's jobs holding all four places, the brisk one waited behind each (three rounds of 5 s).
      expect(Date.now() - started).toBeLessThan(4000);
      expect(receiver.requests.filter(at('sluggish')).length).toBeLessThanOrEqual(2);
    } finally {
      receiver.respond = () => ({ status: 200, body: 'ok' });
      await app.close();
    }
  });

  it('a claimed delivery says whose it is (the worker spreads retries of slow endpoints per workspace)', async () => {
    const idle = await startTestApp(); // no worker: the delivery waits to be claimed here
    try {
      const w = await createWorkspace(idle);
      await admin(idle, 'create-webhook', { workspace: w.key, url: path('claimed'), events: 'PROJECT_UPDATED', json: true });
      await idle.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      const { rows: [d] } = await idle.pools.owner.query('select id from app_public.webhook_deliveries where workspace_id = $1', [w.id]);
      const { rows: [claimed] } = await idle.pools.owner.query('select app_private.webhook_delivery_claim($1, 1000) as w', [d.id]);
      expect(claimed.w).toMatchObject({ deliveryId: d.id, workspaceId: w.id, channel: expect.stringMatching(/^webhook:/) });
    } finally {
      await idle.close();
    }
  });

  it('refuses loopback targets unless private egress is allowed', async () => {
    const strict = await startTestApp({ worker: { allowPrivate: false, backoffSeconds: [] } });
    try {
      const w = await createWorkspace(strict);
      const hooks = [];
      for (const u of [path('private'), receiver.url.replace('127.0.0.1', 'localhost') + '/private', 'http://[::1]:9/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest/meta-data']) {
        hooks.push((await admin(strict, 'create-webhook', { workspace: w.key, url: u, json: true })).webhook);
      }
      await strict.pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, '{}')`, [w.id]);
      // (Each registration's WEBHOOK_CREATED goes to the hooks made before it too: only the project event's deliveries.)
      const { rows } = await until(
        () => strict.pools.owner.query(`select d.status, a.error from app_public.webhook_deliveries d
                                        join app_public.activity_events e on e.id = d.event_id and e.kind = 'PROJECT_UPDATED'
                                        join app_public.webhook_delivery_attempts a on a.delivery_id = d.id where d.workspace_id = $1`, [w.id]),
        (r) => r.rows.length === hooks.length && r.rows.every((x) => x.status === 'DEAD_LETTER'));
      for (const r of rows) expect(r.error).toMatch(/egress denied: .* \((loopback|private|link-local)\)/);
      expect(receiver.requests.filter(at('private'))).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});

describe('agent dispatch deliveries', () => {
  it('POSTs an event to the agent webhookUrl on channel agent:dispatch:<agentId>, signed with the agent secret', async () => {
    const created = await admin(t, 'create-agent', { workspace: ws.key, 'profile-key': 'hooked', name: 'Hooked', 'webhook-url': path('agent'), json: true });
    expect(created.webhookSecret).toMatch(/^whsec_/);
    const rotated = await admin(t, 'rotate-agent-secret', { workspace: ws.key, agent: 'hooked', json: true });
    expect(rotated.secret).not.toBe(created.webhookSecret);
    const plain = await createAgent(t, ws, 'no-hook');
    const client = await t.pools.owner.connect();
    let eventId: string;
    try {
      await client.query('begin');
      const { rows: [e] } = await client.query(`select app_private.record_event($1, 'AGENT_ASSIGNED', 'issue', null, $2) as id`,
        [ws.id, { agentId: created.agent.id, reason: 'round-robin' }]);
      eventId = e.id;
      const { rows: [d] } = await client.query('select app_private.enqueue_agent_dispatch($1, $2) as id', [eventId, created.agent.id]);
      expect(d.id).toBeTruthy();
      const { rows: [none] } = await client.query('select app_private.enqueue_agent_dispatch($1, $2) as id', [eventId, plain.id]);
      expect(none.id).toBeNull();
      await client.query('commit');
    } finally {
      client.release();
    }
    const [req] = (await receiver.waitFor((rs) => rs.some(at('agent')))).filter(at('agent'));
    expect(req!.headers['x-svc-channel']).toBe(`agent:dispatch:${created.agent.id}`);
    expect(req!.headers['webhook-id']).toBe(eventId!);
    expect(new Webhook(rotated.secret).verify(req!.body, req!.headers)).toMatchObject({ id: eventId!, kind: 'AGENT_ASSIGNED' });
    expect(req!.headers['x-svc-signature']).toBe(hmacHex(rotated.secret, `${req!.headers['x-svc-timestamp']}.${req!.body}`));
    // The rotation's grace (24 h by default): the old secret signs beside the new one, so a receiver not yet told of
    // the new secret still verifies; the hex headers carry the current secret only.
    expect(rotated.previousSecretValidUntil).toEqual(expect.any(String));
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(created.webhookSecret).verify(req!.body, req!.headers)).toMatchObject({ id: eventId! });

    // 0 hours (a leaked secret): the old one stops at once.
    const again = await admin(t, 'rotate-agent-secret', { workspace: ws.key, agent: 'hooked', 'keep-previous-hours': '0', json: true });
    expect(again.previousSecretValidUntil).toBeNull();
    // Each rotation is a state change with its event (never the secret); making the agent's first secret is not one.
    const { rows: rotations } = await t.pools.owner.query(`select payload from app_public.activity_events
      where subject_id = $1 and kind = 'AGENT_UPDATED' order by seq`, [created.agent.id]);
    expect(rotations.map((r) => r.payload)).toEqual([
      expect.objectContaining({ changes: ['webhookSecret'], previousSecretValidUntil: expect.any(String) }),
      expect.objectContaining({ changes: ['webhookSecret'], previousSecretValidUntil: null }),
    ]);
    expect(JSON.stringify(rotations)).not.toContain(again.secret);
    const { rows: [e2] } = await t.pools.owner.query(`select app_private.record_event($1, 'AGENT_ASSIGNED', 'issue', null, $2) as id`,
      [ws.id, { agentId: created.agent.id, reason: 'round-robin' }]);
    await t.pools.owner.query('select app_private.enqueue_agent_dispatch($1, $2)', [e2.id, created.agent.id]);
    const dispatched = (r: (typeof receiver.requests)[number]) => at('agent')(r) && r.headers['webhook-id'] === e2.id;
    const [second] = (await receiver.waitFor((rs) => rs.some(dispatched))).filter(dispatched);
    expect(String(second!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(again.secret).verify(second!.body, second!.headers)).toMatchObject({ id: e2.id });
    expect(() => new Webhook(rotated.secret).verify(second!.body, second!.headers)).toThrow();
  });
});

describe('management', () => {
  async function asCaller<T = any>(w: Workspace, email: string, sql: string, params: unknown[] = []): Promise<T> {
    const { rows: [u] } = await t.pools.owner.query('select id from app_public.users where lower(email) = lower($1)', [email]);
    const { rows: [k] } = await t.pools.owner.query('select id from app_private.api_keys where workspace_id = $1 and user_id = $2 limit 1', [w.id, u.id]);
    const shifted = sql.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + 1}`);
    const { rows } = await t.pools.api.query(
      `select (${shifted}) as r from (select app_hidden.set_request_context($1)) identity`, [k.id, ...params]);
    return rows[0].r;
  }

  it('in-app functions need OWNER or ADMIN and stay inside the workspace; secrets are never readable by the request role', async () => {
    const w = await createWorkspace(t);
    await admin(t, 'add-member', { workspace: w.key, email: `member-${w.key}@example.com`, role: 'MEMBER', json: true });
    await admin(t, 'create-key', { workspace: w.key, user: `member-${w.key}@example.com`, scopes: 'FULL', json: true });
    await admin(t, 'add-member', { workspace: w.key, email: `admin-${w.key}@example.com`, role: 'ADMIN', json: true });
    await admin(t, 'create-key', { workspace: w.key, user: `admin-${w.key}@example.com`, scopes: 'FULL', json: true });

    const created = await asCaller(w, `admin-${w.key}@example.com`, `app_hidden.webhook_create($1, '{ISSUE_CREATED}')`, [path('inapp')]);
    expect(created).toMatchObject({ url: path('inapp'), events: ['ISSUE_CREATED'], secret: expect.stringMatching(/^whsec_/) });
    const listed = await asCaller(w, w.ownerEmail, 'app_hidden.webhooks_list()');
    expect(listed.map((x: { id: string }) => x.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    await expect(asCaller(w, `member-${w.key}@example.com`, 'app_hidden.webhooks_list()')).rejects.toMatchObject({ code: 'SV403', detail: 'admin_required' });
    await expect(asCaller(w, `member-${w.key}@example.com`, `app_hidden.webhook_create($1)`, [path('nope')])).rejects.toMatchObject({ code: 'SV403' });
    // The table itself: admins see their workspace's rows, members none.
    expect(await asCaller(w, w.ownerEmail, 'select count(*)::int from app_public.webhooks')).toBe(1);
    expect(await asCaller(w, `member-${w.key}@example.com`, 'select count(*)::int from app_public.webhooks')).toBe(0);
    await expect(asCaller(w, w.ownerEmail, 'select count(*) from app_private.webhook_secrets')).rejects.toThrow(/permission denied/);

    // Another workspace's owner cannot reach this webhook.
    const other = await createWorkspace(t);
    await expect(asCaller(other, other.ownerEmail, `app_hidden.webhook_delete($1::uuid)`, [created.id])).rejects.toMatchObject({ code: 'SV404' });
    await expect(asCaller(other, other.ownerEmail, `app_hidden.webhook_rotate_secret($1::uuid)`, [created.id])).rejects.toMatchObject({ code: 'SV404' });

    const rotated = await asCaller(w, w.ownerEmail, `app_hidden.webhook_rotate_secret($1::uuid)`, [created.id]);
    expect(rotated.secret).not.toBe(created.secret);
    const updated = await asCaller(w, w.ownerEmail, `app_hidden.webhook_update($1::uuid, null, '{}')`, [created.id]);
    expect(updated.events).toEqual([]);
    const deliveries = await asCaller(w, w.ownerEmail, `app_hidden.webhook_deliveries_list($1::uuid)`, [created.id]);
    expect(deliveries).toEqual({ items: [], nextCursor: null });
    expect(await asCaller(w, w.ownerEmail, `app_hidden.webhook_delete($1::uuid)`, [created.id])).toEqual({ id: created.id, deleted: true });
  });

  it('the operator CLI functions rotate, update and delete; a rotated secret signs the next delivery', async () => {
    const w = await createWorkspace(t);
    const hook = await createWebhook(w, path('cli'));
    // --keep-previous-hours 0: the old secret stops at once (the default keeps it signing for 24 h).
    const rotated = await admin(t, 'rotate-webhook-secret', { id: hook.id, 'keep-previous-hours': '0', json: true });
    expect(rotated.webhook).toEqual({ id: hook.id, secret: expect.stringMatching(/^whsec_/), previousSecretValidUntil: null });
    await recordEvent(w);
    const [req] = (await receiver.waitFor((rs) => rs.some(at('cli')))).filter(at('cli'));
    expect(new Webhook(rotated.webhook.secret).verify(req!.body, req!.headers)).toBeTruthy();
    expect(() => new Webhook(hook.secret).verify(req!.body, req!.headers)).toThrow();
    const updated = await admin(t, 'update-webhook', { id: hook.id, url: path('cli2'), events: 'ISSUE_CREATED,ISSUE_DELETED', json: true });
    expect(updated.webhook).toMatchObject({ url: path('cli2'), events: ['ISSUE_CREATED', 'ISSUE_DELETED'] });
    expect((await admin(t, 'delete-webhook', { id: hook.id, json: true })).webhook).toEqual({ id: hook.id, deleted: true });
    await expect(admin(t, 'delete-webhook', { id: hook.id, json: true })).rejects.toMatchObject({ code: 'SV404' });
    // Each change is an event, as in-app (they wrote none from the CLI): no actor, never a secret.
    const { rows: events } = await t.pools.owner.query(
      `select kind, payload->'changes' as changes, actor_user_id from app_public.activity_events
       where subject_type = 'webhook' and subject_id = $1 order by seq`, [hook.id]);
    expect(events).toEqual([
      { kind: 'WEBHOOK_CREATED', changes: null, actor_user_id: null },
      { kind: 'WEBHOOK_UPDATED', changes: ['secret'], actor_user_id: null },
      { kind: 'WEBHOOK_UPDATED', changes: ['url', 'events'], actor_user_id: null },
      { kind: 'WEBHOOK_DELETED', changes: null, actor_user_id: null },
    ]);
    const { rows: [leak] } = await t.pools.owner.query(
      `select count(*)::int as n from app_public.activity_events where subject_id = $1 and payload::text like '%whsec_%'`, [hook.id]);
    expect(leak.n).toBe(0);
  });
});
