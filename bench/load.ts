/**
 * npm run bench:load [-- --calls 2000] [--clients 32] [--json] [--no-compare]
 *
 * Starts `svc start` on a fresh embedded database (in .svc-bench-load/) with the default rate limits ON,
 * gives each of the 32 clients its own key (as 32 agents would have), then runs 2,000 mixed calls:
 * REST aliases (issues.create/get/list, comments.create), JSON-RPC (tools/call, tools/list, a batch of 5
 * calls), and GraphQL queries. Every answer must be a success (HTTP 2xx, no JSON-RPC error, no isError, no
 * GraphQL errors): the run fails on any error. Prints p50/p99 per kind and overall.
 *
 * The cost of the shared rate limit (src/http/rate-limit.ts: a reservation statement every few calls of a key)
 * is reported twice: one reservation through pg against `select 1`, and (unless --no-compare) the same load
 * against a second start with SVC_RATE_LIMIT_*_PER_MIN=0.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ADMIN_COMMANDS } from '../src/cli/admin.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { percentile } from './pgbench.ts';
import { startServer, stopServer } from './server.ts';

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '2000' },
    clients: { type: 'string', default: '32' },
    json: { type: 'boolean', default: false },
    'no-compare': { type: 'boolean', default: false },
  },
});
const CALLS = Number(opts.calls);
const CLIENTS = Number(opts.clients);
const dataDir = path.resolve('.svc-bench-load');
const log = (msg: string) => { if (!opts.json) process.stdout.write(`${msg}\n`); };
const emit = (o: object) => { if (opts.json) process.stdout.write(`${JSON.stringify(o)}\n`); };


interface Client { token: string; issueIds: string[] }
type Kind = 'rest:issues.create' | 'rest:issues.get' | 'rest:issues.list' | 'rest:comments.create' | 'rpc:tools/call'
  | 'rpc:tools/list' | 'rpc:batch(5)' | 'graphql';
const KINDS: Kind[] = ['rest:issues.create', 'rest:issues.get', 'rest:issues.list', 'rest:comments.create',
  'rpc:tools/call', 'rpc:tools/list', 'rpc:batch(5)', 'graphql'];

async function call(url: string, c: Client, kind: Kind, i: number): Promise<void> {
  const headers = { authorization: `Bearer ${c.token}`, 'content-type': 'application/json', accept: 'application/json' };
  const anyIssue = () => c.issueIds[i % c.issueIds.length]!;
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${url}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${kind}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const rpcOk = (r: any) => {
    for (const m of Array.isArray(r) ? r : [r]) {
      if (m.error || m.result?.isError) throw new Error(`${kind}: ${JSON.stringify(m).slice(0, 200)}`);
    }
  };
  const tc = (id: number, name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  switch (kind) {
    case 'rest:issues.create': c.issueIds.push((await post('/api/mcp/issues.create', { title: `Load ${i}`, priority: 'HIGH' })).id); return;
    case 'rest:issues.get': await post('/api/mcp/issues.get', { id: anyIssue() }); return;
    case 'rest:issues.list': await post('/api/mcp/issues.list', { limit: 20 }); return;
    case 'rest:comments.create': await post('/api/mcp/comments.create', { issueId: anyIssue(), body: `comment ${i}` }); return;
    case 'rpc:tools/call': rpcOk(await post('/api/mcp/rpc', tc(i, 'issues.get', { id: anyIssue() }))); return;
    case 'rpc:tools/list': rpcOk(await post('/api/mcp/rpc', { jsonrpc: '2.0', id: i, method: 'tools/list' })); return;
    case 'rpc:batch(5)':
      rpcOk(await post('/api/mcp/rpc', [tc(1, 'issues.list', { limit: 5 }), tc(2, 'issues.get', { id: anyIssue() }),
        tc(3, 'workspace.get', {}), tc(4, 'statuses.list', {}), { jsonrpc: '2.0', id: 5, method: 'ping' }]));
      return;
    case 'graphql': {
      const r = await post('/graphql', { query: '{ issues(first: 10, orderBy: NUMBER_DESC) { nodes { key title status { name } } } }' });
      if (r.errors) throw new Error(`graphql: ${JSON.stringify(r.errors).slice(0, 200)}`);
    }
  }
}

async function runLoad(url: string, clients: Client[]) {
  const latencies = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const all: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(clients.map(async (c) => {
    for (let i = next++; i < CALLS; i = next++) {
      const kind = KINDS[i % KINDS.length]!;
      const t0 = performance.now();
      try {
        await call(url, c, kind, i);
      } catch (err) {
        errors.push((err as Error).message);
      }
      const ms = performance.now() - t0;
      latencies.get(kind)!.push(ms);
      all.push(ms);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  all.sort((a, b) => a - b);
  for (const l of latencies.values()) l.sort((a, b) => a - b);
  return { latencies, all, errors, seconds };
}

async function seed(ownerUrl: string, runTag: string): Promise<Client[]> {
  const owner = new pg.Pool({ connectionString: ownerUrl, max: 2 });
  try {
    const client = await owner.connect();
    try {
      const created = (await ADMIN_COMMANDS['create-workspace']!(client, { name: `Load ${runTag}`, key: `LOAD${runTag}`, 'owner-email': `load-${runTag.toLowerCase()}@example.com` })).json as {
        workspace: { id: string }; apiKey: { rawKey: string };
      };
      const clients: Client[] = [];
      for (let i = 0; i < CLIENTS; i++) {
        const key = (await ADMIN_COMMANDS['create-key']!(client, { workspace: `LOAD${runTag}`, user: `load-${runTag.toLowerCase()}@example.com`, scopes: 'FULL' })).json as { apiKey: { rawKey: string } };
        clients.push({ token: key.apiKey.rawKey, issueIds: [] });
      }
      // One issue per client to read from the start (owned by the workspace, created as the owner would).
      const { rows } = await client.query(
        `insert into app_public.issues (workspace_id, title, status_id)
         select $1, 'Seed ' || g, (select id from app_public.statuses where workspace_id = $1 and is_default)
         from generate_series(1, $2) g returning id`, [created.workspace.id, clients.length]);
      clients.forEach((c, i) => c.issueIds.push(rows[i].id));
      return clients;
    } finally {
      client.release();
    }
  } finally {
    await owner.end();
  }
}

/**
 * What one reservation of the shared counter costs: the statement against a bare `select 1` round trip,
 * interleaved on one connection (so both see the same machine load); a key pays it every few calls.
 */
