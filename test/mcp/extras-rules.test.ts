/**
 * Resources, prompts and completion as an outside probe found them (/tmp/wt-mcp-report.md items 4, 5, 8, 10):
 * resources/list pages, lists only what the key can read, every fault carries the error body's shape, prompt
 * arguments are checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createWorkspace, ok, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let issue: { id: string; key: string };
beforeAll(async () => {
  ({ t, ws } = await startWithWorkspaces());
  issue = await ok(t, ws.token, 'issues.create', { title: 'Rules apply' });
});
afterAll(() => t.close());

const uris = (r: { resources: Array<{ uri: string }> }) => r.resources.map((x) => x.uri);

describe('resources/list', () => {
  it('pages past 50 open issues with an opaque nextCursor, and refuses a cursor not its own', async () => {
    const w = await createWorkspace(t);
    const project = await ok(t, w.token, 'projects.create', { name: 'Paged' });
    const cycle = await ok(t, w.token, 'cycles.create', { name: 'Paged sprint' });
    const created = (await ok(t, w.token, 'issues.createMany', { items: Array.from({ length: 59 }, (_, n) => ({ title: `Open ${n}` })) })).items as Array<{ key: string }>;
    const done = await ok(t, w.token, 'issues.create', { title: 'Done already' });
    const doneStatus = (await ok(t, w.token, 'statuses.list', {}) as Array<{ id: string; category: string }>).find((s) => s.category === 'DONE')!;
    await ok(t, w.token, 'issues.update', { id: done.id, statusId: doneStatus.id });

    const first = (await rpc(t, w.token, 'resources/list')).body.result;
    expect(uris(first).slice(0, 3)).toEqual(['workspace://current', `project://${project.id}`, `cycle://${cycle.id}`]);
    expect(uris(first).filter((u) => u.startsWith('issue://'))).toHaveLength(50);
    expect(first.nextCursor).toMatch(/^[\w-]+$/);
    const second = (await rpc(t, w.token, 'resources/list', { cursor: first.nextCursor })).body.result;
    expect(second.nextCursor).toBeUndefined();
    expect(uris(second).every((u) => u.startsWith('issue://'))).toBe(true);
    const issues = [...uris(first), ...uris(second)].filter((u) => u.startsWith('issue://'));
    expect(new Set(issues).size).toBe(59);
    expect(new Set(issues)).toEqual(new Set(created.map((i) => `issue://${i.key}`)));
    // A small workspace has one page; cursor null is the first page.
    const one = (await rpc(t, ws.token, 'resources/list', { cursor: null })).body.result;
    expect(uris(one)).toContain(`issue://${issue.key}`);
    expect(one.nextCursor).toBeUndefined();

    const wrapped = (inner: unknown, r = 'issues') => Buffer.from(JSON.stringify({ r, c: inner })).toString('base64url');
    for (const cursor of ['garbage', '', 5, wrapped('not-a-cursor'), wrapped(first.nextCursor, 'labels'), Buffer.from('issues:1').toString('base64url')]) {
      const refused = (await rpc(t, w.token, 'resources/list', { cursor })).body;
      expect([cursor, refused.error?.code]).toEqual([cursor, -32602]);
      expect(refused.error.data).toMatchObject({ error: 'invalid_input', status: 400, issues: { cursor: expect.any(String) } });
    }
  });

  it('lists workspace://current only to a key that may read it', async () => {
    const projectsOnly = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    const listed = uris((await rpc(t, projectsOnly.token, 'resources/list')).body.result);
    expect(listed).not.toContain('workspace://current');
    expect(listed).not.toContain(`issue://${issue.key}`);
    expect((await rpc(t, projectsOnly.token, 'resources/read', { uri: 'workspace://current' })).body.error.code).toBe(-32602);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect(uris((await rpc(t, reader.token, 'resources/list')).body.result)).toContain('workspace://current');
  });
});

describe('faults of resources, prompts and completion carry {error, status, issues?}', () => {
  const fault = async (method: string, params: unknown, token = ws.token) => {
    const r = await rpc(t, token, method, params);
    expect([method, r.status]).toEqual([method, 200]);
    return r.body.error as { code: number; message: string; data: { error: string; status: number; issues?: Record<string, string>; scope?: string } };
  };

  it('prompts/get: a missing argument, an unknown prompt, an unknown agent profile', async () => {
    expect(await fault('prompts/get', { name: 'triage-issue', arguments: {} })).toMatchObject({
      code: -32602, data: { error: 'invalid_input', status: 400, issues: { 'arguments.key': expect.any(String) } } });
    expect(await fault('prompts/get', { name: 'triage-issue' })).toMatchObject({
      code: -32602, data: { error: 'invalid_input', status: 400, issues: { 'arguments.key': expect.any(String) } } });
    expect(await fault('prompts/get', { name: 'nope' })).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { name: expect.any(String) } } });
    expect(await fault('prompts/get', {})).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { name: expect.any(String) } } });
    expect(await fault('prompts/get', { name: 'hand-off-issue', arguments: { key: issue.key, profile: 'nobody' } })).toMatchObject({
      code: -32602, data: { error: 'invalid_input', status: 400, issues: { 'arguments.profile': expect.any(String) } } });
    // The refusal names the prompt's own argument, not the tool's `id` the client never sent.
    expect(await fault('prompts/get', { name: 'triage-issue', arguments: { key: 'NOPE-999' } })).toMatchObject({
      code: -32002, data: { error: 'not_found', status: 404, field: 'arguments.key' } });
  });

  it('resources: unknown URI, bad %-escape, missing uri, subscribe without a session', async () => {
    expect(await fault('resources/read', { uri: 'nope://x' })).toMatchObject({ code: -32002, data: { error: 'not_found', status: 404 } });
    expect(await fault('resources/read', { uri: 'issue://NOPE-999' })).toMatchObject({ code: -32002, data: { error: 'not_found', status: 404, field: 'uri' } });
    expect(await fault('resources/read', { uri: 'issue://%' })).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { uri: expect.any(String) } } });
    expect(await fault('resources/read', {})).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { uri: expect.any(String) } } });
    expect(await fault('resources/subscribe', { uri: `issue://${issue.key}` })).toMatchObject({ code: -32602, data: { error: 'session_required', status: 400 } });
    expect(await fault('resources/templates/list', { cursor: 'x' })).toMatchObject({ code: -32602, data: { issues: { cursor: expect.any(String) } } });
  });

  it('scope refusals are -32602 with data {error, status: 403, scope}', async () => {
    const none = await createKey(t, ws, { scopes: ['READ_PROJECTS'] });
    const scoped = { code: -32602, data: { error: 'scope_required', status: 403, scope: 'READ_ISSUES' } };
    expect(await fault('resources/read', { uri: `issue://${issue.key}` }, none.token)).toMatchObject(scoped);
    expect(await fault('prompts/get', { name: 'triage-issue', arguments: { key: issue.key } }, none.token)).toMatchObject(scoped);
    expect(await fault('completion/complete', { ref: { type: 'ref/prompt', name: 'triage-issue' }, argument: { name: 'key', value: '' } }, none.token))
      .toMatchObject(scoped);
  });

  it('completion/complete needs a valid ref and argument.name', async () => {
    const refused = async (params: unknown, ...fields: string[]) => {
      const e = await fault('completion/complete', params);
      expect([params, e.code, e.data.error, e.data.status]).toEqual([params, -32602, 'invalid_input', 400]);
      expect(Object.keys(e.data.issues!).sort()).toEqual(fields.sort());
    };
    await refused({}, 'ref', 'argument');
    await refused({ ref: { type: 'ref/prompt', name: 'triage-issue' } }, 'argument');
    await refused({ ref: { type: 'ref/prompt', name: 'triage-issue' }, argument: { value: 'E' } }, 'argument.name');
    await refused({ ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'key', value: '' } }, 'ref.type');
    await refused({ ref: { type: 'ref/prompt' }, argument: { name: 'key', value: '' } }, 'ref.name');
    await refused({ ref: { type: 'ref/resource' }, argument: { name: 'key', value: 5 } }, 'ref.uri', 'argument.value');
    // A valid ref of nothing this server completes: no values, as before.
    const none = (await rpc(t, ws.token, 'completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'key', value: '' } })).body.result;
    expect(none.completion.values).toEqual([]);
  });

  it('prompts/list has one page: a cursor other than null is -32602', async () => {
    expect(await fault('prompts/list', { cursor: 'garbage' })).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { cursor: expect.any(String) } } });
    expect(await fault('prompts/list', { cursor: '' })).toMatchObject({ code: -32602 });
    expect((await rpc(t, ws.token, 'prompts/list', { cursor: null })).body.result.prompts).toHaveLength(3);
    expect(await fault('logging/setLevel', { level: 'loud' })).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { level: expect.any(String) } } });
  });
});

describe('prompt arguments', () => {
  it('draft-standup sinceHours is digits only; the tool\'s range is named on the argument', async () => {
    for (const sinceHours of ['0x10', ' 12 ', '1e2', '12.0', '-1', '12345']) {
      const r = await rpc(t, ws.token, 'prompts/get', { name: 'draft-standup', arguments: { sinceHours } });
      expect([sinceHours, r.body.error?.code]).toEqual([sinceHours, -32602]);
      expect(r.body.error.data).toMatchObject({ error: 'invalid_input', status: 400, issues: { 'arguments.sinceHours': expect.any(String) } });
    }
    const tooFar = (await rpc(t, ws.token, 'prompts/get', { name: 'draft-standup', arguments: { sinceHours: '500' } })).body.error;
    expect(tooFar).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400, issues: { 'arguments.sinceHours': expect.stringContaining('168') } } });
    const twelve = (await rpc(t, ws.token, 'prompts/get', { name: 'draft-standup', arguments: { sinceHours: '12' } })).body.result;
    expect(twelve.description).toBe('Standup for the last 12 hours');
    expect((await rpc(t, ws.token, 'prompts/get', { name: 'draft-standup' })).body.result.description).toBe('Standup for the last 24 hours');
  });

  it('an argument the prompt does not declare, or one that is not a string, is -32602 naming it', async () => {
    const unknown = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, bogus: 'x', other: 'y' } })).body.error;
    expect(unknown).toMatchObject({ code: -32602, data: { error: 'invalid_input', status: 400 } });
    expect(Object.keys(unknown.data.issues).sort()).toEqual(['arguments.bogus', 'arguments.other']);
    expect(unknown.message).toContain('bogus');
    const notString = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: { key: issue.key, status: 5 } })).body.error;
    expect(notString).toMatchObject({ code: -32602, data: { issues: { 'arguments.status': 'must be a string' } } });
    const notObject = (await rpc(t, ws.token, 'prompts/get', { name: 'triage-issue', arguments: ['x'] })).body.error;
    expect(notObject).toMatchObject({ code: -32602, data: { issues: { arguments: expect.any(String) } } });
  });
});
