/**
 * The MCP Streamable HTTP transport's rules an outside probe found broken (/tmp/wt-mcp-report.md items 2, 3, 6, 7,
 * 9, 11): batches by protocol version, ended sessions, ids that cannot be echoed exactly, the HTTP status of an
 * invalid message, 405/406 answers, and the endpoint with a trailing slash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/auth/keys.ts';
import { MAX_ENDED, McpSessions } from '../../src/http/mcp-subscriptions.ts';
import { ok, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

const post = (payload: string, headers: Record<string, string> = {}, url = '/api/mcp') =>
  t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}`, ...headers } });
const initialize = async () => {
  const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rules', version: '1' } } }));
  expect(res.statusCode).toBe(200);
  return String(res.headers['mcp-session-id']);
};
const ping = (id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('JSON-RPC batches by protocol version', () => {
  it('refuses a batch whole (400, one -32600, id null) when MCP-Protocol-Version is 2025-06-18 or later; nothing runs', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const title = `Batched under ${version}`;
      const res = await post(JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'issues.create', arguments: { title } } },
      ]), { 'mcp-protocol-version': version });
      expect([version, res.statusCode]).toEqual([version, 400]);
      const body = res.json();
      expect(Array.isArray(body)).toBe(false);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { error: 'batch_not_supported', status: 400 } } });
      expect(body.error.message).toContain(version);
      expect((await ok(t, ws.token, 'issues.list', { query: title })).items).toEqual([]);
    }
  });

  it('keeps batches without the header (2025-03-26 by default) and with 2025-03-26; initialize inside one is an Invalid Request', async () => {
    for (const headers of [{}, { 'mcp-protocol-version': '2025-03-26' }] as Array<Record<string, string>>) {
      const res = await post(JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      ]), headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      const [first, second] = res.json();
      expect(first).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
      expect(second).toMatchObject({ jsonrpc: '2.0', id: 'init', error: { code: -32600, message: expect.stringMatching(/initialize.*batch/) } });
    }
  });
});

describe('ids and invalid messages', () => {
  it('refuses a numeric id that is not a safe integer with -32600, id null, saying to use a string or an integer id', async () => {
    for (const raw of ['1e400', '12345678901234567890', '1.5', '9007199254740992']) {
      const res = await post(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
      expect([raw, res.statusCode]).toEqual([raw, 400]);
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('use a string or an integer id'), data: { error: 'invalid_request', status: 400 } } });
    }
    // Safe integers and strings are echoed as sent.
    for (const raw of ['9007199254740991', '-5', '0', '"12345678901234567890"']) {
      const res = await post(`{"jsonrpc":"2.0","id":${raw},"method":"ping"}`);
      expect([raw, res.statusCode, JSON.stringify(res.json().id)]).toEqual([raw, 200, raw]);
    }
    // In a batch, the message's own error, the others answered (200).
    const batch = await post(`[{"jsonrpc":"2.0","id":1e400,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`);
    expect(batch.statusCode).toBe(200);
    expect(batch.json()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('use a string or an integer id'), data: { error: 'invalid_request', status: 400 } } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('answers a single Invalid Request with HTTP 400 (a batch keeps 200 with an error per message)', async () => {
    const invalid = [
      JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 'nine', method: 5 }),
      JSON.stringify({ jsonrpc: '1.0', method: 'notifications/initialized' }),
      JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }),
      '5',
      'null',
    ];
    for (const payload of invalid) {
      const res = await post(payload);
      expect([payload, res.statusCode, res.json().error?.code]).toEqual([payload, 400, -32600]);
    }
    expect((await post(invalid[0]!)).json().id).toBe(7);
    const batch = await post(`[${invalid.join(',')},${ping('ok')}]`);
    expect(batch.statusCode).toBe(200);
    const answers = batch.json();
    expect(answers).toHaveLength(invalid.length + 1);
    expect(answers.slice(0, -1).every((a: { error?: { code: number } }) => a.error?.code === -32600)).toBe(true);
    expect(answers.at(-1)).toEqual({ jsonrpc: '2.0', id: 'ok', result: {} });
    // Invalid params are not an Invalid Request: still 200.
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }))).statusCode).toBe(200);
  });
});

describe('ending a session', () => {
  it('after DELETE the id is 404 session_not_found on POST, GET and DELETE; other ids of the key still work', async () => {
    const id = await initialize();
    const untouched = await initialize();
    const withSession = (sid: string) => ({ 'mcp-session-id': sid });
    expect((await post(ping(), withSession(id))).statusCode).toBe(200);
    const del = () => t.app.inject({ method: 'DELETE', url: '/api/mcp', headers: { authorization: `Bearer ${ws.token}`, 'mcp-session-id': id } });
    expect((await del()).statusCode).toBe(200);

    const after = await post(ping(), withSession(id));
    expect(after.statusCode).toBe(404);
    expect(after.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { error: 'session_not_found', status: 404 } } });
    const subscribe = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'workspace://current' } }), withSession(id));
    expect([subscribe.statusCode, subscribe.json().error?.data?.error]).toEqual([404, 'session_not_found']);
    const stream = await t.app.inject({ method: 'GET', url: '/api/mcp', headers: { authorization: `Bearer ${ws.token}`, accept: 'text/event-stream', 'mcp-session-id': id } });
    expect([stream.statusCode, stream.json().error?.data?.error]).toEqual([404, 'session_not_found']);
    const again = await del();
    expect([again.statusCode, again.json().error?.data?.error]).toEqual([404, 'session_not_found']);

    // Stateless otherwise: another id of this key works, and so does a request without one.
    expect((await post(ping(), withSession(untouched))).statusCode).toBe(200);
    expect((await post(ping())).statusCode).toBe(200);
  });

  it(`remembers at most ${MAX_ENDED} ended ids per key, the oldest forgotten first`, async () => {
    const sessions = new McpSessions(t.pools.owner, t.notifier, t.pools.api);
    try {
      const caller = { keyId: 'key-of-the-test' } as Caller;
      const ids = Array.from({ length: MAX_ENDED + 1 }, () => McpSessions.mint(caller));
      for (const id of ids) expect(sessions.end(id, caller)).toBe(true);
      expect(sessions.isEnded(ids[0]!)).toBe(false);
      expect(sessions.isEnded(ids[1]!)).toBe(true);
      expect(sessions.isEnded(ids.at(-1)!)).toBe(true);
      expect(sessions.end(ids[1]!, caller)).toBe(false);
      // Per key: another key's ended ids do not push this one's out.
      const other = { keyId: 'another-key' } as Caller;
      for (let i = 0; i <= MAX_ENDED; i++) sessions.end(McpSessions.mint(other), other);
      expect(sessions.isEnded(ids[1]!)).toBe(true);
    } finally {
      sessions.close();
    }
  });
});

describe('405 and 406 on the endpoint', () => {
  it('every 405 says Allow: GET, POST, DELETE', async () => {
    const id = await initialize();
    const cases: Array<{ method: 'GET' | 'DELETE' | 'PUT' | 'PATCH' | 'OPTIONS' | 'TRACE'; session?: string }> = [
      { method: 'GET' }, { method: 'DELETE' }, { method: 'PUT', session: id }, { method: 'PATCH' }, { method: 'OPTIONS' }, { method: 'TRACE' },
    ];
    for (const url of ['/api/mcp', '/api/mcp/rpc', '/api/mcp/', '/api/mcp/rpc/']) {
      for (const { method, session } of cases) {
        const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${ws.token}`, ...(session ? { 'mcp-session-id': session } : {}) } });
        expect([url, method, res.statusCode, res.headers.allow]).toEqual([url, method, 405, 'GET, HEAD, POST, DELETE']);
        expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { error: 'method_not_allowed', status: 405 } } });
      }
    }
  });

  it('a GET with a session but an Accept without text/event-stream is 406 not_acceptable', async () => {
    const id = await initialize();
    for (const accept of ['application/json', 'text/html, application/json;q=0.9']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/mcp', headers: { authorization: `Bearer ${ws.token}`, accept, 'mcp-session-id': id } });
      expect([accept, res.statusCode]).toEqual([accept, 406]);
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { error: 'not_acceptable', status: 406 } } });
      expect(res.json().error.message).toContain('Accept: text/event-stream');
    }
  });
});

describe('the endpoint with a trailing slash', () => {
  it('POST /api/mcp/ and /api/mcp/rpc/ are the MCP endpoint, and so are their GET and DELETE', async () => {
    for (const url of ['/api/mcp/', '/api/mcp/rpc/']) {
      const res = await post(ping('slash'), {}, url);
      expect([url, res.statusCode, res.json()]).toEqual([url, 200, { jsonrpc: '2.0', id: 'slash', result: {} }]);
      const bad = await post('{"jsonrpc":', {}, url);
      expect([url, bad.statusCode, bad.json().error?.code]).toEqual([url, 400, -32700]);
      const keyless = await t.app.inject({ method: 'POST', url, payload: ping(), headers: { 'content-type': 'application/json' } });
      expect([url, keyless.statusCode, keyless.json().error?.data?.error]).toEqual([url, 401, 'invalid']);
      const id = await initialize();
      const del = await t.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${ws.token}`, 'mcp-session-id': id } });
      expect([url, del.statusCode]).toEqual([url, 200]);
      const stream = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ws.token}`, accept: 'text/event-stream', 'mcp-session-id': id } });
      expect([url, stream.statusCode]).toEqual([url, 404]);
    }
    // The REST aliases are untouched.
    expect((await post('{}', {}, '/api/mcp/workspace.get')).json()).toMatchObject({ id: ws.id });
  });
});
