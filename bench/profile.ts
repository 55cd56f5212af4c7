/**
 * npm run bench:profile [-- --calls 300] [--explain issues.get] [--tools issues.get,issues.list] [--committed] [--narrowed]
 *
 * Where the time of the most used tools goes, one client, no concurrency: for each tool, the mean time of
 * its statement (the exact statement the service sends, as svc_visitor) and, with track_functions = 'all',
 * the functions it spends it in (pg_stat_user_functions: total and self time per call). --explain <tool>
 * prints EXPLAIN (ANALYZE, BUFFERS) of every statement inside one call (auto_explain, nested statements).
 *
 * Database: DATABASE_URL (a server where a scratch database may be created), else an embedded PostgreSQL in
 * a temporary directory. Migrations include migrations/current unless --committed (the SQL before the work
 * in progress).
 */
import '../src/polyfills.ts';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { KeyAuthenticator, type Caller } from '../src/auth/keys.ts';
import { ADMIN_COMMANDS } from '../src/cli/admin.ts';
import { callerStatement, callerValues } from '../src/db/as-caller.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { findTool } from '../src/tools/catalog.ts';
import { toolCall } from '../src/tools/invoke.ts';

const { values: opts } = parseArgs({
  options: {
    calls: { type: 'string', default: '300' },
    explain: { type: 'string' },
    tools: { type: 'string' },
    top: { type: 'string', default: '6' },
    committed: { type: 'boolean', default: false },
    narrowed: { type: 'boolean', default: false },
  },
});
const CALLS = Number(opts.calls);

