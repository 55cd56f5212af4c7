/** comments.create / update / delete / list / upsertStatus (spec 4.3). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let agent: { id: string };
let agentKey: { token: string };
let memberKey: { token: string };
let adminMemberKey: { token: string };
let projectA: string;
let projectB: string;

const W = ['READ_ISSUES', 'WRITE_ISSUES', 'WRITE_COMMENTS'] as const;

async function commentEvents(id: string, token = ws.token) {
  const r = await ok(t, token, 'events.recent', { subjectType: 'comment', subjectId: id });
  return (r.items as Array<{ kind: string; payload: any }>).reverse();
}
async function revisions(id: string) {
  const { rows } = await t.pools.owner.query('select revisions, deleted_at from app_public.comments where id = $1', [id]);
  return rows[0] as { revisions: Array<{ body: string; editedAt: string }>; deleted_at: Date | null };
}

beforeAll(async () => {
  t = await startTestApp();
  ws = await createWorkspace(t, 'COM');
  other = await createWorkspace(t, 'OTC');
  agent = await createAgent(t, ws, 'scribe');
  agentKey = await createKey(t, ws, { agent: 'scribe', scopes: [...W] });
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  await admin(t, 'add-member', { workspace: ws.key, email: 'admin@example.com', role: 'ADMIN', json: true });
  memberKey = await createKey(t, ws, { user: 'member@example.com', scopes: [...W] });
  adminMemberKey = await createKey(t, ws, { user: 'admin@example.com', scopes: [...W] });
  const p = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'A'), ($1, 'B') returning id`, [ws.id]);
  projectA = p.rows[0].id;
  projectB = p.rows[1].id;
});
afterAll(() => t.close());

describe('comments.createMany', () => {
  it('posts up to 100 comments in one call, each with its COMMENT_CREATED, in order', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Imported thread' });
    const made = await ok(t, memberKey.token, 'comments.createMany', {
      items: Array.from({ length: 30 }, (_, n) => ({ issueId: n % 2 ? issue.key : issue.id, body: `Old comment ${n}`, ...(n === 0 ? { confidence: 'LOW' } : {}) })) });
    expect(made.items.map((c: { body: string }) => c.body)).toEqual(Array.from({ length: 30 }, (_, n) => `Old comment ${n}`));
    expect(made.items[0]).toMatchObject({ issueId: issue.id, confidence: 'LOW', author: { email: 'member@example.com' } });
    const events = (await ok(t, ws.token, 'events.recent', { kinds: ['COMMENT_CREATED'], limit: 100 })).items
      .filter((e: { payload: { issueId: string } }) => e.payload.issueId === issue.id);
    expect(events).toHaveLength(30);
    // Listed in the order written, newest first (one createdAt for the batch listed it shuffled: ties went by random id).
    const listed = (await ok(t, ws.token, 'comments.list', { issueId: issue.id, limit: 50 })).items.map((c: { body: string }) => c.body);
    expect(listed).toEqual(Array.from({ length: 30 }, (_, n) => `Old comment ${29 - n}`));
  });

  it('all or nothing: a failing item names itself and nothing is posted; other workspaces and narrowings are not found', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Half a thread' });
    const theirs = await ok(t, other.token, 'issues.create', { title: 'Not yours' });
    const count = async () => (await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items.length;
    const bad = await rest(t, ws.token, 'comments.createMany', { items: [{ issueId: issue.id, body: 'fine' }, { issueId: issue.id, body: '  ' }] });
    expect([bad.status, Object.keys(bad.body.issues)]).toEqual([400, ['items.1.body']]);
    const foreign = await rest(t, ws.token, 'comments.createMany', { items: [{ issueId: issue.id, body: 'fine' }, { issueId: theirs.id, body: 'into theirs' }] });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'not_found']);
    expect(JSON.stringify(foreign.body)).toContain('items.1');
    const narrowed = await createKey(t, ws, { projects: [projectA], scopes: [...W] });
    const outside = await rest(t, narrowed.token, 'comments.createMany', { items: [{ issueId: issue.id, body: 'outside my project' }] });
    expect(outside.status).toBe(404);
    expect(await count()).toBe(0);
    expect((await ok(t, other.token, 'comments.list', { issueId: theirs.id })).items).toEqual([]);
    expect((await rest(t, ws.token, 'comments.createMany', { items: [] })).status).toBe(400);
    expect((await rest(t, ws.token, 'comments.createMany', { items: Array.from({ length: 101 }, () => ({ issueId: issue.id, body: 'x' })) })).status).toBe(400);
  });
});

describe('comments.create', () => {
  it('posts with author, authoringAgent and confidence; COMMENT_CREATED; attached to the agent\'s open run', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Discuss' });
    const byUser = await ok(t, memberKey.token, 'comments.create', { issueId: issue.key, body: 'Looks good', confidence: 'LOW' });
    expect(byUser).toMatchObject({ issueId: issue.id, body: 'Looks good', kind: 'COMMENT', confidence: 'LOW',
      author: { email: 'member@example.com', name: 'member' }, authoringAgent: null, runId: null, editedAt: null });
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'scribe' });
    const byAgent = await ok(t, agentKey.token, 'comments.create', { issueId: issue.id, body: 'On it', confidence: 'HIGH' });
    expect(byAgent).toMatchObject({ confidence: 'HIGH', authoringAgent: { id: agent.id, profileKey: 'scribe', name: 'scribe' }, runId: expect.any(String) });
    const ev = await commentEvents(byAgent.id);
    expect(ev.map((e) => e.kind)).toEqual(['COMMENT_CREATED']);
    expect(ev[0]!.payload).toMatchObject({ commentId: byAgent.id, issueId: issue.id, confidence: 'HIGH', authoringAgentId: agent.id });
  });

  it('rejects bad input (400) and issues of other workspaces or outside the narrowing (404)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Bad comments' });
    expect((await rest(t, ws.token, 'comments.create', { issueId: issue.id })).body.issues).toHaveProperty('body');
    expect((await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: '   ' })).body.issues).toHaveProperty('body');
    expect((await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: 'x', confidence: 'SURE' })).body.issues).toHaveProperty('confidence');
    expect((await rest(t, ws.token, 'comments.create', { issueId: issue.id, body: 'x'.repeat(100_001) })).status).toBe(400);
    const foreign = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    expect((await rest(t, ws.token, 'comments.create', { issueId: foreign.id, body: 'hi' })).status).toBe(404);
    expect((await ok(t, other.token, 'comments.list', { issueId: foreign.id })).items).toEqual([]);
    const inB = await ok(t, ws.token, 'issues.create', { title: 'B', projectId: projectB });
    const narrowed = await createKey(t, ws, { scopes: [...W], projects: [projectA] });
    expect((await rest(t, narrowed.token, 'comments.create', { issueId: inB.id, body: 'hi' })).status).toBe(404);
    const inA = await ok(t, ws.token, 'issues.create', { title: 'A', projectId: projectA });
    expect((await ok(t, narrowed.token, 'comments.create', { issueId: inA.id, body: 'hi' })).body).toBe('hi');
  });
});

describe('comments.create with an actionRequest', () => {
  it('needs WRITE_ISSUES as actionRequests.create does: a WRITE_COMMENTS-only key made a card that closed an issue', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Not closable by a commenter' });
    const canceled = (await ok(t, ws.token, 'statuses.list', {})).find((x: { category: string }) => x.category === 'CANCELED');
    const commenter = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_COMMENTS'] });
    const card = { title: 'Close it', kind: 'TRANSITION', payload: { statusId: canceled.id } };
    const refused = await rest(t, commenter.token, 'comments.create', { issueId: issue.id, body: 'Should we?', actionRequest: card });
    expect([refused.status, refused.body.error, refused.body.scope]).toEqual([403, 'scope_required', 'WRITE_ISSUES']);
    // Nothing was written: no comment, no card.
    expect((await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items).toEqual([]);
    expect((await ok(t, commenter.token, 'comments.create', { issueId: issue.id, body: 'A plain comment' })).body).toBe('A plain comment');
    const writer = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_COMMENTS', 'WRITE_ISSUES'] });
    expect((await ok(t, writer.token, 'comments.create', { issueId: issue.id, body: 'Should we?', actionRequest: card })).actionRequest.kind).toBe('TRANSITION');
  });
});

describe('comments.update / delete', () => {
  it('the author edits: revisions keep the previous body, editedAt set, COMMENT_UPDATED; no change, no event', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Edit' });
    const c = await ok(t, memberKey.token, 'comments.create', { issueId: issue.id, body: 'v1' });
    const e = await ok(t, memberKey.token, 'comments.update', { id: c.id, body: 'v2' });
    expect(e).toMatchObject({ body: 'v2', editedAt: expect.any(String) });
    expect((await revisions(c.id)).revisions).toEqual([{ body: 'v1', editedAt: expect.any(String) }]);
    await ok(t, memberKey.token, 'comments.update', { id: c.id, body: 'v2' });
    const ev = await commentEvents(c.id);
    expect(ev.map((x) => x.kind)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED']);
    expect((await revisions(c.id)).revisions).toHaveLength(1);
  });

  it('keeps at most 20 revisions, oldest dropped', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Many edits' });
    const c = await ok(t, memberKey.token, 'comments.create', { issueId: issue.id, body: 'v0' });
    for (let i = 1; i <= 22; i++) await ok(t, memberKey.token, 'comments.update', { id: c.id, body: `v${i}` });
    const r = (await revisions(c.id)).revisions;
    expect(r).toHaveLength(20);
    expect(r[0]!.body).toBe('v2');
    expect(r[19]!.body).toBe('v21');
  });

  it('others get 403 not_author; OWNER/ADMIN person keys and their ADMIN-scoped keys may override, a MEMBER\'s ADMIN scope may not; agents by their agent', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Authz' });
    const c = await ok(t, memberKey.token, 'comments.create', { issueId: issue.id, body: 'mine' });
    const byAgent = await ok(t, agentKey.token, 'comments.create', { issueId: issue.id, body: 'agent note' });
    const otherMember = await (async () => {
      await admin(t, 'add-member', { workspace: ws.key, email: 'other@example.com', role: 'MEMBER', json: true });
      return createKey(t, ws, { user: 'other@example.com', scopes: [...W] });
    })();
    for (const tool of ['comments.update', 'comments.delete']) {
      const r = await rest(t, otherMember.token, tool, { id: c.id, ...(tool === 'comments.update' ? { body: 'hijack' } : {}) });
      expect(r.status, tool).toBe(403);
      expect(r.body.error).toBe('not_author');
    }
    // a person key is never the agent that wrote a comment
    const agentKeyOwnerPersonal = await createKey(t, ws, { user: 'member@example.com', scopes: [...W] });
    expect((await rest(t, agentKeyOwnerPersonal.token, 'comments.update', { id: byAgent.id, body: 'x' })).status).toBe(403);
    expect((await ok(t, agentKey.token, 'comments.update', { id: byAgent.id, body: 'agent note v2' })).body).toBe('agent note v2');
    // an agent key does not inherit its user's role (the OWNER's agent key may not override)
    expect((await rest(t, agentKey.token, 'comments.update', { id: c.id, body: 'x' })).status).toBe(403);
    expect((await ok(t, adminMemberKey.token, 'comments.update', { id: c.id, body: 'moderated' })).body).toBe('moderated');
    // A MEMBER's key with the ADMIN scope (or FULL) is still a MEMBER's: moderation is a role (spec 2.8).
    for (const scopes of [[...W, 'ADMIN'], ['FULL']]) {
      const memberAdminScoped = await createKey(t, ws, { user: 'other@example.com', scopes: scopes as typeof W[number][] });
      const r = await rest(t, memberAdminScoped.token, 'comments.update', { id: c.id, body: 'by admin key' });
      expect([r.status, r.body.error]).toEqual([403, 'not_author']);
    }
    // An ADMIN-scoped key made for an OWNER/ADMIN moderates, an agent's key too (spec 5 item 9).
    const ownersAgentAdmin = await createKey(t, ws, { agent: 'scribe', scopes: [...W, 'ADMIN'] });
    expect((await ok(t, ownersAgentAdmin.token, 'comments.update', { id: c.id, body: 'by the owner\'s admin agent key' })).body)
      .toBe('by the owner\'s admin agent key');
    expect(await ok(t, adminMemberKey.token, 'comments.delete', { id: byAgent.id })).toMatchObject({ ok: true, deleted: true });
  });

  it('delete is soft: hidden from lists and bundles, row kept, COMMENT_UPDATED {deleted}, then 404', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Delete' });
    const c = await ok(t, memberKey.token, 'comments.create', { issueId: issue.id, body: 'bye' });
    await ok(t, memberKey.token, 'comments.delete', { id: c.id });
    expect((await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items).toEqual([]);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id, include: { comments: true } })).comments).toEqual([]);
    expect((await revisions(c.id)).deleted_at).toBeTruthy();
    const ev = await commentEvents(c.id);
    expect(ev.map((x) => x.kind)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED']);
    expect(ev[1]!.payload).toMatchObject({ deleted: true });
    expect((await rest(t, memberKey.token, 'comments.delete', { id: c.id })).status).toBe(404);
    expect((await rest(t, memberKey.token, 'comments.update', { id: c.id, body: 'back' })).status).toBe(404);
  });

  it('bad input 400; other workspace 404 with nothing changed', async () => {
    expect((await rest(t, ws.token, 'comments.update', { id: 'x', body: 'y' })).body.issues).toHaveProperty('id');
    expect((await rest(t, ws.token, 'comments.update', { id: crypto.randomUUID() })).body.issues).toHaveProperty('body');
    expect((await rest(t, ws.token, 'comments.delete', {})).status).toBe(400);
    const foreignIssue = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    const foreign = await ok(t, other.token, 'comments.create', { issueId: foreignIssue.id, body: 'theirs' });
    expect((await rest(t, ws.token, 'comments.update', { id: foreign.id, body: 'mine' })).status).toBe(404);
    expect((await rest(t, ws.token, 'comments.delete', { id: foreign.id })).status).toBe(404);
    expect((await ok(t, other.token, 'comments.list', { issueId: foreignIssue.id })).items[0].body).toBe('theirs');
  });
});

describe('comments.list', () => {
  it('newest first, pages with before, limit default 50 max 200', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Paged' });
    for (let i = 0; i < 55; i++) await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: `n${i}` });
    const first = await ok(t, ws.token, 'comments.list', { issueId: issue.id });
    expect(first.items).toHaveLength(50);
    expect(first.items[0].body).toBe('n54');
    expect(first.items[0].author).toMatchObject({ id: expect.any(String), name: expect.any(String), email: ws.ownerEmail });
    expect(first.items[0]).toHaveProperty('authoringAgent', null);
    const second = await ok(t, ws.token, 'comments.list', { issueId: issue.id, before: first.nextCursor });
    expect(second.items.map((c: { body: string }) => c.body)).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
    expect(second.nextCursor).toBeNull();
    expect((await rest(t, ws.token, 'comments.list', { issueId: issue.id, limit: 201 })).status).toBe(400);
    expect((await rest(t, ws.token, 'comments.list', { issueId: issue.id, before: 'nope' })).status).toBe(400);
    expect((await rest(t, ws.token, 'comments.list', {})).status).toBe(400);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await ok(t, reader.token, 'comments.list', { issueId: issue.id, limit: 200 })).items).toHaveLength(55);
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES'], projects: [projectA] });
    expect((await rest(t, narrowed.token, 'comments.list', { issueId: issue.id })).status).toBe(404);
  });
});

describe('comments.upsertStatus', () => {
  it('creates one STATUS comment per run, replaces it in place, idempotent for the same body', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Status' });
    const noRun = await rest(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'starting' });
    expect(noRun.status).toBe(409);
    expect(noRun.body.error).toBe('no_open_run');
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'scribe' });
    const s1 = await ok(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'step 1/3' });
    expect(s1).toMatchObject({ kind: 'STATUS', body: 'step 1/3', created: true, authoringAgent: { id: agent.id } });
    const s2 = await ok(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'step 2/3' });
    expect(s2).toMatchObject({ id: s1.id, body: 'step 2/3', created: false });
    await ok(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'step 2/3' });
    expect((await commentEvents(s1.id)).map((e) => e.kind)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED']);
    expect((await ok(t, ws.token, 'comments.list', { issueId: issue.id })).items.filter((c: { kind: string }) => c.kind === 'STATUS')).toHaveLength(1);
    // a new run (the agent assigned again after its run completed) gets its own status comment
    await t.pools.owner.query(`update app_public.agent_runs set status = 'COMPLETED' where issue_id = $1`, [issue.id]);
    await ok(t, ws.token, 'issues.assign', { id: issue.id, profileKey: 'scribe' });
    const s3 = await ok(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id, body: 'round two' });
    expect(s3.created).toBe(true);
    expect(s3.id).not.toBe(s1.id);
  });

  it('needs an agent-linked key (403) and valid input (400); 404 elsewhere', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Status denied' });
    const r = await rest(t, ws.token, 'comments.upsertStatus', { issueId: issue.id, body: 'x' });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('agent_key_required');
    expect((await rest(t, agentKey.token, 'comments.upsertStatus', { issueId: issue.id })).status).toBe(400);
    const foreign = await ok(t, other.token, 'issues.create', { title: 'theirs' });
    expect((await rest(t, agentKey.token, 'comments.upsertStatus', { issueId: foreign.id, body: 'x' })).status).toBe(404);
  });
});
