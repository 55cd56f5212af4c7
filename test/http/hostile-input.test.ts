/**
 * Input the service did not expect (issue 9, items 1, 2, 3, 7): NUL characters and lone surrogates on
 * every surface, prototype names as tools/list profiles, repeated query parameters, GraphQL internal
 * errors. Each must be a 4xx with a body naming the problem, never a 5xx.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.ts';
import { schemasOf, TOOLS } from '../../src/tools/catalog.ts';
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
    // Through catalog.call the field is named where it is in catalog.call's input.
    expect(toolError(viaCatalog.body)).toMatchObject({ status: 400, issues: { 'arguments.body': 'must not contain NUL characters' } });
  });

  it('catalog.call takes what the tool takes directly: its wrapper does not count against the nesting limit', async () => {
    const nest = (n: number): unknown => (n === 0 ? 'bottom' : { a: nest(n - 1) });
    const direct = (n: number) => rest(t, ws.token, 'actionRequests.create', { title: 'Deep', payload: nest(n) });
    let deepest = 50;
    while ((await direct(deepest + 1)).status === 200) deepest++;
    const via = (n: number) => rest(t, ws.token, 'catalog.call', { name: 'actionRequests.create', arguments: { title: 'Deep', payload: nest(n) } });
    expect((await via(deepest)).status).toBe(200);
    const over = await via(deepest + 1);
    expect([over.status, Object.keys(over.body.issues)[0]]).toEqual([400, `arguments.${Object.keys((await direct(deepest + 1)).body.issues)[0]}`]);
  });

  it('a field named __proto__ is reported like any unknown field', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/mcp/issues.create', payload: '{"title":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}` },
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().issues)).toBe('{"__proto__":"unknown field"}');
  });

  it('GraphQL: NUL or a lone surrogate in a variable is refused before the request runs: 400 invalid_input naming the variable', async () => {
    for (const bad of ['a\u0000b', 'a\ud800b']) {
      const r = await gql(t, ws.token, 'query($k: String!) { issueByKey: issues(condition: {title: $k}) { totalCount } }', { k: bad });
      expect(r.status).toBe(400);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400 });
      expect(Object.keys(r.body.issues)).toEqual(['variables.k']);
    }
  });

  it('the SQL error map covers what PostgreSQL refuses (safety net behind the Node checks)', async () => {
    const { fromPgError } = await import('../../src/errors.ts');
    for (const code of ['22P05', '22021', '54000', '22P02', '2202E']) {
      expect(fromPgError({ code, message: 'x' })?.status, code).toBe(400);
    }
    expect(fromPgError({ code: 'XX000', message: 'x' })).toBeUndefined();
    // A check violation names the field, not the relation and the constraint.
    const check = fromPgError({ code: '23514', message: 'new row for relation "runtimes" violates check constraint "runtimes_endpoint_check"', constraint: 'runtimes_endpoint_check' })!;
    expect(check.status).toBe(400);
    expect(check.body).toMatchObject({ error: 'invalid_input', message: 'endpoint is not an allowed value', issues: { endpoint: 'endpoint is not an allowed value' } });
    expect(JSON.stringify(check.body)).not.toMatch(/relation|constraint/);
    // A concurrent transaction's victim: 409, in words that say to try again.
    for (const code of ['40P01', '40001']) {
      expect(fromPgError({ code, message: 'deadlock detected' })?.body).toEqual({ error: 'conflict', message: 'A concurrent change got in the way; try again' });
    }
  });

  it('a call that lost a deadlock is run again (it is one transaction); one that keeps losing is 409', async () => {
    const { queryAsCaller } = await import('../../src/db/as-caller.ts');
    const { KeyAuthenticator } = await import('../../src/auth/keys.ts');
    const caller = await new KeyAuthenticator(t.pools.api, t.pools.owner).authenticate(`Bearer ${ws.token}`);
    // Loses the first `wins` - 1 times (a sequence is not rolled back), then answers.
    await t.pools.owner.query(`create sequence app_hidden.test_attempts;
      create function app_hidden.test_flaky(wins int) returns jsonb language plpgsql as $f$
      begin
        if nextval('app_hidden.test_attempts') < wins then raise exception 'deadlock detected' using errcode = '40P01'; end if;
        return '{"ok": true}';
      end $f$;
      grant usage on sequence app_hidden.test_attempts to svc_visitor;
      grant execute on function app_hidden.test_flaky(int) to svc_visitor`);
    expect(await queryAsCaller(t.pools.api, caller, 'test_flaky', 'app_hidden.test_flaky($2::int)', [3])).toBe('{"ok": true}');
    await t.pools.owner.query(`select setval('app_hidden.test_attempts', 1, false)`);
    const lost = await queryAsCaller(t.pools.api, caller, 'test_flaky', 'app_hidden.test_flaky($2::int)', [10]).catch((e: { code?: string }) => e);
    expect((lost as { code?: string }).code).toBe('40P01');
    expect(Number((await t.pools.owner.query(`select last_value from app_hidden.test_attempts`)).rows[0].last_value)).toBe(3);
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

  it('?tools= with an unknown namespace or tool is a 400 naming it, as an unknown profile is', async () => {
    for (const tools of ['nope', 'issues,issues.nope', '!constructor', '__proto__']) {
      const r = await rpc(t, ws.token, 'tools/list', undefined, `?tools=${tools}`);
      expect(r.body.error, tools).toMatchObject({ code: -32602, data: { error: 'invalid_input', issues: { tools: expect.stringContaining('unknown namespace or tool') } } });
    }
  });

  it('?tools=issues&tools=notes lists both namespaces (repeated parameters are joined)', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?tools=issues&tools=notes');
    expect(r.status).toBe(200);
    const namespaces = new Set(r.body.result.tools.map((x: { name: string }) => x.name.split('.')[0]));
    expect([...namespaces].sort()).toEqual(['catalog', 'issues', 'notes']);
  });

  it('?profile=core&profile=full is refused clearly (one profile only)', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?profile=core&profile=full');
    // data.status, as every other JSON-RPC refusal carries (a docs probe found it missing here).
    expect(r.body.error).toMatchObject({ code: -32602, data: { status: 400, error: 'invalid_input', issues: { profile: expect.any(String) } } });
    expect((await rpc(t, ws.token, 'tools/list', undefined, '?profile=constructor')).body.error).toMatchObject({ code: -32602, data: { status: 400 } });
  });

  it('a known profile still works', async () => {
    const r = await rpc(t, ws.token, 'tools/list', undefined, '?profile=full');
    expect(r.body.result.tools.length).toBeGreaterThan(50);
    await ok(t, ws.token, 'workspace.get', {});
  });
});

describe('request bodies that are not UTF-8', () => {
  // "bad utf8 " + the bytes FF FE (never valid UTF-8) inside a JSON string.
  const badUtf8 = (prefix: string, suffix: string) => Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe]), Buffer.from(suffix)]);
  const post = (url: string, payload: Buffer, token: string | undefined = ws.token) => t.app.inject({
    method: 'POST', url, payload,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });

  it('REST: 400 invalid_json naming the body; nothing is stored', async () => {
    const before = (await ok(t, ws.token, 'issues.list', { limit: 200 })).items.length;
    const res = await post('/api/mcp/issues.create', badUtf8('{"title":"bad utf8 ', '"}'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_json', message: 'Request body is not valid UTF-8', issues: { body: 'not valid UTF-8' } });
    expect((await ok(t, ws.token, 'issues.list', { limit: 200 })).items.length).toBe(before);
  });

  it('JSON-RPC (/api/mcp/rpc and /api/mcp): a -32700 parse error with status 400', async () => {
    for (const url of ['/api/mcp/rpc', '/api/mcp']) {
      const res = await post(url, badUtf8('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"issues.create","arguments":{"title":"bad ', '"}}}'));
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ jsonrpc: '2.0', error: { code: -32700, data: { error: 'invalid_json', issues: { body: 'not valid UTF-8' } } } });
    }
  });

  it('GraphQL: 400 invalid_json', async () => {
    const res = await post('/graphql', badUtf8('{"query":"mutation { issuesCreate(input: {title: \\"bad ', '\\"}) { issue { title } } }"}'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_json', issues: { body: 'not valid UTF-8' } });
  });

  it('valid multi-byte UTF-8 still passes (and an escaped lone surrogate is still refused)', async () => {
    const res = await post('/api/mcp/issues.create', Buffer.from('{"title":"naïve 漢字 🚀"}', 'utf8'));
    expect(res.statusCode).toBe(200);
    expect(res.json().title).toBe('naïve 漢字 🚀');
    const surrogate = await post('/api/mcp/issues.create', Buffer.from('{"title":"x\\ud800"}'));
    expect(surrogate.statusCode).toBe(400);
  });
});

describe('two Authorization headers', () => {
  // Node keeps only the first of several Authorization headers in req.headers: the raw list is what counts.
  const two = () => ({ authorization: [`Bearer ${ws.token}`, 'Bearer svc_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'] });
  // Node's header types allow one Authorization value; both clients send an array as repeated headers.
  const asHeaders = (h: Record<string, string | string[]>) => h as unknown as Record<string, string>;
  const refused = { error: 'invalid', message: expect.stringContaining('More than one Authorization header') };

  it('REST: 401 invalid, whichever comes first', async () => {
    for (const authorization of [two().authorization, [...two().authorization].reverse()]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/mcp/workspace.get', payload: '{}', headers: asHeaders({ 'content-type': 'application/json', authorization }) });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject(refused);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it('JSON-RPC: 401 in a JSON-RPC envelope', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/api/mcp/rpc', payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      headers: asHeaders({ 'content-type': 'application/json', ...two() }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { data: refused } });
  });

  it('GraphQL: 401', async () => {
    const res = await t.app.inject({
      method: 'POST', url: '/graphql', payload: JSON.stringify({ query: '{ currentWorkspace: __typename }' }),
      headers: asHeaders({ 'content-type': 'application/json', accept: 'application/json', ...two() }),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject(refused);
  });

  it('SSE and REST over a real socket: 401 before any stream opens; one header still works', async () => {
    const base = await t.listen();
    const status = (path: string, method: string, authorization: string | string[]) => new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}${path}`, { method, headers: asHeaders({ authorization, 'content-type': 'application/json', accept: 'text/event-stream' }) }, (res) => {
        resolve(res.statusCode!);
        res.destroy();
      });
      req.on('error', reject);
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.end(method === 'POST' ? '{}' : undefined);
    });
    expect(await status('/api/plugins/events', 'GET', two().authorization)).toBe(401);
    expect(await status('/api/mcp/workspace.get', 'POST', two().authorization)).toBe(401);
    expect(await status('/api/mcp/workspace.get', 'POST', `Bearer ${ws.token}`)).toBe(200);
  });

  it('what Node refuses before Fastify (headers over 16 KB, a malformed request) gets the {error, message} body', async () => {
    const base = new URL(await t.listen());
    const raw = (request: string, end = true) => new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(base.port), base.hostname, () => (end ? socket.end(request) : socket.write(request)));
      let answer = '';
      socket.on('data', (c) => { answer += c.toString(); });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    const big = await raw(`GET /live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1.1 431 /);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'headers_too_large', message: expect.any(String) });
    const malformed = await raw('NOT A REQUEST\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1.1 400 /);
    expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'bad_request', message: expect.any(String) });

    // Junk after a write on the same connection: the write's own answer comes first, then the 400 (the 400 took its
    // place, and a client sent a committed create again).
    const body = JSON.stringify({ title: 'pipelined then junk' });
    // (Written without ending the socket: a client's half-close makes Node give up on requests still being answered.)
    const both = await raw(`POST /api/mcp/issues.create HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${ws.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}GARBAGE\r\n\r\n`, false);
    expect(both).toMatch(/^HTTP\/1.1 200 /);
    const created = JSON.parse(both.slice(both.indexOf('\r\n\r\n') + 4, both.indexOf('HTTP/1.1 400')));
    expect(created).toMatchObject({ title: 'pipelined then junk', key: expect.any(String) });
    expect(both).toMatch(/HTTP\/1.1 400 Bad Request\r\n[^]*"error":"bad_request"/);
  });

  it('a request must arrive within five minutes (Node\'s default, which Fastify turns off): a body never finished does not hold its socket for good', async () => {
    await t.listen();
    expect(t.app.server.requestTimeout).toBe(300_000);
  });
});

describe('numbers and dates PostgreSQL cannot store are 400s on the field', () => {
  it('slaMinutes past the integer column: issues.create, issues.update, issues.createMany', async () => {
    const created = await rest(t, ws.token, 'issues.create', { title: 'sla', slaMinutes: 2147483648 });
    expect(created.status).toBe(400);
    expect(Object.keys(created.body.issues)).toEqual(['slaMinutes']);
    const issue = await ok(t, ws.token, 'issues.create', { title: 'sla ok', slaMinutes: 2147483647 });
    const updated = await rest(t, ws.token, 'issues.update', { id: issue.id, slaMinutes: 2147483648 });
    expect(updated.status).toBe(400);
    expect(Object.keys(updated.body.issues)).toEqual(['slaMinutes']);
    const many = await rest(t, ws.token, 'issues.createMany', { items: [{ title: 'a' }, { title: 'b', slaMinutes: 2 ** 40 }] });
    expect(many.status).toBe(400);
    expect(Object.keys(many.body.issues)).toEqual(['items.1.slaMinutes']);
  });

  it('every integer input publishes a maximum that fits its column', async () => {
    const { INT4_MAX } = await import('../../src/tools/define.ts');
    // bigint columns (agent_runs.tokens_*): zod's safe-integer bound, which fits, is left out of the schema.
    const bigint = new Set(['runs.recordUsage tokensIn', 'runs.recordUsage tokensOut', 'runs.recordUsage tokensCached']);
    const unbounded: string[] = [];
    const walk = (tool: string, s: any, path: string) => {
      if (!s || typeof s !== 'object') return;
      if (s.type === 'integer' && !(s.maximum <= INT4_MAX) && !bigint.has(`${tool} ${path}`)) unbounded.push(`${tool} ${path}`);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(tool, v, path ? `${path}.${k}` : k);
      if (s.items) walk(tool, s.items, `${path}[]`);
      for (const b of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(tool, b, path);
    };
    for (const tool of TOOLS) walk(tool.name, schemasOf(tool).input, '');
    expect(unbounded).toEqual([]);
    const chat = await rest(t, ws.token, 'chat.appendDraftChunk', { threadId: crypto.randomUUID(), draftId: crypto.randomUUID(), delta: 'x', seq: 2147483648 });
    expect(chat.status).toBe(400);
    expect(Object.keys(chat.body.issues)).toEqual(['seq']);
  });

  it('year 0000: dueDate, cycles startsOn, notes journalDate, time startedAt', async () => {
    const due = await rest(t, ws.token, 'issues.create', { title: 'due', dueDate: '0000-01-01' });
    expect(due.status).toBe(400);
    expect(due.body.issues).toEqual({ dueDate: expect.stringContaining('year 0000') });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'due ok', dueDate: '0001-01-01' });
    expect(issue.dueDate).toBe('0001-01-01');
    const upd = await rest(t, ws.token, 'issues.update', { id: issue.id, dueDate: '0000-02-29' });
    expect(upd.body.issues).toEqual({ dueDate: expect.any(String) });
    const impossible = await rest(t, ws.token, 'issues.update', { id: issue.id, dueDate: '2026-02-30' });
    expect(impossible.status).toBe(400);
    expect(Object.keys(impossible.body.issues)).toEqual(['dueDate']);
    const cycle = await rest(t, ws.token, 'cycles.create', { startsOn: '0000-01-01', endsOn: '0000-01-14' });
    expect(cycle.status).toBe(400);
    expect(Object.keys(cycle.body.issues).sort()).toEqual(['endsOn', 'startsOn']);
    const note = await rest(t, ws.token, 'notes.create', { body: 'j', kind: 'JOURNAL', journalDate: '0000-12-31' });
    expect(note.status).toBe(400);
    expect(note.body.issues).toHaveProperty('journalDate');
    const time = await rest(t, ws.token, 'time.log', { issueId: issue.id, durationMin: 5, startedAt: '0000-06-01T10:00:00Z' });
    expect(time.status).toBe(400);
    expect(time.body.issues).toHaveProperty('startedAt');
  });

  it('data exceptions that still reach PostgreSQL are a 400 in our words (PostgreSQL\'s text only in the debug log)', async () => {
    const { fromPgError, logRefusedInputTo } = await import('../../src/errors.ts');
    const logged: unknown[] = [];
    logRefusedInputTo((detail) => logged.push(detail));
    try {
      const cases = [
        { code: '22P02', message: 'invalid input syntax for type integer: "abc"' },
        { code: '22003', message: 'value "2147483648" is out of range for type integer' },
        { code: '22008', message: 'date/time field value out of range: "2026-02-30"' },
        { code: '22007', message: 'invalid input syntax for type timestamp with time zone: "x"' },
        { code: '22023', message: 'invalid parameter value: internal detail' },
      ];
      for (const pgErr of cases) {
        const mapped = fromPgError(pgErr)!;
        expect(mapped.status, pgErr.code).toBe(400);
        expect(mapped.body.error).toBe('invalid_input');
        expect(JSON.stringify(mapped.body), pgErr.code).not.toContain(pgErr.message);
        expect(JSON.stringify(mapped.body), pgErr.code).not.toMatch(/type integer|timestamp with time zone|syntax/);
      }
      expect(fromPgError({ code: '22P02', message: 'x', column: 'estimate' })!.body.issues).toEqual({ estimate: 'not a valid value for this field' });
      expect(logged).toHaveLength(cases.length + 1);
      expect(logged[0]).toMatchObject({ sqlstate: '22P02', pgMessage: cases[0]!.message });
    } finally {
      logRefusedInputTo(undefined);
    }
  });
});

describe('text the caller sent, quoted back in an error, is cut between characters', () => {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  it('an unknown field, tool or JSON-RPC method ending in an emoji at the cut: no lone surrogate (strict JSON parsers refuse one)', async () => {
    const name = 'x'.repeat(99) + '😀'.repeat(60);
    const field = await rest(t, ws.token, 'issues.create', { title: 'cut', [name + 'y'.repeat(100)]: 1 });
    expect(field.status).toBe(400);
    expect(Object.keys(field.body.issues).some((k) => lone.test(k))).toBe(false);
    expect(Object.keys(field.body.issues).join()).toContain('…');
    const tool = await rest(t, ws.token, name, {});
    expect(tool.status).toBe(404);
    expect(lone.test(tool.body.message)).toBe(false);
    const method = await rpc(t, ws.token, name, {});
    expect(lone.test(JSON.stringify(method))).toBe(false);
    const { clip } = await import('../../src/text.ts');
    expect(clip('ab😀', 3)).toBe('ab…');
    expect(clip('ab😀', 4)).toBe('ab😀');
    expect(clip('abc😀', 3, '')).toBe('abc');
  });
});
