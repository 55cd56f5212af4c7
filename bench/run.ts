/**
 * npm run bench [-- --json] [--duration S] [--connections N] [--keep]
 *
 * Starts `svc start` on a fresh embedded database (in .svc-bench/) and, in the same run and on the same
 * cluster, a LEAN REFERENCE of the same work written by hand (bench/reference.sql, database
 * svc_bench_reference). For issues.create, issues.get, issues.list, issues.update, comments.create and
 * events.recent, with the work spread over BENCH_WORKSPACES workspaces, it measures:
 *   - reference tx/s: the reference statement through pgbench (prepared);
 *   - service SQL tx/s: the exact statement the service sends for the tool (src/db/as-caller.ts, with each
 *     workspace's caller identity and the zod-validated arguments) as svc_visitor, through pgbench (prepared);
 *   - REST req/s: the alias POST /api/mcp/<tool> under load (wrk, a random workspace's key per request);
 *   - Node floor req/s: the same requests to bench/node-floor.ts, a bare node:http + pg server that runs the same
 *     statement and nothing else (what any Node server reaches on this machine);
 * each with p50/p99, and the ratios sqlToReference, restToSql, restToNodeFloor and nodeFloorToSql. Then issues.create in ONE busy workspace
 * (all clients on one counter), and issues.list p99 at 1,000 vs BENCH_SCALE_ISSUES issues (with
 * BENCH_OTHER_WORKSPACES other workspaces holding data).
 *
 * Knobs (env): BENCH_DURATION (s per run, 4), BENCH_ROUNDS (interleaved runs per method, 2),
 * BENCH_CONNECTIONS (8), BENCH_WORKSPACES (20), BENCH_FLOOR=0 skips the Node floor,
 * BENCH_ISSUES (seeded per workspace, 1000), BENCH_TOOLS (comma list, default all), BENCH_SYNCHRONOUS_COMMIT
 * (on; off shows the CPU cost of writes without the WAL flush), BENCH_SCALE=0 skips
 * the growth measurement, BENCH_SCALE_ISSUES (100000), BENCH_OTHER_WORKSPACES (50), BENCH_OTHER_ISSUES (2000),
 * PGBENCH (/usr/bin/pgbench; Debian: apt-get install postgresql-client), WRK (/usr/bin/wrk; Debian: apt-get install
 * wrk), BENCH_DATABASE_URL (a superuser URL:
 * run on that server instead of a fresh embedded one), BENCH_MIGRATIONS=committed (measure the committed
 * migrations only; default: also migrations/current/, the work in progress).
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { KeyAuthenticator, type Caller } from '../src/auth/keys.ts';
import { ADMIN_COMMANDS } from '../src/cli/admin.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { callerStatement, callerValues } from '../src/db/as-caller.ts';
import { findTool } from '../src/tools/catalog.ts';
import { toolCall } from '../src/tools/invoke.ts';
import { merge, percentile, pgbench, pgbenchVersion, type Leaf, type Measured, type PgbenchCase, type Target } from './pgbench.ts';
import { startServer, stopServer } from './server.ts';
import { wrk, wrkVersion, type HttpRequest } from './wrk.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    duration: { type: 'string' },
    connections: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const DURATION = Number(opts.duration ?? env('BENCH_DURATION', 4));
/** Each measurement runs ROUNDS times per method, interleaved; figures are over all rounds. */
const ROUNDS = env('BENCH_ROUNDS', 2);
const CONNECTIONS = Number(opts.connections ?? env('BENCH_CONNECTIONS', 8));
const WORKSPACES = env('BENCH_WORKSPACES', 20);
const ISSUES = env('BENCH_ISSUES', 1000);
/** Issues per workspace the pgbench leaves address (each client updates its own: at least CONNECTIONS). */
const PICKS = Math.max(8, CONNECTIONS);
const SCALE = process.env.BENCH_SCALE !== '0';
const FLOOR = process.env.BENCH_FLOOR !== '0';
/** 'on' (durable, as the service runs) or 'off': writes then measure CPU work rather than WAL flushes. */
const SYNC_COMMIT = process.env.BENCH_SYNCHRONOUS_COMMIT ?? 'on';
const SCALE_ISSUES = env('BENCH_SCALE_ISSUES', 100_000);
const OTHER_WORKSPACES = env('BENCH_OTHER_WORKSPACES', 50);
const OTHER_ISSUES = env('BENCH_OTHER_ISSUES', 2000);
const TOOLS = ['issues.create', 'issues.get', 'issues.list', 'issues.update', 'comments.create', 'events.recent'];
const SELECTED = process.env.BENCH_TOOLS ? process.env.BENCH_TOOLS.split(',').map((s) => s.trim()) : TOOLS;
const dataDir = path.resolve('.svc-bench');
const SERVICE_DB = 'svc_bench';
const REFERENCE_DB = 'svc_bench_reference';
const here = path.dirname(fileURLToPath(import.meta.url));

