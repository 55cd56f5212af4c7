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

  it('a server that refuses the login (a failover\'s pg_hba reject, no free slot, no such database) is 503 too, not 500', () => {
    for (const code of ['28000', '28P01', '53300', '3D000', 'ENOTFOUND']) {
      // Nothing was sent: even a write may simply be tried again.
      expect(fromPgError({ code }, { write: true }), code).toMatchObject({ status: 503, body: { error: 'unavailable', message: expect.stringMatching(/try again shortly/) } });
      expect(fromPgError({ code }, { write: true })!.body.outcome).toBeUndefined();
    }
  });

  it('a write whose connection went mid-call says its outcome is unknown; a read says try again', () => {
    // A write answered "try again" after 35 s of a frozen network committed 20 s later (an outage probe).
    // A host unreachable too: on an open connection Linux reports the last ICMP error when retransmission gives up.
    for (const err of [{ message: 'Query read timeout' }, { message: 'Connection terminated unexpectedly' }, { code: '57P01' }, { code: 'ECONNRESET' },
      { code: 'EHOSTUNREACH' }, { code: 'ENETUNREACH' }]) {
      expect(fromPgError(err, { write: true }), JSON.stringify(err)).toMatchObject({
        status: 503, headers: { 'retry-after': '5' },
        body: { error: 'unavailable', outcome: 'unknown', message: expect.stringMatching(/may have been done.*Idempotency-Key/) },
      });
      expect(fromPgError(err)!.body).toEqual({ error: 'unavailable', message: 'The database is not reachable right now; try again shortly' });
    }
  });

  it('with the key cached, a JSON-RPC call is the request\'s 503 by its id, with Retry-After', async () => {
    // It depended on the key cache: a 200 tool result with no Retry-After.
    const pool = t.pools.api as unknown as { options: { connectionString: string }; idleCount: number };
    const url = pool.options.connectionString;
    expect((await rest(t, ws.token, 'issues.list', {})).status).toBe(200); // cached now
    const dead = new URL(url);
    dead.port = '1';
    pool.options.connectionString = dead.toString();
    await t.pools.owner.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-api' and datname = current_database()");
    for (let i = 0; i < 100 && pool.idleCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
    try {
      const call = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'issues.list', arguments: {} } }) });
      expect([call.statusCode, call.headers['retry-after']]).toEqual([503, '5']);
      expect(call.json()).toMatchObject({ jsonrpc: '2.0', id: 41, error: { data: { error: 'unavailable', status: 503 } } });
      // In a batch, only that call says so: the calls before it may have been done (the whole batch said 503).
      const batch = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'issues.list', arguments: {} } }]) });
      expect(batch.statusCode).toBe(200);
      expect(batch.json()).toMatchObject([{ id: 1, result: {} }, { id: 2, error: { data: { error: 'unavailable', status: 503 } } }]);
    } finally {
      pool.options.connectionString = url;
    }
  });

  it('a write cut off mid-call answers 503 outcome unknown, end to end', async () => {
    const issue = (await rest(t, ws.token, 'issues.create', { title: 'Held' })).body;
    // The issue's row is held by another transaction, so the update waits; then the server ends its connection.
    const holder = await t.pools.owner.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from app_public.issues where id = $1 for update', [issue.id]);
      const update = rest(t, ws.token, 'issues.update', { id: issue.id, title: 'Cut off' });
      for (let i = 0; i < 200; i++) {
        const { rows } = await t.pools.owner.query(
          "select pid from pg_stat_activity where application_name = 'svc-api' and wait_event_type = 'Lock' and datname = current_database()");
        if (rows.length) {
          await t.pools.owner.query('select pg_terminate_backend($1)', [rows[0].pid]);
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      const r = await update;
      expect([r.status, r.body.error, r.body.outcome]).toEqual([503, 'unavailable', 'unknown']);
    } finally {
      await holder.query('rollback');
      holder.release();
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
    // A server that answers but refuses the login (here: no such database, 3D000) is the same 503.
    const missing = new URL(url);
    missing.pathname = '/no_such_database';
    pool.options.connectionString = missing.toString();
    await t.pools.owner.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-api' and datname = current_database()");
    for (let i = 0; i < 100 && pool.idleCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
    try {
      const r = await rest(t, ws.token, 'issues.list', {});
      expect([r.status, r.body.error, r.headers['retry-after']]).toEqual([503, 'unavailable', '5']);
    } finally {
      pool.options.connectionString = url;
    }
  });
});

describe('which GraphQL documents are writes', () => {
  it('a mutation at the start, after a fragment or after comments; not a query', async () => {
    const { isMutationDocument } = await import('../../src/graphql/errors.ts');
    expect(isMutationDocument('mutation { a }')).toBe(true);
    expect(isMutationDocument('# note\n  mutation M { a }')).toBe(true);
    expect(isMutationDocument('fragment F on X { a } mutation { b { ...F } }')).toBe(true);
    expect(isMutationDocument('{ mutation }')).toBe(false);
    expect(isMutationDocument('query Q { a } # mutation')).toBe(false);
  });
});
