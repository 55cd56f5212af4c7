/**
 * Issue 9 item 8 (docs/decisions.md): a narrowed key that can see a sub-issue but not its parent gets
 * parentId null (tools) and parent null (GraphQL, where the raw parentId column is not exposed); keys that
 * can see the parent get its id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlOk } from '../support/graphql.ts';
import { createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let parent: { id: string; key: string };
let child: { id: string; key: string };
let narrowed: string;
let both: string;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  const visible = await ok(t, ws.token, 'projects.create', { name: 'Visible' });
  const hidden = await ok(t, ws.token, 'projects.create', { name: 'Hidden' });
  parent = await ok(t, ws.token, 'issues.create', { title: 'Secret parent', projectId: hidden.id });
  child = await ok(t, ws.token, 'issues.create', { title: 'Visible child', projectId: visible.id, parentId: parent.id });
  narrowed = (await createKey(t, ws, { projects: [visible.id] })).token;
  both = (await createKey(t, ws, { projects: [visible.id, hidden.id] })).token;
});
afterAll(() => t.close());

describe('parentId of a parent the key cannot see', () => {
  it('is null for the narrowed key in issues.get, issues.list and issues.update answers', async () => {
    expect((await ok(t, narrowed, 'issues.get', { id: child.key })).parentId).toBeNull();
    expect((await ok(t, narrowed, 'issues.get', { id: child.id })).parentId).toBeNull();
    expect((await ok(t, narrowed, 'issues.get', { id: child.id, include: { description: true } })).parentId).toBeNull();
    const list = await ok(t, narrowed, 'issues.list', {});
    expect(list.items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    expect(list.items[0].parentId).toBeNull();
    expect((await ok(t, narrowed, 'issues.update', { id: child.id, title: 'Renamed child' })).parentId).toBeNull();
  });

  it('is the id for keys that can see the parent (un-narrowed, or narrowed to both projects)', async () => {
    expect((await ok(t, ws.token, 'issues.get', { id: child.key })).parentId).toBe(parent.id);
    expect((await ok(t, both, 'issues.get', { id: child.key })).parentId).toBe(parent.id);
    expect((await ok(t, both, 'issues.get', { id: child.id })).parentId).toBe(parent.id);
    expect((await ok(t, ws.token, 'issues.get', { id: parent.id })).parentId).toBeNull();
  });

  it('GraphQL: parent is null for the narrowed key, set for the owner; parentId is not a readable field', async () => {
    const q = `query($id: UUID!) { issue(rowId: $id) { rowId parent { rowId } } }`;
    expect((await gqlOk(t, narrowed, q, { id: child.id })).issue).toEqual({ rowId: child.id, parent: null });
    expect((await gqlOk(t, ws.token, q, { id: child.id })).issue).toEqual({ rowId: child.id, parent: { rowId: parent.id } });
    const { gql } = await import('../support/graphql.ts');
    const raw = await gql(t, narrowed, `query($id: UUID!) { issue(rowId: $id) { parentId } }`, { id: child.id });
    expect(raw.errors?.[0]?.message).toMatch(/Cannot query field "parentId"/);
  });

  it('filters read the same mask: parentId null counts the child of a hidden parent, and GraphQL cannot filter by the raw id', async () => {
    // The filter runs on what the key sees (parentId null), so neither the list nor the count tells that a hidden parent exists.
    const topLevel = await ok(t, narrowed, 'issues.list', { parentId: null });
    expect(topLevel.items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    expect(await ok(t, narrowed, 'issues.count', { parentId: null })).toEqual(await ok(t, narrowed, 'issues.count', {}));
    // With a search too (its matches are read by a definer, which must leave this filter to the caller), and with a
    // filter the definer does apply for a narrowed key.
    expect((await ok(t, narrowed, 'issues.list', { query: 'child', parentId: null })).items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    expect((await ok(t, narrowed, 'issues.list', { query: 'child', priority: 'NONE' })).items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    expect((await ok(t, narrowed, 'issues.list', { query: 'parent' })).items).toEqual([]);
    // A hidden parent as the filter value is a 404, as it is anywhere else.
    const { rest } = await import('../support/harness.ts');
    expect((await rest(t, narrowed, 'issues.list', { parentId: parent.id })).status).toBe(404);
    // Keys that can see the parent still filter on the real column.
    expect((await ok(t, both, 'issues.list', { parentId: null })).items.map((i: { id: string }) => i.id)).toEqual([parent.id]);
    expect((await ok(t, ws.token, 'issues.list', { parentId: parent.id })).items.map((i: { id: string }) => i.id)).toEqual([child.id]);
    // GraphQL: a condition on a guessed hidden id would confirm it; the column takes no condition or order at all.
    const { gql } = await import('../support/graphql.ts');
    const cond = await gql(t, narrowed, `query($p: UUID!) { issues(condition: {parentId: $p}) { nodes { rowId } } }`, { p: parent.id });
    expect(cond.errors?.[0]?.message).toMatch(/parentId/);
    const order = await gql(t, narrowed, '{ issues(orderBy: PARENT_ID_ASC) { nodes { rowId } } }');
    expect(order.errors?.[0]?.message).toMatch(/PARENT_ID_ASC/);
    // The children of an issue stay reachable from the issue, under RLS.
    const kids = await gqlOk(t, ws.token, `query($id: UUID!) { issue(rowId: $id) { childIssues { nodes { rowId } } } }`, { id: parent.id });
    expect(kids.issue.childIssues.nodes).toEqual([{ rowId: child.id }]);
  });
});
