/**
 * Signals on the embedded PostgreSQL: SIGTERM sent to `npx svc start` reaches the service (npm forwards
 * it only to its `sh -c`), and Ctrl-C during start-up stops the PostgreSQL it started. Also the
 * start-up progress lines, `svc db url`, `svc psql` and the non-superuser owner.
 */
import { spawnSync } from 'node:child_process';
import pgClient from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, postmasterPid, spawnCollect, svc, SVC, tempDataDir, waitFor } from './support.ts';

let data: Awaited<ReturnType<typeof tempDataDir>>;
beforeAll(async () => {
  data = await tempDataDir();
});
afterAll(async () => {
  await data?.remove();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('svc start on the embedded PostgreSQL', () => {
  it('says what it does while it boots; Ctrl-C during start-up stops the PostgreSQL it started', async () => {
    const dir = `${data.dir}-int`;
    const port = await freePort();
    const first = spawnCollect('node', [SVC, 'start'], { SVC_DATA_DIR: dir, DATABASE_URL: '', PORT: String(port) });
    // Interrupt once the cluster is up and migrations are being applied.
    await waitFor('migrations to start', async () => /applying \d+ of \d+ migrations/.test(first.output()), 90_000);
    const pg = await postmasterPid(dir);
    expect(pg).toBeDefined();
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    const out = first.output();
    expect(out).toMatch(/svc: creating the embedded PostgreSQL cluster in .*\(first run/);
    expect(out).toMatch(/svc: starting embedded PostgreSQL on 127\.0\.0\.1:\d+/);
    expect(out).toMatch(/SIGINT during start-up: stopping what was started/);
    expect(out).toMatch(/svc stopped during start-up/);
    expect(out).not.toMatch(/listening/);
    expect(await postmasterPid(dir)).toBeUndefined();
    // pg_ctl stop -w returns when the pid file is gone; the process follows a moment later.
    await waitFor('the postmaster to exit', async () => !alive(pg!), 10_000);

    // A second start on the same directory: no cluster creation, the schema is finished, worker, listening.
    const again = spawnCollect('node', [SVC, 'start'], { SVC_DATA_DIR: dir, DATABASE_URL: '', PORT: String(port) });
    await waitFor('listening', async () => /svc listening on/.test(again.output()), 90_000);
    const lines = again.output();
    expect(lines).not.toMatch(/creating the embedded/);
    expect(lines).toMatch(/svc: (applying \d+ of \d+ migrations|database schema up to date \(\d+ migrations\))/);
    expect(lines).toMatch(/svc: starting the worker/);

    // svc db url / svc psql: the owner's connection string; the owner is not a superuser, and the
    // service's own connections (worker, API pools) use it.
    const env = { SVC_DATA_DIR: dir, DATABASE_URL: '' };
    const url = await svc(['db', 'url', '--json'], env);
    expect(url.code).toBe(0);
    expect(JSON.parse(url.stdout)).toMatchObject({ url: expect.stringMatching(/^postgres:\/\/svc_owner:[^@]+@127\.0\.0\.1:\d+\/svc$/), embedded: true, running: true });
    const su = JSON.parse((await svc(['db', 'url', '--superuser', '--json'], env)).stdout).url as string;
    const psql = await svc(['psql', '--', '-Atc', `select current_user, rolsuper, rolbypassrls from pg_roles where rolname = current_user`], env);
    expect(psql.stderr).toBe('');
    expect(psql.stdout.trim()).toBe('svc_owner|f|t');
    const admin = new pgClient.Client({ connectionString: su });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        `select distinct usename from pg_stat_activity where datname = 'svc' and application_name in ('svc-owner', 'svc-api', 'svc-listen')`);
      expect(rows.map((r) => r.usename)).toEqual(['svc_owner']);
      const owners = await admin.query(`select distinct pg_get_userbyid(c.relowner) as o from pg_class c join pg_namespace n on n.oid = c.relnamespace
                                        where n.nspname in ('app_public', 'app_private', 'app_hidden', 'app_tools', 'graphile_worker')`);
      expect(owners.rows.map((r) => r.o)).toEqual(['svc_owner']);
    } finally {
      await admin.end();
    }
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(await postmasterPid(dir)).toBeUndefined();
  }, 180_000);

  /** `npx svc start` on a fresh data directory, once it answers /health, with its embedded PostgreSQL's pid. */
  async function npxStart(name: string) {
    const dir = `${data.dir}-${name}`;
    const port = await freePort();
    const npx = spawnCollect('npx', ['--no-install', 'svc', 'start'], { SVC_DATA_DIR: dir, DATABASE_URL: '', PORT: String(port) });
    await waitFor('/health', async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 120_000);
    const pg = await postmasterPid(dir);
    expect(pg).toBeDefined();
    return { dir, port, npx, pg };
  }

  it('SIGTERM sent to `npx svc start` reaches the service, which stops the embedded PostgreSQL', async () => {
    const { dir, port, npx, pg } = await npxStart('npx');

    npx.child.kill('SIGTERM');
    await npx.exited;
    await waitFor('the embedded PostgreSQL to stop', async () => !alive(pg!), 30_000);
    expect(await postmasterPid(dir)).toBeUndefined();
    await waitFor('the port to close', async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/health`);
        return false;
      } catch {
        return true;
      }
    }, 10_000);
    expect(npx.output()).toMatch(/svc stopped/);
  }, 180_000);

  it('SIGTERM to npx, its shell and the service at once (pkill -f "svc start") still stops the embedded PostgreSQL', async () => {
    const { npx, pg } = await npxStart('pkill');
    // The whole tree npm started: npx, `sh -c`, node bin/svc.js.
    const tree = (pid: number): number[] => {
      const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
      return [pid, ...children.flatMap(tree)];
    };
    const pids = tree(npx.child.pid!).filter((p) => p !== pg);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    // The service first, then (its stop under way) what npm started around it, as pkill may order them.
    process.kill(pids.at(-1)!, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
    for (const p of pids.slice(0, -1)) {
      // One gone already (a short-lived child of the tree, or a parent that followed the service out) is one pkill
      // would not find either (a CI run failed on its ESRCH).
      try {
        process.kill(p, 'SIGTERM');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    await npx.exited;
    await waitFor('the embedded PostgreSQL to stop', async () => !alive(pg!), 30_000);
    expect(npx.output()).not.toMatch(/again, exiting now/);
  }, 180_000);
});

describe('svc start on a database whose network froze', () => {
  it('a stop ends within SVC_STOP_TIMEOUT_SECONDS, saying why, instead of waiting for the database (an outage probe: 4 minutes, silent)', async () => {
    const { startDbProxy } = await import('../support/db-proxy.ts');
    const { createTestDatabase } = await import('../support/harness.ts');
    const proxy = await startDbProxy(await createTestDatabase());
    const port = await freePort();
    const server = spawnCollect('node', [SVC, 'start'], { DATABASE_URL: proxy.url, PORT: String(port), SVC_STOP_TIMEOUT_SECONDS: '2' });
    try {
      await waitFor('svc to listen', async () => /svc listening on/.test(server.output()), 60_000);
      // A request holds a pool connection, so the stop has one to close.
      expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
      proxy.freeze();
      const started = Date.now();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      expect(code).toBe(1);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(server.output()).toMatch(/svc: still stopping after 2 s \(SVC_STOP_TIMEOUT_SECONDS/);
    } finally {
      server.child.kill('SIGKILL');
      proxy.thaw();
      await proxy.close();
    }
  }, 90_000);
});
