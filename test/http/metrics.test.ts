/** GET /metrics (Prometheus text), GET /live and GET /ready. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingMigrationCount } from '../../src/db/migrate.ts';
import { rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

type Sample = { name: string; labels: Record<string, string>; value: number };

/** A strict reading of the text exposition format: every line is a comment (# HELP / # TYPE) or a sample. */
async function scrape(): Promise<{ samples: Sample[]; types: Map<string, string> }> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of res.body.split('\n')) {
    if (line === '') continue;
    const type = line.match(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/i); // prom-client writes NaN as "Nan" (Prometheus parses it case-insensitively)
    expect(m, `not a Prometheus sample line: ${line}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, k, v] of m![2]?.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g) ?? []) labels[k!] = v!;
    samples.push({ name: m![1]!, labels, value: Number(m![3]) });
  }
  return { samples, types };
}
const value = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0;

describe('/metrics', () => {
  it('is Prometheus text with the service metrics', async () => {
    const { types, samples } = await scrape();
    expect(types.get('svc_tool_calls_total')).toBe('counter');
    expect(types.get('svc_tool_call_duration_seconds')).toBe('histogram');
    expect(types.get('svc_db_pool_connections')).toBe('gauge');
    expect(types.get('svc_job_queue_depth')).toBe('gauge');
    expect(types.get('svc_sse_clients')).toBe('gauge');
    expect(types.get('svc_webhook_deliveries')).toBe('gauge');
    expect(types.get('svc_event_stream_backlog')).toBe('gauge');
    expect(types.get('svc_webhook_attempts_total')).toBe('counter');
    expect(types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(samples.some((s) => s.name === 'svc_db_pool_connections' && s.labels.pool === 'api' && s.labels.state === 'total')).toBe(true);
  });

  it('counts tool calls per tool, surface and status, and times them', async () => {
    const before = (await scrape()).samples;
    expect((await rest(t, ws.token, 'issues.create', { title: 'Counted' })).status).toBe(200);
    expect((await rest(t, ws.token, 'issues.create', { title: '' })).status).toBe(400);
    expect((await rpc(t, ws.token, 'tools/call', { name: 'workspace.get', arguments: {} })).status).toBe(200);
    const after = (await scrape()).samples;
    const delta = (labels: Record<string, string>) => value(after, 'svc_tool_calls_total', labels) - value(before, 'svc_tool_calls_total', labels);
    expect(delta({ tool: 'issues.create', surface: 'rest', status: '200' })).toBe(1);
    expect(delta({ tool: 'issues.create', surface: 'rest', status: '400' })).toBe(1);
    expect(delta({ tool: 'workspace.get', surface: 'rpc', status: '200' })).toBe(1);
    expect(value(after, 'svc_tool_call_duration_seconds_count', { tool: 'issues.create', surface: 'rest', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(value(after, 'svc_tool_call_duration_seconds_bucket', { tool: 'issues.create', surface: 'rest', status: '200', le: '+Inf' })).toBeGreaterThanOrEqual(1);
  });

  it('reports the job queue depth from graphile_worker.jobs', async () => {
    const before = value((await scrape()).samples, 'svc_job_queue_depth', { state: 'ready' });
    await t.pools.owner.query(`select graphile_worker.add_job('svc_metrics_probe', '{}'::json)`);
    const after = value((await scrape()).samples, 'svc_job_queue_depth', { state: 'ready' });
    expect(after - before).toBe(1);
    await t.pools.owner.query(`delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'svc_metrics_probe')`);
  });
});

describe('/live and /ready', () => {
  it('/live answers while the process runs; /ready when the database is reachable and migrated', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ ok: true });
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ok: true, database: true, migrations: { applied: expect.any(Number), expected: expect.any(Number) } });
  });

  it('/ready is 503 while this process\'s event connection is down (its streams would be silent), 200 once it listens again', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ ok: true, events: true });
    const reconnected = new Promise((resolve) => t.notifier.once('connected', resolve));
    await t.pools.owner.query(`select pg_terminate_backend(pid) from pg_stat_activity
                               where application_name = 'svc-listen' and datname = current_database() and pid <> pg_backend_pid()`);
    // The notifier waits 250 ms before it connects again: /ready says so meanwhile.
    let down: { statusCode: number; json(): unknown } | undefined;
    for (let i = 0; i < 100 && !down; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      if (res.statusCode === 503) down = res;
      else await new Promise((r) => setTimeout(r, 10));
    }
    expect(down?.json()).toMatchObject({ ok: false, database: true, events: false });
    await reconnected;
    await expect.poll(async () => (await t.app.inject({ method: 'GET', url: '/ready' })).statusCode, { timeout: 5000 }).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ ok: true, events: true });
  });

  it('/ready is 503 (events: false) while committed events wait over a minute for their stream position (a stuck sequencer elsewhere)', async () => {
    const holder = new pg.Client({ connectionString: t.ownerUrl });
    await holder.connect();
    try {
      // Another session holds the sequencer's lock (a process stuck while sequencing): nothing gets a position.
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(1398161490, 0)');
      const { rows: [e] } = await t.pools.owner.query(`select id from app_public.activity_events order by created_at desc limit 1`);
      await t.pools.owner.query(`update app_public.activity_events set stream_pos = null, created_at = now() - interval '2 minutes' where id = $1`, [e.id]);
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, database: true, events: false });
      await holder.query('rollback');
      // Released, the event is sequenced again and /ready says so.
      await expect.poll(async () => (await t.app.inject({ method: 'GET', url: '/ready' })).statusCode, { timeout: 5000 }).toBe(200);
    } finally {
      await holder.end();
    }
  });

  it('/ready is 503 when a migration is missing', async () => {
    const admin = new pg.Client({ connectionString: t.ownerUrl });
    await admin.connect();
    try {
      await admin.query('begin');
      await admin.query('create temp table kept as select * from graphile_migrate.migrations where filename = (select max(filename) from graphile_migrate.migrations)');
      await admin.query('delete from graphile_migrate.migrations where filename = (select filename from kept)');
      await admin.query('commit');
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ ok: false, database: true });
      await admin.query('insert into graphile_migrate.migrations select * from kept');
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    } finally {
      await admin.end();
    }
  });

  it('a database a newer release migrated: /ready is 503 and starting refuses (an older release served writes on it)', async () => {
    const admin = new pg.Client({ connectionString: t.ownerUrl });
    await admin.connect();
    try {
      await admin.query(`insert into graphile_migrate.migrations (hash, previous_hash, filename)
        select 'sha1:future', hash, '999999.sql' from graphile_migrate.migrations order by filename desc limit 1`);
      const res = await t.app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json().migrations.applied).toBe(res.json().migrations.expected + 1);
      await expect(pendingMigrationCount(t.ownerUrl)).rejects.toThrow(/newer release/);
    } finally {
      await admin.query(`delete from graphile_migrate.migrations where filename = '999999.sql'`);
      await admin.end();
    }
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
  });
});
