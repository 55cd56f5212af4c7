/**
 * A tenant reads event and chat message seq (GraphQL fields and cursors, the cursors of events.recent and
 * issues.history). They are numbered per workspace, so the gap between two of a workspace's own events says
 * nothing of what other workspaces did meanwhile; the global stream position is not readable at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let a: Workspace;
let b: Workspace;

const decode = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');
const eventSeqs = async (w: Workspace): Promise<number[]> =>
  (await gqlOk(t, w.token, '{ activityEvents(orderBy: SEQ_ASC) { nodes { seq } } }')).activityEvents.nodes.map((n: { seq: string }) => Number(n.seq));

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  a = await createWorkspace(t);
  b = await createWorkspace(t);
});
afterAll(() => t.close());

describe('seq is numbered per workspace', () => {
  it("another workspace's writes leave no gap in a workspace's event seq, in GraphQL and in the tools' cursors", async () => {
    await ok(t, a.token, 'issues.create', { title: 'first of A' });
    for (let i = 0; i < 5; i++) await ok(t, b.token, 'issues.create', { title: `B ${i}` });
    await ok(t, a.token, 'issues.create', { title: 'second of A' });
    await ok(t, a.token, 'issues.update', { id: `${a.key}-1`, priority: 'HIGH' });

    const seqs = await eventSeqs(a);
    expect(seqs.length).toBeGreaterThanOrEqual(3);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    const bSeqs = await eventSeqs(b);
    expect(bSeqs).toEqual(bSeqs.map((_, i) => bSeqs[0]! + i));

    // The cursors carry the same per-workspace value.
    const page = await ok(t, a.token, 'events.recent', { limit: 1 });
    expect(decode(page.nextCursor)).toBe(`events:${seqs[seqs.length - 1]}`);
    const history = await ok(t, a.token, 'issues.history', { id: `${a.key}-1`, limit: 1 });
    expect(decode(history.nextCursor)).toMatch(/^issue-history:\d+$/);
    expect(seqs).toContain(Number(decode(history.nextCursor).split(':')[1]));

    // And paging still walks every event once, newest first.
    const all: string[] = [];
    let before: string | undefined;
    do {
      const p = await ok(t, a.token, 'events.recent', { limit: 2, ...(before ? { before } : {}) });
      all.push(...p.items.map((e: { id: string }) => e.id));
      before = p.nextCursor ?? undefined;
    } while (before);
    expect(all).toHaveLength(seqs.length);
    expect(new Set(all).size).toBe(seqs.length);
  });

  it("chat messages' seq comes from the workspace's own sequence", async () => {
    const agent = await createAgent(t, a, 'seq-helper');
    const opened = await gqlOk(t, a.token, `mutation($a: UUID!) { chatOpenThread(input: {agentId: $a, message: "hello"}) { chatThread { rowId } } }`, { a: agent.id });
    for (let i = 0; i < 3; i++) await ok(t, b.token, 'issues.create', { title: `B more ${i}` });
    await gqlOk(t, a.token, `mutation($t: UUID!) { chatPostMessage(input: {threadId: $t, body: "again"}) { chatMessage { rowId } } }`,
      { t: opened.chatOpenThread.chatThread.rowId });
    const messages = (await gqlOk(t, a.token, '{ chatMessages(orderBy: SEQ_ASC) { nodes { seq body } } }')).chatMessages.nodes;
    expect(messages.map((m: { body: string }) => m.body)).toEqual(['hello', 'again']);
    const [first, second] = messages.map((m: { seq: string }) => Number(m.seq));
    // The workspace's sequence numbers its events and messages together: between the two messages only A's own
    // event of the first one was numbered, whatever B wrote meanwhile.
    expect(second - first).toBe(2);
  });

  it('the global stream position and a lookup by seq are not in GraphQL', async () => {
    expect((await gqlError(t, a.token, '{ activityEvents(first: 1) { nodes { streamPos } } }')).message).toMatch(/streamPos/);
    expect((await gqlError(t, a.token, '{ activityEventBySeq(seq: "1") { rowId } }')).message).toMatch(/activityEventBySeq/);
  });

  it('a new workspace numbers its events from 1', async () => {
    const c = await createWorkspace(t);
    await ok(t, c.token, 'issues.create', { title: 'first of C' });
    expect((await eventSeqs(c))[0]).toBe(1);
  });
});