async function database(): Promise<{ url: string; stop(): Promise<void> }> {
  let adminUrl = process.env.DATABASE_URL;
  let stopCluster = async () => {};
  if (!adminUrl) {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-profile-'));
    await fs.chmod(parent, 0o755);
    const cluster = await openEmbeddedCluster(path.join(parent, 'data'));
    adminUrl = cluster.url('postgres');
    stopCluster = async () => {
      await cluster.stop({ force: true });
      await fs.rm(parent, { recursive: true, force: true });
    };
  }
  const name = `svc_profile_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.query(`alter database ${name} set track_functions = 'all'`);
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

async function main() {
  const db = await database();
  await applyMigrations(db.url, { includeCurrent: !opts.committed });
  const owner = new pg.Pool({ connectionString: db.url, max: 2 });
  const visitorPool = new pg.Pool({ connectionString: db.url, max: 1, options: '-c role=svc_visitor' });
  const keys = new KeyAuthenticator(visitorPool, owner);
  try {
    const client = await owner.connect();
    const created = (await ADMIN_COMMANDS['create-workspace']!(client, { name: 'Profile', key: 'PROF', 'owner-email': 'p@example.com' })).json as {
      workspace: { id: string }; apiKey: { rawKey: string };
    };
    await ADMIN_COMMANDS['create-agent']!(client, { workspace: 'PROF', 'profile-key': 'worker', name: 'Worker' });
    const ws = created.workspace.id;
    await client.query(
      `insert into app_public.issues (workspace_id, title, status_id, priority)
       select $1, 'Seeded issue ' || g, (select id from app_public.statuses where workspace_id = $1 and is_default),
              (array['NONE','LOW','MEDIUM','HIGH','URGENT'])[1 + g % 5]
       from generate_series(1, 1000) g`, [ws]);
    await client.query('analyze');
    // The seeding's function statistics (triggers) reach the shared counters now, not in the middle of a tool.
    await client.query('select pg_stat_force_next_flush()');
    await client.query('select 1');
    client.release();
    let caller: Caller = await keys.authenticate(`Bearer ${created.apiKey.rawKey}`);
    if (opts.narrowed) {
      // A label-narrowed key that sees every other issue (and so every other issue's events).
      const label = (await owner.query(`insert into app_public.labels (workspace_id, name) values ($1, 'Narrowed') returning id`, [ws])).rows[0]!.id as string;
      await owner.query(
        `insert into app_public.issue_labels (workspace_id, issue_id, label_id)
         select $1, id, $2 from app_public.issues where workspace_id = $1 and number % 2 = 0`, [ws, label]);
      await owner.query('analyze');
      caller = { ...caller, labelIds: [label] };
    }
    const ids = (await owner.query('select id from app_public.issues where workspace_id = $1', [ws])).rows.map((r) => r.id as string);
    const statuses = (await owner.query('select id, category from app_public.statuses where workspace_id = $1 order by position', [ws])).rows as Array<{ id: string; category: string }>;
    const anyId = () => ids[Math.floor(Math.random() * ids.length)]!;
    let n = 0;

    const tools: Array<[string, () => unknown]> = [
      ['issues.get', () => ({ id: anyId() })],
      ['issues.list', () => ({})],
      ['issues.create', () => ({ title: 'Profiled issue', priority: 'HIGH', description: 'created while profiling' })],
      ['issues.update', () => ({ id: anyId(), title: `Edited ${n++}` })],
      ['issues.transition', () => ({ id: anyId(), statusId: statuses[n++ % statuses.length]!.id })],
      ['issues.claim', () => ({ id: anyId() })],
      ['issues.assigned', () => ({ profileKey: 'worker' })],
      ['comments.create', () => ({ issueId: ids[n++ % 20]!, body: 'A profiled comment' })],
      ['comments.list', () => ({ issueId: ids[n++ % 20]! })],
      ['events.recent', () => ({})],
    ];
    const selected = opts.tools ? opts.tools.split(',') : tools.map(([t]) => t);

    const visitor = new pg.Client({ connectionString: db.url, options: '-c role=svc_visitor' });
    await visitor.connect();
    visitor.on('error', () => {});
    const call = async (tool: string, args: unknown) => {
      const t = findTool(tool)!;
      const { rows } = await visitor.query({
        name: `profile:${tool}`, text: callerStatement(toolCall(t)), values: callerValues(caller, [JSON.stringify(t.input.parse(args))]),
      });
      return rows[0]?.r as string;
    };
    const functionStats = async () => {
      await owner.query('select pg_stat_clear_snapshot()');
      const { rows } = await owner.query(
        `select schemaname || '.' || funcname as f, calls::float8 as calls, total_time, self_time from pg_stat_user_functions`);
      return new Map(rows.map((r) => [r.f as string, r as { calls: number; total_time: number; self_time: number }]));
    };
    const flush = async () => {
      await visitor.query('select pg_stat_force_next_flush()');
      await visitor.query('select 1');
      await new Promise((r) => setTimeout(r, 50));
    };

    for (const [tool, makeArgs] of tools) {
      if (!selected.includes(tool)) continue;
      for (let i = 0; i < 20; i++) await call(tool, makeArgs()); // plans cached, caches warm
      await flush();
      const before = await functionStats();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) await call(tool, makeArgs());
      const perCall = (performance.now() - t0) / CALLS;
      await flush();
      const after = await functionStats();
      const rows = [...after].map(([f, a]) => {
        const b = before.get(f) ?? { calls: 0, total_time: 0, self_time: 0 };
        return { f, calls: (a.calls - b.calls) / CALLS, total: (a.total_time - b.total_time) / CALLS, self: (a.self_time - b.self_time) / CALLS };
      }).filter((r) => r.calls > 0).sort((x, y) => y.total - x.total);
      process.stdout.write(`\n${tool}: ${perCall.toFixed(3)} ms per call (round trip, 1 client, ${CALLS} calls)\n`);
      for (const r of rows.slice(0, Number(opts.top))) {
        process.stdout.write(`  ${r.f.padEnd(52)} ${r.calls.toFixed(1).padStart(5)} calls  total ${r.total.toFixed(3)} ms  self ${r.self.toFixed(3)} ms\n`);
      }
    }

    if (opts.explain) {
      const tool = opts.explain;
      const entry = tools.find(([t]) => t === tool);
      const args = entry ? entry[1]() : {};
      const explainer = new pg.Client({ connectionString: db.url });
      await explainer.connect();
      explainer.on('notice', (m) => { if (m.message?.includes('plan:')) process.stdout.write(`\n${m.message}\n`); });
      await explainer.query("load 'auto_explain'");
      await explainer.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on; set auto_explain.log_buffers = on;
        set auto_explain.log_nested_statements = on; set client_min_messages = log; set role svc_visitor`);
      const t = findTool(tool)!;
      process.stdout.write(`\nEXPLAIN (ANALYZE, BUFFERS) of every statement in one ${tool} call ${JSON.stringify(args)}\n`);
      await explainer.query(callerStatement(toolCall(t)), callerValues(caller, [JSON.stringify(t.input.parse(args))]));
      await explainer.end();
    }
    await visitor.end();
  } finally {
    await keys.close();
    await visitorPool.end();
    await owner.end();
    await db.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`profile failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
