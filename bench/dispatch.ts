/**
 * npm run bench:dispatch [-- --json] [--issues 1000] [--agents 50] [--workers 1,2]
 *
 * The dispatcher under a burst: a workspace with autoDispatch on (ROUND_ROBIN), N agents ONLINE, M issues
 * queued by 8 concurrent clients, and 1 then 2 `svc worker` processes. Reports queue → AGENT_ASSIGNED
 * latency (p50/p99, from the two events' commit-time clocks), assignments per second from the first queue
 * to the last assignment, and double assignments (must be 0). Each round gets a fresh database on one
 * embedded cluster (.svc-bench-dispatch/).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ADMIN_COMMANDS } from '../src/cli/admin.ts';
import { openEmbeddedCluster } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    issues: { type: 'string', default: '1000' },
    agents: { type: 'string', default: '50' },
    workers: { type: 'string', default: '1,2' },
  },
});
const ISSUES = Number(opts.issues);
const AGENTS = Number(opts.agents);
const log = (msg: string) => { if (!opts.json) process.stdout.write(`${msg}\n`); };
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const cluster = await openEmbeddedCluster(path.resolve('.svc-bench-dispatch'));

async function round(workers: number) {
  const db = `bench_dispatch_${workers}`;
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${db} with (force)`);
  await admin.query(`create database ${db}`);
  await admin.end();
  const url = cluster.url(db);
  await applyMigrations(url, { includeCurrent: true }); // what is being built, committed or not
  const pool = new pg.Pool({ connectionString: url, max: 10 });

  // Seed: the workspace, its agents (ONLINE, unlimited load) and the issues (not yet queued).
  const client = await pool.connect();
  const { json: created } = await ADMIN_COMMANDS['create-workspace']!(client, { name: 'Bench', key: 'BD', 'owner-email': 'bench@example.com', json: true });
  const wsId = (created as { workspace: { id: string } }).workspace.id;
  for (let i = 0; i < AGENTS; i++) {
    await ADMIN_COMMANDS['create-agent']!(client, { workspace: 'BD', 'profile-key': `agent-${i}`, name: `Agent ${i}`, json: true });
  }
  await client.query("update app_public.agents set status = 'ONLINE', max_concurrent = 0 where workspace_id = $1", [wsId]);
  await client.query("update app_public.workspaces set auto_dispatch = true, auto_dispatch_mode = 'ROUND_ROBIN' where id = $1", [wsId]);
  const { rows: issues } = await client.query<{ id: string }>(
    `insert into app_public.issues (workspace_id, title, status_id)
     select $1, 'bench ' || g, (select id from app_public.statuses where workspace_id = $1 and is_default)
     from generate_series(1, $2) g returning id`, [wsId, ISSUES]);
  client.release();

  const children: ChildProcess[] = [];
  for (let i = 0; i < workers; i++) {
    const child = spawn('node', ['bin/svc.js', 'worker'], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
  }
  await new Promise((r) => setTimeout(r, 3_000)); // workers connected and listening

  // The burst: 8 clients queue every issue, one transaction each.
  const started = Date.now();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < issues.length) {
      const issue = issues[next++]!;
      await pool.query('update app_public.issues set queued = true where id = $1', [issue.id]);
    }
  }));
  for (;;) {
    const { rows: [row] } = await pool.query<{ n: number }>(
      'select count(*)::int as n from app_public.issues where workspace_id = $1 and assigned_agent_id is not null', [wsId]);
    if (row!.n >= ISSUES || Date.now() - started > 180_000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => c.once('exit', r))));

  const { rows } = await pool.query<{ ms: number }>(
    `select extract(epoch from a.created_at - q.created_at) * 1000 as ms
     from app_public.activity_events q
     join lateral (select e.created_at from app_public.activity_events e
                   where e.workspace_id = q.workspace_id and e.subject_type = 'issue' and e.subject_id = q.subject_id
                     and e.kind = 'AGENT_ASSIGNED' order by e.seq limit 1) a on true
     where q.workspace_id = $1 and q.kind = 'ISSUE_QUEUED'`, [wsId]);
  const { rows: [stats] } = await pool.query(
    `select count(*)::int as assigned,
            count(*) - count(distinct subject_id) as doubles,
            extract(epoch from max(created_at) - (select min(created_at) from app_public.activity_events
                                                  where workspace_id = $1 and kind = 'ISSUE_QUEUED')) as seconds
     from app_public.activity_events where workspace_id = $1 and kind = 'AGENT_ASSIGNED'`, [wsId]);
  await pool.end();
  const latencies = rows.map((r) => Number(r.ms)).sort((a, b) => a - b);
  const figure = {
    name: 'dispatch', workers, issues: ISSUES, agents: AGENTS, assigned: stats.assigned, doubleAssignments: Number(stats.doubles),
    p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), assignmentsPerSec: stats.assigned / Number(stats.seconds),
  };
  if (opts.json) process.stdout.write(`${JSON.stringify(figure)}\n`);
  else log(`${workers} worker process(es): ${figure.assigned}/${ISSUES} assigned, ${figure.doubleAssignments} double, `
    + `queue→AGENT_ASSIGNED p50 ${figure.p50Ms.toFixed(1)} ms p99 ${figure.p99Ms.toFixed(1)} ms, ${figure.assignmentsPerSec.toFixed(0)} assignments/s`);
}

try {
  log(`bench:dispatch — ${ISSUES} issues queued by 8 clients, ${AGENTS} agents ONLINE, ROUND_ROBIN`);
  for (const w of opts.workers.split(',').map(Number)) await round(w);
} finally {
  await cluster.stop();
}
