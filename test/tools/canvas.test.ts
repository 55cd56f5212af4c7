/** canvas.*: planning whiteboards of issue and text cards connected by edges (the `canvas` tools profile). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, createKey, createWorkspace, insertProject, ok, rest, rpc, startWithWorkspaces, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';
import { gqlOk } from '../support/graphql.ts';
import { openSse } from '../support/sse.ts';
import { canvasTools } from '../../src/tools/canvas.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces({ graphql: true })));
afterAll(() => t.close());

const uuid = () => crypto.randomUUID();

/** A canvas with an issue card, a text card and an edge between them. */
async function board(token = ws.token, name = 'Roadmap') {
  const canvas = await ok(t, token, 'canvas.create', { name });
  const issue = await ok(t, token, 'issues.create', { title: `On ${name}` });
  const a = await ok(t, token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: issue.key, x: 0, y: 0 });
  const b = await ok(t, token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'Milestone', x: 300, y: 0 });
  const edge = await ok(t, token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: b.id, label: 'leads to' });
  return { canvas, issue, a, b, edge };
}

describe('canvases', () => {
  it('create, get, update, list and delete, each with its event', async () => {
    const created = await ok(t, ws.token, 'canvas.create', { name: '  Q3 plan  ', description: 'What ships when' });
    expect(created).toMatchObject({ name: 'Q3 plan', description: 'What ships when', archived: false, archivedAt: null, nodeCount: 0, edgeCount: 0,
      createdByUserId: expect.any(String), createdByAgentId: null });
    expect(await ok(t, ws.token, 'canvas.get', { id: created.id })).toMatchObject({ id: created.id, nodes: [], edges: [] });

    const renamed = await ok(t, ws.token, 'canvas.update', { id: created.id, name: 'Q3', description: null });
    expect(renamed).toMatchObject({ name: 'Q3', description: null });
    await ok(t, ws.token, 'canvas.update', { id: created.id, name: 'Q3' }); // nothing changes: no event
    const archived = await ok(t, ws.token, 'canvas.update', { id: created.id, archived: true });
    expect(archived).toMatchObject({ archived: true, archivedAt: expect.any(String) });
    expect((await ok(t, ws.token, 'canvas.list', {})).items.map((c: any) => c.id)).not.toContain(created.id);
    expect((await ok(t, ws.token, 'canvas.list', { includeArchived: true })).items.map((c: any) => c.id)).toContain(created.id);
    // An archived canvas takes no card changes until it is unarchived.
    const frozen = await rest(t, ws.token, 'canvas.addNode', { canvasId: created.id, kind: 'text', text: 'x', x: 0, y: 0 });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error).toBe('canvas_archived');
    await ok(t, ws.token, 'canvas.update', { id: created.id, archived: false });
    await ok(t, ws.token, 'canvas.addNode', { canvasId: created.id, kind: 'text', text: 'x', x: 0, y: 0 });

    // ok: true as every other delete.
    expect(await ok(t, ws.token, 'canvas.delete', { id: created.id })).toEqual({ ok: true, id: created.id, deleted: true, removedNodes: 1, removedEdges: 0 });
    expect((await rest(t, ws.token, 'canvas.get', { id: created.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'canvas.delete', { id: created.id })).status).toBe(404);

    const events = await subjectEvents(t, ws.token, 'canvas', created.id);
    expect(events.map((e) => [e.kind, e.payload.change ?? null])).toEqual([
      ['CANVAS_CREATED', null], ['CANVAS_UPDATED', 'canvas_updated'], ['CANVAS_UPDATED', 'canvas_updated'],
      ['CANVAS_UPDATED', 'canvas_updated'], ['CANVAS_UPDATED', 'node_added'], ['CANVAS_DELETED', null],
    ]);
    expect(events[0]!.payload).toEqual({ canvasId: created.id, name: 'Q3 plan' });
    expect(events[1]!.payload).toMatchObject({ changes: ['name', 'description'], name: 'Q3', archived: false });
    expect(events[2]!.payload).toMatchObject({ changes: ['archived'], archived: true });
    // No counts: every key reads canvas events, and they would count cards a narrowed key cannot see.
    expect(events[5]!.payload).toEqual({ canvasId: created.id, name: 'Q3' });
  });

  it('canvas.list pages newest created first; a canvas edited while paging is neither skipped nor moved', async () => {
    const w = await createWorkspace(t); // its own: the shared workspace collects canvases from other tests
    const made = [];
    for (const name of ['one', 'two', 'three', 'four', 'five']) made.push(await ok(t, w.token, 'canvas.create', { name }));
    const all = await allPages(t, w.token, 'canvas.list', {}, 2);
    expect(all.map((c: any) => c.name)).toEqual(['five', 'four', 'three', 'two', 'one']);
    // Page by page, editing canvases between pages: one not yet listed and one already listed.
    const first = await ok(t, w.token, 'canvas.list', { limit: 2 });
    expect(first.items.map((c: any) => c.name)).toEqual(['five', 'four']);
    await ok(t, w.token, 'canvas.addNode', { canvasId: made[1].id, kind: 'text', text: 'bump', x: 1, y: 2 });
    await ok(t, w.token, 'canvas.update', { id: made[3].id, description: 'edited after its page' });
    const second = await ok(t, w.token, 'canvas.list', { limit: 2, cursor: first.nextCursor });
    const third = second.nextCursor ? await ok(t, w.token, 'canvas.list', { limit: 2, cursor: second.nextCursor }) : { items: [], nextCursor: null };
    expect([...second.items, ...third.items].map((c: any) => c.name)).toEqual(['three', 'two', 'one']);
    expect(second.items[1]).toMatchObject({ name: 'two', nodeCount: 1, edgeCount: 0 });
    expect(third.nextCursor).toBeNull();
    expect((await ok(t, w.token, 'canvas.list', { limit: 1 })).items[0].name).toBe('five');
    expect400(await rest(t, w.token, 'canvas.list', { cursor: 'garbage' }), 'cursor');
    // A forged cursor of the right prefix is the same clean 400.
    const forged = Buffer.from(`canvases:2026-02-30T00:00:00Z|${uuid()}`).toString('base64url');
    expect400(await rest(t, w.token, 'canvas.list', { cursor: forged }), 'cursor');
    expect400(await rest(t, w.token, 'canvas.list', { limit: 201 }), 'limit');
    expect400(await rest(t, w.token, 'canvas.list', { includeArchived: 'yes' }), 'includeArchived');
  });

  it('canvas.update keeps a concurrent change of another field (the row is locked before the patch is computed)', async () => {
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'Before', description: 'old' });
    const client = await t.pools.owner.connect();
    try {
      const holder = (await client.query('select pg_backend_pid() as pid')).rows[0].pid;
      await client.query('begin');
      await client.query('update app_public.canvases set name = $2 where id = $1', [canvas.id, 'Renamed meanwhile']);
      const pending = rest(t, ws.token, 'canvas.update', { id: canvas.id, description: 'new' });
      // Until the tool waits for the row held here (before the fix it read the row, then waited to write it).
      for (let i = 0; i < 250; i++) {
        const { rows } = await t.pools.owner.query(
          'select exists (select 1 from pg_locks l where not l.granted and $1 = any(pg_blocking_pids(l.pid))) as waiting', [holder]);
        if (rows[0].waiting) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await client.query('commit');
      const answer = await pending;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ name: 'Renamed meanwhile', description: 'new' });
    } finally {
      client.release();
    }
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ name: 'Renamed meanwhile', description: 'new' });
    const events = await subjectEvents(t, ws.token, 'canvas', canvas.id);
    expect(events.at(-1)!.payload).toMatchObject({ change: 'canvas_updated', changes: ['description'], name: 'Renamed meanwhile' });
  });

  it('canvas.disconnect is not idempotent (a second call is 404)', () => {
    const annotations = canvasTools.find((x) => x.name === 'canvas.disconnect')!.annotations;
    expect(annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
  });

  it('bad input is a 400 naming the field', async () => {
    const { canvas, a } = await board();
    expect400(await rest(t, ws.token, 'canvas.create', { name: '   ' }), 'name');
    expect400(await rest(t, ws.token, 'canvas.create', { name: 'x'.repeat(201) }), 'name');
    expect400(await rest(t, ws.token, 'canvas.create', { name: 'ok', extra: 1 }), 'extra');
    expect400(await rest(t, ws.token, 'canvas.get', { id: 'nope' }), 'id');
    expect400(await rest(t, ws.token, 'canvas.update', { id: canvas.id, archived: 'no' }), 'archived');
    expect400(await rest(t, ws.token, 'canvas.delete', {}), 'id');
    const node = { canvasId: canvas.id, kind: 'text', text: 'card', x: 0, y: 0 };
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, canvasId: 'x' }), 'canvasId');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, kind: 'sticker' }), 'kind');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, text: undefined }), 'text');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, text: '   ' }), 'text');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, issueId: 'ENG-1' }), 'issueId');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, kind: 'issue', text: undefined }), 'issueId');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, x: 1_000_001 }), 'x');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, y: -1e308 }), 'y');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, y: '12' }), 'y');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, width: 0 }), 'width');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, height: 10_001 }), 'height');
    expect400(await rest(t, ws.token, 'canvas.addNode', { ...node, color: 'red' }), 'color');
    expect400(await rest(t, ws.token, 'canvas.updateNode', { id: a.id, x: Number.MAX_SAFE_INTEGER }), 'x');
    expect400(await rest(t, ws.token, 'canvas.updateNode', { id: a.id, text: 'issue cards have no text' }), 'text');
    expect400(await rest(t, ws.token, 'canvas.updateNode', { id: a.id, color: '#12345' }), 'color');
    expect400(await rest(t, ws.token, 'canvas.removeNode', { id: 42 }), 'id');
    expect400(await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: a.id }), 'toNodeId');
    expect400(await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: 'b' }), 'toNodeId');
    expect400(await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: uuid(), label: 'x'.repeat(201) }), 'label');
    expect400(await rest(t, ws.token, 'canvas.disconnect', { id: '' }), 'id');
  });
});