async function rateLimitCost(ownerUrl: string): Promise<{ reserveP50Ms: number; selectP50Ms: number; costP50Ms: number; costMeanMs: number }> {
  const visitor = new pg.Client({ connectionString: ownerUrl, options: '-c role=svc_visitor' });
  await visitor.connect();
  try {
    const ws = crypto.randomUUID();
    const key = crypto.randomUUID();
    const up: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      let t0 = performance.now();
      await visitor.query({ name: 'rl', text: 'select granted from app_hidden.rate_limit_reserve($1, $2, $3, $4, $5)', values: [key, ws, 'rest', 1, 1_000_000_000] });
      up.push(performance.now() - t0);
      t0 = performance.now();
      await visitor.query({ name: 'one', text: 'select 1 as one' });
      base.push(performance.now() - t0);
    }
    const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
    const costMeanMs = mean(up) - mean(base);
    up.sort((a, b) => a - b);
    base.sort((a, b) => a - b);
    return { reserveP50Ms: percentile(up, 50), selectP50Ms: percentile(base, 50), costP50Ms: percentile(up, 50) - percentile(base, 50), costMeanMs };
  } finally {
    await visitor.end();
  }
}

function report(label: string, r: Awaited<ReturnType<typeof runLoad>>) {
  log(`\n${label}: ${r.all.length} calls in ${r.seconds.toFixed(1)} s (${(r.all.length / r.seconds).toFixed(0)} calls/s), ${r.errors.length} errors`);
  for (const [kind, l] of r.latencies) {
    log(`  ${kind.padEnd(22)} n=${String(l.length).padStart(4)}  p50 ${percentile(l, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(l, 99).toFixed(2).padStart(7)} ms`);
    emit({ run: label, kind, n: l.length, p50Ms: percentile(l, 50), p99Ms: percentile(l, 99) });
  }
  log(`  ${'all'.padEnd(22)} n=${String(r.all.length).padStart(4)}  p50 ${percentile(r.all, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(r.all, 99).toFixed(2).padStart(7)} ms`);
  emit({ run: label, kind: 'all', n: r.all.length, errors: r.errors.length, seconds: r.seconds, p50Ms: percentile(r.all, 50), p99Ms: percentile(r.all, 99) });
  for (const e of r.errors.slice(0, 5)) log(`  error: ${e}`);
}

async function main() {
  await fs.rm(dataDir, { recursive: true, force: true });
  log(`starting svc (rate limits on: 600/min JSON-RPC, 300/min REST+GraphQL per key) in ${dataDir} …`);
  const serverEnv = { DATABASE_URL: '', SVC_DATA_DIR: dataDir };
  let server = await startServer({ args: ['--no-worker'], env: { ...serverEnv, SVC_RATE_LIMIT_RPC_PER_MIN: '600', SVC_RATE_LIMIT_REST_PER_MIN: '300' } });
  const settings = JSON.parse(await fs.readFile(path.join(dataDir, 'embedded.json'), 'utf8'));
  const ownerUrl = `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/svc`;
  let failed = false;
  try {
    // Work in progress (migrations/current) too, as the tests apply it; a no-op once it is committed.
    await applyMigrations(ownerUrl, { includeCurrent: true });
    const clients = await seed(ownerUrl, 'A');
    log(`${CLIENTS} clients, one key each; ${CALLS} mixed calls`);
    const on = await runLoad(server.url, clients);
    report('rate limits on', on);
    failed ||= on.errors.length > 0;

    const cost = await rateLimitCost(ownerUrl);
    log(`\nrate-limit reservation vs select 1 (one connection, ${CALLS} each, interleaved): p50 ${cost.reserveP50Ms.toFixed(3)} vs ${cost.selectP50Ms.toFixed(3)} ms → cost per reservation p50 ${cost.costP50Ms.toFixed(3)} ms, mean ${cost.costMeanMs.toFixed(3)} ms`);
    emit({ name: 'rate-limit reservation', ...cost });

    if (!opts['no-compare']) {
      await stopServer(server);
      server = await startServer({ args: ['--no-worker'], env: { ...serverEnv, SVC_RATE_LIMIT_RPC_PER_MIN: '0', SVC_RATE_LIMIT_REST_PER_MIN: '0' } });
      const off = await runLoad(server.url, await seed(ownerUrl, 'B'));
      report('rate limits off', off);
      failed ||= off.errors.length > 0;
      const d50 = percentile(on.all, 50) - percentile(off.all, 50);
      log(`\nrate limits on − off: p50 ${d50 >= 0 ? '+' : ''}${d50.toFixed(2)} ms per call, throughput ${(on.all.length / on.seconds).toFixed(0)} vs ${(off.all.length / off.seconds).toFixed(0)} calls/s`);
      emit({ name: 'rate limits on - off', p50DeltaMs: d50 });
    }
  } finally {
    await stopServer(server);
  }
  if (failed) {
    process.stderr.write('bench:load: errors above\n');
    process.exit(1);
  }
}

main().catch((err) => {
  process.stderr.write(`bench:load failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
