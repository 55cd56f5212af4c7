/**
 * A database that stops answering (frozen, or a network gone quiet) rather than refusing connections: the probes
 * answer at once (/health and /ready 503, /metrics without its database gauges) and recover with it. They hung as
 * long as the database did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDbProxy, type DbProxy } from '../support/db-proxy.ts';
import { createKey, createTestDatabase, createWorkspace, startTestApp, type TestApp } from '../support/harness.ts';

let t: TestApp;
let proxy: DbProxy;

beforeAll(async () => {
  proxy = await startDbProxy(await createTestDatabase());
  t = await startTestApp({ ownerUrl: proxy.url, graphql: true });
});
afterAll(async () => {
  proxy?.thaw();
  await t?.close();
  await proxy?.close();
});

const timed = async (url: string) => {
  const started = Date.now();
  const res = await t.app.inject({ method: 'GET', url });
  return { status: res.statusCode, ms: Date.now() - started, body: res.body };
};

describe('a frozen database', () => {
  it('/health, /ready and /metrics answer within seconds, and come back when it does', async () => {
    expect((await timed('/ready')).status).toBe(200);
    proxy.freeze();
    try {
      for (const path of ['/health', '/ready']) {
        const r = await timed(path);
        expect([r.status, r.ms < 4000], path).toEqual([503, true]);
      }
      const metrics = await timed('/metrics');
      expect([metrics.status, metrics.ms < 6000]).toEqual([200, true]);
      expect(metrics.body).toContain('svc_db_pool_connections');
    } finally {
      proxy.thaw();
    }
    const back = await timed('/ready');
    expect(back.status).toBe(200);
  }, 30_000);

  it('an event stream asked for while the database is down opens and ends with a retry delay (an EventSource stops for good on a 503)', async () => {
    const ws = await createWorkspace(t);
    const key = await createKey(t, ws); // not yet in the key cache: authenticating it needs the database
    const url = await t.listen();
    proxy.cut();
    try {
      const res = await fetch(`${url}/api/plugins/events`, { headers: { authorization: `Bearer ${key.token}` }, signal: AbortSignal.timeout(5000) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await res.text()).toMatch(/^retry: 5000\n/);
    } finally {
      proxy.restore();
    }
  });

  it('a database connection reset mid-request is 503 unavailable on GraphQL, not 400 "cut off" (the client did not go away)', async () => {
    const ws = await createWorkspace(t);
    const key = await createKey(t, ws); // not yet cached: the request waits on the database for it
    proxy.freeze();
    try {
      const pending = t.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ query: '{ currentWorkspace { key } }' }) });
      await new Promise((r) => setTimeout(r, 300));
      proxy.reset();
      const res = await pending;
      expect([res.statusCode, res.json().error, res.headers['retry-after']]).toEqual([503, 'unavailable', '5']);
    } finally {
      proxy.thaw();
      proxy.restore();
    }
  }, 30_000);
});
