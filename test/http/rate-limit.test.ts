/**
 * Per-key rate limits (issue 9 item 4, decisions.md): every call counts — each call of a JSON-RPC batch,
 * every GraphQL request (against the REST limit) — and the counters live in PostgreSQL, so two API
 * processes on one database share one budget per key. 429 with Retry-After; a JSON-RPC envelope on the
 * MCP endpoint.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.ts';
import { createKey, createWorkspace, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let a: TestApp;
let b: TestApp;
let ws: Workspace;
beforeAll(async () => {
  a = await startTestApp({ rateLimits: { rpc: 6, rest: 4 }, graphql: true });
  // A second API process on the same database.
  b = await startTestApp({ rateLimits: { rpc: 6, rest: 4 }, ownerUrl: a.ownerUrl });
  ws = await createWorkspace(a);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Windows are whole clock minutes: start a scenario early in one, so it cannot straddle two. */
async function freshWindow() {
  const s = new Date().getUTCSeconds();
  if (s > 50) await new Promise((r) => setTimeout(r, (61 - s) * 1000));
}

const batch = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' })));
const postBatch = (t: TestApp, token: string, n: number) =>
  t.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload: batch(n), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });

describe('rate limits', () => {
  it('REST: the limit holds across two API processes; 429 carries Retry-After', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await rest(i % 2 ? b : a, key.token, 'workspace.get', {})).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const over = await rest(b, key.token, 'workspace.get', {});
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: 'rate_limited' });
    const retry = Number(over.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Another key of the same workspace has its own budget.
    const other = await createKey(a, ws);
    expect((await rest(a, other.token, 'workspace.get', {})).status).toBe(200);
  });

  it('REST: calls at once from two processes: exactly the limit passes, the rest are 429', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => rest(i % 2 ? b : a, key.token, 'workspace.get', {})));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(4);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(8);
  });

  it('a batch spends the calls reserved ahead: single calls then a batch reach the limit exactly, no sooner', async () => {
    await freshWindow();
    const roomy = await startTestApp({ rateLimits: { rpc: 40, rest: 30 }, ownerUrl: a.ownerUrl });
    try {
      const key = await createKey(a, ws);
      // One ping reserves 1 + (40 - 1) / 8 = 5; a batch of 39 was refused, as the 4 held were counted again.
      expect((await postBatch(roomy, key.token, 1)).statusCode).toBe(200);
      expect((await postBatch(roomy, key.token, 39)).statusCode).toBe(200);
      expect((await postBatch(roomy, key.token, 1)).statusCode).toBe(429);
      const other = await createKey(a, ws);
      expect((await postBatch(roomy, other.token, 20)).statusCode).toBe(200);
      expect((await postBatch(roomy, other.token, 19)).statusCode).toBe(200);
      expect((await postBatch(roomy, other.token, 1)).statusCode).toBe(200);
      expect((await postBatch(roomy, other.token, 1)).statusCode).toBe(429);
      // A batch refused whole answers each of its calls by id (a single object with id null answered 50 calls).
      const refused = await postBatch(roomy, other.token, 3);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().map((m: { id: number; error: { data: { error: string } } }) => [m.id, m.error.data.error]))
        .toEqual([[1, 'rate_limited'], [2, 'rate_limited'], [3, 'rate_limited']]);
    } finally {
      await roomy.close();
    }
  });

  it('a process reserves calls ahead: a key\'s counter is written every few calls, not on every call', async () => {
    await freshWindow();
    const roomy = await startTestApp({ rateLimits: { rpc: 600, rest: 300 }, ownerUrl: a.ownerUrl });
    try {
      const key = await createKey(a, ws);
      const counted = async () => (await a.pools.owner.query(
        'select calls from app_private.rate_limit_counters where key_id = $1 and surface = $2', [key.id, 'rest'])).rows[0]?.calls;
      expect((await rest(roomy, key.token, 'workspace.get', {})).status).toBe(200);
      // The call itself and an eighth of the 299 left: 1 + 37.
      expect(await counted()).toBe(38);
      for (let i = 0; i < 37; i++) expect((await rest(roomy, key.token, 'workspace.get', {})).status).toBe(200);
      expect(await counted()).toBe(38);
      // The 39th call reserves again: 1 + (300 - 38 - 1) / 8.
      expect((await rest(roomy, key.token, 'workspace.get', {})).status).toBe(200);
      expect(await counted()).toBe(38 + 1 + 32);
    } finally {
      await roomy.close();
    }
  });

  it('at a realistic limit, calls spread over two processes pass no more than the limit, and not many fewer', async () => {
    await freshWindow();
    const first = await startTestApp({ rateLimits: { rpc: 600, rest: 300 }, ownerUrl: a.ownerUrl });
    const second = await startTestApp({ rateLimits: { rpc: 600, rest: 300 }, ownerUrl: a.ownerUrl });
    try {
      const key = await createKey(a, ws);
      let passed = 0;
      for (let i = 0; i < 330; i++) if ((await rest(i % 3 ? first : second, key.token, 'workspace.get', {})).status === 200) passed++;
      expect(passed).toBeLessThanOrEqual(300);
      expect(passed).toBeGreaterThanOrEqual(300 - 2 * 63);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('JSON-RPC: each call of a batch counts; over the limit the whole batch is a 429, each call answered by its id', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    const first = await postBatch(a, key.token, 5);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toHaveLength(5);
    const second = await postBatch(b, key.token, 2); // 7 > 6
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toMatch(/^\d+$/);
    expect(second.json()).toMatchObject([1, 2].map((id) => ({ jsonrpc: '2.0', id, error: { code: -32000, data: { error: 'rate_limited', status: 429 } } })));
    const single = await rpc(a, key.token, 'ping');
    expect(single.status).toBe(429);
    expect(single.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { error: 'rate_limited' } } });
    // Every call after it, refused before its body is read, still hears its own id (they said null).
    for (const id of ['later-1', 42]) {
      const later = await a.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.token}` } });
      expect(later.statusCode).toBe(429);
      expect(later.json()).toMatchObject({ jsonrpc: '2.0', id, error: { data: { error: 'rate_limited' } } });
    }
  });

  it('JSON-RPC and REST budgets are separate', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    for (let i = 0; i < 4; i++) expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(200);
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(429);
    expect((await rpc(a, key.token, 'ping')).status).toBe(200);
  });

  it('REST: calls refused as invalid count too (bad JSON, non-UTF-8 body, wrong content type, bad input, unknown tool)', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    const raw = (payload: string | Buffer, contentType = 'application/json', tool = 'issues.create') => a.app.inject({
      method: 'POST', url: `/api/mcp/${tool}`, payload, headers: { 'content-type': contentType, authorization: `Bearer ${key.token}` },
    });
    expect((await raw('{"title":')).statusCode).toBe(400);
    expect((await raw(Buffer.from([0x7b, 0xff, 0x7d]))).statusCode).toBe(400);
    expect((await raw('title=x', 'text/plain')).statusCode).toBe(415);
    expect((await rest(a, key.token, 'issues.create', { title: 123 })).status).toBe(400);
    // Four calls so far: the limit is reached, so anything more is refused, valid or not.
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(429);
    const bad = await raw('{"title":');
    expect(bad.statusCode).toBe(429);
    expect(bad.json()).toMatchObject({ error: 'rate_limited' });
    expect(bad.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('JSON-RPC: unparseable bodies, empty and oversized batches and invalid calls count too', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    const post = (payload: string) => a.app.inject({
      method: 'POST', url: '/api/mcp/rpc', payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${key.token}` },
    });
    expect((await post('{"jsonrpc":')).statusCode).toBe(400); // 1
    expect((await post('[]')).statusCode).toBe(400); // 2
    const invalid = await rpc(a, key.token, 'tools/call', { name: 'issues.create', arguments: { title: 5 } }); // 3
    expect(invalid.body.result.isError).toBe(true);
    expect((await postBatch(a, key.token, 3)).statusCode).toBe(200); // 6
    const over = await post('{"jsonrpc":');
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { error: 'rate_limited' } } });
    // An oversized batch is refused whole (400 batch_too_large, nothing runs) and counts as one call: 5,000
    // messages (225 KB, under a body's first 256 KiB) must not spend the key's minute (another key: 5 calls of its 6
    // are left after it).
    const other = await createKey(a, ws);
    const big = await postBatch(a, other.token, 5_000);
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ error: { data: { error: 'batch_too_large' } } });
    expect((await postBatch(a, other.token, 5)).statusCode).toBe(200);
    expect((await postBatch(a, other.token, 1)).statusCode).toBe(429);
  });

  it('a body counts one call more per full 256 KiB (REST, JSON-RPC and GraphQL alike)', async () => {
    await freshWindow();
    // 600 KB (two full 256 KiB): the call and two more. The input is refused (400), and it counts all the same.
    const padded = (extra: Record<string, unknown> = {}) => ({ ...extra, padding: 'x'.repeat(600_000) });
    const key = await createKey(a, ws);
    expect((await rest(a, key.token, 'workspace.get', padded())).status).toBe(400);
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(200); // the 4th of 4
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(429);
    const rpcKey = await createKey(a, ws);
    const rpcPost = (payload: unknown) => a.app.inject({
      method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify(payload), headers: { 'content-type': 'application/json', authorization: `Bearer ${rpcKey.token}` },
    });
    expect((await rpcPost(padded({ jsonrpc: '2.0', id: 1, method: 'ping' }))).statusCode).toBe(200); // 3 of 6
    expect((await postBatch(a, rpcKey.token, 3)).statusCode).toBe(200);
    expect((await postBatch(a, rpcKey.token, 1)).statusCode).toBe(429);
    const gqlKey = await createKey(a, ws);
    expect((await gql(a, gqlKey.token, '{ __typename }', { padding: 'x'.repeat(600_000) })).status).toBe(200); // 3 of 4
    expect((await gql(a, gqlKey.token, '{ __typename }')).status).toBe(200);
    expect((await gql(a, gqlKey.token, '{ __typename }')).status).toBe(429);
  });

  it('a key over its limit is refused before its body is read (a body that never ends still gets its 429)', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    for (let i = 0; i < 4; i++) expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(200);
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(429);
    let sent = 0;
    const endless = new Readable({ read() { sent += 1024; this.push('x'.repeat(1024)); } });
    const res = await a.app.inject({ method: 'POST', url: '/api/mcp/workspace.get', payload: endless, headers: { 'content-type': 'application/json', authorization: `Bearer ${key.token}` } });
    endless.destroy();
    expect(res.statusCode).toBe(429);
    expect(sent).toBeLessThan(256 * 1024); // read whole, it would have been 2 MB (then a 413, counted: a 429 too)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('GraphQL requests count against the REST limit', async () => {
    await freshWindow();
    const key = await createKey(a, ws);
    for (let i = 0; i < 3; i++) expect((await gql(a, key.token, '{ __typename }')).status).toBe(200);
    expect((await rest(a, key.token, 'workspace.get', {})).status).toBe(200);
    const over = await gql(a, key.token, '{ __typename }');
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: 'rate_limited' });
  });
});
