/** Generated from the catalog: every tool's scope is enforced, every tool is described once for every surface. */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../../src/auth/keys.ts';
import { TOOLS } from '../../src/tools/catalog.ts';
import { createAgent, createKey, ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

describe('scope enforcement, for every declared tool', () => {
  for (const tool of TOOLS.filter((x) => x.scopes.length > 0)) {
    it(`${tool.name} needs ${tool.scopes.join(' + ')}`, async () => {
      for (const missing of tool.scopes) {
        const others = SCOPES.filter((s) => s !== missing) as Scope[];
        const key = await createKey(t, ws, { scopes: others });
        const r = await rest(t, key.token, tool.name, {});
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ error: 'scope_required', scope: missing });
        const m = await rpc(t, key.token, 'tools/call', { name: tool.name, arguments: {} });
        expect(m.body.result.isError).toBe(true);
        expect(m.body.result).not.toHaveProperty('structuredContent');
        expect(JSON.parse(m.body.result.content[0].text)).toMatchObject({ error: 'scope_required', scope: missing, status: 403 });
        const listed = await rpc(t, key.token, 'tools/list', {}, '?profile=full');
        expect(listed.body.result.tools.map((x: { name: string }) => x.name)).not.toContain(tool.name);
      }
    });
  }

  it('catalog.call enforces the target tool scope', async () => {
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const r = await rest(t, key.token, 'catalog.call', { name: 'issues.create', arguments: { title: 'x' } });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES' });
    const allowed = await rest(t, key.token, 'catalog.call', { name: 'issues.list', arguments: {} });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toHaveProperty('items');
    const self = await rest(t, key.token, 'catalog.call', { name: 'catalog.call', arguments: {} });
    expect([self.status, self.body.message, self.body.issues]).toEqual([400, 'catalog helpers cannot be called through catalog.call', { name: 'catalog helpers cannot be called through catalog.call' }]);
    expect((await rest(t, key.token, 'catalog.call', { name: 'issues.nope' })).status).toBe(404);
    // The target's refusals name its fields where they are in catalog.call's input: a project without a name is
    // arguments.name (it read as catalog.call's own name missing), an unknown field arguments.<it>, a 404 field likewise.
    const full = ws.token;
    const noName = await rest(t, full, 'catalog.call', { name: 'projects.create', arguments: {} });
    expect([noName.status, noName.body.issues]).toEqual([400, { 'arguments.name': 'required (string)' }]);
    const unknownField = await rest(t, full, 'catalog.call', { name: 'issues.list', arguments: { arguments: 1 } });
    expect(unknownField.body.issues).toEqual({ 'arguments.arguments': 'unknown field' });
    const missing = await rest(t, full, 'catalog.call', { name: 'issues.get', arguments: { id: crypto.randomUUID() } });
    expect([missing.status, missing.body.field]).toEqual([404, 'arguments.id']);
    // Its own refusals keep their names.
    expect((await rest(t, full, 'catalog.call', { arguments: {} })).body.issues).toEqual({ name: 'required (string)' });
  });
});

describe('catalog helpers and describe', () => {
  it('catalog.search finds authorized tools by words', async () => {
    const found = await ok(t, ws.token, 'catalog.search', { query: 'create issue' });
    expect(found[0].name).toBe('issues.create');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const limited = await ok(t, reader.token, 'catalog.search', { query: 'issue' });
    expect(limited.map((x: { name: string }) => x.name)).not.toContain('issues.create');
    expect((await rest(t, ws.token, 'catalog.search', {})).status).toBe(400);
  });

  it('catalog.describe returns input and output schemas from the zod declarations', async () => {
    const [d] = await ok(t, ws.token, 'catalog.describe', { names: ['issues.create'] });
    expect(d.inputSchema).toMatchObject({ type: 'object', required: ['title'] });
    expect(d.inputSchema.properties.priority.enum).toEqual(['NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT']);
    expect(d.outputSchema.type).toBe('object');
    // What the tool refuses, the schema says: a blank body (minLength and a non-blank pattern).
    for (const described of await ok(t, ws.token, 'catalog.describe', { names: ['comments.create', 'chat.appendMessage', 'chat.finalizeDraft'] })) {
      expect(described.inputSchema.properties.body).toMatchObject({ type: 'string', minLength: 1, maxLength: 100_000, pattern: '\\S' });
    }
    expect((await rest(t, ws.token, 'catalog.describe', { names: ['nope.nope'] })).status).toBe(404);
    // Any tool is described; callable says whether this key may call it.
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const described = await ok(t, reader.token, 'catalog.describe', { names: ['issues.list', 'issues.create', 'agents.heartbeat'] });
    expect(described.map((x: { name: string; callable: boolean }) => [x.name, x.callable])).toEqual([['issues.list', true], ['issues.create', false], ['agents.heartbeat', false]]);
    expect(d.callable).toBe(true);
  });

  it('GET /api/mcp/describe lists every tool with its REST path and the build identity', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/mcp/describe' });
    const body = res.json();
    expect(body.serverInfo).toMatchObject({ version: expect.any(String), gitSha: expect.any(String), buildTime: expect.any(String) });
    expect(body.tools.map((x: { name: string }) => x.name).sort()).toEqual(TOOLS.map((x) => x.name).sort());
    expect(body.tools.find((x: { name: string }) => x.name === 'issues.list').rest).toEqual({ method: 'POST', path: '/api/mcp/issues.list' });
    // An array output: MCP's structuredContent wraps it as {items}, the REST body is the bare array, and describe
    // says both (a REST client read the {items} schema and got an array).
    const statuses = body.tools.find((x: { name: string }) => x.name === 'statuses.list');
    expect(statuses.outputSchema).toMatchObject({ type: 'object', properties: { items: { type: 'array' } } });
    expect(statuses.rest.outputSchema).toMatchObject({ type: 'array' });
    const answer = await ok(t, ws.token, 'statuses.list', {});
    expect(Array.isArray(answer)).toBe(true);
    // A result that may be null has no MCP outputSchema; describe still gives its REST body's, as openapi.json does.
    for (const name of ['cycles.current', 'time.running']) {
      const tool = body.tools.find((x: { name: string }) => x.name === name);
      expect(tool.outputSchema, name).toBeUndefined();
      expect(tool.rest.outputSchema, name).toMatchObject({ anyOf: expect.arrayContaining([{ type: 'null' }]) });
    }
  });

  it('every tool input schema is an object schema; every name is namespace.tool', () => {
    for (const tool of TOOLS) {
      expect(tool.name).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z.]*$/);
      expect(tool.input.def.type).toBe('object');
    }
  });
});

