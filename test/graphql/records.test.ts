/** In-app-only records over GraphQL: comment revision history, note restore, polymorphic pins. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let member: { id: string; token: string };
let ownerId: string;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: ws.key, email: 'kim@example.com', role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: 'kim@example.com' });
  ownerId = (await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail])).rows[0].id;
});
afterAll(() => t.close());

describe('comment revision history', () => {
  it('lists previous bodies oldest first, as comments.update keeps them', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Has an edited comment' });
    const { rows: [c] } = await t.pools.owner.query(
      `insert into app_public.comments (workspace_id, issue_id, body, author_user_id, edited_at, revisions)
       values ($1, $2, 'third take', $3, now(), $4) returning id`,
      [ws.id, issue.id, ownerId, JSON.stringify([
        { body: 'first take', editedAt: '2025-01-01T10:00:00Z' },
        { body: 'second take', editedAt: '2025-01-02T10:00:00Z' },
      ])]);
    const { comment } = await gqlOk(t, member.token, `{ comment(rowId: "${c.id}") {
      body editedAt issue { key } authorUser { email }
      revisionHistory { totalCount nodes { revision body editedAt } } } }`);
    expect(comment).toMatchObject({ body: 'third take', issue: { key: issue.key }, authorUser: { email: ws.ownerEmail } });
    expect(comment.revisionHistory.totalCount).toBe(2);
    expect(comment.revisionHistory.nodes.map((r: { revision: number; body: string }) => [r.revision, r.body]))
      .toEqual([[1, 'first take'], [2, 'second take']]);
    expect(new Date(comment.revisionHistory.nodes[0].editedAt).toISOString()).toBe('2025-01-01T10:00:00.000Z');
    // The raw JSON column is not part of the schema; the history is.
    const fields = (await gqlOk(t, ws.token, '{ __type(name: "Comment") { fields { name } } }')).__type.fields.map((f: { name: string }) => f.name);
    expect(fields).toContain('revisionHistory');
    expect(fields).not.toContain('revisions');
  });
});

describe('note restore', () => {
  it("restores your own archived note; another user's note is not found", async () => {
    const { rows: [n] } = await t.pools.owner.query(
      `insert into app_public.notes (workspace_id, user_id, title, body, archived_at) values ($1, $2, 'Ideas', 'body', now()) returning id`,
      [ws.id, ownerId]);
    const q = `mutation { notesRestore(input: {noteId: "${n.id}"}) { note { rowId title archivedAt } } }`;
    expect(await gqlError(t, member.token, q)).toMatchObject({ code: 'not_found', status: 404, message: 'Note not found' });
    expect((await gqlOk(t, member.token, `{ note(rowId: "${n.id}") { rowId } }`)).note).toBeNull();
    const { notesRestore } = await gqlOk(t, ws.token, q);
    expect(notesRestore.note).toEqual({ rowId: n.id, title: 'Ideas', archivedAt: null });
    // Idempotent.
    expect((await gqlOk(t, ws.token, q)).notesRestore.note.archivedAt).toBeNull();
    expect(await gqlError(t, ws.token, `mutation { notesRestore(input: {noteId: "${crypto.randomUUID()}"}) { note { rowId } } }`))
      .toMatchObject({ code: 'not_found' });
  });
});

describe('polymorphic pins', () => {
  it('pins projects, initiatives, saved views, cycles and agents; lists, reorders and unpins them', async () => {
    const project = (await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Website') returning id`, [ws.id])).rows[0].id;
    const initiative = (await t.pools.owner.query(`insert into app_public.initiatives (workspace_id, name) values ($1, 'Q3 launch') returning id`, [ws.id])).rows[0].id;
    const cycle = (await t.pools.owner.query(
      `insert into app_public.cycles (workspace_id, number, name, starts_on, ends_on) values ($1, 1, 'Sprint 1', current_date, current_date + 13) returning id`, [ws.id])).rows[0].id;
    const agent = (await createAgent(t, ws, 'pinned-bot')).id;
    const savedView = crypto.randomUUID();
    const pin = (type: string, id: string) => gqlOk(t, member.token, `mutation { pinsAdd(input: {targetType: ${type}, targetId: "${id}"}) { pin { rowId targetType targetId position } } }`)
      .then((d) => d.pinsAdd.pin);
    const p1 = await pin('PROJECT', project);
    const p2 = await pin('INITIATIVE', initiative);
    const p3 = await pin('SAVED_VIEW', savedView);
    const p4 = await pin('CYCLE', cycle);
    const p5 = await pin('AGENT', agent);
    expect([p1, p2, p3, p4, p5].map((p) => p.position)).toEqual([0, 1, 2, 3, 4]);
    expect((await pin('PROJECT', project)).rowId).toBe(p1.rowId); // idempotent

    const listed = (await gqlOk(t, member.token, `{ pins(orderBy: POSITION_ASC) { nodes { targetType project { name } initiative { name } cycle { name } agent { profileKey } } } }`)).pins.nodes;
    expect(listed).toEqual([
      { targetType: 'PROJECT', project: { name: 'Website' }, initiative: null, cycle: null, agent: null },
      { targetType: 'INITIATIVE', project: null, initiative: { name: 'Q3 launch' }, cycle: null, agent: null },
      { targetType: 'SAVED_VIEW', project: null, initiative: null, cycle: null, agent: null },
      { targetType: 'CYCLE', project: null, initiative: null, cycle: { name: 'Sprint 1' }, agent: null },
      { targetType: 'AGENT', project: null, initiative: null, cycle: null, agent: { profileKey: 'pinned-bot' } },
    ]);
    // Pins are personal: the owner sees none of them.
    expect((await gqlOk(t, ws.token, '{ pins { totalCount } }')).pins.totalCount).toBe(0);

    const reordered = (await gqlOk(t, member.token, `mutation($ids: [UUID]!) { pinsReorder(input: {pinIds: $ids}) { pins { rowId position } } }`,
      { ids: [p5.rowId, p1.rowId] })).pinsReorder.pins;
    expect(reordered).toEqual([{ rowId: p5.rowId, position: 0 }, { rowId: p1.rowId, position: 1 }]);
    // The pins not listed follow, in their order: every position once (a partial list left two pins at 0).
    const positions = (await gqlOk(t, member.token, '{ pins(orderBy: POSITION_ASC) { nodes { rowId position } } }')).pins.nodes;
    expect(positions.map((p: { position: number }) => p.position)).toEqual([0, 1, 2, 3, 4]);
    expect(positions.slice(0, 2).map((p: { rowId: string }) => p.rowId)).toEqual([p5.rowId, p1.rowId]);
    expect(await gqlError(t, ws.token, `mutation($ids: [UUID]!) { pinsReorder(input: {pinIds: $ids}) { pins { rowId } } }`, { ids: [p5.rowId] }))
      .toMatchObject({ code: 'invalid_input', issues: { pinIds: expect.any(String) } });

    const removed = (await gqlOk(t, member.token, `mutation { pinsRemove(input: {targetType: SAVED_VIEW, targetId: "${savedView}"}) { pin { rowId } } }`)).pinsRemove.pin;
    expect(removed.rowId).toBe(p3.rowId);
    expect(await gqlError(t, member.token, `mutation { pinsRemove(input: {targetType: SAVED_VIEW, targetId: "${savedView}"}) { pin { rowId } } }`))
      .toMatchObject({ code: 'not_found' });
    expect((await gqlOk(t, member.token, '{ pins { totalCount } }')).pins.totalCount).toBe(4);

    // atPosition is 0 (first) to the number of pins; later pins move down. -3 and 2^31-1 were stored as given (and
    // appending after the latter overflowed).
    const at = (n: number) => `mutation { pinsAdd(input: {targetType: SAVED_VIEW, targetId: "${savedView}", atPosition: ${n}}) { pin { rowId position } } }`;
    for (const n of [-3, 5, 2147483647]) expect(await gqlError(t, member.token, at(n)), String(n)).toMatchObject({ code: 'invalid_input', issues: { atPosition: 'must be 0 to 4' } });
    expect((await gqlOk(t, member.token, at(0))).pinsAdd.pin.position).toBe(0);
    const order = (await gqlOk(t, member.token, '{ pins(orderBy: POSITION_ASC) { nodes { targetType position } } }')).pins.nodes;
    // The new pin first; the one that was first (the agent, reordered) moved down.
    expect(order.slice(0, 2)).toEqual([{ targetType: 'SAVED_VIEW', position: 0 }, { targetType: 'AGENT', position: 1 }]);
  });

  it('refuses targets that do not exist or are not visible', async () => {
    for (const type of ['PROJECT', 'INITIATIVE', 'CYCLE', 'AGENT']) {
      expect(await gqlError(t, member.token, `mutation { pinsAdd(input: {targetType: ${type}, targetId: "${crypto.randomUUID()}"}) { pin { rowId } } }`), type)
        .toMatchObject({ code: 'not_found', status: 404 });
    }
    expect(await gqlError(t, member.token, 'mutation { pinsAdd(input: {targetType: ISSUE, targetId: "00000000-0000-0000-0000-000000000000"}) { pin { rowId } } }'))
      .toMatchObject({ message: expect.stringMatching(/ISSUE/) });
  });
});

describe('poll counts', () => {
  it('voteCounts counts every voter in the database (a board counting the votes it read stopped at 100); viewerVote is the key\'s own', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Many voters' });
    const poll = await ok(t, ws.token, 'actionRequests.create', {
      title: 'Which?', issueId: issue.id, options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }],
    });
    // 130 voters for a (people of the workspace, written directly), then the member votes b.
    await t.pools.owner.query(
      `with u as (insert into app_public.users (email) select 'voter' || n || '-' || $2::text || '@example.com' from generate_series(1, 130) n returning id),
            m as (insert into app_public.memberships (workspace_id, user_id, role) select $1, id, 'MEMBER' from u returning user_id)
       insert into app_public.action_request_votes (workspace_id, request_id, user_id, option_key) select $1, $3, user_id, 'a' from m`,
      [ws.id, ws.key, poll.id]);
    await ok(t, member.token, 'actionRequests.vote', { id: poll.id, optionKey: 'b' });
    const q = `query($id: UUID!) { actionRequest(rowId: $id) { voteCounts viewerVote } }`;
    expect((await gqlOk(t, member.token, q, { id: poll.id })).actionRequest).toEqual({ voteCounts: { a: 130, b: 1 }, viewerVote: 'b' });
    expect((await gqlOk(t, ws.token, q, { id: poll.id })).actionRequest).toEqual({ voteCounts: { a: 130, b: 1 }, viewerVote: null });
    expect((await ok(t, ws.token, 'actionRequests.results', { id: poll.id })).total).toBe(131);
  });
});
