/**
 * Idempotency keys (docs/decisions.md "Idempotency keys"): a write repeated with the same key within 24 hours answers
 * what the first call answered and does not run again. An importer killed mid-call re-ran it and got duplicate issues
 * and comments; an agent retrying after a timeout does the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'IDM');
  other = await createWorkspace(t, 'IDO');
});
afterAll(() => t.close());

const post = async (token: string, tool: string, body: unknown, key?: string | string[]) => {
  const res = await t.app.inject({
    method: 'POST', url: `/api/mcp/${tool}`, payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(key === undefined ? {} : { 'idempotency-key': key }) },
  });
  return { status: res.statusCode, body: res.json(), replayed: res.headers['idempotent-replayed'] };
};
const titled = async (w: Workspace, title: string) =>
  (await ok(t, w.token, 'issues.list', { query: title, limit: 50 })).items.filter((i: { title: string }) => i.title === title);

describe('Idempotency-Key on REST', () => {
  it('a repeated create answers the first answer and creates nothing more, with one event', async () => {
    const key = crypto.randomUUID();
    const first = await post(ws.token, 'issues.create', { title: 'Imported once' }, key);
    const again = await post(ws.token, 'issues.create', { title: 'Imported once' }, key);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    // The repeat says it is one (Stripe's header), so a client can tell a replay from a new call.
    expect([first.replayed, again.replayed]).toEqual([undefined, 'true']);
    expect(await titled(ws, 'Imported once')).toHaveLength(1);
    const events = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: first.body.id, kinds: ['ISSUE_CREATED'] })).items;
    expect(events).toHaveLength(1);
    // Without a key, the same call creates again (the key is what makes it the same call).
    expect((await post(ws.token, 'issues.create', { title: 'Imported once' })).status).toBe(200);
    expect(await titled(ws, 'Imported once')).toHaveLength(2);
  });

  it('calls with the same key at once run once; each hears the one answer', async () => {
    const key = crypto.randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(ws.token, 'issues.createMany', { items: [{ title: 'Raced batch' }] }, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(await titled(ws, 'Raced batch')).toHaveLength(1);
  });

  it('the key with other arguments or another tool is a 422 that writes nothing; a failed call leaves the key free', async () => {
    const key = crypto.randomUUID();
    const made = await post(ws.token, 'issues.create', { title: 'Keyed' }, key);
    const other = await post(ws.token, 'issues.create', { title: 'Keyed, but another' }, key);
    expect([other.status, other.body.error]).toEqual([422, 'idempotency_key_reused']);
    expect(other.body.message).toMatch(/^This idempotency key was used for another request in the last 24 hours \(issues\.create\)/);
    expect((await post(ws.token, 'comments.create', { issueId: made.body.id, body: 'x' }, key)).status).toBe(422);
    expect(await titled(ws, 'Keyed, but another')).toHaveLength(0);
    // A call that fails rolls its claim back: the key then serves the corrected call.
    const fresh = crypto.randomUUID();
    const refused = await post(ws.token, 'comments.create', { issueId: crypto.randomUUID(), body: 'lost' }, fresh);
    expect(refused.status).toBe(404);
    expect((await post(ws.token, 'comments.create', { issueId: made.body.id, body: 'found' }, fresh)).status).toBe(200);
  });

  it('a key is the API key\'s own: another key (or workspace) with the same idempotency key runs its own call', async () => {
    const key = crypto.randomUUID();
    const second = await createKey(t, ws);
    const a = await post(ws.token, 'issues.create', { title: 'Per key' }, key);
    const b = await post(second.token, 'issues.create', { title: 'Per key' }, key);
    const c = await post(other.token, 'issues.create', { title: 'Per key' }, key);
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect(await titled(ws, 'Per key')).toHaveLength(2);
  });

  it('refuses a malformed key, a repeated header, and a key on a tool that works outside the database; reads ignore it', async () => {
    for (const bad of ['', 'with space', 'x'.repeat(256), 'é']) {
      const r = await post(ws.token, 'issues.create', { title: 'Never' }, bad);
      expect([r.status, Object.keys(r.body.issues ?? {})], JSON.stringify(bad)).toEqual([400, ['idempotencyKey']]);
    }
    expect((await post(ws.token, 'issues.create', { title: 'Never' }, ['a', 'b'])).status).toBe(400);
    const outside = await post(ws.token, 'attachments.delete', { id: crypto.randomUUID() }, crypto.randomUUID());
    expect([outside.status, outside.body.issues?.idempotencyKey]).toEqual([400, 'attachments.delete does not take an idempotency key (part of its work is outside the database)']);
    expect(await titled(ws, 'Never')).toHaveLength(0);
    const key = crypto.randomUUID();
    expect((await post(ws.token, 'issues.list', { limit: 1 }, key)).status).toBe(200);
    expect((await post(ws.token, 'issues.list', { limit: 2 }, key)).status).toBe(200); // not a write: nothing kept
  });

  it('keys are forgotten after 24 hours by the sweep', async () => {
    const key = crypto.randomUUID();
    await post(ws.token, 'issues.create', { title: 'Old key' }, key);
    await t.pools.owner.query(`update app_private.idempotent_calls set created_at = now() - interval '25 hours' where idempotency_key = $1`, [key]);
    expect((await t.pools.owner.query('select app_private.purge_idempotent_calls() as n')).rows[0].n).toBeGreaterThanOrEqual(1);
    expect((await post(ws.token, 'issues.create', { title: 'Old key' }, key)).status).toBe(200);
    expect(await titled(ws, 'Old key')).toHaveLength(2);
  });
});

describe('the OpenAPI document', () => {
  it('offers the header on the writes that take it, and only there', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/mcp/openapi.json' })).json();
    const takes = (tool: string) => JSON.stringify(doc.paths[`/api/mcp/${tool}`].post.parameters ?? []).includes('IdempotencyKey');
    expect([takes('issues.create'), takes('comments.create'), takes('issues.list'), takes('attachments.delete')]).toEqual([true, true, false, false]);
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  });
});

describe('_meta.idempotencyKey on JSON-RPC', () => {
  it('tools/call with the same key answers the first answer', async () => {
    const _meta = { idempotencyKey: crypto.randomUUID() };
    const call = () => rpc(t, ws.token, 'tools/call', { name: 'issues.create', arguments: { title: 'Over JSON-RPC once' }, _meta });
    const [first, again] = [await call(), await call()];
    const { _meta: replayMeta, ...replayed } = again.body.result;
    expect(replayed).toEqual(first.body.result);
    expect([first.body.result._meta, replayMeta]).toEqual([undefined, { idempotentReplayed: true }]);
    expect(await titled(ws, 'Over JSON-RPC once')).toHaveLength(1);
    const bad = await rpc(t, ws.token, 'tools/call', { name: 'issues.create', arguments: { title: 'x' }, _meta: { idempotencyKey: 5 } });
    expect(bad.body.result.isError).toBe(true);
    const notObject = await rpc(t, ws.token, 'tools/call', { name: 'issues.create', arguments: { title: 'x' }, _meta: 'key-1' });
    expect(notObject.body.result.isError).toBe(true);
    expect(await titled(ws, 'x')).toHaveLength(0);
  });

  it('the header is refused on JSON-RPC and GraphQL, where it would have been ignored (a retry then created a second issue)', async () => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${ws.token}`, 'idempotency-key': crypto.randomUUID() };
    const overRpc = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', headers,
      payload: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'issues.create', arguments: { title: 'Header on RPC' } } }) });
    expect([overRpc.statusCode, overRpc.json().id, overRpc.json().error.data.issues['Idempotency-Key']])
      .toEqual([400, 7, 'not read on JSON-RPC: give each tools/call its own params._meta.idempotencyKey']);
    const overGraphql = await t.app.inject({ method: 'POST', url: '/graphql', headers: { ...headers, accept: 'application/json' },
      payload: JSON.stringify({ query: 'mutation { issuesCreate(title: "Header on GraphQL") }' }) });
    expect(overGraphql.statusCode).toBe(400);
    expect(JSON.stringify(overGraphql.json())).toContain('not taken by GraphQL');
    expect([...await titled(ws, 'Header on RPC'), ...await titled(ws, 'Header on GraphQL')]).toHaveLength(0);
  });
});