describe('first tools', () => {
  it('workspace.get returns the settings with our defaults', async () => {
    const w = await ok(t, ws.token, 'workspace.get', {});
    expect(w).toMatchObject({
      id: ws.id, key: ws.key, cycleLengthDays: 14, cycleCooldownDays: 0, timeTrackingEnabled: true,
      attachmentQuotaMb: 1024, requiredAckSeconds: 0, autoDispatch: false, autoDispatchMode: 'ROUND_ROBIN',
    });
    expect(w).not.toHaveProperty('members');
    expect((await rest(t, ws.token, 'workspace.get', { extra: 1 })).status).toBe(400);
  });

  it('statuses.list orders by position and filters by category', async () => {
    const all = await ok(t, ws.token, 'statuses.list', {});
    expect(all.map((s: { position: number }) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(all.filter((s: { isDefault: boolean }) => s.isDefault).map((s: { name: string }) => s.name)).toEqual(['Todo']);
    const backlog = await ok(t, ws.token, 'statuses.list', { category: 'BACKLOG' });
    expect(backlog).toHaveLength(1);
    expect((await rest(t, ws.token, 'statuses.list', { category: 'NOPE' })).status).toBe(400);
  });

  it('agents.me returns the linked agent; other keys get 403', async () => {
    const agent = await createAgent(t, ws, 'coder', { provider: 'CLAUDE', capabilities: 'ts,sql' });
    const key = await createKey(t, ws, { agent: 'coder', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const me = await ok(t, key.token, 'agents.me', {});
    expect(me).toMatchObject({ id: agent.id, profileKey: 'coder', provider: 'CLAUDE', runtimeMode: 'PERSISTENT', capabilities: ['ts', 'sql'] });
    const personal = await rest(t, ws.token, 'agents.me', {});
    expect(personal.status).toBe(403);
    expect(personal.body.error).toBe('agent_key_required');
    await t.pools.owner.query('update app_public.agents set archived_at = now() where id = $1', [agent.id]);
    const archived = await rest(t, key.token, 'agents.me', {});
    expect(archived.status).toBe(403);
    expect(archived.body.error).toBe('agent_archived');
  });

  it('issues.create by an agent key records the agent as creator and actor', async () => {
    await createAgent(t, ws, 'writer');
    const key = await createKey(t, ws, { agent: 'writer', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const issue = await ok(t, key.token, 'issues.create', { title: 'by agent' });
    expect(issue.createdByAgentId).toBeTruthy();
    const events = await ok(t, key.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id });
    expect(events.items[0].actor).toMatchObject({ id: issue.createdByAgentId, name: 'writer' });
  });

  it('events.recent pages with before, filters kinds, caps limit at 200', async () => {
    for (let i = 0; i < 3; i++) await ok(t, ws.token, 'issues.create', { title: `e${i}` });
    const first = await ok(t, ws.token, 'events.recent', { limit: 2, kinds: ['ISSUE_CREATED'] });
    expect(first.items).toHaveLength(2);
    expect(first.items.every((e: { kind: string }) => e.kind === 'ISSUE_CREATED')).toBe(true);
    const second = await ok(t, ws.token, 'events.recent', { limit: 2, kinds: ['ISSUE_CREATED'], before: first.nextCursor });
    expect(second.items[0].id).not.toBe(first.items[1].id);
    expect(new Date(second.items[0].createdAt) <= new Date(first.items[1].createdAt)).toBe(true);
    // Unfiltered (its own query): the next page starts right after the last item of this one.
    const all = (await ok(t, ws.token, 'events.recent', { limit: 4 })).items.map((e: { id: string }) => e.id);
    const page1 = await ok(t, ws.token, 'events.recent', { limit: 2 });
    const page2 = await ok(t, ws.token, 'events.recent', { limit: 2, before: page1.nextCursor });
    expect([...page1.items, ...page2.items].map((e: { id: string }) => e.id)).toEqual(all);
    expect((await rest(t, ws.token, 'events.recent', { limit: 201 })).status).toBe(400);
    const def = await ok(t, ws.token, 'events.recent', {});
    expect(def.items.length).toBeLessThanOrEqual(50);
  });
});
