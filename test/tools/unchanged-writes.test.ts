/**
 * A write that changes nothing leaves updatedAt where it was (an event audit found three that moved it with no event
 * to say why: a claim already running longer, a label renamed to its own name, settings sent back unchanged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({});
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const later = () => new Promise((r) => setTimeout(r, 20));
const updatedAt = async (table: string, id: string) =>
  (await t.pools.owner.query(`select updated_at::text as u from app_public.${table} where id = $1`, [id])).rows[0].u as string;

describe('an unchanged write', () => {
  it('issues.claim shorter than the claim held, labels.update to the same values, workspace.updateSettings with none new', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'held' });
    await ok(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 240 });
    const claimed = await updatedAt('issues', issue.id);
    await later();
    await ok(t, ws.token, 'issues.claim', { id: issue.id, durationMinutes: 5 });
    expect(await updatedAt('issues', issue.id)).toBe(claimed);

    const label = await ok(t, ws.token, 'labels.create', { name: 'same', color: '#aabbcc' });
    const made = await updatedAt('labels', label.id);
    await later();
    await ok(t, ws.token, 'labels.update', { id: label.id, name: 'same', color: '#aabbcc' });
    expect(await updatedAt('labels', label.id)).toBe(made);

    const before = await updatedAt('workspaces', ws.id);
    await later();
    await ok(t, ws.token, 'workspace.updateSettings', {});
    expect(await updatedAt('workspaces', ws.id)).toBe(before);

    // A change still moves it; and an issue's search document (a generated column) does not count as one.
    await ok(t, ws.token, 'labels.update', { id: label.id, name: 'different' });
    expect(await updatedAt('labels', label.id)).not.toBe(made);
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'held' });
    expect(await updatedAt('issues', issue.id)).toBe(claimed);
    await ok(t, ws.token, 'issues.update', { id: issue.id, title: 'held, renamed' });
    expect(await updatedAt('issues', issue.id)).not.toBe(claimed);
  });
});