const log = (msg: string) => { if (!opts.json) process.stdout.write(`${msg}\n`); };
const emit = (obj: Record<string, unknown>) => { if (opts.json) process.stdout.write(`${JSON.stringify(obj)}\n`); };
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

// The lean reference's statements: the service's shape (one statement, identity set transaction-locally
// in a FROM subquery, one jsonb argument, text out), the work written by hand (bench/reference.sql).
const asReferenceCaller = (call: string) => `select ${call} as r from (select set_config('ref.workspace_id', $1, true)) as identity`;
const REFERENCE: Record<string, string> = {
  'issues.create': asReferenceCaller('ref.issues_create($2::jsonb)::text'),
  'issues.get': asReferenceCaller(`(select row_to_json(i)::text from ref.issues i where i.id = ($2::jsonb->>'id')::uuid)`),
  'issues.list': asReferenceCaller(`(select json_build_object('items', coalesce(json_agg(row_to_json(i) order by i.number desc), '[]'),
      'nextCursor', min(i.number))::text
    from (select * from ref.issues i where i.workspace_id = $1::uuid and i.deleted_at is null order by i.number desc limit ($2::jsonb->>'limit')::int) i)`),
  'issues.update': asReferenceCaller('ref.issues_update($2::jsonb)::text'),
  'comments.create': asReferenceCaller('ref.comments_create($2::jsonb)::text'),
  'events.recent': asReferenceCaller(`(select json_build_object('items', coalesce(json_agg(row_to_json(e) order by e.seq desc), '[]'))::text
    from (select * from ref.activity_events e where e.workspace_id = $1::uuid order by e.seq desc limit ($2::jsonb->>'limit')::int) e)`),
};

interface Workspace { id: string; key: string; token: string; caller: Caller; picks: string[] }

/** Requests to the REST alias, each with a random workspace's key and arguments (makeRequest), enough that a run cycles through few times. */
const REST_REQUESTS = 2000;
const restRequests = (tool: string, makeRequest: () => { token: string; args: unknown }): HttpRequest[] =>
  Array.from({ length: REST_REQUESTS }, () => {
    const { token, args } = makeRequest();
    return { method: 'POST', path: `/api/mcp/${tool}`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(args) };
  });

/** wrk against the REST alias: closed loop, as fast as answers come (CONNECTIONS connections, as pgbench's clients). */
const rest = (url: string, tool: string, makeRequest: () => { token: string; args: unknown }, seconds = DURATION): Promise<Measured> =>
  wrk(url, restRequests(tool, makeRequest), { connections: CONNECTIONS, seconds });

/** wrk against the Node floor: the same requests, each body the arguments as the service passes them to SQL (zod-validated). */
const floor = (url: string, tool: string, makeRequest: () => { token: string; args: unknown }, seconds = DURATION): Promise<Measured> =>
  rest(url, tool, () => { const r = makeRequest(); return { token: r.token, args: findTool(tool)!.input.parse(r.args) }; }, seconds);

/**
 * Open loop: one request every 1/rate s, evenly spaced, whether or not earlier ones have answered (the
 * latency of an answer at that load). node:http with a keep-alive agent: fetch (undici) added its own
 * stalls of up to 100 ms to this client's tail while the server's own histogram had 499 of 500 answers
 * under 50 ms.
 */
