/**
 * Signals on the embedded PostgreSQL: SIGTERM sent to `npx svc start` reaches the service (npm forwards
 * it only to its `sh -c`), and Ctrl-C during start-up stops the PostgreSQL it started. Also the
 * start-up progress lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, postmasterPid, spawnCollect, SVC, tempDataDir, waitFor } from './support.ts';

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
    const svc = spawnCollect('node', [SVC, 'start'], { SVC_DATA_DIR: dir, DATABASE_URL: '', PORT: String(port) });
    // Interrupt once the cluster is up and migrations are being applied.
    await waitFor('migrations to start', async () => /applying \d+ of \d+ migrations/.test(svc.output()), 90_000);
    const pg = await postmasterPid(dir);
    expect(pg).toBeDefined();
    svc.child.kill('SIGINT');
    expect(await svc.exited).toBe(0);
    const out = svc.output();
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
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(await postmasterPid(dir)).toBeUndefined();
  }, 180_000);

  it('SIGTERM sent to `npx svc start` reaches the service, which stops the embedded PostgreSQL', async () => {
    const dir = `${data.dir}-npx`;
    const port = await freePort();
    const npx = spawnCollect('npx', ['--no-install', 'svc', 'start'], { SVC_DATA_DIR: dir, DATABASE_URL: '', PORT: String(port) });
    await waitFor('/health', async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok, 120_000);
    const pg = await postmasterPid(dir);
    expect(pg).toBeDefined();

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
});
