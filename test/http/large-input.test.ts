/**
 * Large malformed inputs are refused cheaply, with a bounded answer (outside probe): an object of 60,000 unknown
 * fields, a 60,000-field or 300,000-item free-form value. The issues map of a 400 names at most MAX_ISSUES fields
 * and counts the rest in one more entry. Also small protocol points: an empty JSON-RPC body is a parse error,
 * a compressed body is 415 naming Content-Encoding, two bearer tokens in one header are a malformed header.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssueMap, MAX_ISSUES, MORE_ISSUES_FIELD, moreIssuesMessage } from '../../src/tools/invoke.ts';
import { ARRAY_ITEMS_MESSAGE, checkInput, MAX_ARRAY_ITEMS, MAX_OBJECT_KEYS, NUL_MESSAGE, OBJECT_KEYS_MESSAGE } from '../../src/tools/text-guard.ts';
import { createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const fields = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 1]));
const unknownFirst = (n: number, prefix = 'k', path = '') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${path}${prefix}${i}`, 'unknown field']));
const toolError = (body: any) => JSON.parse(body.result.content[0].text);

describe('a 400 lists at most 20 issues, then how many more', () => {
  it('REST: 60,000 unknown fields → the first 20 named and one entry counting the other 59,980', async () => {
    const r = await rest(t, ws.token, 'issues.list', fields(60_000));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'invalid_input', message: 'Invalid input',
      issues: { ...unknownFirst(MAX_ISSUES), [MORE_ISSUES_FIELD]: moreIssuesMessage(59_980) },
    });
  });

  it('REST: the declared fields of such an input are still checked, and listed first', async () => {
    const r = await rest(t, ws.token, 'issues.list', { limit: 'ten', ...fields(5000), status: 'TODO' });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.issues)).toHaveLength(MAX_ISSUES + 1);
    expect(Object.keys(r.body.issues)[0]).toBe('limit');
    expect(r.body.issues[MORE_ISSUES_FIELD]).toBe(moreIssuesMessage(5000 - (MAX_ISSUES - 1)));
  });

  it('JSON-RPC: the same bounded issues in the tool error (a few hundred bytes, not 1.7 MB)', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'issues.list', arguments: fields(60_000) });
    expect(r.status).toBe(200);
    const err = toolError(r.body);
    expect(err).toMatchObject({ status: 400, error: 'invalid_input' });
    expect(err.issues).toEqual({ ...unknownFirst(MAX_ISSUES), [MORE_ISSUES_FIELD]: moreIssuesMessage(59_980) });
    expect(JSON.stringify(r.body).length).toBeLessThan(2000);
  });

  it('unknown fields of a nested object (zod lists them) are capped the same way', async () => {
    const r = await rest(t, ws.token, 'issues.get', { id: 'ENG-1', include: fields(500) });
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual({ ...unknownFirst(MAX_ISSUES, 'k', 'include.'), [MORE_ISSUES_FIELD]: moreIssuesMessage(480) });
  });

  it('an input with no more fields than declared keeps the usual issues (no count entry)', async () => {
    const r = await rest(t, ws.token, 'issues.list', { limit: 0, statusID: 'x' });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.issues).sort()).toEqual(['limit', 'statusID']);
    expect(r.body.issues.statusID).toBe('unknown field; did you mean statusId?');
  });

  it('an unknown field names the one it was probably meant as; a missing one says required', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'hints' });
    // comments.list pages with before where most lists take cursor; an agent guesses cursor.
    expect((await rest(t, ws.token, 'comments.list', { issueId: issue.id, cursor: 'x' })).body.issues)
      .toEqual({ cursor: 'unknown field; did you mean before?' });
    expect((await rest(t, ws.token, 'issues.update', { id: issue.id, titel: 'typo' })).body.issues)
      .toEqual({ titel: 'unknown field; did you mean title?' });
    expect((await rest(t, ws.token, 'issues.list', { zzz: 1 })).body.issues).toEqual({ zzz: 'unknown field' });
    expect((await rest(t, ws.token, 'comments.create', { body: 'no issue' })).body.issues).toEqual({ issueId: 'required (string)' });
    // A name where an id goes: the refusal says where the id comes from.
    expect((await rest(t, ws.token, 'issues.list', { projectId: 'Project X' })).body.issues.projectId).toBe('projectId must be a UUID, from projects.list');
    expect((await rest(t, ws.token, 'issues.list', { assignedAgentId: 'triage' })).body.issues.assignedAgentId).toMatch(/agents\.list/);
    // A missing id is required, not "must be a UUID"; a wrong type says so without zod's prefix.
    expect((await rest(t, ws.token, 'projects.get', {})).body.issues).toEqual({ id: 'required (string)' });
    // A choice left out is required too (zod said "Invalid option: expected one of …", as for a wrong value); a wrong
    // value still says what it may be.
    expect((await rest(t, ws.token, 'runtimes.register', { name: 'box', providersAvailable: [] })).body.issues)
      .toEqual({ kind: expect.stringMatching(/^required \(one of "LOCAL_DAEMON"\|/) });
    expect((await rest(t, ws.token, 'runtimes.register', { name: 'box', kind: 'MAINFRAME', providersAvailable: [] })).body.issues.kind)
      .toMatch(/^Invalid option: expected one of/);
    expect((await rest(t, ws.token, 'issues.list', { cursor: 1 })).body.issues).toEqual({ cursor: 'expected string, received number' });
    // Names reached for by agents (re-probe): relatedIssueId, minutes, url.
    expect((await rest(t, ws.token, 'relations.add', { fromIssueId: issue.id, relatedIssueId: issue.id, kind: 'RELATES_TO' })).body.issues.relatedIssueId)
      .toBe('unknown field; did you mean toIssueId?');
    expect((await rest(t, ws.token, 'time.log', { issueId: issue.id, minutes: 5 })).body.issues.minutes).toBe('unknown field; did you mean durationMin?');
    expect((await rest(t, ws.token, 'relations.add', { issueId: issue.id, toIssueId: issue.id, kind: 'RELATES_TO' })).body.issues.issueId)
      .toBe('unknown field; did you mean fromIssueId or toIssueId?');
    // No guess that names a field meaning something else (issues.list {id} once said cycleId, assign {body} mode).
    for (const [tool, field] of [['issues.list', 'id'], ['agents.get', 'issue'], ['issues.assign', 'body'], ['labels.create', 'page'], ['time.log', 'name']]) {
      expect((await rest(t, ws.token, tool!, { [field!]: 'x' })).body.issues[field!], `${tool} ${field}`).toBe('unknown field');
    }
    // An unknown field with a 100 KB name is named in 200 characters, not echoed back whole.
    const long = (await rest(t, ws.token, 'issues.list', { ['x'.repeat(100_000)]: 1 })).body.issues;
    expect(Object.keys(long)).toEqual([`${'x'.repeat(200)}…`]);
  });

  it('IssueMap: first report of a field wins; past the cap only a count', () => {
    const m = new IssueMap(2);
    m.add('a', 'one');
    m.add('a', 'two');
    m.add('__proto__', 'unknown field');
    m.add('c', 'three');
    m.addUnlisted(5);
    const json = m.toJSON();
    expect(JSON.stringify(json)).toBe(`{"a":"one","__proto__":"unknown field","${MORE_ISSUES_FIELD}":"${moreIssuesMessage(6)}"}`);
    expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
  });
});

describe('oversized objects and arrays are refused before zod', () => {
  it('actionRequests.create: a 60,000-field payload is a 400 on payload (the object limit), nothing stored', async () => {
    const r = await rest(t, ws.token, 'actionRequests.create', { title: 'x', payload: fields(60_000) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_input', message: 'Invalid input', issues: { payload: OBJECT_KEYS_MESSAGE } });
    expect((await ok(t, ws.token, 'actionRequests.list', {})).items).toEqual([]);
  });

  it('actionRequests.create: an array of 300,000 numbers is a 400 naming it', async () => {
    const r = await rest(t, ws.token, 'actionRequests.create', { title: 'x', payload: { a: Array.from({ length: 300_000 }, (_, i) => i) } });
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual({ 'payload.a': ARRAY_ITEMS_MESSAGE });
  });

  it('runtimes.register: info with 150,000 strings is refused (it was taken, then dropped by the SQL)', async () => {
    const input = { name: 'big', kind: 'LOCAL_DAEMON', providersAvailable: ['CLAUDE'], info: { a: Array.from({ length: 150_000 }, (_, i) => `s${i}`) } };
    const r = await rest(t, ws.token, 'runtimes.register', input);
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual({ 'info.a': ARRAY_ITEMS_MESSAGE });
    // JSON-RPC: the same, as a tool error.
    const c = await rpc(t, ws.token, 'tools/call', { name: 'runtimes.register', arguments: input });
    expect(toolError(c.body)).toMatchObject({ status: 400, issues: { 'info.a': ARRAY_ITEMS_MESSAGE } });
    // At the limits, the same input is taken.
    const atLimit = await rest(t, ws.token, 'runtimes.register', { ...input, info: { a: input.info.a.slice(0, MAX_ARRAY_ITEMS), ...fields(MAX_OBJECT_KEYS - 1) } });
    expect(atLimit.status).toBe(200);
  });

  it('checkInput: the first oversized container alone, with its path; text issues with theirs', () => {
    expect(checkInput({ x: [{ y: fields(MAX_OBJECT_KEYS + 1) }] }).structure).toEqual({ 'x.0.y': OBJECT_KEYS_MESSAGE });
    expect(checkInput([new Array(MAX_ARRAY_ITEMS + 1).fill(0)]).structure).toEqual({ 0: ARRAY_ITEMS_MESSAGE });
    const many = checkInput({ list: Array.from({ length: 50 }, () => 'a\u0000') });
    expect(many.structure).toBeUndefined();
    expect(Object.keys(many.text)).toHaveLength(20);
    expect(many.text['list.49']).toBe(NUL_MESSAGE);
    expect(checkInput({ 'a\u0000': { b: 'c\u0000' }, d: { 'e\ud800': 1 } }).text)
      .toEqual({ 'a\\0': 'field name must not contain NUL characters', 'd.e\\ud800': 'field name must be valid Unicode (no lone surrogates)' });
  });
});

describe('protocol points', () => {
  const post = (url: string, payload: string | Buffer, headers: Record<string, string> = {}) => t.app.inject({
    method: 'POST', url, payload,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}`, ...headers },
  });

  it('an empty body on the JSON-RPC endpoint is a 400 parse error (-32700), as any body that is not JSON', async () => {
    for (const url of ['/api/mcp/rpc', '/api/mcp']) {
      for (const res of [await post(url, ''), await post(url, '  \n'), await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${ws.token}` } })]) {
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error', data: { error: 'invalid_json', status: 400 } } });
      }
    }
    // REST keeps an empty body as "no arguments".
    expect((await post('/api/mcp/workspace.get', '')).statusCode).toBe(200);
  });

  it('a Content-Encoding other than identity is 415 naming the header (REST, JSON-RPC); identity is plain JSON', async () => {
    const gz = gzipSync(JSON.stringify({ title: 'compressed' }));
    const r = await post('/api/mcp/issues.create', gz, { 'content-encoding': 'gzip' });
    expect(r.statusCode).toBe(415);
    expect(r.json()).toEqual({ error: 'unsupported_media_type', message: expect.stringMatching(/^Content-Encoding gzip is not supported/) });
    expect(r.headers['accept-encoding']).toBe('identity');
    const c = await post('/api/mcp/rpc', gzipSync(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })), { 'content-encoding': 'br' });
    expect(c.statusCode).toBe(415);
    expect(c.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/Content-Encoding br/), data: { error: 'unsupported_media_type', status: 415 } } });
    const plain = await post('/api/mcp/rpc', JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }), { 'content-encoding': 'identity' });
    expect(plain.statusCode).toBe(200);
    expect(plain.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    expect((await ok(t, ws.token, 'issues.list', { query: 'compressed' })).items).toEqual([]);
  });

  it('two bearer tokens in one Authorization header: 401 invalid saying the header is malformed', async () => {
    const r = await post('/api/mcp/workspace.get', '{}', { authorization: `Bearer ${ws.token}, Bearer ${ws.token}` });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual({ error: 'invalid', message: expect.stringMatching(/^Malformed Authorization header/) });
    expect(r.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="Malformed Authorization header/);
    // No header at all is still a missing token.
    const none = await t.app.inject({ method: 'POST', url: '/api/mcp/workspace.get', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(none.json()).toEqual({ error: 'invalid', message: 'Missing bearer token' });
  });
});