const PACED_REQUESTS = 1000;
async function paced(url: string, tool: string, makeRequest: () => { token: string; args: unknown }, rate: number): Promise<Measured & { clientLoopDelayMaxMs: number }> {
  // This client's own event-loop hold-ups count in its latencies: measured, so a slow tail can be told apart
  // from a slow service.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const agent = new http.Agent({ keepAlive: true });
  const target = new URL(`${url}/api/mcp/${tool}`);
  const post = (token: string, body: string) => new Promise<void>((resolve, reject) => {
    const req = http.request({
      agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`${tool}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  const latencies: number[] = [];
  const inFlight: Array<Promise<void>> = [];
  const t0 = performance.now();
  // At least PACED_REQUESTS answers: at 100 req/s a 4 s run made the p99 its 4th-slowest answer, and it moved
  // between 31 and 69 ms from run to run.
  const total = Math.max(PACED_REQUESTS, Math.round(rate * DURATION));
  try {
    for (let k = 0; k < total; k++) {
      const due = t0 + (k * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const { token, args } = makeRequest();
      const started = performance.now();
      inFlight.push(post(token, JSON.stringify(args)).then(() => { latencies.push(performance.now() - started); }));
    }
    await Promise.all(inFlight);
  } finally {
    agent.destroy();
    loop.disable();
  }
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    txPerSec: latencies.length / seconds, transactions: latencies.length, latenciesMs: latencies, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99),
    clientLoopDelayMaxMs: loop.max / 1e6,
  };
}

/**
 * The service's own count of a tool's REST answers (its /metrics histogram): all of them, and those it gave
 * within 50 ms. Taken before and after a run, it tells the service's latency from the client's.
 */
async function serverAnswers(url: string, tool: string): Promise<{ all: number; within50ms: number; loopDelayMaxMs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  // prom-client's event-loop delay: the largest since the previous scrape.
  const loopDelayMaxMs = Number(text.match(/^nodejs_eventloop_lag_max_seconds (\S+)$/m)?.[1] ?? 0) * 1000;
  const count = (le: string) => Number(text.match(new RegExp(
    `^svc_tool_call_duration_seconds_bucket\\{le="${le}",tool="${tool}",surface="rest",status="200"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { all: count('\\+Inf'), within50ms: count('0.05'), loopDelayMaxMs };
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

async function main() {
  const pgbenchAt = await pgbenchVersion();
  if (!pgbenchAt) throw new Error('pgbench not found (set PGBENCH, or on Debian: apt-get install postgresql-client)');
  const wrkAt = await wrkVersion();
  if (!wrkAt) throw new Error('wrk not found (set WRK, or on Debian: apt-get install wrk)');
  // The cluster: BENCH_DATABASE_URL (a superuser on a server of your choice, e.g. another PostgreSQL
  // version), else a fresh embedded one in .svc-bench/. The service's database gets the migrations of
  // the working tree (committed and migrations/current/, BENCH_MIGRATIONS=committed for committed only)
  // before `svc start` runs on it.
  let stopCluster = async () => {};
  let adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    if (!opts.keep) await fs.rm(dataDir, { recursive: true, force: true });
    const cluster = await openEmbeddedCluster(dataDir);
    adminUrl = cluster.url('postgres');
    stopCluster = () => cluster.stop();
  }
  const adminAt = new URL(adminUrl);
  const clusterUrl = (db: string) => { const u = new URL(adminUrl!); u.pathname = `/${db}`; return u.toString(); };
  const settings = { host: adminAt.hostname, port: Number(adminAt.port || 5432), user: decodeURIComponent(adminAt.username), password: decodeURIComponent(adminAt.password) };
  {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`drop database if exists ${SERVICE_DB} with (force)`);
    await c.query(`create database ${SERVICE_DB}`);
    await c.end();
  }
  await applyMigrations(clusterUrl(SERVICE_DB), { includeCurrent: process.env.BENCH_MIGRATIONS !== 'committed' });
  log(`starting svc on ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : `an embedded database in ${dataDir}`} …`);
  // BENCH_NODE_ARGS, e.g. '--cpu-prof --cpu-prof-dir=prof': flags for the server's Node (profiling it under load).
  const server = await startServer({
    nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    env: { DATABASE_URL: clusterUrl(SERVICE_DB), SVC_DATA_DIR: dataDir, SVC_RATE_LIMIT_RPC_PER_MIN: '0', SVC_RATE_LIMIT_REST_PER_MIN: '0' },
  });
  const stop = () => { void stopServer(server); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const owner = new pg.Pool({ connectionString: clusterUrl(SERVICE_DB), max: 4 });
  const visitor = new pg.Pool({ connectionString: clusterUrl(SERVICE_DB), max: 2, options: '-c role=svc_visitor' });
  const keys = new KeyAuthenticator(visitor, owner);
  const target = (database: string, role: string): Target =>
    ({ ...settings, database, role });
  const svcTarget = target(SERVICE_DB, 'svc_visitor');
  const refTarget = target(REFERENCE_DB, 'svc_bench_ref_visitor');
  let reference: pg.Pool | undefined;
  let refListener: pg.Client | undefined;
  let floorServer: Awaited<ReturnType<typeof startServer>> | undefined;

  try {
    // The reference database, on the same cluster.
    const admin = new pg.Client({ connectionString: clusterUrl('postgres') });
    await admin.connect();
    await admin.query(`drop database if exists ${REFERENCE_DB} with (force)`);
    await admin.query(`create database ${REFERENCE_DB}`);
    await admin.end();
    reference = new pg.Pool({ connectionString: clusterUrl(REFERENCE_DB), max: 4 });
    await reference.query(await fs.readFile(path.join(here, 'reference.sql'), 'utf8'));
    // The service's SSE hub LISTENs to its events; the reference's NOTIFYs get a listener too.
    refListener = new pg.Client({ connectionString: clusterUrl(REFERENCE_DB) });
    await refListener.connect();
    let refNotifications = 0;
    refListener.on('notification', () => { refNotifications++; });
    await refListener.query('listen svc_bench_ref_events');

    if (SYNC_COMMIT !== 'on') {
      // Everything on the cluster (the server's pool included: a reload reaches running sessions).
      await owner.query(`alter system set synchronous_commit = '${SYNC_COMMIT}'`);
      await owner.query('select pg_reload_conf()');
    }
    const pgVersion = (await owner.query('show server_version')).rows[0].server_version as string;
    const environment = {
      name: 'environment', postgres: pgVersion, pgbench: pgbenchAt, wrk: wrkAt, node: process.version, cpus: os.cpus().length,
      loadavg: os.loadavg().map((x) => round(x)), connections: CONNECTIONS, durationSeconds: DURATION, rounds: ROUNDS,
      workspaces: WORKSPACES, issuesPerWorkspace: ISSUES, synchronousCommit: SYNC_COMMIT,
    };
    emit(environment);
    log(`PostgreSQL ${pgVersion}, ${pgbenchAt}, ${wrkAt}, Node ${process.version}, ${os.cpus().length} CPUs, load ${environment.loadavg.join(' ')}, synchronous_commit ${SYNC_COMMIT}`);

    /** A service workspace with its key and caller, and the same workspace (id, key) in the reference. */
    const createWorkspace = async (key: string, issues: number): Promise<Workspace> => {
      const client = await owner.connect();
      const created = (await ADMIN_COMMANDS['create-workspace']!(client, { name: `Bench ${key}`, key, 'owner-email': `${key.toLowerCase()}@example.com` })).json as {
        workspace: { id: string }; apiKey: { rawKey: string };
      };
      client.release();
      const id = created.workspace.id;
      if (issues > 0) await seedIssues(id, issues);
      // The reference holds the same issues (same ids, numbers, keys and titles).
      const { rows } = await owner.query(
        'select id, number, key, title, priority from app_public.issues where workspace_id = $1 order by number', [id]);
      await reference!.query('insert into ref.workspaces (id, key) values ($1, $2)', [id, key]);
      await reference!.query('insert into ref.workspace_counters (workspace_id, last_issue_number) values ($1, $2)', [id, rows.length]);
      if (rows.length) {
        await reference!.query(
          `insert into ref.issues (id, workspace_id, number, key, title, priority)
           select id, $1, number, key, title, priority
           from unnest($2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[]) as t(id, number, key, title, priority)`,
          [id, rows.map((r) => r.id), rows.map((r) => r.number), rows.map((r) => r.key), rows.map((r) => r.title), rows.map((r) => r.priority)]);
      }
      const shuffled = rows.map((r) => r.id as string).sort(() => Math.random() - 0.5);
      const token = created.apiKey.rawKey;
      return { id, key, token, caller: await keys.authenticate(`Bearer ${token}`), picks: shuffled.slice(0, PICKS) };
    };
    const seedIssues = async (workspaceId: string, n: number) => {
      await owner.query(
        `insert into app_public.issues (workspace_id, title, status_id, priority)
         select $1, 'Seeded issue ' || g, (select id from app_public.statuses where workspace_id = $1 and is_default),
                (array['NONE','LOW','MEDIUM','HIGH','URGENT'])[1 + g % 5]
         from generate_series(1, $2) g`, [workspaceId, n]);
    };

    /**
     * Many issues fast, for the growth measurement (only issues.list reads them): triggers off
     * (session_replication_role = replica), numbers and keys written here, the workspace's number sequence moved past them.
     * No events are written for these.
     */
    const bulkIssues = async (workspaceId: string, n: number) => {
      const client = await owner.connect();
      try {
        await client.query('begin');
        await client.query('set local session_replication_role = replica');
        await client.query(
          `with counter as (select coalesce((select max(number) from app_public.issues where workspace_id = $1), 0) as last),
                ws as (select key from app_public.workspaces where id = $1)
           insert into app_public.issues (workspace_id, number, key, title, status_id, priority)
           select $1, counter.last + g, ws.key || '-' || (counter.last + g),
                  'Seeded issue ' || g || ' ' || (array['deploy','login','billing','flaky','search','export','cache','webhook','sprint','mobile',
                    'backup','latency','upload','invite','theme','quota','report','token','audit','locale'])[1 + g % 20]
                  || ' ' || (array['fails','slow','broken','missing','timeout','crash','wrong','stuck','leaks','ugly','retry','flaps','denied'])[1 + (g * 7) % 13],
                  (select id from app_public.statuses where workspace_id = $1 and is_default),
                  (array['NONE','LOW','MEDIUM','HIGH','URGENT'])[1 + g % 5]
           from counter, ws, generate_series(1, $2) g`, [workspaceId, n]);
        await client.query(
          `select setval(app_private.issue_number_sequence($1)::regclass, (select max(number) from app_public.issues where workspace_id = $1))`,
          [workspaceId]);
        await client.query('commit');
      } finally {
        client.release();
      }
    };

    const t0 = Date.now();
    const workspaces: Workspace[] = [];
    for (let w = 1; w <= WORKSPACES; w++) workspaces.push(await createWorkspace(`WS${w}`, ISSUES));
    const busy = await createWorkspace('BUSY', 0);
    if (FLOOR) {
      const configPath = path.join(dataDir, 'node-floor.json');
      await fs.writeFile(configPath, JSON.stringify({
        databaseUrl: clusterUrl(SERVICE_DB),
        statements: Object.fromEntries(TOOLS.map((tool) => [tool, callerStatement(toolCall(findTool(tool)!))])),
        callers: Object.fromEntries([...workspaces, busy].map((ws) => [ws.token, callerValues(ws.caller, [])])),
      }));
      floorServer = await startServer({ script: ['--import', 'tsx', path.join(here, 'node-floor.ts'), configPath], env: {} });
    }
    await owner.query('analyze');
    await reference.query('analyze');
    log(`seeded ${WORKSPACES} workspaces × ${ISSUES} issues (service and reference) in ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
        `${CONNECTIONS} clients, ${ROUNDS} interleaved runs of ${DURATION} s per method\n`);

    /** Arguments as the service passes them to SQL: the zod-validated input (defaults applied). */
    const validated = (tool: string, args: unknown) => JSON.stringify(findTool(tool)!.input.parse(args));
    const createArgs = { title: 'Benchmark issue', priority: 'HIGH', description: 'created under load' };
    let restCounter = 0;

    type Leaves = Array<{ ws: Workspace; args: unknown }>;
    interface Work {
      /** One argument set per leaf, with the workspace it runs in (per round, when a function). */
      leaves: Leaves | ((round: number) => Leaves);
      chooser?: string[];
      init?: Record<string, string>;
      /** REST: a random workspace's token and arguments. */
      restRequest(): { token: string; args: unknown };
    }
    const randomWs = () => pick(workspaces);
    const perWorkspace = (args: unknown) => workspaces.map((ws) => ({ ws, args }));
    const perIssue = (make: (id: string, k: number) => unknown) =>
      workspaces.flatMap((ws) => ws.picks.map((id, k) => ({ ws, args: make(id, k) })));
    const randomIssue = (ws: Workspace) => ws.picks.length ? pick(ws.picks) : '';
    const work: Record<string, Work> = {
      'issues.create': {
        leaves: perWorkspace(createArgs),
        restRequest: () => ({ token: randomWs().token, args: createArgs }),
      },
      'issues.get': {
        leaves: perIssue((id) => ({ id })),
        restRequest: () => { const ws = randomWs(); return { token: ws.token, args: { id: randomIssue(ws) } }; },
      },
      'issues.list': {
        leaves: perWorkspace({}),
        restRequest: () => ({ token: randomWs().token, args: {} }),
      },
      'issues.update': {
        // Every update really changes the title (a no-op update writes nothing): each client edits its own
        // issue in each workspace, visiting the workspaces round robin and alternating two titles (new ones
        // in every round).
        leaves: (round) => workspaces.flatMap((ws) => ws.picks.flatMap((id, k) => [0, 1].map((variant) => ({
          ws, args: { id, title: `Edited ${variant ? 'B' : 'A'} ${k} in round ${round}` },
        })))),
        init: { n: '0' },
        chooser: [
          '\\set n :n + 1',
          `\\set w :n % ${WORKSPACES}`,
          `\\set v ((:w * ${PICKS}) + (:client_id % ${PICKS})) * 2 + (:n / ${WORKSPACES}) % 2`,
        ],
        restRequest: () => { const ws = randomWs(); return { token: ws.token, args: { id: randomIssue(ws), title: `Edited ${restCounter++}` } }; },
      },
      'comments.create': {
        leaves: perIssue((issueId) => ({ issueId, body: 'Benchmark comment' })),
        restRequest: () => { const ws = randomWs(); return { token: ws.token, args: { issueId: randomIssue(ws), body: 'Benchmark comment' } }; },
      },
      'events.recent': {
        leaves: perWorkspace({}),
        restRequest: () => ({ token: randomWs().token, args: {} }),
      },
    };

    const leavesOf = (w: Pick<Work, 'leaves'>, round: number) => typeof w.leaves === 'function' ? w.leaves(round) : w.leaves;
    const serviceCase = (tool: string, w: Pick<Work, 'leaves' | 'chooser' | 'init'>, round = 0): PgbenchCase => ({
      text: callerStatement(toolCall(findTool(tool)!)),
      leaves: leavesOf(w, round).map(({ ws, args }): Leaf => callerValues(ws.caller, [validated(tool, args)])),
      chooser: w.chooser,
      init: w.init,
    });
    const referenceCase = (tool: string, w: Pick<Work, 'leaves' | 'chooser' | 'init'>, round = 0): PgbenchCase => ({
      text: REFERENCE[tool]!,
      leaves: leavesOf(w, round).map(({ ws, args }): Leaf => [ws.id, validated(tool, args)]),
      chooser: w.chooser,
      init: w.init,
    });
    /** Runs a case's first leaf once through node-pg: the statement works and returns something. */
    const check = async (pool: pg.Pool, role: string, c: PgbenchCase, what: string) => {
      const client = await pool.connect();
      try {
        await client.query(`set role ${role}`);
        const { rows } = await client.query(c.text, c.leaves[0]);
        if (rows[0]?.r == null) throw new Error(`${what}: the statement returned nothing (RLS?)`);
      } finally {
        await client.query('reset role').catch(() => {});
        client.release();
      }
    };

    const header = `${'tool'.padEnd(30)} ${'reference tx/s'.padStart(14)} ${'SQL tx/s'.padStart(9)} ${'REST req/s'.padStart(10)} ${'floor req/s'.padStart(11)}  ` +
      `${'SQL/ref'.padStart(7)} ${'REST/SQL'.padStart(8)} ${'REST/floor'.padStart(10)}   p50/p99 ms: reference | SQL | REST | floor   (load)`;
    const measure = async (name: string, tool: string, w: Work) => {
      await check(reference!, 'svc_bench_ref_visitor', referenceCase(tool, w, -1), `${name} reference`);
      await check(owner, 'svc_visitor', serviceCase(tool, w, -1), `${name} service SQL`);
      // A second of REST first: the server's pool connections prepare the statement and compile the functions
      // once, as pgbench's fresh connections do in the first of their thousands of transactions.
      await rest(server.url, tool, w.restRequest, 1);
      if (floorServer) await floor(floorServer.url, tool, w.restRequest, 1);
      // Interleaved rounds (reference, SQL, REST, then REST, SQL, reference, …): a burst of other work on the
      // machine, or data growing under the writes, weighs on all three alike. A checkpoint before each run:
      // every run starts with the same full-page-write state of the WAL.
      const runs: Record<'ref' | 'sql' | 'rest' | 'floor', Measured[]> = { ref: [], sql: [], rest: [], floor: [] };
      for (let round = 0; round < ROUNDS; round++) {
        const once = {
          ref: () => pgbench(refTarget, referenceCase(tool, w, round), { clients: CONNECTIONS, seconds: DURATION }),
          sql: () => pgbench(svcTarget, serviceCase(tool, w, round), { clients: CONNECTIONS, seconds: DURATION }),
          rest: () => rest(server.url, tool, w.restRequest),
          floor: () => floor(floorServer!.url, tool, w.restRequest),
        };
        const order = (floorServer ? ['ref', 'sql', 'rest', 'floor'] as const : ['ref', 'sql', 'rest'] as const).slice();
        if (round % 2) order.reverse();
        for (const which of order) {
          await owner.query('checkpoint');
          runs[which].push(await once[which]());
        }
      }
      const [ref, sql, api] = [merge(runs.ref), merge(runs.sql), merge(runs.rest)];
      const bare = runs.floor.length ? merge(runs.floor) : undefined;
      const load = round(os.loadavg()[0]!);
      emit({
        name,
        referenceTxPerSec: round(ref.txPerSec, 0), referenceP50Ms: round(ref.p50Ms), referenceP99Ms: round(ref.p99Ms),
        sqlTxPerSec: round(sql.txPerSec, 0), sqlP50Ms: round(sql.p50Ms), sqlP99Ms: round(sql.p99Ms),
        restReqPerSec: round(api.txPerSec, 0), restP50Ms: round(api.p50Ms), restP99Ms: round(api.p99Ms),
        sqlToReference: round(sql.txPerSec / ref.txPerSec), restToSql: round(api.txPerSec / sql.txPerSec),
        ...(bare && {
          nodeFloorReqPerSec: round(bare.txPerSec, 0), nodeFloorP50Ms: round(bare.p50Ms), nodeFloorP99Ms: round(bare.p99Ms),
          restToNodeFloor: round(api.txPerSec / bare.txPerSec), nodeFloorToSql: round(bare.txPerSec / sql.txPerSec),
        }),
        loadavg1m: load,
      });
      const ms = (m: Measured) => `${m.p50Ms.toFixed(2)}/${m.p99Ms.toFixed(2)}`;
      log(`${name.padEnd(30)} ${ref.txPerSec.toFixed(0).padStart(14)} ${sql.txPerSec.toFixed(0).padStart(9)} ${api.txPerSec.toFixed(0).padStart(10)} ` +
          `${(bare ? bare.txPerSec.toFixed(0) : '-').padStart(11)}  ` +
          `${(sql.txPerSec / ref.txPerSec).toFixed(2).padStart(6)}× ${(api.txPerSec / sql.txPerSec).toFixed(2).padStart(7)}× ` +
          `${(bare ? `${(api.txPerSec / bare.txPerSec).toFixed(2)}×` : '-').padStart(10)}   ` +
          `${ms(ref)} | ${ms(sql)} | ${ms(api)} | ${bare ? ms(bare) : '-'}   (${load})`);
    };

    log(header);
    // Reads first, so the writes' growth does not change what the reads see.
    for (const tool of ['issues.get', 'issues.list', 'events.recent', 'issues.update', 'comments.create', 'issues.create']) {
      if (SELECTED.includes(tool)) await measure(tool, tool, work[tool]!);
    }
    if (SELECTED.includes('issues.create')) {
      // One busy workspace: every client creates in the same workspace (the reference: one counter row locked
      // to commit; the service: the workspace's number sequence).
      await measure('issues.create (busy workspace)', 'issues.create', {
        leaves: [{ ws: busy, args: createArgs }],
        restRequest: () => ({ token: busy.token, args: createArgs }),
      });
    }
    log(`(reference NOTIFYs received by its listener: ${refNotifications})`);

    if (SCALE) {
      // issues.list at scale: a fresh workspace with 1,000 issues, then SCALE_ISSUES, with other workspaces holding data.
      log(`\nissues.list latency as the workspace grows (${OTHER_WORKSPACES} other workspaces × ${OTHER_ISSUES} issues)`);
      const t1 = Date.now();
      // The write runs above left autovacuum work in both databases (events, comments, issues): done now, it
      // cannot land in the middle of a latency measurement (it stalled one search run for 0.6 s).
      await owner.query('vacuum (analyze)');
      await reference.query('vacuum (analyze)');
      for (let i = 0; i < OTHER_WORKSPACES; i++) {
        const client = await owner.connect();
        const other = (await ADMIN_COMMANDS['create-workspace']!(client, { name: `Other ${i}`, key: `OTHER${i}`, 'owner-email': `o${i}@example.com` })).json as { workspace: { id: string } };
        client.release();
        await bulkIssues(other.workspace.id, OTHER_ISSUES);
      }
      const scale = await createWorkspace('SCALE', 1000);
      await owner.query('vacuum (analyze) app_public.issues');
      await owner.query('checkpoint');
      const listCase = serviceCase('issues.list', { leaves: [{ ws: scale, args: {} }] });
      const listRequest = () => ({ token: scale.token, args: {} });
      await rest(server.url, 'issues.list', listRequest, 1);
      const sqlSmall = await pgbench(svcTarget, listCase, { clients: CONNECTIONS, seconds: DURATION });
      const small = await rest(server.url, 'issues.list', listRequest);
      await bulkIssues(scale.id, SCALE_ISSUES - 1000);
      // Vacuum now, the whole database: left to autovacuum, the fresh 100k rows, and the tables the 51 new
      // workspaces wrote to (with pg_statistic, churned by their analyze), would be vacuumed during the
      // measurement; and a checkpoint, or the checkpointer writes them out during it.
      await owner.query('vacuum (analyze)');
      await owner.query('checkpoint');
      log(`  (seeded in ${((Date.now() - t1) / 1000).toFixed(1)} s)`);
      const sqlLarge = await pgbench(svcTarget, listCase, { clients: CONNECTIONS, seconds: DURATION });
      const large = await rest(server.url, 'issues.list', listRequest);
      const filtered = await rest(server.url, 'issues.list', () => ({ token: scale.token, args: { priority: 'URGENT', status: 'TODO' } }));
      // Search (issue 15): a word in 1 of 20 titles (5,000 at 100k), a two-word prefix query, and a word in every title.
      // Each at saturation (8 clients as fast as answers come: its p99 is mostly queueing for the cores) and
      // open loop at half the rate it reached there (the latency of an answer when the machine is not saturated).
      const searches: Record<string, Measured> = {};
      const searchesHalf: Record<string, Measured & { clientLoopDelayMaxMs: number }> = {};
      /** Of the half-rate answers, the share the service itself timed at 50 ms or less. */
      const serverWithin50: Record<string, number> = {};
      /** The longest the server's event loop was held up during each half-rate run (GC, or no core free). */
      const serverLoopDelay: Record<string, number> = {};
      for (const query of ['webhook', 'flaky timeo', 'seeded']) {
        const request = () => ({ token: scale.token, args: { query } });
        searches[query] = await rest(server.url, 'issues.list', request);
        const before = await serverAnswers(server.url, 'issues.list');
        searchesHalf[query] = await paced(server.url, 'issues.list', request, Math.max(1, Math.round(searches[query]!.txPerSec / 2)));
        const after = await serverAnswers(server.url, 'issues.list');
        serverWithin50[query] = (after.within50ms - before.within50ms) / Math.max(1, after.all - before.all);
        serverLoopDelay[query] = after.loopDelayMaxMs;
      }
      const growth = {
        name: 'issues.list p99 growth',
        issuesSmall: 1000, issuesLarge: SCALE_ISSUES,
        restP99SmallMs: round(small.p99Ms), restP99LargeMs: round(large.p99Ms), restRatio: round(large.p99Ms / small.p99Ms),
        sqlP99SmallMs: round(sqlSmall.p99Ms), sqlP99LargeMs: round(sqlLarge.p99Ms), sqlRatio: round(sqlLarge.p99Ms / sqlSmall.p99Ms),
        restReqPerSecSmall: round(small.txPerSec, 0), restReqPerSecLarge: round(large.txPerSec, 0),
        restFilteredP99LargeMs: round(filtered.p99Ms), restFilteredReqPerSecLarge: round(filtered.txPerSec, 0),
        restSearchP99LargeMs: Object.fromEntries(Object.entries(searches).map(([q, m]) => [q, round(m.p99Ms)])),
        restSearchP50LargeMs: Object.fromEntries(Object.entries(searches).map(([q, m]) => [q, round(m.p50Ms)])),
        restSearchReqPerSecLarge: Object.fromEntries(Object.entries(searches).map(([q, m]) => [q, round(m.txPerSec, 0)])),
        restSearchP99AtHalfRateLargeMs: Object.fromEntries(Object.entries(searchesHalf).map(([q, m]) => [q, round(m.p99Ms)])),
        restSearchServerShareWithin50msAtHalfRate: Object.fromEntries(Object.entries(serverWithin50).map(([q, share]) => [q, round(share, 4)])),
        restSearchServerLoopDelayMaxMsAtHalfRate: Object.fromEntries(Object.entries(serverLoopDelay).map(([q, ms]) => [q, round(ms, 0)])),
        restSearchClientLoopDelayMaxMsAtHalfRate: Object.fromEntries(Object.entries(searchesHalf).map(([q, m]) => [q, round(m.clientLoopDelayMaxMs, 0)])),
      };
      emit(growth);
      log(`  REST  @1k  ${small.txPerSec.toFixed(0).padStart(6)} req/s  p50 ${small.p50Ms.toFixed(2)} ms  p99 ${small.p99Ms.toFixed(2)} ms`);
      log(`  REST  @${SCALE_ISSUES / 1000}k ${large.txPerSec.toFixed(0).padStart(6)} req/s  p50 ${large.p50Ms.toFixed(2)} ms  p99 ${large.p99Ms.toFixed(2)} ms`);
      log(`  REST  @${SCALE_ISSUES / 1000}k filtered (priority URGENT, status TODO) ${filtered.txPerSec.toFixed(0)} req/s  p99 ${filtered.p99Ms.toFixed(2)} ms`);
      for (const [q, m] of Object.entries(searches)) {
        const half = searchesHalf[q]!;
        log(`  REST  @${SCALE_ISSUES / 1000}k search "${q}" ${m.txPerSec.toFixed(0)} req/s  p50 ${m.p50Ms.toFixed(2)} ms  p99 ${m.p99Ms.toFixed(2)} ms;` +
          `  at ${half.txPerSec.toFixed(0)} req/s: p50 ${half.p50Ms.toFixed(2)} ms  p99 ${half.p99Ms.toFixed(2)} ms` +
          ` (the service timed ${(serverWithin50[q]! * 100).toFixed(1)}% of them at ≤ 50 ms; its event loop was held up ≤ ${serverLoopDelay[q]!.toFixed(0)} ms)`);
      }
      log(`  SQL   @1k  ${sqlSmall.txPerSec.toFixed(0).padStart(6)} tx/s   p99 ${sqlSmall.p99Ms.toFixed(2)} ms;  @${SCALE_ISSUES / 1000}k ${sqlLarge.txPerSec.toFixed(0)} tx/s  p99 ${sqlLarge.p99Ms.toFixed(2)} ms`);
      log(`  p99 at ${SCALE_ISSUES / 1000}k / at 1k: REST ${growth.restRatio.toFixed(2)}×, SQL ${growth.sqlRatio.toFixed(2)}× (target ≤ 1.5×)`);
    }
  } finally {
    await refListener?.end().catch(() => {});
    await reference?.end();
    await keys.close();
    await visitor.end();
    await owner.end();
    await stopServer(server);
    if (floorServer) await stopServer(floorServer);
    await stopCluster();
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
