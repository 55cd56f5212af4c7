/** The official MCP TypeScript SDK client, over real HTTP, against /api/mcp/rpc and /api/mcp. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let base: string;
let ws: Workspace;

async function connect(token: string, path = '/api/mcp/rpc') {
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(base + path), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  t = await startTestApp();
  base = await t.listen();
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

describe('official MCP SDK client', () => {
  it('initializes, lists tools and calls them', async () => {
    const client = await connect(ws.token);
    const info = client.getServerVersion();
    expect(info).toMatchObject({ name: 'svc', version: expect.any(String) });
    expect(client.getServerCapabilities()).toHaveProperty('tools');

    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toContain('issues.create');
    expect(names).toContain('catalog.search');
    expect(names).not.toContain('statuses.list'); // not in the default runtime profile

    const created = await client.callTool({ name: 'issues.create', arguments: { title: 'From the SDK', priority: 'URGENT' } });
    expect(created.isError).toBeFalsy();
    const issue = created.structuredContent as { id: string; key: string; priority: string };
    expect(issue.priority).toBe('URGENT');
    expect(JSON.parse((created.content as Array<{ text: string }>)[0]!.text)).toEqual(issue);

    const got = await client.callTool({ name: 'issues.get', arguments: { id: issue.key } });
    expect((got.structuredContent as { id: string }).id).toBe(issue.id);
    await client.close();
  });

  it("gives the model instructions that name only real tools, and an agent key's start of work", async () => {
    const toolNames = new Set(TOOLS.map((x) => x.name));
    const named = (text: string) => [...text.matchAll(/\b([a-z]+(?:\.[a-z]+[A-Za-z]*)+)\b/g)].map((m) => m[1]!).filter((n) => !n.includes('/'));
    const person = await connect(ws.token);
    const forPerson = person.getInstructions() ?? '';
    expect(forPerson).toContain('catalog.search');
    expect(forPerson).toContain('workspace.get');
    for (const name of named(forPerson)) expect([name, toolNames.has(name)]).toEqual([name, true]);
    await person.close();
    await createAgent(t, ws, 'instructed');
    const asAgent = await connect((await createKey(t, ws, { agent: 'instructed' })).token);
    const forAgent = asAgent.getInstructions() ?? '';
    expect(forAgent).toContain('issues.assigned');
    expect(forAgent).toContain('protocolInstruction');
    for (const name of named(forAgent)) expect([name, toolNames.has(name)]).toEqual([name, true]);
    await asAgent.close();
  });

  it('also works on /api/mcp', async () => {
    const client = await connect(ws.token, '/api/mcp');
    const r = await client.callTool({ name: 'workspace.get', arguments: {} });
    expect((r.structuredContent as { key: string }).key).toBe(ws.key);
    await client.close();
  });

  it('returns tool failures as isError results with the error body (also after listTools fetched output schemas)', async () => {
    const client = await connect(ws.token, '/api/mcp/rpc?profile=full');
    await client.listTools(); // the SDK now validates results of tools with an outputSchema
    const errorBody = (r: unknown) => JSON.parse(((r as { content: Array<{ text: string }> }).content)[0]!.text);
    const bad = await client.callTool({ name: 'issues.create', arguments: { title: '' } });
    expect(bad.isError).toBe(true);
    expect(errorBody(bad)).toMatchObject({ error: 'invalid_input', status: 400, issues: { title: expect.any(String) } });
    const missing = await client.callTool({ name: 'issues.get', arguments: { id: crypto.randomUUID() } });
    expect(missing.isError).toBe(true);
    expect(errorBody(missing)).toMatchObject({ error: 'not_found', status: 404 });
    await client.close();
  });

  it('validates successful results against the full output schemas (profile=full) and lists light ones by default', async () => {
    const client = await connect(ws.token, '/api/mcp/rpc?profile=full');
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      listed.push(...page.tools.filter((x) => x.outputSchema).map((x) => x.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toContain('issues.get');
    // The SDK checks structuredContent against each outputSchema: nullable fields, loose objects, arrays as {items}.
    const created = await client.callTool({ name: 'issues.create', arguments: { title: 'Checked against the schema' } });
    expect(created.isError).toBeFalsy();
    const key = (created.structuredContent as { key: string }).key;
    for (const [name, args] of [['issues.get', { id: key }], ['issues.list', {}], ['statuses.list', {}], ['comments.list', { issueId: key }], ['workspace.get', {}]] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, name).toBeFalsy();
    }
    await client.close();

    const light = await connect(ws.token);
    const { tools } = await light.listTools();
    expect(tools.every((x) => !x.outputSchema)).toBe(true);
    expect(tools.find((x) => x.name === 'issues.get')!.annotations).toMatchObject({ readOnlyHint: true });
    await light.close();
  });

  it("validates issues.get with every include and the context bundle (the SDK checks only the last page listed's tools)", async () => {
    // SDK 1.x keeps the output validators of the last tools/list page only: each tool is checked right after the page
    // that lists it (issues.get's include.relations failed its own schema: number and status were not in it).
    const a = await ok(t, ws.token, 'issues.create', { title: 'Linked from', description: 'with **markdown**' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'Linked to' });
    await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKS' });
    await ok(t, ws.token, 'comments.create', { issueId: a.id, body: 'a comment' });
    const client = await connect(ws.token, '/api/mcp/rpc?profile=full');
    const checked: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const name of ['issues.get', 'agent.context.bundle', 'relations.listForIssue'] as const) {
        const tool = page.tools.find((x) => x.name === name);
        if (!tool) continue;
        expect(tool.outputSchema, name).toBeDefined();
        const args = name === 'issues.get'
          ? { id: a.key, include: { description: true, labels: true, comments: true, attachments: true, relations: true, currentRun: true } }
          : { issueId: a.key };
        const r = await client.callTool({ name, arguments: args });
        expect(r.isError, name).toBeFalsy();
        checked.push(name);
      }
      cursor = page.nextCursor;
    } while (cursor);
    expect(checked.sort()).toEqual(['agent.context.bundle', 'issues.get', 'relations.listForIssue']);
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const client = await connect(ws.token);
    await expect(client.callTool({ name: 'issues.teleport', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('array outputs arrive as structuredContent {items}', async () => {
    const client = await connect(ws.token);
    const r = await client.callTool({ name: 'statuses.list', arguments: {} });
    const items = (r.structuredContent as { items: Array<{ name: string }> }).items;
    expect(items.map((s) => s.name)).toEqual(['Backlog', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled']);
    await client.close();
  });

  it('pages tools/list and honours profile and tools selectors; a narrow key sees only what it can call', async () => {
    const client = await connect(ws.token, '/api/mcp/rpc?profile=full');
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      all.push(...page.tools.map((x) => x.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toContain('statuses.list');
    expect(all).toContain('events.recent');
    expect(new Set(all).size).toBe(all.length);
    await client.close();

    const onlyStatuses = await connect(ws.token, '/api/mcp/rpc?tools=statuses&profile=runtime');
    expect((await onlyStatuses.listTools()).tools.map((x) => x.name).sort()).toEqual(
      ['catalog.call', 'catalog.describe', 'catalog.search', 'statuses.create', 'statuses.delete', 'statuses.get', 'statuses.list',
        'statuses.reorder', 'statuses.update']);
    await onlyStatuses.close();

    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const readOnly = await connect(reader.token, '/api/mcp/rpc?profile=full');
    const names = (await readOnly.listTools()).tools.map((x) => x.name);
    expect(names).toContain('issues.get');
    expect(names).not.toContain('issues.create');
    expect(names.filter((n) => n.startsWith('statuses.')).sort()).toEqual(['statuses.get', 'statuses.list']);
    // tools/call is not restricted by the list, only by scopes
    const denied = await readOnly.callTool({ name: 'issues.create', arguments: { title: 'x' } });
    expect(JSON.parse((denied.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES', status: 403 });
    await readOnly.close();
  });

  it('negotiates the protocol version', async () => {
    const init = async (protocolVersion: string) => {
      const res = await fetch(`${base}/api/mcp/rpc`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
      });
      const { result } = await res.json();
      // The SDK's Implementation type keeps only name/version; the raw answer carries the build identity.
      expect(result.serverInfo).toMatchObject({ name: 'svc', version: expect.any(String), gitSha: expect.any(String), buildTime: expect.any(String) });
      return result.protocolVersion;
    };
    expect(await init('2025-03-26')).toBe('2025-03-26');
    expect(await init('1999-01-01')).toBe(LATEST_PROTOCOL_VERSION);
  });
});