describe('cards and edges', () => {
  it('addNode, updateNode, connect, disconnect, removeNode: the canvas reads back, each change writes CANVAS_UPDATED', async () => {
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'Cards' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Launch', priority: 'HIGH' });
    const byKey = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: issue.key.toLowerCase(), x: -10.5, y: 20, color: '#AABBCC' });
    expect(byKey).toMatchObject({
      canvasId: canvas.id, kind: 'issue', issueId: issue.id, text: null, x: -10.5, y: 20, width: 240, height: 120, color: '#aabbcc',
      issue: { id: issue.id, key: issue.key, title: 'Launch', priority: 'HIGH', status: { id: issue.statusId, category: expect.any(String) } },
    });
    const dup = await rest(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: issue.id, x: 0, y: 0 });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('issue_on_canvas');
    const note = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'Risks', x: 1e6, y: -1e6, width: 100, height: 50 });
    expect(note).toMatchObject({ kind: 'text', issueId: null, issue: null, text: 'Risks', width: 100, height: 50, color: null });

    const moved = await ok(t, ws.token, 'canvas.updateNode', { id: note.id, x: 5, text: 'Known risks', color: '#00ff00' });
    expect(moved).toMatchObject({ x: 5, y: -1e6, text: 'Known risks', color: '#00ff00' });
    expect(await ok(t, ws.token, 'canvas.updateNode', { id: note.id, color: null })).toMatchObject({ color: null });
    await ok(t, ws.token, 'canvas.updateNode', { id: note.id, x: 5 }); // unchanged: no event

    const edge = await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: byKey.id, toNodeId: note.id, label: 'risk' });
    expect(edge).toMatchObject({ canvasId: canvas.id, fromNodeId: byKey.id, toNodeId: note.id, label: 'risk' });
    const again = await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: byKey.id, toNodeId: note.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('edge_exists');
    const back = await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: note.id, toNodeId: byKey.id });
    expect(back.label).toBeNull();

    const got = await ok(t, ws.token, 'canvas.get', { id: canvas.id });
    expect(got).toMatchObject({ nodeCount: 2, edgeCount: 2 });
    expect(got.nodes.map((n: any) => n.id)).toEqual([byKey.id, note.id]);
    expect(got.edges.map((e: any) => e.id)).toEqual([edge.id, back.id]);

    expect(await ok(t, ws.token, 'canvas.disconnect', { id: back.id })).toEqual({ id: back.id, canvasId: canvas.id, removed: true });
    expect((await rest(t, ws.token, 'canvas.disconnect', { id: back.id })).status).toBe(404);
    expect(await ok(t, ws.token, 'canvas.removeNode', { id: note.id }))
      .toEqual({ id: note.id, canvasId: canvas.id, removed: true, removedEdgeIds: [edge.id] });
    expect((await rest(t, ws.token, 'canvas.updateNode', { id: note.id, x: 1 })).status).toBe(404);
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ nodeCount: 1, edgeCount: 0, edges: [] });
    // The issue stays.
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).id).toBe(issue.id);

    const events = (await subjectEvents(t, ws.token, 'canvas', canvas.id)).slice(1);
    expect(events.every((e) => e.kind === 'CANVAS_UPDATED')).toBe(true);
    expect(events.map((e) => e.payload)).toEqual([
      { canvasId: canvas.id, change: 'node_added', nodeId: byKey.id, kind: 'issue', issueIds: [issue.id] },
      { canvasId: canvas.id, change: 'node_added', nodeId: note.id, kind: 'text', issueIds: [] },
      { canvasId: canvas.id, change: 'node_updated', nodeId: note.id, changes: ['x', 'text', 'color'], issueIds: [] },
      { canvasId: canvas.id, change: 'node_updated', nodeId: note.id, changes: ['color'], issueIds: [] },
      { canvasId: canvas.id, change: 'edge_added', edgeId: edge.id, fromNodeId: byKey.id, toNodeId: note.id, issueIds: [issue.id] },
      { canvasId: canvas.id, change: 'edge_added', edgeId: back.id, fromNodeId: note.id, toNodeId: byKey.id, issueIds: [issue.id] },
      { canvasId: canvas.id, change: 'edge_removed', edgeId: back.id, fromNodeId: note.id, toNodeId: byKey.id, issueIds: [issue.id] },
      // A text card's removal names the issues of the cards it was connected to.
      { canvasId: canvas.id, change: 'node_removed', nodeId: note.id, kind: 'text', removedEdgeIds: [edge.id], issueIds: [issue.id] },
    ]);
    // Over JSON-RPC too.
    const r = await rpc(t, ws.token, 'tools/call', { name: 'canvas.get', arguments: { id: canvas.id } });
    expect(r.body.result.structuredContent.nodes).toHaveLength(1);
  });

  it('edges join cards of one canvas; an issue deleted leaves its card and edges out', async () => {
    const one = await board(ws.token, 'One');
    const two = await board(ws.token, 'Two');
    const across = await rest(t, ws.token, 'canvas.connect', { canvasId: one.canvas.id, fromNodeId: one.a.id, toNodeId: two.b.id });
    expect(across.status).toBe(404);
    expect(Object.keys(across.body.issues ?? {})).toEqual([]);
    expect((await rest(t, ws.token, 'canvas.connect', { canvasId: two.canvas.id, fromNodeId: one.a.id, toNodeId: two.b.id })).status).toBe(404);

    await ok(t, ws.token, 'issues.delete', { id: one.issue.id });
    const got = await ok(t, ws.token, 'canvas.get', { id: one.canvas.id });
    expect(got).toMatchObject({ nodeCount: 1, edgeCount: 0, edges: [] });
    expect(got.nodes.map((n: any) => n.id)).toEqual([one.b.id]);
    expect((await rest(t, ws.token, 'canvas.updateNode', { id: one.a.id, x: 1 })).status).toBe(404);
    expect((await rest(t, ws.token, 'canvas.disconnect', { id: one.edge.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'canvas.addNode', { canvasId: two.canvas.id, kind: 'issue', issueId: one.issue.id, x: 0, y: 0 })).status).toBe(404);
  });

  it('the "card shown" rule is written once (canvas_shows_node), so canvas.get and the counts cannot drift apart', async () => {
    const { rows } = await t.pools.owner.query(
      `select p.proname from pg_proc p join pg_namespace ns on ns.oid = p.pronamespace
       where ns.nspname in ('app_hidden', 'app_tools') and p.proname like '%canvas%' and p.prosrc like '%deleted_at%'`);
    expect(rows.map((r) => r.proname)).toEqual(['canvas_shows_node']);
  });

  it('a canvas holds at most 500 nodes and 1,000 edges (409, counted whatever the key sees)', async () => {
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'Full' });
    await t.pools.owner.query(
      `insert into app_public.canvas_nodes (workspace_id, canvas_id, kind, text, x, y)
       select $1, $2, 'text', 'card ' || g, g, 0 from generate_series(1, 499) g`, [ws.id, canvas.id]);
    // The 500th card is one a narrowed key cannot see: it still counts for that key.
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Out of reach', projectId: await insertProject(t, ws, 'Hidden for limits') });
    await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: hidden.id, x: 1000, y: 0 });
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Visible for limits')] });
    expect((await ok(t, narrowed.token, 'canvas.get', { id: canvas.id })).nodeCount).toBe(499);
    for (const token of [ws.token, narrowed.token]) {
      const full = await rest(t, token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'one too many', x: 0, y: 0 });
      expect(full.status).toBe(409);
      expect(full.body).toMatchObject({ error: 'canvas_node_limit', message: expect.stringContaining('500') });
    }
    await t.pools.owner.query(
      `insert into app_public.canvas_edges (workspace_id, canvas_id, from_node_id, to_node_id)
       select $1, $2, a.id, b.id from (select id, row_number() over (order by x) r from app_public.canvas_nodes where canvas_id = $2) a
       join (select id, row_number() over (order by x) r from app_public.canvas_nodes where canvas_id = $2) b on b.r in (a.r + 1, a.r + 2, a.r + 3)
       limit 1000`, [ws.id, canvas.id]);
    const got = await ok(t, ws.token, 'canvas.get', { id: canvas.id });
    expect([got.nodeCount, got.edgeCount]).toEqual([500, 1000]);
    const [n1, n2] = [got.nodes[0].id, got.nodes[499].id];
    const edges = await rest(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: n1, toNodeId: n2 });
    expect(edges.status).toBe(409);
    expect(edges.body.error).toBe('canvas_edge_limit');
    expect((await ok(t, ws.token, 'canvas.delete', { id: canvas.id }))).toMatchObject({ removedNodes: 500, removedEdges: 1000 });
  });
});

