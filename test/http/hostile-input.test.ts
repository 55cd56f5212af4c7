/**
 * Input the service did not expect (issue 9, items 1, 2, 3, 7): NUL characters and lone surrogates on
 * every surface, prototype names as tools/list profiles, repeated query parameters, GraphQL internal
 * errors. Each must be a 4xx with a body naming the problem, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.ts';
import { createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const toolError = (body: any) => JSON.parse(body.result.content[0].text);

describe('NUL characters and lone surrogates', () => {
  it('REST: 400 invalid_input naming the field, for values and ids alike', async () => {
    const r = await rest(t, ws.token, 'issues.create', { title: 'abc\u0000def' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_input', issues: { title: 'must not contain NUL characters' } });
    const get = await rest(t, ws.token, 'issues.get', { id: 'ENG-1\u0000' });
    expect(get.status).toBe(400);
    expect(get.body.issues).toEqual({ id: 'must not contain NUL characters' });
    const nested = await rest(t, ws.token, 'issues.create', { title: 'ok', verificationChecklist: [{ id: 'a', label: 'x\u0000', done: false }] });
    expect(nested.status).toBe(400);
    expect(nested.body.issues).toMatchObject({ 'verificationChecklist.0.label': 'must not contain NUL characters' });
    const surrogate = await rest(t, ws.token, 'comments.list', { issueId: 'abc\ud800' });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.issues).toEqual({ issueId: 'must be valid Unicode (no lone surrogates)' });
  });

  it('JSON-RPC: a tool error with status 400 and the same issues (never -32603)', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'issues.create', arguments: { title: 'abc\u0000def' } });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(toolError(r.body)).toMatchObject({ status: 400, error: 'invalid_input', issues: { title: 'must not contain NUL characters' } });
    const viaCatalog = await rpc(t, ws.token, 'tools/call', { name: 'catalog.call', arguments: { name: 'notes.create', arguments: { body: '\u0000' } } });
    expect(toolError(viaCatalog.body)).toMatchObject({ status: 400, issues: { 'arguments.body': 'must not contain NUL characters' } });
  });

  it('a field named __proto__ is reported like any unknown field', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/mcp/issues.create', payload: '{"title":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}` },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().issues)).toBe('{"__proto__":"unknown field"}');
  });

  it('GraphQL: NUL in a variable is an error with extensions code invalid_input and status 400', async () => {
    const r = await gql(t, ws.token, 'query($k: String!) { issueByKey: issues(condition: {title: $k}) { totalCount } }', { k: 'a\u0000b' });
    expect(r.status).toBe(200);
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400 });
  });

  it('the SQL error map covers what PostgreSQL refuses (safety net behind the Node checks)', async () => {
    const { fromPgError } = await import('../../src/errors.ts');
    for (const code of ['22P05', '22021', '54000', '22P02', '2202E']) {
      expect(fromPgError({ code, message: 'x' })?.status, code).toBe(400);
    }
    expect(fromPgError({ code: 'XX000', message: 'x' })).toBeUndefined();
  });
});

describe('GraphQL internal errors carry extensions', () => {
  it('first: -1 → invalid_input 400 (not a bare "An error occurred")', async () => {
    const r = await gql(t, ws.token, '{ issues(first: -1) { nodes { title } } }');
    expect(r.errors?.length).toBeGreaterThan(0);
    expect(r.errors![0]!.extensions).toMatchObject({ code: 'invalid_input', status: 400 });
  });

  it('an unexpected error is still masked but has code internal and status 500', async () => {
    const { maskError } = await import('../../src/graphql/errors.ts');
    const { GraphQLError } = await import('postgraphile/graphql');
    const masked = maskError(new GraphQLError('boom', { originalError: new Error('secret internals') }));
    expect(masked.message).not.toContain('secret');
    expect(masked.extensions).toMatchObject({ code: 'internal', status: 500 });
  });
});

describe('tools/list selectors', () => {
  for (const profile of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    it(`?profile=${profile} is an unknown profile, not a 500`, async () => {
      const r = await rpc(t, ws.token, 'tools/list', undefined, `?profile=${profile}`);
      expect(r.status).toBe(200);
      expect(r.body.error).toMatchObject({ code: -32602, data: { error: 'invalid_input', issues: { profile: expect.stringContaining('unknown profile') } } });
    });
  }

  it('?tools=issues&tools=notes lists both namespaces (repeated parameters are joined)', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?tools=issues&tools=notes');
    expect(r.status).toBe(200);
    const namespaces = new Set(r.body.result.tools.map((x: { name: string }) => x.name.split('.')[0]));
    expect([...namespaces].sort()).toEqual(['catalog', 'issues', 'notes']);
  });

  it('?profile=core&profile=full is refused clearly (one profile only)', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?profile=core&profile=full');
    expect(r.body.error).toMatchObject({ code: -32602, data: { issues: { profile: expect.any(String) } } });
  });

  it('a known profile still works', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?profile=full');
    expect(r.body.result.tools.length).toBeGreaterThan(50);
    await ok(t, ws.token, 'workspace.get', {});
  });
});
