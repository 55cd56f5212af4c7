/**
 * What narrowed keys read over GraphQL where a record names an issue, initiative or chat they may not see (an outside
 * probe found each of these through GraphQL while the tools hid them): pins, event payloads, webhook deliveries, an
 * action request's source, a person's own time entry; and a workspace admin's agent key does not read other chats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlOk } from '../support/graphql.ts';
import { admin, createAgent, createKey, createWorkspace, insertProject, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let visible: string;
let hidden: { id: string; key: string };
let narrowed: { token: string };

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'NGR');
  visible = await insertProject(t, ws, 'Visible');
  hidden = await ok(t, ws.token, 'issues.create', { title: 'Hidden from the narrowed key' });
  narrowed = await createKey(t, ws, { scopes: ['FULL'], projects: [visible] });
});
afterAll(() => t.close());

describe('narrowed keys over GraphQL', () => {
  it('pins, action request sources and own time entries do not name a hidden issue', async () => {
    const shown = await ok(t, ws.token, 'issues.create', { title: 'Seen', projectId: visible });
    await ok(t, ws.token, 'pins.set', { issueIds: [hidden.key, shown.key] });
    const pins = await gqlOk(t, narrowed.token, '{ pins { nodes { targetType targetId } } }');
    expect(pins.pins.nodes).toEqual([{ targetType: 'ISSUE', targetId: shown.id }]);
    expect((await gqlOk(t, ws.token, '{ pins { nodes { targetId } } }')).pins.nodes).toHaveLength(2);

    const req = await ok(t, ws.token, 'actionRequests.create', { title: 'From elsewhere', issueId: shown.id, sourceType: 'issue', sourceId: hidden.id });
    const viaGraphql = await gqlOk(t, narrowed.token, 'query($id: UUID!) { actionRequest(rowId: $id) { sourceId } }', { id: req.id });
    expect(viaGraphql.actionRequest).toEqual({ sourceId: null });
    expect((await ok(t, narrowed.token, 'actionRequests.get', { id: req.id })).sourceId).toBeNull();
    expect((await ok(t, ws.token, 'actionRequests.get', { id: req.id })).sourceId).toBe(hidden.id);
    expect(JSON.stringify(await ok(t, narrowed.token, 'events.recent', { limit: 200 }))).not.toContain(hidden.id);

    await ok(t, ws.token, 'time.start', { issueId: hidden.key });
    const running = await ok(t, narrowed.token, 'time.running', {});
    expect(JSON.stringify(running)).not.toContain(hidden.id);
    await ok(t, ws.token, 'time.stop', {});
  });

  it('event payloads read through GraphQL hide an initiative outside the key\'s initiative narrowing', async () => {
    const outside = await ok(t, ws.token, 'initiatives.create', { name: 'Outside' });
    const inside = await ok(t, ws.token, 'initiatives.create', { name: 'Inside' });
    const project = await ok(t, ws.token, 'projects.create', { name: 'Linked' });
    await ok(t, ws.token, 'initiatives.linkProject', { initiativeId: outside.id, projectId: project.id });
    const byInitiative = await createKey(t, ws, { scopes: ['FULL'], initiatives: [inside.id] });
    const q = 'query($p: UUID!) { activityEvents(condition: {subjectId: $p}) { nodes { kind payload } } }';
    const events = (await gqlOk(t, byInitiative.token, q, { p: project.id })).activityEvents.nodes;
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(outside.id);
    expect(JSON.stringify((await gqlOk(t, ws.token, q, { p: project.id })).activityEvents.nodes)).toContain(outside.id);
  });

  it('webhook deliveries are not read by a narrowed admin key (they name events about any issue)', async () => {
    await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/all', json: true });
    await ok(t, ws.token, 'issues.create', { title: 'Delivered' });
    expect((await gqlOk(t, ws.token, '{ webhookDeliveries { totalCount } }')).webhookDeliveries.totalCount).toBeGreaterThan(0);
    expect((await gqlOk(t, narrowed.token, '{ webhookDeliveries { totalCount } }')).webhookDeliveries.totalCount).toBe(0);
  });

  it('an admin\'s agent key reads only its own agent\'s chats; the admin\'s own key reads them all', async () => {
    const helper = await createAgent(t, ws, 'ngr-helper');
    await createAgent(t, ws, 'ngr-other');
    const opened = await gqlOk(t, ws.token, 'mutation($a: UUID!) { chatOpenThread(input: {agentId: $a, message: "for the helper only"}) { chatThread { rowId } } }', { a: helper.id });
    const threadId = opened.chatOpenThread.chatThread.rowId;
    const otherAgentKey = await createKey(t, ws, { agent: 'ngr-other', scopes: ['FULL'] }); // the owner's user, an admin
    const seen = async (token: string) => (await ok(t, token, 'events.recent', { subjectType: 'chat-thread', subjectId: threadId })).items.length;
    expect(await seen(otherAgentKey.token)).toBe(0);
    expect((await gqlOk(t, otherAgentKey.token, '{ chatThreads { nodes { rowId } } }')).chatThreads.nodes).toEqual([]);
    expect(await seen(ws.token)).toBe(2);
    expect(await seen((await createKey(t, ws, { agent: 'ngr-helper', scopes: ['FULL'] })).token)).toBe(2);
  });
});
