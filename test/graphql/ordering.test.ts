/** Ordering an app needs: the most urgent issues first (PRIORITY orders the names alphabetically). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

describe('issues by urgency', () => {
  it('PRIORITY_RANK_ASC: URGENT, HIGH, MEDIUM, LOW, NONE (newest first within one)', async () => {
    for (const priority of ['LOW', 'URGENT', 'NONE', 'HIGH', 'MEDIUM', 'URGENT']) await ok(t, ws.token, 'issues.create', { title: priority, priority });
    const { issues } = await gqlOk(t, ws.token, '{ issues(orderBy: [PRIORITY_RANK_ASC, NUMBER_DESC]) { nodes { number priority priorityRank } } }');
    expect(issues.nodes.map((i: { priority: string }) => i.priority)).toEqual(['URGENT', 'URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE']);
    expect(issues.nodes.map((i: { priorityRank: number }) => i.priorityRank)).toEqual([0, 0, 1, 2, 3, 4]);
    expect(issues.nodes[0].number).toBeGreaterThan(issues.nodes[1].number);
    // A change of priority moves it.
    const low = await ok(t, ws.token, 'issues.list', { priority: 'LOW' });
    await ok(t, ws.token, 'issues.update', { id: low.items[0].id, priority: 'URGENT' });
    const again = await gqlOk(t, ws.token, '{ issues(orderBy: [PRIORITY_RANK_ASC, NUMBER_DESC], first: 3) { nodes { priority } } }');
    expect(again.issues.nodes.map((i: { priority: string }) => i.priority)).toEqual(['URGENT', 'URGENT', 'URGENT']);
  });
});
