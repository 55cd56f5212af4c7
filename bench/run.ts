/**
 * npm run bench [-- --json] [--duration 10] [--connections 16]
 *
 * Starts `svc start` on a fresh embedded database (in .svc-bench/), seeds a workspace, then for
 * issues.create, issues.get and issues.list measures:
 *   - the REST alias under load (autocannon, N concurrent connections), and
 *   - the same SQL statement the API runs, straight through `pg` with the same concurrency
 *     (the database's own ceiling),
 * and prints req/s, p50, p99 and the ratio API / SQL. Finally issues.list p99 at 1,000 issues versus
 * 100,000 issues in the same workspace, with 50 other workspaces holding data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import type { Caller } from '../src/auth/keys.ts';
import { ADMIN_COMMANDS } from '../src/cli/admin.ts';
import { queryAsCaller } from '../src/db/as-caller.ts';
import { findTool } from '../src/tools/catalog.ts';

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    keep: { type: 'boolean', default: false },
  },
});
const DURATION = Number(opts.duration);
const CONNECTIONS = Number(opts.connections);
const dataDir = path.resolve('.svc-bench');

interface Figure { name: string; reqPerSec: number; p50Ms: number; p99Ms: number; ratioToSql?: number }
const figures: Figure[] = [];
const log = (msg: string) => { if (!opts.json) process.stdout.write(`${msg}\n`); };
function report(f: Figure) {
  figures.push(f);
  if (opts.json) process.stdout.write(`${JSON.stringify(f)}\n`);
  else log(`${f.name.padEnd(34)} ${f.reqPerSec.toFixed(0).padStart(7)} req/s   p50 ${f.p50Ms.toFixed(2).padStart(7)} ms   p99 ${f.p99Ms.toFixed(2).padStart(7)} ms${f.ratioToSql !== undefined ? `   API/SQL ${(f.ratioToSql * 100).toFixed(0)}%` : ''}`);
}

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn('node', ['bin/svc.js', 'start'], {
    env: { ...process.env, DATABASE_URL: '', SVC_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', SVC_RATE_LIMIT_RPC_PER_MIN: '0', SVC_RATE_LIMIT_REST_PER_MIN: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = out.match(/svc listening on (http:\/\/[^\s"]+)/);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}\n${out}`)));
  });
  return { child, url };
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The statement the API runs for a tool (src/tools/invoke.ts), with the same concurrency, straight through pg. */
async function directSql(pool: pg.Pool, caller: Caller, tool: string, makeArgs: () => unknown): Promise<Figure> {
  const t = findTool(tool)!;
  const latencies: number[] = [];
  const deadline = Date.now() + DURATION * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < deadline) {
      const t0 = performance.now();
      await queryAsCaller(pool, caller, `bench:${tool}`, `${t.sqlFunction}($9::jsonb)`, [JSON.stringify(makeArgs())]);
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { name: `${tool} (direct SQL)`, reqPerSec: latencies.length / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

async function api(url: string, token: string, tool: string, makeArgs: () => unknown): Promise<Figure> {
  const result = await autocannon({
    url: `${url}/api/mcp/${tool}`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [{
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      setupRequest: (req) => ({ ...req, body: JSON.stringify(makeArgs()) }),
    }],
  });
  if (result.non2xx || result.errors) throw new Error(`${tool}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { name: `${tool} (REST)`, reqPerSec: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

async function main() {
  if (!opts.keep) await fs.rm(dataDir, { recursive: true, force: true });
  log(`starting svc on an embedded database in ${dataDir} …`);
  const server = await startServer();
  const settings = JSON.parse(await fs.readFile(path.join(dataDir, 'embedded.json'), 'utf8'));
  const ownerUrl = `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${settings.port}/svc`;
  const owner = new pg.Pool({ connectionString: ownerUrl, max: 4 });
  const visitor = new pg.Pool({ connectionString: ownerUrl, max: CONNECTIONS, options: '-c role=svc_visitor' });
  try {
    const client = await owner.connect();
    const created = (await ADMIN_COMMANDS['create-workspace']!(client, { name: 'Bench', key: 'BENCH', 'owner-email': 'bench@example.com' })).json as {
      workspace: { id: string }; owner: { id: string }; apiKey: { id: string; rawKey: string };
    };
    client.release();
    const token = created.apiKey.rawKey;
    const caller: Caller = {
      keyId: created.apiKey.id, workspaceId: created.workspace.id, userId: created.owner.id, agentId: null, kind: 'PERSONAL',
      scopes: ['FULL'], projectIds: [], labelIds: [], initiativeIds: [], expiresAt: null,
    };
    const ws = created.workspace.id;

    const seedIssues = async (workspaceId: string, n: number) => {
      await owner.query(
        `insert into app_public.issues (workspace_id, title, status_id, priority)
         select $1, 'Seeded issue ' || g, (select id from app_public.statuses where workspace_id = $1 and is_default),
                (array['NONE','LOW','MEDIUM','HIGH','URGENT'])[1 + g % 5]
         from generate_series(1, $2) g`, [workspaceId, n]);
      await owner.query('analyze app_public.issues');
    };
    await seedIssues(ws, 1000);
    const ids = (await owner.query('select id from app_public.issues where workspace_id = $1', [ws])).rows.map((r) => r.id as string);
    const anyId = () => ids[Math.floor(Math.random() * ids.length)];
    log(`seeded workspace BENCH with ${ids.length} issues; ${CONNECTIONS} connections, ${DURATION}s per run\n`);

    const cases: Array<[string, () => unknown]> = [
      ['issues.create', () => ({ title: 'Benchmark issue', priority: 'HIGH', description: 'created under load' })],
      ['issues.get', () => ({ id: anyId() })],
      ['issues.list', () => ({})],
    ];
    for (const [tool, makeArgs] of cases) {
      const sql = await directSql(visitor, caller, tool, makeArgs);
      report(sql);
      const rest = await api(server.url, token, tool, makeArgs);
      rest.ratioToSql = rest.reqPerSec / sql.reqPerSec;
      report(rest);
    }

    // issues.list at scale: a fresh workspace with 1,000 issues, then 100,000, with 50 other workspaces holding data.
    log('\nissues.list latency as the workspace grows');
    const scaleClient = await owner.connect();
    const scale = (await ADMIN_COMMANDS['create-workspace']!(scaleClient, { name: 'Scale', key: 'SCALE', 'owner-email': 'scale@example.com' })).json as {
      workspace: { id: string }; apiKey: { rawKey: string };
    };
    for (let i = 0; i < 50; i++) {
      const other = (await ADMIN_COMMANDS['create-workspace']!(scaleClient, { name: `Other ${i}`, key: `OTHER${i}`, 'owner-email': `o${i}@example.com` })).json as { workspace: { id: string } };
      await seedIssues(other.workspace.id, 2000);
    }
    scaleClient.release();
    await seedIssues(scale.workspace.id, 1000);
    const small = await api(server.url, scale.apiKey.rawKey, 'issues.list', () => ({}));
    report({ ...small, name: 'issues.list @1k (REST)' });
    await seedIssues(scale.workspace.id, 99_000);
    const large = await api(server.url, scale.apiKey.rawKey, 'issues.list', () => ({}));
    report({ ...large, name: 'issues.list @100k (REST)' });
    const filtered = await api(server.url, scale.apiKey.rawKey, 'issues.list', () => ({ priority: 'URGENT', status: 'TODO' }));
    report({ ...filtered, name: 'issues.list @100k filtered (REST)' });
    const growth = large.p99Ms / small.p99Ms;
    if (opts.json) process.stdout.write(`${JSON.stringify({ name: 'issues.list p99 growth 1k→100k', ratio: growth })}\n`);
    else log(`issues.list p99 at 100k / at 1k: ${growth.toFixed(2)}× (target ≤ 1.5×)`);
  } finally {
    await visitor.end();
    await owner.end();
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.on('exit', r));
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
