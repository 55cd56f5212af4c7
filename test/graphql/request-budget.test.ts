/**
 * One GraphQL request holds one database connection at a time, under one time budget (src/graphql/request-budget.ts):
 * an outside probe's request of 450 aliased counts ran on every connection of the pool at once for 15 s.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { oneConnectionPerRequest, releaseWhenAnswered, REQUEST_BUDGET_MS, REQUEST_BYTES_MAX, sizeOf, type WithPgClient } from '../../src/graphql/request-budget.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';
import { createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

describe('the statements of one request take turns', () => {
  it('one at a time per request (requests apart run side by side), each under what is left of the budget; then refused', async () => {
    let clock = 0;
    let running = 0;
    let most = 0;
    const timeouts: string[] = [];
    const inner: WithPgClient = async (settings, callback) => {
      running++;
      most = Math.max(most, running);
      timeouts.push(String(settings?.statement_timeout));
      await new Promise((r) => setTimeout(r, 5));
      clock += 4_000;
      running--;
      return callback(undefined as never);
    };
    const wrapped = oneConnectionPerRequest(inner, 10_000, () => clock);
    const request = { role: 'svc_visitor', statement_timeout: '10s' };
    const statements = [1, 2, 3, 4].map((n) => wrapped(request, async () => n));
    const results = await Promise.allSettled(statements);
    expect(most).toBe(1);
    expect(timeouts).toEqual(['10000ms', '6000ms', '2000ms']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect((results[3] as PromiseRejectedResult).reason).toMatchObject({ status: 400, body: { error: 'query_too_expensive' } });
    // Two requests: each its own turns.
    clock = 0;
    most = 0;
    await Promise.all([wrapped({ a: '1' }, async () => 1), wrapped({ b: '2' }, async () => 2)]);
    expect(most).toBe(2);
    // Without settings (no key: introspection) nothing changes.
    expect(await wrapped(null, async () => 'plain')).toBe('plain');
  });
});

describe('the place in the share', () => {
  it('is given back when the answer is written, and in any case once the budget is surely spent (a hang-up says nothing)', () => {
    vi.useFakeTimers();
    try {
      const answered = new EventEmitter();
      let released = 0;
      releaseWhenAnswered(answered, () => { released++; }, 11_000);
      answered.emit('finish');
      expect(released).toBe(1);
      const hungUp = new EventEmitter(); // closed before the listener was added: no event ever comes
      let freed = false;
      releaseWhenAnswered(hungUp, () => { freed = true; }, 11_000);
      vi.advanceTimersByTime(10_999);
      expect(freed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(freed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('over GraphQL', () => {
  let t: TestApp;
  let ws: Workspace;
  beforeAll(async () => {
    t = await startTestApp({ graphql: true });
    ws = await createWorkspace(t);
  });
  afterAll(() => t.close());

  it('a request of many aliased fields holds one connection of the pool at a time, and answers them all', async () => {
    for (let i = 0; i < 3; i++) await ok(t, ws.token, 'issues.create', { title: `aliased ${i}` });
    const pool = t.pools.api;
    let most = 0;
    const sample = setInterval(() => { most = Math.max(most, pool.totalCount - pool.idleCount); }, 1);
    // (Each with its own arguments: the same field under two names is refused, limits.ts.)
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: issues(first: ${5 + i}, condition: { title: "aliased ${i % 3}" }) { totalCount nodes { rowId title } }`).join(' ');
    try {
      const data = await gqlOk(t, ws.token, `{ ${aliases} }`);
      expect(Object.keys(data)).toHaveLength(40);
      expect(data.a4.nodes).toEqual([{ rowId: expect.any(String), title: 'aliased 1' }]);
    } finally {
      clearInterval(sample);
    }
    expect(most).toBeLessThanOrEqual(1);
  });

  it('its tool fields take the same turns and the same place: PostGraphile fields and issuesList fields together hold one connection', async () => {
    const pool = t.pools.api;
    let most = 0;
    const sample = setInterval(() => { most = Math.max(most, pool.totalCount - pool.idleCount); }, 1);
    const fields = Array.from({ length: 10 }, (_, i) => `p${i}: issues(first: 5, offset: ${i}) { nodes { rowId } } t${i}: issuesList(limit: ${i + 1})`).join(' ');
    try {
      const data = await gqlOk(t, ws.token, `{ ${fields} }`);
      expect(data.t2.items).toHaveLength(3);
      expect(data.p0.nodes).toHaveLength(3);
    } finally {
      clearInterval(sample);
    }
    expect(most).toBeLessThanOrEqual(1);
  });

  it('a tool field runs under what is left of the budget, not under the 30 s of a tool call', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'locked elsewhere' });
    // Another transaction holds the issue's row: the update waits for it until the request's budget is spent.
    const blocker = new pg.Client({ connectionString: t.ownerUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from app_public.issues where id = $1 for update', [issue.id]);
      const started = Date.now();
      const err = await gqlError(t, ws.token, `mutation { issuesUpdate(id: "${issue.id}", title: "changed") }`);
      const took = Date.now() - started;
      expect(err.code).toBe('query_too_expensive');
      expect(took).toBeGreaterThanOrEqual(REQUEST_BUDGET_MS - 1_000);
      expect(took).toBeLessThan(REQUEST_BUDGET_MS + 5_000);
      await blocker.query('rollback');
    } finally {
      await blocker.end();
    }
    // Nothing was written, and the connection went back to the pool with the pool's own timeout.
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe('locked elsewhere');
    const clients = await Promise.all(Array.from({ length: t.pools.api.options.max! }, () => t.pools.api.connect()));
    try {
      for (const c of clients) expect((await c.query('show statement_timeout')).rows[0].statement_timeout).toBe('30s');
    } finally {
      for (const c of clients) c.release();
    }
  }, 30_000);

  it('returns at most REQUEST_BYTES_MAX in all: a to-one join repeating a long text is refused before it is shaped', async () => {
    // 180 comments on an issue with a 100,000-character description: each comment row carries the description again
    // (18 MB), where the row estimate counts 180 rows. An outside probe's 189 MB answer held every workspace 2 s.
    const issue = await ok(t, ws.token, 'issues.create', { title: 'long', description: 'd'.repeat(100_000) });
    for (let i = 0; i < 180; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => ok(t, ws.token, 'comments.create', { issueId: issue.id, body: `c${i + j}` })));
    }
    const query = (n: number) => `{ comments(first: ${n}, condition: {issueId: "${issue.id}"}) { nodes { body issue { description } } } }`;
    const refused = await gqlError(t, ws.token, query(180));
    expect(refused).toMatchObject({ code: 'response_too_large', status: 400 });
    expect(refused.message).toContain(`${REQUEST_BYTES_MAX / 1024 / 1024} MB`);
    // Under the limit it answers, and the limit is the request's, not each statement's.
    expect((await gqlOk(t, ws.token, query(100))).comments.nodes).toHaveLength(100);
    const aliased = await gqlError(t, ws.token, `{ a: ${query(90).slice(2, -2)} b: ${query(90).slice(2, -2).replace('comments(', 'comments(offset: 90, ')} }`);
    expect(aliased.code).toBe('response_too_large');
    // And the service goes on.
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).title).toBe('long');
  }, 30_000);
});

describe('sizeOf', () => {
  it('counts text by its length and other values as 8, nested or not, and stops once past the limit', () => {
    expect(sizeOf([['abc', null, 12, ['de']]], 1_000)).toBe(8 + 8 + 3 + 8 + 8 + 8 + 2);
    expect(sizeOf({ a: 'xyz' }, 1_000)).toBe(11);
    const many = Array.from({ length: 100_000 }, () => 'x'.repeat(100));
    expect(sizeOf(many, 1_000)).toBeLessThan(1_200);
  });
});
