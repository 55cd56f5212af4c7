/** What tools/list advertises: annotations on every tool, a light default list, provider-portable input schemas. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

type Listed = { name: string; description: string; inputSchema: Record<string, unknown>; outputSchema?: unknown; annotations?: Record<string, unknown> };
/** Every page of tools/list for this query string, and the bytes of the result objects as sent. */
async function list(query: string): Promise<{ tools: Listed[]; bytes: number }> {
  const tools: Listed[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const res = await t.app.inject({
      method: 'POST', url: `/api/mcp/rpc${query}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ws.token}` },
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
    const byName = new Map(tools.map((x) => [x.name, x.annotations!]));
    expect(byName.get('issues.get')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(byName.get('issues.delete')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get('issues.create')).toMatchObject({ title: 'Issues: create', readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('repohost.search')).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(byName.get('catalog.call')).toMatchObject({ destructiveHint: true, openWorldHint: true });
  });

  it('catalog.describe gives the same annotations', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'catalog.describe', arguments: { names: ['issues.delete'] } });
    expect(r.body.result.structuredContent.items[0].annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });
});
