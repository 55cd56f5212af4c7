/** What tools/list advertises: annotations on every tool, a light default list, provider-portable input schemas. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, insertProject, ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { findTool, TOOLS } from '../../src/tools/catalog.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

type Listed = { name: string; description: string; inputSchema: Record<string, unknown>; outputSchema?: unknown; annotations?: Record<string, unknown> };
/** Every page of tools/list for this query string, and the bytes of the result objects as sent. */
async function list(query: string, token = ws.token): Promise<{ tools: Listed[]; bytes: number }> {
  const tools: Listed[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const res = await t.app.inject({
      method: 'POST', url: `/api/mcp/rpc${query}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }),
    });
    expect(res.statusCode).toBe(200);
    const result = res.json().result;
    tools.push(...result.tools);
    bytes += Buffer.byteLength(JSON.stringify(result));
    cursor = result.nextCursor;
  } while (cursor);
  return { tools, bytes };
}

describe('tool annotations', () => {
  it('every tool of the full profile carries all five MCP annotations', async () => {
    const { tools } = await list('?profile=full');
    expect(tools.length).toBeGreaterThan(100);
    for (const tool of tools) {
      const a = tool.annotations ?? {};
      expect(typeof a.title, tool.name).toBe('string');
      expect((a.title as string).length, tool.name).toBeGreaterThan(0);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect(typeof a[hint], `${tool.name} ${hint}`).toBe('boolean');
      }
      // A read-only tool is never destructive (MCP: destructiveHint is meaningful only when not read-only).
      if (a.readOnlyHint) expect(a.destructiveHint, tool.name).toBe(false);
    }
    // Tools that reach outside the service say so: the repository host, and a link's page fetched for its title.
    for (const name of ['attachments.attachLink', 'repohost.link', 'repohost.sync']) {
      expect(tools.find((x) => x.name === name)?.annotations?.openWorldHint, name).toBe(true);
    }
    const byName = new Map(tools.map((x) => [x.name, x.annotations!]));
    expect(byName.get('issues.get')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(byName.get('issues.delete')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get('issues.create')).toMatchObject({ title: 'Issues: create', readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('repohost.search')).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    // A retry of these adds again (spec-line probe: plans.addSteps said idempotent and a retry doubled the steps) …
    for (const name of ['plans.addSteps', 'canvas.addNode', 'issues.create']) expect(byName.get(name)?.idempotentHint, name).toBe(false);
    // … and of these changes nothing more (runs.recordUsage is an agent key's: from the catalog).
    for (const name of ['runs.recordUsage', 'agentCrews.unarchive', 'projects.unarchive', 'issues.addLabels']) {
      expect(findTool(name)?.annotations.idempotentHint, name).toBe(true);
    }
    expect(byName.get('catalog.call')).toMatchObject({ destructiveHint: true, openWorldHint: true });
  });

  it('catalog.describe gives the same annotations', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'catalog.describe', arguments: { names: ['issues.delete'] } });
    expect(r.body.result.structuredContent.items[0].annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });
});

// Budgets in bytes of the tools/list result (tokens ≈ bytes / 4). The default (runtime) profile is what every
// agent pays in context per session: at most 40 KB. The curated profiles are light too (no output schemas);
// profile=full carries every schema.
const KB = 1024;
// With 205 tools (2026-11-24) the curated profiles grew with their namespaces; full pages by 100 tools.
const BUDGETS: Record<string, number> = { runtime: 40 * KB, core: 80 * KB, planning: 105 * KB, agents: 105 * KB, canvas: 8 * KB, full: 560 * KB };

describe('tools/list size', () => {
  it('the default list is the runtime profile, light, within 40 KB for the agent keys it is for (they see the run and chat tools)', async () => {
    await createAgent(t, ws, 'list-size');
    const agentKey = (await createKey(t, ws, { agent: 'list-size' })).token;
    const [byDefault, runtime] = [await list('', agentKey), await list('?profile=runtime', agentKey)];
    expect(byDefault.bytes).toBe(runtime.bytes);
    expect(byDefault.bytes, `${byDefault.tools.length} tools`).toBeLessThanOrEqual(40 * KB);
    expect(byDefault.tools.some((x) => x.outputSchema)).toBe(false);
  });

  for (const [profile, budget] of Object.entries(BUDGETS)) {
    it(`profile ${profile} stays within ${budget / KB} KB (~${budget / 4 / 1000}k tokens)`, async () => {
      const { tools, bytes } = await list(`?profile=${profile}`);
      expect(tools.length).toBeGreaterThan(0);
      const tokens = Math.round(bytes / 4);
      expect(bytes, `${profile}: ${tools.length} tools, ${bytes} bytes, ~${tokens} tokens`).toBeLessThanOrEqual(budget);
      if (profile === 'full') expect(tools.filter((x) => x.outputSchema).length).toBeGreaterThan(100);
    });
  }

  it('nothing is lost: profile=full and catalog.describe carry the output schemas the light list omits', async () => {
    const light = (await list('')).tools.find((x) => x.name === 'issues.get')!;
    const full = (await list('?profile=full')).tools.find((x) => x.name === 'issues.get')!;
    expect(light.outputSchema).toBeUndefined();
    expect(full.outputSchema).toMatchObject({ type: 'object' });
    const described = await rpc(t, ws.token, 'tools/call', { name: 'catalog.describe', arguments: { names: ['issues.get'] } });
    expect(described.body.result.structuredContent.items[0].outputSchema).toEqual(full.outputSchema);
    expect(described.body.result.structuredContent.items[0].inputSchema).toEqual(full.inputSchema);
    // The light input schema has the same properties and requirements.
    expect(Object.keys(light.inputSchema.properties as object)).toEqual(Object.keys(full.inputSchema.properties as object));
    expect(light.inputSchema.required).toEqual(full.inputSchema.required);
  });
});

/** Every subschema of a JSON Schema (schema positions only: not `default`, `enum`, `const` values). */
function* subschemas(s: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) return;
  const o = s as Record<string, unknown>;
  yield [path, o];
  for (const k of ['properties', '$defs', 'definitions', 'patternProperties']) {
    if (o[k] && typeof o[k] === 'object') for (const [n, v] of Object.entries(o[k] as object)) yield* subschemas(v, `${path}.${n}`);
  }
  for (const k of ['items', 'additionalProperties', 'not', 'propertyNames', 'contains']) yield* subschemas(o[k], `${path}/${k}`);
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    if (Array.isArray(o[k])) for (const [i, v] of (o[k] as unknown[]).entries()) yield* subschemas(v, `${path}/${k}[${i}]`);
  }
}

describe('portable schemas', () => {
  it('no tool has a nullable type array or an empty {} schema in its input (or output) schema', async () => {
    const problems: string[] = [];
    for (const query of ['?profile=full', '']) {
      for (const tool of (await list(query)).tools) {
        for (const [kind, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]] as const) {
          for (const [path, sub] of subschemas(schema, `${tool.name} ${kind}`)) {
            if (Array.isArray(sub.type)) problems.push(`${path}: type ${JSON.stringify(sub.type)}`);
            if (Object.keys(sub).length === 0) problems.push(`${path}: {}`);
            // MCP Inspector --strict: additionalProperties / items must carry a validation keyword (or be absent).
            for (const k of ['additionalProperties', 'items'] as const) {
              const v = sub[k];
              if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).every((x) => ['description', 'title', 'default', 'examples'].includes(x))) {
                problems.push(`${path}.${k}: no validation keyword`);
              }
            }
          }
        }
        expect(tool.inputSchema.type, tool.name).toBe('object');
      }
    }
    expect(problems).toEqual([]);
  });
});

/** The names of every tool of the full profile tools/list offers this key (all pages). */
async function names(token: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await rpc(t, token, 'tools/list', cursor ? { cursor } : {}, '?profile=full');
    out.push(...r.body.result.tools.map((x: { name: string }) => x.name));
    cursor = r.body.result.nextCursor;
  } while (cursor);
  return out;
}

describe('tools/list cursors', () => {
  it('tools with only "!" entries leaves them out of the profile\'s list; tools naming something is the list', async () => {
    const names = async (query: string) => (await list(query)).tools.map((x) => x.name).sort();
    const byDefault = await names('');
    // It listed the three catalog helpers alone.
    expect(await names('?tools=!issues.delete')).toEqual(byDefault.filter((n) => n !== 'issues.delete'));
    const core = await names('?profile=core');
    expect(await names('?profile=core&tools=!issues.delete,!comments')).toEqual(core.filter((n) => n !== 'issues.delete' && !n.startsWith('comments.')));
    expect(await names('?profile=full&tools=!issues')).toEqual((await names('?profile=full')).filter((n) => !n.startsWith('issues.')));
    // Naming namespaces or tools: that is the list, the profile not read.
    expect(await names('?profile=canvas&tools=statuses')).toEqual(await names('?tools=statuses'));
  });

  it('a cursor pages its own listing only: on another profile it is -32602 Invalid cursor', async () => {
    const first = await rpc(t, ws.token, 'tools/list', {}, '?profile=core');
    const cursor = first.body.result.nextCursor;
    expect(typeof cursor).toBe('string');
    expect((await rpc(t, ws.token, 'tools/list', { cursor }, '?profile=core')).body.result.tools.length).toBeGreaterThan(0);
    for (const query of ['?profile=full', '']) {
      const other = await rpc(t, ws.token, 'tools/list', { cursor }, query);
      expect([query, other.body.error?.code, other.body.error?.message]).toEqual([query, -32602, expect.stringMatching(/^Invalid cursor/)]);
    }
    // A loop may start with cursor null: the first page.
    expect((await rpc(t, ws.token, 'tools/list', { cursor: null }, '?profile=core')).body.result.nextCursor).toBe(cursor);
    // An offset past the end of the listing is refused too.
    const past = Buffer.from(Buffer.from(cursor, 'base64url').toString().replace(/^tools:\d+/, 'tools:900000')).toString('base64url');
    expect((await rpc(t, ws.token, 'tools/list', { cursor: past }, '?profile=core')).body.error?.code).toBe(-32602);
  });
});

describe('tools a narrowed key could not call are not listed', () => {
  it('a project-narrowed key is not offered webhooks, workflow or settings changes, cycle scheduling or label changes', async () => {
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Listed narrowly')] });
    const refused = TOOLS.filter((x) => x.refusesNarrowedKeys && x.refusesNarrowedKeys !== 'initiative').map((x) => x.name);
    expect(refused).toContain('runtimes.reportInfo'); // a person's narrowed key: 403 narrowing with a runtimeId, 400 without
    expect(refused).toEqual(expect.arrayContaining(['webhooks.create', 'statuses.delete', 'workspace.updateSettings', 'cycles.delete', 'labels.merge', 'projects.create']));
    const full = await names(ws.token);
    const listed = await names(narrowed.token);
    for (const name of refused) {
      expect(full, name).toContain(name);
      expect(listed, name).not.toContain(name);
    }
    expect(listed).toEqual(expect.arrayContaining(['statuses.list', 'labels.create', 'cycles.list', 'issues.create', 'initiatives.create']));
    const found = await ok(t, narrowed.token, 'catalog.search', { query: 'webhook' });
    expect(JSON.stringify(found)).not.toContain('webhooks.create');

    // The flag follows the SQL: those calls are 403 narrowing for this key.
    const from = await ok(t, ws.token, 'labels.create', { name: 'listed-from' });
    const into = await ok(t, ws.token, 'labels.create', { name: 'listed-into' });
    const cycle = await ok(t, ws.token, 'cycles.create', { startsOn: '2099-01-01' });
    for (const [tool, args] of [
      ['webhooks.list', {}], ['workspace.updateSettings', {}], ['statuses.reorder', { ids: [crypto.randomUUID()] }],
      ['cycles.delete', { id: cycle.id }], ['labels.merge', { fromId: from.id, intoId: into.id }], ['labels.delete', { id: from.id }],
      ['projects.create', { name: 'Not for this key' }],
      ['runtimes.register', { name: 'Not for this key', kind: 'LOCAL_DAEMON', providersAvailable: ['CUSTOM'] }],
    ] as const) {
      const r = await rest(t, narrowed.token, tool, args);
      expect([r.status, r.body.error], tool).toEqual([403, 'narrowing']);
    }
    expect(listed).not.toContain('runtimes.register');
    expect(listed).not.toContain('runtimes.configure');
    const runtime = await ok(t, ws.token, 'runtimes.register', { name: 'Reported on', kind: 'LOCAL_DAEMON', providersAvailable: ['CUSTOM'] });
    expect((await rest(t, narrowed.token, 'runtimes.reportInfo', { runtimeId: runtime.id, info: { os: 'linux' } })).body.error).toBe('narrowing');
    expect((await rest(t, narrowed.token, 'runtimes.reportInfo', { info: { os: 'linux' } })).status).toBe(400);
    // A narrowed agent key reports on its own agent's runtime: offered.
    const agent = await createAgent(t, ws, 'listed-narrow-bot');
    const agentKey = await createKey(t, ws, { agent: agent.profileKey, projects: [await insertProject(t, ws, 'Agent narrowly')] });
    expect(await names(agentKey.token)).toContain('runtimes.reportInfo');
  });
});

describe("tools a plugin's key could not call are not listed", () => {
  it('no notification settings (a person\'s own) and no runs.cancel (the run\'s agent or a person); both refused if called', async () => {
    const pluginId = (await t.pools.owner.query(`insert into app_private.plugins (workspace_id, name, manifest, approved_at)
      values ($1, 'Lister', '{"scopes": ["READ_ISSUES", "READ_USERS", "WRITE_USERS", "WRITE_ISSUES"]}', now()) returning id`, [ws.id])).rows[0].id;
    const key = (await t.pools.owner.query(`select (app_private.issue_api_key($1, null, 'PERSONAL', null, $2::text[], '{}', '{}', '{}', null, null, $3)).raw_key as k`,
      [ws.id, ['READ_ISSUES', 'READ_USERS', 'WRITE_USERS', 'WRITE_ISSUES'], pluginId])).rows[0].k as string;
    const listed = await names(key);
    for (const name of ['notification.getPreferences', 'notification.setPreference', 'notification.resetPreference', 'runs.cancel']) {
      expect(listed, name).not.toContain(name);
    }
    expect(listed).toContain('issues.list');
    expect((await rest(t, key, 'notification.getPreferences', {})).status).toBe(403);
    expect((await rest(t, key, 'runs.cancel', { runId: crypto.randomUUID() })).status).toBeGreaterThanOrEqual(403);
  });
});

describe('tools a key of a member, or of an initiative-narrowed key, could not call are not listed', () => {
  it('an initiative-narrowed key is not offered initiatives.create (403 narrowing), and is offered projects.create', async () => {
    const initiative = await ok(t, ws.token, 'initiatives.create', { name: 'Listed initiative' });
    const narrowed = await createKey(t, ws, { initiatives: [initiative.id] });
    const listed = await names(narrowed.token);
    expect(listed).not.toContain('initiatives.create');
    expect(listed).toContain('projects.create');
    const r = await rest(t, narrowed.token, 'initiatives.create', { name: 'Not for this key' });
    expect([r.status, r.body.error]).toEqual([403, 'narrowing']);
  });

  it("a MEMBER's key, every scope held, is not offered settings, workflow or webhook tools (403 admin_required); its OWNER's is", async () => {
    await admin(t, 'add-member', { workspace: ws.key, email: 'listed-member@example.com', role: 'MEMBER', json: true });
    const member = await createKey(t, ws, { user: 'listed-member@example.com' });
    const adminOnly = TOOLS.filter((x) => x.requiresWorkspaceAdmin).map((x) => x.name);
    expect(adminOnly).toEqual(expect.arrayContaining(['workspace.updateSettings', 'statuses.create', 'webhooks.create', 'webhooks.list']));
    const owner = await names(ws.token);
    const listed = await names(member.token);
    for (const name of adminOnly) {
      expect(owner, name).toContain(name);
      expect(listed, name).not.toContain(name);
    }
    expect(listed).toEqual(expect.arrayContaining(['statuses.list', 'workspace.get', 'issues.create']));
    for (const [tool, args] of [['workspace.updateSettings', { name: 'x' }], ['statuses.create', { name: 'Nope', category: 'TODO' }], ['webhooks.list', {}]] as const) {
      const r = await rest(t, member.token, tool, args);
      expect([r.status, r.body.error], tool).toEqual([403, 'admin_required']);
    }
  });
});

describe('tools a person\'s key could not call are not listed', () => {
  it('a key without an agent is not offered heartbeats, the chat tools or a run\'s own reports; an agent key is', async () => {
    const agentOnly = TOOLS.filter((x) => x.requiresAgentKey).map((x) => x.name);
    expect(agentOnly).toEqual(expect.arrayContaining(['agents.heartbeat', 'chat.getThread', 'runs.complete', 'comments.upsertStatus']));
    await createAgent(t, ws, 'listed-agent');
    const agentKey = await createKey(t, ws, { agent: 'listed-agent' });
    const person = await names(ws.token);
    const agent = await names(agentKey.token);
    for (const name of agentOnly) {
      expect(person, name).not.toContain(name);
      expect(agent, name).toContain(name);
    }
    // The flag follows the SQL: the person's key is refused by every one of them.
    for (const name of agentOnly) {
      const r = await rest(t, ws.token, name, {});
      expect(r.status, name).not.toBe(200);
    }
    expect((await rest(t, ws.token, 'agents.heartbeat', {})).body.error).toBe('agent_key_required');

    // An archived agent's key is refused everywhere (403 agent_archived), its tool list too (test/graphql/keys.test.ts);
    // restored, it is offered them again.
    await admin(t, 'archive-agent', { workspace: ws.key, agent: 'listed-agent', json: true });
    expect((await rest(t, agentKey.token, 'agents.heartbeat', {})).body.error).toBe('agent_archived');
    await admin(t, 'unarchive-agent', { workspace: ws.key, agent: 'listed-agent', json: true });
    expect(await names(agentKey.token)).toEqual(expect.arrayContaining(agentOnly));
  });
});


describe('tools an agent key could not call without a further scope are not listed to it', () => {
  it('reviewGates.resolve: listed to a person and to an agent key with ADMIN, not to an agent key without it, which it refuses', async () => {
    expect(TOOLS.filter((x) => x.agentKeyNeedsScope).map((x) => x.name)).toEqual(['reviewGates.resolve']);
    await createAgent(t, ws, 'gate-agent');
    const plain = await createKey(t, ws, { agent: 'gate-agent', scopes: ['READ_ISSUES', 'WRITE_ISSUES'] });
    const admin = await createKey(t, ws, { agent: 'gate-agent', scopes: ['READ_ISSUES', 'WRITE_ISSUES', 'ADMIN'] });
    expect(await names(ws.token)).toContain('reviewGates.resolve');
    expect(await names(admin.token)).toContain('reviewGates.resolve');
    expect(await names(plain.token)).not.toContain('reviewGates.resolve');
    const found = await ok(t, plain.token, 'catalog.search', { query: 'review gate' });
    expect(JSON.stringify(found)).not.toContain('reviewGates.resolve');
    // The flag follows the SQL: that key is refused before the gate is even looked up.
    const r = await rest(t, plain.token, 'reviewGates.resolve', { id: crypto.randomUUID(), decision: 'APPROVE' });
    expect([r.status, r.body.error]).toEqual([403, 'person_required']);
  });
});
