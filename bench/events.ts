/**
 * Events benchmark (run on demand: `npm run bench:events`; not part of `npm test`).
 *
 *  1. Commit-to-SSE latency: BENCH_SUBSCRIBERS (100) real HTTP SSE clients on one workspace; events are
 *     committed at a steady BENCH_RATE per second for BENCH_SECONDS; for every (event, subscriber) the
 *     time from COMMIT acknowledged to the frame arriving is recorded. p50 / p99 / max.
 *  2. Webhook throughput: BENCH_WEBHOOK_EVENTS events committed at once to a workspace with one webhook
 *     pointing at a local receiver that answers 200; deliveries per second until all have arrived,
 *     with SVC_WORKER_CONCURRENCY (8) jobs at a time in one worker process.
 *
 * Database: DATABASE_URL (a server where a scratch database may be created), else an embedded
 * PostgreSQL in a temporary directory. Migrations include migrations/current.
 */
import '../src/polyfills.ts';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { KeyAuthenticator } from '../src/auth/keys.ts';
import { ADMIN_COMMANDS, type Flags } from '../src/cli/admin.ts';
import { createPools } from '../src/db/database.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { EventHub } from '../src/events/hub.ts';
import { Notifier } from '../src/events/notifier.ts';
import { buildApp } from '../src/http/app.ts';
import { ToolRunner } from '../src/tools/invoke.ts';
import { startWorker } from '../src/worker.ts';
import { openSse, type SseClient } from '../test/support/sse.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
// The webhook receiver is on loopback.
process.env.SVC_EGRESS_ALLOW_PRIVATE = '1';
const SUBSCRIBERS = env('BENCH_SUBSCRIBERS', 100);
const RATE = env('BENCH_RATE', 50);
const SECONDS = env('BENCH_SECONDS', 10);
const WEBHOOK_EVENTS = env('BENCH_WEBHOOK_EVENTS', 2000);
const CONCURRENCY = env('SVC_WORKER_CONCURRENCY', 8);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  let adminUrl = process.env.DATABASE_URL;
  let stopCluster = async () => {};
  if (!adminUrl) {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-bench-'));
    await fs.chmod(parent, 0o755);
    const cluster = await openEmbeddedCluster(path.join(parent, 'data'));
    adminUrl = cluster.url('postgres');
    stopCluster = async () => {
      await cluster.stop();
      await fs.rm(parent, { recursive: true, force: true });
    };
  }
  const name = `svc_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async stop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      await stopCluster();
    },
  };
}

async function adminCommand(pool: pg.Pool, command: string, flags: Flags): Promise<any> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const r = await ADMIN_COMMANDS[command]!(client, { ...flags, json: true });
    await client.query('commit');
    return r.json;
  } finally {
    client.release();
  }
}

async function main() {
  const db = await database();
  await applyMigrations(db.url, { includeCurrent: true });
  const pools = createPools(db.url, { apiMax: 20, ownerMax: CONCURRENCY + 6 });
  const notifier = new Notifier(db.url);
  await notifier.start();
  const keys = new KeyAuthenticator(pools.api, pools.owner);
  const hub = new EventHub(pools.api, notifier, { maxBufferBytes: 8 * 1024 * 1024 });
  // Every subscriber streams with the one key: the per-key and per-workspace stream bounds are lifted to their count.
  const streamLimits = { perKey: SUBSCRIBERS, perWorkspace: SUBSCRIBERS };
  const { app } = buildApp({ ownerPool: pools.owner, keys, runner: new ToolRunner(pools.api), logLevel: 'silent', events: hub, streamLimits });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const worker = await startWorker(pools.owner, { allowPrivate: true, concurrency: CONCURRENCY, pollInterval: 200 });

  const created = await adminCommand(pools.owner, 'create-workspace', { name: 'Bench', key: 'BENCH', 'owner-email': 'bench@example.com' });
  const wsId: string = created.workspace.id;
  const key = (await adminCommand(pools.owner, 'create-key', { workspace: 'BENCH', user: 'bench@example.com', scopes: 'SUBSCRIBE_EVENTS' })).apiKey.rawKey;

  console.log(`PostgreSQL ${(await pools.owner.query('show server_version')).rows[0].server_version}, Node ${process.version}, ${os.cpus().length} CPUs`);

  // 1. Commit-to-SSE latency ---------------------------------------------------------------------
  const clients: SseClient[] = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => openSse(base, key)));
  await Promise.all(clients.map((c) => c.waitForComment((x) => x === 'connected', 10_000)));
  const committedAt = new Map<string, { sent: number; acked: number }>();
  const arrivals: Array<{ id: string; at: number }> = [];
  for (const c of clients) c.onMessage = (m) => m.id && arrivals.push({ id: m.id, at: m.at });

  const total = RATE * SECONDS;
  const interval = 1000 / RATE;
  const writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  const start = performance.now();
  for (let n = 0; n < total; n++) {
    const due = start + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const sent = performance.now();
    const { rows } = await writer.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, $2) as id`, [wsId, { n }]);
    committedAt.set(rows[0].id, { sent, acked: performance.now() });
  }
  const expected = total * SUBSCRIBERS;
  const deadline = performance.now() + 10_000;
  while (arrivals.length < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const fromAck = arrivals.map((a) => a.at - committedAt.get(a.id)!.acked).sort((a, b) => a - b);
  const fromSend = arrivals.map((a) => a.at - committedAt.get(a.id)!.sent).sort((a, b) => a - b);
  const achievedRate = total / ((performance.now() - start) / 1000);
  console.log(`\nCommit-to-SSE latency: ${SUBSCRIBERS} subscribers, ${total} events at ${RATE}/s (achieved ${achievedRate.toFixed(0)}/s incl. drain)`);
  console.log(`  frames received ${arrivals.length} / ${expected}`);
  console.log(`  from COMMIT acknowledged: p50 ${ms(pct(fromAck, 50))}  p99 ${ms(pct(fromAck, 99))}  max ${ms(fromAck.at(-1)!)}`);
  console.log(`  from statement sent:      p50 ${ms(pct(fromSend, 50))}  p99 ${ms(pct(fromSend, 99))}  max ${ms(fromSend.at(-1)!)}`);
  for (const c of clients) c.close();
  await writer.end();

  // 2. Webhook deliveries per second -----------------------------------------------------------
  let received = 0;
  let lastAt = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      lastAt = performance.now();
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  await adminCommand(pools.owner, 'create-webhook', { workspace: 'BENCH', url: receiverUrl });
  const t0 = performance.now();
  // Committed in batches of 100 events per transaction (each event gets its delivery and job in it).
  for (let i = 0; i < WEBHOOK_EVENTS; i += 100) {
    await pools.owner.query(`select app_private.record_event($1, 'PROJECT_UPDATED', 'project', null, jsonb_build_object('n', n))
                             from generate_series($2::int, $3::int) n`, [wsId, i, Math.min(i + 100, WEBHOOK_EVENTS) - 1]);
  }
  const enqueued = performance.now();
  const until = performance.now() + 120_000;
  while (received < WEBHOOK_EVENTS && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  const seconds = (lastAt - t0) / 1000;
  const { rows: [state] } = await pools.owner.query(
    `select count(*) filter (where status = 'DELIVERED')::int as delivered, count(*)::int as total from app_public.webhook_deliveries`);
  console.log(`\nWebhook deliveries: ${WEBHOOK_EVENTS} events, 1 webhook, local receiver, worker concurrency ${CONCURRENCY}`);
  console.log(`  committed (with deliveries and jobs) in ${ms(enqueued - t0)}`);
  console.log(`  received ${received}; ${state.delivered}/${state.total} marked DELIVERED`);
  console.log(`  ${(received / seconds).toFixed(0)} deliveries/s (first commit to last delivery ${seconds.toFixed(2)} s)`);

  receiver.close();
  await worker.stop();
  await app.close();
  await hub.close();
  await keys.close();
  await notifier.close();
  await pools.end();
  await db.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