describe('tenancy, scopes and narrowing', () => {
  it("another workspace's canvases, cards and edges are 404 to every tool, and never listed", async () => {
    const { canvas, issue, a, b, edge } = await board(ws.token, 'Private');
    const foreign = await ok(t, other.token, 'canvas.create', { name: 'Foreign' });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['canvas.get', { id: canvas.id }],
      ['canvas.update', { id: canvas.id, name: 'pwned' }],
      ['canvas.delete', { id: canvas.id }],
      ['canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'x', x: 0, y: 0 }],
      ['canvas.addNode', { canvasId: foreign.id, kind: 'issue', issueId: issue.id, x: 0, y: 0 }],
      ['canvas.updateNode', { id: a.id, x: 1 }],
      ['canvas.removeNode', { id: b.id }],
      ['canvas.connect', { canvasId: canvas.id, fromNodeId: a.id, toNodeId: b.id }],
      ['canvas.connect', { canvasId: foreign.id, fromNodeId: a.id, toNodeId: b.id }],
      ['canvas.disconnect', { id: edge.id }],
    ];
    for (const [tool, input] of calls) {
      const r = await rest(t, other.token, tool, input);
      expect(r.status, `${tool} ${JSON.stringify(input)} → ${JSON.stringify(r.body)}`).toBe(404);
    }
    expect((await ok(t, other.token, 'canvas.list', { includeArchived: true })).items.map((c: any) => c.id)).toEqual([foreign.id]);
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ name: 'Private', nodeCount: 2, edgeCount: 1 });
    expect((await subjectEvents(t, other.token, 'canvas', canvas.id))).toEqual([]);
  });

  it('reads need READ_ISSUES, writes WRITE_ISSUES (403 scope_required)', async () => {
    const { canvas, a, b, edge } = await board(ws.token, 'Scoped');
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const writer = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    expect((await ok(t, reader.token, 'canvas.get', { id: canvas.id })).id).toBe(canvas.id);
    expect((await ok(t, reader.token, 'canvas.list', {})).items.length).toBeGreaterThan(0);
    const writes: Array<[string, Record<string, unknown>]> = [
      ['canvas.create', { name: 'nope' }],
      ['canvas.update', { id: canvas.id, name: 'nope' }],
      ['canvas.delete', { id: canvas.id }],
      ['canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'x', x: 0, y: 0 }],
      ['canvas.updateNode', { id: a.id, x: 1 }],
      ['canvas.removeNode', { id: b.id }],
      ['canvas.connect', { canvasId: canvas.id, fromNodeId: b.id, toNodeId: a.id }],
      ['canvas.disconnect', { id: edge.id }],
    ];
    for (const [tool, input] of writes) {
      const r = await rest(t, reader.token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES' });
    }
    for (const [tool, input] of [['canvas.get', { id: canvas.id }], ['canvas.list', {}]] as const) {
      const r = await rest(t, writer.token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body).toMatchObject({ error: 'scope_required', scope: 'READ_ISSUES' });
    }
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ name: 'Scoped', nodeCount: 2, edgeCount: 1 });
  });

  it('a narrowed key sees the canvas without the cards of issues outside its narrowing, and cannot reach them', async () => {
    const inside = await insertProject(t, ws, 'Inside');
    const outside = await insertProject(t, ws, 'Outside');
    const key = await createKey(t, ws, { projects: [inside] });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Seen', projectId: inside });
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden', projectId: outside });
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'Mixed' });
    const s = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: seen.id, x: 0, y: 0 });
    const h = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: hidden.id, x: 0, y: 0 });
    const txt = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'text', text: 'note', x: 0, y: 0 });
    const sh = await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: s.id, toNodeId: h.id });
    const ht = await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: h.id, toNodeId: txt.id });
    const st = await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: s.id, toNodeId: txt.id });

    const got = await ok(t, key.token, 'canvas.get', { id: canvas.id });
    expect(got).toMatchObject({ nodeCount: 2, edgeCount: 1 });
    expect(got.nodes.map((n: any) => n.id)).toEqual([s.id, txt.id]);
    expect(got.edges.map((e: any) => e.id)).toEqual([st.id]);
    expect(JSON.stringify(got)).not.toContain(hidden.id);
    expect((await ok(t, key.token, 'canvas.list', {})).items.find((c: any) => c.id === canvas.id)).toMatchObject({ nodeCount: 2, edgeCount: 1 });
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ nodeCount: 3, edgeCount: 3 });

    // Hidden cards, their edges and their issues read as missing.
    expect((await rest(t, key.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: hidden.key, x: 0, y: 0 })).status).toBe(404);
    expect((await rest(t, key.token, 'canvas.updateNode', { id: h.id, x: 9 })).status).toBe(404);
    expect((await rest(t, key.token, 'canvas.removeNode', { id: h.id })).status).toBe(404);
    expect((await rest(t, key.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: txt.id, toNodeId: h.id })).status).toBe(404);
    expect((await rest(t, key.token, 'canvas.disconnect', { id: sh.id })).status).toBe(404);
    expect((await rest(t, key.token, 'canvas.disconnect', { id: ht.id })).status).toBe(404);
    // It may not delete what it cannot see.
    const del = await rest(t, key.token, 'canvas.delete', { id: canvas.id });
    expect(del.status).toBe(403);
    expect(del.body.error).toBe('narrowing');

    // What it sees it works on; a card it removes takes along edges to cards it cannot see, and names them all
    // (edge ids name no issue), in its answer and in the event.
    const mine = await ok(t, key.token, 'canvas.create', { name: 'Narrow board' });
    const card = await ok(t, key.token, 'canvas.addNode', { canvasId: mine.id, kind: 'issue', issueId: seen.key, x: 1, y: 1 });
    expect(card.issue.key).toBe(seen.key);
    await ok(t, key.token, 'canvas.updateNode', { id: s.id, y: 50 });
    const removedEdgeIds = [sh.id, st.id].sort();
    expect(await ok(t, key.token, 'canvas.removeNode', { id: s.id })).toEqual({ id: s.id, canvasId: canvas.id, removed: true, removedEdgeIds });
    expect(await ok(t, ws.token, 'canvas.get', { id: canvas.id })).toMatchObject({ nodeCount: 2, edgeCount: 1 });
    const events = await subjectEvents(t, ws.token, 'canvas', canvas.id);
    expect(events.find((e) => e.payload.change === 'node_removed')!.payload)
      .toEqual({ canvasId: canvas.id, change: 'node_removed', nodeId: s.id, kind: 'issue', removedEdgeIds, issueIds: [seen.id, hidden.id] });
    expect(events.find((e) => e.payload.nodeId === h.id)!.payload)
      .toEqual({ canvasId: canvas.id, change: 'node_added', nodeId: h.id, kind: 'issue', issueIds: [hidden.id] });

    // The narrowed key reads the canvas's events without the changes of hidden cards and of edges to them (names
    // of the issues, node and edge ids alike), by subject, in the workspace's stream and one by one.
    const hiddenIds = [hidden.id, h.id, sh.id, ht.id];
    const narrowedChanges = (await subjectEvents(t, key.token, 'canvas', canvas.id)).map((e) => [e.payload.change ?? e.kind, e.payload.nodeId ?? e.payload.edgeId ?? null]);
    // The removal of s is not shown either: its removedEdgeIds tell that s was connected to the hidden card.
    expect(narrowedChanges).toEqual([
      ['CANVAS_CREATED', null], ['node_added', s.id], ['node_added', txt.id], ['edge_added', st.id], ['node_updated', s.id],
    ]);
    const recent = (await ok(t, key.token, 'events.recent', { limit: 200 })).items.filter((e: any) => e.subjectId === canvas.id);
    expect(recent).toHaveLength(5);
    expect(JSON.stringify(recent)).not.toMatch(new RegExp(`${hidden.id}|${h.id}|${ht.id}|${sh.id}`));
    // A card event written before events named their cards' issues (migration 000072) is not shown to it either.
    const { rows: [legacy] } = await t.pools.owner.query(
      `select app_private.record_event($1, 'CANVAS_UPDATED', 'canvas', $2, $3) as id`,
      [ws.id, canvas.id, { canvasId: canvas.id, change: 'node_added', nodeId: txt.id, kind: 'text' }]);
    expect((await rest(t, key.token, 'events.get', { id: legacy.id })).status).toBe(404);
    for (const e of events.filter((x) => hiddenIds.includes(x.payload.nodeId) || hiddenIds.includes(x.payload.edgeId))) {
      expect((await rest(t, key.token, 'events.get', { id: e.id })).status).toBe(404);
      expect((await ok(t, ws.token, 'events.get', { id: e.id })).id).toBe(e.id);
    }
    expect(await ok(t, key.token, 'canvas.delete', { id: mine.id })).toEqual({ ok: true, id: mine.id, deleted: true, removedNodes: 1, removedEdges: 0 });

    // Deleted by a key that sees every card: the event carries no counts (the narrowed key reads it too).
    await ok(t, ws.token, 'canvas.delete', { id: canvas.id });
    const deleted = (await subjectEvents(t, key.token, 'canvas', canvas.id)).find((e) => e.kind === 'CANVAS_DELETED')!;
    expect(deleted.payload).toEqual({ canvasId: canvas.id, name: 'Mixed' });
  });

  it('over SSE, a narrowed key gets the changes of cards it sees and none of cards of issues it cannot see', async () => {
    const inside = await insertProject(t, ws, 'Streamed');
    const outside = await insertProject(t, ws, 'Not streamed');
    const key = await createKey(t, ws, { projects: [inside] });
    const seen = await ok(t, ws.token, 'issues.create', { title: 'Streamed card', projectId: inside });
    const hidden = await ok(t, ws.token, 'issues.create', { title: 'Secret card', projectId: outside });
    const canvas = await ok(t, ws.token, 'canvas.create', { name: 'Live' });
    const sse = await openSse(await t.listen(), key.token);
    try {
      await sse.waitForComment((c) => c === 'connected');
      const h = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: hidden.id, x: 0, y: 0 });
      const s = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: seen.id, x: 0, y: 0 });
      await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: s.id, toNodeId: h.id });
      await ok(t, ws.token, 'canvas.updateNode', { id: s.id, x: 5 });
      // Events arrive in order: once the last one is here, any earlier one the key may read has been sent.
      await sse.waitFor((m) => m.data.includes(s.id) && m.data.includes('node_updated'));
      const frames = sse.messages.filter((m) => m.data.includes(canvas.id)).map((m) => m.data);
      expect(frames.some((d) => d.includes('node_added') && d.includes(s.id))).toBe(true);
      expect(frames.join('\n')).not.toMatch(new RegExp(`${hidden.id}|${h.id}`));
    } finally {
      sse.close();
    }
  });

  it('GraphQL: the tables read as RLS lets the key see them', async () => {
    const { canvas, a, b, edge } = await board(ws.token, 'Over GraphQL');
    const q = `query($id: UUID!) { canvasBoard(rowId: $id) { name canvasNodesByCanvasId { totalCount nodes { rowId issue { rowId } } }
      canvasEdgesByCanvasId { nodes { rowId fromNode { rowId } toNode { rowId } } } } }`;
    const mineData = await gqlOk(t, ws.token, q, { id: canvas.id });
    expect(mineData.canvasBoard.canvasNodesByCanvasId.totalCount).toBe(2);
    expect(mineData.canvasBoard.canvasEdgesByCanvasId.nodes).toEqual([{ rowId: edge.id, fromNode: { rowId: a.id }, toNode: { rowId: b.id } }]);
    expect((await gqlOk(t, other.token, q, { id: canvas.id })).canvasBoard).toBeNull();
    for (const [field, id] of [['canvasBoard', canvas.id], ['canvasNode', a.id], ['canvasEdge', edge.id]]) {
      expect((await gqlOk(t, other.token, `query($id: UUID!) { x: ${field}(rowId: $id) { rowId } }`, { id })).x, field).toBeNull();
      // Nor by global node id.
      const nodeId = (await gqlOk(t, ws.token, `query($id: UUID!) { x: ${field}(rowId: $id) { id } }`, { id })).x.id;
      expect((await gqlOk(t, other.token, 'query($id: ID!) { node(id: $id) { id } }', { id: nodeId })).node, field).toBeNull();
      expect((await gqlOk(t, other.token, `query($id: ID!) { x: ${field}ById(id: $id) { id } }`, { id: nodeId })).x, field).toBeNull();
    }
    const listed = await gqlOk(t, other.token, '{ canvasBoards { totalCount } canvasNodes { totalCount } canvasEdges { totalCount } }');
    expect(listed).toEqual({ canvasBoards: { totalCount: 1 }, canvasNodes: { totalCount: 0 }, canvasEdges: { totalCount: 0 } });

    // A narrowed key: no card of a hidden issue, no edge to it.
    const outside = await insertProject(t, ws, 'Elsewhere');
    const hiddenIssue = await ok(t, ws.token, 'issues.create', { title: 'GraphQL hidden', projectId: outside });
    const h = await ok(t, ws.token, 'canvas.addNode', { canvasId: canvas.id, kind: 'issue', issueId: hiddenIssue.id, x: 0, y: 0 });
    await ok(t, ws.token, 'canvas.connect', { canvasId: canvas.id, fromNodeId: b.id, toNodeId: h.id });
    const narrowed = await createKey(t, ws, { projects: [await insertProject(t, ws, 'Only this')] });
    const seen = await gqlOk(t, narrowed.token, q, { id: canvas.id });
    expect(seen.canvasBoard.canvasNodesByCanvasId.nodes.map((n: any) => n.rowId)).toEqual([b.id]);
    expect(seen.canvasBoard.canvasEdgesByCanvasId.nodes).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(hiddenIssue.id);
  });
});
