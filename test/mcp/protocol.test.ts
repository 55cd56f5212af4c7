import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

const post = (payload: string, token = ws.token) =>
  t.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });

describe('JSON-RPC transport', () => {
  it('answers malformed JSON with a -32700 parse error', async () => {
    const res = await post('{"jsonrpc": "2.0", ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('answers notifications with 202 and no body', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
  });

  it('rejects GET and DELETE without a session, and PUT, PATCH and OPTIONS, with 405 and a JSON-RPC envelope', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'] as const) {
      for (const url of ['/api/mcp/rpc', '/api/mcp']) {
        const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.token}` } });
        expect([method, url, res.statusCode]).toEqual([method, url, 405]);
        expect(res.headers.allow).toContain('POST');
        expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { error: 'method_not_allowed' } } });
      }
    }
  });

  it('answers unknown methods with -32601 and invalid requests with -32600', async () => {
    expect((await rpc(t, ws.token, 'resources/teleport')).body.error.code).toBe(-32601);
    expect((await post(JSON.stringify({ id: 1, method: 'ping' }))).json().error.code).toBe(-32600);
    // The refused request's id is echoed when it is readable.
    expect((await post(JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'ping' }))).json()).toMatchObject({ id: 7, error: { code: -32600 } });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 8 }))).json()).toMatchObject({ id: 8, error: { code: -32600 } });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 'nine', method: 5 }))).json()).toMatchObject({ id: 'nine', error: { code: -32600 } });
    // A body that is no object says so (it was told its "jsonrpc" must be "2.0"); in a batch, each entry likewise.
    for (const [body, what] of [['"hi"', 'a string'], ['5', 'a number'], ['null', 'null'], ['[5]', 'a number'], ['[[]]', 'an array inside a batch']]) {
      const answer = (await post(body!)).json();
      const error = (Array.isArray(answer) ? answer[0] : answer).error;
      expect([body, error.code, error.message]).toEqual([body, -32600, expect.stringMatching(new RegExp(`a message is a JSON object .* not ${what}$`))]);
    }
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }))).json().error.code).toBe(-32602);
    // Every refusal carries REST's body in data (these had none).
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }))).json().error.data)
      .toEqual({ error: 'invalid_input', message: 'params.name must be a string', status: 400, issues: { name: 'must be a string' } });
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }))).json().error.data)
      .toMatchObject({ error: 'invalid_input', status: 400, issues: { params: 'must be an object' } });
    expect((await rpc(t, ws.token, 'resources/teleport')).body.error.data).toMatchObject({ error: 'method_not_found', status: 404 });
    // A POST is answered in JSON: an Accept that takes no JSON is 406, as a GET's that takes no stream is.
    for (const accept of ['text/html', 'text/event-stream', 'application/json;q=0, text/event-stream']) {
      const refused = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}`, accept } });
      expect([accept, refused.statusCode, refused.json().error.data.error]).toEqual([accept, 406, 'not_acceptable']);
    }
    for (const accept of ['application/json, text/event-stream', '*/*', 'application/*;q=0.5', 'text/plain, */*;q=0.1']) {
      const taken = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}`, accept } });
      expect(taken.statusCode, accept).toBe(200);
    }
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope.nope' } }))).json().error.code).toBe(-32602);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'bad' } }))).json().error.code).toBe(-32602);
  });

  it('answers ping and batches', async () => {
    const res = await post(JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'workspace.get', arguments: {} } },
    ]));
    const body = res.json();
    expect(body).toHaveLength(2);
    expect(body[0]).toMatchObject({ id: 'a', result: {} });
    expect(body[1].result.structuredContent.id).toBe(ws.id);
  });

  it('rejects a missing key with HTTP 401 and a JSON-RPC error envelope', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.any(String), data: { error: 'invalid', message: expect.any(String), status: 401 } } });
  });

  it('reports an invalid profile as invalid params', async () => {
    const r = await rpc(t, ws.token, 'tools/list', {}, '?profile=nonsense');
    expect(r.body.error.code).toBe(-32602);
  });
});
