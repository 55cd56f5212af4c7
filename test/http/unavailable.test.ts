/**
 * A call that finds the database unreachable is 503 unavailable with Retry-After, not 500 internal (an outside probe
 * stopped the embedded server under `svc start`: /health said 503, tool calls 500). The classification is the unit;
 * the answer is shown end to end by a REST call after the server dropped the pool's connections and refuses new ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUnavailable, fromPgError } from '../../src/errors.ts';
import { createWorkspace, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

describe('the database out of reach', () => {
  it('connection errors and server shutdowns are 503 unavailable; query errors are not', () => {
    for (const err of [{ code: 'ECONNREFUSED' }, { code: '57P01' }, { code: '57P03' }, { code: '08006' },
      { message: 'Connection terminated unexpectedly' }, { message: 'timeout exceeded when trying to connect' }]) {
      expect(fromPgError(err), JSON.stringify(err)).toMatchObject({ status: 503, body: { error: 'unavailable' }, headers: { 'retry-after': '5' } });
    }
    for (const err of [{ code: '23505' }, { code: 'SV404', message: 'x' }, { code: 'ENOENT' }, { message: 'boom' }]) {
      expect(databaseUnavailable(err), JSON.stringify(err)).toBeUndefined();
    }
  });

  it('a REST call is 503 with Retry-After while the pool cannot connect', async () => {
    const pool = t.pools.api as unknown as { options: { connectionString: string }; idleCount: number };
    const url = pool.options.connectionString;
    expect((await rest(t, ws.token, 'issues.list', {})).status).toBe(200);
    // The server drops the pool's connections (as a restart would) and new ones go to a port nothing listens on.
    const dead = new URL(url);
    dead.port = '1';
    pool.options.connectionString = dead.toString();
    await t.pools.owner.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-api' and datname = current_database()");
    for (let i = 0; i < 100 && pool.idleCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
    try {
      const r = await rest(t, ws.token, 'issues.list', {});
      expect([r.status, r.body.error, r.headers['retry-after']]).toEqual([503, 'unavailable', '5']);
    } finally {
      pool.options.connectionString = url;
    }
    expect((await rest(t, ws.token, 'issues.list', {})).status).toBe(200);
  });
});
