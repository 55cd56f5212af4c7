/**
 * Transport rejections (issue 9 item 6, issue 14): on /api/mcp/rpc every rejection is a JSON-RPC error
 * envelope with the HTTP status the MCP Streamable HTTP transport expects; REST aliases keep the spec's
 * bodies; every 401 carries `WWW-Authenticate: Bearer error="invalid_token"`. DNS-rebinding protection
 * (item 9): foreign Host and Origin headers are refused; SVC_CORS_ORIGINS opens GraphQL, the API and the signed /blobs/ links to listed origins.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { registerOriginGuard } from '../../src/http/origin-guard.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBlobStore } from '../../src/blobs/embedded.ts';
import { buildApp } from '../../src/http/app.ts';
import { MAX_BATCH } from '../../src/http/mcp.ts';
import { ToolRunner } from '../../src/tools/invoke.ts';
import { createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const ping = (id: number | string = 1) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });
const auth = (token = ws.token) => ({ authorization: `Bearer ${token}` });

function expectEnvelope(res: { statusCode: number; json(): any }, status: number, error: string, code = -32000) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ jsonrpc: '2.0', error: { code, message: expect.any(String) } });
  if (code !== -32700) expect(body.error.data).toMatchObject({ error, status });
  return body;
}

describe('JSON-RPC transport rejections are JSON-RPC envelopes', () => {
  it('401 (missing, malformed, unknown key) with WWW-Authenticate, echoing the request id', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Bearer svc_sk_${'A'.repeat(43)}` }]) {
      const res = await post('/api/mcp/rpc', ping(7), headers);
      const body = expectEnvelope(res, 401, 'invalid');
      expect(body.id).toBe(7);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it('400 parse error (-32700) for bad JSON', async () => {
    const res = await post('/api/mcp/rpc', '{"jsonrpc":', auth());
    expect(expectEnvelope(res, 400, 'invalid_json', -32700).id).toBeNull();
  });

  it('413 for a body over the limit', async () => {
    const res = await post('/api/mcp/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(3 * 1024 * 1024) } }), auth());
    expectEnvelope(res, 413, 'payload_too_large');
  });

  it('415 for a body that is not JSON', async () => {
    const res = await post('/api/mcp/rpc', 'ping', { ...auth(), 'content-type': 'text/plain' });
    expectEnvelope(res, 415, 'unsupported_media_type');
  });

  it('a REST alias asked with GET is 405 naming POST; a form body is 415 saying what to send', async () => {
    const get = await t.app.inject({ method: 'GET', url: '/api/mcp/issues.list?limit=1', headers: auth() });
    expect([get.statusCode, get.headers.allow, get.json().error]).toEqual([405, 'POST', 'method_not_allowed']);
    expect(get.json().message).toContain('use POST');
    const form = await t.app.inject({ method: 'POST', url: '/api/mcp/issues.list', payload: 'a=1',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' } });
    expect([form.statusCode, form.json().error]).toEqual([415, 'unsupported_media_type']);
    expect(form.json().message).toBe('Send the body as JSON with Content-Type: application/json (got application/x-www-form-urlencoded)');
    expect((await t.app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    // Arguments in the address are refused, naming them (limit=1 was ignored: a whole page came back).
    const inAddress = await post('/api/mcp/issues.list?limit=1&status=Todo', '{}', auth());
    expect([inAddress.statusCode, inAddress.json().issues]).toEqual([400, {
      limit: "not read from the address: send the tool's arguments in the JSON body",
      status: "not read from the address: send the tool's arguments in the JSON body" }]);
  });

  it('GraphQL takes a media type in any case, and codes its refusals of media types as the other surfaces do', async () => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const upper = await post('/graphql', query, { ...auth(), 'content-type': 'APPLICATION/JSON; charset=UTF-8' });
    expect([upper.statusCode, upper.json().data]).toEqual([200, { __typename: 'Query' }]);
    const html = await post('/graphql', query, { ...auth(), accept: 'text/html' });
    expect(html.statusCode).toBe(406);
    expect(html.json()).toMatchObject({ error: 'not_acceptable', errors: [{ extensions: { code: 'not_acceptable', status: 406 } }] });
    const text = await post('/graphql', query, { ...auth(), 'content-type': 'text/plain' });
    expect([text.statusCode, text.json().error]).toEqual([415, 'unsupported_media_type']);
  });

  it('a path that exists, asked with a method it does not take, is 405 naming the ones it does (it was "No route")', async () => {
    for (const [method, url, allow] of [
      ['GET', '/graphql', 'POST'], ['DELETE', '/graphql', 'POST'], ['PUT', '/graphiql', 'GET, HEAD'],
      ['POST', '/api/plugins/events', 'GET, HEAD'], ['DELETE', '/api/plugins/events?x=1', 'GET, HEAD'],
      // A fixed path lists its own methods, not POST of the tool aliases' pattern (POST /api/mcp/describe is unknown_tool).
      ['PUT', '/api/mcp/describe', 'GET, HEAD'], ['DELETE', '/api/mcp/openapi.json', 'GET, HEAD'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: auth() });
      expect([method, url, res.statusCode, res.headers.allow, res.json().error]).toEqual([method, url, 405, allow, 'method_not_allowed']);
      expect(res.json().message).toBe(`${method} ${url.split('?')[0]}: this path answers ${allow}`);
    }
    expect((await t.app.inject({ method: 'PUT', url: '/nowhere/at/all' })).statusCode).toBe(404);
  });

  it('405 for GET', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/mcp/rpc', headers: auth() });
    expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD, POST, DELETE');
  });

  it(`a batch over ${MAX_BATCH} calls is refused with -32600 and runs nothing`, async () => {
    const key = (await createWorkspace(t)).token;
    const calls = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'issues.create', arguments: { title: `b${i}` } } }));
    const res = await post('/api/mcp/rpc', JSON.stringify(calls), auth(key));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { error: 'batch_too_large', limit: MAX_BATCH } } });
  });
});

describe('REST keeps the spec bodies', () => {
  it('401 {error} with WWW-Authenticate', async () => {
    const res = await post('/api/mcp/workspace.get', '{}');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid', message: expect.any(String) });
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });

  it('415 and 413 as {error, message}', async () => {
    const r415 = await post('/api/mcp/workspace.get', 'x', { ...auth(), 'content-type': 'text/plain' });
    expect(r415.statusCode).toBe(415);
    expect(r415.json()).toMatchObject({ error: 'unsupported_media_type' });
    const r413 = await post('/api/mcp/issues.create', JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) }), auth());
    expect(r413.statusCode).toBe(413);
    expect(r413.json()).toMatchObject({ error: 'payload_too_large', limit: 2 * 1024 * 1024,
      message: 'Request body is over 2 MiB; send it in smaller parts (fewer items per call)' });
  });

  it('a client still sending a large body hears the 413 once it has sent it (it got EPIPE past ~5 MB): declared or chunked', async () => {
    const url = new URL(await t.listen());
    // A raw socket, to see when the answer comes and whether every write went through.
    const send = (path: string, chunked: boolean) => new Promise<{ response: string; sentBeforeAnswer: number; total: number; writeError?: string }>((resolve) => {
      const piece = Buffer.alloc(1024 * 1024, 'x');
      const pieces = 24;
      const total = piece.length * pieces;
      const socket = net.connect(Number(url.port), url.hostname);
      let sent = 0;
      let sentBeforeAnswer = -1;
      let response = '';
      let writeError: string | undefined;
      socket.on('data', (d) => { if (sentBeforeAnswer < 0) sentBeforeAnswer = sent; response += d.toString(); });
      socket.on('error', (e: NodeJS.ErrnoException) => { writeError = e.code; });
      socket.on('close', () => resolve({ response, sentBeforeAnswer, total, writeError }));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${ws.token}\r\n` +
        (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${total}\r\n\r\n`));
      const next = (n: number) => {
        if (n === pieces || socket.destroyed) { if (chunked && !socket.destroyed) socket.write('0\r\n\r\n'); return; }
        const chunk = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        socket.write(chunk, (err) => { if (!err) { sent += piece.length; setImmediate(() => next(n + 1)); } });
      };
      next(0);
    });
    for (const [path, chunked] of [['/api/mcp/issues.create', false], ['/api/mcp/rpc', true]] as const) {
      const r = await send(path, chunked);
      expect(r.response, path).toMatch(/^HTTP\/1\.1 413 [\s\S]*payload_too_large/);
      expect([r.writeError, r.sentBeforeAnswer], path).toEqual([undefined, r.total]);
    }
  });

  it('a body that is JSON but not an object (null, an array, a string) is 400 {body}; no body at all is no arguments', async () => {
    for (const payload of ['null', '[]', '"x"', '7']) {
      const res = await post('/api/mcp/workspace.get', payload, auth());
      expect([payload, res.statusCode, res.json().issues]).toEqual([payload, 400, { body: 'must be a JSON object' }]);
    }
    expect((await post('/api/mcp/workspace.get', '', auth())).statusCode).toBe(200);
  });

  it('a body over 64 KB without a live key is refused unread (401, not the parse error it would earn), on every surface', async () => {
    const junk = `{${'x'.repeat(100_000)}`; // not JSON: read, it would be a 400 invalid_json
    for (const [url, headers] of [['/api/mcp/workspace.get', {}], ['/api/mcp/rpc', { authorization: 'Bearer nope' }], ['/graphql', { accept: 'application/json' }]] as const) {
      const res = await post(url, junk, headers);
      expect([url, res.statusCode]).toEqual([url, 401]);
    }
    // Without a Content-Length (chunked), the same: the tool routes refuse before reading, GraphQL once 64 KB arrived.
    for (const url of ['/api/mcp/workspace.get', '/graphql']) {
      const res = await t.app.inject({ method: 'POST', url, payload: Readable.from([Buffer.from(junk)]), headers: { 'content-type': 'application/json' } });
      expect([url, res.statusCode]).toEqual([url, 401]);
    }
    // A small body is read: JSON-RPC echoes its id, and GraphQL answers introspection.
    expect((await post('/api/mcp/rpc', ping(9))).json()).toMatchObject({ id: 9, error: { data: { status: 401 } } });
    const intro = await post('/graphql', JSON.stringify({ query: '{ __typename }' }), { accept: 'application/json' });
    expect([intro.statusCode, intro.json()]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it('GraphQL and SSE 401s carry WWW-Authenticate too', async () => {
    // A data query: introspection alone is answered without a key (GraphiQL's schema and docs, issue 14).
    const g = await post('/graphql', JSON.stringify({ query: '{ viewerRole }' }), { accept: 'application/json' });
    expect(g.statusCode).toBe(401);
    expect(g.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    const s = await t.app.inject({ method: 'GET', url: '/api/plugins/events' });
    expect(s.statusCode).toBe(401);
    expect(s.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });
});

describe('DNS-rebinding protection', () => {
  it('refuses Host: evil.example.com (loopback listener) with 403 on every surface', async () => {
    const rpcRes = await post('/api/mcp/rpc', ping(), { ...auth(), host: 'evil.example.com' });
    expectEnvelope(rpcRes, 403, 'forbidden_host');
    const restRes = await post('/api/mcp/workspace.get', '{}', { ...auth(), host: 'evil.example.com:3000' });
    expect(restRes.statusCode).toBe(403);
    expect(restRes.json()).toMatchObject({ error: 'forbidden_host', message: expect.stringContaining('DNS-rebinding') });
  });

  it('refuses Origin: http://evil.example.com (the conformance scenario sends exactly these)', async () => {
    const res = await post('/api/mcp/rpc', ping(), { ...auth(), host: 'evil.example.com', origin: 'http://evil.example.com' });
    expectEnvelope(res, 403, 'forbidden_host');
    const originOnly = await post('/api/mcp/rpc', ping(), { ...auth(), origin: 'http://evil.example.com' });
    expectEnvelope(originOnly, 403, 'forbidden_origin');
    const gql = await post('/graphql', JSON.stringify({ query: '{ __typename }' }), { ...auth(), origin: 'http://evil.example.com' });
    expect(gql.statusCode).toBe(403);
    expect(gql.json()).toMatchObject({ error: 'forbidden_origin' });
  });

  it('allows loopback Host names with any port, loopback origins, and requests without Origin', async () => {
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:3000', 'LOCALHOST']) {
      const res = await post('/api/mcp/rpc', ping(), { ...auth(), host });
      expect(res.statusCode, host).toBe(200);
    }
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:3000']) {
      const res = await post('/api/mcp/rpc', ping(), { ...auth(), origin });
      expect(res.statusCode, origin).toBe(200);
    }
  });
});

describe('SVC_PUBLIC_URL and SVC_CORS_ORIGINS (public listener)', () => {
  let app: Awaited<ReturnType<typeof buildApp>>['app'];
  beforeAll(async () => {
    ({ app } = buildApp({
      ownerPool: t.pools.owner, apiPool: t.pools.api, keys: t.keys, runner: new ToolRunner(t.pools.api), logLevel: 'silent',
      rateLimits: { rpc: 0, rest: 0 }, graphql: { pool: t.pools.api },
      origins: { publicUrl: 'https://svc.example.com', corsOrigins: ['https://board.example.org'], loopback: false },
      events: t.hub,
    }));
    await app.ready();
  });
  afterAll(() => app.close());
  const call = (url: string, headers: Record<string, string>, payload = ping()) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', host: 'svc.example.com', ...auth(), ...headers } });

  it('any Host is served when not on loopback; the own origin and listed origins pass, others are refused', async () => {
    expect((await call('/api/mcp/rpc', {})).statusCode).toBe(200);
    expect((await call('/api/mcp/rpc', { origin: 'https://svc.example.com' })).statusCode).toBe(200);
    expect((await call('/api/mcp/rpc', { origin: 'https://board.example.org' })).statusCode).toBe(200);
    expect((await call('/api/mcp/rpc', { origin: 'http://localhost:3000' })).statusCode).toBe(403);
    expect((await call('/api/mcp/rpc', { origin: 'https://evil.example.com' })).statusCode).toBe(403);
    // Reached under another name than SVC_PUBLIC_URL: a same-origin page is fine, a foreign one is not.
    expect((await call('/api/mcp/rpc', { host: 'svc.internal:3000', origin: 'http://svc.internal:3000' })).statusCode).toBe(200);
    expect((await call('/api/mcp/rpc', { host: 'svc.internal:3000', origin: 'http://evil.example.com' })).statusCode).toBe(403);
  });

  it('GraphQL CORS: preflight and responses name the listed origin only', async () => {
    const pre = await app.inject({ method: 'OPTIONS', url: '/graphql', headers: { host: 'svc.example.com', origin: 'https://board.example.org', 'access-control-request-method': 'POST' } });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://board.example.org');
    expect(String(pre.headers['access-control-allow-headers'])).toContain('authorization');
    const res = await call('/graphql', { origin: 'https://board.example.org', accept: 'application/json' }, JSON.stringify({ query: '{ currentWorkspace { key } }' }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://board.example.org');
    const own = await call('/graphql', { origin: 'https://svc.example.com', accept: 'application/json' }, JSON.stringify({ query: '{ __typename }' }));
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('API CORS: MCP, its REST aliases and the event stream answer a listed origin (preflight, exposed session header), not others', async () => {
    for (const url of ['/api/mcp', '/api/mcp/rpc', '/api/mcp/issues.list', '/api/plugins/events']) {
      const pre = await app.inject({ method: 'OPTIONS', url, headers: {
        host: 'svc.example.com', origin: 'https://board.example.org', 'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-session-id' } });
      expect([url, pre.statusCode]).toEqual([url, 204]);
      expect(pre.headers['access-control-allow-origin']).toBe('https://board.example.org');
      expect(String(pre.headers['access-control-allow-headers'])).toContain('mcp-session-id');
      // A browser app may send an Idempotency-Key and read whether the answer was a replay.
      expect(String(pre.headers['access-control-allow-headers'])).toContain('idempotency-key');
      expect(String(pre.headers['access-control-allow-methods'])).toContain('DELETE');
    }
    const res = await call('/api/mcp/rpc', { origin: 'https://board.example.org' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://board.example.org');
    expect(String(res.headers['access-control-expose-headers'])).toContain('mcp-session-id');
    expect(String(res.headers['access-control-expose-headers'])).toContain('idempotent-replayed');
    const rest = await call('/api/mcp/workspace.get', { origin: 'https://board.example.org' }, '{}');
    expect([rest.statusCode, rest.headers['access-control-allow-origin']]).toEqual([200, 'https://board.example.org']);
    // A foreign origin gets no preflight, and a same-origin page needs none.
    const foreign = await app.inject({ method: 'OPTIONS', url: '/api/mcp', headers: { host: 'svc.example.com', origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
    expect([foreign.statusCode, foreign.headers['access-control-allow-origin']]).toEqual([403, undefined]);
    expect((await call('/api/mcp/rpc', { origin: 'https://svc.example.com' })).headers['access-control-allow-origin']).toBeUndefined();

    // The event stream, which takes the response over from Fastify, carries the CORS headers too.
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${base}/api/plugins/events`, { headers: { ...auth(), origin: 'https://board.example.org' } }, resolve).on('error', reject);
    });
    expect([stream.statusCode, stream.headers['content-type'], stream.headers['access-control-allow-origin']])
      .toEqual([200, 'text/event-stream; charset=utf-8', 'https://board.example.org']);
    stream.destroy();
  });
});

describe('SVC_CORS_ORIGINS: the signed /blobs/ links of attachments (embedded store)', () => {
  // An outside probe: from a listed origin, OPTIONS <uploadUrl> was 404 and PUT/GET answered without
  // access-control-allow-origin, so a browser app could neither upload nor download an attachment.
  let app: Awaited<ReturnType<typeof buildApp>>['app'];
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-blob-cors-'));
    const blobs = new EmbeddedBlobStore({ dataDir: dir, publicUrl: 'https://svc.example.com' });
    ({ app } = buildApp({
      ownerPool: t.pools.owner, apiPool: t.pools.api, keys: t.keys, runner: new ToolRunner(t.pools.api, { blobs }), blobs,
      logLevel: 'silent', rateLimits: { rpc: 0, rest: 0 },
      origins: { publicUrl: 'https://svc.example.com', corsOrigins: ['https://app.example.com'], loopback: false },
    }));
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const tool = async (name: string, input: object) => {
    const res = await app.inject({ method: 'POST', url: `/api/mcp/${name}`, payload: JSON.stringify(input),
      headers: { 'content-type': 'application/json', host: 'svc.example.com', ...auth() } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** The path and query of a signed link (inject speaks to the app, not to its public host). */
  const local = (url: string) => {
    const u = new URL(url);
    expect(u.origin).toBe('https://svc.example.com');
    return `${u.pathname}${u.search}`;
  };
  const APP = 'https://app.example.com';

  it('a listed origin may preflight, PUT and GET a link (no credentials); the own origin gets the headers too; others stay 403', async () => {
    const issue = await tool('issues.create', { title: 'with a file' });
    const bytes = Buffer.from('hello from a browser');
    const up = await tool('attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'note.txt', mimeType: 'text/plain', sizeBytes: bytes.length });
    const uploadPath = local(up.uploadUrl);

    const pre = await app.inject({ method: 'OPTIONS', url: uploadPath, headers: {
      host: 'svc.example.com', origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    expect(pre.statusCode, pre.body).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(APP);
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/\bPUT\b/);
    expect(String(pre.headers['access-control-allow-methods'])).toMatch(/\bGET\b/);
    expect(String(pre.headers['access-control-allow-headers'])).toContain('content-type');
    // The signed URL is the capability: no cookies or Authorization are asked for.
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();

    const put = await app.inject({ method: 'PUT', url: uploadPath, payload: bytes,
      headers: { host: 'svc.example.com', origin: APP, 'content-type': 'text/plain' } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.headers['access-control-allow-origin']).toBe(APP);
    expect(String(put.headers.vary)).toMatch(/origin/i);
    const att = await tool('attachments.finalize', { key: up.key });
    const dl = await tool('attachments.getDownloadUrl', { id: att.id });

    const get = await app.inject({ method: 'GET', url: local(dl.url), headers: { host: 'svc.example.com', origin: APP } });
    expect(get.statusCode).toBe(200);
    expect(get.rawPayload.equals(bytes)).toBe(true);
    expect(get.headers['access-control-allow-origin']).toBe(APP);
    expect(String(get.headers['access-control-expose-headers'])).toContain('content-disposition');
    const preGet = await app.inject({ method: 'OPTIONS', url: local(dl.url), headers: { host: 'svc.example.com', origin: APP, 'access-control-request-method': 'GET' } });
    expect([preGet.statusCode, preGet.headers['access-control-allow-origin']]).toEqual([204, APP]);
    // A refusal of the link itself is readable by the page too (why the upload failed).
    const tampered = await app.inject({ method: 'PUT', url: uploadPath.replace(/sig=[0-9a-f]/, 'sig=x'), payload: bytes,
      headers: { host: 'svc.example.com', origin: APP, 'content-type': 'text/plain' } });
    expect([tampered.statusCode, tampered.headers['access-control-allow-origin']]).toEqual([403, APP]);

    // SVC_PUBLIC_URL's origin is answered as a listed one.
    const own = await app.inject({ method: 'GET', url: local(dl.url), headers: { host: 'svc.example.com', origin: 'https://svc.example.com' } });
    expect([own.statusCode, own.headers['access-control-allow-origin']]).toEqual([200, 'https://svc.example.com']);
    // Any other origin keeps its 403, preflight included, without CORS headers.
    for (const method of ['OPTIONS', 'PUT', 'GET'] as const) {
      const foreign = await app.inject({ method, url: method === 'GET' ? local(dl.url) : uploadPath, payload: method === 'PUT' ? bytes : undefined,
        headers: { host: 'svc.example.com', origin: 'https://evil.example.com', 'access-control-request-method': 'PUT', 'content-type': 'text/plain' } });
      expect([method, foreign.statusCode, foreign.headers['access-control-allow-origin']]).toEqual([method, 403, undefined]);
    }
    // GraphQL keeps its rule: listed origins only (the own origin is same-origin and gets no CORS headers there).
    const gqlOwn = await app.inject({ method: 'OPTIONS', url: '/graphql', headers: { host: 'svc.example.com', origin: 'https://svc.example.com', 'access-control-request-method': 'POST' } });
    expect(gqlOwn.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('DNS-rebinding protection behind a reverse proxy', () => {
  it('a loopback listener also answers the Host of SVC_PUBLIC_URL (a proxy that keeps Host), and only that one', async () => {
    const app = Fastify();
    registerOriginGuard(app, { publicUrl: 'https://tracker.example.test:8443/', loopback: true });
    app.get('/ping', async () => ({ ok: true }));
    for (const host of ['tracker.example.test:8443', 'TRACKER.example.test', 'localhost:3000']) {
      expect((await app.inject({ method: 'GET', url: '/ping', headers: { host } })).statusCode, host).toBe(200);
    }
    const same = await app.inject({ method: 'GET', url: '/ping', headers: { host: 'tracker.example.test', origin: 'https://tracker.example.test:8443' } });
    expect(same.statusCode).toBe(200);
    for (const host of ['evil.example.com', 'tracker.example.test.evil.com']) {
      expect((await app.inject({ method: 'GET', url: '/ping', headers: { host } })).statusCode, host).toBe(403);
    }
    await app.close();
  });
});

describe('MCP-Protocol-Version header', () => {
  it('a version the server speaks passes; any other is 400 (a JSON-RPC envelope)', async () => {
    const ok = await post('/api/mcp/rpc', ping(), { ...auth(), 'mcp-protocol-version': '2025-06-18' });
    expect(ok.statusCode).toBe(200);
    for (const v of ['1999-01-01', 'garbage']) {
      const bad = await post('/api/mcp/rpc', ping(), { ...auth(), 'mcp-protocol-version': v });
      expectEnvelope(bad, 400, 'unsupported_protocol_version');
    }
  });
});

describe('headers of every answer (web-security probe)', () => {
  const expectGuarded = (res: { headers: Record<string, unknown> }, what: string) => {
    expect(res.headers['x-content-type-options'], what).toBe('nosniff');
    expect(res.headers['x-frame-options'], what).toBe('DENY');
    expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  };

  it('the API, GraphQL, GraphiQL and refusals are not cached, sniffed or framed', async () => {
    const answers = {
      'a tool': await post('/api/mcp/issues.list', '{}', auth()),
      'JSON-RPC': await post('/api/mcp/rpc', ping(), auth()),
      'GraphQL': await post('/graphql', JSON.stringify({ query: '{ __typename }' }), auth()),
      'a 401': await post('/api/mcp/issues.list', '{}'),
      'a 404': await t.app.inject({ method: 'GET', url: '/nowhere/<script>' }),
      'GraphiQL': await t.app.inject({ method: 'GET', url: '/graphiql' }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expectGuarded(res, what);
      expect(res.headers['cache-control'], what).toBe('no-store');
    }
    // GraphiQL can keep an Authorization header in this origin's storage: no other site may frame it.
    expect(answers.GraphiQL.statusCode).toBe(200);
    expect(String(answers.GraphiQL.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
  });

  it('refusals of the origin guard carry them too; GraphiQL\'s own assets are revalidated, not fetched again each visit', async () => {
    const refused = await t.app.inject({ method: 'GET', url: '/health', headers: { host: 'evil.example' } });
    expect(refused.statusCode).toBe(403);
    expectGuarded(refused, 'a foreign Host');
    const page = await t.app.inject({ method: 'GET', url: '/graphiql' });
    const asset = /\/ruru-static\/[^"']+/.exec(page.body)?.[0];
    expect(asset).toBeDefined();
    const got = await t.app.inject({ method: 'GET', url: asset! });
    expect([got.statusCode, got.headers['cache-control']]).toEqual([200, 'no-cache']);
    expectGuarded(got, 'asset');
  });

  it('GraphiQL asset it does not have: the JSON 404 of every unknown path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/ruru-static/nothing.js' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: 'not_found', message: 'No route GET /ruru-static/nothing.js' });
    expectGuarded(res, 'asset');
  });
});
